"""The pages in headless Chromium, against a fake table that publishes real engine states."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any

import pytest

from controller.games import Action
from controller.protocol.security import join_code
from tests.support.broker import Broker
from tests.web_panel.support.browser import PAGE_WAIT_MS, click_action, login, open_page, shot
from tests.web_panel.support.engine_state import play, public_state
from tests.web_panel.support.fake_table import FakeTable
from web_panel import PanelSettings
from web_panel.server import PanelServer, start_panel

# Playwright evaluates its waits as strings, which the panel's CSP forbids; tests bypass it (test_routes checks it).
pytestmark = pytest.mark.browser


@pytest.fixture
def page(chromium: Any) -> Iterator[Any]:
    context = chromium.new_context(viewport={"width": 1280, "height": 900}, bypass_csp=True)
    pg = context.new_page()
    pg.set_default_timeout(PAGE_WAIT_MS)
    errors: list[str] = []
    pg.on("pageerror", lambda exc: errors.append(str(exc)))
    yield pg
    context.close()
    assert errors == [], f"the page's scripts failed: {errors}"


def test_terror_board_is_drawn_and_follows_the_table(page: Any, served: PanelServer, fake: FakeTable) -> None:
    g = play("terror", ["Ann", "Bo"], 1)
    fake.state(**public_state(g, fake.table, 0))
    open_page(page, served.url + f"t/{fake.table}")
    page.wait_for_selector("svg#board g.cell")
    assert page.locator("svg#board g.cell").count() == 81
    assert page.locator("svg#board g.pawn").count() == 4
    assert page.locator("svg#board g.tomb-spot").count() == 9
    assert page.text_content("#turn") == "Ann"
    assert page.text_content("#draw-count") == "36"
    assert page.get_attribute("svg#board g.ghost", "data-ghost") == "standing"
    assert page.locator("#controls").count() == 0  # read-only
    g.apply(Action("roll", 0))
    fake.event("dice_rolled", {"player": 0, "number": g.public_view()["dice"]["number"]})
    fake.state(**public_state(g, fake.table, 1))
    page.wait_for_function("document.getElementById('waiting-for').textContent.startsWith('Slide the')")
    assert "Ann: Dice rolled" in page.text_content("#log")
    shot(page, "fake-terror-spectator")


def test_a_referee_logs_in_and_moves_by_clicking_a_destination(page: Any, served: PanelServer,
                                                               fake: FakeTable, token: str) -> None:
    g = play("terror", ["Ann", "Bo"], 1)
    g.apply(Action("roll", 0))
    tomb = g.legal_actions()[0]
    g.apply(tomb)
    fake.state(**public_state(g, fake.table, 2))
    login(page, served.url, fake.table, token)
    assert token not in page.url and token not in page.content()
    page.wait_for_selector("svg#board g.legal")
    move = next(a for a in g.legal_actions() if a.kind == "move_pawn" and a.params["pawn"] == 0)
    fake.handler = lambda name, cmd: {"ok": True, "data": {"events": []}}
    page.locator(f'svg#board '
                 f'g.legal[data-move="{move.params["to"][0]},{move.params["to"][1]}"]').dispatch_event("click")
    page.wait_for_selector("#confirm-send")  # shown where it goes first; sent from the confirm bar
    assert fake.commands == []
    page.click("#confirm-send")
    page.wait_for_function("document.getElementById('reply').classList.contains('ok')")
    (name, cmd), = fake.wait_command(1)
    sent = fake.action_of(cmd)
    assert name == "act" and "action" not in cmd and cmd["seat"] == 0  # sealed for the acting seat
    assert sent["kind"] == "move_pawn" and sent["params"]["pawn"] == 0
    assert sent["params"]["to"] == move.params["to"]
    fake.handler = lambda name, cmd: {"ok": False, "error": "Bo cannot end Ann's turn"}
    assert click_action(page, {"kind": "end_turn", "player": 0, "params": {}})
    page.wait_for_function("document.getElementById('reply').classList.contains('err')")
    assert "Bo cannot end Ann's turn" in page.text_content("#reply")
    shot(page, "fake-terror-referee")


def test_join_codes_and_a_new_game_from_the_form(page: Any, served: PanelServer, fake: FakeTable,
                                                 token: str) -> None:
    login(page, served.url, fake.table, token)
    page.wait_for_selector("#codes li")
    codes = page.locator("#codes code").all_text_contents()
    assert codes == [join_code(token, fake.table, "g1", 0), join_code(token, fake.table, "g1", 1)]
    page.click("#new-game-box summary")
    page.select_option("#ng-game", "dogs")
    page.fill("#ng-players", "Cy, Di, Ed")
    page.fill("#ng-seed", "42")
    page.click("#ng-start")
    (name, cmd), = fake.wait_command(1)
    assert (name, cmd["game"], cmd["players"], cmd["seed"]) == ("new_game", "dogs", ["Cy", "Di", "Ed"], 42)


def test_the_new_game_form_is_not_usable_before_its_script_runs(page: Any, served: PanelServer, fake: FakeTable,
                                                                 token: str) -> None:
    """A submit before table.js has attached its handler would reload the page and send nothing."""
    login(page, served.url, fake.table, token)
    held: list[Any] = []
    page.route("**/static/table.js", lambda route: held.append(route))
    # The button can be parsed before the parser reaches the script tag: wait for the request itself.
    with page.expect_request("**/static/table.js", timeout=10_000):
        page.goto(served.url + f"t/{fake.table}", wait_until="commit")  # before the page is ready, on purpose
    deadline = time.monotonic() + 5
    while not held and time.monotonic() < deadline:
        page.wait_for_timeout(20)  # Playwright hands the held route to its handler while it waits
    page.wait_for_selector("#ng-start", state="attached")
    assert page.is_disabled("#ng-start")
    assert held, "the page did not ask for table.js"
    for route in held:
        route.continue_()
    page.unroute("**/static/table.js")
    page.click("#new-game-box summary")
    page.select_option("#ng-game", "terror")
    page.fill("#ng-players", "Ann, Bo")
    page.fill("#ng-seed", "9007199254740993")  # above 2^53: a JavaScript number would round it
    page.click("#ng-start")
    (name, cmd), = fake.wait_command(1)
    assert (name, cmd["seed"]) == ("new_game", 9007199254740993)
    page.wait_for_function("document.getElementById('reply').classList.contains('ok')")


def test_mismatch_banner_appears_and_clears(page: Any, served: PanelServer, fake: FakeTable) -> None:
    open_page(page, served.url + f"t/{fake.table}")
    page.wait_for_selector("#mismatch", state="hidden")
    fake.state(seq=3, mismatch={"code": "tomb_moved", "message": "The Wolf tomb moved, but nobody rolled.",
                                "guidance": "Put the Wolf tomb back in the middle.", "since": 1.0, "sensors": {}},
               waiting_for="Put the Wolf tomb back in the middle.")
    page.wait_for_selector("#mismatch", state="visible")
    assert page.text_content("#mismatch-guidance") == "Put the Wolf tomb back in the middle."
    shot(page, "fake-mismatch")
    fake.state(seq=4)
    page.wait_for_selector("#mismatch", state="hidden")


def test_a_seq_gap_resyncs_and_a_dropped_stream_reconnects(page: Any, settings: PanelSettings,
                                                          fake: FakeTable) -> None:
    panel = start_panel(settings)
    port = panel.port
    try:
        view = panel.app.extensions["gravekeeper"]
        assert view.wait_until(lambda: view.has_table(fake.table), 5)
        open_page(page, panel.url + f"t/{fake.table}")
        page.wait_for_function("document.body && document.body.dataset.opened === '1'")
        fake.event("a", seq=1)
        page.wait_for_function("window.gkLive && window.gkLive.lastSeq === 1")
        fake.event("b", seq=4)
        page.wait_for_function("document.body && document.body.dataset.resyncs === '1'")
    finally:
        panel.close()
    # A panel restarted on the same port: the page reconnects by itself and is live again.
    panel = start_panel(PanelSettings(**{**settings.__dict__, "listen_port": port}))
    try:
        page.wait_for_function("Number(document.body.dataset.opened) >= 2", timeout=15000)
        fake.state(seq=9, waiting_for="Back again.")
        page.wait_for_function("document.getElementById('waiting-for').textContent === 'Back again.'")
    finally:
        panel.close()


def test_a_table_and_panel_restarted_afresh_are_followed(page: Any, settings: PanelSettings,
                                                         fake: FakeTable) -> None:
    """``gravekeeper run`` restarts both together; with a new journal the table numbers events from 1 again.
    The page reconnects to a snapshot whose seq is lower than what it saw: its log must start over too,
    or the new events, whose seqs it has seen before, are silently left out."""
    panel = start_panel(settings)
    port = panel.port
    try:
        view = panel.app.extensions["gravekeeper"]
        assert view.wait_until(lambda: view.has_table(fake.table), 5)
        open_page(page, panel.url + f"t/{fake.table}")
        page.wait_for_function("document.body && document.body.dataset.opened === '1'")
        for seq in (1, 2, 3):
            fake.event("old_news", {"n": seq}, seq=seq)
        fake.state(seq=3)
        page.wait_for_function("window.gkLive.lastSeq === 3 && window.gkLive.events.length === 3")
    finally:
        panel.close()
    fake.state(seq=0, game_id="g2")
    panel = start_panel(PanelSettings(**{**settings.__dict__, "listen_port": port}))
    try:
        view = panel.app.extensions["gravekeeper"]
        # The page's stream comes back and holds the table: the new panel subscribes to its traffic.
        page.wait_for_function("Number(document.body.dataset.opened) >= 2", timeout=15000)
        assert view.wait_until(lambda: (view.state(fake.table) or {}).get("game_id") == "g2", 5)
        page.wait_for_function("window.gkLive.state && window.gkLive.state.game_id === 'g2'")
        fake.event("fresh_news", {"n": 1}, seq=1)
        page.wait_for_function("document.getElementById('log').textContent.includes('Fresh news')")
        assert "Old news" not in page.text_content("#log")
    finally:
        panel.close()


def test_a_slow_resync_answer_never_replaces_a_newer_state(page: Any, served: PanelServer, fake: FakeTable) -> None:
    """After a gap the page fetches the snapshot while the stream goes on; the stream may bring the
    table's republished state before the fetch's answer, which was read at the panel earlier."""
    fake.event("a", seq=1)
    fake.state(seq=1, waiting_for="Before the gap.")
    open_page(page, served.url + f"t/{fake.table}")
    page.wait_for_function("window.gkLive && window.gkLive.lastSeq === 1 && "
                           "document.getElementById('waiting-for').textContent === 'Before the gap.'")
    held: list[Any] = []
    page.route(f"**/api/t/{fake.table}", lambda route: held.append((route, route.fetch())))
    fake.event("c", seq=3)  # 2 was lost
    page.wait_for_function("document.body && document.body.dataset.resyncs === '1'")
    for _ in range(100):  # the route handler runs while Playwright waits
        if held:
            break
        page.wait_for_timeout(50)
    assert held, "the page did not fetch the snapshot after the gap"
    fake.state(seq=3, waiting_for="After the gap.")
    page.wait_for_function("document.getElementById('waiting-for').textContent === 'After the gap.'")
    route, answer = held[0]
    assert answer.json()["state"]["seq"] == 1  # read before the republished state reached the panel
    route.fulfill(response=answer)
    page.wait_for_function("document.body && document.body.dataset.snapshots === '2'")
    page.evaluate("new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")
    assert page.text_content("#waiting-for") == "After the gap."
    assert page.evaluate("window.gkLive.state.seq") == 3 and page.evaluate("window.gkLive.lastSeq") == 3


def test_a_player_sees_their_secret_and_a_spectator_never_does(chromium: Any, served: PanelServer,
                                                              fake: FakeTable, token: str) -> None:
    g = play("superstition", ["Ann", "Bo"], 3)
    fake.state(**public_state(g, fake.table, 0))
    secret = {"seq": 0, "seat": 1, "game_id": "g1",
              "view": {**g.public_view(), "you": {"seat": 1, "whammy": "w1", "whammy_name": "Black Cat Crossing",
                                                  "charm": "c1", "charm_name": "Rabbit's Foot"}},
              "legal": [{"kind": "place_whammy", "player": 1, "params": {"space": "s3"}}]}
    fake.private(1, secret)
    spectator_bodies: list[str] = []
    ctx_s = chromium.new_context(bypass_csp=True)
    ctx_p = chromium.new_context(bypass_csp=True)
    try:
        spec = ctx_s.new_page()
        spec.on("response", lambda r: spectator_bodies.append(r.text()) if "stream" not in r.url else None)
        open_page(spec, served.url + f"t/{fake.table}")
        spec.wait_for_selector("svg#board g.trap")
        player = ctx_p.new_page()
        open_page(player, served.url + f"t/{fake.table}/join")
        player.fill("#join-code", join_code(token, fake.table, "g1", 1))
        player.click("button[type=submit]")
        player.wait_for_selector(".hand .secret")
        assert "Black Cat Crossing" in player.text_content("#hand")
        assert "Rabbit's Foot" in player.text_content("#hand")
        assert player.locator('svg#board g.space.legal').count() == 0  # placing is a choice of its own
        player.click("#whammy-place")
        assert player.locator('svg#board g.space.legal[data-space="s3"]').count() == 1
        fake.handler = lambda name, cmd: {"ok": True}
        player.click('svg#board g.space.legal[data-space="s3"]')
        player.click("#confirm-send")
        (name, cmd), = fake.wait_command(1)
        assert "action" not in cmd and b"place_whammy" not in json.dumps(cmd).encode()  # sealed on the broker
        assert fake.action_of(cmd) == {"kind": "place_whammy", "player": 1, "params": {"space": "s3"}}
        shot(player, "fake-player-view")
        fake.event("whammy_placed", {"player": 1, "space": "s3"})
        spec.wait_for_function("document.getElementById('log').textContent.includes('Bo placed a Whammy on the first "
                               "stone before the first Grave.')")
        shot(spec, "fake-spectator-view")
        # What the spectator's own stream carries: read it until the snapshot is complete.
        stream_text = spec.evaluate(r"""async (url) => {
            const c = new AbortController(); setTimeout(() => c.abort(), 10000);
            const complete = t => {
              const i = t.indexOf("event: snapshot"); return i >= 0 && t.indexOf("\n\n", i) >= 0; };
            let text = ""; try { const r = await fetch(url, {signal: c.signal}); const rd = r.body.getReader();
              while (!complete(text)) {
                const {value, done} = await rd.read(); if (done) break; text += new TextDecoder().decode(value); }
              c.abort(); }
            catch (e) {} return text; }""", served.url + f"t/{fake.table}/stream")
        assert "event: snapshot" in stream_text and "Bo placed" not in stream_text
        for text in [spec.content(), stream_text, *spectator_bodies]:
            assert "Black Cat Crossing" not in text and "Rabbit" not in text
    finally:
        ctx_s.close()
        ctx_p.close()


def test_a_player_whose_seat_is_gone_is_told_to_join_again(chromium: Any, settings: PanelSettings,
                                                          fake: FakeTable, token: str) -> None:
    """Sessions live in the panel's memory: after a panel restart the player's stream is refused (403).
    The page must say so and stop showing the hand it had, not retry in silence with a stale hand."""
    g = play("superstition", ["Ann", "Bo"], 3)
    fake.state(**public_state(g, fake.table, 0))
    fake.private(0, {"seq": 0, "seat": 0, "game_id": "g1",
                     "view": {**g.public_view(), "you": {"seat": 0, "whammy": "w1", "whammy_name": "Black Cat Crossing",
                                                         "charm": "c1", "charm_name": "Rabbit's Foot"}},
                     "legal": []})
    panel = start_panel(settings)
    port = panel.port
    ctx = chromium.new_context(bypass_csp=True)
    errors: list[str] = []
    try:
        view = panel.app.extensions["gravekeeper"]
        assert view.wait_until(lambda: view.has_table(fake.table), 5)
        view.hold(fake.table)  # the table is watched (the player's page will hold it too)
        assert view.wait_until(lambda: view.sealed_view(fake.table, 0) is not None, 5)
        player = ctx.new_page()
        player.set_default_timeout(PAGE_WAIT_MS)
        player.on("pageerror", lambda exc: errors.append(str(exc)))
        open_page(player, panel.url + f"t/{fake.table}/join")
        player.fill("#join-code", join_code(token, fake.table, "g1", 0))
        player.click("button[type=submit]")
        player.wait_for_selector(".hand .secret")
        panel.close()
        panel = start_panel(PanelSettings(**{**settings.__dict__, "listen_port": port}))
        view = panel.app.extensions["gravekeeper"]
        assert view.wait_until(lambda: view.has_table(fake.table), 5)
        player.wait_for_selector("#left:not([hidden])", timeout=15000)
        assert "join" in player.text_content("#left").lower()
        # The notice is written at once, the hand cleared when the page next draws (live.js, in its next
        # frame): a read between the two, on a busy machine, saw the old hand. The wait fails if it stays.
        player.wait_for_function("!document.getElementById('hand').textContent.includes('Black Cat Crossing')")
        assert player.get_attribute("#left a", "href").endswith(f"/t/{fake.table}/join")
        assert errors == []
    finally:
        ctx.close()
        panel.close()


def test_dogs_board_draws_tiles_dogs_spooks_and_snacks(page: Any, served: PanelServer, fake: FakeTable,
                                                       token: str) -> None:
    import random

    rnd = random.Random(5)
    g = play("dogs", ["Ann", "Bo"], 0)
    while not (g.public_view()["dogs"] and g.public_view()["spooks"] and g.public_view()["snacks"]):
        g.apply(rnd.choice(g.legal_actions()))
    fake.state(**public_state(g, fake.table, 0))
    login(page, served.url, fake.table, token)
    page.wait_for_selector("svg#board g.dog")
    v = g.public_view()
    assert page.locator("svg#board rect.tile").count() == len(v["tiles"])
    assert page.locator("svg#board g.dog").count() == len(v["dogs"])
    assert page.locator("svg#board g.spook").count() == len(v["spooks"])
    assert page.locator("svg#board rect.snack").count() == len(v["snacks"])
    assert page.text_content("#face-down-spooks") == f"Face-down spooks: {v['face_down_spooks']}"
    shot(page, "fake-dogs")


def test_the_table_list_follows_the_broker(page: Any, served: PanelServer, fake: FakeTable, mosquitto: Broker,
                                           token: str) -> None:
    open_page(page, served.url)
    page.wait_for_selector(f'li[data-table="{fake.table}"]')
    other = FakeTable(mosquitto.port, fake.table + "x", token)
    try:
        other.online(game="superstition")
        row = page.wait_for_selector(f'li[data-table="{other.table}"]', timeout=8000)
        assert "online" in row.text_content() and "Superstition" in row.text_content()
        other.publish("status", {"state": "offline", "table": other.table})
        page.wait_for_function(
            "(t) => (document.querySelector(`li[data-table='${t}']`) || {}).textContent.includes('offline')",
            arg=other.table, timeout=8000)
    finally:
        other.clear()
        other.close()


def test_sensor_and_health_strip(page: Any, served: PanelServer, fake: FakeTable) -> None:
    import time

    now = time.time()
    # Sensor times are the controller's monotonic clock; "monotonic" is that clock at publish.
    fake.publish("sensors", {"time": now, "monotonic": 1000.0, "sensors": {
        "tomb.wolf": {"value": "end_b", "changed": 990.0, "seen": 995.0, "source": "gpio", "online": True},
        "launcher": {"value": "armed", "changed": 100.0, "seen": 100.0, "source": "mcu", "online": False}}})
    fake.publish("health", {"time": now, "links": {"mcu": {"state": "offline", "last_error": "unplugged"},
                                                   "broker": {"state": "connected"}},
                            "counters": {}, "warnings": ["launcher: no reading for 900 s"], "selftest": None})
    open_page(page, served.url + f"t/{fake.table}")
    page.wait_for_selector('tr[data-sensor="tomb.wolf"]')
    wolf = page.locator('tr[data-sensor="tomb.wolf"]')
    assert wolf.locator("td.id").text_content() == "Wolf tomb"  # in words, never the sensor's id
    assert wolf.locator("td.value").text_content() == "at end B"
    # 10 s before the publish, plus however long the page took to draw on a busy machine.
    changed = int(wolf.locator("td.changed").text_content().split()[1])
    assert 10 <= changed <= 35
    assert wolf.get_attribute("class") != "stale"  # online: at rest is not stale
    launcher = page.locator('tr[data-sensor="launcher"]')
    assert "(offline)" in launcher.text_content() and launcher.get_attribute("class") == "stale"
    links = page.text_content("#links")
    assert "microcontroller: offline (unplugged)" in links
    assert "broker: connected" in links and "panel: connected" in links
    assert "no reading for 900 s" in page.text_content("#warnings")


def _play_until(game: str, seed: int, found: Any, options: dict | None = None, limit: int = 3000) -> Any:
    import random

    from controller.games import get_game

    rnd = random.Random(seed)
    g = get_game(game).new(["Ann", "Bo"], seed, options or {})
    for _ in range(limit):
        if found(g):
            return g
        if g.is_over:
            g = get_game(game).new(["Ann", "Bo"], seed := seed + 1, options or {})
            continue
        g.apply(rnd.choice(g.legal_actions()))
    raise AssertionError(f"no {game} position found")


def test_naming_a_peg_by_clicking_it(page: Any, served: PanelServer, fake: FakeTable, token: str) -> None:
    g = _play_until("superstition", 1, lambda g: any(a.kind == "pull_peg" for a in g.legal_actions()),
                    {"challenge": "digital"})
    fake.state(**public_state(g, fake.table, 5))
    login(page, served.url, fake.table, token)
    peg = next(a for a in g.legal_actions() if a.kind == "pull_peg" and a.params["peg"] == "b")
    sel = f'svg#board g.peg.legal[data-peg="{peg.params["trap"]}.b"]'
    page.wait_for_selector(sel)
    assert "Name a peg" in page.text_content("#board-hint")
    page.locator(sel).dispatch_event("click")
    (name, cmd), = fake.wait_command(1)
    assert fake.action_of(cmd) == peg.to_json()


def test_a_player_plays_a_card_on_a_chosen_target(chromium: Any, served: PanelServer, fake: FakeTable,
                                                  token: str) -> None:
    def has_target_card(g: Any) -> bool:
        return any(a.kind == "play_card" and "target" in a.params for a in g.legal_actions())

    g = _play_until("terror", 1, has_target_card)
    play = next(a for a in g.legal_actions() if a.kind == "play_card" and "target" in a.params)
    seat = play.player
    fake.state(**public_state(g, fake.table, 7))
    fake.private(seat, {"seq": 7, "seat": seat, "game_id": "g1", "view": g.player_view(seat),
                        "legal": [a.to_json() for a in g.legal_actions_for(seat)]})
    ctx = chromium.new_context(bypass_csp=True)
    try:
        page = ctx.new_page()
        open_page(page, served.url + f"t/{fake.table}/join")
        page.fill("#join-code", join_code(token, fake.table, "g1", seat))
        page.click("button[type=submit]")
        page.wait_for_selector('button.act[data-kind="play_card"]')
        title = g.card(play.params["card"]).public()["title"]  # type: ignore[attr-defined]
        assert title in page.text_content("#hand")
        assert click_action(page, play.to_json())
        (name, cmd), = fake.wait_command(1)
        sent = fake.action_of(cmd)
        assert "action" not in cmd and cmd["seat"] == seat
        assert sent["kind"] == "play_card" and sent["params"] == play.to_json()["params"]
        shot(page, "fake-terror-card-target")
    finally:
        ctx.close()
