"""Graveyard Dogs as text: the graveyard grid, the dog cards, choices and events in words.

Each square is six characters: the square's feature (``J`` Jack-O-Lantern,
``+`` Gravestone, ``.`` plain), ``*`` when a snack cube lies there, up to two
tokens (a dog is its player's number, a spook its capital letter: ``S``
skeleton, ``G`` gargoyle, ``U`` ghoul, ``B`` bat), then the letters of a place
a choice leads to (two letters when there are many, as when a tile may go in
dozens of places). Squares are never named by coordinates.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from controller.games import Action, Event, Game
from controller.games.dogs import TURNS
from controller.games.dogs import describe_dogs_event as dogs_event_words

from .menu import Option, Place, Position

MARK_WIDTH = 2
FEATURE_CHARS = {"jack_o_lantern": "J", "gravestone": "+", "plain": "."}
SPOOK_CHARS = {"skeleton": "S", "gargoyle": "G", "ghoul": "U", "bat": "B"}
STEP_WORDS = {
    "setup_tile": "place a starting tile",
    "setup_dog": "put their dog on the tile",
    "place_tile": "place a tile",
    "roll": "roll the dice",
    "act": "choose an action for each die",
    "move_dog": "move their dog",
    "pick_spook": "pick a spook",
    "move_spook": "move the spook",
    "special": "choose a special action",
    "escape": "flee",
    "bat_target": "send the bat",
    "bork_attack": "attack or not",
}


def legend(game: Game) -> str:
    return (
        "J Jack-O-Lantern  + Gravestone  . plain  * snack cube  1 2 3 4: the players' dogs\n"
        "S skeleton  G gargoyle  U ghoul  B bat  a b ... (or aa ab ...) just before a square: where a choice leads"
    )


def _grid(view: Mapping[str, Any], marks: Mapping[Place, str]) -> list[str]:
    cells: dict[tuple[int, int], list[str]] = {}
    for tile in view["tiles"]:
        for sq in tile["squares"]:
            cells[(sq["x"], sq["y"])] = [FEATURE_CHARS.get(sq["feature"], "?"), " "]
    for snack in view["snacks"]:
        cells[(snack["x"], snack["y"])][1] = "*"
    for dog in view["dogs"]:
        cells[(dog["x"], dog["y"])].append(str(dog["seat"] + 1))
    for spook in view["spooks"]:
        cells[(spook["x"], spook["y"])].append(SPOOK_CHARS.get(spook["kind"], "?"))
    squares = list(cells) + [p for p in marks if isinstance(p, tuple)]
    if not squares:
        return ["(the graveyard is empty)"]
    xs = range(min(x for x, _ in squares), max(x for x, _ in squares) + 1)
    ys = range(min(y for _, y in squares), max(y for _, y in squares) + 1)
    out = []
    for y in ys:
        row = []
        for x in xs:
            cell = cells.get((x, y))
            mark = marks.get((x, y), "")
            # A choice's letter stands just before the square it names, never between two squares.
            if cell is None:
                row.append(f"{mark:>2}    ")
            else:
                tokens = "".join(cell[2:])
                tokens = tokens if len(tokens) <= 2 else tokens[0] + "+"
                row.append(f"{mark:>2}{cell[0]}{cell[1]}{tokens:<2}")
        out.append("".join(row).rstrip())
    return out


def sections(game: Game, marks: Mapping[Place, str]) -> list[tuple[str, str]]:
    view = game.public_view()
    out = [("header", f"{view['title']}, turn {view['turn']}: {_phase_text(view)}"),
           ("grid", "\n".join(_grid(view, marks)))]
    out.append(("counts", (f"Tiles placed {view['tiles_placed']} of {view['tiles_total']}, snacks in the tin "
                           f"{view['tin_count']}, face-down spooks {view['face_down_spooks']}")))
    if view["drawn_tile"]:
        tile = view["drawn_tile"]
        printed = "\n".join("    " + " ".join(row) for row in tile["grid"])
        out.append(("tile", f"Tile to place: {tile['name']} (as printed)\n{printed}"))
    carrying = [s for s in view["spooks"] if s["snacks"]]
    if carrying:
        out.append(("spooks", "; ".join(f"the {s['kind']} carries {', '.join(s['snacks'])}" for s in carrying)))
    for card in view["cards"]:
        spooks = ", ".join(s["kind"] for s in card["spooks"]) or "none"
        snacks = ", ".join(card["snacks"]) or "none"
        flag = "  (two Spook Actions next turn)" if card["two_spook_actions_next"] else ""
        out.append((f"player{card['seat']}",
                    (f"{card['seat'] + 1} {card['name']} ({card['colour']} dog): snacks {snacks}; spooks {spooks}; "
                     f"{card['score']} points{flag}")))
    if view["dice"]:
        uses = zip(view["dice"], view["dice_use"], strict=True)  # two dice, each with its use
        dice = ", ".join(f"{value} ({use or 'unused'})" for value, use in uses)
        out.append(("dice", f"Dice: {dice}"))
    if view["over"]:
        names = " and ".join(view["players"][s] for s in view["winners"])
        scores = ", ".join(f"{n} {s}" for n, s in zip(view["players"], view["scores"], strict=True))
        out.append(("over", f"Final scores: {scores}. " + (
            f"{names} tie and become friends." if view["friends"] else f"{names} wins.")))
    return out


def _phase_text(view: Mapping[str, Any]) -> str:
    if view["over"]:
        return "the game is over"
    who = view["players"][view["acting_player"]]
    return f"{who} to {STEP_WORDS.get(view['step'], view['step'].replace('_', ' '))}"


def private(game: Game, seat: int) -> str:
    return ""  # nothing in this game is known to one player only (spooks come out face up)


def position(game: Game) -> Position:
    return lambda place: (float(place[1]), float(place[0]))  # type: ignore[index]


# ----- choices ----------------------------------------------------------------------
def turned(grid: Sequence[str], rotation: int) -> list[str]:
    """The tile's grid turned ``rotation`` quarter turns clockwise."""
    rows = [list(row) for row in grid]
    for _ in range(rotation % 4):
        rows = [list(row) for row in zip(*rows[::-1], strict=True)]
    return ["".join(row) for row in rows]


