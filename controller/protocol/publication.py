"""Signed publications: what the controller publishes, and how a panel knows the table said it.

Anyone on a club's broker may publish on ``<base>/<t>/state`` (or ``events``,
``sensors``, ``health``, ``private/<seat>``), retained even, and so show a
forged game in the table's name. So the controller signs every message it
publishes there, and a panel that holds the table's control token shows only
what verifies.

A signed payload is the published JSON object with two fields added::

    {"pub": {"table": "t1", "topic": "state", "run": "<instance>", "since": 1700000000.5, "n": 42},
     ...the payload's own fields...,
     "auth": "v2.<64 hex digits>"}

``auth`` is the signature of :mod:`controller.protocol.signing` (version 2, kind
``publication``, the topic as its name): over the exact bytes before ``,"auth":"``, so
it costs one HMAC per message and any JSON parser reads the payload as before. The
``pub`` stamp binds the message:

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
import json
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from controller.protocol.signing import (
    MARK,
    TAG,
    SignatureError,
    Signer,
    check,
    open_signed,
    signing_key,
)

RESERVED_KEYS = ("pub", "auth")
_MAX_HEADS = 256


class PublicationError(SignatureError):
    """A message on a table's topic that the table did not sign, or not for this place or time.

    ``kind`` is ``unsigned``, ``old`` (signed by version 1 of the scheme), ``forged``, ``misplaced``
    or ``stale``, the counter it is refused under.
    """


@dataclass(frozen=True, order=True)
class Stamp:
    """Where a signed publication belongs in its table's history (compared field by field)."""

    since: float
    run: str
    n: int


class Publisher:
    """Signs one run's publications for one table; thread-safe (``n`` is shared by all topics)."""

    def __init__(self, token: str, table: str, run: str, since: float) -> None:
        self._signer = Signer(signing_key(token))
        self.table = table
        self.run = run
        self.since = since
        self._n = 0
        self._lock = threading.Lock()
        # topic -> (since, the stamp's JSON up to its counter, the hash with the topic's header in it):
        # the stamp is the same but for ``n`` on every message of a topic, so it is encoded and its
        # header hashed once per topic, not per message.
        self._heads: dict[str, tuple[float, bytes, hashlib._Hash]] = {}
        self._rehearsal = self._signer.started("publication", "", "events")

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
                cached = (since, _stamp_head(self.table, topic, self.run, since),
                          self._signer.started("publication", self.table, topic))
                self._heads[topic] = cached
        # The bytes json.dumps(stamp) gave, "n" last: {"table":..,"topic":..,"run":..,"since":..,"n":42}
        head = cached[1] + str(n).encode() + b"}"
        rest = body[1:-1]
        signed_part = head + (b"," + rest if rest.strip() else b"")
        return signed_part + MARK + TAG + self._signer.tag(cached[2], signed_part) + b'"}'

    def rehearse(self) -> None:
        """Hash a sample as :meth:`sign` would, changing nothing (no counter is used): see the sensor
        hub's rehearsal before a window closes (``controller/service/service.py``, ``_rehearse``)."""
        self._signer.tag(self._rehearsal, _REHEARSAL)


_REHEARSAL = b'{"pub":{"table":"","topic":"events","run":"","since":0,"n":0},"seq":0,"type":"","data":{}'


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
    ``payload`` is not signed under ``key`` (:func:`~controller.protocol.signing.signing_key`) for
    ``table``'s ``topic``."""
    try:
        data = open_signed(key, "publication", table, topic, payload)
    except SignatureError as exc:
        elsewhere = _signed_elsewhere(key, payload) if exc.kind == "forged" else None
        if elsewhere is not None:
            raise PublicationError("misplaced", f"a message signed for {elsewhere[0]!r}/{elsewhere[1]!r} was published "
                                                f"on {table!r}/{topic!r}") from None
        raise PublicationError(exc.kind, f"a message on {topic!r}: {exc}") from None
    pub = data.pop("pub", None)
    if not isinstance(pub, dict) or pub.get("table") != table or pub.get("topic") != topic:
        where = f"{pub.get('table')!r}/{pub.get('topic')!r}" if isinstance(pub, dict) else "nowhere"
        raise PublicationError("misplaced", f"a message signed for {where} was published on {table!r}/{topic!r}")
    since, run, n = pub.get("since"), pub.get("run"), pub.get("n")
    if isinstance(since, bool) or not isinstance(since, (int, float)) or not isinstance(run, str) \
            or isinstance(n, bool) or not isinstance(n, int):
        raise PublicationError("misplaced", f"a message on {topic!r} with a malformed stamp")
    return data, Stamp(float(since), run, n)


def _signed_elsewhere(key: bytes, payload: bytes) -> tuple[str, str] | None:
    """The table and topic a message was genuinely signed for, when its stamp names another place.

    Read only for a message refused as forged, so that one moved from another table or topic is
    counted as that (``misplaced``); only its stamp is decoded, not the whole message.
    """
    if not payload.startswith(b'{"pub":{'):
        return None
    try:
        pub, _ = json.JSONDecoder().raw_decode(payload[:4096].decode("utf-8", "replace"), len('{"pub":'))
    except ValueError:
        return None
    if not isinstance(pub, dict) or not isinstance(pub.get("table"), str) or not isinstance(pub.get("topic"), str):
        return None
    try:
        check(key, "publication", pub["table"], pub["topic"], payload)
    except SignatureError:
        return None
    return pub["table"], pub["topic"]


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
