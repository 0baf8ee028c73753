"""A table of players at one pseudo-terminal: drives ``gravekeeper play`` as a person would.

The play loop runs in a thread with its keyboard and screen on the slave side
of a real pty (line discipline, echo and all); the test types on the master
side. Each time the loop waits for a line, the test sees exactly what is on
the screen since it was last cleared, and the game behind it, so it can check
that the screen holds no secret of anyone but the player holding the device.
"""

from __future__ import annotations

import contextlib
import os
import random
import re
import termios
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import IO

from controller.games import Action, Game
from controller.textplay import Chance
from controller.textplay.menu import Menu
from controller.textplay.session import CLEAR, Session

ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
WAIT_S = 10.0  # a bound for a broken loop, not a pace: every wait ends on a condition


class _SignallingInput:
    """The loop's keyboard: says when the loop is about to wait for a line."""

    def __init__(self, stream: IO[str]) -> None:
        self.stream = stream
        self.waiting = threading.Event()

    def readline(self) -> str:
        self.waiting.set()
        return self.stream.readline()


@dataclass
class Screen:
    """What one prompt found: the text since the last clear, and who held the device."""

    text: str
    holder: int | None
    handover: bool  # the "press Enter when only you can see the screen" prompt
    segment: int  # how many times the screen had been cleared


@dataclass
class PtyTable:
    game: Game
    seed: int
    skull_hit: float = 0.5
    screens: list[Screen] = field(default_factory=list)
    transcript: str = ""
    clears: int = 0
    own_secrets: dict[int, set[str]] = field(default_factory=dict)  # per screen: the holder's, seen on it

    def __post_init__(self) -> None:
        self.master, slave = os.openpty()
        # No echo: then everything after a typed line is the loop's own answer, so a prompt
        # seen after the last line typed is the new one, never the old prompt plus an echo.
        attrs = termios.tcgetattr(slave)
        attrs[3] &= ~termios.ECHO
        termios.tcsetattr(slave, termios.TCSANOW, attrs)
        self._typed_at = 0
        self._slave_in = open(slave, encoding="utf-8", closefd=True)  # noqa: SIM115 - closed in close()
        self._slave_out = open(os.dup(slave), "w", encoding="utf-8")  # noqa: SIM115
        self.keyboard = _SignallingInput(self._slave_in)
        self.session = Session(self.game, self.keyboard, self._slave_out,  # type: ignore[arg-type]
                               Chance.for_seed(self.seed, self.skull_hit))
        self.result: int | None = None
        self.error: BaseException | None = None
        self.done = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self._segment = ""
        self._seen = threading.Condition()
        self.reader = threading.Thread(target=self._drain, daemon=True)
        self.reader.start()
        self.thread.start()

    def _run(self) -> None:
        try:
            self.result = self.session.run()
        except BaseException as exc:  # surfaced by the test, not lost in the thread
            self.error = exc
        finally:
            self.done.set()
            self.keyboard.waiting.set()

    # ----- the master side -------------------------------------------------------------
    def _drain(self) -> None:
        """Read the screen all the time, so the loop never blocks on a full pty buffer."""
        while True:
            try:
                chunk = os.read(self.master, 65536)
            except OSError:
                return
            if not chunk:
                return
            with self._seen:
                self._take(chunk.decode("utf-8", "replace"))
                self._seen.notify_all()

    def _read_available(self, until: Callable[[str], bool]) -> None:
        with self._seen:
            if not self._seen.wait_for(lambda: until(self._segment), WAIT_S):
                raise AssertionError(f"the screen stopped before a prompt; it ends with:\n{self._segment[-2000:]}")

    def _take(self, chunk: str) -> None:
        chunk = chunk.replace("\r\n", "\n")
        self.transcript += chunk
        if CLEAR in chunk:
            self.clears += chunk.count(CLEAR)
            self._segment = chunk.rsplit(CLEAR, 1)[1]
        else:
            self._segment += chunk

    def next_prompt(self) -> Screen | None:
        """Wait until the loop asks for a line (or ends); None once the game has ended."""
        if not self.keyboard.waiting.wait(WAIT_S):
            raise AssertionError("the play loop never asked for input")
        self.keyboard.waiting.clear()
        if self.error is not None:
            raise self.error
        if self.done.is_set():
            if self.error is not None:
                raise self.error
            self._read_available(lambda seg: "Game over." in self.transcript or "Leaving" in self.transcript)
            return None
        self._read_available(lambda seg: len(self.transcript) > self._typed_at and seg.endswith("> "))
        with self._seen:
            text = ANSI.sub("", self._segment)
            segment = self.clears
        screen = Screen(text, self.session.holder, text.endswith("only you can see the screen > "), segment)
        self.screens.append(screen)
        return screen

    def type(self, line: str) -> None:
        with self._seen:
            self._typed_at = len(self.transcript)
        os.write(self.master, (line + "\n").encode())

    @property
    def menu(self) -> Menu | None:
        return self.session.menu

    def keys_for(self, action: Action) -> str:
        """The key on screen for ``action`` in the menu shown now (its number or letter)."""
        menu = self.menu
        assert menu is not None
        for entry in menu.entries:
            if any(o.action == action for o in entry.options):
                return entry.key
        raise AssertionError(f"{action} is not in the menu on screen: {menu.lines()}")

    def close(self) -> None:
        if self.thread.is_alive():
            self.type("quit")
            self.thread.join(WAIT_S)
        if self.thread.is_alive():
            # Closing a stream another thread reads would hang; the daemon thread dies with the run.
            raise AssertionError("the play loop did not leave on 'quit'")
        self._slave_in.close()
        with contextlib.suppress(OSError):  # output the loop left unflushed when it failed: reported already
            self._slave_out.close()
        self.reader.join(WAIT_S)  # ends when the slave side is closed
        os.close(self.master)


def tell_apart(text: str, words: list[str]) -> list[str]:
    """The words of ``words`` that appear in ``text``."""
    return [w for w in words if w and w in text]


# ----- players: simple policies that finish a game --------------------------------------
def terror_player(game: Game, rng: random.Random) -> Action:
    """Race a ring-holder to the Crypt and drop the skull, else hunt for cards."""
    from controller.games.terror import Terror

    assert isinstance(game, Terror)
    mine = [a for a in game.legal_actions() if a.player == game.current_player]
    for a in mine:
        if a.kind == "attempt_skull":
            return a
    moves = [a for a in mine if a.kind == "move_pawn"]
    if moves:
        types = game.board.types(game.cfg)

        def score(a: Action) -> tuple[int, float]:
            pawn = game.s.pawns[a.player][a.params["pawn"]]  # type: ignore[index]
            cell = game.board.cell(a.params["to"])
            if any(game.card(c).effect == "ring" for c in pawn.cards):
                return (0 if cell == game.board.crypt else 1, a.params["to"][0] - a.params["to"][1])
            return (0 if types[cell] == "g" else 1, rng.random())

        return min(moves, key=score)
    return rng.choice([a for a in mine if a.kind != "play_card"] or mine)


def superstition_player(game: Game, rng: random.Random) -> Action:
    """Goes in to a platform when it can, otherwise picks at random (rarely a Whammy)."""
    actions = [a for a in game.legal_actions() if a.player == game.current_player]
    inward = [a for a in actions if a.kind == "move" and a.params["direction"] == "in"]
    if inward:
        return inward[0]
    non_whammy = [a for a in actions if a.kind != "place_whammy"]
    return rng.choice(non_whammy if non_whammy and rng.random() < 0.93 else actions)
