"""Every check of the loaders behind the board editor: the message names the entry (for the file), the
reason says it in plain words (for the editor), and ``at`` points where the editor shows it."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest

from controller.games import BadGameData
from controller.games.dogs import parse_tiles
from controller.games.superstition import parse_board
from controller.games.terror import load_board, load_deck
from tests.controller.games.board_cases import ALL_CASES, RAW, Case

LOADERS = {
    "terror-board": load_board,
    "terror-cards": load_deck,
    "superstition-board": parse_board,
    "dogs-tiles": parse_tiles,
}


def _cases() -> list[Any]:
    return [pytest.param(kind, case, id=f"{kind}: {case[0]}") for kind, cases in ALL_CASES.items() for case in cases]


@pytest.mark.parametrize("kind, case", _cases())
def test_each_check_names_the_entry_and_says_it_plainly(kind: str, case: Case) -> None:
    _, doc, entry_words, at = case
    with pytest.raises(BadGameData) as caught:
        LOADERS[kind](doc)
    exc = caught.value
    if isinstance(doc, Mapping):  # the panel checks the top level's type itself (see the route test)
        assert entry_words in str(exc)
        if at is not None:
            assert exc.at == at
    assert exc.reason, f"no plain reason for: {exc}"
    assert not RAW.search(exc.reason), f"{exc.reason!r} shows {RAW.search(exc.reason).group(0)!r}"
    assert exc.reason[0].isupper() and exc.reason.endswith("."), exc.reason


def test_the_defaults_load() -> None:
    """The cases break one thing each in a file that is fine as it comes."""
    from tests.controller.games.board_cases import CARDS, SUPERSTITION, TERROR, TILES

    load_board(TERROR), load_deck(CARDS), parse_board(SUPERSTITION), parse_tiles(TILES)


def test_a_way_in_is_named_in_the_editor_s_numbers() -> None:
    """The editor numbers path spaces from 1: its refusal uses the same numbers, never the file's ids."""
    from tests.controller.games.board_cases import SUPERSTITION_CASES

    doc = next(c[1] for c in SUPERSTITION_CASES if c[0] == "no way onto the Ladder")
    with pytest.raises(BadGameData) as caught:
        parse_board(doc)
    assert caught.value.reason == ("There is no way onto the Ladder: it is entered from a brick space the path does "
                                   "not have. It is brick space 40, past the end of the brick path, which has 32 "
                                   "spaces.")


def test_pickled_errors_keep_their_reason() -> None:
    import pickle

    exc = BadGameData("board: x", at={"cell": [1, 2]}, reason="This space is wrong.")
    again = pickle.loads(pickle.dumps(exc))
    assert (str(again), again.at, again.reason, again.plain) == ("board: x", {"cell": [1, 2]}, "This space is wrong.",
                                                                 "This space is wrong.")
