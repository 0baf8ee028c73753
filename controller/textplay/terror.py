"""Terror in the Graveyard as text: the board grid, the pawns, choices and events in words.

Each cell is eight characters: a two-letter space code, up to four characters
of pawns, and the letter of a destination when there is a choice to make. A
pawn is its player's number and ``g`` (girl) or ``b`` (boy): ``1g`` is player
1's girl pawn. Letters (``a``, ``b``, ...) are only ever destinations.
Positions are said in words (a card space, the red Danger space), never as
coordinates.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from controller.games import Action, Event, Game
from controller.games.terror import POSITION_WORDS

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
SPACE_WORDS = {
    "grass": "a grass space",
    "bush": "the bushes",
    "g": "a card space",
    "potion": "a Magic Potion space",
    "hand": "a Skeleton Hand",
    "entrance": "the Entrance",
    "exit": "the Exit",
    "gate": "the Gate platform",
    "crypt": "the Crypt platform",
    "pit": "a pit",
}
CELL = 8
LABELS = ("girl", "boy")


def legend(game: Game) -> str:
    return (
        ".. grass  ## bushes  G card space  + Magic Potion  H Skeleton Hand  >r >p >g arrows  !r !p !g Danger\n"
        "Mu Mo Wo a tomb over its pit  En Entrance  Ex Exit  Ga Gate platform  Cr Crypt platform\n"
        "1g 1b: player 1's girl and boy pawns (2g 2b player 2's...)  a b c ...: where a choice leads"
    )


def token(seat: int, pawn: int) -> str:
    return f"{seat + 1}{'g' if pawn == 0 else 'b'}"


def space_words(kind: str | None) -> str:
    if kind is None:
        return "off the board"
    if kind.startswith("arrow-"):
        return f"the {kind[6:]} arrow"
    if kind.startswith("danger-"):
        return f"the {kind[7:]} Danger space"
    return SPACE_WORDS.get(kind, "a space")


def _cell_kind(view: Mapping[str, Any], rc: Any) -> str | None:
    try:
        return view["board"]["cells"][rc[0]][rc[1]]  # type: ignore[no-any-return]
    except (TypeError, IndexError, KeyError):
        return None


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
            cells.append(f"{code}{pawns:<4}{marks.get((r, c), ' ')} ")
        lines.append("".join(cells).rstrip())
    out = [("grid", "\n".join(lines))]
    out.append(("tombs", "Tombs: " + ", ".join(f"{t.title()} at {POSITION_WORDS[p]}" for t, p in view["tombs"].items())))
    for seat in view["players"]:
        marker = "->" if view["current_player"] == seat["seat"] else "  "
        pawns = "; ".join(_pawn_line(view, seat["seat"], p) for p in seat["pawns"])
        status = " OUT of the game" if seat["out"] else ""
        out.append((f"player{seat['seat']}",
                    f"{marker} {seat['seat'] + 1} {seat['name']} ({seat['colour']}){status}: {pawns}"))
    dice = view["dice"]
    if dice["number"] is not None:
        out.append(("dice", f"Dice: {dice['number']} and the {str(dice['symbol']).title()}"))
    ghost = "knocked off!" if view["skull"]["ghost"] == "destroyed" else "on its launcher"
    out.append(("piles", f"Draw pile {view['draw_count']}, discard pile {view['discard_count']}. Headless Ghost: {ghost}."))
    if view["extra_turns"]:
        out.append(("extra", f"Extra turns to come: {view['extra_turns']}"))
    return out


def _pawn_line(view: Mapping[str, Any], seat: int, pawn: Mapping[str, Any]) -> str:
    name = f"{pawn['label']} {token(seat, pawn['pawn'])}"
    if pawn["out"]:
        return f"{name} fell into a pit"
    where = {"gate": "on the Gate platform", "crypt": "on the Crypt platform"}.get(
        pawn["where"], f"on {space_words(_cell_kind(view, pawn['pos']))}")
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
    view = game.player_view(seat)
    cards = {c["id"]: c for p in view["you"]["pawns"] for c in p["cards"]}
    made = [_option(game, view, cards, seat, a) for a in actions]

    def order(o: Option) -> int:
        # A Monster card goes on an opponent first; the player's own pawn is the last choice.
        target = o.action.params.get("target")
        return int(o.action.kind == "place_monster" and isinstance(target, list) and target[:1] == [seat])

    return sorted(made, key=order)


def _pawn_words(game: Game, seat: int, target: Any) -> str:
    if not (isinstance(target, list) and len(target) == 2):
        return "a pawn"
    ts, tk = target
    if ts == seat:
        return f"your own {LABELS[tk]} pawn ({token(ts, tk)})"
    return f"{game.players[ts]}'s {LABELS[tk]} pawn ({token(ts, tk)})"


def _option(game: Game, view: Mapping[str, Any], cards: Mapping[str, Any], seat: int, a: Action) -> Option:
    p = a.params
    kind = a.kind
    if kind == "roll":
        return Option(a, "Roll both dice")
    if kind == "move_tomb":
        return Option(a, f"Slide the {str(p['tomb']).title()} tomb to {POSITION_WORDS.get(p['to'], 'its next place')}")
    if kind == "move_pawn":
        to = tuple(p["to"])
        return Option(a, f"your {LABELS[p['pawn']]} pawn ({token(seat, p['pawn'])}) to "
                         f"{space_words(_cell_kind(view, to))}", place=to)
    if kind == "attempt_skull":
        return Option(a, f"Show your Magic Ring and drop the skull (your {LABELS[p['pawn']]} pawn)")
    if kind == "end_turn":
        return Option(a, "End your turn" + (" without moving" if view["phase"] == "move" else ""))
    if kind == "place_monster":
        return Option(a, f"Put the Monster card on {_pawn_words(game, seat, p['target'])}")
    if kind == "skull_outcome":
        return Option(a, "The skull knocks the Headless Ghost off" if p["hit"] else "The skull misses")
    if kind == "play_card":
        card = cards.get(p.get("card"))
        title = card["title"] if card else "a card"
        text = f"Play {title}"
        if "pawn" in p:
            text += f" for your {LABELS[p['pawn']]} pawn" if p["pawn"] in (0, 1) else ""
        if "target" in p:
            text += f" on {_pawn_words(game, seat, p['target'])}"
        if "to" in p:
            to = tuple(p["to"])
            return Option(a, f"{text}, to {space_words(_cell_kind(view, to))}", place=to, group=f"Play {title}")
        return Option(a, text, group=f"Play {title}")
    return Option(a, game.describe(a), group=kind)


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
    d = event.data
    names = game.players
    view = game.public_view()

    def pawn(x: Any) -> str:
        return f"{names[x['seat']]}'s {x['label']} pawn ({token(x['seat'], x['pawn'])})"

    mine = viewer is not None and event.private_to == viewer and bool(event.secret)
    t = event.type
    if t == "rolled":
        return f"{names[d['seat']]} rolled {d['number']} and the {d['symbol'].title()}."
    if t == "tomb_moved":
        return f"The {d['tomb'].title()} tomb slid from {POSITION_WORDS[d['from']]} to {POSITION_WORDS[d['to']]}."
    if t == "pawn_moved":
        where = space_words(_cell_kind(view, d["to"]))
        if d["by"].startswith("arrow-"):
            return f"{pawn(d)} follows the {d['by'][6:]} arrow to {where}."
        how = " by a card" if d["by"] == "card" else ""
        return f"{pawn(d)} moved{how} to {where}."
    if t == "pawn_fell":
        return f"{pawn(d)} fell into a pit and is out; {d['discarded']} card(s) discarded."
    if t == "player_out":
        return f"Grave News: {names[d['seat']]} has lost both pawns and is out of the game."
    if t == "paralysed":
        return f"{pawn(d)} is paralysed by a Skeleton Hand."
    if t == "cured":
        return f"{pawn(d)} is cured and no longer a Monster."
    if t == "no_draw":
        return f"{pawn(d)} is a Monster and cannot draw a card."
    if t == "card_drawn":
        if "card" in d:
            return f"{pawn(d)} drew {d['card']['title']} (Play Now!): {d['card']['text']}"
        if mine:
            card = event.secret.get("card") or {}
            return f"{pawn(d)} drew {card.get('title', 'a card')} and saved it (only you know)."
        return f"{pawn(d)} drew a card and saved it."
    if t == "reshuffled":
        return f"The discard pile was shuffled into a new draw pile of {d['cards']} cards."
    if t == "deck_empty":
        return "There are no cards left to draw."
    if t == "monster_placed":
        return f"{pawn(d)} is now a Monster!"
    if t == "monster_reversed":
        return f"{pawn(d['from'])} had a Monster Reversal: the Monster goes back to {pawn(d['to'])}."
    if t == "card_played":
        return f"{names[d['seat']]} plays {d['card']['title']}: {d['card']['text']}"
    if t == "ring_stolen":
        if "from" in d and "to" in d:
            return f"{pawn(d['to'])} stole a Magic Ring from {pawn(d['from'])}!"
        return "A Magic Ring was stolen!"
    if t == "steal_failed":
        return f"{pawn(d['from'])} had no Magic Ring to steal." if "from" in d else "There was no Magic Ring to steal."
    if t == "pawns_switched":
        return f"{pawn(d['a'])} and {pawn(d['b'])} switched places."
    if t == "extra_turn":
        return f"{names[d['seat']]} will take another full turn."
    if t == "skull_attempt":
        return f"{pawn(d)} shows a Magic Ring and drops the skull down the chute..."
    if t == "skull_hit":
        return "The skull hits the launcher and the Headless Ghost flies off!"
    if t == "skull_missed":
        return "The skull rolls out of the other window. Try again next turn."
    if t == "game_won":
        who = " and ".join(names[s] for s in d["seats"])
        why = "destroyed the Headless Ghost" if d["reason"] == "ghost" else "is the only player left (News from the Crypt)"
        return f"{who} {why} and wins!"
    if t == "game_over":
        return "Every remaining pawn fell at once: nobody wins."
    if t == "turn_ended":
        return f"{names[d['seat']]}'s turn ends."
    if t == "turn_started":
        return f"{names[d['seat']]}'s {'extra ' if d['extra'] else ''}turn begins."
    return ""
