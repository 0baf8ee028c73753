"""The Flask web panel. It learns everything from MQTT and sends commands back over MQTT."""
