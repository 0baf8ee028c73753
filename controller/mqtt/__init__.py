"""The controller's MQTT side: the link, the embedded broker, retained topics put right, Home Assistant discovery."""
