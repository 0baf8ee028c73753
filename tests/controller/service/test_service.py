"""The controller service against a real Mosquitto: commands, mismatches, views, shutdown."""

from __future__ import annotations

import json
import threading
from typing import Any

import pytest

from controller.games import Action
from controller.mqtt.link import MAX_COMMAND_BYTES
from controller.protocol.security import unseal
from controller.protocol.signing import signed_status, verify_reply
from controller.service.service import Service
from tests.support.broker import Broker
from tests.support.mqtt import Commander, Subscriber, wait_until
from tests.support.service import BASE, TOKEN, MakeService, topic


def commander(broker: Broker, table: str) -> Commander:
    return Commander(broker.host, broker.port, BASE, table, TOKEN)


def state_of(svc: Service) -> dict[str, Any]:
    return svc.call(lambda s: s.referee.state())


# ----- mismatches and their recovery, for each game with hardware ---------------------
def test_terror_foul_launch_and_moved_tomb_are_mismatches_until_the_board_is_fixed(
    mosquitto: Broker, make_service: MakeService
) -> None:
    t = "sv-terror"
    with Subscriber(mosquitto.host, mosquitto.port, (topic(t, "#"),)) as sub:
        make_service(t, **{"table.game": "terror"})
        cmd = commander(mosquitto, t)
        try:
            start = sub.wait_latest(topic(t, "state"), lambda s: s["game"] == "terror")
            assert start["mismatch"] is None  # the simulated board was set up as the game expects
            cmd.ok("sim", {"sensor": "launcher", "value": "launched"})
            state = sub.wait_latest(topic(t, "state"), lambda s: s["mismatch"] is not None)
            assert state["mismatch"]["code"] == "foul_launch"
            assert "launcher" in state["mismatch"]["guidance"]
            assert state["waiting_for"] == state["mismatch"]["guidance"]
            cmd.call("sim", {"sensor": "launcher", "value": "armed"})
            sub.wait_latest(topic(t, "state"), lambda s: s["mismatch"] is None)
            cmd.call("sim", {"sensor": "tomb.wolf", "value": "end_b"})  # no roll: the tomb may not move
            state = sub.wait_latest(topic(t, "state"), lambda s: s["mismatch"] is not None, timeout=5)
            assert "Wolf" in state["mismatch"]["guidance"]
            cmd.call("sim", {"sensor": "tomb.wolf", "value": "middle"})
            sub.wait_latest(topic(t, "state"), lambda s: s["mismatch"] is None, timeout=5)
            types = [e["type"] for e in sub.events(topic(t, "events"))]
            assert types == ["game_started", "mismatch", "mismatch_cleared", "mismatch", "mismatch_cleared"]
            assert [e["seq"] for e in sub.events(topic(t, "events"))] == [1, 2, 3, 4, 5]
        finally:
            cmd.close()


def test_superstition_pulled_peg_with_nobody_on_the_platform_is_a_mismatch(
    mosquitto: Broker, make_service: MakeService
) -> None:
    t = "sv-super"
    with Subscriber(mosquitto.host, mosquitto.port, (topic(t, "state"), topic(t, "events"))) as sub:
        make_service(t, **{"table.game": "superstition"})
        cmd = commander(mosquitto, t)
        try:
            sub.wait_latest(topic(t, "state"), lambda s: s["game"] == "superstition" and s["mismatch"] is None)
            cmd.call("sim", {"sensor": "trap.ladder.peg_a", "value": "pulled"})
            state = sub.wait_latest(topic(t, "state"), lambda s: s["mismatch"] is not None)
            assert "Ladder" in state["mismatch"]["guidance"] or "ladder" in state["mismatch"]["guidance"]
            cmd.call("sim", {"sensor": "trap.ladder.peg_a", "value": "in"})
            sub.wait_latest(topic(t, "state"), lambda s: s["mismatch"] is None)
            assert [e["type"] for e in sub.events(topic(t, "events"))][-2:] == ["mismatch", "mismatch_cleared"]
        finally:
            cmd.close()


