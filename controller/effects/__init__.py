"""Effects: the game's events as sound, speech, light, vibration and animation (``docs/effects.md``).

``pack`` reads and checks an effects pack (TOML), ``words`` fills spoken lines
in plain words, ``engine`` matches events to cues and plays them off the
referee's path. The shipped packs are in ``packs/``.
"""
