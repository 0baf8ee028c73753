"""The pages on a phone, against a fake table that publishes real engine states.

Every page at 360 and 390 CSS px (``support.browser.check_phone_page``): touch targets of at least 44x44,
no sideways scroll, no id or coordinate in the text, no console error, no serious axe-core violation.
And what a phone player relies on: a move is shown where it goes before it is sent, "Your turn" stands at
the top, "Leave" asks first.
"""

from __future__ import annotations

import dataclasses
import json
import random
import re
from collections.abc import Callable
from typing import Any

import pytest

from controller.games import Game, get_game
from controller.games.terror import Terror
from controller.games.terror.words import place_words
from controller.protocol.security import join_code
from tests.support.cut_proxy import CutProxy
from tests.web_panel.support.browser import (
    DRAWN_FOR_WIDTH,
    PAGE_WAIT_MS,
    PHONE_HEIGHT,
    PHONE_WIDTHS,
    RAW_ID,
    check_phone_page,
    login,
    open_page,
    shot,
    watch_console,
)
from tests.web_panel.support.engine_state import public_state
from tests.web_panel.support.fake_table import FakeTable
from web_panel.server import PanelServer

pytestmark = pytest.mark.browser




def advance(name: str, seed: int, want: Callable[[Game], bool], limit: int = 400) -> Game:
    """A game played at random (the player to move acting) until ``want`` holds."""
    g = get_game(name).new(["Ann", "Bo"], seed)
    rnd = random.Random(seed)
    for _ in range(limit):
        if want(g):
            return g
        la = g.legal_actions()
        cur = [a for a in la if a.player == g.current_player and a.kind not in ("end_turn", "back")] or la
        g.apply(rnd.choice(cur))
    raise AssertionError(f"no {name} game with seed {seed} got there in {limit} actions")


def terror_monster_move(g: Game) -> bool:
    v = g.public_view()
    return v["phase"] == "move" and any(p["monster"] for s in v["players"] for p in s["pawns"])


def superstition_move(g: Game) -> bool:
    v = g.public_view()
    b = v["board"]
    space = v["players"][g.current_player]["space"]
    return v["phase"] == "move" and bool(v["walks"]) and space in b["brick_path"] + b["stone_path"]


def terror_paralysed_move(g: Game) -> bool:
    v = g.public_view()
    return v["phase"] == "move" and any(p["paralysed"] for s in v["players"] for p in s["pawns"])


GAMES = {
    # what is shown: (the game, a seed, where its random game stops)
    "terror": ("terror", 0, terror_monster_move),
    "terror-paralysed": ("terror", 1, terror_paralysed_move),
    "superstition": ("superstition", 1, superstition_move),
    "dogs": ("dogs", 1,
             lambda g: g.public_view()["tiles_placed"] >= 4 and any(a.kind == "place_tile" for a in g.legal_actions())),
}


def publish(fake: FakeTable, g: Game, simulate: bool = False) -> None:
    fake.publish("status", {"state": "online", "table": fake.table, "game": g.name, "version": "test", "since": 0,
                            "simulate": simulate})
    fake.state(**public_state(g, fake.table, 5))
    for seat in (0, 1):
        fake.private(seat, {"seq": 5, "seat": seat, "game_id": "g1", "view": g.player_view(seat),
                            "legal": [a.to_json() for a in g.legal_actions() if a.player == seat]})


def join(page: Any, url: str, table: str, token: str, seat: int) -> None:
    open_page(page, url + f"t/{table}/join")
    page.fill("#join-code", join_code(token, table, "g1", seat))
    page.click("button[type=submit]")
    page.wait_for_selector("#hand .group, #hand:has-text('Nothing secret')")