# ----- commands ------------------------------------------------------------------------
def test_malformed_commands_get_a_clear_reply_and_change_nothing(mosquitto: Broker,
                                                                 make_service: MakeService) -> None:
    t = "sv-bad"
    svc = make_service(t)
    cmd = commander(mosquitto, t)
    try:
        before = state_of(svc)
        last = svc.journal.last_seq()
        cmd.send_raw("act", b"{ not json")
        bad_json = cmd.sub.wait_for(lambda m: len(m) >= 1)[0].json()
        assert bad_json["ok"] is False and bad_json["id"] is None and "bad JSON" in bad_json["error"]
        checks = {
            "unknown": cmd.call("teleport", {}),
            "wrong player": cmd.call("act", {"action": {"kind": "roll", "player": 1}}),
            "wrong token": cmd.call("act", {"action": {"kind": "roll", "player": 0}}, token="guess"),
            "no auth": cmd.call("act", {"action": {"kind": "roll", "player": 0}}, sign=False),
            "bad action": cmd.call("act", {"action": {"kind": "roll", "player": 0, "dice": 6}}),
            "no action": cmd.call("act", {}),
            "bad field": cmd.call("new_game", {"game": "terror", "players": ["A"], "colour": "red"}),
            "bad game": cmd.call("new_game", {"game": "chess", "players": ["A", "B"]}),
            "bad players": cmd.call("new_game", {"game": "terror", "players": "A,B"}),
            "bad sensor": cmd.call("sim", {"sensor": "tomb.dragon", "value": "middle"}),
            "bad value": cmd.call("sim", {"sensor": "launcher", "value": "flying"}),
            "oversized": cmd.call("act", {"action": {"kind": "roll", "player": 0}, "pad": "x" * MAX_COMMAND_BYTES}),
        }
        for what, reply in checks.items():
            assert reply["ok"] is False, what
            assert reply["error"], what
        assert "unknown command 'teleport'" in checks["unknown"]["error"]
        assert checks["wrong token"]["error"].startswith("not authorised")
        assert checks["no auth"]["error"].startswith("not authorised")
        assert "unknown action field" in checks["bad action"]["error"]
        assert "colour" in checks["bad field"]["error"]
        assert "chess" in checks["bad game"]["error"]
        assert "tomb.dragon" in checks["bad sensor"]["error"]
        assert "flying" in checks["bad value"]["error"]
        assert "payload too large" in checks["oversized"]["error"]
        cmd.send_raw("act", b"[" * (MAX_COMMAND_BYTES + 1))
        unread = cmd.sub.wait_for(lambda m: m[-1].json()["id"] is None and "too large" in m[-1].json()["error"])
        assert unread[-1].json()["ok"] is False  # no readable id: answered with id null
        ok = cmd.call("act", {"action": {"kind": "roll", "player": 0}})
        assert ok["ok"] is True and ok["data"]["events"]
        cmd.send_raw("act", cmd.last_raw)  # the very same signed bytes, captured and sent again
        wait_until(lambda: sum(1 for r in cmd.replies("act") if r["id"] == ok["id"]) == 2, 5, "the replay reply")
        replay_reply = [r for r in cmd.replies("act") if r["id"] == ok["id"]][-1]
        assert replay_reply["ok"] is False and "replayed" in replay_reply["error"]
        after = state_of(svc)
        assert svc.journal.last_seq() == after["seq"] > last  # only the good roll changed anything
        assert after["current_player"] == before["current_player"] == 0
        assert checks["wrong player"]["error"]
    finally:
        cmd.close()


def test_commands_with_the_wrong_json_types_are_refused_and_change_nothing(mosquitto: Broker,
                                                                           make_service: MakeService) -> None:
    t = "sv-types"
    svc = make_service(t, simulate=False, **{"referee.board": "manual"})
    cmd = commander(mosquitto, t)
    try:
        before, last = state_of(svc), svc.journal.last_seq()
        refused = {
            "params list": cmd.call("act", {"action": {"kind": "roll", "player": 0, "params": []}}),
            "params text": cmd.call("act", {"action": {"kind": "roll", "player": 0, "params": "{}"}}),
            "action text": cmd.call("act", {"action": '{"kind": "roll", "player": 0}'}),
            "action list": cmd.call("act", {"action": [{"kind": "roll", "player": 0}]}),
            "huge seat": cmd.call("act", {"action": {"kind": "roll", "player": 10**30}}),
            "resync extra": cmd.call("resync", {"full": True}),
            "long name": cmd.call("new_game", {"game": "terror", "players": ["Ann", "B" * 5000]}),
            "tab in name": cmd.call("new_game", {"game": "terror", "players": ["Ann", "B\to"]}),
        }
        for what, reply in refused.items():
            assert reply["ok"] is False and reply["error"], what
        assert "'action.params' must be an object, got a list" in refused["params list"]["error"]
        assert "'action.params' must be an object, got a string" in refused["params text"]["error"]
        assert "'action' must be an object" in refused["action text"]["error"]
        assert "got a list" in refused["action list"]["error"]
        assert "unknown field(s): full" in refused["resync extra"]["error"]
        assert "at most 40 characters" in refused["long name"]["error"]  # as table.players in the config
        assert "control characters" in refused["tab in name"]["error"]
        assert svc.journal.last_seq() == last and state_of(svc) == before
        ok = cmd.call("act", {"action": {"kind": "roll", "player": 0, "params": {}}})
        assert ok["ok"] is True, ok  # the same move, well formed, is taken
        cmd.ok("resync", {})
    finally:
        cmd.close()


