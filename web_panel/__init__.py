"""The Flask web panel. It learns everything from MQTT and sends commands back over MQTT.

``create_app`` builds the Flask app; ``start_panel`` serves it from a
background thread; ``PanelSettings`` says where the broker is and holds the
control tokens. See ``docs/panel.md``.
"""

from .app import create_app
from .settings import PanelSettings, SettingsError

__all__ = ["PanelServer", "PanelSettings", "SettingsError", "create_app", "start_panel"]


def __getattr__(name: str) -> object:
    # The server pulls in werkzeug's serving module; import it only when asked.
    if name in ("start_panel", "PanelServer"):
        from . import server

        return getattr(server, name)
    raise AttributeError(name)
