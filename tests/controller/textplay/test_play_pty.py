"""Pass-the-device play through a real pseudo-terminal: a whole game of each game, and at
every prompt a check that the screen shows no secret but the device holder's own."""

from __future__ import annotations

import json
import random
import re
from collections.abc import Callable

from controller.games import Action, Game
from controller.games.dogs import DogsGame
from controller.games.superstition import Superstition
from controller.games.terror import Terror
from tests.controller.games.dogs.support import greedy
from tests.controller.textplay.pty_player import (
    PtyTable,
    Screen,
    superstition_player,
    terror_player,
)

Secrets = Callable[[Game, int], list[str]]


def terror_secrets(game: Game, seat: int) -> list[str]:
    return [c["title"] for p in game.player_view(seat)["you"]["pawns"] for c in p["cards"]]


def superstition_secrets(game: Game, seat: int) -> list[str]:
    you = game.player_view(seat)["you"]
    return [name for name in (you["whammy_name"], you["charm_name"]) if name]


def dogs_secrets(game: Game, seat: int) -> list[str]:
    # No player holds a secret; the table's secrets are the tile deck (and the face-down spooks,
    # whose kinds are public words): no undrawn tile may be named.
    state = game.to_json()
    names = {t["id"]: t["name"] for t in state["tiles"]}
    return [names[t] for t in state["deck"]]


def check_screen(table: PtyTable, screen: Screen, secrets: Secrets) -> None:
    """Nothing on screen belongs to anyone but the holder (nobody, on a hand-over screen)."""
    game = table.game
    viewer = None if screen.handover else screen.holder
    events = table.session.screen_events
    revealed = json.dumps(game.public_view()) + json.dumps([e.public() for e in events])
    deck = getattr(game, "deck", None)
    if deck is not None:
        # A card shown by the rules (a ring before the skull drops, a Monster Reversal) is named
        # by its id in the public event: its title is public then.
        revealed += " ".join(deck.cards[w].title for w in _strings([e.public() for e in events]) if w in deck.cards)
    # The holder's own secrets on this screen, also those they no longer hold (played, lost in a pit).
    own = table.own_secrets.setdefault(screen.segment, set())
    if viewer is not None:
        own |= set(secrets(game, viewer))
    for seat in range(len(game.players)):
        if seat == viewer:
            continue
        assert f"Only for {game.players[seat]}" not in screen.text, screen.text
        for word in secrets(game, seat):
            if word in own or word in revealed:
                continue  # the viewer holds one too, or it is public now (played, placed, drawn face up)
            assert word not in screen.text, (f"{game.players[seat]}'s secret {word!r} is on {viewer}'s screen:\n"
                                             f"{screen.text}")


COORDS = re.compile(r"\[-?\d+, -?\d+\]|\(-?\d+, -?\d+\)")


def plain_words(transcript: str) -> None:
    """No JSON, no coordinates, no seat counted from 0 on any screen."""
    assert '{"' not in transcript and not COORDS.search(transcript), COORDS.search(transcript)
    assert "seat 0" not in transcript and "seat None" not in transcript and "player 0" not in transcript


def _strings(value: object) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


def play_through(table: PtyTable, policy: Callable[[Game, random.Random], Action], secrets: Secrets,
                 interrupt: Callable[[PtyTable], tuple[int, Action | None] | None] | None = None) -> dict[str, int]:
    """Play the whole game at the pty; count what happened along the way."""
    rng = random.Random(table.seed)
    counts = {"prompts": 0, "handovers": 0, "interrupts": 0, "played_interrupts": 0, "two_letter_keys": 0,
              "second_steps": 0}
    desired: Action | None = None
    planned: tuple[int, Action | None] | None = None
    playing: Action | None = None
    while True:
        screen = table.next_prompt()
        if screen is None:
            return counts
        counts["prompts"] += 1
        assert counts["prompts"] < 20_000, "the game does not end"
        check_screen(table, screen, secrets)
        tail = screen.text[-120:]
        if screen.handover:
            counts["handovers"] += 1
            # Before Enter, not even the coming player's own hand is on screen.
            assert "Only for" not in screen.text
            table.type("")
            continue
        if tail.endswith(("hide your screen > ", "hand the device back > ")):
            if tail.endswith("hand the device back > "):
                planned = None  # the interrupting player had nothing to play
            table.type("")
            continue
        menu = table.menu
        assert menu is not None
        if menu.title.startswith("Who interrupts?"):
            assert planned is not None
            others = [s for s in range(len(table.game.players)) if s != screen.holder]
            table.type(str(others.index(planned[0]) + 1))
            continue
        if "play a card now" in menu.title:
            assert planned is not None and screen.holder == planned[0]
            playing = planned[1]
            planned = None
            if playing is None or not any(o.action == playing for o in menu.options()):
                playing = None
                table.type("back")
                continue
            counts["played_interrupts"] += 1
        if playing is not None:  # the interrupting player's card, perhaps over two steps
            key = table.keys_for(playing)
            entry = menu.find(key)
            assert entry is not None
            if len(entry.options) == 1:
                playing = None
            table.type(key)
            continue
        game = table.game
        if interrupt is not None and desired is None and planned is None:
            planned = interrupt(table)
            if planned is not None:
                counts["interrupts"] += 1
                table.type("interrupt")
                continue
        if desired is None or desired not in game.legal_actions():
            desired = policy(game, rng)
        key = table.keys_for(desired)
        entry = menu.find(key)
        assert entry is not None
        if len(entry.options) == 1:
            desired = None
        else:
            counts["second_steps"] += 1
        counts["two_letter_keys"] += len(key) == 2 and key.isalpha()
        table.type(key)


