"""Two bad inputs that once got no answer, or one naming the wrong key."""

from __future__ import annotations

from pathlib import Path

from tests.support.broker import Broker
from tests.support.mqtt import Commander
from tests.support.run import run_cli
from tests.support.service import BASE, TOKEN, MakeService


def test_a_zero_length_command_gets_a_clear_error(mosquitto: Broker, make_service: MakeService) -> None:
    t = "bi-empty"
    make_service(t)
    cmd = Commander(mosquitto.host, mosquitto.port, BASE, t, TOKEN)
    try:
        # Deleting a retained command (an empty retained message) sends nothing: not answered.
        cmd.client.publish(f"{BASE}/{t}/cmd/act", b"", qos=1, retain=True).wait_for_publish(5)
        cmd.send_raw("act", b"")
        reply = cmd.reply("act", None)
        assert reply["ok"] is False
        assert "empty message is not a command" in reply["error"], reply
        cmd.ok("resync", {})  # answered after both empties: they were read by then
        unread = [m.json() for m in cmd.sub.on(f"{BASE}/{t}/reply/act")]
        assert [r["id"] for r in unread] == [None], unread  # one answer: the live one only
    finally:
        cmd.close()


def test_a_token_that_cannot_be_kept_beside_a_journal_in_proc_names_journal_path(tmp_path: Path) -> None:
    cfg = tmp_path / "proc.toml"
    cfg.write_text('[table]\nid = "bi-proc"\n[journal]\npath = "/proc/self/bi-proc.journal"\n'
                   "[panel]\nenabled = false\n")
    result = run_cli("--config", str(cfg), "--simulate")
    assert result.returncode == 2, result
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("gravekeeper run: journal.path: "), lines[0]
    assert "/proc/self/bi-proc.token" in lines[0] and "table.token:" not in lines[0], lines[0]
