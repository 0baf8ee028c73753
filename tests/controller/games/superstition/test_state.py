"""Superstition set-up, options, illegal actions, saved states and views."""

from __future__ import annotations

import json
from typing import Any

import pytest

from controller.games import (
    Action,
    BadGameData,
    IllegalAction,
    MalformedAction,
    get_game,
)
from controller.games.superstition import Superstition
from tests.controller.games.superstition.support import (
    act,
    begin,
    give,
    new_game,
    on_board,
    put,
    rejected,
    throw,
)

G = get_game("superstition")


def test_registered_by_name() -> None:
    assert G is Superstition and G.min_players == 2 and G.max_players == 4


@pytest.mark.parametrize("players", [["solo"], ["a", "b", "c", "d", "e"], "ab", ["a", ""]])
def test_bad_player_lists_are_refused(players: Any) -> None:
    with pytest.raises(IllegalAction):
        G.new(players, 1)


@pytest.mark.parametrize(
    "options, message",
    [
        ({"challenge": "psychic"}, "option 'challenge' is 'psychic'"),
        ({"dice": 3}, "option 'dice' is 3"),
        ({"dice": True}, "option 'dice'"),
        ({"step_off": "maybe"}, "option 'step_off'"),
        ({"outcome_window_ms": 5}, "option 'outcome_window_ms'"),
        ({"colours": ["red"]}, "option 'colours' must list one colour a player"),
        ({"colours": ["red", "purple"]}, "'purple' has no start circle"),
        ({"colours": ["red", "red"]}, "repeats a colour"),
        ({"speed": 2}, "unknown option 'speed'"),
    ],
)
def test_bad_options_are_named(options: dict[str, Any], message: str) -> None:
    with pytest.raises(IllegalAction, match=message):
        G.new(["A", "B"], 1, options)


def test_colours_choose_the_start_circles() -> None:
    game = G.new(["A", "B"], 1, {"colours": ["yellow", "blue"]})
    assert [p["space"] for p in game.pawns] == ["start.yellow", "start.blue"]


def test_two_dice_option_throws_two_dice() -> None:
    game = G.new(["A", "B"], 5, {"dice": 2})
    events = game.apply(Action("roll", 0))
    assert len(events[0].data["dice"]) == 2 and 2 <= events[0].data["total"] <= 12


def test_table_dice_accept_only_possible_throws() -> None:
    game = new_game()
    rejected(game, Action("roll", 0, {"value": 7}), "1..6, not 7")
    rejected(game, Action("roll", 0), "missing parameter 'value'")
    engine = G.new(["A", "B"], 1)
    rejected(engine, Action("roll", 0, {"value": 3}), "unexpected parameter 'value'")


# ----- illegal actions: a reason, and no change -------------------------------------------------
def test_wrong_player_is_refused() -> None:
    game = new_game(3)
    begin(game)
    throw(game, 2)
    rejected(game, Action("move", 1, {"direction": "cw"}), r"Ann \(red\)'s turn, not Bob \(blue\)'s")
    rejected(game, Action("move", 7, {"direction": "cw"}), "there is no such player in this game")
    rejected(game, Action("move", None, {"direction": "cw"}), "there is no such player in this game")


def test_wrong_phase_is_refused() -> None:
    game = new_game()
    begin(game)
    rejected(game, Action("move", 0, {"direction": "cw"}), "you cannot move now: throw the dice")
    throw(game, 2)
    rejected(game, Action("roll", 0, {"value": 2}), "you cannot throw the dice now")
    rejected(game, Action("jump", 0), "you cannot jump the Wizard's Tomb now")
    rejected(game, Action("pull_peg", 0, {"trap": "ladder", "peg": "a"}), "you cannot pull that peg now")


def test_bad_direction_is_refused() -> None:
    game = new_game()
    begin(game)
    throw(game, 2)
    rejected(game, Action("move", 0, {"direction": "up"}), "there is no such way to move")
    rejected(game, Action("move", 0, {"direction": "in"}),
             "the way onto the platform is not open from the red start circle")
    rejected(game, Action("move", 0, {"direction": 3}), "wrong type")


