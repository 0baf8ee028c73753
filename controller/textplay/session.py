"""Pass-the-device play: one screen and keyboard shared by the whole table.

Before each turn the screen says whose turn it is and waits for Enter; only
then does it show that player's own hand. When the device passes on, the
screen is cleared (and, if the last thing shown was a secret, its owner first
presses Enter to hide it). Another player's Play Anytime! card is played with
the ``interrupt`` command: the device passes privately to that player and
back. Nothing on screen names another player's secret: boards, menus and
events use public views, and an event's secret is told to its own seat only.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TextIO

from controller import textplay
from controller.games import Action, Event, Game, IllegalAction

from .menu import Entry, Menu, Option, build, second_step

CLEAR = "\x1b[H\x1b[2J\x1b[3J"  # home, clear the screen, clear the scrollback too
PROMPT = "> "
QUIT_WORDS = frozenset({"quit", "exit"})
HELP_WORDS = frozenset({"help", "?"})


class Leave(Exception):
    """The players quit, or the input ended.

    A signal that unwinds the play loop to its one exit, not an error: nothing went wrong, and no
    caller outside this package ever sees it. So it does not derive from ``GravekeeperError``,
    which a caller catches to report what gravekeeper refused.
    """


def actor_of(game: Game) -> int | None:
    """The seat whose choice the game waits for (usually the current player)."""
    actions = game.legal_actions()
    current = game.current_player
    if any(a.player == current for a in actions):
        return current
    seats = sorted({a.player for a in actions if a.player is not None})
    return seats[0] if seats else current


def seat_words(game: Game, seat: int) -> str:
    return f"{game.players[seat]} (player {seat + 1})"


class Session:
    def __init__(self, game: Game, inp: TextIO, out: TextIO, chance: textplay.Chance) -> None:
        self.game = game
        self.inp = inp
        self.out = out
        self.chance = chance
        self.holder: int | None = None  # who has the device now
        self.menu: Menu | None = None  # the menu on screen (tests drive the game by it)
        self.shown: dict[str, str] = {}  # board section -> its text as last shown
        self.news: list[tuple[str, Event]] = []  # what happened since the last clear, in public words
        self.secret_on_screen = False  # the holder was told a secret and has not answered since
        self.screen_events: list[Event] = []  # events told on the screen since it was last cleared
        self.position = textplay.position(game)
        self.mark_width = textplay.mark_width(game)

    # ----- input and output ---------------------------------------------------------
    def say(self, text: str = "") -> None:
        print(text, file=self.out, flush=True)

    def read(self, prompt: str = PROMPT) -> str:
        print(prompt, end="", file=self.out, flush=True)
        line = self.inp.readline()
        if not line:
            raise Leave("End of input: leaving the game.")
        self.secret_on_screen = False
        if line.strip().lower() in QUIT_WORDS:
            raise Leave("Leaving the game.")
        return line.strip()

    def clear(self) -> None:
        print(CLEAR, end="", file=self.out, flush=True)
        self.shown = {}
        self.screen_events = []

    # ----- the game -------------------------------------------------------------------
    def run(self) -> int:
        game = self.game
        self.say(f"{game.title}: {', '.join(seat_words(game, s) for s in range(len(game.players)))}.")
        try:
            while not game.is_over:
                self.step()
            self.finish()
        except Leave as exc:
            self.say()
            self.say(str(exc))
        return 0

    def step(self) -> None:
        game = self.game
        actor = actor_of(game)
        if actor is None:
            raise Leave("Nobody can act: leaving the game.")
        if actor != self.holder:
            self.hand_over(actor, f"It is {game.players[actor]}'s turn." if actor == game.current_player
                           else f"{game.players[actor]} must choose now.")
        mine = [a for a in game.legal_actions() if a.player == actor]
        auto = textplay.automatic(game, mine, self.chance)
        if auto is not None:
            action, words = auto
            self.say(words)
            self.apply(action, actor)
            return
        name = game.players[actor]
        menu = build(f"{name}, your choice:", textplay.options(game, actor, mine), self.position,
                     self.mark_width)
        chosen = self.ask(menu, actor, interrupting=False)
        if chosen is not None:
            self.apply(chosen, actor)

    def apply(self, action: Action, seat: int) -> None:
        try:
            events = self.game.apply(action)
        except IllegalAction as exc:  # the menus list legal actions only; say so if the engine disagrees
            self.say(f"Not accepted: {exc}")
            return
        self.tell(events, seat)

    def tell(self, events: Sequence[Event], seat: int) -> None:
        for event in events:
            self.screen_events.append(event)
            self.say("  * " + textplay.describe_event(self.game, event, seat))
            self.news.append((textplay.describe_event(self.game, event, None), event))
            if event.private_to == seat and event.secret:
                self.secret_on_screen = True

    def hand_over(self, seat: int, why: str) -> None:
        game = self.game
        if self.holder is not None and self.secret_on_screen:
            self.read(f"{game.players[self.holder]}, press Enter to hide your screen {PROMPT}")
        if self.holder is not None:  # the first screen keeps the game's title and seed
            self.clear()
        self.tell_news("What happened:")
        self.say(why)
        self.say(f"Pass the device to {seat_words(game, seat)}.")
        self.read(f"{game.players[seat]}, press Enter when only you can see the screen {PROMPT}")
        self.holder = seat

    def tell_news(self, heading: str) -> None:
        """What happened since the screen was last cleared, for everyone (public words only)."""
        if self.news and heading:
            self.say(heading)
        for line, event in self.news:
            self.say(f"  * {line}")
            self.screen_events.append(event)
        self.news = []

    def finish(self) -> None:
        game = self.game
        if self.holder is not None and self.secret_on_screen:
            self.read(f"{game.players[self.holder]}, press Enter to hide your screen {PROMPT}")
        self.clear()
        self.tell_news("")
        self.show({}, None, full=True)
        winners = ", ".join(game.players[s] for s in game.winners) or "nobody"
        self.say(f"Game over. Winner: {winners}.")

    # ----- the screen -----------------------------------------------------------------
    def show(self, marks: dict[object, str], seat: int | None, full: bool = False) -> None:
        """The board parts that changed since last shown (all of them if ``full``)."""
        game = self.game
        parts = textplay.sections(game, marks)
        if seat is not None:
            parts.append(("private", textplay.render_private(game, seat)))
        for key, text in parts:
            if text and (full or self.shown.get(key) != text):
                self.say(text)
        if full:
            legend = textplay.legend(game)
            if legend:
                self.say(legend)
        self.shown = dict(parts)

    def help_text(self, menu: Menu) -> str:
        first = next(iter(menu.options()), None)
        example = first.action.kind.replace("_", " ") if first else "board"
        key = menu.entries[0].key if menu.entries else "1"
        lines = [
            f"Type the number of a choice, or a letter shown on the board (for example {key}).",
            f"Words work too: the first word of an action, such as '{example}'.",
            "board: the whole board again.  back: one step back.  quit: leave the game.",
        ]
        if textplay.interrupts(self.game):
            lines.append("interrupt: another player plays a Play Anytime! card now (the device passes to them).")
        return "\n".join(lines)

    # ----- choosing ---------------------------------------------------------------------
    def ask(self, first: Menu, seat: int, interrupting: bool) -> Action | None:
        """The player's choice from ``first`` (and the steps that follow); None to go on without one."""
        stack = [first]
        reprint = True
        while True:
            menu = stack[-1]
            self.menu = menu
            if reprint:
                self.show(menu.marks, seat)
                self.say()
                for line in menu.lines():
                    self.say(line)
            reprint = True
            line = self.read()
            word = line.lower()
            if not word:
                reprint = False
                continue
            if word in QUIT_WORDS:
                raise Leave("Leaving the game.")
            if word in HELP_WORDS:
                self.say(self.help_text(menu))
                continue
            if word == "board":
                self.show(menu.marks, seat, full=True)
                for line in menu.lines():
                    self.say(line)
                reprint = False
                continue
            if word == "back":
                if len(stack) > 1:
                    stack.pop()
                elif interrupting:
                    return None
                else:
                    self.say("There is no step to go back to.")
                continue
            if word == "interrupt":
                if interrupting or not textplay.interrupts(self.game):
                    self.say("Nobody can interrupt now.")
                    continue
                self.interrupt(seat)
                return None
            entry = menu.find(word)
            if entry is None:
                entry = self.match_words(line, menu)
                if entry is None:
                    continue
            if len(entry.options) == 1:
                return entry.options[0].action
            stack.append(second_step(entry, self.position, self.mark_width))

    def match_words(self, line: str, menu: Menu) -> Entry | None:
        """An action typed in words (``roll``, ``end turn``, ``move cw``), or None after saying why not."""
        words = line.lower().split()
        found: list[Option] = []
        kind_known = False
        for option in menu.options():
            kind = option.action.kind.split("_")
            if words[: len(kind)] != kind and words[:1] != [option.action.kind]:
                continue
            kind_known = True
            rest = words[len(kind):] if words[: len(kind)] == kind else words[1:]
            values = {str(v).lower() for v in option.action.params.values()}
            if all(w in values for w in rest):
                found.append(option)
        if len(found) == 1:
            return Entry(line, found[0].label, found)
        if found:
            return Entry(line, line, found, "place")
        keys = ", ".join(menu.keys()[:6]) + (", ..." if len(menu.keys()) > 6 else "")
        if kind_known:
            self.say(f"'{line}' is not one of your choices now: type one of {keys}, "
                     f"or '{words[0]}' alone to see its choices.")
        else:
            self.say(f"'{line}' is not a choice here: type one of {keys} (or 'help').")
        return None

    def interrupt(self, actor: int) -> None:
        """Another player plays out of turn: the device passes to them in private, then back."""
        game = self.game
        others = [s for s in range(len(game.players)) if s != actor]
        if len(others) == 1:
            who = others[0]
        else:
            menu = Menu("Who interrupts? (back: nobody)")
            for n, s in enumerate(others, 1):
                menu.entries.append(Entry(str(n), seat_words(game, s), []))
            self.menu = menu
            for line in menu.lines():
                self.say(line)
            while True:
                answer = self.read().lower()
                if answer == "back":
                    return
                if answer in QUIT_WORDS:
                    raise Leave("Leaving the game.")
                entry = menu.find(answer)
                if entry is not None:
                    who = others[int(entry.key) - 1]
                    break
                self.say(f"Type 1 to {len(others)}, or back.")
        self.hand_over(who, f"{game.players[who]} interrupts {game.players[actor]}'s turn.")
        mine = [a for a in game.legal_actions() if a.player == who]
        if not mine:
            self.show({}, who)
            self.say("You have nothing you can play now.")
            self.read(f"Press Enter to hand the device back {PROMPT}")
            return
        menu = build(f"{game.players[who]}, play a card now (back: play nothing):",
                     textplay.options(game, who, mine), self.position, self.mark_width)
        action = self.ask(menu, who, interrupting=True)
        if action is not None:
            self.apply(action, who)
