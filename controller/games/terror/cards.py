"""The Goosebumps card deck: data model, loader and validator.

The deck file (``data/cards.json``, or an owner's own) is an object with
a ``cards`` list. Each card has a unique ``id``, a ``kind`` (when it may be
played), an ``effect`` (what it does), a ``title`` and a ``text``; a
``move_pawn`` card also has ``steps``.

=================  ==========================================================
kind               timing (rulebook "Goosebumps Cards")
=================  ==========================================================
``now``            Play Now!: read aloud and resolved the moment it is drawn
``later``          Play Later!: saved, secret, under the pawn that drew it
``now_or_later``   Play Now or Later!: saved; playable at any time of the
                   owner's own turn (straight away counts as "now")
``anytime``        Play Anytime!: saved; playable at any time, on any turn
=================  ==========================================================

Effects, and the kinds each may have: ``monster`` and ``cure_all`` (now);
``ring`` and ``reversal`` (later); ``steal_ring``, ``move_pawn``, ``switch``
(now_or_later or anytime) and ``extra_turn``
(now_or_later only: it is about your own turn).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..datafile import read_text
from ..errors import BadGameData
from ..words import ordinal

KINDS: tuple[str, ...] = ("now", "later", "now_or_later", "anytime")
KIND_NAMES: dict[str, str] = {
    "now": "Play Now!",
    "later": "Play Later!",
    "now_or_later": "Play Now or Later!",
    "anytime": "Play Anytime!",
}
EFFECT_KINDS: dict[str, frozenset[str]] = {
    "monster": frozenset({"now"}),
    "cure_all": frozenset({"now"}),
    "ring": frozenset({"later"}),
    "reversal": frozenset({"later"}),
    "steal_ring": frozenset({"now_or_later", "anytime"}),
    "move_pawn": frozenset({"now_or_later", "anytime"}),
    "switch": frozenset({"now_or_later", "anytime"}),
    "extra_turn": frozenset({"now_or_later"}),
}
MAX_MOVE_STEPS = 6
DECK_SIZE = 36  # the box holds 36 Goosebumps cards: a mix may leave some out, never add more

DEFAULT_CARDS = Path(__file__).with_name("data") / "cards.json"


@dataclass(frozen=True)
class Card:
    id: str
    kind: str
    effect: str
    title: str
    text: str
    steps: int = 0

    @property
    def playable(self) -> bool:
        """Saved cards that a seat plays by choice (rings and reversals act by themselves)."""
        return self.kind in ("now_or_later", "anytime")

    def public(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "id": self.id,
            "kind": self.kind,
            "kind_name": KIND_NAMES[self.kind],
            "effect": self.effect,
            "title": self.title,
            "text": self.text,
        }
        if self.effect == "move_pawn":
            out["steps"] = self.steps
        return out


@dataclass(frozen=True)
class Deck:
    cards: dict[str, Card]  # by id, in file order

    @property
    def ids(self) -> list[str]:
        return list(self.cards)

    def __len__(self) -> int:
        return len(self.cards)


_CACHE: dict[str, Deck] = {}


def load_deck(source: str | Path | Mapping[str, Any] | None = None) -> Deck:
    """Load and validate a deck: the default, a file path, or an already-parsed object."""
    if source is None:
        source = DEFAULT_CARDS
    if isinstance(source, Mapping):
        data: Any = source
        where = "cards"
        try:
            key = json.dumps(source, sort_keys=True)
        except (TypeError, ValueError) as exc:
            raise BadGameData(f"cards: not plain JSON ({exc})", reason="This card mix is not plain JSON.") from None
    elif isinstance(source, (str, Path)):
        where = str(source)
        key = read_text(Path(source), "card file")
        try:
            data = json.loads(key)
        except RecursionError:
            raise BadGameData(f"card file {where}: not valid JSON (it is nested too deeply)") from None
        except ValueError as exc:
            raise BadGameData(f"card file {where}: not valid JSON ({exc})") from None
    else:
        raise BadGameData(f"cards must be a file path or an object, got {type(source).__name__}",
                          reason="This file is not a card mix.")
    deck = _CACHE.get(key)
    if deck is None:
        deck = _CACHE[key] = _validate(data, where)
    return deck


EFFECT_NAMES: dict[str, str] = {
    "monster": "a Monster card",
    "cure_all": "a cure for every pawn",
    "ring": "a Magic Ring",
    "reversal": "a Monster Reversal",
    "steal_ring": "a Magic Ring theft",
    "move_pawn": "a pawn move",
    "switch": "a swap of two pawns",
    "extra_turn": "an extra turn",
}



def _validate(data: Any, where: str) -> Deck:
    def bad(message: str, reason: str, n: int | None = None) -> BadGameData:
        # ``at`` names the card's place in the list, for the editor's row; the reason names it in words.
        return BadGameData(message, at={"entry": f"cards[{n}]"} if n is not None else None, reason=reason)

    if not isinstance(data, Mapping) or not isinstance(data.get("cards"), list):
        raise bad(f"{where}: the deck must be an object with a 'cards' list", "This file is not a card mix.")
    unknown = set(data) - {"cards", "name", "notes"}
    if unknown:
        raise bad(f"{where}: unknown key(s) {', '.join(sorted(unknown))}",
                  "The file has parts a card mix does not have.")
    if len(data["cards"]) > DECK_SIZE:
        raise bad(f"{where}: the deck has {len(data['cards'])} cards; the box holds {DECK_SIZE}",
                  f"The deck has {len(data['cards'])} cards; the box holds {DECK_SIZE}.", DECK_SIZE)
    cards: dict[str, Card] = {}
    for n, raw in enumerate(data["cards"]):
        at = f"{where} cards[{n}]"
        card = f"The {ordinal(n + 1)} card"
        if not isinstance(raw, Mapping):
            raise bad(f"{at}: a card must be an object", f"{card} is not written as a card.", n)
        card_id = raw.get("id")
        if isinstance(card_id, str) and card_id:
            at = f"{at} ({card_id})"
        else:
            raise bad(f"{at}: id must be a non-empty string", f"{card} has no name for the machine to know it by.", n)
        title = raw.get("title")
        if isinstance(title, str) and title.strip():
            card = f"{card}, \u201c{title.strip()}\u201d,"
        extra = set(raw) - {"id", "kind", "effect", "title", "text", "steps"}
        if extra:
            raise bad(f"{at}: unknown key(s) {', '.join(sorted(extra))}", f"{card} has parts a card does not have.", n)
        if card_id in cards:
            raise bad(f"{at}: id {card_id!r} is used twice", f"{card} has the same machine name as an earlier card.", n)
        effect, kind = raw.get("effect"), raw.get("kind")
        # Type checks come first: a list would make the dict and set lookups raise TypeError.
        if not isinstance(effect, str) or effect not in EFFECT_KINDS:
            raise bad(f"{at}: effect {effect!r} is not one of {', '.join(EFFECT_KINDS)}",
                      f"{card} does something the game does not know.", n)
        if not isinstance(kind, str) or kind not in EFFECT_KINDS[effect]:
            allowed = " or ".join(f"\u201c{KIND_NAMES[k]}\u201d" for k in KINDS if k in EFFECT_KINDS[effect])
            said = KIND_NAMES.get(kind) if isinstance(kind, str) else None
            raise bad(f"{at}: a {effect} card must be {' or '.join(sorted(EFFECT_KINDS[effect]))}, not {kind!r}",
                      f"{card} is {EFFECT_NAMES[effect]}: it must be {allowed}"
                      + (f", not \u201c{said}\u201d." if said else "."), n)
        for text_key, words in (("title", "no title"), ("text", "no words to read")):
            if not isinstance(raw.get(text_key), str) or not raw[text_key].strip():
                raise bad(f"{at}: {text_key} must be a non-empty string", f"{card} has {words}.", n)
        steps = raw.get("steps", 0)
        if effect == "move_pawn":
            if not isinstance(steps, int) or isinstance(steps, bool) or not 1 <= steps <= MAX_MOVE_STEPS:
                raise bad(f"{at}: steps must be a whole number from 1 to {MAX_MOVE_STEPS}",
                          f"{card} must move a pawn 1 to {MAX_MOVE_STEPS} spaces.", n)
        elif "steps" in raw:
            raise bad(f"{at}: only a move_pawn card has steps",
                      f"{card} gives a number of spaces, but only a card that moves a pawn has one.", n)
        cards[card_id] = Card(card_id, kind, effect, raw["title"], raw["text"], steps)
    if not any(c.effect == "ring" for c in cards.values()):
        raise bad(f"{where}: the deck needs at least one Magic Ring card", "The deck needs at least one Magic Ring.")
    return Deck(cards)


# Cards the engine can play that the box's default mix leaves out: one of each effect and timing, so a
# card mix may hold any card the rules know (docs/boards.md, "The card mix").
_EXTRA_CARDS: tuple[dict[str, Any], ...] = (
    {"id": "steal-ring-anytime", "kind": "anytime", "effect": "steal_ring", "title": "Quick Fingers",
     "text": "Play this at any time, even during someone else's turn. Choose an opponent's pawn: if it holds a "
             "Magic Ring, one of its rings now belongs to whichever of your pawns you choose."},
    {"id": "switch-anytime", "kind": "anytime", "effect": "switch", "title": "Sudden Swap",
     "text": "Play this at any time, even during someone else's turn. One of your pawns, your choice, swaps "
             "places with any opponent's pawn."},
)


def _file_fields(card: Card) -> dict[str, Any]:
    out: dict[str, Any] = {
        "id": card.id, "kind": card.kind, "effect": card.effect, "title": card.title, "text": card.text,
    }
    if card.effect == "move_pawn":
        out["steps"] = card.steps
    return out


def catalogue() -> list[dict[str, Any]]:
    """Every card a mix may hold, as ``{"card": <the card as a deck file writes it>, "kind_name": ...}``.

    The default deck's cards come first (one entry for copies with the same words), then a card for
    each effect and timing the rules allow that the default deck lacks.
    """
    out: list[dict[str, Any]] = []
    seen: set[tuple[Any, ...]] = set()
    have: set[tuple[str, str]] = set()
    for card in load_deck().cards.values():
        words = (card.kind, card.effect, card.title, card.text, card.steps)
        if words not in seen:
            seen.add(words)
            have.add((card.effect, card.kind))
            out.append({"card": _file_fields(card), "kind_name": KIND_NAMES[card.kind]})
    for extra in _EXTRA_CARDS:
        if (extra["effect"], extra["kind"]) not in have:
            have.add((extra["effect"], extra["kind"]))
            out.append({"card": dict(extra), "kind_name": KIND_NAMES[extra["kind"]]})
    return out
