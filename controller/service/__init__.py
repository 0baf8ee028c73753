"""The running table: the worker and its lifecycle, with its commands, views, effects and self-test hooks."""
