"""What a table trips over at a game night, on the players' phones.

A move being chosen when the game master pauses or takes a move back; a player whose turn it is while
the table waits for the board or the game is paused; the game master's list of sensors to mark broken.
Each is a targeted state on a fake table (real broker, real panel, real Chromium), not a whole game.
"""

from __future__ import annotations

import time
from typing import Any

import pytest

from tests.web_panel.phones.test_phone import (
    GAMES,
    MOVES,
    advance,
    join,
    move_to_make,
    publish,
    tap,
)
from tests.web_panel.support.browser import check_phone_page, login, open_page, wait_ready
from tests.web_panel.support.engine_state import public_state
from tests.web_panel.support.fake_table import FakeTable
from web_panel.server import PanelServer

pytestmark = pytest.mark.browser


def hold(fake: FakeTable, g: Any, seq: int, **fields: Any) -> None:
    """The same position, with nothing legal for anyone: the game master paused it (or an undo's
    board is being put back)."""
    fake.state(**{**public_state(g, fake.table, seq), "legal": [], **fields})
    for seat in (0, 1):
        fake.private(seat, {"seq": seq, "seat": seat, "game_id": "g1", "view": g.player_view(seat), "legal": []})


@pytest.mark.parametrize("name", list(MOVES))
def test_a_move_being_chosen_goes_when_the_game_master_pauses(name: str, phone: Any, served: PanelServer,
                                                              fake: FakeTable, token: str) -> None:
    """The player had tapped where to go; the game master pauses. The way drawn on the board and the
    words telling them to tap "Move here" must go with the confirm bar: there is nothing to send."""
    game, seed, want, kind, target, preview = MOVES[name]
    g = advance(game, seed, want)
    publish(fake, g)
    seat = g.current_player
    move = move_to_make(g, kind, seat)
    player, _ = phone()
    join(player, served.url, fake.table, token, seat)
    if kind == "move_pawn" and player.locator(f"#choose-{seat}-{move.params['pawn']}").count():
        player.locator(f"#choose-{seat}-{move.params['pawn']}").tap()
    tap(player, target(move))
    player.wait_for_selector("#confirm:not([hidden])")
    player.wait_for_selector(preview)
    hold(fake, g, 6, gm={"paused": {"since": 0, "by": "referee", "reason": ""}},
         waiting_for="The game is paused: every timer has stopped until the referee resumes it.")
    player.wait_for_selector("#confirm", state="hidden")
    assert player.locator("svg#board g.preview").count() == 0, "the way of a move that cannot be sent is still drawn"
    assert "Move here" not in player.text_content("#board-hint")


@pytest.mark.parametrize("name", ["terror", "superstition", "dogs"])
def test_a_player_whose_turn_it_is_is_not_told_to_wait_for_their_turn(name: str, phone: Any, served: PanelServer,
                                                                      fake: FakeTable, token: str) -> None:
    """Paused (or the board being put back after an undo): it is still this player's turn, so "until it
    is your turn" would be wrong; the page says what the table waits for instead."""
    game, seed, want = GAMES[name]
    g = advance(game, seed, want)
    publish(fake, g)
    seat = g.current_player
    player, _ = phone()
    join(player, served.url, fake.table, token, seat)
    player.wait_for_selector("#your-turn:not([hidden])")
    hold(fake, g, 6, gm={"paused": {"since": 0, "by": "referee", "reason": ""}},
         waiting_for="The game is paused: every timer has stopped until the referee resumes it.")
    player.wait_for_selector("#your-turn", state="hidden")
    player.wait_for_function("document.getElementById('actions').textContent.includes('paused')")
    assert "until it is your turn" not in player.text_content("#actions")
    hold(fake, g, 7, waiting_for="Slide the Wolf tomb back to the middle.")
    player.wait_for_function("document.getElementById('actions').textContent.includes('Slide the Wolf tomb back')")
    assert "until it is your turn" not in player.text_content("#actions")
    other, _ = phone()
    join(other, served.url, fake.table, token, 1 - seat)
    other.wait_for_function("document.getElementById('actions').textContent.includes('until it is your turn')")


def test_the_game_master_marks_broken_only_a_sensor_this_game_reads(phone: Any, served: PanelServer,
                                                                     fake: FakeTable, token: str) -> None:
    g = advance(*GAMES["terror"])
    publish(fake, g, simulate=True)
    reading = {"changed": 990.0, "seen": 999.0, "source": "sim", "online": True}
    fake.publish("sensors", {"time": time.time(), "monotonic": 1000.0, "sensors": {
        "tomb.wolf": {"value": "middle", **reading}, "launcher": {"value": "armed", **reading},
        "chute.left": {"value": "clear", **reading},
        "trap.ladder.peg_a": {"value": "in", **reading}, "trap.ladder.sprung": {"value": "cocked", **reading}}})
    gm, _ = phone()
    login(gm, served.url, fake.table, token)
    gm.wait_for_function("document.querySelectorAll('#gm-sensor option').length > 0")
    options = gm.eval_on_selector_all("#gm-sensor option", "os => os.map(o => o.value)")
    assert {"tomb.wolf", "launcher", "chute.left"} <= set(options)
    assert not [o for o in options if o.startswith("trap.")], f"a Terror game offers Superstition's traps: {options}"


