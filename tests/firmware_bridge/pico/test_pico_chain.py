"""The whole chain, a game: switches on the emulated Pico, its firmware, the serial link, ``gravekeeper run``,
the referee, MQTT, the panel and a player's phone in Chromium.

Every tomb slide, the Headless Ghost's launcher and a Superstition trap's pegs and lid are moved by setting
the board's pins, as hands at the table move the real pieces; the players' own moves are tapped on their
own phones. The referee's events must reach MQTT gap-free and in the engine's order, and a player's page
must show every one of them in words.

The moves are found offline with the real engine first (same game, seed and options as the table's), as
the panel's whole-game tests do (``tests/web_panel/support/e2e_driver.py``).
"""

from __future__ import annotations

import random
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from controller.games import Action, Event, Game, get_game
from controller.protocol.security import game_seed
from firmware_bridge.pico_emulator.board import EmulatedPico
from tests.support.broker import Broker
from tests.support.mqtt import Subscriber
from tests.support.pico_board import SUPERSTITION_CHANNELS, TERROR_CHANNELS, hardware_toml, set_board
from tests.web_panel.pages.test_e2e_games import terror_policy
from tests.web_panel.support.browser import RAW_ID, open_page, wait_until_panel_knows
from tests.web_panel.support.e2e_driver import HARDWARE_KINDS, clicks_for, find_game, step
from tests.web_panel.support.service_runner import RunningService, join, start_service

# Two free-running boards (and their controllers) on two cores would starve each other: one worker runs
# them all, test_pico_run.py's too.
pytestmark = [pytest.mark.slow, pytest.mark.browser, pytest.mark.xdist_group("pico-run")]

TOKEN = "tok-pico-chain"  # fixed: the table mixes it into the seed, so the offline game is the table's
WAIT_S = 60.0  # for each move to reach a page: generous, a busy 2-core machine runs everything else too
# Windows long enough that the pins always come first: the test moves them once the page shows the wait.
REFEREE = {"skull_window_ms": 30000, "trap_window_ms": 30000, "tomb_grace_ms": 10000, "mismatch_grace_ms": 1000}


@dataclass
class Chain:
    board: EmulatedPico
    channels: dict[str, int]
    service: RunningService
    events: Subscriber
    phones: dict[int, Any]
    console: list[list[str]]  # each phone's console errors and uncaught exceptions

    def published(self) -> list[dict[str, Any]]:
        return [m.body() for m in self.events.on(f"gravekeeper/{self.service.table}/events")]


@pytest.fixture
def start_chain(mosquitto: Broker, tmp_path: Path, free_pico: tuple[EmulatedPico, str],
                phone: Callable[..., tuple[Any, list[str]]]) -> Iterator[Callable[[Game, int, dict[str, int]], Chain]]:
    """``start_chain(game, seed, channels)``: the board at the game's start (every piece where the engine
    puts it), ``gravekeeper run`` on it, an MQTT listener on the table's events (from before the first) and
    sensors, and each player's phone joined to their seat."""
    board, port = free_pico
    started: list[RunningService] = []
    listeners: list[Subscriber] = []

    def start(game: Game, seed: int, channels: dict[str, int]) -> Chain:
        set_board(board, channels, game.expected_board())
        table = "pc" + uuid.uuid4().hex[:8]
        topics = (f"gravekeeper/{table}/events", f"gravekeeper/{table}/sensors")
        events = Subscriber(mosquitto.host, mosquitto.port, topics).start()
        listeners.append(events)
        service = start_service(mosquitto, tmp_path, table, TOKEN, game=game.name, timeout=120.0, referee=REFEREE,
                                seed=seed, hardware=hardware_toml(port, channels))
        started.append(service)
        phones: dict[int, Any] = {}
        console: list[list[str]] = []
        for seat in range(len(game.players)):
            page, errors = phone()
            page.set_default_timeout(WAIT_S * 1000)
            phones[seat] = page
            console.append(errors)
        # The first game is the one the table starts from its config: its id is in the retained state.
        wait_until_panel_knows(phones[0], service.panel_url, table)
        open_page(phones[0], service.panel_url + f"t/{table}")
        phones[0].wait_for_function("window.gkLive && window.gkLive.state && window.gkLive.state.game_id")
        game_id = phones[0].evaluate("window.gkLive.state.game_id")
        for seat, page in phones.items():
            join(page, service, game_id, seat)
            step(page, [], game.public_view(), WAIT_S)
        return Chain(board, channels, service, events, phones, console)

    yield start
    for service in started:
        service.stop()
    for events in listeners:
        events.stop()


