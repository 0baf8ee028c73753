"""A game on an owner's board keeps that board: editing the file changes no game in progress, even after a restart."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from tests.controller.referee.test_fakegame import make_referee
from web_panel.boards_store import KINDS, BoardStore


def _terror(doc: dict[str, Any]) -> dict[str, Any]:
    doc["layout"][8] = doc["layout"][8][:3] + "#" + doc["layout"][8][4:]
    return doc


def _superstition(doc: dict[str, Any]) -> dict[str, Any]:
    doc["platforms"]["ladder"]["brick_entrance"] = "b9"
    return doc


def _dogs(doc: dict[str, Any]) -> dict[str, Any]:
    for tile in doc["tiles"]:
        tile["name"] = "Ours " + tile["id"]
    return doc


@pytest.mark.parametrize("key, game, edit", [("terror-board", "terror", _terror),
                                             ("superstition-board", "superstition", _superstition),
                                             ("dogs-tiles", "dogs", _dogs)])
def test_edits_never_reach_a_game_in_progress(tmp_path: Path, key: str, game: str, edit: Any) -> None:
    store = BoardStore(tmp_path / "boards")
    kind = KINDS[key]
    default = json.loads(kind.default_file.read_text())
    store.save(kind, "ours", edit(copy.deepcopy(default)))
    ref = make_referee(tmp_path, settings={"referee.board": "manual"})
    out = ref.new_game(game, ["Ann", "Bo"], seed=7, options=store.new_game_options(game, {key: "ours"}))
    assert out.ok, out.error
    started = ref.state()["view"]
    on_default = make_referee(tmp_path / "other", settings={"referee.board": "manual"})
    assert on_default.new_game(game, ["Ann", "Bo"], seed=7).ok
    assert on_default.state()["view"] != started  # the owner's board is the one in play

    store.save(kind, "ours", default)  # the owner edits the file back while the game goes on
    assert ref.state()["view"] == started
    ref.journal.close()
    again = make_referee(tmp_path, settings={"referee.board": "manual"})  # a restart replays the journal
    assert again.state()["view"] == started
    assert again.new_game(game, ["Ann", "Bo"], seed=7, options=store.new_game_options(game, {key: "ours"})).ok
    # A new game picks up the edited file (the dogs' view also lists its options: the tiles document itself).
    def board_of(view: dict[str, Any]) -> dict[str, Any]:
        return {k: v for k, v in view.items() if k != "options"}

    assert board_of(again.state()["view"]) == board_of(on_default.state()["view"])


def test_a_game_on_an_edited_card_mix_draws_from_it(tmp_path: Path) -> None:
    """A mix of cards the default deck lacks (from the editor's catalogue), saved and chosen for a new game:
    the table's game deals from that mix and nothing else."""
    from controller.games.terror import catalogue, load_deck

    default_ids = set(load_deck().ids)
    extras = [e["card"] for e in catalogue() if e["card"]["id"] not in default_ids]
    assert extras, "the catalogue offers no card beyond the default deck's"
    ring = next(e["card"] for e in catalogue() if e["card"]["effect"] == "ring")
    cards = [dict(card, id=f"{card['id']}-{n + 1}") for card in extras for n in range(5)] + [ring]
    store = BoardStore(tmp_path / "boards")
    store.save(KINDS["terror-cards"], "odd mix", {"name": "odd mix", "cards": cards})
    ref = make_referee(tmp_path, settings={"referee.board": "manual"})
    out = ref.new_game("terror", ["Ann", "Bo"], seed=3,
                       options=store.new_game_options("terror", {"terror-cards": "odd mix"}))
    assert out.ok, out.error
    game: Any = ref.game
    mix = {c["id"] for c in cards}
    assert set(game.s.draw) == mix and ref.state()["view"]["draw_count"] == len(cards)
    drawn: list[str] = []
    for _ in range(600):  # first legal action each time: rolls, slides and moves until a G space deals a card
        before = set(game.s.draw)
        assert ref.act(game.legal_actions()[0]).ok
        game = ref.game
        drawn += sorted(before - set(game.s.draw))
        if len(drawn) >= 2:
            break
    assert drawn, "no card was drawn in 600 actions"
    assert set(drawn) <= mix and not set(drawn) & default_ids


def test_a_refused_board_file_tells_the_player_the_plain_reason_and_scripts_the_entry(tmp_path: Path) -> None:
    """A new game on a board the loader refuses: the error is the loader's plain reason (no ids), the
    data keeps its message naming the entry as the file spells it, and the game in progress goes on."""
    from tests.controller.games.board_cases import RAW, SUPERSTITION_CASES

    _, doc, entry_words, at = next(c for c in SUPERSTITION_CASES if c[0] == "no way onto the Ladder")
    ref = make_referee(tmp_path, settings={"referee.board": "manual"})
    assert ref.new_game("terror", ["Ann", "Bo"], seed=3).ok
    before, seq = ref.state(), ref.journal.last_seq()
    out = ref.new_game("superstition", ["Ann", "Bo"], seed=3, options={"board": doc})
    assert not out.ok
    assert out.error == ("There is no way onto the Ladder: it is entered from a brick space the path does "
                         "not have. It is brick space 40, past the end of the brick path, which has 32 spaces.")
    assert not RAW.search(out.error), out.error
    assert out.data is not None and entry_words in out.data["detail"] and out.data["at"] == at
    assert ref.state() == before and ref.journal.last_seq() == seq
