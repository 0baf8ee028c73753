"""Playing a whole game through the panel's own controls against ``gravekeeper run --simulate``.

The moves are found first with the real engine offline (same game, seed and
options as the controller's), then made in the browser: board clicks for
destinations, the virtual board (on the referee's page) for what the hardware
senses, and every other move on the acting player's own page. After every move
every page must show exactly the engine's public view, or, for a state that
lasts only a window's length (a trap's outcome, 300 ms in the tests), must have
held it before the next one came: the driver looks at one page after another,
and on a loaded machine the window can close before it reaches the last page.

Each move is one call into the page (find, click, wait for the view), so a
long game costs little more than the table's own round trips.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any

from controller.games import Action, Game, get_game
from controller.protocol.security import game_seed

Policy = Callable[[Game, random.Random], Action]

STEP = """async ({clicks, expected, timeout, action}) => {
  const canon = v => Array.isArray(v) ? "[" + v.map(canon).join(",") + "]" :
    (v && typeof v === "object")
      ? "{" + Object.keys(v).sort().map(k => JSON.stringify(k) + ":" + canon(v[k])).join(",") + "}" :
    JSON.stringify(v);
  const sleep = ms => new Promise(r => setTimeout(r, ms));
  // The panel adds the words of Terror's spaces to a view it passes on (web_panel/terror_places.py): the
  // engine's view has no "places", so they are left out of the comparison.
  const bare = v => {
    if (!v || typeof v !== "object") return v;
    const c = Object.assign({}, v);
    delete c.places;
    return c;
  };
  // Every view this page has held since it was last found showing the expected one, in order: kept from
  // the first step on, as the state changes (live.js announces each with "gk-state").
  if (!window.gkHeldViews) {
    window.gkHeldViews = [];
    document.addEventListener("gk-state", () => {
      const st = window.gkLive && window.gkLive.state;
      if (st && st.view) window.gkHeldViews.push(canon(bare(st.view)));
    });
  }
  const held = window.gkHeldViews;
  const deadline = Date.now() + timeout;
  const same = (a, b) => canon(a) === canon(b);
  // Where the page's view and the engine's differ, field by field ("phase: page "reset", engine "outcome""),
  // so a failure says why, not only that.
  const brief = v => v === undefined ? "missing" : (s => s.length > 60 ? s.slice(0, 57) + "..." : s)(JSON.stringify(v));
  const differences = (got, want, path = "", out = []) => {
    if (out.length >= 8 || same(got, want)) return out;
    const nested = v => v !== null && typeof v === "object";
    if (nested(got) && nested(want) && Array.isArray(got) === Array.isArray(want)) {
      for (const k of [...new Set([...Object.keys(got), ...Object.keys(want)])].sort()) {
        differences(got[k], want[k], path ? path + "." + k : k, out);
      }
      return out;
    }
    out.push((path || "the view") + ": page " + brief(got) + ", engine " + brief(want));
    return out;
  };
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
  // A player's own page learns its moves from its private view, which comes apart from the table's state:
  // tapping before it came would tap an old board (a pawn that cannot move yet, another pawn chosen after).
  if (action) {
    const mine = () => window.gkLive && window.gkLive.myLegal ? window.gkLive.myLegal() : [];
    while (!mine().some(a => same(a, action))) {
      if (Date.now() >= deadline) {
        return "this page never offered " + JSON.stringify(action) + "; it offers " + JSON.stringify(mine());
      }
      await sleep(15);
    }
  }
  for (const c of clicks) {
    if (c.rotateTo !== undefined) {
      // The tile is shown at its place; "Turn the tile" turns it until it lies as wanted.
      for (let i = 0; i < 5; i++) {
        const t = await find({selector: "#tile-preview"});
        if (!t) return "no tile shown to turn";
        if (t.getAttribute("data-rotation") === String(c.rotateTo)) break;
        const turn = document.getElementById("confirm-turn");
        if (!turn) return "the tile cannot be turned to " + c.rotateTo;
        press(turn);
        await sleep(0);
      }
      continue;
    }
    const el = await find(c);
    if (!el) return "nothing to click for " + JSON.stringify(c);
    press(el);
  }
  if (!expected) return "ok";
  const want = canon(expected);
  while (Date.now() < deadline) {
    const st = window.gkLive && window.gkLive.state;
    if (st && canon(bare(st.view)) === want) {
      held.length = 0;
      await new Promise(r => requestAnimationFrame(() => r()));  // let the page draw it
      return "ok";
    }
    // A state with a running window (a trap's outcome, a skull's flight) lasts only that long: on a
    // loaded machine the next state may come before this page is looked at. Having held it is enough
    // then; the state after it is checked at the next step.
    const at = held.indexOf(want);
    if (at >= 0) { held.splice(0, at + 1); return "ok"; }
    await sleep(15);
  }
  const st = window.gkLive && window.gkLive.state;
  return "the page never showed the engine's view (it holds " + (st ? "state " + st.seq : "no state") +
    "); where they differ: " + differences(st && bare(st.view), expected).join("; ") +
    "; it waits for: " + (st && st.waiting_for) + "; reply: " + (document.getElementById("reply") || {}).textContent;
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


def step(page: Any, clicks: list[dict[str, Any]], expected: dict[str, Any] | None, timeout: float = 30.0,
         action: Action | None = None) -> None:
    """Make ``clicks`` on ``page`` (once it offers ``action``, a move of its own player), then wait until it
    shows the ``expected`` view."""
    result = page.evaluate(STEP, {"clicks": clicks, "expected": expected, "timeout": int(timeout * 1000),
                                  "action": action.to_json() if action is not None else None})
    assert result == "ok", result


# What the hardware senses: made on the referee's virtual board, never on a player's page.
HARDWARE_KINDS = frozenset({"move_tomb", "skull_outcome", "pull_peg", "challenge_result", "reset_trap"})
CONFIRM = {"selector": "#confirm-send"}


def clicks_for(a: Action) -> list[dict[str, Any]]:
    """What a person taps to make ``a``: the board (a move is proposed, then sent from the confirm bar),
    the virtual board, or the action's button."""
    p, k = a.params, a.kind
    if k == "move_tomb":
        return [{"selector": f'svg#board g.tomb-spot[data-tomb="{p["tomb"]}"][data-pos="{p["to"]}"]'}]
    if k == "skull_outcome":
        # A miss: a skull down the left window. The default simulated board has no beam there (it is
        # optional hardware), so the table calls the miss when the skull's window runs out.
        return [{"selector": "#sim-launch"}] if p["hit"] else []
    if k == "move_pawn":
        return [{"selector": f'svg#board g.pawn[data-seat="{a.player}"][data-pawn="{p["pawn"]}"]'},
                {"selector": f'svg#board g.legal[data-move="{p["to"][0]},{p["to"][1]}"]'}, CONFIRM]
    if k in ("move", "charm_move"):
        return [{"selector": f'svg#board g.walk[data-walk~="{p["direction"]}"]'}, CONFIRM]
    if k == "pull_peg":
        return [{"selector": f'#sim-{p["trap"]}-pull-{p["peg"]}'}]
    if k == "challenge_result":
        # Zapped: the trap springs. Not zapped: its outcome window runs out by itself.
        return [{"selector": f'#sim-{p["trap"]}-spring'}] if p["zapped"] else []
    if k == "reset_trap":
        return [{"selector": f'#sim-{p["trap"]}-reset'}]
    if k == "place_whammy":  # its own choice first, then the space, then the confirm bar
        return [{"selector": "#whammy-place"}, {"selector": f'svg#board g.space.legal[data-space="{p["space"]}"]'},
                CONFIRM]
    if k == "relocate_whammy":
        return [{"selector": f'svg#board g.space.legal[data-space="{p["to"]}"]'}, CONFIRM]
    if k == "place_tile":
        return [{"selector": f'svg#board g.legal[data-place="{p["x"]},{p["y"]}"]'}, {"rotateTo": p["rotation"]},
                CONFIRM]
    if k in ("place_dog", "move_dog", "move_spook", "escape"):
        return [{"selector": f'svg#board g.legal[data-kind="{k}"][data-move="{p["x"]},{p["y"]}"]'}]
    return [{"action": a.to_json()}]


class Driver:
    """Makes each engine action on the page of whoever makes it at a real table: a player's move on
    that player's own page (``players`` maps every seat to it), what the hardware senses on the
    referee's virtual board. After each action every page must show the engine's view."""

    def __init__(self, table_page: Any, players: dict[int, Any]) -> None:
        self.page = table_page
        self.players = players

    def play(self, game: Game, actions: Sequence[Action],
             on_step: Callable[[Game, int], None] | None = None) -> None:
        pages = [self.page, *self.players.values()]
        for page in pages:
            step(page, [], game.public_view())
        for i, a in enumerate(actions):
            game.apply(a)
            after = game.public_view()
            actor = self.page if a.kind in HARDWARE_KINDS or a.player is None else self.players[a.player]
            step(actor, clicks_for(a), after, action=a if actor is not self.page else None)
            for page in pages:
                if page is not actor:
                    step(page, [], after)
            if on_step is not None:
                on_step(game, i)
