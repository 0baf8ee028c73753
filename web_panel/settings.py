"""The panel's settings: where the broker is, where to listen, and the control tokens.

``gravekeeper run`` builds a :class:`PanelSettings` from its own config and
hands it to :func:`web_panel.server.start_panel`; ``gravekeeper panel`` builds
one from its command line. Every field has a default, so ``PanelSettings()``
is a read-only panel on a local broker.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from controller.protocol.broker_url import BrokerUrlError, parse_broker_url
from controller.protocol.names import check_table_id, is_table_id
from gravekeeper.errors import GravekeeperError


class SettingsError(GravekeeperError, ValueError):
    """A panel setting is wrong; the message names it."""


@dataclass(frozen=True)
class PanelSettings:
    """Everything the panel needs to know; see ``docs/panel.md``.

    ``token`` is the control token of every table; ``tokens`` overrides it
    for single tables (table id -> token). Without a token for a table, its
    page is read-only and its players cannot join.
    """

    broker_host: str = "127.0.0.1"
    broker_port: int = 1883
    broker_username: str | None = None
    broker_password: str | None = None
    broker_tls: bool = False
    broker_ca_file: str | None = None
    broker_mqtt5: bool = True  # False for a broker known to speak only MQTT 3.1.1 (the embedded one)
    base_topic: str = "gravekeeper"
    listen_host: str = "127.0.0.1"  # the library stays local; the CLI defaults to every interface
    listen_port: int = 8080
    token: str | None = None
    tokens: Mapping[str, str] = field(default_factory=dict)
    secret_key: str | None = None
    command_timeout: float = 5.0
    event_log_size: int = 200
    # How long a table's full traffic stays subscribed after its last page, stream or request is
    # gone (web_panel/interest.py): long enough that a reload or a phone's reconnect costs nothing.
    table_linger: float = 30.0
    state_dir: str | None = None  # where the secret key and the sessions are kept; None: in memory only
    home_table: str | None = None  # the table `gravekeeper run` serves: its join page is the one to print
    boards_dir: str | None = None  # where the board editor keeps owners' files; None: no saving
    # Names the panel is opened by besides the machine's own (web_panel/hosts.py): a reverse proxy's, say.
    public_names: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if not isinstance(self.broker_host, str) or not self.broker_host:
            raise SettingsError("broker_host must be a host name or address")
        _check_port("broker_port", self.broker_port, allow_zero=False)
        _check_port("listen_port", self.listen_port, allow_zero=True)
        if not isinstance(self.listen_host, str) or not self.listen_host:
            raise SettingsError("listen_host must be a host name or address")
        base = self.base_topic
        if not isinstance(base, str) or not base or base.startswith("/") or base.endswith("/"):
            raise SettingsError(f"base_topic {base!r} must be a non-empty topic without a leading or trailing '/'")
        if any(c in base for c in "+#\0"):
            raise SettingsError(f"base_topic {base!r} must not contain '+', '#' or NUL")
        if self.token is not None and (not isinstance(self.token, str) or not self.token):
            raise SettingsError("token must be a non-empty string when given")
        if not isinstance(self.tokens, Mapping):
            raise SettingsError("tokens must map table ids to tokens")
        for table, tok in self.tokens.items():
            if not is_table_id(table):
                raise SettingsError(f"tokens: {table!r} is not a valid table id: it {check_table_id(table)}")
            if not isinstance(tok, str) or not tok:
                raise SettingsError(f"tokens.{table} must be a non-empty string")
        if self.state_dir is not None and (not isinstance(self.state_dir, str) or not self.state_dir):
            raise SettingsError("state_dir must be a folder path when given")
        if self.home_table is not None and not is_table_id(self.home_table):
            raise SettingsError(f"home_table {self.home_table!r} is not a valid table id: it "
                                f"{check_table_id(self.home_table)}")
        if not isinstance(self.broker_mqtt5, bool):
            raise SettingsError("broker_mqtt5 must be true or false")
        if self.boards_dir is not None and (not isinstance(self.boards_dir, str) or not self.boards_dir):
            raise SettingsError("boards_dir must be a directory path when given")
        if isinstance(self.public_names, str) or not all(isinstance(n, str) and n for n in self.public_names):
            raise SettingsError("public_names must be a list of host names")
        if self.broker_password is not None and self.broker_username is None:
            raise SettingsError("broker_password needs broker_username")
        if self.broker_ca_file is not None and not self.broker_tls:
            raise SettingsError("broker_ca_file needs broker_tls")
        if isinstance(self.command_timeout, bool) or not isinstance(self.command_timeout, (int, float)) \
                or not 0 < self.command_timeout <= 120:
            raise SettingsError("command_timeout must be a number of seconds in (0, 120]")
        if isinstance(self.event_log_size, bool) or not isinstance(self.event_log_size, int) \
                or not 1 <= self.event_log_size <= 10000:
            raise SettingsError("event_log_size must be an integer from 1 to 10000")
        if isinstance(self.table_linger, bool) or not isinstance(self.table_linger, (int, float)) \
                or not 0 <= self.table_linger <= 3600:
            raise SettingsError("table_linger must be a number of seconds from 0 to 3600")

    def token_for(self, table: str) -> str | None:
        """The control token of ``table``: its own if mapped, else the common one."""
        return self.tokens.get(table, self.token)

    def with_broker_url(self, url: str) -> PanelSettings:
        """A copy with the broker taken from ``mqtt[s]://[user[:password]@]host[:port]``."""
        return replace(self, **broker_settings(url))


def _check_port(name: str, value: Any, *, allow_zero: bool) -> None:
    low = 0 if allow_zero else 1
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= 65535:
        raise SettingsError(f"{name} must be an integer from {low} to 65535, got {value!r}")


def broker_settings(url: Any) -> dict[str, Any]:
    """The broker fields of :class:`PanelSettings` from a URL (``controller.protocol.broker_url``);
    ``SettingsError`` saying what is wrong with it.

    ``mqtt://`` is plain TCP (default port 1883), ``mqtts://`` is TLS (8883).
    """
    try:
        broker = parse_broker_url(url)
    except BrokerUrlError as exc:
        raise SettingsError(str(exc)) from None
    out: dict[str, Any] = {"broker_host": broker.host, "broker_port": broker.port, "broker_tls": broker.tls}
    if broker.username:
        out["broker_username"] = broker.username
        out["broker_password"] = broker.password
    return out
