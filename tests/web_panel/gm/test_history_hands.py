"""The hands-reveal setting in Chromium: a finished game's history shows the hands only when
``table.reveal_hands`` is on; a game still running never does, and with the setting off no page
and no JSON the history page loads holds a card that was in a hand.

A real ``gravekeeper run --simulate`` (a manual board: every move a command, the secret ones
sealed) on a real Mosquitto; the same journal is read by a second run with the setting off.
"""

from __future__ import annotations

import json
import random
import time
from pathlib import Path
from typing import Any

import pytest

from controller.games import get_game
from controller.games.base import Action
from controller.protocol.security import game_seed
from tests.support.broker import Broker
from tests.support.mqtt import Commander
from tests.web_panel.pages.test_e2e_games import holds_terror_card, terror_policy
from tests.web_panel.support.browser import check_phone_page, open_page, shot
from tests.web_panel.support.e2e_driver import find_game
from tests.web_panel.support.service_runner import RunningService, start_service

pytestmark = [pytest.mark.browser, pytest.mark.slow]

BASE = "gravekeeper"
TOKEN = "tok-gm-hands"
OPTIONS = {"skull_window_ms": 1500}  # what the test config gives Terror (tests/web_panel/support/service_runner.py)


def held_cards(game: Any) -> dict[str, str]:
    """Card id -> title of every card in a hand."""
    return {c["id"]: c["title"] for seat in range(len(game.players))
            for p in game.player_view(seat)["you"]["pawns"] for c in p["cards"]}


def finished_with_a_secret(token: str) -> tuple[int, list[Action], dict[str, str]]:
    """A seed and the moves of a won game that ends with a card in a hand that no public event named.

    (A ring shown for a skull attempt stays in its hand, but everyone saw it: no secret.)
    """
    for seed in range(300):
        try:
            seed, actions = find_game("terror", OPTIONS, terror_policy, 300,
                                      lambda g: g.is_over and holds_terror_card(g), seeds=[seed], token=token)
        except AssertionError:
            continue
        g = get_game("terror").new(["Ann", "Bo"], game_seed(token, seed), OPTIONS)
        public = json.dumps([e.data for a in actions for e in g.apply(a) if e.private_to is None])
        secret = {c: t for c, t in held_cards(g).items() if f'"{c}"' not in public}
        if secret:
            return seed, actions, secret
    raise AssertionError("no Terror game ends with a secret card in a hand")


def running_with_a_card(token: str) -> tuple[int, list[Action], dict[str, str]]:
    """A seed and the moves after which a game still runs and a hand holds a card."""
    for seed in range(300):
        rnd = random.Random(seed)
        g = get_game("terror").new(["Cy", "Di"], game_seed(token, seed), OPTIONS)
        actions: list[Action] = []
        public: list[Any] = []
        while not g.is_over and len(actions) < 200:
            a = terror_policy(g, rnd)
            public += [e.data for e in g.apply(a) if e.private_to is None]
            actions.append(a)
            text = json.dumps(public)
            secret = {c: t for c, t in held_cards(g).items() if f'"{c}"' not in text}
            if secret and not g.is_over:
                return seed, actions, secret
    raise AssertionError("no Terror game holds a card within 200 moves")


def play(cmd: Commander, game: str, players: list[str], seed: int, actions: list[Action]) -> None:
    """Start a game and send every move as the phones would: the secret ones sealed for their seat."""
    cmd.ok("new_game", {"game": game, "players": players, "seed": seed})
    secret = get_game(game).SECRET_ACTION_KINDS
    for a in actions:
        if a.kind in secret:
            assert a.player is not None
            reply, opened = cmd.call_sealed(a.player, a.to_json())
            assert opened["ok"], (a, opened)
        else:
            reply = cmd.call("act", {"action": a.to_json()})
            assert reply["ok"], (a, reply)