@pytest.mark.parametrize("name", list(GAMES))
def test_every_page_on_a_phone(name: str, phone: Any, served: PanelServer, fake: FakeTable, token: str) -> None:
    game, seed, want = GAMES[name]
    g = advance(game, seed, want)
    publish(fake, g)
    url = served.url

    page, errors = phone()
    open_page(page, url)
    page.wait_for_selector(f'li[data-table="{fake.table}"]')
    check_phone_page(page, "the table list", errors, shot_name=f"phone-{name}-index")

    open_page(page, url + f"t/{fake.table}")
    page.wait_for_selector("svg#board g")
    check_phone_page(page, f"{name}: a spectator's table page", errors, shot_name=f"phone-{name}-spectator")

    referee, ref_errors = phone()
    login(referee, url, fake.table, token)
    referee.wait_for_selector("svg#board g")
    referee.wait_for_selector("#codes code")
    check_phone_page(referee, f"{name}: the referee's table page", ref_errors, shot_name=f"phone-{name}-referee")

    open_page(referee, url + f"t/{fake.table}/selftest")
    referee.wait_for_selector("#st-controls")
    check_phone_page(referee, "the self-test page", ref_errors, shot_name="phone-selftest")
    open_page(referee, url + f"t/{fake.table}")
    referee.wait_for_selector("svg#board g")
    open_page(page, url + f"t/{fake.table}/selftest")
    page.wait_for_selector("#login-card")
    check_phone_page(page, "the self-test page, read-only", errors)
    open_page(page, url + "t/no-such-table")
    check_phone_page(page, "an error page", [e for e in errors if "404" not in e])

    player, p_errors = phone()
    open_page(player, url + f"t/{fake.table}/join")
    check_phone_page(player, "the join form", p_errors, shot_name="phone-join")
    seat = g.current_player
    # The phone buzzes on this player's turn through the table's cues (effects.js, tested with its cues in
    # pages/test_effects.py); the page must not buzz a second time by itself: count the calls it makes.
    player.add_init_script("navigator.vibrate = p => { (window.buzzes = window.buzzes || []).push(p); return true; };")
    join(player, url, fake.table, token, seat)
    player.wait_for_selector("#your-turn:not([hidden])")
    assert player.text_content("#your-turn").startswith("Your turn")
    assert player.evaluate("window.buzzes || []") == []  # this stand-in table sends no cue
    # Each board has a legend: folded on a phone, one tap away.
    assert player.locator("#board-legend").get_attribute("open") is None
    player.locator("#board-legend summary").tap()
    player.wait_for_selector("#board-legend-items li:visible")
    assert player.locator("#board-legend-items li").count() >= 6
    # The sensor strip and the links are the referee's, not a player's.
    assert player.locator("#sensors, #links, #sim, #selftest-link").count() == 0
    hint = player.text_content("#board-hint")
    assert "Tap" in hint and "Click" not in hint
    check_phone_page(player, f"{name}: the player's own page", p_errors, shot_name=f"phone-{name}-player")
    # A Monster and a paralysed pawn are plain to see on a phone: a mark as big as a fingertip, and words.
    for mark, words, field in ((".monster-mark", "is a Monster", "monster"),
                               (".paralysed-mark", "is paralysed", "paralysed")):
        if game == "terror" and any(p[field] and p["pos"] for s in g.public_view()["players"] for p in s["pawns"]):
            box = player.locator(f"svg#board {mark}").first.bounding_box()
            assert box is not None and box["width"] >= 20 and box["height"] >= 20, (mark, box)
            assert words in player.text_content("#board-notes")
    for page_, who in ((player, "player"), (referee, "referee")):
        page_.set_viewport_size({"width": 1280, "height": 900})
        page_.wait_for_function(DRAWN_FOR_WIDTH)
        shot(page_, f"desktop-{name}-{who}")


def tap(page: Any, selector: str) -> None:
    """A finger on the middle of what ``selector`` draws. Board targets' hit areas may overlap their
    neighbours' (a tap there goes to the nearest centre), so this taps the screen, not the element."""
    target = page.locator(selector).first
    target.scroll_into_view_if_needed()
    box = target.bounding_box()
    assert box is not None, f"{selector} is not shown"
    page.touchscreen.tap(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)


def sent_action(fake: FakeTable) -> Any:
    (name, cmd), = fake.wait_command(1)
    assert name == "act"
    return fake.action_of(cmd)


MOVES = {
    # game: (the game's position, the legal move to make, what the player taps first, the preview drawn)
    "terror": ("terror", 0, terror_monster_move, "move_pawn",
               lambda a: f'svg#board g.legal[data-move="{a.params["to"][0]},{a.params["to"][1]}"]',
               "svg#board g.preview polyline"),
    "superstition": ("superstition", 1, superstition_move, "move",
                     lambda a: f'svg#board g.walk[data-walk~="{a.params["direction"]}"]',
                     "svg#board g.preview .landing"),
}


def move_to_make(g: Any, kind: str, seat: int) -> Any:
    """The move of ``kind`` the phone tests make for ``seat``: with a pawn, the first pawn the game offers."""
    first = g.legal_actions()[0]
    return next(a for a in g.legal_actions() if a.kind == kind and a.player == seat and
                (kind != "move_pawn" or a.params["pawn"] == first.params.get("pawn", 0)))


