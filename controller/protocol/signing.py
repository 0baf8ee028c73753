"""Signing, version 2: one scheme over the exact bytes that travel, for every signed message.

Commands (the panel's), replies, ``status`` and the publications (the table's) are all signed
the same way. A signed message is a JSON object whose text ends with its signature::

    {"id":"r-1","ts":1700000000000,"auth":"v2.<64 lowercase hex digits>"}

The digits are HMAC-SHA256, under :func:`signing_key` (derived from the control token), of a
header line and then the message's bytes up to ``,"auth":"``::

    ["gravekeeper-signed",2,"<kind>","<table>","<name>"]\\n{"id":"r-1","ts":1700000000000

``kind`` is ``command``, ``reply``, ``status`` or ``publication``, so no message of one kind
passes for another; ``table`` and ``name`` (the command's name for a command or its reply, the
topic below the table for a publication, ``status`` for a status) travel in the topic and are
bound by the signature, so a message signed for one table or topic is refused on any other.
What is checked is the bytes, not a meaning read from them: the same JSON spelt otherwise (other
spaces, key order or escapes) does not verify, and a reader needs no canonical re-encoding.

Replay protection stays with each kind: a command's ``id`` and ``ts``, a publication's ``pub``
stamp, a status's ``instance`` and ``since``, all inside the signed bytes.

Version 1 signed commands, replies and statuses over a canonical re-encoding of the JSON and had
a bare 64-digit ``auth``; a message signed so is refused with a :class:`SignatureError` of kind
``old``, which says that the panel and the table must be updated together.
"""

from __future__ import annotations

import functools
import hashlib
import hmac
import json
import re
import time
from collections.abc import Mapping
from typing import Any

from gravekeeper.errors import GravekeeperError

__all__ = [
    "KINDS",
    "VERSION",
    "SignatureError",
    "Signer",
    "check",
    "open_signed",
    "open_status",
    "sign",
    "signed_command",
    "signed_reply",
    "signed_status",
    "signing_key",
    "verify_command",
    "verify_reply",
    "verify_status",
]

VERSION = 2
KINDS = ("command", "reply", "status", "publication")
MARK = b',"auth":"'
"""What comes before the signature: always the last field, spelt exactly so."""
TAG = b"v2."
"""The version of the scheme, at the start of the signature."""
SUFFIX_LEN = len(MARK) + len(TAG) + 64 + 2  # ,"auth":"v2.<64 hex>"}
_BLOCK = hashlib.sha256().block_size
# Version 1's signature: "auth" and a bare 64-digit hex string anywhere in the object.
_V1_AUTH = re.compile(rb'"auth"[ \t\n\r]*:[ \t\n\r]*"[0-9a-f]{64}"')


class SignatureError(GravekeeperError, ValueError):
    """A message that is not signed under this scheme for this place.

    ``kind`` says why: ``unsigned`` (no version 2 signature at its end), ``old`` (signed by
    version 1 of the scheme: an older panel or table) or ``forged`` (the signature is not the
    token's for these bytes, this kind, table and name).
    """

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind


@functools.lru_cache(maxsize=64)
def signing_key(token: str) -> bytes:
    """The key every message is signed under: derived from the control token, never the token itself."""
    return hmac.digest(token.encode(), b"gravekeeper/signing-key/2", "sha256")


def header(kind: str, table: str, name: str) -> bytes:
    """The line signed before a message's bytes: the scheme, the kind, and where the message belongs."""
    if kind not in KINDS:
        raise ValueError(f"no such kind of signed message: {kind!r} (one of {', '.join(KINDS)})")
    # JSON, not "a/b/c": a table id or a name may hold any character; ASCII, so it always encodes.
    return json.dumps(["gravekeeper-signed", VERSION, kind, table, name], separators=(",", ":")).encode() + b"\n"


def _signed_part(body: bytes) -> bytes:
    if not body.startswith(b"{") or not body.endswith(b"}") or not body[1:-1].strip():
        raise ValueError(f"only a JSON object with fields can be signed, not {body[:20]!r}")
    return body[:-1]


class Signer:
    """HMAC-SHA256 under one key, its keyed hashes made once (RFC 2104).

    A message then costs two copies and two updates, about a third less CPU than ``hmac.new()``;
    the table signs every event, and :meth:`started` lets it hash a topic's header once.
    """

    def __init__(self, key: bytes) -> None:
        if len(key) > _BLOCK:
            raise ValueError("a signing key is at most one SHA-256 block long")
        self._inner = hashlib.sha256(bytes(b ^ 0x36 for b in key.ljust(_BLOCK, b"\0")))
        self._outer = hashlib.sha256(bytes(b ^ 0x5C for b in key.ljust(_BLOCK, b"\0")))

    def started(self, kind: str, table: str, name: str) -> hashlib._Hash:
        """The inner hash with the header already in it, to be copied for each message."""
        inner = self._inner.copy()
        inner.update(header(kind, table, name))
        return inner

    def tag(self, started: hashlib._Hash, signed_part: bytes) -> bytes:
        """The 64 hex digits of ``signed_part`` after the header in ``started`` (left unchanged)."""
        inner = started.copy()
        inner.update(signed_part)
        outer = self._outer.copy()
        outer.update(inner.digest())
        return outer.hexdigest().encode()

    def sign(self, started: hashlib._Hash, body: bytes) -> bytes:
        """``body`` (a JSON object's bytes, without ``auth``) with its signature as the last field."""
        signed_part = _signed_part(body)
        return signed_part + MARK + TAG + self.tag(started, signed_part) + b'"}'


