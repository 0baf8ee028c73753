"""Choices at the keyboard: numbers for plain choices, letters for places on the board.

A game's text module turns each legal action into an :class:`Option`: the
words a person reads, and the board place the action leads to (if any). A
:class:`Menu` then gives every place a letter, drawn on the board, and every
other option a number (a letter too, once the board shows letters: one kind of
key a menu, so that a digit typed for a move is no choice at all). Long lists become a two-step choice: more places than
letters are first split into parts of the board, and a long numbered list into
groups, so a screen never lists dozens of lines. Several options at one place
(two pawns that can reach the same space) are settled by a second, numbered
step. Nothing here needs JSON, ids or coordinates.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field, replace
from typing import TypeVar

from controller.games import Action

LETTERS = "abcdefghijklmnopqrstuvwxyz"
MAX_NUMBERED = 12  # a numbered list longer than this is split into groups first

Place = Hashable
_H = TypeVar("_H", bound=Hashable)
Position = Callable[[Place], tuple[float, float]]  # (row, column) of a place, to sort and split


@dataclass(frozen=True)
class Option:
    """One thing the player may do, in words."""

    action: Action
    label: str  # the choice in words, e.g. "Roll both dice" or "girl pawn (1g)"
    place: Place | None = None  # where on the board it leads (it then gets a letter)
    group: str | None = None  # for a long numbered list: the first step's heading
    bundle: str | None = None  # listed as one numbered entry first (e.g. "Place your Whammy")
    at: str | None = None  # the words for its letter, when several options share a place


@dataclass
class Entry:
    """One line of a menu: its key (a number or letter), its words and what it leads to."""

    key: str
    label: str
    options: list[Option]
    # How several options under one entry are chosen: "place" (same place: a numbered
    # second step) or "part" (a part of the board or a group: its own menu).
    split: str = "place"


@dataclass
class Menu:
    title: str
    entries: list[Entry] = field(default_factory=list)
    marks: dict[Place, str] = field(default_factory=dict)  # place -> its letter on the board

    def find(self, key: str) -> Entry | None:
        key = key.strip().lower()
        return next((e for e in self.entries if e.key == key), None)

    def keys(self) -> list[str]:
        """In the order the lines list them: the board's letters first."""
        marked = set(self.marks.values())
        return [e.key for e in self.entries if e.key in marked] + [e.key for e in self.entries if e.key not in marked]

    def options(self) -> list[Option]:
        return [o for e in self.entries for o in e.options]

    def lines(self) -> list[str]:
        # The board's choices first: on a turn with moves, moving is what a player came to do.
        out = [self.title]
        lettered = [e for e in self.entries if e.key in self.marks.values()]
        others = [e for e in self.entries if e.key not in self.marks.values()]
        if lettered:
            labels = {e.label for e in lettered}
            if len(lettered) > 1 and len(labels) == 1:
                out.append(f"  Letters on the board, {lettered[0].key} to {lettered[-1].key}: {labels.pop()}")
            else:
                out.append("  Type the letter shown on the board:")
                for e in lettered:
                    out.append(f"    {e.key:<2} {e.label}")
            if others:
                out.append("  Or:")
        for e in others:
            out.append(f"  {e.key:>3}. {e.label}")
        return out


def letter_keys(count: int, width: int) -> list[str]:
    """``a``..``z``, or two letters (``aa``, ``ab``...) when there are more places and room to draw them."""
    if count <= len(LETTERS) or width < 2:
        return list(LETTERS[:count])
    return [a + b for a in LETTERS for b in LETTERS][:count]