def test_terror_pass_the_device_game_shows_no_other_players_secret() -> None:
    game = Terror.new(["Ann", "Bo", "Cy"], 5)
    # Bo starts with the deck's Play Anytime! card, to play it in someone else's turn.
    game.s.pawns[1][0].cards.append(game.s.draw.pop(game.s.draw.index("anytime-breeze")))
    table = PtyTable(game, seed=5)
    empty_interrupt_done = False

    def interrupt(t: PtyTable) -> tuple[int, Action | None] | None:
        nonlocal empty_interrupt_done
        g = t.game
        actor = t.session.holder
        if not empty_interrupt_done:
            empty_interrupt_done = True
            return 2, None  # Cy, who holds nothing yet
        for a in g.legal_actions():
            if a.player != actor and a.kind == "play_card":
                return a.player, a  # type: ignore[return-value]
        return None

    try:
        counts = play_through(table, terror_player, terror_secrets, interrupt)
    finally:
        table.close()
    assert game.is_over and table.result == 0
    winners = ", ".join(game.players[s] for s in game.winners) or "nobody"
    assert f"Game over. Winner: {winners}." in table.transcript
    assert counts["handovers"] > 10 and counts["interrupts"] >= 2 and counts["played_interrupts"] >= 1
    assert "Bo interrupts" in table.transcript and "Bo plays Cold Breeze" in table.transcript
    assert "You have nothing you can play now." in table.transcript
    # The skull is dropped by chance, never chosen from a menu.
    assert "The skull rattles down the Crypt's chute..." in table.transcript
    assert "knocks the Headless Ghost off" not in table.transcript
    plain_words(table.transcript)
    assert "anytime-breeze" not in table.transcript and "ring-" not in table.transcript


def test_superstition_pass_the_device_game_shows_no_other_players_secret() -> None:
    game = Superstition.new(["Ann", "Bo", "Cy"], 3)
    table = PtyTable(game, seed=3)
    try:
        counts = play_through(table, superstition_player, superstition_secrets)
    finally:
        table.close()
    assert game.is_over and table.result == 0
    assert counts["handovers"] > 10
    assert "draws the Whammy" in table.transcript and "(only you know)" in table.transcript
    assert "Place your Whammy" in table.transcript and "places the Whammy" in table.transcript
    assert counts["second_steps"] > 0
    plain_words(table.transcript)
    assert "start.red" not in table.transcript and "tomb.north" not in table.transcript


def test_dogs_pass_the_device_game_shows_no_secret() -> None:
    game = DogsGame.new(["Ann", "Bo", "Cy"], 3)
    table = PtyTable(game, seed=3)
    try:
        counts = play_through(table, greedy, dogs_secrets)
    finally:
        table.close()
    assert game.is_over and table.result == 0
    assert counts["handovers"] > 10
    assert "Final scores:" in table.transcript
    assert counts["two_letter_keys"] > 0 and counts["second_steps"] > 0  # tiles: where (aa, ab...), then which way
    plain_words(table.transcript)


def test_the_command_itself_on_a_terminal() -> None:
    """``gravekeeper play`` as a process on a pty: the hand-over, the clear, then quit."""
    import os
    import select
    import subprocess
    import sys

    master, slave = os.openpty()
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    proc = subprocess.Popen([sys.executable, "-m", "controller", "play", "terror", "--seed", "4", "--players",
                             "Ann,Bo"],
                            stdin=slave, stdout=slave, stderr=slave, env=env, close_fds=True)
    os.close(slave)
    seen = ""

    def until(text: str) -> None:
        nonlocal seen
        while text not in seen:
            ready, _, _ = select.select([master], [], [], 30)
            assert ready, f"no {text!r} on the terminal; it shows:\n{seen[-1500:]}"
            seen += os.read(master, 65536).decode("utf-8", "replace").replace("\r\n", "\n")

    try:
        until("Ann, press Enter when only you can see the screen > ")
        assert "Only for Ann" not in seen
        os.write(master, b"\n")
        until("Ann, your choice:")
        assert "Only for Ann: your saved cards" in seen
        os.write(master, b"1\n")
        until("Slide the")
        os.write(master, b"quit\n")
        until("Leaving the game.")
        assert proc.wait(30) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(30)
        os.close(master)
