"""Goosebumps cards: timing, monsters, hands held per pawn, every effect and reshuffling."""

from __future__ import annotations

import pytest

from controller.games import IllegalAction
from controller.games.terror import Terror
from tests.controller.games.terror.support import (
    act,
    card_total,
    give,
    make_monster,
    new_game,
    on_top,
    phase,
    pos,
    put,
    slide,
    types_of,
)


def draw_on_g(g: Terror, card_id: str, seat: int = 0, pawn: int = 0) -> list:
    """Move ``seat``'s pawn from [0, 1] onto the "G" at [0, 2] with ``card_id`` on top."""
    put(g, seat, pawn, [0, 1])
    on_top(g, card_id)
    phase(g, seat, "move", 1, "wolf")
    return act(g, "move_pawn", seat, pawn=pawn, to=[0, 2])


# ----- Play Now! and Monster cards --------------------------------------------------------------
def test_a_monster_card_is_read_aloud_and_placed_by_the_drawer() -> None:
    # Rulebook, "Monster Cards": "place the Monster card faceup on any opponent's Pawn card;
    # or faceup on the Pawn card of the pawn you just moved."
    g = new_game(players=3)
    make_monster(g, 2, 1, "monster-bat")
    events = draw_on_g(g, "monster-mummy")
    drawn = [e for e in events if e.type == "card_drawn"][0]
    assert drawn.data["card"]["id"] == "monster-mummy"  # read aloud: public
    assert g.phase == "choose"
    targets = sorted(tuple(a.params["target"]) for a in g.legal_actions())
    assert targets == [(0, 0), (1, 0), (1, 1), (2, 0)]  # not its own other pawn, not a Monster
    with pytest.raises(IllegalAction, match="not already a Monster"):
        act(g, "place_monster", 0, target=[2, 1])
    with pytest.raises(IllegalAction, match="not already a Monster"):
        act(g, "place_monster", 0, target=[0, 1])
    act(g, "place_monster", 0, target=[1, 1])
    assert g.s.pawns[1][1].monster == "monster-mummy"
    assert g.phase == "after_move"
    assert g.public_view()["players"][1]["pawns"][1]["monster_card"]["id"] == "monster-mummy"


def test_monster_reversal_sends_the_monster_back() -> None:
    # Rulebook, "Monster Reversal Card": "put the Monster card on your opponent's Pawn card.
    # Your opponent's pawn then becomes the Monster!"
    g = new_game()
    give(g, 1, 0, "reversal-2")
    draw_on_g(g, "monster-zombie")
    events = act(g, "place_monster", 0, target=[1, 0])
    assert types_of(events) == ["monster_reversed", "monster_placed"]
    assert g.s.pawns[1][0].monster is None and g.s.pawns[1][0].cards == []
    assert g.s.pawns[0][0].monster == "monster-zombie"
    assert "reversal-2" in g.s.discard


def test_the_drawer_can_always_take_its_own_monster_card() -> None:
    g = new_game()
    make_monster(g, 1, 0, "monster-bat")
    make_monster(g, 1, 1, "monster-blob")
    put(g, 0, 0, [0, 1])
    g.s.pawns[0][0].monster = None
    # Only the drawer itself remains a legal target, so a choice is still offered.
    draw_on_g(g, "monster-mummy")
    assert [a.params["target"] for a in g.legal_actions()] == [[0, 0]]


def test_the_cure_all_card_cures_every_monster() -> None:
    # Rulebook, "What to Do When You're a Monster": "a special Play Now! card which will cure all pawns".
    g = new_game(players=3)
    make_monster(g, 1, 0, "monster-bat")
    make_monster(g, 2, 1, "monster-blob")
    events = draw_on_g(g, "cure-all-1")
    assert types_of(events).count("cured") == 2
    assert all(p.monster is None for row in g.s.pawns for p in row)
    assert {"monster-bat", "monster-blob", "cure-all-1"} <= set(g.s.discard)
    assert g.phase == "after_move"


# ----- Monster rules ---------------------------------------------------------------------------
def test_a_monster_pawn_draws_no_card_on_g() -> None:
    # Rulebook, "Monster Rules": "If your Monster pawn lands there, you cannot draw any cards."
    g = new_game()
    make_monster(g, 0, 0)
    before = list(g.s.draw)
    events = draw_on_g(g, "ring-1")
    assert "no_draw" in types_of(events) and "card_drawn" not in types_of(events)
    assert g.s.draw[-1] == "ring-1" and len(g.s.draw) == len(before)


