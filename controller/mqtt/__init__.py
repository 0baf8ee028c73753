"""The controller's MQTT side: the link, the embedded broker, putting retained topics right, Home Assistant discovery."""
