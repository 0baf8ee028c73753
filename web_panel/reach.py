"""How other devices reach the panel: the machine's addresses, the join page's address, its QR code.

A phone at the table cannot type ``127.0.0.1``: it needs the address of this
machine on the home network. :func:`ipv4_addresses` asks the kernel for the
IPv4 address of every interface that is up (Linux ``SIOCGIFADDR``, which a
Raspberry Pi has); :func:`reach_urls` turns them into the addresses to print.
The QR code is drawn by ``segno``, a maintained QR library, never by hand.
"""

from __future__ import annotations

import fcntl
import io
import ipaddress
import socket
import struct

import segno

_SIOCGIFADDR = 0x8915  # linux/sockios.h: an interface's (primary) IPv4 address
_WILDCARDS = ("0.0.0.0", "", "::")


def ipv4_addresses() -> list[str]:
    """The IPv4 address of each interface, loopback last; empty where the kernel will not say."""
    found: list[str] = []
    try:
        names = [name for _, name in socket.if_nameindex()]
    except OSError:
        return found
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        for name in names:
            request = struct.pack("256s", name.encode()[:15])
            try:
                answer = fcntl.ioctl(probe.fileno(), _SIOCGIFADDR, request)
            except OSError:  # the interface is down or has no IPv4 address
                continue
            address = socket.inet_ntoa(answer[20:24])
            if address not in found:
                found.append(address)
    return sorted(found, key=lambda a: (ipaddress.ip_address(a).is_loopback, ipaddress.ip_address(a).is_link_local))


def _url(host: str, port: int, path: str = "/") -> str:
    if ":" in host:
        host = f"[{host}]"
    return f"http://{host}:{port}{path}"


def reach_urls(listen_host: str, port: int, path: str = "/") -> list[str]:
    """Every address at which the panel answers, the ones other devices can use first.

    A wildcard listener answers on every interface; a listener on one address answers only there.
    """
    hosts = (ipv4_addresses() or ["127.0.0.1"]) if listen_host in _WILDCARDS else [listen_host]
    return [_url(h, port, path) for h in hosts]


def other_devices_can_use(url: str) -> bool:
    """False for a loopback address, which only this machine can open."""
    host = url.split("//", 1)[1].rsplit(":", 1)[0].strip("[]")
    try:
        return not ipaddress.ip_address(host).is_loopback
    except ValueError:
        return host != "localhost"


def join_path(table: str | None) -> str:
    """The page a player opens first: the table's join form, or the table list when no table is known."""
    return f"/t/{table}/join" if table else "/"


def qr_terminal(text: str) -> str:
    """``text`` as a QR code drawn with block characters, two rows a line, for a terminal."""
    out = io.StringIO()
    segno.make(text, error="m").terminal(out=out, compact=True, border=2)
    return out.getvalue()


def qr_svg(text: str, scale: int = 5) -> str:
    """``text`` as an inline SVG QR code (dark on light, so phones' cameras read it in any theme)."""
    return segno.make(text, error="m").svg_inline(scale=scale, border=4, light="#fff", dark="#000")


def next_free_port(host: str, port: int, tries: int = 50) -> int | None:
    """The first port above ``port`` that ``host`` can listen on now, or ``None`` among the next ``tries``."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    for candidate in range(port + 1, min(port + 1 + tries, 65536)):
        try:
            with socket.create_server((host, candidate), family=family):
                return candidate
        except OSError:
            continue
    return None