def test_sim_is_refused_without_simulate_and_selftest_reports_on_health(mosquitto: Broker,
                                                                         make_service: MakeService) -> None:
    t = "sv-manual"
    make_service(t, simulate=False, **{"referee.board": "manual"})
    cmd = commander(mosquitto, t)
    try:
        sim = cmd.call("sim", {"sensor": "launcher", "value": "launched"})
        assert sim["ok"] is False and "--simulate" in sim["error"]
        bad = cmd.call("selftest", {"guided": "yes"})
        assert bad["ok"] is False and "guided" in bad["error"]
        with Subscriber(mosquitto.host, mosquitto.port, (topic(t, "health"),)) as sub:
            cmd.ok("selftest", {})
            health = sub.wait_latest(topic(t, "health"), lambda h: h["selftest"] is not None)
            assert health["board"] == "manual" and health["links"]["broker"]["state"] == "connected"
    finally:
        cmd.close()


def test_new_game_and_resync_republish_every_retained_topic(mosquitto: Broker, make_service: MakeService) -> None:
    t = "sv-new"
    svc = make_service(t)
    cmd = commander(mosquitto, t)
    try:
        reply = cmd.call("new_game", {"game": "superstition", "players": ["Ann", "Bo", "Cy"], "seed": 3})
        assert reply["ok"] is True
        game_id = reply["data"]["game_id"]
        with Subscriber(mosquitto.host, mosquitto.port, (topic(t, "#"),)) as sub:
            state = sub.wait_latest(topic(t, "state"), lambda s: s["game_id"] == game_id)
            assert state["players"] == ["Ann", "Bo", "Cy"] and state["game"] == "superstition"
            sub.wait_latest(topic(t, "status"), lambda s: s["state"] == "online" and s["game"] == "superstition")
            for seat in range(3):
                sealed = sub.wait_latest(topic(t, "private", str(seat)), lambda p, seat=seat: p["seat"] == seat)
                view = unseal(TOKEN, t, seat, sealed["sealed"])
                assert view["seat"] == seat and view["game_id"] == game_id
            wanted = {topic(t, n) for n in ("status", "state", "sensors", "health")}
            sub.wait_for(lambda m: wanted <= {x.topic for x in m if x.retain})  # the broker kept them all
            count = len(sub.messages)
            cmd.ok("resync", {})
            sub.wait_for(lambda m: {x.topic for x in m[count:]} >= {topic(t, n) for n in ("state", "sensors",
                                                                                         "health", "private/2")})
        assert svc.call(lambda s: s.referee.game_id) == game_id
    finally:
        cmd.close()


def test_private_views_open_only_with_the_token_and_seat(mosquitto: Broker, make_service: MakeService) -> None:
    t = "sv-seal"
    make_service(t)
    with Subscriber(mosquitto.host, mosquitto.port, (topic(t, "private", "+"),)) as sub:
        sealed = sub.wait_latest(topic(t, "private", "1"), lambda p: True)["sealed"]
        assert unseal(TOKEN, t, 1, sealed)["seat"] == 1
        from controller.protocol.security import SealError

        with pytest.raises(SealError):
            unseal("another-token", t, 1, sealed)
        with pytest.raises(SealError):
            unseal(TOKEN, t, 0, sealed)


# ----- sealed acts ----------------------------------------------------------------------------
def test_a_sealed_act_round_trip_shows_the_broker_only_ciphertext_and_public_events(
        mosquitto: Broker, make_service: MakeService) -> None:
    t = "sv-sealed"
    svc = make_service(t, simulate=False, **{"referee.board": "manual"})
    with Subscriber(mosquitto.host, mosquitto.port, (topic(t, "#"),)) as spy:
        cmd = commander(mosquitto, t)
        try:
            roll = {"kind": "roll", "player": 0, "params": {}}
            reply, opened = cmd.call_sealed(0, roll)
            assert reply["ok"] is True and set(reply) == {"id", "ok", "sealed", "auth"} \
                and verify_reply(TOKEN, t, "act", cmd.reply_bytes("act", reply["id"])), reply
            assert opened["ok"] is True  # the verdict is sealed too: a clear 'ok' could be flipped
            events = opened["data"]["events"]
            assert events and opened["data"]["action"] == roll
            # The events of an accepted act are public as ever, on the events topic.
            published = spy.wait_events(topic(t, "events"), 1)
            assert [e["seq"] for e in published][-len(events):] == [e["seq"] for e in events]
            sent = spy.wait_for(lambda m: any(x.topic == topic(t, "cmd", "act") for x in m))
            wire = next(x.json() for x in sent if x.topic == topic(t, "cmd", "act"))
            assert set(wire) == {"id", "ts", "auth", "seat", "sealed"} and wire["seat"] == 0
            # A sealed action must be that seat's own: the refusal is sealed for the sender too.
            before = state_of(svc)
            moved = {"kind": "end_turn", "player": 1, "params": {}}
            reply, opened = cmd.call_sealed(0, moved)
            assert reply["ok"] is False and set(reply) == {"id", "ok", "sealed", "auth"} \
                and verify_reply(TOKEN, t, "act", cmd.reply_bytes("act", reply["id"]))
            assert "sealed for seat 0 is for seat 1" in opened["error"]
            assert state_of(svc) == before
            # The same signed bytes again: refused as a replay, and nothing is opened twice.
            cmd.send_raw("act", cmd.last_raw)
            replay = cmd.sub.wait_for(lambda m: sum(1 for x in m if x.json().get("id") == reply["id"]) == 2)
            again = [x.json() for x in replay if x.json().get("id") == reply["id"]][-1]
            assert again["ok"] is False and "replayed" in again["error"]
        finally:
            cmd.close()


