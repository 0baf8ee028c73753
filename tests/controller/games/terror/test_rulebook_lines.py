"""Rulebook lines that no other test checked on their own, each against the rulebook's words.

Default board, all tombs in the middle (``Mu``/``Mo``/``Wo`` are the pits)::

         0   1   2   3   4   5   6   7   8
      0  ..  ..  G   ##  ..  ..  G   Ex  Cr
      1  ..  ##  ..  G   +   ##  ..  ..  ##
      2  G   ..  !g  Wo  !g  ##  +   ..  ..
      3  ..  H   >r  >g  ##  H   ..  G   ..
      4  ##  ..  ##  ..  !p  Mo  !p  ..  ##
      5  ..  +   ..  H   ##  G   ..  +   ..
      6  +   ..  !r  Mu  !r  ..  ##  ..  G
      7  En  ##  ..  G   ..  >p  ..  ..  ..
      8  Ga  ##  G   ..  ..  ##  ..  +   ..
"""

from __future__ import annotations

import pytest

from controller.games import IllegalAction
from tests.controller.games.terror.support import (
    CRYPT,
    EXIT,
    act,
    give,
    make_monster,
    new_game,
    phase,
    pos,
    put,
    types_of,
)


def test_the_dice_show_every_face() -> None:
    # Rulebook, "Dice": number labels on the red die; "the Monster, Mummy and Wolf symbol labels" on the
    # black die. "1. Roll Dice": "Roll the symbol die and the number die."
    numbers, symbols = set(), set()
    for seed in range(200):
        g = new_game(seed=seed)
        act(g, "roll", 0)
        numbers.add(g.s.number)
        symbols.add(g.s.symbol)
    assert numbers == {1, 2, 3, 4, 5, 6}
    assert symbols == {"mummy", "monster", "wolf"}


def test_more_than_one_player_on_the_crypt_platform() -> None:
    # Rulebook, "How to Win": "Note: More than one player may be on the platform at the same time."
    g = new_game()
    put(g, 1, 0, CRYPT)
    put(g, 0, 0, EXIT)
    give(g, 0, 0, "ring-1")
    phase(g, 0, "move", 4, "wolf")
    act(g, "move_pawn", 0, pawn=0, to=CRYPT)
    assert pos(g, 0, 0) == pos(g, 1, 0) == CRYPT
    # ... and the pawn that just jumped up may drop the skull at once.
    assert types_of(act(g, "attempt_skull", 0, pawn=0)) == ["skull_attempt"]


def test_a_skeleton_hand_holds_until_its_own_tomb_changes_it() -> None:
    # Rulebook, "Skeleton Hand Space": "It cannot leave this space until someone moves a tomb and
    # changes the space. Try to move your other pawn."
    g = new_game()
    put(g, 0, 0, [3, 1])  # a Skeleton Hand on the Wolf's platform
    put(g, 0, 1, [3, 0])
    phase(g, 0, "tomb", 1, "mummy")
    act(g, "move_tomb", 0, tomb="mummy", to="end_a")  # another tomb: the hand stays
    assert g.paralysed(0, 0)
    with pytest.raises(IllegalAction, match="paralysed on a Skeleton Hand"):
        act(g, "move_pawn", 0, pawn=0, to=[2, 1])
    moves = [a for a in g.legal_actions() if a.kind == "move_pawn"]
    assert moves and {a.params["pawn"] for a in moves} == {1}


def test_a_card_move_onto_an_arrow_goes_on_to_its_danger_space() -> None:
    # Rulebook, "Gameboard Spaces": "Do the following if your pawn ... is moved there by your card or an
    # opponent's card"; "Arrow Space: Move your pawn immediately to the matching color Danger space!"
    g = new_game()
    put(g, 1, 0, [2, 2])
    give(g, 0, 0, "anytime-breeze")
    phase(g, 0, "roll")
    act(g, "play_card", 0, card="anytime-breeze", target=[1, 0], to=[3, 2])  # a red Arrow
    assert pos(g, 1, 0) == [6, 2]  # the nearer red Danger space
    assert g.board.types(g.cfg)[g.board.cell([6, 2])] == "danger-red"