def test_a_monster_pawn_moves_and_is_affected_like_any_pawn() -> None:
    # Rulebook, "Monster Rules": "Monster pawns are moved like regular pawns." / "All spaces affect a Monster pawn".
    g = new_game()
    make_monster(g, 0, 0)
    put(g, 0, 0, [2, 1])
    phase(g, 0, "move", 2, "wolf")
    act(g, "move_pawn", 0, pawn=0, to=[3, 2], path=[[2, 2], [3, 2]])
    assert pos(g, 0, 0) == [6, 2]


def test_a_monster_pawn_may_play_its_saved_cards() -> None:
    # Rulebook, "Monster Rules": "You may play any cards saved by your Monster pawn."
    g = new_game()
    make_monster(g, 0, 0)
    give(g, 0, 0, "extra-turn-1")
    phase(g, 0, "roll")
    act(g, "play_card", 0, card="extra-turn-1")
    assert g.s.extra_turns == 1


def test_a_monster_pawn_cannot_destroy_the_ghost() -> None:
    # Rulebook, "Monster Rules": "A Monster pawn cannot destroy the Headless Ghost -- even if it has a Magic Ring".
    g = new_game()
    put(g, 0, 0, [0, 8])
    give(g, 0, 0, "ring-1")
    make_monster(g, 0, 0)
    phase(g, 0, "move", 3, "wolf")
    with pytest.raises(IllegalAction, match="Monster pawn cannot destroy"):
        act(g, "attempt_skull", 0, pawn=0)


# ----- card timing -----------------------------------------------------------------------------------
def test_now_or_later_cards_any_time_in_your_own_turn_only() -> None:
    # Rulebook, "Goosebumps Cards": "You can play as many cards as you wish on your turn -- and at anytime during your
    # turn".
    g = new_game()
    give(g, 0, 0, "extra-turn-1")
    give(g, 0, 1, "extra-turn-2")
    give(g, 1, 0, "extra-turn-3")
    for name in ("roll", "tomb", "move", "after_move"):
        phase(g, 0, name, 2, "wolf")
        assert {a.params["card"] for a in g.legal_actions() if a.kind == "play_card"} == {"extra-turn-1",
                                                                                          "extra-turn-2"}
    phase(g, 0, "tomb", 2, "wolf")
    act(g, "play_card", 0, card="extra-turn-1")
    act(g, "play_card", 0, card="extra-turn-2")  # as many as you wish
    assert g.s.extra_turns == 2
    with pytest.raises(IllegalAction, match="only be played on your own turn"):
        act(g, "play_card", 1, card="extra-turn-3")


def test_the_anytime_card_works_on_another_players_turn() -> None:
    # Rulebook, "4. Play Anytime! Card": "You can use it anytime at all -- even on someone else's turn!"
    g = new_game()
    give(g, 1, 0, "anytime-breeze")
    put(g, 1, 1, [2, 2])  # on the gold Danger space: the Wolf was just rolled
    phase(g, 0, "tomb", 3, "wolf")
    anytime = [a for a in g.legal_actions() if a.player == 1]
    assert anytime and all(a.kind == "play_card" for a in anytime)
    events = act(g, "play_card", 1, card="anytime-breeze", target=[1, 1], to=[2, 1])
    assert types_of(events)[:2] == ["card_played", "pawn_moved"]
    act(g, "move_tomb", 0, tomb="wolf", to="end_a")
    assert pos(g, 1, 1) == [2, 1]  # escaped the pit
    assert g.phase == "move" and g.current_player == 0


def test_play_later_cards_are_never_played_as_actions() -> None:
    # Rulebook, "2. Play Later! Cards": "save it to play later" (rings are shown at the Crypt, reversals react).
    g = new_game()
    give(g, 0, 0, "ring-1")
    give(g, 0, 0, "reversal-1")
    phase(g, 0, "move", 2, "wolf")
    for card in ("ring-1", "reversal-1"):
        with pytest.raises(IllegalAction, match="Play Later!"):
            act(g, "play_card", 0, card=card)


def test_now_or_later_cards_wait_while_a_choice_is_pending() -> None:
    g = new_game()
    give(g, 0, 1, "extra-turn-1")
    draw_on_g(g, "monster-bat")
    assert {a.kind for a in g.legal_actions()} == {"place_monster"}
    with pytest.raises(IllegalAction, match="wait until the drawn card"):
        act(g, "play_card", 0, card="extra-turn-1")