def options(game: Game, seat: int, actions: Sequence[Action]) -> list[Option]:
    view = game.public_view()
    names = view["players"]
    spooks = {s["id"]: s for s in view["spooks"]}

    def spook_name(ident: Any) -> str:
        return f"the {spooks[ident]['kind']}" if ident in spooks else "a spook"

    def dog_name(s: Any) -> str:
        if s == seat:
            return "your dog"
        return f"{names[s]}'s dog" if isinstance(s, int) and 0 <= s < len(names) else "a dog"

    # What each simple action says; p: its params.
    simple: dict[str, Callable[[Mapping[str, Any]], str]] = {
        "place_dog": lambda p: "put your dog here",
        "roll": lambda p: "Roll both dice",
        "choose": lambda p: (f"Use the {_die(view, p.get('die'))} for the "
                             f"{str(p.get('action')).replace('_', ' ')} action"),
        "back": lambda p: "Take the choice back",
        "move_dog": lambda p: "move your dog here",
        "move_spook": lambda p: "move the spook here",
        "collect": lambda p: "Collect the snack cubes here",
        "wrestle": lambda p: f"Wrestle {dog_name(p.get('dog'))}",
        "attack": lambda p: f"Attack {spook_name(p.get('spook'))}",
        "bork": lambda p: "bork: " + (dog_name(p.get("id")) if p.get("token") == "dog" else spook_name(p.get("id")))
        + " jumps here",
        "done": lambda p: "Do nothing more",
        "decline": lambda p: "Do not attack",
        "escape": lambda p: "flee here",
        "bat_target": lambda p: f"Send the bat after {dog_name(p.get('dog'))}",
    }
    out = []
    for a in actions:
        p = a.params
        square = (p["x"], p["y"]) if "x" in p and "y" in p else None
        kind = a.kind
        if kind == "place_tile":
            tile = view["drawn_tile"]
            rows = turned(tile["grid"], p["rotation"]) if tile else []
            drawing = "\n".join("         " + " ".join(row) for row in rows)
            out.append(Option(a, f"{TURNS[p['rotation'] % 4]}:\n{drawing}", place=square,
                              at="the tile's top left corner here"))
            continue
        if kind == "pick_spook":
            spook = spooks.get(p.get("spook"))
            where = (spook["x"], spook["y"]) if spook else None
            out.append(Option(a, f"pick {spook_name(p.get('spook'))}", place=where))
        elif kind in simple:
            out.append(Option(a, simple[kind](p), place=square))
        else:
            out.append(Option(a, game.describe(a), place=square, group=kind))
    return out


def _die(view: Mapping[str, Any], die: Any) -> str:
    dice = view.get("dice")
    if dice and die in (0, 1) and not isinstance(die, bool):
        return f"{dice[die]} (die {die + 1})"
    return "die"


# ----- events ---------------------------------------------------------------------------
def describe_event(game: Game, event: Event, viewer: int | None) -> str:
    return dogs_event_words(game, event, viewer)
