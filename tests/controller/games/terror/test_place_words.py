"""A player told where a Terror space is finds that space, and only that one.

``place_words`` names a space by what is printed on it and the named places near it (never a row or
a column). Here the words are read back the way a player at the table reads them, with a reader of
the test's own that knows the board but not how the words were chosen: it finds every space the
words fit. On the default board, in every tomb configuration, no two spaces may share their words,
and the words of each space fit it alone, but for a known few that no named place tells apart.
"""

from __future__ import annotations

import re
from collections import defaultdict

from controller.games.terror.board import ALL_CONFIGS, TOMBS, Board, load_board
from controller.games.terror.words import kind_noun, place_words

NUMBERS = {w: n for n, w in enumerate(("no", "one", "two", "three", "four", "five", "six", "seven", "eight",
                                       "nine", "ten", "eleven", "twelve"))}

# Spaces whose words are their own but also fit one other space of their kind: both lie exactly as
# far from every named place, and neither is diagonally next to or in line with a place the other is
# not (the other's words add "in line with ..."; these have nothing that the other lacks).
# (tomb configuration, [row, column] of the space, [row, column] of the other space its words fit)
ALSO_FIT = {
    (18, (4, 1), (7, 4)),  # Mummy tomb at end A, Monster tomb at end A, Wolf tomb at end B
    (19, (5, 2), (7, 4)),  # Mummy tomb in the middle, Monster tomb at end A, Wolf tomb at end B
    (22, (5, 2), (7, 4)),  # Mummy tomb in the middle, Monster tomb in the middle, Wolf tomb at end B
    (25, (5, 2), (7, 4)),  # Mummy tomb in the middle, Monster tomb at end B, Wolf tomb at end B
}


def _places(board: Board, cfg: int) -> dict[str, int]:
    """The named places a player can point at, by their names, as the tombs stand in ``cfg``."""
    tombs = board.config_tombs(cfg)
    places = {"the Gate platform": board.gate, "the Entrance": board.entrance, "the Exit": board.exit,
              "the Crypt platform": board.crypt}
    for tomb in TOMBS:
        places[f"the {tomb.title()} tomb"] = board.platforms[tomb].track[tombs[tomb]]
    return places


def _platform_of(board: Board, index: int) -> str | None:
    return next((p.colour for p in board.platforms.values() if index in p.spaces), None)


def spaces_fitting(board: Board, cfg: int, words: str) -> list[int]:
    """Every space of ``cfg`` that ``words`` fit, read as a player reads them."""
    places = _places(board, cfg)
    types = board.types(cfg)
    if words in places:
        return [places[words]]
    if words.startswith("the pit under "):
        return [places[words.removeprefix("the pit under ")]]
    kinds = {k for k in types if k is not None}
    # The longest noun first: "red Danger space" before a shorter name it might begin with.
    kind = max((k for k in kinds if words.startswith(f"the {kind_noun(k)} ")), key=lambda k: len(str(kind_noun(k))))
    rest = words.removeprefix(f"the {kind_noun(kind)} ")
    on = re.match(r"on the (\w+) platform, ", rest)
    platform = on.group(1) if on else None
    rest = rest[on.end():] if on else rest
    def rc(i):
        return divmod(i, board.cols)

    def checks(clue: str) -> list[tuple[str, int, int]]:
        """A clue as (how, place, count): "next to", "diagonally next to", "in line with", or a count."""
        for how, pattern in (("diagonal", r"diagonally next to (.+)"), ("far", r"next to (.+)"),
                             ("in line", r"in line with (.+)")):
            m = re.fullmatch(pattern, clue)
            if m:
                return [(how, places[m.group(1)], 1)]
        m = re.fullmatch(r"(\w+)(?: spaces)? from (.+?)( in a straight line)?", clue)
        assert m, (words, clue)
        said = [("far", places[m.group(2)], NUMBERS[m.group(1)])]
        return said + ([("in line", places[m.group(2)], 0)] if m.group(3) else [])

    clues = [check for clue in re.split(r",? and |, ", rest) for check in checks(clue)]

    def fits(i: int, how: str, at: int, n: int) -> bool:
        (r, c), (pr, pc) = rc(i), rc(at)
        if how == "far":
            return abs(r - pr) + abs(c - pc) == n
        if how == "diagonal":
            return abs(r - pr) == 1 and abs(c - pc) == 1
        return i != at and (r == pr or c == pc)

    # "the grass space" with no platform said is one off the platforms; an arrow or a Danger space
    # is named by its colour, whichever platform carries it.
    own_colour = kind.startswith(("arrow-", "danger-"))
    return [i for i, t in enumerate(types) if t == kind
            and (own_colour and platform is None or _platform_of(board, i) == platform)
            and all(fits(i, *clue) for clue in clues)]


def test_no_two_spaces_of_a_configuration_share_their_words() -> None:
    board = load_board()
    shared = []
    for cfg in range(ALL_CONFIGS):
        by_words: dict[str, list[list[int]]] = defaultdict(list)
        for index, kind in enumerate(board.types(cfg)):
            if kind is not None:
                by_words[place_words(board, cfg, index)].append(board.rc(index))
        shared += [(cfg, words, spaces) for words, spaces in by_words.items() if len(spaces) > 1]
    assert shared == [], f"{len(shared)} wordings name more than one space, first: {shared[:3]}"


def test_the_words_of_a_space_fit_that_space_alone() -> None:
    board = load_board()
    also_fit = set()
    for cfg in range(ALL_CONFIGS):
        for index, kind in enumerate(board.types(cfg)):
            if kind is None:
                continue
            words = place_words(board, cfg, index)
            found = spaces_fitting(board, cfg, words)
            assert index in found, (cfg, board.rc(index), words, found)
            others = [tuple(board.rc(i)) for i in found if i != index]
            also_fit |= {(cfg, tuple(board.rc(index)), other) for other in others}
            assert " one from " not in words and " no spaces " not in words, words
    assert also_fit == ALSO_FIT


def test_spaces_alike_are_told_apart_in_plain_words() -> None:
    """The spaces that once shared their words, as they are said now (tombs all at end A)."""
    board = load_board()
    said = {rc: place_words(board, 0, board.cell(list(rc)))
            for rc in ((0, 5), (1, 6), (2, 7), (6, 1), (7, 2), (1, 0), (4, 1))}
    assert said == {
        (0, 5): "the grass space two spaces from the Exit, in line with the Crypt platform",
        (1, 6): "the grass space diagonally next to the Exit",
        (2, 7): "the grass space two spaces from the Exit, in line with the Wolf tomb",
        (6, 1): "the grass space next to the Mummy tomb and diagonally next to the Entrance",
        (7, 2): "the grass space next to the Mummy tomb and two spaces from the Entrance in a straight line",
        (1, 0): "the grass space three spaces from the Wolf tomb and six from the Entrance in a straight line",
        (4, 1): "the grass space three spaces from the Mummy tomb, three from the Wolf tomb, and three from the "
                "Monster tomb",
    }
    # A second place one step away is "next to" it, as the first is; a gold arrow on its own platform
    # is told from the gold arrow another platform carries.
    between = board.cell([3, 4])  # Monster tomb at end A, Wolf tomb at end B
    assert place_words(board, 20, between) == "the bushes next to the Monster tomb and next to the Wolf tomb"
    gold_arrow = board.cell([1, 3])  # Wolf tomb at end A, Monster tomb in the middle
    assert place_words(board, 3, gold_arrow) == "the gold arrow two spaces from the Wolf tomb and five from the Exit"
