"""Graveyard Dogs as text: the graveyard grid, the dog cards, and events in words.

Each square is five characters: the square's feature (``J`` Jack-O-Lantern,
``+`` Gravestone, ``.`` plain), ``*`` when a snack cube lies there, then up to
three tokens: a dog is its seat number, a spook its letter (``S`` skeleton,
``G`` gargoyle, ``U`` ghoul, ``B`` bat).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from controller.games import Event, Game

FEATURE_CHARS = {"jack_o_lantern": "J", "gravestone": "+", "plain": "."}
SPOOK_CHARS = {"skeleton": "S", "gargoyle": "G", "ghoul": "U", "bat": "B"}
LEGEND = "J Jack-O-Lantern  + Gravestone  * snack cube  0-3 dogs (seat)  S skeleton  G gargoyle  U ghoul  B bat"
CELL = 5


def render(game: Game) -> str:
    view = game.public_view()
    lines = [f"{view['title']} - turn {view['turn']}, {_phase_text(view)}"]
    lines += _grid(view)
    lines.append(LEGEND)
    lines.append(
        f"Tiles placed {view['tiles_placed']}/{view['tiles_total']}, deck {view['deck_count']}, "
        f"snacks in the tin {view['tin_count']}, face-down spooks {view['face_down_spooks']}"
    )
    if view["drawn_tile"]:
        tile = view["drawn_tile"]
        lines.append(f"Tile to place: {tile['id']} {tile['name']} (as printed, before turning)")
        lines += ["    " + " ".join(row) for row in tile["grid"]]
    for spook in view["spooks"]:
        load = f" carrying {', '.join(spook['snacks'])}" if spook["snacks"] else ""
        lines.append(f"Spook {spook['id']}: {spook['kind']} at ({spook['x']}, {spook['y']}){load}")
    for card in view["cards"]:
        spooks = ", ".join(s["kind"] for s in card["spooks"]) or "none"
        snacks = ", ".join(card["snacks"]) or "none"
        flag = "  (two Spook Actions next turn)" if card["two_spook_actions_next"] else ""
        lines.append(
            f"Seat {card['seat']} {card['name']} ({card['colour']} dog): snacks {snacks}; spooks {spooks}; "
            f"{card['score']} points{flag}"
        )
    if view["dice"]:
        dice = ", ".join(
            f"{value} ({use or 'unused'})" for value, use in zip(view["dice"], view["dice_use"])
        )
        lines.append(f"Dice: {dice}")
    if view["rolls"]:
        lines.append("Rolls this turn: " + ", ".join(f"seat {r['seat']} {r['for']} {r['value']}" for r in view["rolls"]))
    if view["over"]:
        names = " and ".join(view["players"][s] for s in view["winners"])
        lines.append(f"Final scores: {view['scores']}. " + (
            f"{names} tie and become friends." if view["friends"] else f"{names} wins."))
    return "\n".join(lines)


def _phase_text(view: dict[str, Any]) -> str:
    if view["over"]:
        return "the game is over"
    who = view["players"][view["acting_player"]]
    return f"{who} to {view['step'].replace('_', ' ')}"


def _grid(view: dict[str, Any]) -> list[str]:
    bounds = view["bounds"]
    if bounds is None:
        return ["(the graveyard is empty)"]
    cells: dict[tuple[int, int], list[str]] = {}
    for tile in view["tiles"]:
        for sq in tile["squares"]:
            cells[(sq["x"], sq["y"])] = [FEATURE_CHARS[sq["feature"]], " "]
    for snack in view["snacks"]:
        cells[(snack["x"], snack["y"])][1] = "*"
    for dog in view["dogs"]:
        cells[(dog["x"], dog["y"])].append(str(dog["seat"]))
    for spook in view["spooks"]:
        cells[(spook["x"], spook["y"])].append(SPOOK_CHARS.get(spook["kind"], "?"))
    xs = range(bounds["min_x"], bounds["max_x"] + 1)
    out = ["     " + "".join(f"{x:<{CELL}}" for x in xs)]
    for y in range(bounds["min_y"], bounds["max_y"] + 1):
        row = []
        for x in xs:
            cell = cells.get((x, y))
            if cell is None:
                row.append(" " * CELL)
            else:
                tokens = "".join(cell[2:])
                text = cell[0] + cell[1] + (tokens[:2] + "+" if len(tokens) > 3 else tokens)
                row.append(f"{text:<{CELL}}")
        out.append(f"{y:>4} " + "".join(row).rstrip())
    return out


def _seat(view_players: list[str], seat: Any) -> str:
    return view_players[seat] if isinstance(seat, int) and 0 <= seat < len(view_players) else f"seat {seat}"


def describe_event(game: Game, event: Event) -> str | None:
    d = event.data
    names = game.players
    who = _seat(names, d.get("seat"))
    texts: dict[str, Callable[[], str]] = {
        "tile_drawn": lambda: f"{who} draws tile {d['tile']}",
        "tile_placed": lambda: f"{who} places tile {d['tile']} at ({d['x']}, {d['y']}), turned {d['rotation']}",
        "snack_placed": lambda: f"a {d['colour']} snack cube goes on the Jack-O-Lantern at ({d['x']}, {d['y']})",
        "spook_placed": lambda: f"a {d['kind']} rises from the Gravestone at ({d['x']}, {d['y']})",
        "dog_placed": lambda: f"{who}'s {d['colour']} dog starts at ({d['x']}, {d['y']})",
        "turn_started": lambda: f"turn {d['turn']}: {who}",
        "dice_rolled": lambda: f"{who} rolls {d['dice'][0]} and {d['dice'][1]}"
        + (" (two Spook Actions: gargoyle)" if d["two_spook_actions"] else ""),
        "die_chosen": lambda: f"{who} uses the {d['value']} for the {d['action']} action",
        "spook_action_skipped": lambda: "no spook is in the graveyard: the Spook Action is lost",
        "step_back": lambda: f"{who} takes the choice back",
        "dog_moved": lambda: f"{who}'s dog runs {d['steps']} to ({d['x']}, {d['y']})",
        "snack_collected": lambda: f"{who} collects {', '.join(d['snacks'])}",
        "spook_picked": lambda: f"{who} picks the {d['kind']}",
        "spook_moved": lambda: f"the {d['kind']} glides to ({d['x']}, {d['y']})",
        "wrestled": lambda: f"wrestle: {d['rolls'][0]} against {d['rolls'][1]}"
        + (", a tie" if d["winner"] is None else f", {_seat(names, d['winner'])} wins"
           + (f" a {d['snack']} snack" if d["snack"] else " but there is nothing to take")),
        "attacked": lambda: f"{who} attacks the {d['kind']} and rolls {d['roll']}: "
        + ("captured!" if d["captured"] else "it escapes"),
        "borked": lambda: f"{who} borks: {d['token']} {d['id']} jumps to ({d['x']}, {d['y']})",
        "bork_penalty": lambda: f"{who}'s Bork roll is {d['roll']}"
        + (f": a {d['lost']} snack is lost" if d["lost"] else ""),
        "concern": lambda: f"{who}'s dog is concerned and rolls {d['roll']}"
        + (" and flees" if d["fled"] or d.get("choosing") else ""),
        "dog_fled": lambda: f"{who}'s dog flees to ({d['x']}, {d['y']})",
        "haunted": lambda: f"the {d['kind']} haunts {', '.join(_seat(names, s) for s in d['dogs'])}",
        "haunt_missed": lambda: f"the {d['kind']} finds no dog to haunt",
        "bat_robbed": lambda: f"the bat takes a {d['taken']} snack from {_seat(names, d['victim'])}",
        "special_skipped": lambda: f"{who} does nothing more",
        "attack_declined": lambda: f"{who} does not attack",
        "game_over": lambda: f"the game is over: scores {d['scores']}",
    }
    text = texts.get(event.type)
    return text() if text else None
