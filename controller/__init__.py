"""gravekeeper's controller: the rules engines, the referee, the journal and the MQTT link."""

__version__ = "0.1.0"
