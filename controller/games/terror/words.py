"""Terror in the Graveyard in a player's words: what someone does, what is offered, what happened.

One wording for everything that tells a person about a game of Terror: the
engine's ``describe`` (what the referee, the history and the game master say
someone did), and the choices and news of the terminal play. Pawns are named by
their player and label ("Ann's girl pawn"), places by the kind of space ("a
card space", "the red Danger space"), tombs by their monster and position
("the Wolf tomb", "end A"): never an id or a coordinate.

A caller that draws the board its own way may add its own mark after a pawn's
name (``mark``): the terminal play adds the pawn's letters on its grid, so its
players read "Ann's girl pawn (1g)".

Actions may come from outside and be illegal, so their words never fail on odd
parameters ("?" for an unknown player, "a card" for an unknown card). Events
come from the engine itself and are trusted to carry their fields.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from ..base import Action, Event
from .board import POSITION_WORDS
from .state import PAWN_LABELS

if TYPE_CHECKING:
    from .game import Terror

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

Mark = Callable[[int, int], str]  # (seat, pawn) -> the caller's own short mark for that pawn


def space_words(kind: str | None) -> str:
    """A kind of space as players say it: "the red arrow", "a Skeleton Hand"."""
    if kind is None:
        return "off the board"
    if kind.startswith("arrow-"):
        return f"the {kind[6:]} arrow"
    if kind.startswith("danger-"):
        return f"the {kind[7:]} Danger space"
    return SPACE_WORDS.get(kind, "a space")


def space_at(game: "Terror", rc: Any) -> str:
    """The space at ``[row, column]`` as the tombs stand now, in words."""
    try:
        index = game.board.cell(rc)
    except ValueError:
        return "a space not on the board"  # only an illegal action, from outside, names one
    return space_words(game.board.types(game.cfg)[index])


def card_title(game: "Terror", card_id: Any) -> str:
    card = game.deck.cards.get(card_id) if isinstance(card_id, str) else None
    return card.title if card is not None else "a card"


def _is_seat(players: list[str], seat: Any) -> bool:
    return isinstance(seat, int) and not isinstance(seat, bool) and 0 <= seat < len(players)


def _label(pawn: Any) -> str:
    return PAWN_LABELS[pawn] if pawn in (0, 1) and not isinstance(pawn, bool) else str(pawn)


def _marked(mark: Mark | None, seat: Any, pawn: Any) -> str:
    known = isinstance(seat, int) and not isinstance(seat, bool) and pawn in (0, 1) and not isinstance(pawn, bool)
    return f" ({mark(seat, pawn)})" if mark is not None and known else ""


class _Said:
    """The words one action is made of, for both ways of saying it."""

    def __init__(self, game: "Terror", action: Action, mark: Mark | None) -> None:
        self.game, self.mark = game, mark
        self.p = action.params
        players = game.s.players
        self.seat = action.player
        self.name = players[action.player] if _is_seat(players, action.player) else "?"
        self.pawn = _label(self.p.get("pawn"))

    def own_pawn(self) -> str:
        """The acting pawn, said to its player: "your girl pawn (1g)"."""
        return f"your {self.pawn} pawn{_marked(self.mark, self.seat, self.p.get('pawn'))}"

    def target(self, offered: bool) -> str:
        target = self.p.get("target")
        players = self.game.s.players
        if not (isinstance(target, list) and len(target) == 2 and _is_seat(players, target[0])):
            return "a pawn"
        seat, pawn = target
        mark = _marked(self.mark, seat, pawn)
        if offered and seat == self.seat:
            return f"your own {_label(pawn)} pawn{mark}"
        return f"{players[seat]}'s {_label(pawn)} pawn{mark}"

    def tomb(self) -> str:
        to = str(self.p.get("to"))
        return f"the {str(self.p.get('tomb')).title()} tomb to {POSITION_WORDS.get(to, to)}"

    def to(self) -> str:
        return space_at(self.game, self.p.get("to"))

    def skull(self) -> tuple[str, str]:
        # Chance or the Crypt's windows decide it, never a choice: one sentence either way.
        text = ("The skull knocks the Headless Ghost off its launcher!" if self.p.get("hit")
                else "The skull rolls out of the other window")
        return text, text

    def card(self, offered: bool) -> str:
        """A card played, then on whom, for which of the player's pawns and where to."""
        p = self.p
        text = card_title(self.game, p.get("card"))
        if "target" in p:
            text += f" on {self.target(offered)}"
        if p.get("pawn") in (0, 1) and not isinstance(p.get("pawn"), bool):
            text += f" for {'your' if offered else 'their'} {self.pawn} pawn"
        if "to" in p:
            text += f", to {self.to()}"
        return text


# Each kind of action: (what its player did, the choice as offered to that player).
_ACTIONS: dict[str, Callable[[_Said], tuple[str, str]]] = {
    "roll": lambda w: (f"{w.name} rolls both dice", "Roll both dice"),
    "move_tomb": lambda w: (f"{w.name} slides {w.tomb()}", f"Slide {w.tomb()}"),
    "move_pawn": lambda w: (f"{w.name} moves the {w.pawn} pawn to {w.to()}", f"{w.own_pawn()} to {w.to()}"),
    "attempt_skull": lambda w: (f"{w.name}'s {w.pawn} pawn shows a Magic Ring and drops the skull",
                                f"Show your Magic Ring and drop the skull (your {w.pawn} pawn)"),
    "skull_outcome": _Said.skull,
    "end_turn": lambda w: (f"{w.name} ends the turn",
                           "End your turn" + (" without moving" if w.game.s.phase == "move" else "")),
    "place_monster": lambda w: (f"{w.name} puts the Monster card on {w.target(False)}",
                                f"Put the Monster card on {w.target(True)}"),
    "play_card": lambda w: (f"{w.name} plays {w.card(False)}", f"Play {w.card(True)}"),
}


