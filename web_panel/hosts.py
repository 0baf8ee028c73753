"""Which ``Host`` headers the panel answers: its own names, never a stranger's (DNS rebinding).

A web page from anywhere can make its own name resolve to the panel's address and then read the
panel as that page's own site. The browser then sends that name as ``Host``; refusing names the
panel does not go by ends it. An address typed as numbers (``192.168.1.20:8080``) is always
answered: a page cannot be of that origin without being served from it, and the machine's
addresses change with the network (DHCP), so a list of them would go stale.
"""

from __future__ import annotations

import contextlib
import ipaddress
import re
import socket
from collections.abc import Iterable

# Names no one outside the home network can make point anywhere: ``*.localhost`` is this machine,
# ``*.local`` is answered by the devices of the network themselves (mDNS), ``*.home.arpa`` is the
# home network's own (RFC 8375). A rebinding page needs a name its author's DNS answers.
LOCAL_SUFFIXES = (".localhost", ".local", ".home.arpa")
# A Host header as browsers send it: one name or address, and a port or none. Anything else (two headers
# joined with a comma, a name followed by another, a path) is not read as its first part, but refused.
_WELL_FORMED = re.compile(r"(\[[0-9a-f:.]+(%[0-9a-z._-]+)?\]|[0-9a-z._-]+)(:[0-9]{1,5})?")


def host_name(header: str) -> str:
    """The name of a ``Host`` header, without its port or IPv6 brackets, lower-cased."""
    host = header.strip().lower()
    if host.startswith("["):
        return host[1:].split("]", 1)[0]
    if host.count(":") == 1:
        host = host.split(":", 1)[0]
    return host.rstrip(".")


def machine_names() -> set[str]:
    """This machine's own names: ``localhost``, its host name, with ``.local`` (mDNS) and its FQDN."""
    names = {"localhost"}
    try:
        short = socket.gethostname().lower()
    except OSError:
        return names
    if short:
        names.update({short, f"{short}.local"})
        with contextlib.suppress(OSError):
            names.add(socket.getfqdn(short).lower())
    return names


class HostCheck:
    """Answers whether a ``Host`` header names this panel."""

    def __init__(self, listen_host: str, public_names: Iterable[str] = ()) -> None:
        names = machine_names() | {n.strip().lower().rstrip(".") for n in public_names if n.strip()}
        if listen_host not in ("0.0.0.0", "::", ""):
            names.add(listen_host.lower())
        self.names = frozenset(names)

    def allows(self, header: str | None) -> bool:
        if header is None:
            return True  # an HTTP/1.0 script that names no host; a browser always sends one
        if not _WELL_FORMED.fullmatch(header.strip().lower()):
            return False
        name = host_name(header)
        if name in self.names or name.endswith(LOCAL_SUFFIXES):
            return True
        try:
            ipaddress.ip_address(name)
        except ValueError:
            return False
        return True

    def refusal(self, header: str) -> str:
        shown = host_name(header)[:80]
        return (f"this panel does not go by the name {shown!r}; open it by this machine's address or name "
                "(as gravekeeper printed it at start), or add the name to panel.public_names")