@pytest.mark.parametrize("name", list(MOVES))
def test_a_move_is_drawn_where_it_goes_before_it_is_sent(name: str, phone: Any, served: PanelServer,
                                                         fake: FakeTable, token: str) -> None:
    game, seed, want, kind, target, preview = MOVES[name]
    g = advance(game, seed, want)
    publish(fake, g)
    seat = g.current_player
    move = move_to_make(g, kind, seat)
    player, errors = phone()
    join(player, served.url, fake.table, token, seat)
    fake.handler = lambda name, cmd: {"ok": True}
    if kind == "move_pawn" and player.locator(f"#choose-{seat}-{move.params['pawn']}").count():
        player.locator(f"#choose-{seat}-{move.params['pawn']}").tap()
    tap(player, target(move))
    player.wait_for_selector("#confirm:not([hidden])")
    player.wait_for_selector(preview)
    assert fake.commands == []  # nothing is sent on the first tap
    words = player.text_content("#confirm-text")
    assert words.endswith("?") and not RAW_ID.search(words)
    check_phone_page(player, f"{name}: a proposed move", errors, shot_name=f"phone-{name}-proposed")
    player.locator("#confirm-send").tap()
    assert sent_action(fake) == move.to_json()


def test_cancelling_a_proposed_move_sends_nothing(phone: Any, served: PanelServer, fake: FakeTable, token: str) -> None:
    g = advance("terror", 0, terror_monster_move)
    publish(fake, g)
    move = next(a for a in g.legal_actions() if a.kind == "move_pawn")
    player, _ = phone()
    join(player, served.url, fake.table, token, g.current_player)
    if player.locator(f"#choose-{move.player}-{move.params['pawn']}").count():
        player.locator(f"#choose-{move.player}-{move.params['pawn']}").tap()
    tap(player, f'svg#board g.legal[data-move="{move.params["to"][0]},{move.params["to"][1]}"]')
    player.locator("#confirm-cancel").tap()
    player.wait_for_selector("#confirm", state="hidden")
    assert player.locator("svg#board g.preview").count() == 0
    assert fake.commands == []


def test_a_tile_is_shown_at_its_place_and_turned_before_it_is_placed(phone: Any, served: PanelServer,
                                                                      fake: FakeTable, token: str) -> None:
    g = advance(*GAMES["dogs"])
    publish(fake, g)
    seat = g.current_player
    spots: dict[tuple[int, int], list[Any]] = {}
    for a in g.legal_actions():
        if a.kind == "place_tile":
            spots.setdefault((a.params["x"], a.params["y"]), []).append(a)
    (x, y), choices = next((k, v) for k, v in spots.items() if len(v) > 1)
    player, errors = phone()
    join(player, served.url, fake.table, token, seat)
    fake.handler = lambda name, cmd: {"ok": True}
    tap(player, f'svg#board g.legal[data-place="{x},{y}"]')
    player.wait_for_selector("#tile-preview")
    first = int(player.get_attribute("#tile-preview", "data-rotation"))
    player.locator("#confirm-turn").tap()
    player.wait_for_function("(r) => document.getElementById('tile-preview').dataset.rotation !== String(r)", arg=first)
    turned = int(player.get_attribute("#tile-preview", "data-rotation"))
    assert turned in {a.params["rotation"] for a in choices} and turned != first
    assert fake.commands == []
    check_phone_page(player, "dogs: a tile shown before it is placed", errors, shot_name="phone-dogs-proposed")
    player.locator("#confirm-send").tap()
    assert sent_action(fake) == {"kind": "place_tile", "player": seat, "params": {"x": x, "y": y, "rotation": turned}}


def test_leave_asks_first(phone: Any, served: PanelServer, fake: FakeTable, token: str) -> None:
    g = advance("superstition", 1, superstition_move)
    publish(fake, g)
    player, errors = phone()
    join(player, served.url, fake.table, token, 1)
    me = player.url
    player.locator("#leave summary").tap()
    player.wait_for_selector("#leave-yes", state="visible")
    assert player.url == me  # one tap asked; it did not leave
    check_phone_page(player, "the leave question", errors)
    with player.expect_navigation():
        player.locator("#leave-yes").tap()
    assert player.url.rstrip("/").endswith(f"/t/{fake.table}")
    assert player.request.get(served.url + f"api/t/{fake.table}/me").status == 403


