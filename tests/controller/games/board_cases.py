"""One broken document for every check of the loaders behind the board editor, per kind of file.

Each case is (name, the document, a piece of the technical message that names the entry, where the
editor should show it). Shared by the loaders' own test and the panel's route test, so the words that
reach the editor are those the loaders wrote.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Callable
from typing import Any

from controller.games.dogs import DEFAULT_TILES_PATH
from controller.games.superstition import DEFAULT_BOARD_PATH as SUPERSTITION_BOARD
from controller.games.terror import DEFAULT_BOARD, DEFAULT_CARDS

TERROR = json.loads(DEFAULT_BOARD.read_text())
CARDS = json.loads(DEFAULT_CARDS.read_text())
SUPERSTITION = json.loads(SUPERSTITION_BOARD.read_text())
TILES = json.loads(DEFAULT_TILES_PATH.read_text())

# What a person must never read: the file's ids (b39, s4, grave1, tomb.north), coordinates ([6, 3], row 3),
# snake_case keys (brick_entrance, end_a), the types as the file spells them (danger-red), quoted file values.
RAW = re.compile(r"\b[bs]\d+\b|\[\s*-?\d+\s*,\s*-?\d+\s*\]|\(-?\d+, ?-?\d+\)|\btomb\.\w|\bgrave\d\b|"
                 r"\brows? \d|\bcolumns? \d|\b\d+(?:st|nd|rd|th) (?:row|column)\b|"
                 r"\b[a-z]+_[a-z_]+\b|\b(?:arrow|danger)-[a-z]+\b|'[^']*'|\[\d+\]|\bcards\b\[")

Case = tuple[str, Any, str, dict[str, Any] | None]


def _edit(base: Any, change: Callable[[Any], Any]) -> Any:
    doc = copy.deepcopy(base)
    change(doc)  # in place; what it returns (a popped value, say) is not the document
    return doc


def _set_row(doc: dict[str, Any], r: int, c: int, ch: str) -> None:
    doc["layout"][r] = doc["layout"][r][:c] + ch + doc["layout"][r][c + 1:]


def _p(doc: dict[str, Any], n: int = 0) -> dict[str, Any]:
    return doc["platforms"][n]


def _purple_to_red(doc: dict[str, Any]) -> None:
    p = _p(doc, 1)
    p["colour"] = "red"
    for s in p["spaces"]:
        for pos in ("end_a", "middle", "end_b"):
            if s[pos] == "danger-purple":
                s[pos] = "danger-red"


def _cell(rc: list[int], tombs: dict[str, str] | None = None) -> dict[str, Any]:
    return {"cell": rc, **({"tombs": tombs} if tombs else {})}


TERROR_CASES: list[Case] = [
    ("not an object", [], "must be a JSON object", None),
    ("unknown key", _edit(TERROR, lambda d: d.update(extra=1)), "unknown key(s) extra", None),
    ("no layout", _edit(TERROR, lambda d: d.pop("layout")), "layout must be", None),
    ("ragged row", _edit(TERROR, lambda d: d["layout"].__setitem__(3, d["layout"][3][:-1])), "layout[3] has 8", None),
    ("unknown mark", _edit(TERROR, lambda d: _set_row(d, 0, 0, "?")), "layout[0][0]", _cell([0, 0])),
    ("two gates", _edit(TERROR, lambda d: _set_row(d, 0, 0, "S")), "exactly one gate", None),
    ("gate far from the entrance", _edit(TERROR, lambda d: (_set_row(d, 8, 0, "."), _set_row(d, 8, 8, "S"))[-1]),
     "must be next to the Entrance", _cell([8, 8])),
    ("crypt touching a space", _edit(TERROR, lambda d: _set_row(d, 1, 8, ".")), "must touch the Exit", _cell([0, 8])),
    ("two platforms", _edit(TERROR, lambda d: d.update(platforms=d["platforms"][:2])), "list of three platforms", None),
    ("tomb twice", _edit(TERROR, lambda d: _p(d, 1).update(tomb="mummy")), "tomb 'mummy' has two platforms", None),
    ("colour twice", _edit(TERROR, _purple_to_red), "colour 'red' is used by two platforms", None),
    ("name not text", _edit(TERROR, lambda d: d.update(name=5)), "name must be a string", None),
    ("platform not an object", _edit(TERROR, lambda d: d["platforms"].__setitem__(0, 5)), "platforms[0]: a platform",
     None),
    ("platform unknown key", _edit(TERROR, lambda d: _p(d).update(x=1)), "platforms[0]: unknown key(s) x", None),
    ("platform number", _edit(TERROR, lambda d: _p(d).update(number=2)), "number must be 1", None),
    ("platform colour", _edit(TERROR, lambda d: _p(d).update(colour="blue")), "colour 'blue'", None),
    ("platform tomb", _edit(TERROR, lambda d: _p(d).update(tomb="ghost")), "tomb 'ghost'", None),
    ("space off the grid", _edit(TERROR, lambda d: _p(d)["spaces"][0].update(cell=[99, 0])), "inside the grid", None),
    ("space not on its platform", _edit(TERROR, lambda d: _p(d)["spaces"][3].update(cell=[0, 0])),
     "is not marked 1", _cell([0, 0])),
    ("track without a middle", _edit(TERROR, lambda d: _p(d)["track"].pop("middle")), "track must map", None),
    ("middle not between the ends", _edit(TERROR, lambda d: _p(d)["track"].update(middle=[5, 1])),
     "next to both ends", _cell([5, 1])),
    ("no spaces", _edit(TERROR, lambda d: _p(d).update(spaces=[])), "spaces must be a non-empty list", None),
    ("space without its positions", _edit(TERROR, lambda d: _p(d)["spaces"].__setitem__(0, {"cell": [6, 2]})),
     "a space is an object", None),
    ("space twice", _edit(TERROR, lambda d: _p(d)["spaces"][1].update(cell=[6, 2])), "is listed twice", _cell([6, 2])),
    ("another platform's Danger colour", _edit(TERROR, lambda d: _p(d)["spaces"][3].update(end_a="danger-gold")),
     "'danger-gold' is not a space type here", _cell([7, 3], {"mummy": "end_a"})),
    ("no pit under the tomb", _edit(TERROR, lambda d: _p(d)["spaces"][0].update(end_a="grass")),
     "the tomb's own cell must show 'pit'", _cell([6, 2], {"mummy": "end_a"})),
    ("a pit away from the tomb", _edit(TERROR, lambda d: _p(d)["spaces"][3].update(end_a="pit")),
     "only the cell under the tomb is a pit", _cell([7, 3], {"mummy": "end_a"})),
    ("a hand for ever", _edit(TERROR, lambda d: _p(d)["spaces"][3].update(end_a="hand", middle="hand", end_b="hand")),
     "never changes", _cell([7, 3])),
    ("a platform space left out", _edit(TERROR, lambda d: _p(d)["spaces"].pop(6) and None),
     "is marked 1 but has no space entry", _cell([5, 1])),
    ("no Danger before the slide", _edit(TERROR, lambda d: _p(d)["spaces"][1].update(end_a="grass")),
     "becomes the pit when the tomb slides to middle", _cell([6, 3], {"mummy": "end_a"})),
    ("Danger away from the pit", _edit(TERROR, lambda d: _p(d)["spaces"][6].update(end_a="danger-red")),
     "must sit next to the pit", _cell([5, 1], {"mummy": "end_a"})),
    ("no way to the Crypt", _edit(TERROR, lambda d: _set_row(d, 6, 0, "#")), "no path leads from the Gate to the Crypt",
     None),
]


def _ring_card(n: int) -> dict[str, Any]:
    return {"id": f"ring-x{n}", "kind": "later", "effect": "ring", "title": "Magic Ring", "text": "A ring."}


CARD_CASES: list[Case] = [
    ("not an object", [], "must be an object with a 'cards' list", None),
    ("no card list", {"cards": 5}, "must be an object with a 'cards' list", None),
    ("unknown key", _edit(CARDS, lambda d: d.update(extra=1)), "unknown key(s) extra", None),
    ("more than the box", _edit(CARDS, lambda d: d["cards"].append(_ring_card(1))), "the box holds 36",
     {"entry": "cards[36]"}),
    ("card not an object", _edit(CARDS, lambda d: d["cards"].__setitem__(3, 5)), "cards[3]: a card must be an object",
     {"entry": "cards[3]"}),
    ("card without an id", _edit(CARDS, lambda d: d["cards"][3].update(id="")), "cards[3]: id must be",
     {"entry": "cards[3]"}),
    ("card unknown key", _edit(CARDS, lambda d: d["cards"][3].update(x=1)), "unknown key(s) x", {"entry": "cards[3]"}),
    ("an id twice", _edit(CARDS, lambda d: d["cards"][3].update(id=d["cards"][2]["id"])), "is used twice",
     {"entry": "cards[3]"}),
    ("unknown effect", _edit(CARDS, lambda d: d["cards"][3].update(effect="explode")), "effect 'explode'",
     {"entry": "cards[3]"}),
    ("wrong timing", _edit(CARDS, lambda d: d["cards"][0].update(kind="later")), "a monster card must be now",
     {"entry": "cards[0]"}),
    ("no title", _edit(CARDS, lambda d: d["cards"][0].update(title=" ")), "title must be", {"entry": "cards[0]"}),
    ("no words", _edit(CARDS, lambda d: d["cards"][0].update(text="")), "text must be", {"entry": "cards[0]"}),
    ("a move too long",
     _edit(CARDS, lambda d: next(c for c in d["cards"] if c["effect"] == "move_pawn").update(steps=9)),
     "steps must be a whole number", None),
    ("steps on a Monster card", _edit(CARDS, lambda d: d["cards"][0].update(steps=2)),
     "only a move_pawn card has steps",
     {"entry": "cards[0]"}),
    ("no Magic Ring", _edit(CARDS, lambda d: d.update(cards=[c for c in d["cards"] if c["effect"] != "ring"])),
     "at least one Magic Ring", None),
]


def _sup(d: dict[str, Any], trap: str) -> dict[str, Any]:
    return d["platforms"][trap]


SUPERSTITION_CASES: list[Case] = [
    ("not an object", [], "must be a JSON object", {"entry": "the top level"}),
    ("no tomb", _edit(SUPERSTITION, lambda d: d.pop("tomb")), "key 'tomb' is missing", {"entry": "key tomb"}),
    ("unknown key", _edit(SUPERSTITION, lambda d: d.update(extra=1)), "is not a board key", None),
    ("no spaces", _edit(SUPERSTITION, lambda d: d.update(spaces={})), "must be a non-empty object", None),
    ("space not an object", _edit(SUPERSTITION, lambda d: d["spaces"].update(b0=5)), "spaces['b0'] must be an object",
     None),
    ("space of no kind", _edit(SUPERSTITION, lambda d: d["spaces"]["b0"].update(kind="lava")), "is 'lava'", None),
    ("space not drawn", _edit(SUPERSTITION, lambda d: d["spaces"]["b0"].update(x="left")), "must be a number", None),
    ("space with more", _edit(SUPERSTITION, lambda d: d["spaces"]["b0"].update(colour=1)), "is not a space field",
     None),
    ("a path too short", _edit(SUPERSTITION, lambda d: d.update(brick_path=["b0", "b1", "b2"])),
     "at least 9 space ids", {"entry": "brick_path"}),
    ("a path through nowhere", _edit(SUPERSTITION, lambda d: d["brick_path"].__setitem__(3, "zz")),
     "brick_path[3] is 'zz'", {"entry": "brick_path.3"}),
    ("a stone on the brick path", _edit(SUPERSTITION, lambda d: d["brick_path"].__setitem__(3, "s0")),
     "a stone space; expected a brick space", {"entry": "brick_path.3"}),
    ("a space twice on a path", _edit(SUPERSTITION, lambda d: d["brick_path"].__setitem__(3, "b2")), "repeats 'b2'",
     {"entry": "brick_path.3"}),
    ("a brick off the path", _edit(SUPERSTITION, lambda d: d["brick_path"].remove("b31")),
     "is a brick space missing from 'brick_path'", {"entry": "spaces.b31"}),
    ("the gate off the brick path", _edit(SUPERSTITION, lambda d: d.update(gate="s3")),
     "it must be a space of 'brick_path'", {"entry": "gate"}),
    ("three start circles", _edit(SUPERSTITION, lambda d: d["start_circles"].pop("red")),
     "at least 4 colours", {"entry": "start_circles"}),
    ("a start that is no circle", _edit(SUPERSTITION, lambda d: d["start_circles"].update(red="b3")),
     "which is not a circle space", {"entry": "start_circles.red"}),
    ("two colours on one circle", _edit(SUPERSTITION, lambda d: d["start_circles"].update(blue="start.red")),
     "reuses circle", {"entry": "start_circles.blue"}),
    ("a circle nobody starts on", _edit(SUPERSTITION, lambda d: d["spaces"].update({"start.pink": {"kind": "circle",
                                                                                                  "x": 1, "y": 1}})),
     "is a circle no colour starts on", None),
    ("traps not an object", _edit(SUPERSTITION, lambda d: d.update(platforms=[])), "'platforms' must be an object",
     None),
    ("no second Grave", _edit(SUPERSTITION, lambda d: d["platforms"].pop("grave2")), "is missing (the board needs",
     {"entry": "platforms.grave2"}),
    ("an unknown trap", _edit(SUPERSTITION, lambda d: d["platforms"].update(cauldron={})), "is not a trap",
     {"entry": "platforms.cauldron"}),
    ("a trap not an object", _edit(SUPERSTITION, lambda d: d["platforms"].update(ladder=5)), "must be an object",
     {"entry": "platforms.ladder"}),
    ("a Ladder written as a Grave", _edit(SUPERSTITION, lambda d: _sup(d, "ladder").update(kind="grave")),
     "expected 'ladder_mirror'", {"entry": "platforms.ladder.kind"}),
    ("a trap with more", _edit(SUPERSTITION, lambda d: _sup(d, "ladder").update(front="s3")),
     "is not a ladder_mirror platform field", {"entry": "platforms.ladder.front"}),
    ("no way onto the Ladder", _edit(SUPERSTITION, lambda d: _sup(d, "ladder").update(brick_entrance="b39")),
     "brick_entrance is 'b39', which is not a space id", {"entry": "platforms.ladder.brick_entrance"}),
    ("the Mirror leading onto bricks", _edit(SUPERSTITION, lambda d: _sup(d, "mirror").update(stone_exit="b3")),
     "a brick space; expected stone", {"entry": "platforms.mirror.stone_exit"}),
    ("two traps on one space", _edit(SUPERSTITION, lambda d: _sup(d, "mirror").update(brick_entrance="b8")),
     "already used by platforms['ladder'].brick_entrance", {"entry": "platforms.mirror.brick_entrance"}),
    ("a platform no trap uses", _edit(SUPERSTITION, lambda d: d["spaces"].update(cauldron={"kind": "platform",
                                                                                           "x": 1, "y": 1})),
     "is a platform space no platform uses", {"entry": "spaces.cauldron"}),
    ("no tomb drawn", _edit(SUPERSTITION, lambda d: d.update(tomb=5)), "'tomb' must be an object", None),
    ("a tomb without a size", _edit(SUPERSTITION, lambda d: d["tomb"].pop("width")), "tomb.width must be a number",
     None),
]


def _tile(d: dict[str, Any], n: int) -> dict[str, Any]:
    return d["tiles"][n]


def _ninth_gravestone(d: dict[str, Any]) -> None:
    for tile in d["tiles"]:
        if "G" not in "".join(tile["grid"]):
            for r in (2, 0):
                for c in (2, 0):
                    if tile["grid"][r][c] == "." and tile["grid"][1][1] != "J":
                        tile["grid"][r] = tile["grid"][r][:c] + "G" + tile["grid"][r][c + 1:]
                        return
    raise AssertionError("no tile to add a Gravestone to")


def _small(d: dict[str, Any]) -> None:
    d["size"] = 2
    d["tiles"] = [{"id": f"S{n}", "grid": ["J.", ".G"]} for n in range(16)]


TILE_CASES: list[Case] = [
    ("not an object", [], "must be a JSON object", None),
    ("no size", _edit(TILES, lambda d: d.update(size=9)), "'size' must be an integer", None),
    ("no tile list", _edit(TILES, lambda d: d.update(tiles=5)), "'tiles' must be a list", None),
    ("fifteen tiles", _edit(TILES, lambda d: d["tiles"].pop() and None), "the file lists 15", None),
    ("a tile not an object", _edit(TILES, lambda d: d["tiles"].__setitem__(2, 5)), "tile 3: must be an object",
     {"tile": 2}),
    ("a tile without an id", _edit(TILES, lambda d: _tile(d, 2).update(id="")), "'id' must be", {"tile": 2}),
    ("an id twice", _edit(TILES, lambda d: _tile(d, 2).update(id="T01")), "duplicate id", {"tile": 2}),
    ("a name not text", _edit(TILES, lambda d: _tile(d, 2).update(name=5)), "'name' must be a string", {"tile": 2}),
    ("a tile with more", _edit(TILES, lambda d: _tile(d, 2).update(x=1)), "unknown field(s) x", {"tile": 2}),
    ("two rows", _edit(TILES, lambda d: _tile(d, 2)["grid"].pop() and None), "'grid' must be a list of 3 rows",
     {"tile": 2}),
    ("a short row", _edit(TILES, lambda d: _tile(d, 2)["grid"].__setitem__(1, "..")), "row 2 must be",
     {"tile": 2}),
    ("an unknown square", _edit(TILES, lambda d: _tile(d, 2)["grid"].__setitem__(1, ".X.")), "unknown square(s) 'X'",
     {"tile": 2, "square": [1, 1]}),
    ("no Jack-O-Lantern", _edit(TILES, lambda d: _tile(d, 2)["grid"].__setitem__(0, "...")),
     "needs exactly one Jack-O-Lantern", {"tile": 2}),
    ("two Gravestones", _edit(TILES, lambda d: _tile(d, 3)["grid"].__setitem__(2, "G.G")), "2 Gravestones",
     {"tile": 3}),
    ("no dog start", _edit(TILES, _small), "no square where a dog may start", {"tile": 0}),
    ("a ninth Gravestone", _edit(TILES, _ninth_gravestone), "9 Gravestones but only 8", None),
]

ALL_CASES: dict[str, list[Case]] = {
    "terror-board": TERROR_CASES,
    "terror-cards": CARD_CASES,
    "superstition-board": SUPERSTITION_CASES,
    "dogs-tiles": TILE_CASES,
}