def test_bad_sealed_acts_get_a_clear_refusal_with_their_id_and_change_nothing(
        mosquitto: Broker, make_service: MakeService) -> None:
    t = "sv-sealed-bad"
    svc = make_service(t, simulate=False, **{"referee.board": "manual"})
    cmd = commander(mosquitto, t)
    try:
        before, last = state_of(svc), svc.journal.last_seq()
        roll = {"kind": "roll", "player": 0, "params": {}}
        good = cmd.sealed_act(0, roll)
        flip = good["sealed"][30]
        tampered = dict(good, sealed=good["sealed"][:30] + ("A" if flip != "A" else "B") + good["sealed"][31:])
        bodies = {
            "wrong key": (cmd.sealed_act(0, roll, seal_token="another-token"), "does not open"),
            "tampered": (dict(tampered, id=cmd.new_id()), "does not open"),
            "another seat's key": (cmd.sealed_act(0, roll, seal_seat=1), "does not open"),
            "moved to another id": (dict(good, id=cmd.new_id()), "does not open"),
            "not base64": ({"seat": 0, "sealed": "this is not base64!"}, "does not open"),
            "not text": ({"seat": 0, "sealed": {"kind": "roll"}}, "base64 text of at most"),
            "oversized": ({"seat": 0, "sealed": "A" * 6000}, "base64 text of at most"),
            "seat out of range": (cmd.sealed_act(2, dict(roll, player=2)), "seat 2 is not a seat of this game"),
            "negative seat": (cmd.sealed_act(0, roll) | {"seat": -1}, "seat -1 is not a seat"),
            "seat not a number": (cmd.sealed_act(0, roll) | {"seat": "0"}, "'seat' must be a seat number"),
            "seat true": (cmd.sealed_act(0, roll) | {"seat": True}, "'seat' must be a seat number"),
            "both": (cmd.sealed_act(0, roll) | {"action": roll}, "not both"),
            "seat alone": ({"seat": 0}, "needs both 'seat' and 'sealed'"),
            "sealed alone": ({"sealed": good["sealed"]}, "needs both 'seat' and 'sealed'"),
            "neither": ({}, "missing 'action'"),
            "extra field": (cmd.sealed_act(0, roll) | {"note": 1}, "unknown field(s): note"),
        }
        for what, (body, message) in bodies.items():
            reply = cmd.call("act", body)  # found by its id: every refusal names the command
            assert reply["ok"] is False and "sealed" not in reply, (what, reply)
            assert message in reply["error"], (what, reply["error"])
        assert svc.journal.last_seq() == last and state_of(svc) == before
        # A clear act of a kind the game keeps secret is refused: callers learn to seal it.
        secret = cmd.call("act", {"action": {"kind": "play_card", "player": 0, "params": {"card": "x"}}})
        assert secret["ok"] is False and "'play_card' is a secret action" in secret["error"]
        assert svc.journal.last_seq() == last and state_of(svc) == before
        # The very command these were forged from still works: only the forgeries were refused.
        reply = cmd.call("act", good)
        assert reply["ok"] is True and cmd.open_reply(0, reply)["data"]["events"]
    finally:
        cmd.close()


# ----- secrets -----------------------------------------------------------------------------
def _held_secrets(svc: Service, game: str) -> set[str]:
    """Ids of the secrets players hold right now (they have not been revealed yet)."""
    views = svc.call(lambda s: s.referee.private_views())
    held: set[str] = set()
    for view in views.values():
        you = view["view"].get("you") or {}
        if game == "superstition":
            held |= {you[k] for k in ("whammy", "charm") if you.get(k)}
        else:
            held |= {c["id"] if isinstance(c, dict) else str(c)
                     for p in you.get("pawns", []) for c in p.get("cards", [])}
    return held


def _play_random(svc: Service, steps: int, seed: int) -> None:
    import random

    rnd = random.Random(seed)

    def step(s: Service) -> bool:
        game = s.referee.game
        if game is None or game.is_over:
            return False
        actions = s.referee.core.commandable(game.legal_actions(), s.referee.board)
        if not actions:
            return False
        return bool(s.referee.act(rnd.choice(actions)).ok)

    for _ in range(steps):
        if not svc.call(step):
            break


