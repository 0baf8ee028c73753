"""Reference firmware for a Raspberry Pi Pico (MicroPython).

Copy ``gkfw.py`` and ``main.py`` to the board's filesystem. ``gkfw`` holds the
protocol logic and is importable on CPython (the virtual MCU runs it);
``main.py`` is the board glue and needs MicroPython's ``machine`` module.
"""