def build(title: str, options: Sequence[Option], position: Position, mark_width: int = 1,
          unbundle: bool = False) -> Menu:
    """The first step for ``options``: letters for places, numbers for the rest."""
    if unbundle:
        options = [replace(o, bundle=None) for o in options]
    capacity = len(LETTERS) ** mark_width if mark_width > 1 else len(LETTERS)
    bundles: dict[str, list[Option]] = {}
    for o in options:
        if o.bundle is not None:
            bundles.setdefault(o.bundle, []).append(o)
    placed = [o for o in options if o.place is not None and o.bundle is None]
    plain = [o for o in options if o.place is None and o.bundle is None]
    menu = Menu(title)
    n = 0

    def add(label: str, members: list[Option], split: str) -> None:
        nonlocal n
        n += 1
        menu.entries.append(Entry(str(n), label, members, split))

    for name, members in bundles.items():
        places = _distinct([o.place for o in members if o.place is not None])
        if len(places) <= len(LETTERS):
            add(f"{name} ({len(places) or len(members)} {'places' if places else 'choices'})", members, "part")
        else:
            # Straight to a part of the board, so the letter is the second and last step.
            for part_name, part in split_places(places, position):
                add(f"{name}: a place in {part_name} ({len(part)} places)",
                    [o for o in members if o.place in part], "part")
    places = _distinct([o.place for o in placed])
    if len(places) > capacity:
        # Too many places for one set of letters: choose a part of the board first.
        for part_name, part in split_places(places, position):
            add(f"a place in {part_name} ({len(part)} places)", [o for o in placed if o.place in part], "part")
        placed = []
    if len(plain) > MAX_NUMBERED:
        groups: dict[str, list[Option]] = {}
        for o in plain:
            groups.setdefault(o.group or "other choices", []).append(o)
        for name, members in groups.items():
            if len(members) == 1:
                add(members[0].label, members, "place")
            else:
                add(f"{name} ({len(members)} choices)", members, "part")
    else:
        for o in plain:
            add(o.label, [o], "place")
    if placed:
        ordered = sorted(_distinct([o.place for o in placed]), key=position)
        # Not strict: past the keys there are (a narrow board, hundreds of places) the rest go unmarked.
        for key, place in zip(letter_keys(len(ordered), mark_width), ordered, strict=False):
            here = [o for o in placed if o.place == place]
            menu.marks[place] = key
            menu.entries.append(Entry(key, " / ".join(_distinct([o.at or o.label for o in here])), here))
    _letters_for_all(menu)
    return menu


def _letters_for_all(menu: Menu) -> None:
    """On a menu with letters on the board, the other choices take the next letters, not numbers.

    A board of lettered moves with one numbered choice ("1. End your turn without moving") made a typed "1"
    skip the turn: with one kind of key, a digit is simply not a choice.
    """
    used = set(menu.marks.values())
    if not used or any(len(k) > 1 for k in used):
        return
    free = [c for c in LETTERS if c not in used]
    numbered = [e for e in menu.entries if e.key not in used]
    if len(numbered) > len(free):
        return
    for e, key in zip(numbered, free, strict=False):
        e.key = key


def second_step(entry: Entry, position: Position, mark_width: int = 1) -> Menu:
    """What follows an entry that holds more than one option."""
    if entry.split == "part":
        return build(f"{entry.label[:1].upper()}{entry.label[1:]}:", entry.options, position, mark_width,
                     unbundle=True)
    menu = Menu("Which one?")
    for n, o in enumerate(entry.options, 1):
        menu.entries.append(Entry(str(n), o.label, [o]))
    return menu


def split_places(places: Sequence[Place], position: Position) -> list[tuple[str, list[Place]]]:
    """Places in parts of the board (quarters, then halves of a quarter), each short enough for letters."""
    rows = sorted(position(p)[0] for p in places)
    cols = sorted(position(p)[1] for p in places)
    mid_r, mid_c = rows[len(rows) // 2], cols[len(cols) // 2]
    quarters: dict[str, list[Place]] = {}
    for p in places:
        r, c = position(p)
        name = ("the top" if r < mid_r else "the bottom") + (" left" if c < mid_c else " right")
        quarters.setdefault(name, []).append(p)
    out: list[tuple[str, list[Place]]] = []
    for name in ("the top left", "the top right", "the bottom left", "the bottom right"):
        part = sorted(quarters.get(name, []), key=position)
        if not part:
            continue
        chunks = [part[i : i + len(LETTERS)] for i in range(0, len(part), len(LETTERS))]
        # Chunks of about equal size, each short enough for single letters.
        size = -(-len(part) // len(chunks))
        chunks = [part[i : i + size] for i in range(0, len(part), size)]
        if len(chunks) == 1:
            out.append((name, part))
        else:
            out += [(f"{name} (part {i} of {len(chunks)})", chunk) for i, chunk in enumerate(chunks, 1)]
    return out


def _distinct(items: Sequence[_H]) -> list[_H]:
    seen: dict[_H, None] = {}
    for item in items:
        seen.setdefault(item, None)
    return list(seen)
