"""The panel's side of the broker: one connection, the picture of every table, and commands.

``MqttView`` is what the pages use; the modules behind it are private:
``_client`` (the paho connection and the facade), ``_table_store`` (every
table's picture and the streams that watch it), ``_table_view`` (one table's
picture, and a line of the club list), ``_command_sender`` (signed commands
and their replies).
"""

from ._client import MqttView
from ._command_sender import CommandTimeout, TableBusy
from ._table_store import LIST
from ._table_view import TableView, room_of

__all__ = ["LIST", "CommandTimeout", "MqttView", "TableBusy", "TableView", "room_of"]
