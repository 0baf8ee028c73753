"""A game on an owner's board keeps that board: editing the file changes no game in progress, even after a restart."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from tests.controller.test_referee_fakegame import make_referee
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