def sign(key: bytes, kind: str, table: str, name: str, body: bytes) -> bytes:
    """``body`` (a JSON object's bytes, with fields, without ``auth``) signed as ``kind`` for ``table``'s ``name``."""
    signed_part = _signed_part(body)
    mac = hmac.digest(key, header(kind, table, name) + signed_part, "sha256").hex().encode()
    return signed_part + MARK + TAG + mac + b'"}'


def check(key: bytes, kind: str, table: str, name: str, raw: bytes) -> None:
    """Nothing if ``raw`` is signed under ``key`` as ``kind`` for ``table``'s ``name``; else :class:`SignatureError`.

    What is read before the constant-time comparison is where the signature stands, which is
    public; the comparison takes the same time whatever the digits.
    """
    if len(raw) <= SUFFIX_LEN or not raw.endswith(b'"}') or raw[-SUFFIX_LEN:-SUFFIX_LEN + len(MARK) + len(TAG)] \
            != MARK + TAG:
        if _V1_AUTH.search(raw) is not None:
            raise SignatureError("old", f"signed with version 1 of the signing scheme; this side speaks version "
                                        f"{VERSION}: update the panel and the table together (docs/topics.md, Signing)")
        raise SignatureError("unsigned", f"no version {VERSION} signature: it must be the last field, written "
                                         f'exactly ,"auth":"v2.<64 hex digits>"}} (docs/topics.md, Signing)')
    signed_part, mac = raw[:-SUFFIX_LEN], raw[-SUFFIX_LEN + len(MARK) + len(TAG):-2]
    want = hmac.digest(key, header(kind, table, name) + signed_part, "sha256").hex().encode()
    if not hmac.compare_digest(mac, want):
        raise SignatureError("forged", f"the signature is not the table's control token's for this {kind} "
                                       "(another token, another table or name, or altered on the way)")


def open_signed(key: bytes, kind: str, table: str, name: str, raw: bytes) -> dict[str, Any]:
    """The fields of a message :func:`check` accepts, without ``auth``; :class:`SignatureError` otherwise."""
    check(key, kind, table, name, raw)
    data = json.loads(raw.decode("utf-8"))  # signed by a holder of the token: its own UTF-8 JSON
    if not isinstance(data, dict):
        raise SignatureError("forged", "a signed message that is not a JSON object")
    data.pop("auth", None)
    return data


def _verified(key: bytes, kind: str, table: str, name: str, raw: bytes) -> bool:
    try:
        check(key, kind, table, name, raw)
    except SignatureError:
        return False
    return True


def dumps(obj: Any) -> bytes:
    """The bytes a signed message's fields are sent as (compact UTF-8 JSON)."""
    # A lone UTF-16 surrogate (from an id a sender chose) cannot be UTF-8: written as its escape, it
    # stays valid JSON, so signing an echo of it never raises.
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False).encode("utf-8", "backslashreplace")


def _body(payload: Mapping[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in payload.items() if k != "auth"}


# ----- the kinds ------------------------------------------------------------------------------
def signed_command(token: str, table: str, name: str, payload: Mapping[str, Any], *,
                   now: float | None = None) -> bytes:
    """Command ``name`` for ``table`` as it is published: ``payload`` with ``ts`` (when it was
    signed, integer milliseconds since the epoch, unless it has one) and ``auth``."""
    body = _body(payload)
    body.setdefault("ts", int((time.time() if now is None else now) * 1000))
    return sign(signing_key(token), "command", table, name, dumps(body))


def verify_command(token: str, table: str, name: str, raw: bytes) -> bool:
    return _verified(signing_key(token), "command", table, name, raw)


def signed_reply(token: str, table: str, name: str, payload: Mapping[str, Any]) -> bytes:
    """The table's reply on ``reply/<name>`` as it is published.

    A reply names its command by id only, and one token may serve several tables: the table and
    the command's name are in what is signed, so a reply counts only on the table and reply topic
    it was made for (one table's refusal of a copy of another's command answers nothing there).
    """
    return sign(signing_key(token), "reply", table, name, dumps(_body(payload)))


def verify_reply(token: str, table: str, name: str, raw: bytes) -> bool:
    return _verified(signing_key(token), "reply", table, name, raw)


def signed_status(token: str, table: str, payload: Mapping[str, Any]) -> bytes:
    """A controller's ``status`` for ``table`` as it is published."""
    return sign(signing_key(token), "status", table, "status", dumps(_body(payload)))


def open_status(token: str, table: str, raw: bytes) -> dict[str, Any]:
    """The fields of a status the table signed; :class:`SignatureError` otherwise."""
    return open_signed(signing_key(token), "status", table, "status", raw)


def verify_status(token: str, table: str, raw: bytes) -> bool:
    return _verified(signing_key(token), "status", table, "status", raw)