@pytest.mark.parametrize(
    "raw, message",
    [
        ('{"kind": "fly", "player": 0}', "unknown action kind 'fly'"),
        ('{"kind": "roll", "player": 0, "params": {"value": "six"}}', "wrong type"),
        ('{"kind": "move", "player": 0, "params": {}}', "missing parameter 'direction'"),
        ('{"kind": "move", "player": 0, "params": {"direction": "cw", "steps": 2}}', "unexpected parameter 'steps'"),
        ('{"kind": "roll", "player": 0, "params": {"value": true}}', "wrong type"),
    ],
)
def test_malformed_actions_are_refused(raw: str, message: str) -> None:
    game = new_game()
    before = game.to_json()
    with pytest.raises(MalformedAction, match=message):
        game.apply(Action.from_json(raw))
    assert game.to_json() == before


def test_malformed_json_text_is_refused_before_it_reaches_the_game() -> None:
    with pytest.raises(MalformedAction, match="not valid JSON"):
        Action.from_json('{"kind": "roll", ')
    # Nested past the parser's limit: a RecursionError inside, a MalformedAction (a ValueError) outside.
    with pytest.raises(MalformedAction, match="nested too deeply"):
        Action.from_json("[" * 100_000)
    with pytest.raises(MalformedAction, match="nested too deeply"):
        Action.from_text("roll 0 " + "[" * 100_000)


def test_apply_refuses_a_non_action() -> None:
    game = new_game()
    with pytest.raises(MalformedAction, match="expected an Action"):
        game.apply({"kind": "roll"})  # type: ignore[arg-type]


# ----- saved states ------------------------------------------------------------------------------
def test_json_round_trip_mid_game_is_exact() -> None:
    game = new_game(3, challenge="sensors")
    begin(game)
    give(game, 0, "the_raven", "hex_sign")
    on_board(game, "b9", "witching_hour")
    put(game, 0, "b7")
    throw(game, 3)
    act(game, "move", direction="cw")
    act(game, "pull_peg", trap="ladder", peg="a")
    data = json.loads(json.dumps(game.to_json()))
    again = Superstition.from_json(data)
    assert again == game and again.to_json() == game.to_json()
    assert again.expects() == game.expects() and again.legal_actions() == game.legal_actions()


def _state() -> dict[str, Any]:
    game = new_game(2)
    begin(game)
    return json.loads(json.dumps(game.to_json()))


def _edit(path: str, value: Any) -> dict[str, Any]:
    data = _state()
    target: Any = data
    keys = path.split("/")
    for key in keys[:-1]:
        target = target[int(key)] if isinstance(target, list) else target[key]
    last = keys[-1]
    if isinstance(target, list):
        target[int(last)] = value
    else:
        target[last] = value
    return data


@pytest.mark.parametrize(
    "data, message",
    [
        (_edit("game", "terror"), "not a Superstition state"),
        (_edit("phase", "dancing"), "phase is 'dancing'"),
        (_edit("turn", 9), "turn is 9"),
        (_edit("pawns/0/space", "moon"), r"pawns\[0\]\.space is 'moon'"),
        (_edit("pawns/1/space", "start.red"), r"pawns\[1\]\.space is 'start.red', shared with pawns\[0\]"),
        (_edit("pawns/0/leg", "flying"), r"pawns\[0\]\.leg is 'flying'"),
        (_edit("pawns/0/zapped", ["toad"]), r"pawns\[0\]\.zapped names an unknown trap"),
        (_edit("hands/0/whammy", "the_raven"), "whammies are not the four Whammies once each"),
        (_edit("traps/ladder/live", None), r"traps\['ladder'\]\.live must be 'a' or 'b'"),
        (_edit("whammies", {"ladder": "the_raven"}), "whammies"),
        (_edit("rng", 12), "rng"),
        (_edit("board/gate", "zz"), "saved state's board: 'gate'"),
        (_edit("options/dice", 9), "option 'dice'"),
    ],
)
def test_bad_saved_states_are_named(data: dict[str, Any], message: str) -> None:
    with pytest.raises((BadGameData, IllegalAction), match=message):
        Superstition.from_json(data)