def test_an_opponents_card_onto_a_potion_cures_on_your_turn_and_on_theirs() -> None:
    # Rulebook, "Magic Potion Space" applies when a pawn "is moved there by your card or an opponent's
    # card" -- unlike a "G", a potion is not limited to your own turn.
    g = new_game()
    put(g, 0, 0, [5, 0])
    make_monster(g, 0, 0)
    give(g, 1, 0, "anytime-breeze")
    phase(g, 1, "roll")  # Bo's turn; Bo pushes Ann's Monster onto the potion
    events = act(g, "play_card", 1, card="anytime-breeze", target=[0, 0], to=[6, 0])
    assert "cured" in types_of(events)
    assert g.s.pawns[0][0].monster is None and "monster-werewolf" in g.s.discard


def test_a_card_move_onto_a_skeleton_hand_paralyses() -> None:
    # Rulebook, "Skeleton Hand Space": "Your pawn is paralyzed!", whoever's card moved it there.
    g = new_game()
    put(g, 1, 0, [3, 0])
    give(g, 0, 0, "anytime-breeze")
    phase(g, 1, "roll")
    events = act(g, "play_card", 0, card="anytime-breeze", target=[1, 0], to=[3, 1])
    assert "paralysed" in types_of(events) and g.paralysed(1, 0)


def test_as_many_cards_as_you_wish_on_your_turn() -> None:
    # Rulebook, "Goosebumps Cards": "You can play as many cards as you wish on your turn -- and at
    # anytime during your turn".
    g = new_game()
    put(g, 0, 0, [5, 0])
    put(g, 1, 0, [7, 4])
    give(g, 0, 0, "move-pawn-1")
    give(g, 0, 1, "extra-turn-1")
    give(g, 0, 1, "move-pawn-3")
    phase(g, 0, "roll")
    act(g, "play_card", 0, card="extra-turn-1")  # before rolling
    act(g, "roll", 0)
    act(g, "play_card", 0, card="move-pawn-1", target=[1, 0], to=[8, 3])  # two spaces, before the tomb
    assert pos(g, 1, 0) == [8, 3]
    act(g, "move_tomb", 0, tomb=g.s.symbol, to="end_a")
    act(g, "end_turn", 0)
    # The extra turn is Ann's again, and her third card is still hers to play.
    assert g.current_player == 0 and "move-pawn-3" in g.s.pawns[0][1].cards


@pytest.mark.parametrize(("params", "said"), [
    ({"card": "extra-turn-1", "target": [1, 0]}, "Second Chance does not take a pawn to act on"),
    ({"card": "switch-1"}, "Body Swap needs a pawn to act on"),
    ({"card": "move-pawn-1", "target": [1, 0]}, "Ghostly Push needs a space to move to"),
    ({"card": "move-pawn-1", "target": [1, 0], "to": [7, 0], "pawn": 0},
     "Ghostly Push does not take which of your pawns plays it"),
])
def test_a_card_played_with_missing_or_extra_parts_is_refused_in_words(params: dict, said: str) -> None:
    # A refusal reaches a person: it names the card by its title and its parts in words, not by ids.
    g = new_game()
    for card in ("extra-turn-1", "switch-1", "move-pawn-1"):
        give(g, 0, 0, card)
    phase(g, 0, "roll")
    before = g.to_json()
    with pytest.raises(IllegalAction) as refused:
        act(g, "play_card", 0, **params)
    assert str(refused.value) == said
    assert g.to_json() == before


def test_body_swap_between_pawns_on_the_same_space_is_refused_and_the_card_kept() -> None:
    # docs/rules/terror.md, "Body Swap": pawns sharing a space have no places to switch ("Pawns may share
    # spaces"), so nothing is switched, no space acts again (no second card from the same "G"), and the
    # card stays saved.
    g = new_game()
    put(g, 0, 0, [7, 3])  # a "G"
    put(g, 1, 0, [7, 3])
    give(g, 0, 0, "switch-1")
    phase(g, 0, "roll")
    before = g.to_json()
    with pytest.raises(IllegalAction, match="already share a space"):
        act(g, "play_card", 0, card="switch-1", target=[1, 0], pawn=0)
    assert g.to_json() == before
    assert not [a for a in g.legal_actions() if a.kind == "play_card" and a.params.get("target") == [1, 0]
                and a.params.get("pawn") == 0]
