"""The Superstition board as text (``controller/textplay/superstition.py``)."""

from __future__ import annotations

import json
from pathlib import Path

from controller.games import Event
from controller.games.superstition.board import DEFAULT_BOARD_PATH
from controller.textplay import superstition as text

from .test_superstition_helpers import begin, give, new_game, on_board, put, throw


def _line_with(rendered: str, needle: str) -> str:
    return next(line for line in rendered.splitlines() if needle in line)


def test_the_board_is_drawn_from_its_coordinates() -> None:
    game = new_game(2)
    rendered = text.render(game)
    lines = rendered.splitlines()
    # Top row: the nine brick spaces b12..b20; the start circles below the gate, last row of the board.
    assert lines[0] == "   ".join(["[ ]"] * 9)
    assert "<R>   <B>   < >   < >" in rendered
    ladder_row = _line_with(rendered, "{L}")
    assert "TMB" in ladder_row and "{M}" in ladder_row and ladder_row.count("[ ]") == 2
    drawing = rendered.split(text.LEGEND)[0]
    assert "{1}" in drawing and "{2}" in drawing and drawing.count("| |") == 2


def test_pawns_whammies_and_status_are_shown() -> None:
    game = new_game(3)
    begin(game, first=1)
    put(game, 0, "ladder", leg="in2")
    put(game, 2, "tomb.north", leg="tomb", target="grave2")
    give(game, 2, "the_raven", "hex_sign")
    on_board(game, "s5", "witching_hour")
    throw(game, 4)
    rendered = text.render(game)
    assert "{R}" in rendered and "|G|" in rendered and "<B>" in rendered and "(w)" in rendered
    assert "-> B Bob [blue] on start.blue" in rendered
    assert "G Cy [green] on tomb.north: Part II: at the tomb (has been to the Wizard's Tomb)" in rendered
    assert "holds a Whammy" not in rendered  # who still holds a Whammy is secret
    assert "Whammies: Witching Hour on s5" in rendered
    assert "Throw: 4 = 4" in rendered and "Phase: move" in rendered
    # Only public facts: nobody's tokens are named on the shared board.
    assert "Raven" not in rendered and "Hex" not in rendered


def test_private_line_names_only_that_seats_tokens() -> None:
    game = new_game(2)
    assert text.render_private(game, 0) == ""
    give(game, 0, "the_raven", "hex_sign")
    line = text.render_private(game, 0)
    assert line == "(only for Ann) your Whammy: The Raven; your Charm: Hex Sign (passes Witching Hour)"
    assert text.render_private(game, 1) == ""


def test_events_in_words() -> None:
    game = new_game(2)
    moved = Event("moved", {"player": 0, "from": "b1", "to": "b3", "path": ["b2", "b3"]})
    assert text.describe_event(game, moved) == "Ann moves b1 -> b3 via b2 b3"
    zapped = Event("challenge_resolved", {"player": 1, "trap": "grave2", "zapped": True, "to": "s12"})
    assert text.describe_event(game, zapped) == "the second Grave: ZAPPED! Bob goes to s12"
    assert text.describe_event(game, Event("something_new", {})) == ""


def test_an_owners_board_draws_too(tmp_path: Path) -> None:
    raw = json.loads(DEFAULT_BOARD_PATH.read_text())
    for space in raw["spaces"].values():
        space["x"] *= 2  # a wider printing
    path = tmp_path / "wide.json"
    path.write_text(json.dumps(raw))
    game = new_game(2, board=str(path))
    rendered = text.render(game)
    assert rendered.splitlines()[0].count("[ ]") == 9 and "{L}" in rendered
