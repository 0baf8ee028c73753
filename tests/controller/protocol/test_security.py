"""Signed commands and sealed private views."""

from __future__ import annotations

import hashlib
import hmac
import json
from typing import Any

import pytest

from controller.protocol import signing
from controller.protocol.security import (
    SealError,
    join_code,
    seal,
    unseal,
)
from controller.protocol.signing import (
    SignatureError,
    open_status,
    signed_command,
    signed_reply,
    signed_status,
    verify_command,
    verify_reply,
    verify_status,
)


def _v1(token: str, kind: str, table: str, name: str | None, payload: dict[str, Any]) -> bytes:
    """A message signed as version 1 did: HMAC under the token itself of a canonical re-encoding."""
    parts: list[Any] = [f"gravekeeper-{kind}", table] + ([name] if name is not None else []) + [payload]
    mac = hmac.new(token.encode(), json.dumps(parts, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
                   .encode(), hashlib.sha256).hexdigest()
    return json.dumps({**payload, "auth": mac}).encode()


def test_signed_command_verifies_and_any_change_breaks_it() -> None:
    cmd = signed_command("tok", "t1", "act", {"id": "1", "action": {"kind": "roll", "player": 0, "params": {}}})
    assert verify_command("tok", "t1", "act", cmd)
    assert not verify_command("other", "t1", "act", cmd)
    tampered = cmd.replace(b'"player":0', b'"player":1')
    assert tampered != cmd and not verify_command("tok", "t1", "act", tampered)
    assert not verify_command("tok", "t1", "act", b'{"id":"1"}')
    for cut in (1, 2, 10, len(cmd) - 10):  # a signature cut short, or a message cut before it
        assert not verify_command("tok", "t1", "act", cmd[:-cut])


def test_the_signature_covers_the_bytes_not_a_meaning_read_from_them() -> None:
    """Version 2 signs what travels: the same JSON spelt otherwise (spaces, key order, escapes) is
    another message, and its signature does not carry over."""
    cmd = signed_command("tok", "t1", "act", {"id": "1", "who": "Ann", "action": {"kind": "roll"}}, now=1.0)
    signed_part, auth = cmd[:-signing.SUFFIX_LEN], cmd[-signing.SUFFIX_LEN:]
    respelt = [
        signed_part.replace(b'"who":"Ann"', b'"who": "Ann"') + auth,  # a space
        signed_part.replace(b'"who":"Ann"', b'"who":"\\u0041nn"') + auth,  # an escape of the same letter
        signed_part.replace(b'{"id":"1","who":"Ann"', b'{"who":"Ann","id":"1"') + auth,  # another key order
    ]
    for other in respelt:
        assert json.loads(other) == json.loads(cmd) and other != cmd
        assert not verify_command("tok", "t1", "act", other), other
    assert verify_command("tok", "t1", "act", cmd)
    # The signature is always the last field, spelt one way: moved or spaced, it is not one.
    body = json.loads(cmd)
    assert not verify_command("tok", "t1", "act", json.dumps(body).encode())
    with pytest.raises(SignatureError) as caught:
        signing.check(signing.signing_key("tok"), "command", "t1", "act", json.dumps(body).encode())
    assert caught.value.kind == "unsigned" and "last field" in str(caught.value)


def test_a_message_signed_by_version_1_is_refused_saying_so() -> None:
    """An old panel's command, or an old table's reply, status or publication, is refused with
    the version in words, not as a forgery: the two sides must be updated together."""
    key = signing.signing_key("tok")
    old = [
        ("command", "act", _v1("tok", "command", "t1", "act", {"id": "1", "ts": 5})),
        ("reply", "act", _v1("tok", "reply", "t1", "act", {"id": "1", "ok": True})),
        ("status", "status", _v1("tok", "status", "t1", None, {"state": "online", "since": 1.0})),
    ]
    for kind, name, raw in old:
        with pytest.raises(SignatureError, match="version 1 of the signing scheme") as caught:
            signing.check(key, kind, "t1", name, raw)
        assert caught.value.kind == "old" and "version 2" in str(caught.value)
    assert not verify_status("tok", "t1", old[2][2]) and not verify_reply("tok", "t1", "act", old[1][2])


def test_a_signature_is_as_long_and_as_shaped_whatever_the_token_and_the_message() -> None:
    """The signature tells nothing by its length; only a constant-time comparison reads its digits."""
    lengths = {len(signed_status(token, "t1", {"state": s}).rsplit(b'"auth":', 1)[1])
               for token in ("t", "a much longer token " * 20) for s in ("online", "offline" * 50)}
    assert lengths == {len(b'"v2."') + 64 + 1}


def test_sealed_view_opens_only_for_its_seat_and_token() -> None:
    box = seal("tok", "t1", 0, {"hand": ["magic_ring"]})
    assert "magic_ring" not in box
    assert unseal("tok", "t1", 0, box) == {"hand": ["magic_ring"]}
    for token, table, seat in [("bad", "t1", 0), ("tok", "t2", 0), ("tok", "t1", 1)]:
        with pytest.raises(SealError):
            unseal(token, table, seat, box)
    with pytest.raises(SealError):
        unseal("tok", "t1", 0, "not base64!")


def test_join_codes_differ_by_seat_and_game() -> None:
    codes = {join_code("tok", "t1", g, s) for g in ("g1", "g2") for s in range(4)}
    assert len(codes) == 8
    assert all(len(c) == 6 and c.isalnum() for c in codes)


def test_a_sealed_action_opens_only_as_that_command_of_that_seat() -> None:
    from controller.protocol.security import (
        MAX_SEALED_COMMAND,
        seal_command,
        seal_reply,
        unseal_command,
        unseal_reply,
    )

    action = {"kind": "play_card", "player": 1, "params": {"card": "magic_ring"}}
    box = seal_command("tok", "t1", 1, "c1", action)
    assert "magic_ring" not in box and "play_card" not in box
    assert unseal_command("tok", "t1", 1, "c1", box) == action
    moved = [("bad", "t1", 1, "c1"), ("tok", "t2", 1, "c1"), ("tok", "t1", 0, "c1"), ("tok", "t1", 1, "c2")]
    for token, table, seat, cid in moved:
        with pytest.raises(SealError):
            unseal_command(token, table, seat, cid, box)
    with pytest.raises(SealError):
        unseal_reply("tok", "t1", 1, "c1", box)  # a command body is no reply
    with pytest.raises(SealError):
        unseal("tok", "t1", 1, box)  # nor a private view: the command key is a key of its own
    with pytest.raises(SealError):
        unseal_command("tok", "t1", 1, "c1", seal("tok", "t1", 1, action))
    reply = seal_reply("tok", "t1", 1, "c1", {"error": "magic_ring cannot be played now"})
    assert unseal_reply("tok", "t1", 1, "c1", reply) == {"error": "magic_ring cannot be played now"}
    with pytest.raises(SealError):
        unseal_command("tok", "t1", 1, "c1", reply)
    tampered = box[:20] + ("A" if box[20] != "A" else "B") + box[21:]
    for bad in (tampered, "not base64!", "", 42, None, "A" * (MAX_SEALED_COMMAND + 4)):
        with pytest.raises(SealError):
            unseal_command("tok", "t1", 1, "c1", bad)
    for seat in (-1, True):
        with pytest.raises(SealError):
            unseal_command("tok", "t1", seat, "c1", box)
    # An integer id is read as its text on both sides, so either spelling of the id opens it.
    assert unseal_command("tok", "t1", 1, "7", seal_command("tok", "t1", 1, 7, action)) == action


def test_a_command_signature_covers_the_table_the_name_and_every_field() -> None:
    cmd = signed_command("tok", "t1", "new_game", {"id": "1", "game": "terror"}, now=1000.5)
    assert json.loads(cmd)["ts"] == 1_000_500 and verify_command("tok", "t1", "new_game", cmd)
    assert not verify_command("tok", "t2", "new_game", cmd)  # another table, same token
    assert not verify_command("tok", "t1", "sim", cmd)  # another command topic
    assert not verify_command("other", "t1", "new_game", cmd)
    assert not verify_command("tok", "t1", "new_game", cmd.replace(b'"ts":1000500', b'"ts":1000501'))
    assert not verify_command("tok", "t1", "new_game", _v1("tok", "command", "t1", "new_game", json.loads(cmd)))
    # Neither a reply's signature nor a status's passes for a command's, nor the other way round.
    body = {"id": "1", "ts": 5}
    made = {signed_command("tok", "t1", "status", body), signed_reply("tok", "t1", "status", body),
            signed_status("tok", "t1", body)}
    assert len(made) == 3
    for raw in made:
        assert [verify_command("tok", "t1", "status", raw), verify_reply("tok", "t1", "status", raw),
                verify_status("tok", "t1", raw)].count(True) == 1


def test_padding_gives_whole_units_that_still_parse_as_the_same_json() -> None:
    import json

    from controller.protocol.security import padded

    for text in (b"{}", b'{"a":"' + b"x" * 1000 + b'"}', b"[" + b"1," * 600 + b"1]"):
        out = padded(text, 1024)
        assert len(out) % 1024 == 0 and len(out) >= len(text) and json.loads(out) == json.loads(text)
    assert len(padded(b"x" * 1024, 1024)) == 1024 and len(padded(b"x" * 1025, 1024)) == 2048
    a, b = seal("tok", "t1", 0, {"hand": []}), seal("tok", "t1", 0, {"hand": ["magic_ring"] * 20})
    assert len(a) == len(b)


def test_a_secret_is_compared_whatever_the_length_of_the_guess() -> None:
    from controller.protocol.security import same_secret

    assert same_secret("tok-123", "tok-123") and same_secret(b"ABCDEF", "ABCDEF")
    for guess in ("", "t", "tok-12", "tok-1234", "tok-124", "TOK-123", "tok-123\x00", "tök-123"):
        assert not same_secret(guess, "tok-123"), guess


def test_a_reply_is_signed_for_its_table_and_command() -> None:
    reply = signed_reply("tok", "t1", "act", {"id": "1", "ok": False, "error": "not authorised: bad signature"})
    assert verify_reply("tok", "t1", "act", reply)
    assert not verify_reply("tok", "t2", "act", reply)  # another table sharing the token
    assert not verify_reply("tok", "t1", "undo", reply)  # another command's reply topic
    assert not verify_reply("other", "t1", "act", reply)
    assert not verify_reply("tok", "t1", "act", reply.replace(b'"ok":false', b'"ok":true'))
    assert not verify_reply("tok", "t1", "act", _v1("tok", "reply", "t1", "act", json.loads(reply)))
    body = {"id": "1", "ok": True}
    assert len({signed_reply("tok", "t1", "act", body), signed_command("tok", "t1", "act", body, now=0),
                signed_status("tok", "t1", body)}) == 3
    assert open_status("tok", "t1", signed_status("tok", "t1", {"state": "online"})) == {"state": "online"}


def test_the_table_answers_an_old_panels_command_with_the_version_in_words() -> None:
    from controller.protocol.commands import CommandChecker, CommandRefused

    checker = CommandChecker("tok", ("resync",), lambda _id: False, table="t1")
    old = _v1("tok", "command", "t1", "resync", {"id": "r-1", "ts": 5})
    with pytest.raises(CommandRefused, match=r"^not authorised: signed with version 1 .* version 2") as caught:
        checker.check("resync", old)
    assert caught.value.command_id == "r-1"  # answered, so the old panel shows why
    assert checker.check("resync", signed_command("tok", "t1", "resync", {"id": "r-2"})).id == "r-2"