def _refused_secret_act(svc: Service, game: str) -> tuple[int, dict[str, Any], str] | None:
    """A secret action of a seat, about a secret it holds, that the table must refuse now.

    Terror: playing a held card when its timing does not allow it; Superstition: placing
    the held Whammy when that seat may not. Returns (seat, action, the secret it names).
    """
    def find(s: Service) -> tuple[int, dict[str, Any], str] | None:
        g = s.referee.game
        legal = set(g.legal_actions())
        views = s.referee.private_views()
        for seat, view in sorted(views.items()):
            you = view["view"].get("you") or {}
            if game == "terror":
                for pawn in you.get("pawns", []):
                    for c in pawn.get("cards", []):
                        card = c["id"] if isinstance(c, dict) else str(c)
                        action = Action("play_card", seat, {"card": card})
                        if action not in legal:
                            return seat, action.to_json(), card
            elif you.get("whammy"):
                for space in g.board.path_spaces():
                    action = Action("place_whammy", seat, {"space": space})
                    if action not in legal:
                        return seat, action.to_json(), str(you["whammy"])
        return None

    return svc.call(find)


@pytest.mark.parametrize("game", ["superstition", "terror"])
def test_a_spectator_on_hash_never_sees_a_secret(mosquitto: Broker, make_service: MakeService, game: str) -> None:
    t = f"sv-spy-{game}"
    with Subscriber(mosquitto.host, mosquitto.port, ("#",)) as spy:
        svc = make_service(t, simulate=False, **{"referee.board": "manual", "table.game": game, "table.seed": 11})
        held: set[str] = set()
        refused: tuple[int, dict[str, Any], str] | None = None
        for round_ in range(40):
            _play_random(svc, 10, seed=round_)
            held = _held_secrets(svc, game)
            refused = _refused_secret_act(svc, game)
            if held and refused:
                break
        assert held and refused, "the game never dealt a secret: the test would prove nothing"
        # A player's page sends a secret move the table refuses (too late, wrong turn): the move and
        # the refusal, which may name the card, cross the broker sealed for that seat alone.
        seat, action, named = refused
        kind = action["kind"]
        cmd = commander(mosquitto, t)
        try:
            before = svc.journal.last_seq()
            reply, opened = cmd.call_sealed(seat, action)
        finally:
            cmd.close()
        assert reply["ok"] is False and set(reply) == {"id", "ok", "sealed", "auth"} \
                and verify_reply(TOKEN, t, "act", cmd.reply_bytes("act", reply["id"])), reply
        assert opened["error"], opened  # the sender still learns why
        assert svc.journal.last_seq() == before
        last = svc.journal.last_seq()
        spy.wait_latest(topic(t, "state"), lambda s: s["seq"] == last)
        public = [m for m in spy.messages if m.topic.startswith(f"{BASE}/{t}/") and "/private/" not in m.topic]
        text = "\n".join(m.payload.decode() for m in public)
        assert any(m.topic == topic(t, "cmd", "act") for m in public)  # the spy did see the command go by
        for secret in (*held, named, kind):
            assert secret not in text, f"{secret!r} leaked on a public topic"
        for m in public:
            if m.payload:
                assert '"secret"' not in m.payload.decode() and '"private_to"' not in m.payload.decode(), m.topic
        # The secret does travel, sealed: the panel (which holds the token) can read it.
        mine = [m for m in spy.messages if m.topic.startswith(f"{BASE}/{t}/")]
        sealed = [m.json() for m in mine if "/private/" in m.topic and m.payload]
        opened = "\n".join(json.dumps(unseal(TOKEN, t, p["seat"], p["sealed"])) for p in sealed)
        assert any(secret in opened for secret in held)
        assert not any(secret in m.payload.decode(errors="replace") for m in mine
                       if "/private/" in m.topic for secret in held)


# ----- lifecycle -----------------------------------------------------------------------------
def test_stop_publishes_offline_and_a_restart_restores_the_same_state(mosquitto: Broker,
                                                                      make_service: MakeService) -> None:
    t = "sv-restart"
    svc = make_service(t, **{"table.game": "terror"})
    cmd = commander(mosquitto, t)
    try:
        cmd.ok("act", {"action": {"kind": "roll", "player": 0}})
        cmd.call("sim", {"sensor": "launcher", "value": "launched"})
        wait_until(lambda: state_of(svc)["mismatch"] is not None, 5, "the foul")
        before = state_of(svc)
        with Subscriber(mosquitto.host, mosquitto.port, (topic(t, "status"),)) as sub:
            svc.stop()
            sub.wait_latest(topic(t, "status"), lambda s: s["state"] == "offline")
        again = make_service(t, **{"table.game": "terror"})
        after = state_of(again)
        # Identical game; the (re-born) simulated board is set up as the game expects it at rest.
        for key in ("seq", "game_id", "players", "current_player", "view", "legal", "expects"):
            assert after[key] == before[key] if key != "seq" else after[key] >= before[key], key
    finally:
        cmd.close()


