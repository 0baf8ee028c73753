"""An outcome window's countdown on a page opened, or reloaded, in the middle of the window.

Against a real ``gravekeeper run --simulate`` and Mosquitto: the table says what is left of the
window in its state (``expects[].left_ms``), the panel how old its copy is (``age_ms``), and a page
that was not there when the window opened counts down what is really left, not the whole window.
A pause stops the number; a page opened during the pause shows the same.
"""

from __future__ import annotations

import random
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from controller.games import Action, Game, get_game
from controller.protocol.security import game_seed, join_code
from tests.support.broker import Broker
from tests.web_panel.support.browser import PAGE_WAIT_MS, login, open_page, wait_ready, watch_console
from tests.web_panel.support.e2e_driver import Driver
from tests.web_panel.support.fake_table import FakeTable
from tests.web_panel.support.service_runner import RunningService, start_service
from web_panel.server import PanelServer

pytestmark = [pytest.mark.browser, pytest.mark.slow]

WINDOW_MS = 20000  # long enough to open a page in its middle on a loaded machine
OPTIONS = {"challenge": "sensors", "outcome_window_ms": WINDOW_MS}
LEFT = "() => { const b = document.getElementById('countdown'); return b.hidden ? null : Number(b.dataset.left); }"


@pytest.fixture
def token() -> str:
    return "tok-countdown"


@pytest.fixture
def service(mosquitto: Broker, tmp_path: Path, token: str, table_id: str) -> Iterator[RunningService]:
    svc = start_service(mosquitto, tmp_path, table_id, token, game="superstition",
                        referee={"trap_window_ms": WINDOW_MS})
    yield svc
    svc.stop()


def to_a_trap(token: str) -> tuple[int, Game, list[Action]]:
    """A seed and the moves up to a pulled peg: the trap's outcome window is then open."""
    for seed in range(300):
        rnd = random.Random(seed)
        g = get_game("superstition").new(["Ann", "Bo"], game_seed(token, seed), OPTIONS)
        actions: list[Action] = []
        while not g.is_over and len(actions) < 30:
            la = [a for a in g.legal_actions() if a.player == g.current_player] or g.legal_actions()
            a = next((a for a in la if a.kind == "pull_peg"), None) or rnd.choice(
                [a for a in la if a.kind not in ("end_turn", "leave_whammy", "charm_move")] or la)
            actions.append(a)
            g.apply(a)
            if a.kind == "pull_peg":
                return seed, get_game("superstition").new(["Ann", "Bo"], game_seed(token, seed), OPTIONS), actions
    raise AssertionError("no seed reaches a trap within 30 moves")