# What the page and the table held when a step failed: a move that never came says why here.
PAGE_HELD = """() => {
  const st = (window.gkLive && window.gkLive.state) || {};
  return JSON.stringify({seq: st.seq, waiting_for: st.waiting_for, mismatch: st.mismatch, grace: st.grace,
    legal: (st.legal || []).map(a => a.kind + " " + JSON.stringify(a.params)),
    shown: [...document.querySelectorAll("svg#board g.legal")].map(g => g.dataset.move)});
}"""


def moved_by(chain: Chain, page: Any, action: Action, clicks: list[dict[str, Any]], view: dict[str, Any]) -> None:
    """``step`` on ``page`` (a tap waits for the page to offer its player's move), and when the view never
    comes, what the page and the table held."""
    try:
        step(page, clicks, view, WAIT_S, action=action if clicks else None)
    except AssertionError as exc:
        sensors = chain.events.latest(f"gravekeeper/{chain.service.table}/sensors") or {"sensors": {}}
        raise AssertionError(f"{action.kind} {action.params} by seat {action.player}: {exc}\n"
                             f"the page held: {page.evaluate(PAGE_HELD)}\n"
                             f"the sensors read: {({k: v['value'] for k, v in sensors['sensors'].items()})}\n"
                             f"the table's last lines: {chain.service.lines[-15:]}") from None


def play(chain: Chain, game: Game, actions: list[Action]) -> list[Event]:
    """Each action as the table makes it: what the hardware senses by the board's pins, every other move
    tapped on its player's phone. After each, that player's phone shows the engine's view. The engine's
    events, in order."""
    made: list[Event] = []
    for a in actions:
        before = game.expected_board()
        made += game.apply(a)
        assert a.player is not None, f"{a.kind} is nobody's move"  # every move of these games is a seat's
        page = chain.phones[a.player]
        if a.kind in HARDWARE_KINDS:
            moved = {s: v for s, v in game.expected_board().items() if before[s] != v}
            assert moved, f"{a.kind} moves no piece on the board"
            set_board(chain.board, chain.channels, moved)
            moved_by(chain, page, a, [], game.public_view())
        else:
            moved_by(chain, page, a, clicks_for(a), game.public_view())
    return made


def check_events(chain: Chain, made: list[Event], words: dict[str, Callable[[dict[str, Any]], str]]) -> None:
    """The table's events on MQTT: gap-free from the first, none twice, the engine's own in its order; and
    on each player's phone every one of them, in words (with the ``words`` expected for some types)."""
    topic = f"gravekeeper/{chain.service.table}/events"
    last = made[-1].type
    chain.events.wait_for(lambda msgs: sum(1 for m in msgs if m.topic == topic and m.json()["type"] == last)
                          >= sum(1 for e in made if e.type == last), WAIT_S)
    published = chain.published()
    seqs = [e["seq"] for e in published]
    assert seqs == list(range(1, len(seqs) + 1)), f"the events' seq is not gap-free from 1: {seqs}"
    types = [e["type"] for e in published]
    engine = [e.type for e in made]
    tail = types[len(types) - len(engine):]
    assert tail == engine, f"MQTT carried {types}, the engine made {engine} last"
    for seat, page in chain.phones.items():
        page.wait_for_function("(n) => [...document.querySelectorAll('#log > li > .n')].some(s => s.textContent === n)",
                               arg=str(seqs[-1]))
        shown = dict(page.evaluate("() => [...document.querySelectorAll('#log > li')].map(li => "
                                   "[li.querySelector('.n').textContent, li.lastChild.textContent])"))
        for event in published:
            text = shown.get(str(event["seq"]))
            assert text, f"seat {seat}'s phone does not show event {event['seq']} ({event['type']})"
            raw = RAW_ID.search(text)
            assert raw is None, f"seat {seat}'s phone shows {raw.group(0)!r} in {text!r}"
            if event["type"] in words:
                want = words[event["type"]](event["data"])
                assert want in text, f"seat {seat}'s phone says {text!r} for {event['type']}, not {want!r}"
    failed = [e for errors in chain.console for e in errors]
    assert failed == [], f"the phones' scripts failed: {failed}"


