"""Signed publications (controller.protocol.publication): what verifies, and what a reader refuses."""

from __future__ import annotations

import json

import pytest

from controller.protocol.publication import (
    Freshness,
    PublicationError,
    Publisher,
    Stamp,
    check_body,
    open_publication,
)
from controller.protocol.signing import signed_command, signed_status, signing_key

KEY = signing_key("tok")


def publisher(table: str = "t1", run: str = "run-a", since: float = 100.0) -> Publisher:
    return Publisher("tok", table, run, since)


def test_a_signed_payload_opens_to_its_own_fields_and_stays_plain_json() -> None:
    body = json.dumps({"seq": 3, "players": ["Ann", "Bø"]}, ensure_ascii=False).encode()
    payload = publisher().sign("state", body)
    assert json.loads(payload)["seq"] == 3  # any JSON reader still reads it
    data, stamp = open_publication(KEY, "t1", "state", payload)
    assert data == {"seq": 3, "players": ["Ann", "Bø"]}
    assert stamp == Stamp(100.0, "run-a", 1)


def test_an_empty_object_can_be_signed() -> None:
    data, _ = open_publication(KEY, "t1", "health", publisher().sign("health", b"{}"))
    assert data == {}


@pytest.mark.parametrize("payload", [
    b'{"seq": 99, "players": ["FORGED"]}',                      # unsigned
    b'{"seq": 99, "auth": "v2.' + b"0" * 64 + b'"}',             # an auth field not spelt as signed
    b'{"seq": 99,"auth":"v2.' + b"0" * 63 + b'"}',               # a signature one digit short
    b"",
])
def test_unsigned_payloads_are_refused(payload: bytes) -> None:
    with pytest.raises(PublicationError) as err:
        open_publication(KEY, "t1", "state", payload)
    assert err.value.kind == "unsigned"


def test_a_payload_signed_under_another_token_or_altered_is_forged() -> None:
    other = Publisher("not-the-token", "t1", "run-a", 100.0).sign("state", b'{"seq": 1}')
    genuine = publisher().sign("state", b'{"seq": 1, "over": false}')
    altered = genuine.replace(b'"over": false', b'"over": true ')
    assert altered != genuine
    assert len(altered) == len(genuine)
    for payload in (other, altered):
        with pytest.raises(PublicationError) as err:
            open_publication(KEY, "t1", "state", payload)
        assert err.value.kind == "forged"


def test_a_command_or_status_signature_is_not_a_publication_signature() -> None:
    """The kind is in what is signed: a body signed as a command or a status does not verify as published."""
    body = {"seq": 1}
    for forged in (signed_command("tok", "t1", "state", body), signed_status("tok", "t1", body)):
        with pytest.raises(PublicationError) as err:
            open_publication(KEY, "t1", "state", forged)
        assert err.value.kind == "forged"


def test_a_publication_signed_by_version_1_is_refused_as_old() -> None:
    import hashlib
    import hmac

    signed_part = b'{"pub":{"table":"t1","topic":"state","run":"r","since":1.0,"n":1},"seq":1'
    mac = hmac.new(hmac.new(b"tok", b"gravekeeper/publication-key", hashlib.sha256).digest(), signed_part,
                   hashlib.sha256).hexdigest().encode()
    with pytest.raises(PublicationError, match="version 1") as err:
        open_publication(KEY, "t1", "state", signed_part + b',"auth":"' + mac + b'"}')
    assert err.value.kind == "old"


def test_a_payload_moved_to_another_table_or_topic_is_misplaced() -> None:
    health = publisher().sign("health", b'{"time": 1}')
    for table, topic in (("t1", "state"), ("t2", "health")):
        with pytest.raises(PublicationError) as err:
            open_publication(KEY, table, topic, health)
        assert err.value.kind == "misplaced"


