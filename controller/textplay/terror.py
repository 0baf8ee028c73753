"""Terror in the Graveyard as text: the board grid, the pawns, and events in words.

Each cell is five characters: a two-letter space code, then up to two pawn
letters. A seat's girl pawn is its lower-case letter and its boy pawn the
upper-case one (seat 0: ``a``/``A``, seat 1: ``b``/``B``, ...).
"""

from __future__ import annotations

from typing import Any

from controller.games import Event, Game
from controller.games.terror import POSITION_WORDS

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
LEGEND = (
    ".. grass  ## bushes  G card space  + potion  H skeleton hand  >r >p >g arrows  !r !p !g danger\n"
    "Mu Mo Wo tomb over its pit  En entrance  Ex exit  Ga gate  Cr crypt  a/A seat 0's girl/boy, b/B seat 1's..."
)


def pawn_letter(seat: int, pawn: int) -> str:
    letter = chr(ord("a") + seat)
    return letter if pawn == 0 else letter.upper()


def render(game: Game) -> str:
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
                here.setdefault(tuple(pawn["pos"]), []).append(pawn_letter(seat["seat"], pawn["pawn"]))
    lines = ["     " + "".join(f"{c:<5}" for c in range(board["cols"])).rstrip()]
    for r, row in enumerate(board["cells"]):
        cells = []
        for c, kind in enumerate(row):
            code = "  " if kind is None else pits.get((r, c)) or CODES.get(kind, "??")
            who = here.get((r, c), [])
            marks = "".join(who) if len(who) <= 2 else f"{len(who)}+"
            cells.append(f"{code}{marks:<2} ")
        lines.append(f"{r:>3}  " + "".join(cells).rstrip())
    lines.append(LEGEND)
    lines.append("Tombs: " + ", ".join(f"{t.title()} at {POSITION_WORDS[p]}" for t, p in view["tombs"].items()))
    for seat in view["players"]:
        marker = "->" if view["current_player"] == seat["seat"] else "  "
        pawns = "; ".join(_pawn_line(seat["seat"], p) for p in seat["pawns"])
        status = " OUT" if seat["out"] else ""
        lines.append(f"{marker} seat {seat['seat']} {seat['name']} ({seat['colour']}){status}: {pawns}")
    dice = view["dice"]
    if dice["number"] is not None:
        lines.append(f"Dice: {dice['number']} and the {str(dice['symbol']).title()}")
    lines.append(
        f"Draw pile {view['draw_count']}, discard pile {view['discard_count']}. "
        f"Headless Ghost: {view['skull']['ghost']}. Phase: {view['phase']}."
    )
    if view["extra_turns"]:
        lines.append(f"Extra turns to come: {view['extra_turns']}")
    if view["over"]:
        names = [view["players"][s]["name"] for s in view["winners"]]
        lines.append("Game over: " + (", ".join(names) + " won!" if names else "nobody survived."))
    return "\n".join(lines)


def _pawn_line(seat: int, pawn: dict[str, Any]) -> str:
    letter = pawn_letter(seat, pawn["pawn"])
    if pawn["out"]:
        return f"{pawn['label']} {letter} out (fell into a pit)"
    where = {"gate": "on the Gate platform", "crypt": "on the Crypt platform"}.get(pawn["where"], f"at {pawn['pos']}")
    flags = []
    if pawn["monster"]:
        flags.append(f"MONSTER ({pawn['monster_card']['title']})")
    if pawn["paralysed"]:
        flags.append("PARALYSED")
    flags.append(f"{pawn['cards']} card(s)")
    return f"{pawn['label']} {letter} {where}, " + ", ".join(flags)


def render_private(game: Game, seat: int) -> str:
    view = game.player_view(seat)
    lines = []
    for pawn in view["you"]["pawns"]:
        cards = ", ".join(f"{c['title']} [{c['id']}, {c['kind_name']}]" for c in pawn["cards"]) or "no cards"
        lines.append(f"{view['players'][seat]['name']}'s {pawn['label']} pawn holds: {cards}")
    return "\n".join(lines)


def describe_event(game: Game, event: Event) -> str:
    d = event.data
    names = game.players

    def pawn(x: Any) -> str:
        return f"{names[x['seat']]}'s {x['label']} pawn"

    t = event.type
    if t == "rolled":
        return f"{names[d['seat']]} rolled {d['number']} and the {d['symbol'].title()}."
    if t == "tomb_moved":
        return f"The {d['tomb'].title()} tomb slid from {POSITION_WORDS[d['from']]} to {POSITION_WORDS[d['to']]}."
    if t == "pawn_moved":
        if d["by"].startswith("arrow-"):
            return f"{pawn(d)} follows the {d['by'][6:]} arrow to the {d['by'][6:]} Danger space at {d['to']}."
        how = " by a card" if d["by"] == "card" else ""
        return f"{pawn(d)} moved{how} to {d['to']}."
    if t == "pawn_fell":
        return f"{pawn(d)} fell into the pit at {d['cell']} and is out; {d['discarded']} card(s) discarded."
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
        secret = event.secret.get("card") if event.secret else None
        extra = f" (only {names[d['seat']]} sees it: {secret['title']})" if secret else ""
        return f"{pawn(d)} drew a card and saved it.{extra}"
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
        return f"{pawn(d['to'])} stole a Magic Ring from {pawn(d['from'])}!"
    if t == "steal_failed":
        return f"{pawn(d['from'])} had no Magic Ring to steal."
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
