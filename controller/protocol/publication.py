"""Signed publications: what the controller publishes, and how a panel knows the table said it.

Anyone on a club's broker may publish on ``<base>/<t>/state`` (or ``events``,
``sensors``, ``health``, ``private/<seat>``), retained even, and so show a
forged game in the table's name. So the controller signs every message it
publishes there, and a panel that holds the table's control token shows only
what verifies.

A signed payload is the published JSON object with two fields added::

    {"pub": {"table": "t1", "topic": "state", "run": "<instance>", "since": 1700000000.5, "n": 42},
     ...the payload's own fields...,
     "auth": "<64 hex digits>"}

``auth`` is HMAC-SHA256, under a key derived from the control token
(:func:`publication_key`, so a publication's signature is never a command's),
of the exact bytes before ``,"auth":"``. Signing the bytes, not a canonical
re-encoding, costs one HMAC per message and lets any JSON parser read the
payload as before. The ``pub`` stamp binds the message:

* ``table`` and ``topic`` (the topic below ``<base>/<t>/``): a message signed for
  one table or topic is refused on another (a health report replayed as state).
* ``run`` (the run's random ``instance``, as in ``status``), ``since`` (when the
  run began publishing) and ``n`` (a counter of this run's publications):
  together they order a table's publications. A reader keeps, per topic, the
  newest stamp it took and refuses an older one (:class:`Freshness`), so an old
  but genuinely signed state replayed later, even retained, does not take the
  place of a newer one. A new run publishes with a later ``since`` than the
  run before it (the link makes sure of it when the broker still holds that
  run's state, whatever the wall clock says).

A reader that does not hold the token cannot check any of this; the panel
then says it cannot vouch for the table.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from gravekeeper.errors import GravekeeperError

_AUTH_MARK = b',"auth":"'
_SUFFIX_LEN = len(_AUTH_MARK) + 64 + 2  # ,"auth":"<64 hex>"}
RESERVED_KEYS = ("pub", "auth")
_MAX_HEADS = 256
_BLOCK = hashlib.sha256().block_size


class PublicationError(GravekeeperError, ValueError):
    """A message on a table's topic that the table did not sign, or not for this place or time.

    ``kind`` is ``unsigned``, ``forged``, ``misplaced`` or ``stale``, the counter it is refused under.
    """

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind


def publication_key(token: str) -> bytes:
    """The key publications are signed under: derived from the control token, not the token itself."""
    return hmac.new(token.encode(), b"gravekeeper/publication-key", hashlib.sha256).digest()


@dataclass(frozen=True, order=True)
class Stamp:
    """Where a signed publication belongs in its table's history (compared field by field)."""

    since: float
    run: str
    n: int


class Publisher:
    """Signs one run's publications for one table; thread-safe (``n`` is shared by all topics)."""

    def __init__(self, token: str, table: str, run: str, since: float) -> None:
        key = publication_key(token)  # 32 bytes: shorter than SHA-256's block, so padded, never hashed
        # HMAC's keyed inner and outer hashes (RFC 2104), made once: each message then costs two copies
        # and two updates, about a third less CPU than hmac.new() on the first message after a quiet spell.
        self._inner = hashlib.sha256(bytes(b ^ 0x36 for b in key.ljust(_BLOCK, b"\0")))
        self._outer = hashlib.sha256(bytes(b ^ 0x5C for b in key.ljust(_BLOCK, b"\0")))
        self.table = table
        self.run = run
        self.since = since
        self._n = 0
        self._lock = threading.Lock()
        # topic -> (since, the stamp's JSON up to its counter): the stamp is the same but for
        # ``n`` on every message of a topic, so it is encoded once per topic, not per message.
        self._heads: dict[str, tuple[float, bytes]] = {}

    def follow(self, previous: Stamp) -> None:
        """Publish after ``previous`` (a former run's stamp still on the broker), whatever our clock says."""
        with self._lock:
            if previous.since >= self.since and self._n == 0:
                self.since = previous.since + 0.001

    def sign(self, topic: str, body: bytes) -> bytes:
        """``body`` (a JSON object's bytes, without ``pub`` or ``auth``) stamped and signed for ``topic``."""
        if not body.startswith(b"{") or not body.endswith(b"}"):
            raise ValueError(f"only a JSON object can be published signed, not {body[:20]!r}")
        with self._lock:
            self._n += 1
            n, since = self._n, self.since
            cached = self._heads.get(topic)
            if cached is None or cached[0] != since:
                if len(self._heads) >= _MAX_HEADS:
                    self._heads.clear()  # topics are few (state, events, private/<seat>...): a bound, not a policy
                cached = (since, _stamp_head(self.table, topic, self.run, since))
                self._heads[topic] = cached
        # The bytes json.dumps(stamp) gave, "n" last: {"table":..,"topic":..,"run":..,"since":..,"n":42}
        head = cached[1] + str(n).encode() + b"}"
        rest = body[1:-1]
        signed_part = head + (b"," + rest if rest.strip() else b"")
        inner = self._inner.copy()
        inner.update(signed_part)
        outer = self._outer.copy()
        outer.update(inner.digest())
        mac = outer.hexdigest().encode()  # = hmac.new(key, signed_part, sha256).hexdigest()
        return signed_part + _AUTH_MARK + mac + b'"}'


    def rehearse(self) -> None:
        """Hash a sample as :meth:`sign` would, changing nothing (no counter is used): see the sensor
        hub's rehearsal before a window closes (``controller/service/service.py``, ``_rehearse``)."""
        inner = self._inner.copy()
        inner.update(_REHEARSAL)
        outer = self._outer.copy()
        outer.update(inner.digest())
        outer.hexdigest()


