"""The history reads like the live log: every step and every line of the readable export, in words.

A game night found the step list saying "sensor: the Wolf tomb is end_a", "new game of terror for Ann, Bo,
Cy", "command: Ann: ..." and "referee marks tomb.wolf broken", and the export printing event names, seat
numbers and coordinates (``pawn_moved (... from=[8, 0] ...)``). Three whole games, one per game, are played
through the referee; no step text and no export line may hold an id, a snake_case name or a coordinate.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from controller.referee.history import History
from controller.referee.live_gm import game_master
from controller.store.journal import Journal
from tests.controller.referee.test_fakegame import make_referee
from tests.web_panel.pages.test_e2e_games import GAMES
from tests.web_panel.support.browser import RAW_ID
from tests.web_panel.support.e2e_driver import find_game

# What a person never reads: the panel's own check (ids, snake_case, seat numbers, coordinates), plus a
# coordinate in brackets and "key=value" as the old export printed them.
MACHINE = re.compile(RAW_ID.pattern + r"|\[-?\d+, ?-?\d+\]|\b\w+=")


@pytest.mark.parametrize("name", list(GAMES))
def test_every_step_and_export_line_of_a_whole_game_is_in_words(tmp_path: Path, name: str) -> None:
    policy, _, house_rules, limit, want, preferred = GAMES[name]
    options = dict(house_rules or {})
    seed, actions = find_game(name, options, policy, limit, want, seeds=[*preferred, *range(3000)], token="tok")
    ref = make_referee(tmp_path, settings={"referee.board": "manual"})
    assert ref.new_game(name, ["Ann", "Bo"], seed=seed, options=options or None).ok
    taken_back = False
    for action in actions:
        out = ref.act(action)
        assert out.ok, (action, out.error)
        if not taken_back and ref.state()["gm"]["undo"]["steps"]:
            assert game_master(ref, "undo", {"reason": "a slip"}).ok
            assert ref.act(action).ok
            taken_back = True
    if name == "terror":
        assert game_master(ref, "broken", {"sensor": "tomb.wolf", "reason": "a loose wire"}).ok
    assert ref.game is not None and ref.game.is_over
    ref.journal.close()

    with Journal(tmp_path / "t1.journal", table="t1", create=False) as journal:
        history = History()
        (game,) = history.games(journal)
        steps = history.steps(journal, game["game_id"])["steps"]
        export = history.export(journal, game["game_id"], "text")["content"]
    texts = [s["text"] for s in steps]
    assert texts[0] == f"A new game of {game['title']} for Ann and Bo"
    bad = [t for t in texts if MACHINE.search(t)]
    assert not bad, f"step texts with machine words: {bad[:5]}"
    lines = export.splitlines()[1:]  # the first line is the title and the players
    bad = [line for line in lines if MACHINE.search(line.split("  ", 2)[-1])]  # past the step number and time
    assert not bad, f"export lines with machine words: {bad[:5]}"
    assert len(lines) > len(steps)  # the events are there, one line each
