"""What the panel and each player see: the public view, the player view, descriptions."""

from __future__ import annotations

import json

from controller.games import Action

from .terror_fixtures import CRYPT, act, give, make_monster, new_game, on_top, phase, put


def test_public_view_draws_the_board_for_the_current_tomb_positions() -> None:
    g = new_game()
    g.s.tombs["monster"] = "end_b"
    view = g.public_view()
    json.dumps(view)  # plain JSON for MQTT
    board = view["board"]
    assert (board["rows"], board["cols"]) == (9, 9)
    assert board["gate"] == [8, 0] and board["crypt"] == CRYPT and board["entrance"] == [7, 0] and board["exit"] == [0, 7]
    track = board["platforms"]["monster"]["track"]
    assert board["cells"][track["end_b"][0]][track["end_b"][1]] == "pit"
    assert board["cells"][track["middle"][0]][track["middle"][1]] == "danger-purple"
    assert board["cells"][0][3] == "bush" and board["cells"][7][0] == "entrance"
    assert board["platforms"]["monster"]["colour"] == "purple"
    assert view["tombs"] == {"mummy": "middle", "monster": "end_b", "wolf": "middle"}
    assert view["phase"] == "roll" and view["turn"] == 0 and view["dice"] == {"number": None, "symbol": None}
    assert view["draw_count"] == 36 and view["discard_count"] == 0
    assert view["skull"] == {"ghost": "standing", "attempt": None}


def test_pawns_in_the_public_view() -> None:
    g = new_game()
    put(g, 0, 0, [3, 1])
    make_monster(g, 1, 1, "monster-bat")
    give(g, 1, 1, "ring-1")
    put(g, 1, 0, None)
    seats = g.public_view()["players"]
    assert [s["colour"] for s in seats] == ["green", "blue"]
    girl = seats[0]["pawns"][0]
    assert girl["pos"] == [3, 1] and girl["where"] == "board" and girl["space"] == "hand" and girl["paralysed"]
    boy = seats[1]["pawns"][1]
    assert boy["where"] == "gate" and boy["monster"] and boy["monster_card"]["title"] == "Bat Wings"
    assert boy["cards"] == 1  # a count, never the card
    assert seats[1]["pawns"][0]["where"] == "out"
    assert "ring-1" not in json.dumps(g.public_view())


def test_player_view_adds_only_that_seats_cards() -> None:
    g = new_game()
    give(g, 0, 1, "ring-2")
    give(g, 1, 0, "switch-3")
    mine = g.player_view(0)["you"]
    assert mine["seat"] == 0
    assert [[c["id"] for c in p["cards"]] for p in mine["pawns"]] == [[], ["ring-2"]]
    assert "switch-3" not in json.dumps(g.player_view(0))
    assert "ring-2" not in json.dumps(g.player_view(1))


def test_pending_monster_card_and_skull_attempt_are_shown() -> None:
    g = new_game()
    put(g, 0, 0, [0, 1])
    on_top(g, "monster-ghoul")
    phase(g, 0, "move", 1, "wolf")
    act(g, "move_pawn", 0, pawn=0, to=[0, 2])
    assert g.public_view()["pending"]["card"]["id"] == "monster-ghoul"  # it was read aloud
    act(g, "place_monster", 0, target=[1, 0])
    g2 = new_game()
    put(g2, 0, 1, CRYPT)
    give(g2, 0, 1, "ring-1")
    phase(g2, 0, "move", 2, "wolf")
    act(g2, "attempt_skull", 0, pawn=1)
    assert g2.public_view()["skull"]["attempt"] == {"seat": 0, "pawn": 1}
    assert g2.public_view()["last_events"][-1]["type"] == "skull_attempt"


def test_other_seats_see_only_their_anytime_actions() -> None:
    g = new_game(players=3)
    give(g, 2, 0, "anytime-breeze")
    give(g, 1, 0, "extra-turn-1")
    assert g.legal_actions_for(1) == []
    theirs = g.legal_actions_for(2)
    assert theirs and {a.kind for a in theirs} == {"play_card"}
    assert all(a.kind != "play_card" for a in g.public_actions())


def test_describe_puts_each_action_in_words() -> None:
    g = new_game()
    assert g.describe(Action("roll", 0)) == "Ann rolls both dice"
    assert g.describe(Action("move_tomb", 0, {"tomb": "wolf", "to": "end_a"})) == "Ann slides the Wolf tomb to end A"
    assert g.describe(Action("move_pawn", 1, {"pawn": 1, "to": [3, 4]})) == "Bo moves the boy pawn to the bush in row 4, column 5"
    assert g.describe(Action("play_card", 0, {"card": "switch-1", "target": [1, 0]})) == "Ann plays Body Swap on Bo's girl pawn"
    assert g.describe(Action("skull_outcome", 0, {"hit": False})) == "The skull rolls out of the other window"