# ----- cards belong to pawns --------------------------------------------------------------------
def test_a_ring_under_one_pawn_cannot_serve_the_other() -> None:
    # Rulebook, "Magic Ring Cards": "You cannot play a Magic Ring card that is saved under one
    # of your pawns for your other pawn."
    g = new_game()
    give(g, 0, 0, "ring-1")
    put(g, 0, 1, [0, 8])
    phase(g, 0, "move", 2, "wolf")
    with pytest.raises(IllegalAction, match="holds no Magic Ring"):
        act(g, "attempt_skull", 0, pawn=1)
    assert not [a for a in g.legal_actions() if a.kind == "attempt_skull"]


def test_a_card_names_a_card_the_seat_holds() -> None:
    g = new_game()
    phase(g, 0, "move", 2, "wolf")
    give(g, 1, 0, "switch-1")
    with pytest.raises(IllegalAction, match="there is no such card in this game"):
        act(g, "play_card", 0, card="joker")
    with pytest.raises(IllegalAction, match="none of Ann's pawns holds Body Swap"):
        act(g, "play_card", 0, card="switch-1", target=[1, 0])


# ----- the Now or Later! effects ---------------------------------------------------------------
def test_steal_a_ring() -> None:
    # Rulebook, "Beware!": "an opponent could steal your Magic Ring card".
    g = new_game()
    give(g, 1, 1, "ring-4")
    give(g, 0, 0, "steal-ring-1")
    give(g, 0, 1, "steal-ring-2")
    phase(g, 0, "roll")
    events = act(g, "play_card", 0, card="steal-ring-1", target=[1, 1])
    stolen = events[-1]
    assert stolen.type == "ring_stolen" and stolen.private_to == 0 and stolen.secret["card"]["id"] == "ring-4"
    assert "card" not in stolen.data
    assert g.s.pawns[0][0].cards == ["ring-4"] and g.s.pawns[1][1].cards == []
    assert types_of(act(g, "play_card", 0, card="steal-ring-2", target=[1, 1]))[-1] == "steal_failed"
    with pytest.raises(IllegalAction):
        act(g, "play_card", 0, card="steal-ring-1", target=[0, 1])


def test_move_any_pawn_with_a_card() -> None:
    # Rulebook, "Beware!": "an opponent could ... move your pawn".
    g = new_game()
    give(g, 0, 0, "move-pawn-3")  # exactly 3 spaces
    put(g, 1, 0, [6, 1])
    phase(g, 0, "roll")
    choices = {tuple(a.params["to"]) for a in g.legal_actions() if a.params.get("target") == [1, 0]}
    assert (6, 0) in choices and (7, 0) not in choices and (6, 1) not in choices
    with pytest.raises(IllegalAction, match="no legal move of exactly 3"):
        act(g, "play_card", 0, card="move-pawn-3", target=[1, 0], to=[7, 0])
    act(g, "play_card", 0, card="move-pawn-3", target=[1, 0], to=[6, 0])
    assert pos(g, 1, 0) == [6, 0] and "move-pawn-3" in g.s.discard


def test_a_card_move_onto_g_draws_only_for_your_own_pawn_on_your_turn() -> None:
    # Rulebook, "G" Space: "You can draw a card only on your turn if you move here by die roll count
    # or by card direction."
    g = new_game()
    give(g, 0, 0, "move-pawn-1")
    give(g, 0, 1, "move-pawn-2")
    put(g, 0, 0, [0, 4])
    put(g, 1, 0, [0, 4])
    phase(g, 0, "roll")
    events = act(g, "play_card", 0, card="move-pawn-1", target=[1, 0], to=[0, 6], path=[[0, 5], [0, 6]])
    assert "card_drawn" not in types_of(events)
    events = act(g, "play_card", 0, card="move-pawn-2", target=[0, 0], to=[0, 6])
    assert "card_drawn" in types_of(events)


def test_switch_places() -> None:
    # Rulebook, "Beware!": "an opponent could ... switch places with your pawn".
    g = new_game()
    give(g, 0, 1, "switch-2")
    put(g, 0, 1, [0, 0])
    put(g, 1, 0, [2, 1])
    phase(g, 0, "move", 2, "wolf")
    act(g, "play_card", 0, card="switch-2", target=[1, 0])
    assert pos(g, 0, 1) == [2, 1] and pos(g, 1, 0) == [0, 0]