def describe_action(game: "Terror", action: Action, *, offered: bool = False, mark: Mark | None = None) -> str:
    """``action`` in words: what its player does ("Ann rolls both dice"), or, ``offered``, the
    choice as put to that player ("Roll both dice")."""
    said = _ACTIONS.get(action.kind)
    if said is None:
        return action.to_text()
    about, offer = said(_Said(game, action, mark))
    return offer if offered else about


# ----- events ---------------------------------------------------------------------------
def describe_event(game: "Terror", event: Event, viewer: int | None = None, *, mark: Mark | None = None) -> str:
    """``event`` in words, or "" for an event this wording does not know. Its secret (the card
    a pawn drew and saved) is told only when ``viewer`` is the seat it belongs to."""
    said = _EVENTS.get(event.type)
    return said(_Told(game, event, viewer, mark)) if said is not None else ""


class _Told:
    """The words one event is made of."""

    def __init__(self, game: "Terror", event: Event, viewer: int | None, mark: Mark | None) -> None:
        self.game, self.d, self.mark = game, event.data, mark
        self.names = game.s.players
        self.mine = viewer is not None and event.private_to == viewer and bool(event.secret)
        self.secret = event.secret

    def pawn(self, x: Mapping[str, Any] | None = None) -> str:
        x = self.d if x is None else x
        return f"{self.names[x['seat']]}'s {x['label']} pawn{_marked(self.mark, x['seat'], x['pawn'])}"

    def seat(self) -> str:
        return self.names[self.d["seat"]]

    def moved(self) -> str:
        d = self.d
        where = space_at(self.game, d["to"])
        if d["by"].startswith("arrow-"):
            return f"{self.pawn()} follows the {d['by'][6:]} arrow to {where}."
        return f"{self.pawn()} moved{' by a card' if d['by'] == 'card' else ''} to {where}."

    def drawn(self) -> str:
        d = self.d
        if "card" in d:
            return f"{self.pawn()} drew {d['card']['title']} (Play Now!): {d['card']['text']}"
        if self.mine:
            card = self.secret.get("card") or {}
            return f"{self.pawn()} drew {card.get('title', 'a card')} and saved it (only you know)."
        return f"{self.pawn()} drew a card and saved it."

    def won(self) -> str:
        who = " and ".join(self.names[s] for s in self.d["seats"])
        why = ("destroyed the Headless Ghost" if self.d["reason"] == "ghost"
               else "is the only player left (News from the Crypt)")
        return f"{who} {why} and wins!"


_EVENTS: dict[str, Callable[[_Told], str]] = {
    "rolled": lambda t: f"{t.seat()} rolled {t.d['number']} and the {t.d['symbol'].title()}.",
    "tomb_moved": lambda t: (f"The {t.d['tomb'].title()} tomb slid from {POSITION_WORDS[t.d['from']]} "
                             f"to {POSITION_WORDS[t.d['to']]}."),
    "pawn_moved": _Told.moved,
    "pawn_fell": lambda t: f"{t.pawn()} fell into a pit and is out; {t.d['discarded']} card(s) discarded.",
    "player_out": lambda t: f"Grave News: {t.seat()} has lost both pawns and is out of the game.",
    "paralysed": lambda t: f"{t.pawn()} is paralysed by a Skeleton Hand.",
    "cured": lambda t: f"{t.pawn()} is cured and no longer a Monster.",
    "no_draw": lambda t: f"{t.pawn()} is a Monster and cannot draw a card.",
    "card_drawn": _Told.drawn,
    "reshuffled": lambda t: f"The discard pile was shuffled into a new draw pile of {t.d['cards']} cards.",
    "deck_empty": lambda t: "There are no cards left to draw.",
    "monster_placed": lambda t: f"{t.pawn()} is now a Monster!",
    "monster_reversed": lambda t: (f"{t.pawn(t.d['from'])} had a Monster Reversal: "
                                   f"the Monster goes back to {t.pawn(t.d['to'])}."),
    "card_played": lambda t: f"{t.seat()} plays {t.d['card']['title']}: {t.d['card']['text']}",
    "ring_stolen": lambda t: (f"{t.pawn(t.d['to'])} stole a Magic Ring from {t.pawn(t.d['from'])}!"
                              if "from" in t.d and "to" in t.d else "A Magic Ring was stolen!"),
    "steal_failed": lambda t: (f"{t.pawn(t.d['from'])} had no Magic Ring to steal." if "from" in t.d
                               else "There was no Magic Ring to steal."),
    "pawns_switched": lambda t: f"{t.pawn(t.d['a'])} and {t.pawn(t.d['b'])} switched places.",
    "extra_turn": lambda t: f"{t.seat()} will take another full turn.",
    "skull_attempt": lambda t: f"{t.pawn()} shows a Magic Ring and drops the skull down the chute...",
    "skull_hit": lambda t: "The skull hits the launcher and the Headless Ghost flies off!",
    "skull_missed": lambda t: "The skull rolls out of the other window. Try again next turn.",
    "game_won": _Told.won,
    "game_over": lambda t: "Every remaining pawn fell at once: nobody wins.",
    "turn_ended": lambda t: f"{t.seat()}'s turn ends.",
    "turn_started": lambda t: f"{t.seat()}'s {'extra ' if t.d['extra'] else ''}turn begins.",
}