def test_a_page_opened_mid_window_counts_down_what_is_left(service: RunningService, chromium: Any) -> None:
    contexts: list[Any] = []
    console: list[list[str]] = []

    def phone() -> Any:
        ctx = chromium.new_context(viewport={"width": 390, "height": 844}, bypass_csp=True)
        contexts.append(ctx)
        page = ctx.new_page()
        page.set_default_timeout(PAGE_WAIT_MS)
        console.append(watch_console(page))
        return page

    try:
        seed, g, actions = to_a_trap(service.token)
        table = phone()
        login(table, service.panel_url, service.table, service.token)
        table.wait_for_function("window.gkLive && window.gkLive.state && window.gkLive.state.game_id")
        old = table.evaluate("window.gkLive.state.game_id")
        table.click("#new-game-box summary")
        table.select_option("#ng-game", "superstition")
        table.fill("#ng-players", "Ann, Bo")
        table.fill("#ng-seed", str(seed))
        table.click("#ng-start")
        table.wait_for_function("(old) => window.gkLive.state.game_id !== old", arg=old)
        game_id = table.evaluate("window.gkLive.state.game_id")
        players = {}
        for seat in (0, 1):
            players[seat] = phone()
            open_page(players[seat], service.panel_url + f"t/{service.table}/join")
            players[seat].fill("#join-code", join_code(service.token, service.table, game_id, seat))
            players[seat].click("button[type=submit]")
            players[seat].wait_for_selector("#hand")
        Driver(table, players).play(g, actions)  # the last one pulls a peg: the window opens
        table.wait_for_function(f"({LEFT})() !== null")
        opened = time.monotonic()
        # The table's page shows the window from near its start: as near as the page's own lag behind the
        # peg allows, which on a loaded machine can be a second or two. What is left later is reckoned from
        # this first reading, so that lag does not count against the pages below.
        left_at_open = table.evaluate(LEFT)
        assert WINDOW_MS / 1000 - 5.0 <= left_at_open <= WINDOW_MS / 1000

        # Let some of the window go by, then come to the table: a spectator's new page, a player's reload.
        table.wait_for_function(f"({LEFT})() !== null && ({LEFT})() < {WINDOW_MS / 1000 - 4}", timeout=15000)
        spectator = phone()
        open_page(spectator, service.panel_url + f"t/{service.table}")
        players[0].reload()
        wait_ready(players[0])
        for page in (spectator, players[0]):
            page.wait_for_function(f"({LEFT})() !== null")
            shown = page.evaluate(LEFT)
            true_left = left_at_open - (time.monotonic() - opened)
            assert shown < WINDOW_MS / 1000 - 3.5, f"a page opened mid-window counted the whole window: {shown}"
            assert true_left - 1.0 <= shown <= true_left + 1.0, (shown, true_left)
            assert "s left" in page.text_content("#countdown")

        # A pause stops every timer, and the number with it; a page opened during the pause agrees.
        table.fill("#gm-reason", "a phone call")
        table.click("#gm-pause")
        table.wait_for_function("window.gkLive.state.gm && window.gkLive.state.gm.paused")
        spectator.wait_for_function("document.getElementById('countdown').textContent.includes('paused')")
        held = spectator.evaluate(LEFT)
        late = phone()
        open_page(late, service.panel_url + f"t/{service.table}")
        late.wait_for_function("document.getElementById('countdown').textContent.includes('paused')")
        late.wait_for_timeout(1500)  # the number must not move while paused: watched for a while
        assert abs(late.evaluate(LEFT) - held) <= 0.3 and abs(spectator.evaluate(LEFT) - held) <= 0.3
        table.click("#gm-pause")  # resume: it goes on from what was left
        late.wait_for_function("!document.getElementById('countdown').textContent.includes('paused')")
        late.wait_for_function(f"({LEFT})() < {held - 0.5}")
        assert late.evaluate(LEFT) > held - 3.0
    finally:
        for ctx in contexts:
            ctx.close()
    assert [e for errs in console for e in errs] == []


# Every change made to the countdown's box, as it was made: "@name" for an attribute, else the text shown.
WATCH = """() => { const box = document.getElementById('countdown'); window.__drawn = [];
  new MutationObserver(ms => { for (const m of ms) window.__drawn.push(m.type === 'attributes'
      ? '@' + m.attributeName : box.textContent); })
    .observe(box, {attributes: true, childList: true, characterData: true, subtree: true}); }"""


def skull_window(window_ms: int, left_ms: int) -> list[dict[str, Any]]:
    return [{"kind": "skull_outcome", "prompt": "", "player": 0, "accepts": {}, "requires": {}, "action": None,
             "window_ms": window_ms, "left_ms": left_ms, "on_timeout": None}]


def test_the_countdown_draws_only_when_what_it_shows_changes(pages: Any, served: PanelServer,
                                                             fake: FakeTable) -> None:
    """One clock for the page: idle with no window or a paused one, and once per tenth while one runs."""
    page = pages(390, 844)
    open_page(page, served.url + f"t/{fake.table}")
    page.wait_for_function("window.gkLive && window.gkLive.state && window.gkLive.state.game_id === 'g1'")
    page.evaluate(WATCH)
    page.wait_for_timeout(1000)  # nothing must happen: watched for a while
    assert page.evaluate("window.__drawn") == [], "the countdown was redrawn with no window open"

    fake.state(expects=skull_window(2500, 2500))
    page.wait_for_function("!document.getElementById('countdown').hidden")
    page.wait_for_function("document.getElementById('countdown').dataset.left === '0.0'")
    texts = [x for x in page.evaluate("window.__drawn") if not x.startswith("@")]
    assert all(a != b for a, b in zip(texts, texts[1:], strict=False)), f"a draw showed the same number again: {texts}"
    assert 10 <= len(texts) <= 26, texts  # about one draw a tenth, from at most 2.5 s down to nothing
    page.evaluate("window.__drawn = []")
    page.wait_for_timeout(1000)
    assert page.evaluate("window.__drawn") == [], "the countdown went on drawing after it ran out"

    fake.state(expects=skull_window(5000, 3000), gm={"paused": {"by": "referee", "reason": "tea"}})
    page.wait_for_function("document.getElementById('countdown').textContent.includes('paused')")
    assert page.evaluate("document.getElementById('countdown').dataset.left") == "3.0"
    page.evaluate("window.__drawn = []")
    page.wait_for_timeout(1000)
    assert page.evaluate("window.__drawn") == [], "the countdown was redrawn while the game was paused"
