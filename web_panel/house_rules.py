"""The house rules the new-game form offers: each game's own, in words, with a line of help each.

Only the rules players argue about at the table are here. What the table's
hardware decides (outcome windows, whether traps are sensed, who throws the
dice or draws the tokens, board and card files) follows the referee's config
and is not a house rule. Each rule's key and default are the engine's own
(``docs/rules/*.md``); a test holds them to the engines, so a form left as it
is starts the game the rulebook describes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class HouseRule:
    key: str  # the engine's option name
    label: str
    help: str
    kind: str  # "int", "bool" or "choice"
    default: Any
    low: int | None = None
    high: int | None = None
    choices: tuple[tuple[Any, str], ...] = ()  # (value, words) for a choice

    def to_json(self) -> dict[str, Any]:
        return {"key": self.key, "label": self.label, "help": self.help, "kind": self.kind,
                "default": self.default, "low": self.low, "high": self.high,
                "choices": [list(c) for c in self.choices]}


HOUSE_RULES: dict[str, tuple[HouseRule, ...]] = {
    "terror": (),
    "superstition": (
        HouseRule("dice", "Dice thrown", "The rulebook says only \"the dice\": throw one die, or two and add them.",
                  "choice", 1, choices=((1, "one die"), (2, "two dice"))),
        HouseRule("step_off", "Stepping off a platform",
                  "Whether stepping off the Ladder or Mirror platform uses up one space of the next throw.",
                  "choice", "free", choices=(("free", "is free"), ("counts", "counts as a space"))),
        HouseRule("whammy_stop", "Two dice: a Whammy right beside you",
                  "No throw of two dice is 1, so a Whammy on the very next space can shut a pawn in for good. "
                  "Turn this on to let a pawn on its way out stop on it instead (the rulebook allows no partial "
                  "moves).", "bool", False),
    ),
    "dogs": (
        HouseRule("attack_target", "Attack succeeds on", "The lowest Attack roll that captures a spook.",
                  "int", 5, 1, 6),
        HouseRule("bork_range", "Bork reaches", "How many squares away a Bork scares a token.", "int", 3, 1, 6),
        HouseRule("bork_penalty_max", "Bork loses a snack on",
                  "A Bork roll this high or lower loses a snack from the borker's card (0: never).",
                  "int", 3, 0, 6),
        HouseRule("bork_own_dog", "Bork your own dog", "Whether a player may bork their own dog.", "bool", False),
        HouseRule("bork_to", "A borked token moves", "Where a borked token lands.", "choice", "token",
                  choices=(("token", "next to where it was"), ("borker", "next to the borking dog"))),
        HouseRule("concern_escape", "A concerned dog flees on",
                  "The lowest Concern roll that makes a dog flee (7: never).", "int", 6, 1, 7),
        HouseRule("skeleton_haunt", "The skeleton haunts", "Whether each dog loses a snack, or one snack in all.",
                  "choice", "each", choices=(("each", "each dog"), ("one", "one snack in all"))),
        HouseRule("carried_snacks_in_graveyard", "Carried snacks keep the game going",
                  "Whether snacks carried by spooks still count as snacks in the graveyard.", "bool", False),
        HouseRule("min_contact", "A new tile lines up along",
                  "How many squares a new tile must share an edge with the tiles already placed.", "int", 2, 1, 3),
    ),
}


class HouseRuleError(ValueError):
    """A house rule's value is not one the form offers; the message names the rule."""


def check_house_rules(game: str, options: dict[str, Any]) -> None:
    """Refuse a rule the game does not have, or a value out of its range, before anything is signed."""
    rules = {r.key: r for r in HOUSE_RULES.get(game, ())}
    for key, value in options.items():
        rule = rules.get(key)
        if rule is None:
            continue  # not a house rule (the engine and the table judge other options)
        if rule.kind == "bool" and not isinstance(value, bool):
            raise HouseRuleError(f"house rule {rule.label!r} must be yes or no")
        if rule.kind == "int" and (isinstance(value, bool) or not isinstance(value, int)
                                   or not rule.low <= value <= rule.high):  # type: ignore[operator]
            raise HouseRuleError(f"house rule {rule.label!r} must be a whole number from {rule.low} to {rule.high}")
        if rule.kind == "choice" and value not in [c[0] for c in rule.choices]:
            raise HouseRuleError(f"house rule {rule.label!r} must be one of "
                                 f"{', '.join(str(c[1]) for c in rule.choices)}")
