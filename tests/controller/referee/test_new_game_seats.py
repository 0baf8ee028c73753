"""A new game that keeps the last game's players on their phones: the state's ``seats_from``."""

from __future__ import annotations

from pathlib import Path

from controller.referee.live import Referee
from controller.store.journal import Journal
from tests.controller.referee.test_fakegame import REST, Clock, make_config, make_referee
from tests.support.broker import Broker
from tests.support.mqtt import Commander, Subscriber
from tests.support.service import BASE, TOKEN, MakeService, topic


def two_games(tmp_path: Path, keep: bool) -> tuple[Referee, str]:
    ref = make_referee(tmp_path, Clock())
    assert ref.reconcile(REST).ok
    assert ref.new_game("fakeboard", ["Ann", "Bo"], seed=3).ok
    first = ref.game_id
    assert first is not None
    out = ref.new_game("fakeboard", ["Cy", " ann "], seed=4, keep_seats=keep)
    assert out.ok, out.error
    return ref, first


def test_each_new_seat_names_the_seat_its_player_held_in_the_game_just_before(tmp_path: Path) -> None:
    ref, first = two_games(tmp_path, keep=True)
    # Matched by name, case and spaces aside; Cy is new, Bo does not play.
    assert ref.state()["seats_from"] == {"game_id": first, "seats": [None, 0]}
    # Only the game just before: the next game that keeps its players names this one, not the first.
    second = ref.game_id
    assert ref.new_game("fakeboard", ["Ann", "Cy"], seed=5, keep_seats=True).ok
    assert ref.state()["seats_from"] == {"game_id": second, "seats": [1, 0]}


def test_a_new_game_carries_no_seat_unless_the_referee_says_so(tmp_path: Path) -> None:
    ref, _ = two_games(tmp_path, keep=False)
    assert ref.state()["seats_from"] is None
    assert "seats_from" not in list(ref.journal.inputs())[-1]["payload"]


def test_the_choice_is_journalled_so_a_restarted_table_says_the_same(tmp_path: Path) -> None:
    ref, first = two_games(tmp_path, keep=True)
    ref.journal.close()
    config = make_config(tmp_path)
    with Journal(config.journal.path, table="t1") as journal:
        again = Referee(journal, config, clock=Clock())
        assert again.state()["seats_from"] == {"game_id": first, "seats": [None, 0]}


def test_the_command_over_the_broker_keeps_the_seats_and_refuses_a_wrong_type(
        mosquitto: Broker, make_service: MakeService) -> None:
    t = "sv-keep"
    make_service(t)
    cmd = Commander(mosquitto.host, mosquitto.port, BASE, t, TOKEN)
    try:
        first = cmd.call("new_game", {"game": "dogs", "players": ["Ann", "Bo"]})
        assert first["ok"] is True, first
        refused = cmd.call("new_game", {"game": "dogs", "players": ["Bo", "Ann"], "keep_seats": "yes"})
        assert refused["ok"] is False and "keep_seats" in refused["error"], refused
        second = cmd.call("new_game", {"game": "dogs", "players": ["Bo", "Ann"], "keep_seats": True})
        assert second["ok"] is True, second
        with Subscriber(mosquitto.host, mosquitto.port, (topic(t, "state"),)) as sub:
            state = sub.wait_latest(topic(t, "state"), lambda s: s["game_id"] == second["data"]["game_id"])
        assert state["seats_from"] == {"game_id": first["data"]["game_id"], "seats": [1, 0]}
    finally:
        cmd.close()