TOMB_WORDS = {"end_a": "end A", "middle": "the middle", "end_b": "end B"}


def test_a_terror_game_with_every_tomb_and_the_launcher_moved_by_pins(start_chain: Any) -> None:
    options = {"skull_window_ms": REFEREE["skull_window_ms"]}

    def ghost_falls(g: Game) -> bool:
        return g.expected_board()["launcher"] == "launched"

    # A short game won by the skull (any will do: the first seed is quick, others if the engine changed).
    seed, actions = find_game("terror", options, terror_policy, 45, ghost_falls, seeds=[236, *range(400)],
                              token=TOKEN)
    kinds = [a.kind for a in actions]
    assert kinds.count("move_tomb") >= 3 and kinds[-1] == "skull_outcome", kinds
    game = get_game("terror").new(["Ann", "Bo"], game_seed(TOKEN, seed), options)
    chain = start_chain(game, seed, TERROR_CHANNELS)
    made = play(chain, game, actions)
    assert game.is_over and game.winners
    check_events(chain, made, {
        "tomb_moved": lambda d: (f"The {d['tomb'].title()} tomb slid from {TOMB_WORDS[d['from']]} "
                                 f"to {TOMB_WORDS[d['to']]}."),
        "skull_hit": lambda d: "Headless Ghost off its launcher",
    })
    assert [e["data"]["to"] for e in chain.published() if e["type"] == "tomb_moved"] == \
        [a.params["to"] for a in actions if a.kind == "move_tomb"]
    winners = " and ".join(game.players[s] for s in game.winners)
    for page in chain.phones.values():
        page.wait_for_selector("#over", state="visible")
        assert winners in page.text_content("#over")


def superstition_policy(g: Game, rnd: random.Random) -> Action:
    """Walks round the board until a trap is challenged; the trap springs (the pins spring it)."""
    la = g.legal_actions()
    cur = [a for a in la if a.player == g.current_player] or la
    for a in cur:
        if a.kind == "challenge_result" and a.params["zapped"]:
            return a
    return rnd.choice([a for a in cur if a.kind not in ("end_turn", "leave_whammy", "charm_move", "place_whammy")]
                      or cur)


def a_trap_challenge(options: dict[str, Any]) -> tuple[int, list[Action]]:
    """The first seed whose game reaches a trap challenge soon: its moves up to the trap's reset and the
    next player's roll after it."""
    for seed in [0, *range(300)]:
        rnd = random.Random(seed)
        g = get_game("superstition").new(["Ann", "Bo"], game_seed(TOKEN, seed), options)
        actions: list[Action] = []
        while not g.is_over and len(actions) < 30:
            a = superstition_policy(g, rnd)
            g.apply(a)
            actions.append(a)
            if len(actions) >= 2 and actions[-2].kind == "reset_trap":
                return seed, actions
    raise AssertionError("no Superstition game reaches a trap challenge within 30 actions for these seeds")


def test_a_superstition_trap_challenge_by_pegs_and_lid_on_pins(start_chain: Any) -> None:
    options = {"challenge": "sensors", "outcome_window_ms": REFEREE["trap_window_ms"]}
    seed, actions = a_trap_challenge(options)
    assert [a.kind for a in actions[-4:]] == ["pull_peg", "challenge_result", "reset_trap", "roll"], actions
    game = get_game("superstition").new(["Ann", "Bo"], game_seed(TOKEN, seed), options)
    chain = start_chain(game, seed, SUPERSTITION_CHANNELS)
    made = play(chain, game, actions)
    check_events(chain, made, {
        "challenge_begins": lambda d: " challenges the ",
        "peg_pulled": lambda d: f"pulled peg {d['peg'].upper()} of the ",
        "challenge_resolved": lambda d: " was zapped by ",
        "trap_reset": lambda d: " was reset.",
    })
    kinds = [e["type"] for e in chain.published()]
    assert kinds.index("challenge_begins") < kinds.index("peg_pulled") < kinds.index("challenge_resolved") \
        < kinds.index("trap_reset")