def test_a_failing_command_still_gets_an_answer_and_the_worker_goes_on(mosquitto: Broker,
                                                                        make_service: MakeService) -> None:
    t = "sv-boom"
    svc = make_service(t)
    cmd = commander(mosquitto, t)
    try:
        def boom(*args: Any, **kwargs: Any) -> Any:
            raise RuntimeError("engine bug")

        original = svc.referee.act
        svc.call(lambda s: setattr(s.referee, "act", boom))
        reply = cmd.call("act", {"action": {"kind": "roll", "player": 0}})
        assert verify_reply(TOKEN, t, "act", cmd.reply_bytes("act", reply["id"])) and reply.pop("auth")
        assert reply == {"id": reply["id"], "ok": False, "error": "internal error in act: RuntimeError"}
        svc.call(lambda s: setattr(s.referee, "act", original))
        cmd.ok("act", {"action": {"kind": "roll", "player": 0}})
    finally:
        cmd.close()


def test_a_restart_reconciles_with_a_board_that_changed_while_it_was_down(mosquitto: Broker, tmp_path: Any) -> None:
    from controller.mqtt.broker import choose_broker
    from tests.support.service import service_config

    class MovedBoard(Service):
        """Someone launched the ghost while the controller was down."""

        def _set_up_simulated_board(self) -> None:
            super()._set_up_simulated_board()
            self.hub.simulate("launcher", "launched")
            wait_until(lambda: self.hub.snapshot()["launcher"].value == "launched", 5, "the moved launcher")
            self._drop_queued_observations()  # not an observation: the board was like this at start
            self._reconcile_pending = True

    t = "sv-moved"
    cfg = service_config(mosquitto, tmp_path, t, **{"table.game": "terror"})
    first = Service(cfg, choose_broker(cfg.mqtt))
    first.start()
    assert first.wait_online(5)
    game_id = state_of(first)["game_id"]
    first.stop()
    with Subscriber(mosquitto.host, mosquitto.port, (topic(t, "state"),)) as sub:
        again = MovedBoard(cfg, choose_broker(cfg.mqtt))
        again.start()
        try:
            state = sub.wait_latest(topic(t, "state"), lambda s: s["mismatch"] is not None)
            assert state["game_id"] == game_id  # the same game, restored from the journal
            assert state["mismatch"]["code"] == "foul_launch"
        finally:
            again.stop()


# ----- where an observation is decided -----------------------------------------------------
def _note_deciding_threads(svc: Service) -> list[tuple[str, str]]:
    """(thread name, value) of every observation the referee decides from now on."""
    import threading

    seen: list[tuple[str, str]] = []

    def install(s: Service) -> None:
        observe = s.referee.observe

        def noted(obs: Any) -> Any:
            seen.append((threading.current_thread().name, obs.value))
            return observe(obs)

        s.referee.observe = noted

    svc.call(install)
    return seen


def _end_worker(svc: Service) -> None:
    """Stop only the service's worker thread, as if it were busy for ever."""
    from controller.service.service import _STOP

    svc._queue.put(_STOP)
    assert svc._worker is not None
    svc._worker.join(5)
    assert not svc._worker.is_alive()


def test_an_idle_referee_decides_an_observation_in_the_hubs_thread(
    mosquitto: Broker, make_service: MakeService
) -> None:
    t = "sv-inline"
    with Subscriber(mosquitto.host, mosquitto.port, (topic(t, "state"), topic(t, "events"))) as sub:
        svc = make_service(t, **{"table.game": "terror"})
        sub.wait_latest(topic(t, "state"), lambda s: s["game"] == "terror" and s["mismatch"] is None)
        seen = _note_deciding_threads(svc)
        svc.call(lambda s: None)  # nothing is queued for the worker: the referee is idle
        svc.hub.simulate("launcher", "launched")
        state = sub.wait_latest(topic(t, "state"), lambda s: s["mismatch"] is not None)  # the worker built it
        assert state["mismatch"]["code"] == "foul_launch"
        # No hand-off to the worker on the way to the event, when the worker was idle. On a loaded machine the
        # worker may still be publishing the last views as the window closes (then the queue keeps the order,
        # as it must): the launcher goes back and forth, a bounded few times, until one finds it idle.
        values = iter(("armed", "launched", "armed", "launched"))
        while seen[-1][0] != "sensor-hub" and (value := next(values, None)) is not None:
            svc.call(lambda s: None)
            svc.hub.simulate("launcher", value)
            sub.wait_events(topic(t, "events"), len(seen) + 1)
        assert seen[-1][0] == "sensor-hub", seen
        kinds = [e["type"] for e in sub.events(topic(t, "events"))]
        assert kinds[:2] == ["game_started", "mismatch"] and len(kinds) == len(seen) + 1