def test_the_game_master_is_not_sent_to_the_virtual_board_while_paused(phone: Any, served: PanelServer,
                                                                        fake: FakeTable, token: str) -> None:
    """Paused, nothing on the board is judged: "the table waits for the board, do it on the virtual
    board" would send the game master to make a move the table does not take."""
    g = advance(*GAMES["terror"])
    publish(fake, g, simulate=True)
    gm, _ = phone()
    login(gm, served.url, fake.table, token)
    gm.wait_for_selector("#sim:not([hidden])")
    # The table waited for a tomb to slide when the game master paused.
    slide = {"kind": "move_tomb", "prompt": "Slide the Wolf tomb one position.", "player": g.current_player,
             "accepts": {"tomb.wolf": {"end_a": {}, "end_b": {}}}, "requires": {}, "action": None}
    hold(fake, g, 6, gm={"paused": {"since": 0, "by": "referee", "reason": ""}}, expects=[slide],
         waiting_for="The game is paused: every timer has stopped until the referee resumes it.")
    gm.wait_for_function("document.getElementById('actions').textContent.includes('paused')")
    assert "waits for the board" not in gm.text_content("#actions")
    assert gm.locator("#to-sim").count() == 0


def test_a_move_taken_back_is_no_longer_reported_done_on_the_phone(phone: Any, served: PanelServer,
                                                                     fake: FakeTable, token: str) -> None:
    """The player's "End the turn: done" under their moves, after the game master took that move back,
    tells them something that is no longer so."""
    g = advance(*GAMES["terror"])
    publish(fake, g)
    player, _ = phone()
    join(player, served.url, fake.table, token, g.current_player)
    fake.handler = lambda name, cmd: {"ok": True}
    player.locator("#actions button.act").first.tap()
    player.wait_for_function("document.getElementById('reply').textContent.endsWith(': done')")
    fake.event("undone", {"move": "Ann ends the turn", "by": "referee", "put_back": []})
    player.wait_for_function("[...document.querySelectorAll('#log li')].some(li => li.textContent.includes('took "
                             "back'))")
    player.wait_for_function("!document.getElementById('reply').textContent.includes('done')")


def test_a_game_that_senses_nothing_offers_no_sensor_corrections(phone: Any, served: PanelServer,
                                                                 fake: FakeTable, token: str) -> None:
    """Graveyard dogs reads no sensor: an empty sensor list, a "Mark it broken" and a "Trust the board"
    that can never be pressed only puzzle the game master."""
    g = advance(*GAMES["dogs"])
    publish(fake, g, simulate=True)
    reading = {"changed": 990.0, "seen": 999.0, "source": "sim", "online": True}
    fake.publish("sensors", {"time": time.time(), "monotonic": 1000.0, "sensors": {
        "tomb.wolf": {"value": "middle", **reading}, "trap.ladder.sprung": {"value": "cocked", **reading}}})
    gm, _ = phone()
    login(gm, served.url, fake.table, token)
    gm.wait_for_selector("#gm-undo")
    gm.wait_for_selector("#gm-sensor", state="attached")
    for control in ("#gm-broken", "#gm-trust", "#gm-sensor"):
        gm.wait_for_selector(control, state="hidden")
    assert gm.is_visible("#gm-pause")


def test_a_seated_player_who_opens_the_join_page_or_the_table_finds_their_own_page(
        phone: Any, served: PanelServer, fake: FakeTable, token: str) -> None:
    """A player scans the join code again, or taps "gravekeeper" and then the table: the phone still
    holds their seat, so both pages lead back to it instead of asking for the code again."""
    g = advance(*GAMES["superstition"])
    publish(fake, g)
    player, errors = phone()
    join(player, served.url, fake.table, token, 1)
    open_page(player, served.url + f"t/{fake.table}/join")
    assert g.players[1] in player.text_content("#seated")
    check_phone_page(player, "the join page of a phone that holds a seat", errors)
    player.locator("#my-page").tap()
    player.wait_for_url(f"**/t/{fake.table}/me")
    wait_ready(player)
    open_page(player, served.url + f"t/{fake.table}")
    link = player.locator("#join-link")
    assert g.players[1] in link.text_content()
    link.tap()
    player.wait_for_url(f"**/t/{fake.table}/me")
    wait_ready(player)
    stranger, _ = phone()
    open_page(stranger, served.url + f"t/{fake.table}/join")
    assert stranger.locator("#seated").count() == 0
