"""Terror in the Graveyard in a player's words: what someone does, what is offered, what happened.

One wording for everything that tells a person about a game of Terror: the
engine's ``describe`` (what the referee, the history and the game master say
someone did), the choices and news of the terminal play, the board's own
refusals and the board editor's reasons. Pawns are named by their player and
label ("Ann's girl pawn"), kinds of space by what is printed on them, from one
table of names ("a card space", "the red Danger space"), one space of the board
by its kind and the named places near it ("the card space next to the Exit"),
tombs by their monster and position ("the Wolf tomb", "end A"): never an id or
a coordinate.

A caller that draws the board its own way may add its own mark after a pawn's
name (``mark``): the terminal play adds the pawn's letters on its grid, so its
players read "Ann's girl pawn (1g)".

Actions may come from outside and be illegal, so their words never fail on odd
parameters ("?" for an unknown player, "a card" for an unknown card). Events
come from the engine itself and are trusted to carry their fields.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Protocol

from ..base import Action, Event

# Words printed on the board and the Pawn cards. They live here, below every other module of
# the game (this module imports none of them), so the board's own checks can word what they find.
COLOURS: tuple[str, ...] = ("red", "purple", "gold")  # the sliding platforms, their arrows and Danger spaces
PAWN_LABELS: tuple[str, str] = ("girl", "boy")
POSITION_WORDS = {"end_a": "end A", "middle": "the middle", "end_b": "end B"}  # a tomb's positions



# What these words read of the board and of a game, written out so that this module imports none of
# the game's others (the board's own checks are worded here): board.Board and game.Terror have it all.
class _Platform(Protocol):
    @property
    def colour(self) -> str: ...

    @property
    def track(self) -> Mapping[str, int]: ...

    @property
    def spaces(self) -> Mapping[int, Mapping[str, str]]: ...


class Board(Protocol):
    """What the words read of a board (:class:`controller.games.terror.board.Board`)."""

    @property
    def cols(self) -> int: ...

    @property
    def gate(self) -> int: ...

    @property
    def crypt(self) -> int: ...

    @property
    def entrance(self) -> int: ...

    @property
    def exit(self) -> int: ...

    @property
    def platforms(self) -> Mapping[str, _Platform]: ...

    def cell(self, rc: Any) -> int: ...

    def types(self, cfg: int) -> tuple[str | None, ...]: ...

    def config_tombs(self, index: int) -> dict[str, str]: ...


class _Card(Protocol):
    @property
    def title(self) -> str: ...


class _Deck(Protocol):
    @property
    def cards(self) -> Mapping[str, _Card]: ...


class _State(Protocol):
    @property
    def players(self) -> list[str]: ...

    @property
    def phase(self) -> str: ...


class Terror(Protocol):
    """What the words read of a game (:class:`controller.games.terror.game.Terror`)."""

    @property
    def board(self) -> Board: ...

    @property
    def cfg(self) -> int: ...

    @property
    def deck(self) -> _Deck: ...

    @property
    def s(self) -> _State: ...


# What is printed on each kind of space: the one table of their names, for every wording of a space.
_NOUNS = {
    "grass": "grass space",
    "bush": "bushes",
    "g": "card space",
    "potion": "Magic Potion space",
    "hand": "Skeleton Hand",
    "pit": "pit",
    "entrance": "Entrance",
    "exit": "Exit",
    "gate": "Gate platform",
    "crypt": "Crypt platform",
}
# Kinds the board has one of ("the bushes" are said as one, as the rulebook does).
_ONE_ON_THE_BOARD = frozenset({"bush", "entrance", "exit", "gate", "crypt"})


def kind_noun(kind: Any) -> str | None:
    """What is printed on a space of ``kind``, without an article ("grass space", "red arrow");
    ``None`` for a kind the game does not have (an owner's board file may hold anything)."""
    if not isinstance(kind, str):
        return None
    for prefix, noun in (("arrow-", "arrow"), ("danger-", "Danger space")):
        if kind.startswith(prefix):
            colour = kind[len(prefix):]
            return f"{colour} {noun}" if colour in COLOURS else None
    return _NOUNS.get(kind)


def space_words(kind: str | None) -> str:
    """A kind of space as said of where a pawn goes: "a grass space", "the red arrow", "the Exit"."""
    if kind is None:
        return "off the board"
    noun = kind_noun(kind)
    if noun is None:
        return "a space"
    # An arrow or a Danger space is named by its colour, as players call the one they mean.
    one = kind in _ONE_ON_THE_BOARD or kind.startswith(("arrow-", "danger-"))
    return f"{'the' if one else 'a'} {noun}"


def kind_words(kind: Any) -> str:
    """Any one space of ``kind``, as the board editor says what a space shows: "a grass space",
    "a red arrow", "the bushes"."""
    noun = kind_noun(kind)
    if noun is None:
        return "something the game does not know"
    return f"{'the' if kind in _ONE_ON_THE_BOARD else 'a'} {noun}"


def space_at(game: Terror, rc: Any) -> str:
    """The space at ``[row, column]`` as the tombs stand now, in words."""
    try:
        index = game.board.cell(rc)
    except ValueError:
        return "a space not on the board"  # only an illegal action, from outside, names one
    return space_words(game.board.types(game.cfg)[index])


def place_at(game: Terror, rc: Any) -> str:
    """The space at ``[row, column]``, as the tombs stand now, the way a player finds it (:func:`place_words`)."""
    try:
        index = game.board.cell(rc)
    except ValueError:
        return "its place"
    return place_words(game.board, game.cfg, index)


# ----- one space of the board, found by a player -------------------------------------------
_COUNTS = ("no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve")


def _named_places(board: Board, cfg: int) -> dict[int, str]:
    """The places of the board that have a name, by cell: the tombs where they stand now."""
    tombs = board.config_tombs(cfg)
    named = {board.gate: "the Gate platform", board.entrance: "the Entrance", board.exit: "the Exit",
             board.crypt: "the Crypt platform"}
    for tomb, platform in board.platforms.items():
        named[platform.track[tombs[tomb]]] = f"the {tomb.title()} tomb"
    return named


def _platform_colour(board: Board, index: int) -> str | None:
    return next((p.colour for p in board.platforms.values() if index in p.spaces), None)


# How a clue ties a space to one named place: so many spaces from it, diagonally next to it (one
# step along and one across), or in line with it (along the same straight line of spaces).
_FAR, _DIAGONAL, _IN_LINE = "far", "diagonal", "in line"
_Clue = tuple[str, int]  # (how, the named place's cell)


# The panel shows these words too: ``places.view_places`` words every space of a public view with this
# function, and the page looks them up (docs/architecture.md, "One source for Terror's place words").
def place_words(board: Board, cfg: int, index: int) -> str:
    """One space of the board as a player finds it, never by row and column: what is printed on it,
    the platform it is on, and how many spaces it lies from the nearest named place (the Gate and
    Crypt platforms, the Entrance, the Exit, the tombs where they stand now): "the card space next
    to the Exit", "the grass space on the red platform, two spaces from the Mummy tomb".

    When other spaces of its kind (on the platform it says, or on none) lie as far from that place, more
    is said until the words fit this space alone: how far it lies from a second named place, then
    whatever tells the rest apart with the least to count: that it is diagonally next to a place
    ("the grass space diagonally next to the Exit"), that a count runs in a straight line ("next to
    the Mummy tomb and two spaces from the Entrance in a straight line"), a third place ("three
    spaces from the Mummy tomb, three from the Wolf tomb, and three from the Monster tomb"), or that
    it lies in line with one more ("two spaces from the Exit, in line with the Crypt platform").
    A few spaces of the default board lie as far, as diagonally and as in line from every named
    place as another of their kind: their words are their own, but fit that other space too
    (tests/controller/games/test_terror_place_words.py names them)."""
    named = _named_places(board, cfg)
    types = board.types(cfg)
    if index in named:
        return "the pit under " + named[index] if types[index] == "pit" else named[index]
    colour = _platform_colour(board, index)
    noun = kind_noun(types[index]) or "space"
    # An arrow or a Danger space of the platform's own colour already says which platform.
    on = colour is not None and not noun.startswith(colour)
    what = f"the {noun}" + (f" on the {colour} platform," if on else "")
    cols = board.cols

    def apart(a: int, b: int) -> int:  # spaces counted along the rows and columns, as a pawn walks
        return abs(a // cols - b // cols) + abs(a % cols - b % cols)

    def fits(i: int, clue: _Clue) -> bool:
        how, at = clue
        across, along = abs(i // cols - at // cols), abs(i % cols - at % cols)
        if how == _FAR:
            return across + along == apart(index, at)
        if how == _DIAGONAL:
            return across == 1 and along == 1
        return i != at and (across == 0 or along == 0)

    order = list(named)
    nearest = min(order, key=lambda at: apart(index, at))  # the first listed of the nearest
    clues: list[_Clue] = [(_FAR, nearest)]
    # The other spaces the words said so far fit: of this kind, on the platform said or on none; an
    # arrow or a Danger space said by its colour alone may be taken for one of that colour anywhere.
    left = [i for i, t in enumerate(types) if i != index and t == types[index] and fits(i, clues[0])
            and (_platform_colour(board, i) == colour or (colour is not None and not on))]

    def narrow(options: list[_Clue], rank: Callable[[_Clue], tuple[int, int]]) -> bool:
        """Add the clue that leaves the fewest of ``left`` (of those, the best ranked), if it leaves fewer."""
        nonlocal left
        if not left or not options:
            return False
        best = min(options, key=lambda clue: (sum(fits(i, clue) for i in left), *rank(clue)))
        kept = [i for i in left if fits(i, best)]
        if len(kept) == len(left):
            return False
        clues.append(best)
        left = kept
        return True

    # A second place, counted; then whatever tells the rest apart: a clue about a place already
    # named or being diagonally next to one says less to count than a place more.
    narrow([(_FAR, at) for at in order if at != nearest], lambda clue: (0, apart(index, clue[1])))

    def rank(clue: _Clue) -> tuple[int, int]:
        how, at = clue
        named_already = any(place == at for _, place in clues)
        tier = 0 if how == _DIAGONAL or (how == _IN_LINE and named_already) else 1 if how == _FAR else 2
        return tier, apart(index, at)

    while narrow([(how, at) for at in order for how in (_FAR, _DIAGONAL, _IN_LINE) if (how, at) not in clues
                  and (how == _FAR or (fits(index, (how, at)) and not (how == _IN_LINE and apart(index, at) == 1)))],
                 rank):
        pass
    return f"{what} {_clue_words(clues, named, lambda at: apart(index, at))}"


def _clue_words(clues: list[_Clue], named: Mapping[int, str], apart: Callable[[int], int]) -> str:
    """The clues in words, one named place after another: "next to the Mummy tomb and two spaces from
    the Entrance in a straight line", "two spaces from the Exit, in line with the Wolf tomb"."""
    counted: list[str] = []  # places counted from, in the order the clues came
    besides: list[str] = []  # places only in line with, or diagonally next to, said after them
    spaces = " spaces"  # with the first number only: "two spaces from the Exit and three from ..."
    for at in dict.fromkeys(place for _, place in clues):
        hows = {how for how, place in clues if place == at}
        if _DIAGONAL in hows:
            said = "diagonally next to " + named[at]
        elif _FAR not in hows:
            said = "in line with " + named[at]
        elif apart(at) == 1:
            said = "next to " + named[at]
        else:
            said = f"{_count(apart(at))}{spaces} from {named[at]}" + (" in a straight line" if _IN_LINE in hows else "")
            spaces = ""
        (counted if _FAR in hows else besides).append(said)
    listed = counted[0] if len(counted) == 1 else \
        " and ".join(counted) if len(counted) == 2 else ", ".join(counted[:-1]) + ", and " + counted[-1]
    return listed + "".join(", " + part for part in besides)


def _count(n: int) -> str:
    return _COUNTS[n] if n < len(_COUNTS) else str(n)


Mark = Callable[[int, int], str]  # (seat, pawn) -> the caller's own short mark for that pawn


def card_title(game: Terror, card_id: Any) -> str:
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

    def __init__(self, game: Terror, action: Action, mark: Mark | None) -> None:
        self.game, self.mark = game, mark
        self.p = action.params
        players = game.s.players
        self.seat = action.player
        self.name = players[action.player] if action.player is not None and _is_seat(players, action.player) else "?"
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


def describe_action(game: Terror, action: Action, *, offered: bool = False, mark: Mark | None = None) -> str:
    """``action`` in words: what its player does ("Ann rolls both dice"), or, ``offered``, the
    choice as put to that player ("Roll both dice")."""
    said = _ACTIONS.get(action.kind)
    if said is None:
        return action.to_text()
    about, offer = said(_Said(game, action, mark))
    return offer if offered else about


# ----- events ---------------------------------------------------------------------------
def describe_event(game: Terror, event: Event, viewer: int | None = None, *, mark: Mark | None = None) -> str:
    """``event`` in words, or "" for an event this wording does not know. Its secret (the card
    a pawn drew and saved) is told only when ``viewer`` is the seat it belongs to."""
    said = _EVENTS.get(event.type)
    return said(_Told(game, event, viewer, mark)) if said is not None else ""


class _Told:
    """The words one event is made of."""

    def __init__(self, game: Terror, event: Event, viewer: int | None, mark: Mark | None) -> None:
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
    "pawn_fell": lambda t: f"{t.pawn()} fell into a pit and is out; {_cards(t.d['discarded'])} discarded.",
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
    "monster_discarded": lambda t: "No pawn in play can take the Monster card, so it goes to the discard pile.",
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
    "skull_void": lambda t: f"{t.pawn()} fell into a pit before the skull landed, so the drop does not count.",
    "game_won": _Told.won,
    "game_over": lambda t: "Every remaining pawn fell at once: nobody wins.",
    "turn_ended": lambda t: f"{t.seat()}'s turn ends.",
    "turn_started": lambda t: f"{t.seat()}'s {'extra ' if t.d['extra'] else ''}turn begins.",
}


def _cards(n: object) -> str:
    """"1 card", "2 cards": a count in words a person reads."""
    return f"{n} card" if n == 1 else f"{n} cards"
