"""The wire contract: topics, the command envelope and its checks, signing and sealing, status, names.

This is the one part of the controller the panel may import (with the games' public names):
everything both sides of the broker must agree on lives here, and nothing here does I/O.
"""