def test_the_hub_rehearses_the_decision_before_each_window_closes_and_changes_nothing(
    mosquitto: Broker, make_service: MakeService
) -> None:
    t = "sv-rehearse"
    with Subscriber(mosquitto.host, mosquitto.port, (topic(t, "state"), topic(t, "events"))) as sub:
        svc = make_service(t, **{"table.game": "terror"})
        sub.wait_latest(topic(t, "state"), lambda s: s["game"] == "terror" and s["mismatch"] is None)
        rehearsed: list[tuple[str, int]] = []  # the thread, and the journal's last seq at the time
        inner = svc.referee.rehearse

        def noted() -> None:
            rehearsed.append((threading.current_thread().name, svc.journal.last_seq()))
            inner()

        svc.referee.rehearse = noted  # type: ignore[method-assign]
        before = svc.hub.rehearsals[0]
        for n, value in enumerate(("launched", "armed", "launched"), start=2):
            svc.hub.simulate("launcher", value)
            sub.wait_events(topic(t, "events"), n)
        events = sub.events(topic(t, "events"))
        assert [e["type"] for e in events] == ["game_started", "mismatch", "mismatch_cleared", "mismatch"]
        assert [e["seq"] for e in events] == [1, 2, 3, 4]  # nothing the rehearsals wrote was kept
        # One a window, on the hub's thread, before its decision. A loaded machine may skip one (the
        # hub came too late to the window's last 2 ms, or the worker still held the referee).
        assert 1 <= len(rehearsed) <= 3 and {name for name, _ in rehearsed} == {"sensor-hub"}, rehearsed
        assert all(1 <= seq <= 3 for _, seq in rehearsed), rehearsed
        assert svc.hub.rehearsals[0] - before <= 3 and svc.hub.rehearsals[1] == 0


def test_observations_keep_their_order_while_the_worker_is_busy(
    mosquitto: Broker, make_service: MakeService
) -> None:
    import threading

    t = "sv-order"
    with Subscriber(mosquitto.host, mosquitto.port, (topic(t, "events"),)) as sub:
        svc = make_service(t, **{"table.game": "terror"})
        sub.wait_events(topic(t, "events"), 1)
        seen = _note_deciding_threads(svc)
        inside, gate = threading.Event(), threading.Event()

        def hold(s: Service) -> None:
            inside.set()
            assert gate.wait(10)

        busy = threading.Thread(target=svc.call, args=(hold, 15.0))
        busy.start()
        try:
            assert inside.wait(5)
            queued = svc._inputs_in  # the start-up readings and this call went through the queue too
            for n, value in enumerate(("launched", "armed"), start=1):
                svc.hub.simulate("launcher", value)
                wait_until(lambda n=n: svc._inputs_in == queued + n, 5,
                           f"observation {n} queued behind the busy worker")
        finally:
            gate.set()
            busy.join(10)
        svc.hub.simulate("launcher", "launched")  # may be decided here or queued: never before the others
        events = sub.wait_events(topic(t, "events"), 4)
        assert [e["type"] for e in events] == ["game_started", "mismatch", "mismatch_cleared", "mismatch"]
        assert [e["seq"] for e in events] == [1, 2, 3, 4]
        assert [value for _, value in seen] == ["launched", "armed", "launched"]
        assert [name for name, _ in seen][:2] == ["gk-worker", "gk-worker"]


def test_an_observation_never_overtakes_an_input_still_in_the_queue(mosquitto: Broker,
                                                                   make_service: MakeService) -> None:
    import threading

    from controller.service.service import _Call
    from hardware.observation import Observation

    svc = make_service("sv-overtake", **{"table.game": "terror"})
    seen = _note_deciding_threads(svc)
    _end_worker(svc)  # what is queued from now on stays queued
    queued = svc._inputs_in
    with svc._lock:  # busy: the first one is queued
        svc._on_observation(Observation("launcher", "launched", 1.0, 1.0, "sim"))
    assert svc._inputs_in == queued + 1
    svc._on_observation(Observation("launcher", "armed", 2.0, 2.0, "sim"))  # idle, but one is ahead of it
    assert svc._inputs_in == queued + 2 and seen == []
    # A command or call that came first is not overtaken either.
    svc._drop_queued_observations()
    assert svc._inputs_in == svc._inputs_out
    svc._enqueue(_Call(lambda s: None, threading.Event(), []))
    svc._on_observation(Observation("launcher", "launched", 3.0, 3.0, "sim"))
    assert svc._inputs_in == svc._inputs_out + 2 and seen == []


def test_views_of_a_decision_made_as_the_service_stops_still_go_out(mosquitto: Broker, tmp_path: Any) -> None:
    from controller.mqtt.broker import choose_broker
    from hardware.observation import Observation
    from tests.support.service import service_config

    t = "sv-last-views"
    cfg = service_config(mosquitto, tmp_path, t, **{"table.game": "terror"})
    svc = Service(cfg, choose_broker(cfg.mqtt))
    svc.start()
    try:
        assert svc.wait_online(5)
        with Subscriber(mosquitto.host, mosquitto.port, (topic(t, "state"), topic(t, "events"))) as sub:
            sub.wait_latest(topic(t, "state"), lambda s: s["game"] == "terror" and s["mismatch"] is None)
            _end_worker(svc)  # the worker is gone before it can build the views
            svc._on_observation(Observation("launcher", "launched", 1.0, 1.0, "sim"))  # decided here
            sub.wait_latest(topic(t, "events"), lambda e: e["type"] == "mismatch")  # published in this thread
            svc.stop()
            state = sub.wait_latest(topic(t, "state"), lambda s: s["mismatch"] is not None)
            assert state["mismatch"]["code"] == "foul_launch"
    finally:
        svc.stop()


