"""The 36-card deck as data, and its validation."""

from __future__ import annotations

import copy
import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from controller.games import BadGameData
from controller.games.terror.cards import DEFAULT_CARDS, load_deck
from tests.controller.games.terror.support import new_game

RAW: dict[str, Any] = json.loads(DEFAULT_CARDS.read_text())


def test_default_deck_has_36_cards_in_the_four_kinds() -> None:
    # Rulebook, "Contents": "36 Cards"; "Goosebumps Cards": "The 4 types of cards".
    deck = load_deck()
    assert len(deck) == 36
    kinds = Counter(c.kind for c in deck.cards.values())
    assert kinds == {"now": 10, "later": 11, "now_or_later": 14, "anytime": 1}


def test_default_deck_covers_every_effect_the_rulebook_names() -> None:
    # Rulebook, "Beware!": steal a ring, move a pawn, switch places, turn into a Monster;
    # "How to Win": another full turn; "What to Do When You're a Monster": cure every monster.
    effects = Counter(c.effect for c in load_deck().cards.values())
    assert effects == {
        "monster": 8,
        "cure_all": 2,
        "ring": 8,
        "reversal": 3,
        "steal_ring": 4,
        "move_pawn": 5,
        "switch": 3,
        "extra_turn": 3,
    }
    anytime = [c for c in load_deck().cards.values() if c.kind == "anytime"]
    assert len(anytime) == 1 and anytime[0].effect == "move_pawn" and anytime[0].steps == 1


@pytest.mark.parametrize(
    "change, message",
    [
        (lambda d: d["cards"][0].__setitem__("effect", "explode"),
         r"cards\[0\] \(monster-werewolf\): effect 'explode'"),
        (lambda d: d["cards"][10].__setitem__("kind", "now"),
         r"cards\[10\] \(ring-1\): a ring card must be later, not 'now'"),
        (lambda d: d["cards"][1].__setitem__("id", "monster-werewolf"),
         r"cards\[1\] \(monster-werewolf\): id 'monster-werewolf' is used twice"),
        (lambda d: d["cards"][2].__setitem__("title", ""),
         r"cards\[2\] \(monster-swamp\): title must be a non-empty string"),
        (lambda d: d["cards"][25].__setitem__("steps", 9),
         r"cards\[25\] \(move-pawn-1\): steps must be a whole number from 1 to 6"),
        (lambda d: d["cards"][0].__setitem__("steps", 2), r"only a move_pawn card has steps"),
        (lambda d: d["cards"][0].__setitem__("colour", "red"),
         r"cards\[0\] \(monster-werewolf\): unknown key\(s\) colour"),
        (lambda d: d["cards"][3].pop("id"), r"cards\[3\]: id must be a non-empty string"),
        (lambda d: d.__setitem__("cards", [c for c in d["cards"] if c["effect"] != "ring"]),
         r"at least one Magic Ring"),
        (lambda d: d["cards"].__setitem__(35, "ring"), r"cards\[35\]: a card must be an object"),
        (lambda d: d["cards"].append(dict(d["cards"][0], id="extra")), r"the deck has 37 cards; the box holds 36"),
        (lambda d: d.pop("cards"), r"must be an object with a 'cards' list"),
    ],
)
def test_bad_card_files_name_the_bad_entry(change: Any, message: str) -> None:
    data = copy.deepcopy(RAW)
    change(data)
    with pytest.raises(BadGameData, match=message):
        load_deck(data)


def test_an_owners_card_file_is_used_by_the_game(tmp_path: Path) -> None:
    data = copy.deepcopy(RAW)
    data["cards"] = data["cards"][:20]
    path = tmp_path / "deck.json"
    path.write_text(json.dumps(data))
    game = new_game(cards=str(path))
    assert len(game.s.draw) == 20
    path.write_text("[")
    with pytest.raises(BadGameData, match="deck.json: not valid JSON"):
        load_deck(path)


def test_objects_that_are_not_plain_json_are_refused() -> None:
    from controller.games.terror.board import load_board

    with pytest.raises(BadGameData, match="cards: not plain JSON"):
        load_deck({"cards": {1, 2}})
    with pytest.raises(BadGameData, match="board: not plain JSON"):
        load_board({"layout": {1, 2}})
    with pytest.raises(BadGameData, match="cards must be a file path or an object"):
        load_deck(42)  # type: ignore[arg-type]
