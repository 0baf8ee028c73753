"""What the panel and each player see: the public view, the player view, descriptions."""

from __future__ import annotations

import json
import random
import re

from controller.games import Action
from controller.games.terror import describe_action, describe_event, space_words
from controller.games.terror.board import ALL_CONFIGS, TOMBS, load_board
from controller.games.terror.words import kind_noun, kind_words, place_words
from tests.controller.games.terror.support import (
    CRYPT,
    act,
    give,
    make_monster,
    new_game,
    on_top,
    phase,
    put,
)

# What a person must never read: a coordinate (in brackets, or as a row and a column in words), a card
# id, a seat number, a snake_case id.
COORDINATE = r"\brows? \d|\bcolumns? \d|\b\d+(?:st|nd|rd|th) (?:row|column)\b|\(-?\d+, ?-?\d+\)|\[-?\d+, ?-?\d+\]"
RAW = re.compile(COORDINATE + r"|\b[a-z]+(?:-[a-z]+)*-\d+\b|\bseat \d|\b[a-z]+_[a-z_]+\b|\b(?:arrow|danger)-[a-z]+\b")


def test_public_view_draws_the_board_for_the_current_tomb_positions() -> None:
    g = new_game()
    g.s.tombs["monster"] = "end_b"
    view = g.public_view()
    json.dumps(view)  # plain JSON for MQTT
    board = view["board"]
    assert (board["rows"], board["cols"]) == (9, 9)
    assert board["gate"] == [8, 0] and board["crypt"] == CRYPT
    assert board["entrance"] == [7, 0] and board["exit"] == [0, 7]
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
    assert g.describe(Action("move_pawn", 1,
                             {"pawn": 1, "to": [1, 4]})) == "Bo moves the boy pawn to a Magic Potion space"
    assert g.describe(Action("move_pawn", 1,
                             {"pawn": 1, "to": [2, 2]})) == "Bo moves the boy pawn to the gold Danger space"
    assert g.describe(Action("play_card", 0,
                             {"card": "switch-1", "target": [1, 0]})) == "Ann plays Body Swap on Bo's girl pawn"
    assert g.describe(Action("skull_outcome", 0, {"hit": False})) == "The skull rolls out of the other window"
    card = {"card": "move-pawn-1", "target": [0, 1], "to": [0, 0]}
    assert g.describe(Action("play_card", 0, card)) == "Ann plays Ghostly Push on Ann's boy pawn, to a grass space"


def test_an_action_offered_to_its_player_is_said_to_them() -> None:
    g = new_game(players=3)
    said = {
        Action("roll", 1): "Roll both dice",
        Action("move_tomb", 1, {"tomb": "mummy", "to": "end_b"}): "Slide the Mummy tomb to end B",
        Action("move_pawn", 1, {"pawn": 0, "to": [8, 2]}): "your girl pawn to a card space",
        Action("place_monster", 1, {"target": [1, 0]}): "Put the Monster card on your own girl pawn",
        Action("place_monster", 1, {"target": [2, 1]}): "Put the Monster card on Cy's boy pawn",
        Action("play_card", 1, {"card": "steal-ring-1", "target": [0, 0], "pawn": 1}):
            "Play Sticky Fingers on Ann's girl pawn for your boy pawn",
    }
    for action, words in said.items():
        assert describe_action(g, action, offered=True) == words
    # A caller that draws pawns its own way adds its mark after each pawn's name.
    marked = describe_action(g, Action("place_monster", 1, {"target": [2, 1]}), offered=True,
                             mark=lambda seat, pawn: f"#{seat}{pawn}")
    assert marked == "Put the Monster card on Cy's boy pawn (#21)"


def test_odd_parameters_are_still_said_in_words() -> None:
    """An action from outside may be illegal; its words never fail and never show an id or a coordinate."""
    g = new_game()
    odd = Action("play_card", 5, {"card": "no-such-card", "target": [9, 9], "pawn": True, "to": [99, 0]})
    assert g.describe(odd) == "? plays a card on a pawn, to a space not on the board"
    assert describe_action(g, odd, offered=True) == "Play a card on a pawn, to a space not on the board"


def test_no_words_of_a_whole_game_show_an_id_or_a_coordinate() -> None:
    rng = random.Random(5)
    for seed in range(4):
        g = new_game(players=3, seed=seed)
        for _ in range(150):
            actions = g.legal_actions()
            if g.is_over or not actions:
                break
            for a in actions:
                for words in (g.describe(a), describe_action(g, a, offered=True)):
                    assert not RAW.search(words), words
            for event in g.apply(rng.choice(actions)):
                words = describe_event(g, event, event.private_to)
                assert words and not RAW.search(words), (event, words)


def test_every_space_of_every_configuration_is_named_as_a_player_finds_it() -> None:
    """The words a refusal names a space with: what is printed on it and the named places near it."""
    board = load_board()
    names = ("the Gate platform", "the Entrance", "the Exit", "the Crypt platform",
             *(f"the {t.title()} tomb" for t in TOMBS))
    for cfg in range(ALL_CONFIGS):
        types = board.types(cfg)
        for index, kind in enumerate(types):
            if kind is None:
                continue
            words = place_words(board, cfg, index)
            assert not RAW.search(words), (cfg, board.rc(index), words)
            assert any(name in words for name in names), words  # something a player can find on the board
            if index not in (board.gate, board.entrance, board.exit, board.crypt) and kind != "pit":
                assert words.startswith("the " + str(kind_noun(kind))), words
    assert place_words(board, 0, board.cell([7, 1])) == "the bushes next to the Entrance"
    assert place_words(board, 0, board.cell([0, 6])) == "the card space next to the Exit"
    mummy = board.platforms["mummy"]
    assert place_words(board, 0, mummy.track["end_a"]) == "the pit under the Mummy tomb"
    on_red = place_words(board, 0, board.cell([5, 1]))
    assert on_red == "the grass space on the red platform, two spaces from the Mummy tomb"


def test_each_kind_of_space_has_one_name_in_every_wording() -> None:
    kinds = ["grass", "bush", "g", "potion", "hand", "pit", "entrance", "exit", "gate", "crypt",
             *(f"{k}-{c}" for k in ("arrow", "danger") for c in ("red", "purple", "gold"))]
    for kind in kinds:
        noun = kind_noun(kind)
        assert noun and space_words(kind).endswith(" " + noun) and kind_words(kind).endswith(" " + noun), kind
    for odd in ("arrow-pink", "danger-", "lava", 3, None):
        assert kind_noun(odd) is None and kind_words(odd) == "something the game does not know"
