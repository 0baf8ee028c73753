"""The referee: a pure decision core (``core``, ``board``, ``guidance``, ``undo``, ``gm``), then the live referee.

The pure modules know no clock, journal or config: an input in, events out. ``live`` and
``live_gm`` keep the engine, the sensed board and the journal in agreement; ``replay`` and
``history`` read journals back through the same core.
"""
