"""The panel's self-test page: it needs the control token, starts the self-test, and shows every step live."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask.testing import FlaskClient

from tests.support.broker import Broker
from tests.web_panel.support.browser import (
    PAGE_WAIT_MS,
    check_phone_page,
    login,
    open_page,
    shot,
    wait_until_panel_knows,
)
from tests.web_panel.support.client import csrf_of
from tests.web_panel.support.fake_table import FakeTable
from tests.web_panel.support.service_runner import RunningService, start_service
from web_panel import PanelSettings
from web_panel.server import start_panel


def test_page_asks_for_the_control_token_first(client: FlaskClient, fake: FakeTable, token: str) -> None:
    page = client.get(f"/t/{fake.table}/selftest")
    text = page.get_data(as_text=True)
    # Spectators get the read-only view docs/panel.md promises: the report and the live health, no controls.
    assert page.status_code == 200 and "starting it, or moving a step on, needs the control token" in text
    assert 'id="st-report"' in text and 'id="st-live"' in text and "selftest.js" in text
    assert 'id="st-start"' not in text and 'id="st-skip"' not in text and 'id="st-stop"' not in text
    csrf = csrf_of(client, fake.table)
    wrong = client.post(f"/t/{fake.table}/selftest/login", data={"token": "nope", "csrf": csrf})
    assert wrong.status_code == 403
    no_csrf = client.post(f"/t/{fake.table}/selftest/login", data={"token": token})
    assert no_csrf.status_code == 403
    right = client.post(f"/t/{fake.table}/selftest/login", data={"token": token, "csrf": csrf})
    assert right.status_code == 303 and right.headers["Location"].endswith(f"/t/{fake.table}/selftest")
    text = client.get(f"/t/{fake.table}/selftest").get_data(as_text=True)
    assert 'id="st-start"' in text and 'id="st-guided"' in text and "selftest.js" in text


def test_unknown_table_is_404(client: FlaskClient) -> None:
    assert client.get("/t/no-such-table/selftest").status_code == 404


@pytest.fixture
def service(mosquitto: Broker, tmp_path: Path, table_id: str, token: str) -> Iterator[RunningService]:
    svc = start_service(mosquitto, tmp_path, table_id, token, game="superstition")
    yield svc
    svc.stop()


@pytest.mark.browser
def test_guided_self_test_from_the_page_step_by_step(service: RunningService, chromium: Any) -> None:
    ctx = chromium.new_context(viewport={"width": 1280, "height": 900}, bypass_csp=True)
    page = ctx.new_page()
    try:
        wait_until_panel_knows(page, service.panel_url, service.table)
        open_page(page, f"{service.panel_url}t/{service.table}/selftest")
        page.fill("#login-token", service.token)
        page.click("#login-submit")
        page.wait_for_selector("#st-guided")

        page.click("#st-guided")
        try:
            page.wait_for_selector("#st-current:not([hidden])", timeout=15000)
        except Exception as exc:  # say what the page had, so a rare timeout explains itself
            seen = page.evaluate("JSON.stringify({reply: (document.getElementById('reply') || {}).textContent,"
                                 " selftest: ((window.gkLive || {}).health || {}).selftest || null})")
            raise AssertionError(f"no guided step shown within 15 s; the page had {seen[:3000]}") from exc
        assert page.text_content("#st-progress").startswith("Step 1 of ")
        total = int(page.text_content("#st-progress").split(" of ")[1].split()[0])
        bar = page.evaluate("[document.getElementById('st-bar').value, document.getElementById('st-bar').max]")
        assert bar == [0, total]
        page.wait_for_function("document.getElementById('reply').classList.contains('ok')")
        assert page.text_content("#reply") == "Guided self-test: started"  # started, not "done"
        assert int(page.text_content("#st-timeleft").split()[0]) > 0
        first = page.text_content("#st-prompt")
        assert first  # the prompt for the person, e.g. "Pull peg A of the Ladder trap"
        # Let this step's clock run down a little, then watch what the page shows the moment step 2 begins:
        # its own full time, not what was left of step 1 (which, after a timeout, read "0 s left").
        timeout_s = page.evaluate("window.gkLive.health.selftest.current.timeout_s")
        page.wait_for_function(f"parseInt(document.getElementById('st-timeleft').textContent) <= {timeout_s - 2}",
                               timeout=10000)
        page.evaluate("""() => { window.stepStarts = []; new MutationObserver(() => window.stepStarts.push(
            [document.getElementById('st-progress').textContent, document.getElementById('st-timeleft').textContent]))
            .observe(document.getElementById('st-progress'),
                     {childList: true, characterData: true, subtree: true}); }""")
        page.click("#st-do")  # the simulator makes the move, as the person would
        page.wait_for_selector("#st-steps tr.st-pass", timeout=10000)
        assert first in page.text_content("#st-steps")
        page.wait_for_function("document.querySelector('#st-progress').textContent.startsWith('Step 2 of ')")
        starts = [left for progress, left in page.evaluate("window.stepStarts") if progress.startswith("Step 2 of")]
        assert starts and starts[0] == f"{round(timeout_s)} s left for this step", starts
        assert page.evaluate("document.getElementById('st-bar').value") == 1
        page.click("#st-skip")
        page.wait_for_selector("#st-steps tr.st-skipped", timeout=10000)
        page.click("#st-stop")
        # Stopped early: nothing failed, but the board is not proven either.
        page.wait_for_function("document.querySelector('#st-verdict').textContent === 'incomplete'", timeout=15000)
        assert page.is_hidden("#st-current")
        rows = page.locator("#st-steps tr").all_text_contents()
        assert rows[0].startswith("PASS") and rows[1].startswith("SKIPPED")
        assert all(r.startswith("SKIPPED") for r in rows[2:]) and len(rows) > 3
        checks = page.text_content("#st-checks")
        # Each check is named in words; its id stays on the row for scripts (docs/selftest.md).
        assert "Broker" in checks and "Journal" in checks and "Data file: superstition board" in checks
        ids = page.evaluate("[...document.querySelectorAll('#st-checks tr')].map(tr => tr.dataset.check)")
        assert {"broker.reachable", "journal.integrity", "data.superstition_board"} <= set(ids)
        # the live health table: every sensor with its counters, fed by the service's monitor
        page.wait_for_selector("#st-sensors tr")
        live = page.locator("#st-sensors tr").all_text_contents()
        assert any(r.startswith("Ladder, peg A") and "edges" in r and "bounces" in r for r in live)
        # The steps name the parts as this table does ("Ladder, peg A", "at end B"): the same peg A and
        # end B, never a near or far end or a left or right peg that nothing else on the page names.
        steps_text = page.text_content("#st-steps")
        assert "Pull peg A of the Ladder trap" in steps_text and " to end B" in steps_text, steps_text
        assert not re.search(r"\b(?:near|far) end\b|\b(?:left|right) peg\b", steps_text), steps_text
        # Nowhere on the page a sensor's or a check's id: a person reads the parts' names.
        text = page.inner_text("body")
        assert not re.search(r"\b(?:tomb|trap|chute|channel|idle|noise|wiring|broker|journal|data)\.[a-z]", text), text
        assert "answered:" in rows[0]  # "The Ladder trap's peg A answered: pulled"
        check_phone_page(page, "the self-test page with a whole report", shot_name="phone-selftest-report")
        assert page.is_hidden("#st-halt")
        shot(page, "selftest-guided")
    finally:
        ctx.close()


@pytest.mark.browser
def test_the_start_buttons_wait_for_the_page_to_be_live(chromium: Any, settings: PanelSettings, fake: FakeTable,
                                                        token: str) -> None:
    """The cause of a rare timeout: a click that lands before selftest.js has attached its handlers.

    The buttons are in the HTML, the script at the end of the body; on a busy machine the script
    arrives well after the buttons can be clicked, and such a click does nothing at all.
    """
    panel = start_panel(settings)
    ctx = chromium.new_context(viewport={"width": 1280, "height": 900}, bypass_csp=True)
    page = ctx.new_page()
    page.set_default_timeout(PAGE_WAIT_MS)
    try:
        view = panel.app.extensions["gravekeeper"]
        assert view.wait_until(lambda: view.has_table(fake.table), 5)
        login(page, panel.url, fake.table, token)
        held: list[Any] = []
        page.route("**/static/selftest.js", lambda route: held.append(route))
        page.goto(f"{panel.url}t/{fake.table}/selftest", wait_until="commit")  # before the page is ready, on purpose
        page.wait_for_selector("#st-guided", state="attached")
        assert page.is_disabled("#st-guided") and page.is_disabled("#st-start")
        assert held, "the page did not ask for selftest.js"
        for route in held:
            route.continue_()
        page.unroute("**/static/selftest.js")
        page.click("#st-guided")  # waits until the page has drawn the table's health and enabled it
        (name, cmd), = fake.wait_command(1)
        assert name == "selftest" and cmd["guided"] is True
        page.wait_for_function("document.getElementById('reply').classList.contains('ok')")
    finally:
        ctx.close()
        panel.close()