def test_missing_field_in_a_saved_state_is_bad_game_data() -> None:
    data = _state()
    del data["pawns"]
    with pytest.raises(BadGameData, match="pawns"):
        Superstition.from_json(data)


# ----- views ----------------------------------------------------------------------------------
def test_public_view_has_what_the_panel_draws() -> None:
    game = new_game(3)
    begin(game, first=1)
    on_board(game, "s3", "friday_13th")
    view = game.public_view()
    assert view["phase"] == "roll" and view["current_player"] == 1
    assert set(view["board"]["spaces"]["b0"]) == {"kind", "x", "y"}
    assert view["board"]["brick_path"][0] == "b0" and len(view["board"]["stone_path"]) == 16
    assert [p["space"] for p in view["players"]] == ["start.red", "start.blue", "start.green"]
    assert view["traps"]["grave2"] == {"name": "second Grave", "state": "cocked", "peg_a": "in", "peg_b": "in"}
    assert view["whammies"] == [{"space": "s3", "whammy": "friday_13th", "name": "Friday, 13th"}]
    assert view["dice"] == [] and view["roll"] is None
    throw(game, 4)
    assert game.public_view()["roll"] == 4
    json.dumps(view)


def test_player_view_shows_only_that_seats_tokens() -> None:
    game = new_game(2)
    begin(game)
    give(game, 0, "the_raven", "hex_sign")
    give(game, 1, "mummys_curse", "wishbone")
    mine = game.player_view(0)
    assert mine["you"]["whammy"] == "the_raven" and mine["you"]["charm"] == "hex_sign"
    assert mine["you"]["charm_passes"] == "Witching Hour"
    text = json.dumps(mine)
    assert "mummys_curse" not in text and "wishbone" not in text
    public = json.dumps(game.public_view())
    for secret in ("the_raven", "hex_sign", "mummys_curse", "wishbone", '"live"'):
        assert secret not in public
    with pytest.raises(ValueError, match="no seat 5"):
        game.player_view(5)


def test_describe_says_what_an_action_does() -> None:
    game = new_game()
    assert game.describe(Action("move", 0, {"direction": "ccw"})) == "Ann (red) moves counter-clockwise"
    assert "pulls peg A of the Ladder" in game.describe(Action("pull_peg", 1, {"trap": "ladder", "peg": "a"}))


def test_editing_a_saved_state_does_not_reach_into_the_game() -> None:
    game = new_game()
    begin(game)
    data = game.to_json()
    data["board"]["spaces"]["b0"]["x"] = -1
    data["pawns"][0]["zapped"].append("ladder")
    data["hands"][0]["drawn"] = True
    view = game.public_view()
    view["board"]["platforms"]["ladder"]["space"] = "nowhere"
    assert game.board.raw["spaces"]["b0"]["x"] == 500
    assert game.pawns[0]["zapped"] == [] and game.hands[0]["drawn"] is False
    assert game.public_view()["board"]["platforms"]["ladder"]["space"] == "ladder"


def test_the_public_view_does_not_tell_who_still_holds_a_whammy() -> None:
    """The rules keep the tokens secret: a seat holding its Whammy and one that placed it look alike."""
    game = new_game()
    begin(game)
    give(game, 0, "the_raven", "hex_sign")
    give(game, 1, None, "wishbone")  # Bo placed his Whammy already
    players = game.public_view()["players"]
    assert [p["drew_tokens"] for p in players] == [True, True]
    assert players[0].keys() == players[1].keys() and "holds_whammy" not in players[0]
    assert {k: v for k, v in players[0].items() if k not in ("seat", "name", "colour", "space")} == \
        {k: v for k, v in players[1].items() if k not in ("seat", "name", "colour", "space")}
    assert game.player_view(0)["you"]["whammy"] == "the_raven"
