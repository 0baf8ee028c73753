"""Sensors and their sources: GPIO through gpiozero, the MCU through firmware_bridge, or a simulator."""
