"""The one gate that puts forged retained topics right, a few times a second at most (link and discovery)."""

from __future__ import annotations

from controller.mqtt.put_right import EVERY_S, PutRightGate


def test_a_forgery_is_put_right_at_once_then_at_most_every_interval_and_never_lost() -> None:
    gate: PutRightGate[str] = PutRightGate()
    assert gate.due(100.0) == [] and gate.restored == 0  # nothing forged, nothing to do
    gate.forged("state")
    assert gate.due(100.0) == ["state"] and gate.restored == 1
    assert gate.due(100.0) == []  # put right: no longer marked
    gate.forged("state")  # a flood: too soon after the last answer
    assert gate.due(100.0 + EVERY_S / 2) == [] and gate.pending()
    assert gate.due(100.0 + EVERY_S) == ["state"] and gate.restored == 2  # the next round takes it
    assert not gate.pending()


def test_each_topic_has_its_own_interval_and_a_topic_no_longer_kept_is_forgotten() -> None:
    gate: PutRightGate[str] = PutRightGate(every_s=1.0)
    gate.forged("state")
    assert gate.due(0.0) == ["state"]
    gate.forged("state")
    gate.forged("status")
    gate.forged("gone")
    assert gate.due(0.5, lambda topic: topic != "gone") == ["status"]  # state waits, gone is dropped
    assert gate.restored == 2 and gate.pending()
    assert gate.due(1.0, lambda topic: topic != "gone") == ["state"] and not gate.pending()
    assert gate.restored == 3