def test_a_payload_must_not_bring_its_own_stamp() -> None:
    with pytest.raises(ValueError, match="pub"):
        check_body({"pub": {}, "seq": 1})
    with pytest.raises(ValueError, match="JSON object"):
        publisher().sign("state", b"[1]")


def test_freshness_takes_newer_ignores_the_same_and_refuses_older() -> None:
    p = publisher()
    old = open_publication(KEY, "t1", "state", p.sign("state", b'{"seq": 1}'))[1]
    new = open_publication(KEY, "t1", "state", p.sign("state", b'{"seq": 2}'))[1]
    fresh = Freshness()
    assert fresh.take("state", old) is True
    assert fresh.take("state", new) is True
    assert fresh.take("state", new) is False  # the same message again
    with pytest.raises(PublicationError) as err:
        fresh.take("state", old)               # an old one published again
    assert err.value.kind == "stale"
    assert fresh.take("health", old) is True   # each topic on its own


def test_a_later_run_is_newer_even_with_a_clock_behind_the_last_run() -> None:
    first = publisher(run="run-a", since=1000.0)
    last = open_publication(KEY, "t1", "state", first.sign("state", b"{}"))[1]
    second = publisher(run="run-b", since=10.0)  # a Pi that booted without its clock
    second.follow(last)
    stamp = open_publication(KEY, "t1", "state", second.sign("state", b"{}"))[1]
    fresh = Freshness()
    fresh.take("state", last)
    assert fresh.take("state", stamp) is True
    with pytest.raises(PublicationError):
        fresh.take("state", last)  # the old run's state, replayed


def _reference_sign(token: str, stamp: dict[str, object], body: bytes) -> bytes:
    """The signature as the format above defines it, built the plain way (json.dumps of the whole stamp)."""
    import hashlib
    import hmac

    head = b'{"pub":' + json.dumps(stamp, separators=(",", ":")).encode()
    rest = body[1:-1]
    signed_part = head + (b"," + rest if rest.strip() else b"")
    header = json.dumps(["gravekeeper-signed", 2, "publication", stamp["table"], stamp["topic"]],
                        separators=(",", ":")).encode() + b"\n"
    mac = hmac.new(signing_key(token), header + signed_part, hashlib.sha256).hexdigest().encode()
    return signed_part + b',"auth":"v2.' + mac + b'"}'


def test_signing_gives_the_bytes_of_the_whole_stamp_encoded_for_every_message() -> None:
    """The stamp's fixed part is encoded once per topic: every message still has exactly the stamp's JSON."""
    p = Publisher("tok", "Tåble \"1\"", "run-ø", 1700000000.25)
    first = open_publication(KEY, "t0", "state", publisher(table="t0").sign("state", b"{}"))[1]
    p.follow(Stamp(1700000001.5, first.run, first.n))  # a later since, before the first message
    bodies = [("state", b'{"seq":1}'), ("events", b'{"seq":2,"data":{"k":"\xc3\xa9"}}'), ("state", b"{}"),
              ("private/0", b'{ "x": [1, 2] }'), ("events", b'{"seq":3}')]
    assert p.since > 1700000001.5
    for n, (topic, body) in enumerate(bodies, start=1):
        stamp = {"table": "Tåble \"1\"", "topic": topic, "run": "run-ø", "since": p.since, "n": n}
        payload = p.sign(topic, body)
        assert payload == _reference_sign("tok", stamp, body)
        data, got = open_publication(KEY, "Tåble \"1\"", topic, payload)
        assert got == Stamp(p.since, "run-ø", n) and data == json.loads(body)


def test_a_rehearsal_signs_nothing_and_uses_no_counter() -> None:
    """The sensor hub's rehearsal warms the hashing only: the next message is still number 1."""
    rehearsed, plain = publisher(), publisher()
    rehearsed.rehearse()
    rehearsed.rehearse()
    assert rehearsed.sign("events", b'{"seq":1}') == plain.sign("events", b'{"seq":1}')
