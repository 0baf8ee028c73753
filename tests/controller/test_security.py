"""Signed commands and sealed private views."""

from __future__ import annotations

import pytest

from controller.security import SealError, join_code, seal, signed, unseal, verify


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
