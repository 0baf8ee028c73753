"""The history page's sensor table in Chromium: each sensor by its name, with the bounces of every game.

The journal holds two games with bounce counts journalled against each (as the
controller's bounce ledger writes them: tests/controller/store/test_bounce_stats.py
makes them from real bursts across a restart); a real ``gravekeeper run
--simulate`` serves it, and the page sums them per sensor, in words.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from controller.referee.live import Referee
from tests.controller.referee.test_fakegame import make_referee
from tests.support.broker import Broker
from tests.web_panel.support.browser import check_phone_page, open_page, watch_console
from tests.web_panel.support.service_runner import start_service

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def test_the_sensor_table_shows_every_games_bounces_in_words(mosquitto: Broker, tmp_path: Path, table_id: str,
                                                               pages: Any) -> None:
    ref: Referee = make_referee(tmp_path, settings={"table.id": table_id, "referee.board": "manual",
                                                    "journal.path": str(tmp_path / f"{table_id}.journal")})
    assert ref.new_game("terror", ["Ann", "Bo"], seed=1).ok
    ref.journal.add_sensor_counts(str(ref.game_id), {"trap.mirror.sprung": 4, "tomb.wolf": 3})
    assert ref.new_game("terror", ["Cy", "Di"], seed=2).ok
    ref.journal.add_sensor_counts(str(ref.game_id), {"trap.mirror.sprung": 3})
    ref.journal.close()
    svc = start_service(mosquitto, tmp_path, table_id, "tok-gm-stats", game="terror")
    try:
        page = pages(390, 844, mobile=True)
        errors = watch_console(page)
        url = svc.panel_url + f"t/{svc.table}/history"
        deadline = 45_000
        while page.request.get(url).status == 404 and deadline > 0:  # a panel that has just started
            page.wait_for_timeout(100)
            deadline -= 100
        open_page(page, url)
        page.wait_for_selector('#sensor-stats tr[data-sensor="trap.mirror.sprung"]')
        mirror = page.text_content('#sensor-stats tr[data-sensor="trap.mirror.sprung"]') or ""
        wolf = page.text_content('#sensor-stats tr[data-sensor="tomb.wolf"]') or ""
        assert mirror.startswith("the Mirror trap") and mirror.endswith("7 in 2 games"), mirror
        assert wolf.startswith("the Wolf tomb") and wolf.endswith("3 in 1 game"), wolf
        # The most trouble first (the Mirror trap's 7 bounces before the Wolf tomb's 3), and the page says so.
        order = page.eval_on_selector_all("#sensor-stats tbody tr", "rows => rows.map(r => r.dataset.sensor)")
        assert order == ["trap.mirror.sprung", "tomb.wolf"], order
        assert "The most trouble comes first" in (page.text_content("#sensor-stats >> xpath=../..") or "")
        check_phone_page(page, "the history's sensor table", errors)
    finally:
        svc.stop()
