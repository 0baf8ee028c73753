"""Where the broker is, written as one URL: ``mqtt[s]://[user[:password]@]host[:port]``.

The controller's ``mqtt.url``, ``gravekeeper run --broker`` and ``gravekeeper
panel --broker`` all take this form, and all read it with
:func:`parse_broker_url`, so one URL means the same broker everywhere.
``mqtt://`` (or ``tcp://``) is plain TCP, port 1883 unless given; ``mqtts://``
(or ``ssl://``) is TLS, port 8883. The user name and password may be
percent-encoded (``s%40cret`` for ``s@cret``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any
from urllib.parse import unquote, urlsplit

from gravekeeper.errors import GravekeeperError

__all__ = ["BrokerUrl", "BrokerUrlError", "check_broker_url", "parse_broker_url"]

PLAIN_PORT = 1883
TLS_PORT = 8883
_TLS_SCHEMES = frozenset({"mqtts", "ssl"})
_SCHEMES = frozenset({"mqtt", "tcp"}) | _TLS_SCHEMES
_EXAMPLE = "mqtt://host:1883 or mqtts://host:8883"


class BrokerUrlError(GravekeeperError, ValueError):
    """A broker URL that cannot be used; ``reason`` says why, the message also shows the URL (never
    its password)."""

    def __init__(self, url: Any, reason: str) -> None:
        self.reason = reason
        shown = re.sub(r"//[^@/]*@", "//***@", url) if isinstance(url, str) else url
        super().__init__(f"broker URL {shown!r}: {reason}")


@dataclass(frozen=True)
class BrokerUrl:
    """A broker URL taken apart. ``port`` is the one written, else the scheme's
    (``port_given`` says which)."""

    host: str
    port: int
    tls: bool = False
    username: str | None = None
    password: str | None = None
    port_given: bool = True

    def __str__(self) -> str:
        """The URL to show a person: scheme, host and port, never the credentials."""
        host = f"[{self.host}]" if ":" in self.host else self.host  # an IPv6 address
        return f"{'mqtts' if self.tls else 'mqtt'}://{host}:{self.port}"


def parse_broker_url(text: Any) -> BrokerUrl:
    """The broker ``text`` names; :class:`BrokerUrlError` (a ``ValueError``) saying what is wrong."""
    if not isinstance(text, str) or "://" not in text:
        raise BrokerUrlError(text, f"must look like {_EXAMPLE}")
    try:
        parts = urlsplit(text)
        port = parts.port
    except ValueError:
        raise BrokerUrlError(text, "the port must be a number from 1 to 65535") from None
    if parts.scheme not in _SCHEMES:
        raise BrokerUrlError(text, f"must be a URL like {_EXAMPLE}: the scheme {parts.scheme!r} is "
                                   "neither mqtt nor mqtts")
    if port is not None and not 1 <= port <= 65535:
        raise BrokerUrlError(text, "the port must be a number from 1 to 65535")
    if not parts.hostname:
        raise BrokerUrlError(text, "it has no host")
    if parts.path not in ("", "/") or parts.query or parts.fragment:
        raise BrokerUrlError(text, "must not have a path, query or fragment: a broker URL names a broker only")
    tls = parts.scheme in _TLS_SCHEMES
    return BrokerUrl(
        host=parts.hostname,
        port=port or (TLS_PORT if tls else PLAIN_PORT),
        tls=tls,
        username=unquote(parts.username) if parts.username else None,
        password=unquote(parts.password) if parts.password is not None else None,
        port_given=port is not None,
    )


def check_broker_url(v: Any) -> str | None:
    """The complaint about a broker URL, or None when it is fine (a config check)."""
    try:
        parse_broker_url(v)
    except BrokerUrlError as exc:
        return exc.reason
    return None
