"""Sessions and guessing against the real panel: fixation, lockouts of the rightful, DNS rebinding.

The guesser sits at ``127.0.0.2``, the referee and the players at ``127.0.0.1`` (two devices).
"""

from __future__ import annotations

import pytest

from controller.protocol.security import join_code
from tests.support.broker import Broker
from tests.web_panel.support.fake_table import FakeTable
from tests.web_panel.support.panel_child import Browser, ChildPanel, wait_for_game
from web_panel.auth import TABLE_JOIN_FAILURES_ALLOWED

pytestmark = pytest.mark.timeout(120)


def _panel(mosquitto: Broker, token: str) -> ChildPanel:
    return ChildPanel({"broker_port": mosquitto.port, "token": token})


def test_a_cookie_planted_before_the_referee_logs_in_reads_no_join_codes(mosquitto: Broker, fake: FakeTable,
                                                                         token: str) -> None:
    with _panel(mosquitto, token) as panel:
        attacker = Browser(panel, "127.0.0.2")
        wait_for_game(attacker, fake.table)
        attacker.csrf(fake.table)  # a session of the attacker's, whose cookie ends up in the referee's browser
        assert attacker.cookie is not None
        referee = Browser(panel)
        referee.cookie = attacker.cookie
        assert referee.log_in(fake.table, token).status == 303
        assert referee.cookie != attacker.cookie, "the session id was kept across the login"
        assert referee.request("GET", f"/api/t/{fake.table}/codes").status == 200
        stolen = attacker.request("GET", f"/api/t/{fake.table}/codes")
        assert stolen.status == 403, f"the planted cookie reads the join codes: {stolen.text[:200]}"
        # And logging out gives the browser a new id again: the one that was logged in is worth nothing.
        logged_in = referee.cookie
        out = referee.post_form(f"/t/{fake.table}/logout", {"csrf": referee.csrf(fake.table)})
        assert out.status == 303 and referee.cookie != logged_in


def test_a_cookie_planted_before_a_player_joins_reads_no_hand(mosquitto: Broker, fake: FakeTable,
                                                              token: str) -> None:
    with _panel(mosquitto, token) as panel:
        attacker = Browser(panel, "127.0.0.2")
        wait_for_game(attacker, fake.table)
        attacker.csrf(fake.table)
        player = Browser(panel)
        player.cookie = attacker.cookie
        assert player.join(fake.table, join_code(token, fake.table, "g1", 1)).status == 303
        assert player.cookie != attacker.cookie, "the session id was kept across the join"
        assert player.request("GET", f"/api/t/{fake.table}/me").status == 200
        stolen = attacker.request("GET", f"/api/t/{fake.table}/me")
        assert stolen.status == 403, f"the planted cookie reads the player's view: {stolen.text[:200]}"


def test_guessing_tokens_from_fresh_sessions_never_locks_out_the_referee(mosquitto: Broker, fake: FakeTable,
                                                                         token: str) -> None:
    with _panel(mosquitto, token) as panel:
        wait_for_game(Browser(panel), fake.table)
        statuses = []
        for i in range(TABLE_JOIN_FAILURES_ALLOWED + 2):
            guesser = Browser(panel, "127.0.0.2")  # a fresh session each time
            statuses.append(guesser.log_in(fake.table, f"guess-{i}").status)
        assert statuses[-1] == 429, f"the guesser was never slowed down: {statuses}"
        assert Browser(panel).log_in(fake.table, token).status == 303, "the guesser locked the referee out"
        assert Browser(panel, "127.0.0.2").log_in(fake.table, token).status == 429  # only the guesser waits


def test_guessing_join_codes_from_fresh_sessions_never_locks_out_the_players(mosquitto: Broker, fake: FakeTable,
                                                                             token: str) -> None:
    with _panel(mosquitto, token) as panel:
        wait_for_game(Browser(panel), fake.table)
        statuses = []
        for _ in range(TABLE_JOIN_FAILURES_ALLOWED + 2):
            statuses.append(Browser(panel, "127.0.0.2").join(fake.table, "AAAAAA").status)
        assert statuses[-1] == 429, f"the guesser was never slowed down: {statuses}"
        assert Browser(panel).join(fake.table, join_code(token, fake.table, "g1", 0)).status == 303, \
            "the guesser locked the players out"


def test_a_page_of_another_name_is_refused(mosquitto: Broker, fake: FakeTable, token: str) -> None:
    """DNS rebinding: another site's name made to point here reaches nothing, and is told why."""
    with _panel(mosquitto, token) as panel:
        wait_for_game(Browser(panel), fake.table)
        # Nor a header that is not one name: two Host headers (joined with a comma), a name after a port.
        for host in ("rebind.example", f"rebind.example:{panel.port}", "127.0.0.1.rebind.example",
                     f"127.0.0.1:{panel.port}, rebind.example", "127.0.0.1:rebind.example", "localhost/x"):
            for path in ("/", f"/t/{fake.table}", f"/api/t/{fake.table}"):
                r = Browser(panel, host_header=host).request("GET", path)
                assert r.status == 421 and "does not go by the name" in r.text, (host, path, r.status, r.text[:200])
                assert "set-cookie" not in r.headers
        for good in (f"127.0.0.1:{panel.port}", f"localhost:{panel.port}", "127.0.0.1", f"[::1]:{panel.port}"):
            assert Browser(panel, host_header=good).request("GET", "/").status == 200, good
