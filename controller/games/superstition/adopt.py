"""Superstition: the referee's "trust the board as it stands", for the traps' sensors.

In sensors mode each trap reports its two pegs (``in``/``pulled``) and its
spring (``cocked``/``sprung``). The rules allow a trap to differ from "cocked,
both pegs in" only while it is challenged (rules 5 to 7): one peg pulled, and
then the trap may have gone off. So the board's position is taken only for
the trap being challenged, and only as a challenge can stand:

* one peg out (the game was waiting for a peg, or thought the other one was
  pulled): that peg is the one pulled, applied as the board's own ``pull_peg``
  would have been (or the pulled peg corrected, with a ``peg_pulled`` event);
* that peg out and the trap sprung: then it also sprang (``challenge_result``,
  zapped), as the sprung sensor would have said.

Everything else is refused with the rule that forbids it: both pegs out (a
challenge pulls one), a trap gone off with no peg out (declare the peg), a
peg pushed back in while the outcome is watched (end the window instead), and
any trap nobody is challenging. A game whose traps are decided by the engine
(``challenge = "digital"``) takes nothing from the board.
"""

from __future__ import annotations

from collections.abc import Mapping

from ..base import Action, Event
from ..errors import IllegalAction
from .board import TRAP_NAMES, TRAPS
from .flow import HANDLERS
from .table import Superstition

_PARTS = {"peg_a": ("in", "pulled"), "peg_b": ("in", "pulled"), "sprung": ("cocked", "sprung")}


def _words(sensor: str) -> str:
    """A sensor in words (the referee's page shows the refusal)."""
    parts = sensor.split(".")
    if len(parts) == 3 and parts[0] == "trap" and parts[1] in TRAPS:
        trap = f"the {TRAP_NAMES[parts[1]]} trap"
        return trap if parts[2] == "sprung" else f"peg {parts[2][-1:].upper()} of {trap}"
    if parts[0] == "tomb":
        return "a tomb"
    if parts[0] == "chute":
        return "a Crypt window"
    if sensor == "launcher":
        return "the Headless Ghost's launcher"
    return "that sensor"


def _readings(sensors: Mapping[str, str]) -> dict[str, dict[str, str]]:
    """Trap -> {part: value}, checked: only a trap's pegs and spring, with values they can show."""
    out: dict[str, dict[str, str]] = {}
    for sensor, value in sensors.items():
        parts = sensor.split(".")
        if len(parts) != 3 or parts[0] != "trap" or parts[1] not in TRAPS or parts[2] not in _PARTS:
            raise IllegalAction(f"only the traps' pegs and springs can be taken from a Superstition board, "
                                f"not {_words(sensor)}")
        if value not in _PARTS[parts[2]]:
            raise IllegalAction(f"{_words(sensor)} cannot show {value!r}")
        out.setdefault(parts[1], {})[parts[2]] = value
    return out


def adopt_board(game: Superstition, sensors: Mapping[str, str]) -> list[Event]:
    """Make the sensed traps the game's truth, where the rules allow it (see the module doc)."""
    if game.phase == "over":
        raise IllegalAction("the game is over")
    if game.options["challenge"] != "sensors":
        raise IllegalAction("this game decides its traps itself (digital challenges): the traps' sensors do not count")
    readings = _readings(sensors)
    expected = game.expected_board()
    plan: tuple[str, str, bool] | None = None
    for trap in sorted(readings):  # sorted: the same refusal, live and in a replay
        now = {part: readings[trap].get(part, expected[f"trap.{trap}.{part}"]) for part in _PARTS}
        pulled = [peg for peg in "ab" if now[f"peg_{peg}"] == "pulled"]
        sprung = now["sprung"] == "sprung"
        name = TRAP_NAMES[trap]
        if len(pulled) == 2:
            raise IllegalAction(f"both pegs of the {name} trap are out, and a challenge pulls one peg only "
                                f"(rule 5): push back the one pulled second, or declare the one pulled first")
        challenge = game.challenge
        if challenge is None or challenge["trap"] != trap or game.phase not in ("challenge", "outcome"):
            if challenge is not None and challenge["trap"] == trap and game.phase == "reset":
                raise IllegalAction(f"the {name} trap's challenge is decided and it is being reset: play goes on "
                                    "once both its pegs are in and it is cocked")
            if not pulled and not sprung:
                continue  # at rest, as the rules want it
            raise IllegalAction(f"nobody is challenging the {name} trap: it stays cocked with both pegs in "
                                "until someone does (rules 5 and 6)")
        if not pulled:
            if sprung:
                raise IllegalAction(f"the {name} trap went off with no peg out, and a trap springs only when a "
                                    "peg is pulled: declare which peg was pulled")
            if game.phase == "outcome":
                raise IllegalAction(f"the {name} trap is being watched and no peg is out any more: say whether it "
                                    "sprang by ending the waiting window instead")
            continue
        plan = (trap, pulled[0], sprung)
    if plan is None:
        return []
    trap, peg, sprung = plan
    seat = game.turn
    assert seat is not None and game.challenge is not None
    events: list[Event] = []
    if game.phase == "challenge":
        events += game.apply(Action("pull_peg", seat, {"trap": trap, "peg": peg}))
    elif game.challenge["peg"] != peg:
        # The game took the other peg (a misread or a mistaken declaration): the board's peg is the one,
        # pulled as a pull_peg pulls it (the phase is already the outcome's, so not as an action).
        events += HANDLERS["pull_peg"](game, seat, {"trap": trap, "peg": peg})
    if sprung:
        events += game.apply(Action("challenge_result", seat, {"trap": trap, "zapped": True}))
    return events