def test_the_referee_sees_this_games_sensors_and_a_virtual_board_for_each(phone: Any, served: PanelServer,
                                                                          fake: FakeTable, token: str) -> None:
    import time

    g = advance("terror", 0, terror_monster_move)
    publish(fake, g, simulate=True)
    state = public_state(g, fake.table, 6)
    # The skull is falling: the table waits on the launcher and the left window for 1.5 s, buttons aside.
    state.update(legal=[], waiting_for="Drop the skull down the Crypt's chute.", expects=[{
        "kind": "skull_outcome", "prompt": "Drop the skull down the Crypt's chute.", "player": 0,
        "accepts": {"launcher": {"launched": {}}, "chute.left": {"blocked": {}}}, "requires": {}, "action": None,
        "window_ms": 1500, "on_timeout": {"kind": "skull_outcome", "player": 0, "params": {"hit": False}}}])
    fake.state(**state)
    now = time.time()
    reading = {"changed": 990.0, "seen": 999.0, "source": "sim", "online": True}
    fake.publish("sensors", {"time": now, "monotonic": 1000.0, "sensors": {
        "tomb.wolf": {"value": "middle", **reading}, "tomb.mummy": {"value": "end_b", **reading},
        "tomb.monster": {"value": "end_b", **reading}, "launcher": {"value": "armed", **reading},
        "chute.left": {"value": "clear", **reading}, "chute.right": {"value": "clear", **reading},
        "trap.ladder.peg_a": {"value": "in", **reading}, "trap.ladder.sprung": {"value": "cocked", **reading}}})
    referee, errors = phone()
    login(referee, served.url, fake.table, token)
    referee.wait_for_selector("#sim:not([hidden])")
    for control in ("#sim-chute-left", "#sim-chute-right-hit", "#sim-chute-right", "#sim-launch"):
        assert referee.locator(control).count() == 1, control
    # Nothing to press on the page: it points at the virtual board.
    referee.wait_for_selector("#actions #to-sim")
    # The window counts down.
    referee.wait_for_selector("#countdown:not([hidden])")
    first = float(referee.get_attribute("#countdown", "data-left"))
    referee.wait_for_function("(f) => Number(document.getElementById('countdown').dataset.left) < f - 0.2", arg=first)
    assert "s left" in referee.text_content("#countdown")
    # This game's sensors in the strip, in words; the Ladder's under the fold.
    assert referee.locator('#sensors tr[data-sensor="tomb.wolf"]').count() == 1
    assert referee.locator('#sensors tr[data-sensor="trap.ladder.sprung"]').count() == 0
    assert referee.locator('#sensors-other tr[data-sensor="trap.ladder.sprung"]').count() == 1
    assert referee.text_content('#sensors tr[data-sensor="tomb.wolf"] td.id') == "Wolf tomb"
    check_phone_page(referee, "terror: the referee with the virtual board", errors, shot_name="phone-terror-sim")
    # The whole space of a tomb takes the tap, on the virtual board too.
    fake.handler = lambda name, cmd: {"ok": True}
    spot = referee.locator('svg#board g.tomb-spot.clickable[data-tomb="wolf"][data-pos="end_a"]')
    box = spot.bounding_box()
    assert box["width"] >= 44 and box["height"] >= 44
    referee.mouse.click(box["x"] + box["width"] * 0.85, box["y"] + box["height"] * 0.2)  # a corner, not the marker
    (name, cmd), = fake.wait_command(1)
    assert name == "sim" and (cmd["sensor"], cmd["value"]) == ("tomb.wolf", "end_a")
    # A board without the optional window beams: no dead button, and the page says how a miss is called.
    fake.publish("sensors", {"time": time.time(), "monotonic": 1000.0, "sensors": {
        "tomb.wolf": {"value": "middle", **reading}, "launcher": {"value": "armed", **reading}}})
    referee.wait_for_selector("#sim-no-left-beam")
    assert referee.locator("#sim-chute-left").count() == 0 and referee.locator("#sim-chute-right-hit").count() == 1


def test_a_refusal_in_the_engines_words_is_read_in_a_players(phone: Any, served: PanelServer, fake: FakeTable,
                                                              token: str) -> None:
    g = advance("terror", 0, terror_monster_move)
    publish(fake, g)
    seat = g.current_player
    player, errors = phone()
    join(player, served.url, fake.table, token, seat)
    fake.handler = lambda name, cmd: {"ok": False, "error": "it is Ann's turn (seat 0), not seat 1's: "
                                                            "no legal move of exactly 3 reaches [2, 4]; the Wolf tomb "
                                      "is at end_a"}
    player.locator('button.act[data-kind="end_turn"]').tap()
    player.wait_for_function("document.getElementById('reply').classList.contains('err')")
    said = player.text_content("#reply")
    assert "it is Ann's turn, not Bo's" in said and "at end A" in said, said
    # The square is named as the engine names it (the same words on the page and in the engine's refusals).
    assert isinstance(g, Terror)
    assert f"reaches {place_words(g.board, g.cfg, g.board.cell([2, 4]))};" in said, said
    assert not RAW_ID.search(said), said
    # The panel answers a refused move with 422 (docs/panel.md), which Chromium logs; nothing else may be logged.
    check_phone_page(player, "a refusal", [e for e in errors if "status of 422" not in e])


