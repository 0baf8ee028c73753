"""On the board gkfw.py sits beside main.py at the top of the filesystem, so main.py imports it as ``gkfw``.

For type checkers that module is the package's own ``firmware_bridge.firmware.gkfw``; what main.py uses of it
is named here.
"""

from firmware_bridge.firmware.gkfw import Firmware as Firmware
