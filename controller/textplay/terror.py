"""Terror in the Graveyard as text: the board grid, the pawns, choices and events in words.

Each cell is eight characters: a two-letter space code, up to four characters
of pawns, and the letter of a destination when there is a choice to make. A
pawn is its player's number and ``g`` (girl) or ``b`` (boy): ``1g`` is player
1's girl pawn. Letters (``a``, ``b``, ...) are only ever destinations.
Positions are said in words (a card space, the red Danger space), never as
coordinates. Choices and events are worded by the game's package (one wording
with the referee's and the history's); this module adds each pawn's mark on the
grid ("Ann's girl pawn (1g)") and decides where on the board a choice leads.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from controller.games import Action, Event, Game
from controller.games.terror import (
    POSITION_WORDS,
    Terror,
    card_title,
    describe_action,
    space_at,
)
from controller.games.terror import describe_event as describe_terror_event

from . import Chance
from .menu import Option, Place, Position

INTERRUPTS = True  # Play Anytime! cards are played during another player's turn
CODES: dict[str, str] = {
    "grass": "..",
    "bush": "##",
    "g": "G ",
    "potion": "+ ",
    "hand": "H ",
    "entrance": "En",
    "exit": "Ex",
    "gate": "Ga",
    "crypt": "Cr",
    "arrow-red": ">r",
    "arrow-purple": ">p",
    "arrow-gold": ">g",
    "danger-red": "!r",
    "danger-purple": "!p",
    "danger-gold": "!g",
}
PIT_CODES = {"mummy": "Mu", "monster": "Mo", "wolf": "Wo"}
CELL = 8


def legend(game: Game) -> str:
    return (
        ".. grass  ## bushes  G card space  + Magic Potion  H Skeleton Hand  >r >p >g arrows  !r !p !g Danger\n"
        "Mu Mo Wo a tomb over its pit  En Entrance  Ex Exit  Ga Gate platform  Cr Crypt platform\n"
        "1g 1b: player 1's girl and boy pawns (2g 2b player 2's...); 1g+2: 1g and 2 more pawns on that space\n"
        "a b c ... just before a space: where a choice leads (type the letter)"
    )


def token(seat: int, pawn: int) -> str:
    return f"{seat + 1}{'g' if pawn == 0 else 'b'}"


def sections(game: Game, marks: Mapping[Place, str]) -> list[tuple[str, str]]:
    view = game.public_view()
    board = view["board"]
    pits = {}
    for tomb, platform in board["platforms"].items():
        r, c = platform["track"][view["tombs"][tomb]]
        pits[(r, c)] = PIT_CODES.get(tomb, "()")
    here: dict[tuple[int, int], list[str]] = {}
    for seat in view["players"]:
        for pawn in seat["pawns"]:
            if pawn["pos"] is not None:
                here.setdefault(tuple(pawn["pos"]), []).append(token(seat["seat"], pawn["pawn"]))
    lines = []
    for r, row in enumerate(board["cells"]):
        cells = []
        for c, kind in enumerate(row):
            code = "  " if kind is None else pits.get((r, c)) or CODES.get(kind, "??")
            who = here.get((r, c), [])
            pawns = "".join(who) if len(who) <= 2 else f"{who[0]}+{len(who) - 1}"
            # A choice's letter stands just before the space it names, never between two spaces.
            cells.append(f"{marks.get((r, c), ' ')}{code}{pawns:<4} ")
        lines.append("".join(cells).rstrip())
    # The codes the grid uses, under it every time: "Ga1g+3" was explained only to who typed "board".
    lines.append("Key: 1g 1b = player 1's girl and boy; 1g+2 = 1g and 2 more pawns on that space.")
    lines.append("     A letter just before a space is a choice: type it. 'board' shows the whole key.")
    out = [("grid", "\n".join(lines))]
    tombs = ", ".join(f"{t.title()} at {POSITION_WORDS[p]}" for t, p in view["tombs"].items())
    out.append(("tombs", f"Tombs: {tombs}"))
    for seat in view["players"]:
        marker = "->" if view["current_player"] == seat["seat"] else "  "
        pawns = "; ".join(_pawn_line(game, seat["seat"], p) for p in seat["pawns"])
        status = " OUT of the game" if seat["out"] else ""
        out.append((f"player{seat['seat']}",
                    f"{marker} {seat['seat'] + 1} {seat['name']} ({seat['colour']}){status}: {pawns}"))
    dice = view["dice"]
    if dice["number"] is not None:
        out.append(("dice", f"Dice: {dice['number']} and the {str(dice['symbol']).title()}"))
    ghost = "knocked off!" if view["skull"]["ghost"] == "destroyed" else "on its launcher"
    out.append(("piles", (f"Draw pile {view['draw_count']}, discard pile {view['discard_count']}. "
                          f"Headless Ghost: {ghost}.")))
    if view["extra_turns"]:
        out.append(("extra", f"Extra turns to come: {view['extra_turns']}"))
    return out


def _pawn_line(game: Game, seat: int, pawn: Mapping[str, Any]) -> str:
    assert isinstance(game, Terror)
    name = f"{pawn['label']} {token(seat, pawn['pawn'])}"
    if pawn["out"]:
        return f"{name} fell into a pit"
    # The game's own words for where the pawn stands (the Gate and Crypt platforms are spaces too).
    where = f"on {space_at(game, pawn['pos'])}"
    flags = []
    if pawn["monster"]:
        flags.append(f"MONSTER ({pawn['monster_card']['title']})")
    if pawn["paralysed"]:
        flags.append("PARALYSED")
    n = pawn["cards"]
    flags.append(f"{n} saved card{'s' if n != 1 else ''}")
    return f"{name} {where}, " + ", ".join(flags)


def private(game: Game, seat: int) -> str:
    view = game.player_view(seat)
    lines = [f"Only for {view['players'][seat]['name']}: your saved cards"]
    for pawn in view["you"]["pawns"]:
        cards = ", ".join(f"{c['title']} ({c['kind_name']})" for c in pawn["cards"]) or "none"
        lines.append(f"  under your {pawn['label']} pawn ({token(seat, pawn['pawn'])}): {cards}")
    return "\n".join(lines)


def position(game: Game) -> Position:
    return lambda place: (float(place[0]), float(place[1]))  # type: ignore[index]


# ----- choices ----------------------------------------------------------------------
def options(game: Game, seat: int, actions: Sequence[Action]) -> list[Option]:
    assert isinstance(game, Terror)
    made = [_option(game, a) for a in actions]

    def order(o: Option) -> int:
        # A Monster card goes on an opponent first; the player's own pawn is the last choice.
        target = o.action.params.get("target")
        return int(o.action.kind == "place_monster" and isinstance(target, list) and target[:1] == [seat])

    return sorted(made, key=order)


def _option(game: Terror, a: Action) -> Option:
    """The choice in the game's words; a move or a card that sends a pawn somewhere gets that place."""
    label = describe_action(game, a, offered=True, mark=token)
    p = a.params
    to = tuple(p["to"]) if "to" in p else None
    if a.kind == "move_pawn":
        return Option(a, label, place=to)
    if a.kind == "play_card":
        return Option(a, label, place=to, group=f"Play {card_title(game, p.get('card'))}")
    return Option(a, label)


def automatic(game: Game, actions: Sequence[Action], chance: Chance) -> tuple[Action, str] | None:
    """With no physical Crypt, chance decides where the dropped skull goes: never a menu.

    The skull falls at once, so nothing else is offered while it is in the chute.
    """
    if not any(a.kind == "skull_outcome" for a in actions):
        return None
    hit = chance.happens(chance.skull_hit)
    action = next((a for a in actions if a.params.get("hit") is hit), None)
    if action is None:
        return None
    return action, "The skull rattles down the Crypt's chute..."


# ----- events ---------------------------------------------------------------------------
def describe_event(game: Game, event: Event, viewer: int | None) -> str:
    assert isinstance(game, Terror)
    return describe_terror_event(game, event, viewer, mark=token)
