"""Signed commands and sealed private views."""

from __future__ import annotations

import pytest

from controller.protocol.security import (
    SealError,
    join_code,
    seal,
    signed,
    unseal,
    verify,
)


def test_signed_command_verifies_and_any_change_breaks_it() -> None:
    cmd = signed("tok", {"id": "1", "action": {"kind": "roll", "player": 0, "params": {}}})
    assert verify("tok", cmd)
    assert not verify("other", cmd)
    tampered = dict(cmd, action={"kind": "roll", "player": 1, "params": {}})
    assert not verify("tok", tampered)
    assert not verify("tok", {"id": "1"})


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
    from controller.protocol.security import (
        sign_command,
        sign_status,
        signed_command,
        verify_command,
    )

    cmd = signed_command("tok", "t1", "new_game", {"id": "1", "game": "terror"}, now=1000.5)
    assert cmd["ts"] == 1_000_500 and verify_command("tok", "t1", "new_game", cmd)
    assert not verify_command("tok", "t2", "new_game", cmd)  # another table, same token
    assert not verify_command("tok", "t1", "sim", cmd)  # another command topic
    assert not verify_command("other", "t1", "new_game", cmd)
    assert not verify_command("tok", "t1", "new_game", {**cmd, "ts": cmd["ts"] + 1})
    assert not verify_command("tok", "t1", "new_game", signed("tok", {"id": "1", "game": "terror"}))
    # Neither a reply's signature nor a status's passes for a command's, nor the other way round.
    body = {"id": "1", "ts": 5}
    assert len({sign_command("tok", "t1", "x", body), signed("tok", body)["auth"], sign_status("tok", "t1", body)}) == 3


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
    from controller.protocol.security import (
        sign_command,
        sign_reply,
        sign_status,
        signed_reply,
        verify_reply,
    )

    reply = signed_reply("tok", "t1", "act", {"id": "1", "ok": False, "error": "not authorised: bad signature"})
    assert verify_reply("tok", "t1", "act", reply)
    assert not verify_reply("tok", "t2", "act", reply)  # another table sharing the token
    assert not verify_reply("tok", "t1", "undo", reply)  # another command's reply topic
    assert not verify_reply("other", "t1", "act", reply)
    assert not verify_reply("tok", "t1", "act", {**reply, "ok": True})
    assert not verify_reply("tok", "t1", "act", signed("tok", {k: v for k, v in reply.items() if k != "auth"}))
    body = {"id": "1", "ok": True}
    assert len({sign_reply("tok", "t1", "act", body), sign_command("tok", "t1", "act", body),
                sign_status("tok", "t1", body), signed("tok", body)["auth"]}) == 4