def other_seat_holds_a_playable_card(g: Game) -> bool:
    return any(a.kind == "play_card" and a.player != g.current_player for a in g.legal_actions())


def test_a_card_playable_on_anothers_turn_is_not_a_call_to_act(phone: Any, served: PanelServer, fake: FakeTable,
                                                                token: str) -> None:
    g = get_game("terror").new(["Ann", "Bo"], 13)
    rnd = random.Random(13)
    while not other_seat_holds_a_playable_card(g):
        la = g.legal_actions()
        g.apply(rnd.choice([a for a in la if a.player == g.current_player and
                            a.kind not in ("end_turn", "back", "play_card")] or la))
    publish(fake, g)
    waiting = 1 - g.current_player
    player, errors = phone()
    player.add_init_script("navigator.vibrate = p => { (window.buzzes = window.buzzes || []).push(p); return true; };")
    join(player, served.url, fake.table, token, waiting)
    player.wait_for_selector('button.act[data-kind="play_card"]')  # the card can be played from here...
    assert player.is_hidden("#your-turn")                           # ...but nobody is told it is their turn
    assert player.evaluate("window.buzzes || []") == []
    check_phone_page(player, "terror: a card playable on another's turn", errors)


def test_a_page_without_the_table_cues_buzzes_when_the_turn_comes_not_when_it_opens(
        phone: Any, served: PanelServer, fake: FakeTable, token: str) -> None:
    """Without effects.js (not loaded yet, or blocked) the page buzzes by itself, once a turn comes to the
    player; opening the page on their own turn does not buzz, whichever script loads first."""
    g = get_game("superstition").new(["Ann", "Bo"], 5)
    seat = g.current_player
    publish(fake, g)
    player, _ = phone()
    player.add_init_script("navigator.vibrate = p => { (window.buzzes = window.buzzes || []).push(p); return true; };")
    player.route("**/effects.js", lambda route: route.abort())
    join(player, served.url, fake.table, token, seat)
    player.wait_for_function("document.body && document.body.dataset.yourTurn === 'yes'")
    assert player.evaluate("window.GKEffects") is None
    assert player.evaluate("window.buzzes || []") == []  # opened on their turn: they are looking at it
    rnd = random.Random(5)
    for want_seat, state in ((1 - seat, "no"), (seat, "yes")):
        for _ in range(200):
            if g.current_player == want_seat:
                break
            la = g.legal_actions()
            g.apply(rnd.choice([a for a in la if a.player == g.current_player] or la))
        assert g.current_player == want_seat
        publish(fake, g)
        player.wait_for_function(f"document.body && document.body.dataset.yourTurn === '{state}'")
    assert player.evaluate("window.buzzes || []") == [200]  # the turn came back: one buzz


def test_a_tap_between_overlapping_targets_goes_to_the_nearest(phone: Any, served: PanelServer, fake: FakeTable,
                                                               token: str) -> None:
    """Tile spots one square apart overlap; a finger nearer one spot's centre proposes that spot."""
    g = advance(*GAMES["dogs"])
    publish(fake, g)
    spots = {(a.params["x"], a.params["y"]) for a in g.legal_actions() if a.kind == "place_tile"}
    a, b = next((s, (s[0] + 1, s[1])) for s in sorted(spots) if (s[0] + 1, s[1]) in spots)
    player, errors = phone()
    join(player, served.url, fake.table, token, g.current_player)
    boxes = {}
    for spot in (a, b):
        loc = player.locator(f'svg#board g.legal[data-place="{spot[0]},{spot[1]}"] .spot-mark')
        loc.scroll_into_view_if_needed()
        boxes[spot] = loc.bounding_box()
    ca = (boxes[a]["x"] + boxes[a]["width"] / 2, boxes[a]["y"] + boxes[a]["height"] / 2)
    cb = (boxes[b]["x"] + boxes[b]["width"] / 2, boxes[b]["y"] + boxes[b]["height"] / 2)
    for near, far, centre, other in ((a, b, ca, cb), (b, a, cb, ca)):
        # A third of the way from this spot's centre towards the other's: inside both spots' frames.
        player.touchscreen.tap(centre[0] + (other[0] - centre[0]) / 3, centre[1] + (other[1] - centre[1]) / 3)
        player.wait_for_selector("#confirm-send")
        proposed = json.loads(player.get_attribute("#confirm-send", "data-action"))
        assert (proposed["params"]["x"], proposed["params"]["y"]) == near, (near, far, proposed)
        player.locator("#confirm-cancel").tap()
        player.wait_for_selector("#confirm", state="hidden")
    assert fake.commands == []
    assert errors == []


