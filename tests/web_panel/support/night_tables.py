"""Tables as a game night's players leave them: three or four seats, real Terror states from the engine,
the virtual board's sensors, and the measures the night's browser tests share."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any

from controller.games import Game, get_game
from tests.web_panel.support.engine_state import public_state
from tests.web_panel.support.fake_table import FakeTable

TERROR_SENSORS = ("tomb.mummy", "tomb.monster", "tomb.wolf", "launcher", "chute.left", "chute.right")
TRAP_SENSORS = tuple(f"trap.{t}.{part}" for t in ("ladder", "mirror", "grave1", "grave2")
                     for part in ("peg_a", "peg_b", "sprung"))
SENSOR_VALUES = {"tomb": "middle", "launcher": "armed", "chute": "clear",
                 "peg_a": "in", "peg_b": "in", "sprung": "cocked"}


def terror(players: Sequence[str], seed: int = 3, edit: Callable[[dict[str, Any]], None] | None = None) -> Game:
    """A new Terror game, its saved state changed by ``edit`` and loaded back: the engine checks the result."""
    g = get_game("terror").new(list(players), seed)
    if edit is None:
        return g
    saved = g.to_json()
    edit(saved)
    return get_game("terror").from_json(saved)


def publish(fake: FakeTable, g: Game, seq: int = 5, simulate: bool = True, **fields: Any) -> dict[str, Any]:
    """The table online in --simulate, its retained state (``fields`` over the engine's) and its sensors."""
    fake.publish("status", {"state": "online", "table": fake.table, "game": g.name, "version": "test", "since": 0,
                            "simulate": simulate})
    reading = {"changed": 990.0, "seen": 999.0, "source": "sim", "online": True}
    fake.publish("sensors", {"time": time.time(), "monotonic": 1000.0, "sensors": {
        s: {"value": SENSOR_VALUES[s.split(".")[0 if g.name == "terror" else -1]], **reading}
        for s in (TERROR_SENSORS if g.name == "terror" else TRAP_SENSORS)}})
    state = dict(public_state(g, fake.table, seq), **fields)
    fake.state(**state)
    return state


# Whether an element is on screen now, whole, and not under another (a sticky bar, a banner): its box
# lies inside the viewport and the element drawn at its centre is it or inside it.
ON_SCREEN = """(sel) => {
  const e = document.querySelector(sel);
  if (!e) return {ok: false, why: sel + " is not on the page"};
  const r = e.getBoundingClientRect();
  const box = {top: Math.round(r.top), bottom: Math.round(r.bottom), height: Math.round(r.height), view: innerHeight};
  if (r.width === 0 || r.height === 0) return {ok: false, why: sel + " is not shown", box};
  if (r.top < -1 || r.bottom > innerHeight + 1 || r.left < -1 || r.right > innerWidth + 1)
    return {ok: false, why: sel + " is outside the screen", box};
  const at = document.elementFromPoint(r.left + r.width / 2, r.top + Math.min(r.height / 2, 12));
  if (!at || !(e === at || e.contains(at)))
    return {ok: false, why: sel + " is under " + (at ? at.outerHTML.slice(0, 80) : "nothing"), box};
  return {ok: true, box};
}"""


def on_screen(page: Any, selector: str) -> dict[str, Any]:
    return dict(page.evaluate(ON_SCREEN, selector))
