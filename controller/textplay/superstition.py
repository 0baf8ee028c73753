"""Superstition as text: the board drawn from its coordinates, pawns, traps and events.

Each space is a three-character cell placed by its board coordinates, so an
owner's own board file draws too. The brackets say what the space is and the
middle character what is on it::

    [ ] brick path   ( ) stone path   < > start circle   { } trap platform   | | beside the tomb

A pawn shows as its colour's capital letter, a Whammy on an empty path space as
``w``, and an empty platform as its trap (``L`` Ladder, ``M`` Mirror, ``1``/``2``
the Graves).
"""

from __future__ import annotations

from typing import Any

from controller.games import Event, Game

BRACKETS = {"brick": "[]", "stone": "()", "circle": "<>", "platform": "{}", "tomb_side": "||"}
TRAP_MARKS = {"ladder": "L", "mirror": "M", "grave1": "1", "grave2": "2"}
CELL = 50  # board units a text cell stands for
LEGS = {
    "in1": "Part I: to the Ladder/Mirror",
    "in2": "Part I: to a Grave",
    "tomb": "Part II: at the tomb",
    "out1": "Part II: out to the Ladder/Mirror",
    "out2": "Part II: home along the brick path",
    "home": "home",
}
LEGEND = "[ ] brick  ( ) stone  < > start  {L} {M} {1} {2} traps  | | beside the tomb  w Whammy  capitals: pawns"


def render(game: Game) -> str:
    view = game.public_view()
    board = view["board"]
    spaces: dict[str, dict[str, Any]] = board["spaces"]
    pawns = {p["space"]: p["colour"][0].upper() for p in view["players"]}
    whammies = {w["space"] for w in view["whammies"]}
    marks = {board["platforms"][t]["space"]: m for t, m in TRAP_MARKS.items()}

    cells: dict[tuple[int, int], str] = {}
    for sid, space in spaces.items():
        col, row = round(space["x"] / CELL), round(space["y"] / CELL)
        middle = pawns.get(sid) or ("w" if sid in whammies else marks.get(sid, " "))
        left, right = BRACKETS[space["kind"]]
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
    lines.append(LEGEND)
    lines.append(_status(view))
    return "\n".join(lines)


def _status(view: dict[str, Any]) -> str:
    out = []
    for p in view["players"]:
        turn = "->" if p["seat"] == view["current_player"] else "  "
        extra = []
        if p["zapped_by"]:
            extra.append("zapped by " + ", ".join(p["zapped_by"]))
        if p["drew_tokens"]:
            extra.append("has been to the Wizard's Tomb")  # whether a Whammy is still held is secret
        tail = f" ({'; '.join(extra)})" if extra else ""
        who = f"{p['colour'][0].upper()} {p['name']} [{p['colour']}]"
        out.append(f"{turn} {who} on {p['space']}: {LEGS[p['leg']]}{tail}")
    traps = ", ".join(
        f"{t['name']} {t['state']}" + (f" (peg {'A' if t['peg_a'] == 'pulled' else 'B'} pulled)"
                                       if "pulled" in (t["peg_a"], t["peg_b"]) else "")
        for t in view["traps"].values()
    )
    out.append(f"Traps: {traps}")
    if view["whammies"]:
        out.append("Whammies: " + ", ".join(f"{w['name']} on {w['space']}" for w in view["whammies"]))
    if view["roll"] is not None:
        out.append(f"Throw: {' + '.join(map(str, view['dice']))} = {view['roll']}")
    out.append(f"Phase: {view['phase']}")
    return "\n".join(out)


def render_private(game: Game, seat: int) -> str:
    you = game.player_view(seat)["you"]
    if you["charm"] is None and you["whammy"] is None:
        return ""
    parts = []
    if you["whammy"]:
        parts.append(f"your Whammy: {you['whammy_name']}")
    if you["charm"]:
        parts.append(f"your Charm: {you['charm_name']} (passes {you['charm_passes']})")
    return f"(only for {game.players[seat]}) " + "; ".join(parts)


def describe_event(game: Game, event: Event) -> str:
    d = event.data
    who = game.players[d["player"]] if isinstance(d.get("player"), int) else ""
    trap = {"ladder": "the Ladder", "mirror": "the Mirror", "grave1": "the first Grave",
            "grave2": "the second Grave"}.get(d.get("trap", ""), "")
    texts = {
        "opening_roll": lambda: f"{who} throws {d.get('total')} to see who starts",
        "opening_tie": lambda: f"tie at {d.get('total')}: seats {d.get('players')} throw again",
        "first_player": lambda: f"{who} starts with the highest throw",
        "turn_started": lambda: f"{who}'s turn",
        "rolled": lambda: f"{who} throws {d.get('total')}",
        "moved": lambda: f"{who} moves {d.get('from')} -> {d.get('to')} via {' '.join(d.get('path', []))}",
        "turn_passed": lambda: f"{who} is blocked both ways and does not move",
        "challenge_begins": lambda: f"{who} must challenge {trap}",
        "peg_pulled": lambda: f"{who} pulls peg {str(d.get('peg')).upper()} of {trap}",
        "challenge_resolved": lambda: (
            f"{trap}: {'ZAPPED!' if d.get('zapped') else 'sneaked by'} {who} goes to {d.get('to')}"
        ),
        "trap_reset": lambda: f"{trap} is reset in secret",
        "second_throw": lambda: f"{who} steps off and throws again",
        "draw_due": lambda: f"{who} draws a Whammy and a Charm from the real tomb",
        "drew_tokens": lambda: f"{who} draws a Whammy and a Charm from the Wizard's Tomb",
        "jumped_tomb": lambda: f"{who} jumps the Wizard's Tomb",
        "traded_places": lambda: "players trade places across the tomb",
        "whammy_placed": lambda: f"{who} places the Whammy {d.get('name')} on {d.get('space')}",
        "landed_on_whammy": lambda: f"{who} lands on the Whammy on {d.get('space')} and may move it",
        "whammy_moved": lambda: f"{who} moves the Whammy from {d.get('from')} to {d.get('to')}",
        "won": lambda: f"{who} is home and WINS!",
    }
    text = texts.get(event.type)
    return text() if text else ""