def a_move_lands_on_a_pawn(g: Game) -> bool:
    v = g.public_view()
    at = {tuple(p["pos"]) for s in v["players"] for p in s["pawns"] if p["pos"] is not None and not p["out"]}
    return any(a.kind == "move_pawn" and tuple(a.params["to"]) in at for a in g.legal_actions())


def test_a_tap_on_a_pawn_standing_on_a_green_space_is_a_tap_on_that_space(phone: Any, served: PanelServer,
                                                                           fake: FakeTable, token: str) -> None:
    """A pawn is drawn over the green space it stands on; a finger on it means the space, not nothing."""
    g = advance("terror", 0, a_move_lands_on_a_pawn)
    publish(fake, g)
    v = g.public_view()
    where = {tuple(p["pos"]): (si, pi) for si, s in enumerate(v["players"]) for pi, p in enumerate(s["pawns"])
             if p["pos"] is not None and not p["out"]}
    move = next(a for a in g.legal_actions() if a.kind == "move_pawn" and tuple(a.params["to"]) in where)
    standing = where[tuple(move.params["to"])]
    player, errors = phone()
    join(player, served.url, fake.table, token, move.player)
    choose = player.locator(f"#choose-{move.player}-{move.params['pawn']}")
    if choose.count():
        choose.tap()
    pawn = f'svg#board g.pawn[data-seat="{standing[0]}"][data-pawn="{standing[1]}"]'
    assert player.get_attribute(pawn, "role") is None  # a piece standing there, not a target of its own
    tap(player, pawn)
    player.wait_for_selector("#confirm:not([hidden])")
    assert json.loads(player.get_attribute("#confirm-send", "data-action")) == move.to_json()
    assert fake.commands == [] and errors == []


# What a person whose seat is gone can tap: the way to a seat, never a stale "Leave" (it would leave nothing).
SHOWN_CONTROLS = """() => [...document.querySelectorAll("button, a[href], summary, input:not([type=hidden])")]
  .filter(e => { const r = e.getBoundingClientRect(); return r.width > 0 && r.height > 0 &&
                 getComputedStyle(e).visibility !== "hidden"; })
  .map(e => (e.textContent || e.value || "").trim())"""


def shows_only_what_a_person_without_a_seat_can_do(page: Any, way_in: str) -> None:
    """No control of the seat that is gone: "Leave", asking to take back "my" move, buzzing on "my" turn,
    nor an empty "Your moves"."""
    for width in PHONE_WIDTHS:
        page.set_viewport_size({"width": width, "height": PHONE_HEIGHT})
        shown = page.evaluate(SHOWN_CONTROLS)
        stale = [c for c in shown if re.search(r"leave|take back|my turn|my last", c, re.IGNORECASE)]
        assert not stale, (width, shown)
        assert page.locator("#your-moves, #actions, #gm-player").evaluate_all(
            "els => els.filter(e => e.getBoundingClientRect().height > 0).map(e => e.id)") == [], width
        assert way_in in shown, (width, shown)
        assert "not seated" in page.text_content("header")
        assert page.locator("#leave").is_hidden(), width


def test_a_second_page_of_the_same_seat_learns_at_once_that_the_seat_was_left(phone: Any, served: PanelServer,
                                                                               fake: FakeTable, token: str) -> None:
    """Two pages of one phone for one seat: leaving on one clears the other at once, saying what happened
    (not that a new game started), without waiting for the table to move."""
    g = advance("superstition", 1, superstition_move)
    publish(fake, g)
    first, _ = phone()
    join(first, served.url, fake.table, token, g.current_player)
    second = first.context.new_page()
    second.set_default_timeout(PAGE_WAIT_MS)
    errors = watch_console(second)
    open_page(second, first.url)
    second.wait_for_selector("#hand .group")
    first.locator("#leave summary").tap()
    with first.expect_navigation():
        first.locator("#leave-yes").tap()
    second.wait_for_selector("#left:not([hidden])")
    said = second.text_content("#left")
    assert said.startswith("You left your seat") and "new game" not in said, said
    assert second.locator("button.act, svg#board [role=button]").count() == 0
    assert second.text_content("#hand") == "You have no seat in this game."
    assert second.text_content("#join-new") == "Join again"
    shows_only_what_a_person_without_a_seat_can_do(second, "Join again")
    check_phone_page(second, "a second page after leaving on the first", errors)


