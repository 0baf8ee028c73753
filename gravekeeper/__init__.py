"""gravekeeper's shared foundation: the one root of every error the product raises on purpose.

The product's code lives in the four packages beside this one (``controller``, ``hardware``,
``firmware_bridge``, ``web_panel``); each of them may import this package, and it imports none
of them, so that the lowest layer can share the root too.
"""
