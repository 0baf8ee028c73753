"""Superstition as text: the board drawn from its coordinates, pawns, traps, choices and events.

Each space is a three-character cell placed by its board coordinates, so an
owner's own board file draws too. The brackets say what the space is and the
middle character what is on it::

    [ ] brick path   ( ) stone path   < > start circle   { } trap platform   | | beside the tomb

A pawn shows as its player's number, a Whammy as ``*`` (a Whammy under a pawn
replaces the right bracket: ``[2*``), an empty platform as its trap (``L``
Ladder, ``M`` Mirror, ``G`` a Grave) and a place a choice leads to as its
letter. Spaces are named in words (the brick path, top side), never by id.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from controller.games import Action, Event, Game, IllegalAction
from controller.games.superstition import TRAP_WORDS
from controller.games.superstition import describe_superstition_event as sup_event_words

from .menu import Option, Place, Position

BRACKETS = {"brick": ("[", "]"), "stone": ("(", ")"), "circle": ("<", ">"), "platform": ("{", "}"),
            "tomb_side": ("|", "|")}
TRAP_MARKS = {"ladder": "L", "mirror": "M", "grave1": "G", "grave2": "G"}
CELL = 50  # board units a text column stands for
LEGS = {
    "in1": "Part I, on the way to the Ladder or Mirror",
    "in2": "Part I, on the way to a Grave",
    "tomb": "Part II, at the Wizard's Tomb",
    "out1": "Part II, on the way out to the Ladder or Mirror",
    "out2": "Part II, on the way home along the brick path",
    "home": "home",
}
DIRECTION_WORDS = {"cw": "clockwise", "ccw": "counter-clockwise", "in": "in"}


def legend(game: Game) -> str:
    return (
        "[ ] brick path  ( ) stone path  < > start circle  {L} Ladder  {M} Mirror  {G} Grave  | | beside the tomb\n"
        "1 2 3 4: the players' pawns  * a Whammy ([2* a Whammy under pawn 2)  a b c ...: where a choice leads"
    )


def _board(view: Mapping[str, Any]) -> Mapping[str, Any]:
    return view["board"]  # type: ignore[no-any-return]


def space_words(game: Game, space: str | None, view: Mapping[str, Any] | None = None) -> str:
    """A space in words: its path, and which side of the board it is on."""
    view = view or game.public_view()
    board = _board(view)
    info = board["spaces"].get(space) if space else None
    if info is None:
        return "somewhere"
    for trap, platform in board["platforms"].items():
        if platform["space"] == space:
            return TRAP_WORDS.get(trap, "a trap")
    kind = info["kind"]
    if kind == "circle":
        owner = next((p for p in view["players"] if board["start_circles"].get(p["colour"]) == space), None)
        return f"{owner['name']}'s start circle" if owner else "a start circle"
    if kind == "tomb_side":
        return "beside the Wizard's Tomb"
    path = {"brick": "the brick path", "stone": "the stone path"}.get(kind, "a space")
    return f"{path} ({_side(board, info)} side)"


def _side(board: Mapping[str, Any], info: Mapping[str, Any]) -> str:
    tomb = board["tomb"]
    dx, dy = info["x"] - tomb["x"], info["y"] - tomb["y"]
    if abs(dx) >= abs(dy):
        return "right" if dx > 0 else "left"
    return "bottom" if dy > 0 else "top"


def sections(game: Game, marks: Mapping[Place, str]) -> list[tuple[str, str]]:
    view = game.public_view()
    board = _board(view)
    spaces: dict[str, dict[str, Any]] = board["spaces"]
    pawns = {p["space"]: str(p["seat"] + 1) for p in view["players"]}
    whammies = {w["space"] for w in view["whammies"]}
    traps = {board["platforms"][t]["space"]: m for t, m in TRAP_MARKS.items() if t in board["platforms"]}

    cells: dict[tuple[int, int], str] = {}
    for sid, space in spaces.items():
        col, row = round(space["x"] / CELL), round(space["y"] / CELL)
        left, right = BRACKETS[space["kind"]]
        mark = marks.get(sid)
        middle = mark or pawns.get(sid) or ("*" if sid in whammies else traps.get(sid, " "))
        if sid in whammies and sid in pawns and not mark:
            right = "*"  # a Whammy under a pawn is drawn too
        cells[(row, col)] = f"{left}{middle}{right}"
    tomb = board["tomb"]
    cells.setdefault((round(tomb["y"] / CELL), round(tomb["x"] / CELL)), "TMB")
    rows = [r for r, _ in cells]
    cols = [c for _, c in cells]
    lines = []
    for r in range(min(rows), max(rows) + 1):
        line = "".join(cells.get((r, c), "   ") for c in range(min(cols), max(cols) + 1)).rstrip()
        if line:  # a text row is taller than a cell is wide: skip empty rows to keep it square
            lines.append(line)
    out = [("grid", "\n".join(lines))]
    for p in view["players"]:
        turn = "->" if p["seat"] == view["current_player"] else "  "
        extra = []
        if p["zapped_by"]:
            extra.append("zapped by " + ", ".join(TRAP_WORDS.get(t, "a trap") for t in p["zapped_by"]))
        if p["drew_tokens"]:
            extra.append("has been to the Wizard's Tomb")  # whether a Whammy is still held is secret
        tail = f" ({'; '.join(extra)})" if extra else ""
        out.append((f"player{p['seat']}", (f"{turn} {p['seat'] + 1} {p['name']} ({p['colour']}): "
                                            f"{space_words(game, p['space'], view)}, {LEGS[p['leg']]}{tail}")))
    traps_line = ", ".join(
        f"{t['name']} {t['state']}" + (f" (peg {'A' if t['peg_a'] == 'pulled' else 'B'} pulled)"
                                       if "pulled" in (t["peg_a"], t["peg_b"]) else "")
        for t in view["traps"].values()
    )
    out.append(("traps", f"Traps: {traps_line}"))
    if view["whammies"]:
        out.append(("whammies", "Whammies: " + ", ".join(
            f"{w['name']} on {space_words(game, w['space'], view)}" for w in view["whammies"])))
    if view["roll"] is not None:
        out.append(("throw", f"Throw: {' + '.join(map(str, view['dice']))} = {view['roll']}"))
    return out


def private(game: Game, seat: int) -> str:
    you = game.player_view(seat)["you"]
    name = game.players[seat]
    if you["charm"] is None and you["whammy"] is None:
        return f"Only for {name}: you hold no Whammy and no Charm."
    parts = []
    if you["whammy"]:
        parts.append(f"your Whammy {you['whammy_name']} (not placed yet)")
    if you["charm"]:
        parts.append(f"your Charm {you['charm_name']} (it lets you pass {you['charm_passes']})")
    return f"Only for {name}: " + "; ".join(parts)


def position(game: Game) -> Position:
    spaces = _board(game.public_view())["spaces"]

    def where(place: Place) -> tuple[float, float]:
        info = spaces.get(place)
        return (float(info["y"]), float(info["x"])) if info else (0.0, 0.0)

    return where


# ----- choices ----------------------------------------------------------------------
def _destination(game: Game, action: Action) -> str | None:
    """Where a move ends: tried on a copy of the game (the real one is untouched)."""
    trial = type(game).from_json(game.to_json())
    try:
        trial.apply(action)
    except IllegalAction:
        return None
    assert action.player is not None
    return str(trial.public_view()["players"][action.player]["space"])


def options(game: Game, seat: int, actions: Sequence[Action]) -> list[Option]:
    view = game.player_view(seat)
    you = view["you"]
    out = []
    for a in actions:
        p = a.params
        kind = a.kind
        if kind in ("move", "charm_move"):
            to = _destination(game, a)
            how = DIRECTION_WORDS.get(p["direction"], p["direction"])
            text = f"move {how} to {space_words(game, to, view)}"
            if kind == "charm_move":
                text += f", passing a Whammy with your Charm {you['charm_name']}"
            out.append(Option(a, text, place=to))
        elif kind == "roll":
            out.append(Option(a, "Throw the dice" + (f" ({p['value']})" if "value" in p else ""), group="Throw"))
        elif kind == "end_turn":
            out.append(Option(a, "End your turn (you cannot move)" if view["phase"] == "move"
                              else "End your turn without jumping"))
        elif kind == "jump":
            out.append(Option(a, "Jump the Wizard's Tomb"))
        elif kind == "trade_places":
            out.append(Option(a, "Trade places with the pawn crossing the other way"))
        elif kind == "pull_peg":
            out.append(Option(a, f"Pull peg {str(p['peg']).upper()} of {TRAP_WORDS.get(p['trap'], 'the trap')}"))
        elif kind == "place_whammy":
            out.append(Option(a, f"place your Whammy {you['whammy_name']} here", place=p["space"],
                              bundle=f"Place your Whammy {you['whammy_name']}"))
        elif kind == "relocate_whammy":
            out.append(Option(a, "move the Whammy here", place=p["to"], bundle="Move the Whammy you landed on"))
        elif kind == "leave_whammy":
            out.append(Option(a, "Leave the Whammy where it is"))
        else:
            out.append(Option(a, game.describe(a), group=kind.replace("_", " ").capitalize()))
    return out


# ----- events ---------------------------------------------------------------------------
def describe_event(game: Game, event: Event, viewer: int | None) -> str:
    # The engine's own words, with the terminal's names for spaces (its path and side of the board).
    return sup_event_words(game, event, viewer, where=lambda space: space_words(game, space))