def test_a_page_of_a_seat_this_phone_no_longer_plays_says_which_it_plays_now(phone: Any, served: PanelServer,
                                                                            fake: FakeTable, token: str) -> None:
    """The phone joined the other seat on another page (a code typed for the wrong seat, put right): the page
    of the first seat stops showing its hand at once and points at the seat the phone now plays."""
    g = advance("superstition", 1, superstition_move)
    publish(fake, g)
    # Ann's last move may be taken back: her page offers to ask for it, while it is her seat.
    fake.state(**public_state(g, fake.table, 5), gm={"undo": {"steps": 1, "last": "Ann rolled", "last_seat": 0,
                                                              "moves": ["Ann rolled"], "stops_at": None}})
    ann, _ = phone()
    join(ann, served.url, fake.table, token, 0)
    ann.wait_for_selector("#gm-ask:not([hidden])")
    errors = watch_console(ann)
    other = ann.context.new_page()
    other.set_default_timeout(PAGE_WAIT_MS)
    join(other, served.url, fake.table, token, 1)
    ann.wait_for_selector("#left:not([hidden])")
    said = ann.text_content("#left")
    assert said.startswith("This phone now plays as Bo") and "seat" not in said.split("Bo")[0], said
    assert ann.locator("button.act").count() == 0
    shows_only_what_a_person_without_a_seat_can_do(ann, "Show my new seat")
    check_phone_page(ann, "the page of the seat this phone left for another", errors, shot_name="phone-seat-moved")
    with ann.expect_navigation():
        ann.locator("#join-new").tap()
    ann.wait_for_function("document.getElementById('me-name') && document.getElementById('me-name').textContent === "
                          "'Bo'")


def test_a_move_the_table_does_not_answer_is_told_in_words(phone: Any, served: PanelServer, fake: FakeTable,
                                                           token: str) -> None:
    """A busy or unplugged table: the player reads that it did not answer, in words (no table id, no command
    name), and that the move may have been made; not that it was refused."""
    g = get_game("superstition").new(["Ann", "Bo"], 5)
    publish(fake, g)
    player, errors = phone()
    join(player, served.url, fake.table, token, g.current_player)
    view = served.app.extensions["gravekeeper"]
    view.settings = dataclasses.replace(view.settings, command_timeout=0.5)
    fake.silent = True
    player.locator('button.act[data-kind="roll"]').tap()
    player.wait_for_function("document.getElementById('reply').classList.contains('err')")
    said = player.text_content("#reply")
    assert "did not answer" in said and "may have been made" in said and "refused" not in said, said
    assert fake.table not in said and "'" not in said and not RAW_ID.search(said), said
    assert player.locator("#left").is_hidden()  # the seat is still held: no "join again"
    # The page says so once, where everyone looks, until the table answers again; so does the referee's.
    player.wait_for_selector("#not-answering", state="visible")
    banner = player.text_content("#not-answering")
    assert "The table is not answering" in banner and "has not answered a move since" in banner, banner
    referee, referee_errors = phone(360)
    login(referee, served.url, fake.table, token)
    referee.wait_for_selector("#not-answering", state="visible")
    assert "has not answered a move since" in referee.text_content("#not-answering")
    # Its badge no longer says "online" beside that, and neither does the club list (its first lines; the
    # way back to "online" below comes in its stream's own message).
    assert referee.text_content("#status-badge") == "not answering"
    club, club_errors = phone(390)
    club.goto(served.url + "/")
    badge = f'#tables li[data-table="{fake.table}"] .badge'
    club.wait_for_function(f"document.querySelector({badge!r}).textContent === 'not answering'")
    check_phone_page(club, "the club list with a table that does not answer", club_errors)
    check_phone_page(player, "a move the table did not answer", [e for e in errors if "status of 504" not in e],
                     shot_name="phone-not-answered")
    check_phone_page(referee, "the referee's page of a table that does not answer", referee_errors,
                     shot_name="referee-not-answered")
    fake.silent = False
    player.locator('button.act[data-kind="roll"]').tap()
    player.wait_for_selector("#not-answering", state="hidden")
    referee.wait_for_selector("#not-answering", state="hidden")
    referee.wait_for_function("document.getElementById('status-badge').textContent === 'online'")
    club.wait_for_function(f"document.querySelector({badge!r}).textContent === 'online'")


SLEEP_AND_WAKE = """async (ms) => {
  const set = v => Object.defineProperty(document, "visibilityState", { value: v, configurable: true });
  Object.defineProperty(document, "hidden", { get: () => document.visibilityState === "hidden", configurable: true });
  set("hidden"); document.dispatchEvent(new Event("visibilitychange"));
  await new Promise(r => setTimeout(r, ms));
  set("visible"); document.dispatchEvent(new Event("visibilitychange"));
}"""