def open_last_step(page: Any, url: str, row: int) -> None:
    """The table's history, the ``row``-th game (1: newest), replayed to its last step.

    A panel that has just started may not know the table yet (a 404): wait for it, as a person would reload.
    """
    deadline = time.monotonic() + 45
    while page.request.get(url).status == 404:
        assert time.monotonic() < deadline, f"the panel did not learn of the table at {url} in 45 s"
        page.wait_for_timeout(100)
    open_page(page, url)
    page.wait_for_selector("#games tbody tr a.replay")
    page.click(f"#games tbody tr:nth-child({row}) a.replay")
    page.wait_for_function("document.body && document.body.dataset.shownStep === '0'")
    page.click("#last")
    page.wait_for_function("document.body && document.body.dataset.shownStep !== '0' "
                           "&& document.getElementById('next').disabled")


def listen(page: Any) -> list[str]:
    """The bodies of every history answer the page loads (the JSON a spectator's browser holds)."""
    bodies: list[str] = []
    page.on("response", lambda r: bodies.append(r.text()) if "/history" in r.url and r.ok else None)
    return bodies


def no_card(text: str, cards: dict[str, str], where: str) -> None:
    assert '"secret"' not in text and '"hands": [' not in text and '"hands":[' not in text, where
    for card in cards:
        assert f'"{card}"' not in text and f">{card}<" not in text, f"{card} is in {where}"


def test_hands_show_only_for_a_finished_game_and_only_when_the_table_says_so(
        mosquitto: Broker, tmp_path: Path, table_id: str, pages: Any) -> None:
    seed, actions, finished_cards = finished_with_a_secret(TOKEN)
    seed2, actions2, running_cards = running_with_a_card(TOKEN)

    svc: RunningService = start_service(mosquitto, tmp_path, table_id, TOKEN, game="terror",
                                        table_extra="reveal_hands = true\n", referee_extra='board = "manual"\n')
    try:
        cmd = Commander(mosquitto.host, mosquitto.port, BASE, svc.table, TOKEN)
        try:
            play(cmd, "terror", ["Ann", "Bo"], seed, actions)
            play(cmd, "terror", ["Cy", "Di"], seed2, actions2)
        finally:
            cmd.close()
        history = svc.panel_url + f"t/{svc.table}/history"
        # The setting on, a finished game: every hand at its last step, in words.
        page = pages()
        bodies = listen(page)
        open_last_step(page, history, 2)
        page.wait_for_selector("#hands:not([hidden])")
        shown = page.text_content("#hands-list") or ""
        assert "Ann:" in shown and "Bo:" in shown
        for title in finished_cards.values():
            assert title in shown, f"{title} is missing from the revealed hands: {shown}"
        assert any('"hands"' in b and all(f'"{c}"' in b for c in finished_cards) for b in bodies)
        shot(page, "gm-history-hands")
        check_phone_page(page, "the history of a finished game, hands shown")
        # The setting on, a game still running: no hand, no card in the page or its JSON.
        spectator = pages()
        bodies = listen(spectator)
        open_last_step(spectator, history, 1)
        assert spectator.evaluate("document.getElementById('hands').hidden") is True
        no_card("\n".join([spectator.content(), *bodies]), running_cards, "a running game's history")
    finally:
        svc.stop()

    # The same journal, the setting off: the finished game shows no hand, nowhere.
    svc = start_service(mosquitto, tmp_path, table_id, TOKEN, game="terror", referee_extra='board = "manual"\n')
    try:
        page = pages()
        bodies = listen(page)
        open_last_step(page, svc.panel_url + f"t/{svc.table}/history", 2)
        assert page.evaluate("document.getElementById('hands').hidden") is True
        seen = [page.content()]
        for _ in range(3):  # the steps before the end, one by one
            step = int(page.evaluate("document.body.dataset.shownStep"))
            page.click("#prev")
            page.wait_for_function(f"document.body && document.body.dataset.shownStep === '{step - 1}'")
            seen.append(page.content())
        no_card("\n".join(seen + bodies), finished_cards, "a finished game's history with the setting off")
        check_phone_page(page, "the history of a finished game, hands hidden")
    finally:
        svc.stop()
