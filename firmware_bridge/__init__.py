"""The serial link to a microcontroller that reads many inputs: codec, link, firmware, virtual MCU."""