def test_a_reading_the_journal_refused_is_taken_by_itself_once_the_disk_is_back(
    mosquitto: Broker, make_service: MakeService
) -> None:
    import sqlite3

    t = "sv-disk-back"
    with Subscriber(mosquitto.host, mosquitto.port, (topic(t, "state"), topic(t, "events"))) as sub:
        svc = make_service(t, **{"table.game": "terror"})
        sub.wait_latest(topic(t, "state"), lambda s: s["game"] == "terror" and s["mismatch"] is None)
        journal = svc.journal
        real = journal.record_many
        refused = []

        def full(*args: Any, **kwargs: Any) -> Any:
            refused.append(args)
            raise sqlite3.OperationalError("database or disk is full")

        svc.call(lambda s: setattr(journal, "record_many", full))
        svc.hub.simulate("launcher", "launched")  # a foul the disk cannot take: it did not happen
        wait_until(lambda: len(refused) >= 1, 5, "the journal was asked to record the reading")
        assert svc.call(lambda s: s.referee.mismatch) is None
        svc.call(lambda s: setattr(journal, "record_many", real))
        # No new edge comes: the service compares the board again by itself and sees the launch.
        state = sub.wait_latest(topic(t, "state"), lambda s: s["mismatch"] is not None, timeout=5)
        assert state["mismatch"]["code"] == "foul_launch"
        assert [e["type"] for e in sub.events(topic(t, "events"))] == ["game_started", "mismatch"]


# ----- two controllers given one table id ------------------------------------------------
def test_with_two_client_ids_the_older_controller_of_a_table_stops(mosquitto: Broker,
                                                                   make_service: MakeService) -> None:
    t = "sv-twice"
    older = make_service(t, **{"mqtt.client_id": "gk-older"})
    newer = make_service(t, **{"mqtt.client_id": "gk-newer", "journal.path": older.config.journal.path + "-2"})
    wait_until(lambda: older.failure is not None, 10, "the older controller saw the newer one's status")
    assert older.failure is not None and f"table {t!r}" in older.failure
    assert older.link is not None and not older.link.connected
    assert older.link.health()["last_error"] == older.failure
    assert newer.failure is None and newer.link is not None and newer.link.connected
    with Subscriber(mosquitto.host, mosquitto.port, (topic(t, "status"),)) as sub:
        status = sub.wait_latest(topic(t, "status"), lambda s: True)
    assert status["state"] == "online" and status["instance"] == newer.link.status.instance


def test_stale_and_older_statuses_never_stop_a_controller(mosquitto: Broker, make_service: MakeService) -> None:
    import socket
    import time

    t = "sv-stale"
    publisher = Commander(mosquitto.host, mosquitto.port, BASE, t, TOKEN)

    def status(state: str, host: str, since: float, *, retain: bool) -> None:
        # Signed with the table's token, as a real controller's: these tests are about the times.
        body = signed_status(TOKEN, t, {"state": state, "table": t, "instance": host, "host": host, "since": since})
        publisher.client.publish(topic(t, "status"), body, qos=1, retain=retain).wait_for_publish(5)

    try:
        # Retained before the start by a run whose clock was ahead (a Pi without a clock boots behind it).
        status("online", "stale-ahead", time.time() + 3600, retain=True)
        svc = make_service(t)
        assert svc.link is not None
        link = svc.link
        # A broker outage: the retained status is ours now, and the reconnect reads it again.
        link.client.socket().shutdown(socket.SHUT_RDWR)
        wait_until(lambda: link.health()["connects"] >= 2 and link.connected, 10, "the link came back")
        status("offline", "older-run", 1.0, retain=False)  # a run older than this one: a will sent late
        # The positive control, last: a live status of a newer run stops it. The reason names the first
        # status that stopped it, so it proves the ones before did not.
        status("online", "newer-run", time.time() + 60, retain=False)
        wait_until(lambda: svc.failure is not None, 10, "the newer run's status was seen")
        assert svc.failure is not None and "on newer-run started later" in svc.failure
    finally:
        publisher.close()


def test_new_game_on_a_refused_board_replies_in_plain_words_with_the_entry_in_the_data(
        mosquitto: Broker, make_service: MakeService) -> None:
    from tests.controller.games.board_cases import RAW, SUPERSTITION_CASES

    _, doc, entry_words, _at = next(c for c in SUPERSTITION_CASES if c[0] == "no way onto the Ladder")
    t = "bad-board"
    make_service(t, **{"table.game": "superstition"})
    cmd = Commander(mosquitto.host, mosquitto.port, BASE, t, TOKEN)
    try:
        reply = cmd.call("new_game", {"game": "superstition", "players": ["Ann", "Bo"], "options": {"board": doc}})
    finally:
        cmd.close()
    assert not reply["ok"] and reply["error"].startswith("There is no way onto the Ladder"), reply
    assert not RAW.search(reply["error"]), reply["error"]
    assert entry_words in reply["data"]["detail"], reply