def test_no_switching_off_a_skeleton_hand() -> None:
    g = new_game()
    give(g, 0, 1, "switch-2")
    put(g, 0, 1, [0, 0])
    put(g, 1, 0, [3, 1])  # Skeleton Hand
    phase(g, 0, "move", 2, "wolf")
    with pytest.raises(IllegalAction, match="cannot leave its space"):
        act(g, "play_card", 0, card="switch-2", target=[1, 0])


def test_extra_turn_gives_another_full_turn() -> None:
    g = new_game()
    give(g, 0, 0, "extra-turn-1")
    phase(g, 0, "move", 2, "wolf")
    act(g, "play_card", 0, card="extra-turn-1")
    events = act(g, "end_turn", 0)
    assert events[-1].data == {"seat": 0, "extra": True}
    assert g.current_player == 0 and g.phase == "roll" and g.s.extra_turns == 0
    act(g, "roll", 0)
    slide(g, 0)
    act(g, "end_turn", 0)
    assert g.current_player == 1


# ----- the draw pile ---------------------------------------------------------------------------
def test_an_empty_draw_pile_is_reshuffled_from_the_discards() -> None:
    # Rulebook, "Goosebumps Cards": "If you run out of cards in the draw pile, shuffle the discard pile
    # and start a new draw pile."
    g = new_game()
    g.s.discard, g.s.draw = g.s.draw, []
    put(g, 0, 0, [0, 1])
    phase(g, 0, "move", 1, "wolf")
    events = act(g, "move_pawn", 0, pawn=0, to=[0, 2])
    assert types_of(events)[1] == "reshuffled"
    assert g.s.discard == [] and card_total(g) == 36


def test_nothing_to_draw_when_every_card_is_held() -> None:
    g = new_game()
    for n, card in enumerate(list(g.s.draw)):
        give(g, 1, n % 2, card)
    put(g, 0, 0, [0, 1])
    phase(g, 0, "move", 1, "wolf")
    assert types_of(act(g, "move_pawn", 0, pawn=0, to=[0, 2]))[-1] == "deck_empty"


def test_any_other_card_may_be_played_on_a_monster() -> None:
    # Rulebook, "Monster Rules": "You cannot play a Monster card on a pawn that is already a Monster --
    # but you can play any other card on it."
    g = new_game()
    make_monster(g, 1, 0, "monster-bat")
    put(g, 1, 0, [0, 0])
    give(g, 1, 0, "ring-7")
    give(g, 0, 0, "steal-ring-3")
    give(g, 0, 1, "move-pawn-1")
    phase(g, 0, "roll")
    assert types_of(act(g, "play_card", 0, card="steal-ring-3", target=[1, 0]))[-1] == "ring_stolen"
    act(g, "play_card", 0, card="move-pawn-1", target=[1, 0], to=[0, 2], path=[[0, 1], [0, 2]])
    assert pos(g, 1, 0) == [0, 2] and g.s.pawns[1][0].monster == "monster-bat"


def test_a_played_card_is_read_aloud() -> None:
    # Rulebook, "3. Play Now or Later! Cards": "When you play it, read it aloud and follow its directions."
    g = new_game()
    give(g, 0, 0, "extra-turn-3")
    phase(g, 0, "roll")
    played = act(g, "play_card", 0, card="extra-turn-3")[0]
    assert played.type == "card_played" and played.private_to is None
    assert played.data["card"]["title"] == "Second Chance" and played.data["card"]["text"]
    assert g.s.discard[-1] == "extra-turn-3"


def test_a_choice_opened_by_a_card_before_rolling_returns_to_the_roll() -> None:
    # Cards may be played "at anytime during your turn", so a draw can happen before the dice.
    g = new_game()
    give(g, 0, 1, "move-pawn-2")
    put(g, 0, 0, [0, 4])
    on_top(g, "monster-pumpkin")
    phase(g, 0, "roll")
    act(g, "play_card", 0, card="move-pawn-2", target=[0, 0], to=[0, 6])
    assert g.phase == "choose"
    act(g, "place_monster", 0, target=[1, 1])
    assert g.phase == "roll" and g.s.pawns[1][1].monster == "monster-pumpkin"
    act(g, "roll", 0)