_REHEARSAL = b'{"pub":{"table":"","topic":"events","run":"","since":0,"n":0},"seq":0,"type":"","data":{}}'


def _stamp_head(table: str, topic: str, run: str, since: float) -> bytes:
    """``{"pub":`` and the stamp's JSON up to the value of ``n`` (the key order the readers see)."""
    fixed = json.dumps({"table": table, "topic": topic, "run": run, "since": since}, separators=(",", ":"))
    return b'{"pub":' + fixed[:-1].encode() + b',"n":'


def check_body(payload: Mapping[str, Any]) -> None:
    """A payload to be signed must not hold the fields the signature adds."""
    for key in RESERVED_KEYS:
        if key in payload:
            raise ValueError(f"a published payload must not have its own {key!r} field")


def open_publication(key: bytes, table: str, topic: str, payload: bytes) -> tuple[dict[str, Any], Stamp]:
    """The payload's fields (without ``pub`` and ``auth``) and its stamp; :class:`PublicationError` if
    ``payload`` is not signed under ``key`` for ``table``'s ``topic``."""
    if len(payload) <= _SUFFIX_LEN or payload[-_SUFFIX_LEN:-_SUFFIX_LEN + len(_AUTH_MARK)] != _AUTH_MARK \
            or not payload.endswith(b'"}'):
        raise PublicationError("unsigned", f"a message on {topic!r} that the table did not sign")
    signed_part, mac = payload[:-_SUFFIX_LEN], payload[-_SUFFIX_LEN + len(_AUTH_MARK):-2]
    want = hmac.new(key, signed_part, hashlib.sha256).hexdigest().encode()
    if not hmac.compare_digest(mac, want):
        raise PublicationError("forged", f"a message on {topic!r} whose signature is not the table's")
    data = json.loads(payload.decode("utf-8"))  # signed by the table: its own UTF-8 JSON
    pub = data.pop("pub", None)
    data.pop("auth", None)
    if not isinstance(pub, dict) or pub.get("table") != table or pub.get("topic") != topic:
        where = f"{pub.get('table')!r}/{pub.get('topic')!r}" if isinstance(pub, dict) else "nowhere"
        raise PublicationError("misplaced", f"a message signed for {where} was published on {table!r}/{topic!r}")
    since, run, n = pub.get("since"), pub.get("run"), pub.get("n")
    if isinstance(since, bool) or not isinstance(since, (int, float)) or not isinstance(run, str) \
            or isinstance(n, bool) or not isinstance(n, int):
        raise PublicationError("misplaced", f"a message on {topic!r} with a malformed stamp")
    return data, Stamp(float(since), run, n)


class Freshness:
    """The newest stamp taken per topic of one table: an older one is a replay (or a stale resend)."""

    def __init__(self) -> None:
        self._newest: dict[str, Stamp] = {}

    def take(self, topic: str, stamp: Stamp) -> bool:
        """True, and remembered, if ``stamp`` is newer than every one taken on ``topic``; False if the same.

        :class:`PublicationError` (``stale``) if it is older.
        """
        newest = self._newest.get(topic)
        if newest is not None:
            if stamp == newest:
                return False  # the same message again (a QoS 1 resend): nothing new
            if stamp < newest:
                raise PublicationError("stale", f"an older message of the table on {topic!r} was published "
                                                "again (a replay, or a resend after a reconnect)")
        self._newest[topic] = stamp
        return True
