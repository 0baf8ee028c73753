"""Terror: a pawn moved onto a "G" by a Cold Breeze draws, also while a Monster card waits or the skull drops.

Rulebook, "G" Space: "Draw a Goosebumps card ... only on your turn ... if you are moved there by your card or
an opponent's card". The Play Anytime! Cold Breeze may be played at any moment, so the current player's pawn
can be pushed onto a "G" while their drawn Monster card waits for its target, or while their skull drops.
A Monster card drawn then waits its turn: its target is chosen once the first choice is made (or the skull's
result is in), so no choice ever opens inside another.
"""

from __future__ import annotations

from controller.games.terror import Terror
from tests.controller.games.terror.support import act, give, new_game, on_top, phase, pos, put, types_of

G_BESIDE = [7, 3]  # a "G" one space from [8, 3]


def _monster_waits(second: str) -> Terror:
    """Ann's girl steps onto a "G" and draws the Bat (choose); Bo's Cold Breeze then pushes Ann's boy onto a
    "G" while the Bat waits; the next card is ``second``."""
    g = new_game()
    give(g, 1, 0, "anytime-breeze")
    put(g, 0, 0, [0, 1])
    put(g, 0, 1, [8, 3])
    put(g, 1, 0, [5, 0])
    on_top(g, second)
    on_top(g, "monster-bat")
    phase(g, 0, "move", 1, "wolf")
    act(g, "move_pawn", 0, pawn=0, to=[0, 2])
    assert g.phase == "choose"
    return g


def test_a_cold_breeze_onto_a_g_while_a_monster_card_waits_draws_a_card() -> None:
    g = _monster_waits("ring-2")
    events = act(g, "play_card", 1, card="anytime-breeze", target=[0, 1], to=G_BESIDE)
    assert pos(g, 0, 1) == G_BESIDE
    assert "card_drawn" in types_of(events)
    assert "ring-2" in g.s.pawns[0][1].cards  # the boy drew; the Bat still waits for its target
    assert g.phase == "choose" and g.s.pending is not None and g.s.pending["card"] == "monster-bat"
    Terror.from_json(g.to_json())  # every card is still exactly once in the state


def test_a_monster_card_drawn_while_another_waits_gets_its_target_after_the_first() -> None:
    g = _monster_waits("monster-werewolf")
    act(g, "play_card", 1, card="anytime-breeze", target=[0, 1], to=G_BESIDE)
    assert g.s.pending is not None and g.s.pending["card"] == "monster-bat"  # one choice at a time
    saved = Terror.from_json(g.to_json())  # a game saved with a card waiting loads as it was
    assert saved.to_json() == g.to_json()
    act(g, "place_monster", 0, target=[1, 0])
    assert g.s.pawns[1][0].monster == "monster-bat"
    # Now the Werewolf, drawn by the boy, waits for its target.
    assert g.phase == "choose" and g.s.pending is not None
    assert (g.s.pending["card"], g.s.pending["pawn"]) == ("monster-werewolf", 1)
    targets = {tuple(a.params["target"]) for a in g.legal_actions() if a.kind == "place_monster"}
    assert (0, 1) in targets and (1, 0) not in targets  # a Monster already is no target
    act(g, "place_monster", 0, target=[1, 1])
    assert g.s.pawns[1][1].monster == "monster-werewolf" and g.phase == "after_move"


def _skull_drops() -> Terror:
    g = new_game()
    give(g, 0, 0, "ring-1")
    give(g, 1, 1, "anytime-breeze")
    put(g, 0, 0, [0, 8])
    put(g, 0, 1, [8, 3])
    put(g, 1, 1, [0, 5])
    phase(g, 0, "move", 3, "wolf")
    act(g, "attempt_skull", 0, pawn=0)
    assert g.phase == "skull"
    return g


def test_a_cold_breeze_onto_a_g_while_the_skull_drops_draws_a_card() -> None:
    g = _skull_drops()
    on_top(g, "ring-2")
    events = act(g, "play_card", 1, card="anytime-breeze", target=[0, 1], to=G_BESIDE)
    assert "card_drawn" in types_of(events) and "ring-2" in g.s.pawns[0][1].cards
    assert g.phase == "skull"  # the drop's result is still awaited


def test_a_monster_card_drawn_while_the_skull_drops_gets_its_target_after_a_miss() -> None:
    g = _skull_drops()
    on_top(g, "monster-zombie")
    act(g, "play_card", 1, card="anytime-breeze", target=[0, 1], to=G_BESIDE)
    assert g.phase == "skull" and g.s.pending is None
    events = act(g, "skull_outcome", 0, hit=False)
    assert types_of(events) == ["skull_missed"]
    assert g.phase == "choose" and g.s.pending is not None and g.s.pending["card"] == "monster-zombie"
    act(g, "place_monster", 0, target=[1, 1])
    assert g.s.pawns[1][1].monster == "monster-zombie" and g.phase == "after_move"


def test_a_monster_card_drawn_while_the_winning_skull_drops_goes_to_the_discard_pile() -> None:
    g = _skull_drops()
    on_top(g, "monster-zombie")
    act(g, "play_card", 1, card="anytime-breeze", target=[0, 1], to=G_BESIDE)
    act(g, "skull_outcome", 0, hit=True)
    assert g.phase == "over" and "monster-zombie" in g.s.discard
    Terror.from_json(g.to_json())


def test_an_opponents_pawn_pushed_onto_a_g_still_draws_nothing() -> None:
    # "only on your turn": Bo's own pawn, moved onto a "G" during Ann's skull drop, draws no card.
    g = _skull_drops()
    put(g, 1, 1, [8, 3])
    before = len(g.s.draw)
    act(g, "play_card", 1, card="anytime-breeze", target=[1, 1], to=G_BESIDE)
    assert len(g.s.draw) == before and g.s.pawns[1][1].cards == []


# ----- what is missing, said: a pawn on the Crypt platform with no skull drop to offer --------------------
def test_a_pawn_on_the_crypt_without_a_ring_is_told_why_in_its_own_view_only() -> None:
    g = new_game()
    put(g, 0, 0, [0, 8])
    phase(g, 0, "move", 3, "wolf")
    assert not [a for a in g.legal_actions() if a.kind == "attempt_skull"]
    (note,) = g.player_view(0)["you"]["notes"]
    assert note.startswith("Your girl is on the Crypt platform: you need a Magic Ring")
    assert g.player_view(1)["you"]["notes"] == [] and "notes" not in g.public_view()
    give(g, 0, 0, "ring-1")
    assert g.player_view(0)["you"]["notes"] == []  # with the ring the drop is offered instead
    assert [a for a in g.legal_actions() if a.kind == "attempt_skull"]
