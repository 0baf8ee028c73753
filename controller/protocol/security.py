"""Secrets on an open broker: signed commands and statuses, sealed and padded private views.

Anyone may subscribe to ``#`` on a club's broker, so nothing secret may travel
in clear text and the control token itself never travels at all:

* Commands carry ``ts`` (when signed) and ``auth``, a signature over their
  exact bytes, the table id and the command's name
  (:mod:`controller.protocol.signing`, which signs every message of the contract), so a
  command captured at one table or on one command topic is refused at any other.
  The controller refuses a command signed too far from its clock
  (:data:`COMMAND_WINDOW_S`) and any id it has seen with a valid signature before
  (kept in the journal for good), so a captured command cannot be replayed.
  Replies are signed too (for the table and the command's reply topic), so nobody
  else on the broker can answer in the table's name, nor pass one table's answer off
  as another's, and so is the controller's ``status``, so nobody else can claim to
  be a newer run of the table and stop it.
* Everything sealed is padded first (:func:`padded`: private views to 16 KiB,
  actions to 1 KiB, replies to 4 KiB), so its length does not tell the secret.
* A player's private view is sealed with AES-GCM under a key derived from the
  control token, the table id and the seat, and published on
  ``<base>/<table>/private/<seat>``. Only a holder of the token (the panel) can
  open it; the panel shows it only to the player who joined with that seat's
  join code.
* A player's action travels sealed too. A sealed ``act`` carries ``seat`` and
  ``sealed``: the action, AES-GCM under a per-seat *command* key (HKDF from the
  token with its own salt, so it is not the view key), with the table, the
  seat and the command id as associated data, so a sealed body cannot be moved
  to another seat, table or command. The command is signed like any other. The
  reply to it says in clear only ``ok`` and the id (signed); the verdict again, and the
  error or data, are sealed under the same key with a reply label in the
  associated data, so a command body cannot be passed off as a reply and a
  flipped clear ``ok`` fools no one. A clear ``act`` is still understood, but
  it shows everyone the action before the table has judged it.
* Join codes are derived from the token, the table, the game id and the seat,
  so a new game gets new codes and the controller and panel agree on them
  without exchanging them.

Broker ACLs, username/password and TLS are supported on top of this (see
``docs/topics.md``), but the promise holds on an open broker too.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import os
import re
from typing import Any

from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.hashes import SHA256
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

from gravekeeper.errors import GravekeeperError

_JOIN_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"  # no 0/O or 1/I to misread


class SealError(GravekeeperError, ValueError):
    """A sealed payload could not be opened: wrong key, wrong seat, or tampered."""


def same_secret(typed: str | bytes, secret: str | bytes) -> bool:
    """Whether ``typed`` is ``secret``, in a time that tells nothing of ``secret``, its length included.

    ``hmac.compare_digest`` is constant-time only for inputs of one length: given a guess of
    another length it returns at once, so the time of a wrong guess tells the secret's length.
    Comparing their SHA-256 digests (always 32 bytes) leaves nothing to tell.
    """
    a = typed.encode() if isinstance(typed, str) else typed
    b = secret.encode() if isinstance(secret, str) else secret
    return hmac.compare_digest(hashlib.sha256(a).digest(), hashlib.sha256(b).digest())


def loads_utf8(raw: bytes) -> Any:
    """JSON from UTF-8 bytes only; ValueError says why not.

    ``json.loads`` on bytes guesses UTF-16 and UTF-32 and skips a byte order
    mark, and then names the codec it guessed ("'utf-16-le' codec can't
    decode"). The contract is UTF-8 JSON, so anything else is refused by name.
    """
    if b"\x00" in raw:  # never in JSON text; ASCII in UTF-16 or UTF-32 is full of them (and valid UTF-8)
        raise ValueError(f"the payload is not UTF-8 text (a NUL byte at offset {raw.index(0)}: UTF-16 or UTF-32?)")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ValueError(f"the payload is not UTF-8 text (byte 0x{raw[exc.start]:02x} at offset {exc.start})") \
            from None
    if text.startswith("\ufeff"):
        raise ValueError("the payload starts with a byte order mark: send UTF-8 JSON without one")
    return json.loads(text)


MAX_DEPTH = 64
"""How deeply a message from the broker may nest. The contract's payloads nest a dozen levels at
most; Python's parser stops near a thousand, and encoding a parsed message again (to check its
signature, or for a page) goes deeper still, so a forgery nested just under the parser's limit
broke whatever touched it next. Both ends refuse anything deeper than this before decoding it."""

_JSON_STRING = re.compile(rb'"(?:[^"\\]|\\.)*"')
_INNERMOST = re.compile(rb"\[[^\[\]{}]*\]|\{[^\[\]{}]*\}")


def too_deep(payload: bytes, limit: int = MAX_DEPTH) -> bool:
    """Whether the JSON text ``payload`` nests more than ``limit`` levels.

    No recursion, and no walk in Python over what may be a megabyte of small lists: with its
    strings emptied, each pass of a regular expression (in C) folds every innermost list or
    object into a number, so it takes as many passes as the text has levels, ``limit`` at most.
    """
    if payload.count(b"[") + payload.count(b"{") <= limit:
        return False  # it cannot: the common case, counted in C
    text = _JSON_STRING.sub(b'""', payload)
    for _ in range(limit):
        text, folded = _INNERMOST.subn(b"0", text)
        if not folded:
            return False
    return b"[" in text or b"{" in text


# ----- commands: how long a signature is good for ---------------------------------------------
COMMAND_WINDOW_S = 300
"""How far a command's signed ``ts`` may be from the controller's clock, either way, in seconds."""


# ----- sealing: padding, keys, AES-GCM -------------------------------------------------------
PAD_VIEW = 16 * 1024
"""A private view is padded to this many bytes. The largest view of a game with secrets seen in
300 random games was 10,658 bytes (Terror, four 40-emoji names), so every such view weighs the
same; a Dogs view may take two units, but Dogs has no secret (docs/topics.md, Padding)."""
PAD_ACT = 1024
"""A sealed action is padded to this: an action is about a hundred bytes of JSON."""
PAD_REPLY = 4096
"""A sealed reply (the verdict, an error or an accepted move's public events) is padded to this."""


def padded(data: bytes, unit: int, at_least: int = 0) -> bytes:
    """``data`` (JSON text) with spaces after it up to the next multiple of ``unit`` (at least one)
    that is also at least ``at_least``.

    JSON allows white space after a value, so the padded text still parses as it is and
    the reader needs no length field. The length tells only how many ``unit`` it spans;
    the units are chosen so that every real payload of a kind spans one, and ``at_least``
    (from public facts only) makes it span as many as the public facts say when it is bigger.
    """
    size = max(1, -(-max(len(data), at_least) // unit)) * unit
    return data + b" " * (size - len(data))


def _key(token: str, table: str, seat: int) -> bytes:
    return HKDF(
        algorithm=SHA256(), length=32, salt=b"gravekeeper-private-view", info=f"{table}/{seat}".encode()
    ).derive(token.encode())


def _encrypt(key: bytes, aad: bytes, obj: Any, pad_unit: int, at_least: int = 0) -> str:
    """``obj`` (plain JSON), padded (:func:`padded`), under AES-GCM: base64 of a random 12-byte nonce
    and the ciphertext."""
    nonce = os.urandom(12)
    data = padded(json.dumps(obj, separators=(",", ":")).encode(), pad_unit, at_least)
    return base64.b64encode(nonce + AESGCM(key).encrypt(nonce, data, aad)).decode()


def _decrypt(key: bytes, aad: bytes, sealed: str) -> Any:
    """What :func:`_encrypt` sealed; any failure (wrong key or aad, altered, not base64) raises."""
    raw = base64.b64decode(sealed, validate=True)
    return json.loads(AESGCM(key).decrypt(raw[:12], raw[12:], aad))


def seal(token: str, table: str, seat: int, obj: Any, *, public_size: int = 0) -> str:
    """Encrypt ``obj`` (plain JSON) for one seat; returns a base64 string.

    ``public_size`` is the length of the public state published with it. On a big board a view
    passes :data:`PAD_VIEW`, and a seat's own parts (its hand) could tip it into one more unit than
    another seat's. Padded to at least ``public_size``, every seat's view of one state spans the
    units the public state says, whatever it holds: a view is the public view plus the seat's own
    parts, the state the public view plus every seat's public moves and more, and in play (boards of
    9 to 159 rows, 2 to 4 players) a view was always at least 900 bytes shorter than its state.
    """
    return _encrypt(_key(token, table, seat), f"{table}/{seat}".encode(), obj, PAD_VIEW, public_size)


def unseal(token: str, table: str, seat: int, sealed: str) -> Any:
    try:
        return _decrypt(_key(token, table, seat), f"{table}/{seat}".encode(), sealed)
    except Exception as exc:
        raise SealError(f"cannot open the private view of seat {seat} on table {table!r}") from exc


MAX_SEALED_COMMAND = 4096
"""Base64 characters a sealed action may take: an action is a few hundred bytes of JSON, padded to 1 KiB."""
MAX_SEALED_REPLY = 1 << 20
"""Base64 characters a sealed reply may take (the panel reads no message above 1 MiB anyway)."""


def _command_key(token: str, table: str, seat: int) -> bytes:
    # Its own salt: a view key and a command key of one seat must not be interchangeable.
    return HKDF(
        algorithm=SHA256(), length=32, salt=b"gravekeeper-seat-command", info=f"command/{table}/{seat}".encode()
    ).derive(token.encode())


def _command_aad(label: str, table: str, seat: int, command_id: str | int) -> bytes:
    # JSON, not "a/b/c": a command id may hold any character, slashes included.
    return json.dumps([label, table, seat, str(command_id)], separators=(",", ":"), ensure_ascii=True).encode()


def _seal_for(label: str, token: str, table: str, seat: int, command_id: str | int, obj: Any) -> str:
    unit = PAD_ACT if label == "act" else PAD_REPLY
    return _encrypt(_command_key(token, table, seat), _command_aad(label, table, seat, command_id), obj, unit)


def _unseal_for(label: str, token: str, table: str, seat: int, command_id: str | int, sealed: Any) -> Any:
    what = "sealed action" if label == "act" else "sealed reply"
    limit = MAX_SEALED_COMMAND if label == "act" else MAX_SEALED_REPLY
    if not isinstance(sealed, str) or len(sealed) > limit:
        raise SealError(f"a {what} must be base64 text of at most {limit} characters")
    if isinstance(seat, bool) or not isinstance(seat, int) or seat < 0:
        raise SealError(f"cannot open a {what} for seat {seat!r}")
    try:
        return _decrypt(_command_key(token, table, seat), _command_aad(label, table, seat, command_id), sealed)
    except Exception as exc:
        raise SealError(f"the {what} does not open for seat {seat} of command {str(command_id)!r} "
                        f"(another token, seat or command id, or altered on the way)") from exc


def seal_command(token: str, table: str, seat: int, command_id: str | int, action: Any) -> str:
    """The ``sealed`` field of an ``act`` that only command ``command_id`` for ``seat`` can carry."""
    return _seal_for("act", token, table, seat, command_id, action)


def unseal_command(token: str, table: str, seat: int, command_id: str | int, sealed: Any) -> Any:
    """The action inside a sealed ``act``; :class:`SealError` if it is not exactly that command's."""
    return _unseal_for("act", token, table, seat, command_id, sealed)


def seal_reply(token: str, table: str, seat: int, command_id: str | int, body: Any) -> str:
    """The ``sealed`` field of the reply to sealed command ``command_id``: its error or data."""
    return _seal_for("reply", token, table, seat, command_id, body)


def unseal_reply(token: str, table: str, seat: int, command_id: str | int, sealed: Any) -> Any:
    return _unseal_for("reply", token, table, seat, command_id, sealed)


def join_code(token: str, table: str, game_id: str, seat: int) -> str:
    """A six-character code a player types to join ``seat``; easy to read aloud."""
    digest = hmac.new(token.encode(), f"join/{table}/{game_id}/{seat}".encode(), hashlib.sha256).digest()
    n = int.from_bytes(digest[:8], "big")
    chars = []
    for _ in range(6):
        n, r = divmod(n, len(_JOIN_ALPHABET))
        chars.append(_JOIN_ALPHABET[r])
    return "".join(chars)


def game_seed(token: str, seed: int) -> int:
    """The engine seed behind a seed that people chose and that may travel in clear.

    A seed sent in a ``new_game`` command crosses the broker unencrypted, and
    the engines draw every hidden thing (the deck order, a trap's live peg,
    face-down spooks) from it. Mixing it with the control token keeps "same
    seed, same game" on one table, while a spectator who saw the seed cannot
    recompute a single hidden draw.
    """
    digest = hmac.new(token.encode(), f"seed/{seed}".encode(), hashlib.sha256).digest()
    return int.from_bytes(digest[:8], "big") >> 1
