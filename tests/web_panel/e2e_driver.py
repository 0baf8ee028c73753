"""Playing a whole game through the panel's own controls against ``gravekeeper run --simulate``.

The moves are found first with the real engine offline (same game, seed and
options as the controller's), then made in the browser: board clicks for
destinations, the virtual board for what the hardware senses, the player's own
page for secret actions, and buttons for the rest. After every move the page
must show exactly the engine's public view.

Each move is one call into the page (find, click, wait for the view), so a
long game costs little more than the table's own round trips.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any

from controller.games import Action, Game, get_game
from controller.security import game_seed

Policy = Callable[[Game, random.Random], Action]

STEP = """async ({clicks, expected, timeout}) => {
  const canon = v => Array.isArray(v) ? "[" + v.map(canon).join(",") + "]" :
    (v && typeof v === "object") ? "{" + Object.keys(v).sort().map(k => JSON.stringify(k) + ":" + canon(v[k])).join(",") + "}" :
    JSON.stringify(v);
  const sleep = ms => new Promise(r => setTimeout(r, ms));
  const deadline = Date.now() + timeout;
  const same = (a, b) => canon(a) === canon(b);
  const find = async c => {
    while (Date.now() < deadline) {
      const el = c.selector ? document.querySelector(c.selector)
        : [...document.querySelectorAll("button.act")].find(b => same(JSON.parse(b.dataset.action), c.action));
      if (el) return el;
      await sleep(15);
    }
    return null;
  };
  const press = el => el.tagName === "BUTTON" ? el.click() : el.dispatchEvent(new MouseEvent("click", {bubbles: true}));
  for (const c of clicks) {
    if (c.rotateTo !== undefined) {
      for (let i = 0; i < 4; i++) {
        const t = await find({selector: "#drawn-tile"});
        if (!t) return "no tile to turn";
        if (t.getAttribute("data-rotation") === String(c.rotateTo)) break;
        press(t);
      }
      continue;
    }
    const el = await find(c);
    if (!el) return "nothing to click for " + JSON.stringify(c);
    press(el);
  }
  if (!expected) return "ok";
  while (Date.now() < deadline) {
    const st = window.gkLive && window.gkLive.state;
    if (st && same(st.view, expected)) {
      await new Promise(r => requestAnimationFrame(() => r()));  // let the page draw it
      return "ok";
    }
    await sleep(15);
  }
  const st = window.gkLive && window.gkLive.state;
  return "the page never showed the engine's view; it waits for: " + (st && st.waiting_for) +
    "; reply: " + (document.getElementById("reply") || {}).textContent;
}"""


def find_game(game: str, options: dict[str, Any], policy: Policy, max_actions: int,
              want: Callable[[Game], bool] = lambda g: True,
              seeds: Sequence[int] = range(400), *, token: str) -> tuple[int, list[Action]]:
    """The first seed whose game the policy wins within ``max_actions`` and that shows ``want`` on the way.

    The table mixes a chosen seed with its token (``security.game_seed``), so the offline game does too.
    """
    for seed in seeds:
        rnd = random.Random(seed)
        g = get_game(game).new(["Ann", "Bo"], game_seed(token, seed), options)
        actions: list[Action] = []
        wanted = False
        while not g.is_over and len(actions) < max_actions:
            a = policy(g, rnd)
            g.apply(a)
            actions.append(a)
            wanted = wanted or want(g)
        if g.is_over and g.winners and wanted:
            return seed, actions
    raise AssertionError(f"no {game} game ends within {max_actions} actions for these seeds")


def step(page: Any, clicks: list[dict[str, Any]], expected: dict[str, Any] | None, timeout: float = 10.0) -> None:
    result = page.evaluate(STEP, {"clicks": clicks, "expected": expected, "timeout": int(timeout * 1000)})
    assert result == "ok", result


def clicks_for(a: Action) -> list[dict[str, Any]]:
    """What a person clicks to make ``a``: the board, the virtual board, or the action's button."""
    p, k = a.params, a.kind
    if k == "move_tomb":
        return [{"selector": f'svg#board g.tomb-spot[data-tomb="{p["tomb"]}"][data-pos="{p["to"]}"]'}]
    if k == "skull_outcome":
        return [{"selector": "#sim-launch" if p["hit"] else "#sim-chute-left"}]
    if k == "move_pawn":
        return [{"selector": f'svg#board g.pawn[data-seat="{a.player}"][data-pawn="{p["pawn"]}"]'},
                {"selector": f'svg#board rect.legal[data-move="{p["to"][0]},{p["to"][1]}"]'}]
    if k == "pull_peg":
        return [{"selector": f'#sim-{p["trap"]}-pull-{p["peg"]}'}]
    if k == "challenge_result":
        # Zapped: the trap springs. Not zapped: its outcome window runs out by itself.
        return [{"selector": f'#sim-{p["trap"]}-spring'}] if p["zapped"] else []
    if k == "reset_trap":
        return [{"selector": f'#sim-{p["trap"]}-reset'}]
    if k == "place_whammy":
        return [{"selector": f'svg#board g.space.legal[data-space="{p["space"]}"]'}]
    if k == "place_tile":
        return [{"rotateTo": p["rotation"]}, {"selector": f'svg#board rect.legal[data-place="{p["x"]},{p["y"]}"]'}]
    if k in ("place_dog", "move_dog", "move_spook", "escape"):
        return [{"selector": f'svg#board rect.legal[data-kind="{k}"][data-move="{p["x"]},{p["y"]}"]'}]
    return [{"action": a.to_json()}]


class Driver:
    """Makes each engine action on the page; ``players`` maps seats to their own pages."""

    def __init__(self, table_page: Any, players: dict[int, Any], secret_kinds: frozenset[str]) -> None:
        self.page = table_page
        self.players = players
        self.secret_kinds = secret_kinds

    def play(self, game: Game, actions: Sequence[Action],
             on_step: Callable[[Game, int], None] | None = None) -> None:
        step(self.page, [], game.public_view())
        for i, a in enumerate(actions):
            game.apply(a)
            after = game.public_view()
            if a.kind in self.secret_kinds:
                step(self.players[a.player], clicks_for(a), None)  # type: ignore[index]
                step(self.page, [], after)
            else:
                step(self.page, clicks_for(a), after)
            if on_step is not None:
                on_step(game, i)