def test_a_phone_waking_from_sleep_on_a_dead_stream_catches_up(phone: Any, served: PanelServer, fake: FakeTable,
                                                                token: str) -> None:
    """The phone slept and its stream died without an error (nothing arrives, nothing fails): on waking,
    the page opens its stream again and shows what happened meanwhile, instead of the table as it was."""
    g = get_game("superstition").new(["Ann", "Bo"], 5)
    publish(fake, g)
    relay = CutProxy(served.port)
    try:
        player, errors = phone()
        join(player, relay.url, fake.table, token, g.current_player)
        player.wait_for_function("document.body && document.body.dataset.yourTurn === 'yes'")
        # Both streams open before the sleep (on a busy machine the cues' stream may open later): a
        # stream still opening when the connections go quiet would never open at all.
        player.wait_for_function("document.body && document.body.dataset.effectsOpen === 'yes'")
        relay.silence()
        g.apply(next(a for a in g.legal_actions() if a.kind == "roll"))
        fake.state(**public_state(g, fake.table, 6))
        player.wait_for_timeout(500)
        assert player.evaluate("window.gkLive.state.seq") == 5  # the dead stream brought nothing
        player.evaluate("document.body.dataset.effectsOpen = 'no'")
        player.evaluate(SLEEP_AND_WAKE, 1600)
        player.wait_for_function("window.gkLive.state.seq === 6", timeout=5000)
        assert player.text_content("#live-state") == "live"
        # The table's cues reach it again too (its own stream, effects.js): the buzz of the next turn.
        player.wait_for_function("document.body && document.body.dataset.effectsOpen === 'yes'")  # opened again
        fake.publish("effects", {"cues": [{"kind": "animate", "value": "roll"}]})
        player.wait_for_function("document.body && document.body.dataset.effectsPlayed === '1'", timeout=5000)
        check_phone_page(player, "a phone woken from sleep", errors)
    finally:
        relay.close()


def test_the_voice_is_chosen_by_its_languages_name(phone: Any, served: PanelServer, fake: FakeTable,
                                                   token: str) -> None:
    """The table speaker's voice is offered as "English", not as the code "en"."""
    g = get_game("dogs").new(["Ann", "Bo"], 1)
    publish(fake, g)
    player, errors = phone()
    player.add_init_script("""
      const voices = [{lang: "en-US"}, {lang: "de-DE"}];
      Object.defineProperty(window, "speechSynthesis", {value: {getVoices: () => voices, speak() {}}});""")
    join(player, served.url, fake.table, token, 0)
    player.wait_for_selector("#fx-lang option", state="attached")
    said = player.locator("#fx-lang option").all_text_contents()
    assert said == ["Voice: English", "Voice: American English", "Voice: German (Germany)"], said
    check_phone_page(player, "the voice's languages", errors)


def test_a_move_at_a_table_gone_offline_is_refused_in_words(phone: Any, served: PanelServer, fake: FakeTable,
                                                            token: str) -> None:
    """The table's controller stopped while a player looked at their phone: the refusal says so in words
    and what to do, without the table's id."""
    g = get_game("superstition").new(["Ann", "Bo"], 5)
    publish(fake, g)
    player, errors = phone()
    join(player, served.url, fake.table, token, g.current_player)
    view = served.app.extensions["gravekeeper"]
    fake.publish("status", {"state": "offline", "table": fake.table, "instance": "x", "since": 0})
    assert view.wait_until(lambda: ((view.snapshot(fake.table) or {}).get("status") or {}).get("state") == "offline", 5)
    player.locator('button.act[data-kind="roll"]').tap()
    player.wait_for_function("document.getElementById('reply').classList.contains('err')")
    said = player.text_content("#reply")
    assert "the table is offline" in said and "the referee can start it again" in said, said
    assert fake.table not in said and "'" not in said, said
    assert fake.commands == []
    check_phone_page(player, "a move at a table gone offline", [e for e in errors if "status of 503" not in e])
    # The panel lost its broker (as its MQTT client sees it): the same, without the jargon's first word.
    fake.online(game="superstition")
    assert view.wait_until(lambda: ((view.snapshot(fake.table) or {}).get("status") or {}).get("state") == "online", 5)
    view.connected.clear()
    try:
        player.locator('button.act[data-kind="roll"]').tap()
        player.wait_for_function("document.getElementById('reply').textContent.includes('lost touch')")
    finally:
        view.connected.set()
    said = player.text_content("#reply")
    assert said.startswith("Roll refused: the panel has lost touch with the table"), said
