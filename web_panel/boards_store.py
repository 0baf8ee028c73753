"""Owners' own boards, decks and tiles: named data files the panel checks, keeps, and hands to new games.

Every document is checked by the loader its engine uses (the same code that
refuses it at the start of a game), so a file the editor saved is a file the
game accepts. A file is kept as ``<boards_dir>/<kind>/<name>.json``, in the
loader's own format: the same file plays in ``gravekeeper play <game> --board
FILE``, and an export is that file, byte for byte.

A new game receives the document itself in its options, not the path: the
journal then holds the data the game started with, so editing or deleting
the file never changes a game in progress, and a controller on another
machine plays the board the panel shows.
"""

from __future__ import annotations

import json
import os
import re
import stat
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from controller.games import BadGameData, game_title
from controller.games.dogs import DEFAULT_TILES_PATH, parse_tiles
from controller.games.owner_words import check_words
from controller.games.superstition import DEFAULT_BOARD_PATH as SUPERSTITION_BOARD
from controller.games.superstition import parse_board
from controller.games.terror import DEFAULT_BOARD as TERROR_BOARD
from controller.games.terror import DEFAULT_CARDS as TERROR_CARDS
from controller.games.terror import load_board, load_deck
from gravekeeper.errors import GravekeeperError

MAX_DOCUMENT_BYTES = 48 * 1024  # the default deck, the largest file, is about 12 KiB
# A new game carries its files in its options, inside a command the table refuses over 16 KiB
# (controller/protocol/commands.py); the rest of it (players' names, signature) takes under 3 KiB.
# Counted as the command sends them (json.dumps: spaces after separators, non-ASCII escaped).
# The default Terror board and deck together take 11.4 KiB.
MAX_OPTIONS_BYTES = 13 * 1024
# Letters, digits, spaces and - _ . : safe as a file name everywhere, and never a path.
NAME_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9 _.-]{0,47}")
DEFAULT_NAME = "default"


@dataclass(frozen=True)
class Kind:
    """One kind of data file: the game it is for and the new-game option that carries it."""

    key: str
    game: str
    option: str
    title: str
    default_file: Path


KINDS: dict[str, Kind] = {k.key: k for k in (
    Kind("terror-board", "terror", "board", "Terror in the Graveyard board", TERROR_BOARD),
    Kind("terror-cards", "terror", "cards", "Terror in the Graveyard card mix", TERROR_CARDS),
    Kind("superstition-board", "superstition", "board", "Superstition board", SUPERSTITION_BOARD),
    Kind("dogs-tiles", "dogs", "tiles", "Graveyard dogs tiles", DEFAULT_TILES_PATH),
)}


class BoardError(GravekeeperError, ValueError):
    """A document or a request about one is refused; ``at`` points at the entry (see BadGameData).

    The message names the file's entry (for whoever edits the file by hand); ``reason`` says the same
    in a person's words, for the editor's status line and the note at the cell.
    """

    def __init__(self, message: str, at: dict[str, Any] | None = None, reason: str | None = None) -> None:
        super().__init__(message)
        self.at = at
        self.reason = reason or _sentence(message)


def _sentence(message: str) -> str:
    """The panel's own refusals are already plain words: only make a sentence of them."""
    text = message.strip()
    return (text[:1].upper() + text[1:] + ("" if text.endswith((".", "!", "?")) else ".")) if text else text


def kind_of(key: str) -> Kind:
    kind = KINDS.get(key)
    if kind is None:
        raise BoardError(f"there is no kind of data file called {key!r} (one of {', '.join(KINDS)})")
    return kind


def check_name(name: str) -> str:
    if not isinstance(name, str) or not NAME_RE.fullmatch(name):
        raise BoardError(f"the name {name!r} must be 1 to 48 letters, digits, spaces, '-', '_' or '.', "
                         "starting with a letter or digit")
    if name.lower() == DEFAULT_NAME:
        raise BoardError("the name 'default' is kept for the board that comes with the game; choose another")
    return name


def parse_document(raw: bytes | str) -> Any:
    """The JSON of an uploaded or edited document; :class:`BoardError` says where it breaks."""
    if isinstance(raw, str):
        raw = raw.encode("utf-8")
    if len(raw) > MAX_DOCUMENT_BYTES:
        raise BoardError(f"the file is larger than {MAX_DOCUMENT_BYTES // 1024} KiB")
    try:
        return json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise BoardError(f"the file is not UTF-8 text: {exc}") from None
    except RecursionError:
        raise BoardError("the file is nested too deeply to be a board") from None
    except ValueError as exc:
        raise BoardError(f"the file is not valid JSON: {exc}") from None


def validate(kind: Kind, doc: Any) -> None:
    """Check ``doc`` with the engine's own loader; :class:`BoardError` with the loader's reason and place."""
    try:
        check_words(kind.option, doc)  # first: a loader's refusal may quote a tile's name, however long
        if kind.key == "terror-board":
            if not isinstance(doc, dict):
                raise BadGameData("board: the board must be a JSON object", reason="This file is not a Terror board.")
            load_board(doc)
        elif kind.key == "terror-cards":
            if not isinstance(doc, dict):
                raise BadGameData("cards: the deck must be an object with a 'cards' list",
                                  reason="This file is not a card mix.")
            load_deck(doc)
        elif kind.key == "superstition-board":
            parse_board(doc, where="board")
        else:
            parse_tiles(doc, "tiles")
    except BadGameData as exc:
        raise BoardError(str(exc), exc.at, exc.reason) from None
    except (TypeError, RecursionError) as exc:  # a loader meeting a shape it never expected
        raise BoardError(f"{kind.option}: not a {kind.title} ({exc})",
                         reason=f"This file is not a {kind.title}.") from None
    size = sent_size(doc)
    if size > MAX_OPTIONS_BYTES:
        raise BoardError(f"this {kind.title} is too large to start a game with: {_kib(size)} as the table receives "
                         f"it, at most {_kib(MAX_OPTIONS_BYTES)}; shorten its words or notes")


def sent_size(doc: Any) -> int:
    """How many bytes ``doc`` takes in a new-game command, as the panel sends it."""
    return len(json.dumps(doc).encode("utf-8"))


def _kib(size: int) -> str:
    return f"{size / 1024:.1f} KiB"


class BoardStore:
    """The named files of one boards directory; with none (``root`` None), only the defaults."""

    def __init__(self, root: Path | None) -> None:
        self.root = Path(root) if root is not None else None

    def _path(self, kind: Kind, name: str) -> Path:
        check_name(name)
        if self.root is None:
            raise BoardError(f"there is no saved {kind.title} called {name!r}: this panel has no boards directory")
        return self.root / kind.key / f"{name}.json"

    def names(self, kind: Kind) -> list[str]:
        if self.root is None:
            return []
        folder = self.root / kind.key
        if not folder.is_dir():
            return []
        return sorted(p.stem for p in folder.glob("*.json") if NAME_RE.fullmatch(p.stem) and p.is_file())

    def raw(self, kind: Kind, name: str) -> bytes:
        """The stored file's bytes (the default board's for ``default``)."""
        path = kind.default_file if name == DEFAULT_NAME else self._path(kind, name)
        try:
            info = path.stat()
            # Only a regular file of a sane size: someone may have put a FIFO or a huge file there by hand.
            if not stat.S_ISREG(info.st_mode):
                raise BoardError(f"the {kind.title} {name!r} is not a regular file")
            with open(path, "rb") as f:
                data = f.read(MAX_DOCUMENT_BYTES + 1)
        except FileNotFoundError:
            raise BoardError(f"there is no saved {kind.title} called {name!r}") from None
        except OSError as exc:
            raise BoardError(f"the {kind.title} {name!r} cannot be read: {exc.strerror}") from None
        if len(data) > MAX_DOCUMENT_BYTES:
            raise BoardError(f"the {kind.title} {name!r} is larger than {MAX_DOCUMENT_BYTES // 1024} KiB")
        return data

    def load(self, kind: Kind, name: str) -> Any:
        """The document, checked again: the file may have been edited by hand since it was saved."""
        doc = parse_document(self.raw(kind, name))
        validate(kind, doc)
        return doc

    def save(self, kind: Kind, name: str, doc: Any) -> Path:
        """Check, then write atomically: a refused or half-written file never replaces a good one."""
        path = self._path(kind, name)
        validate(kind, doc)
        text = json.dumps(doc, indent=1, ensure_ascii=False) + "\n"
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".saving-", suffix=".json")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                f.write(text)
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
        return path

    def delete(self, kind: Kind, name: str) -> None:
        """Remove a saved file; a game that started on it keeps its copy (in its journal)."""
        try:
            self._path(kind, name).unlink()
        except FileNotFoundError:
            raise BoardError(f"there is no saved {kind.title} called {name!r}") from None

    def new_game_options(self, game: str, choices: dict[str, str]) -> dict[str, Any]:
        """The options of a new game on the chosen files: option name -> the document itself."""
        out: dict[str, Any] = {}
        for key, name in choices.items():
            kind = kind_of(key)
            if kind.game != game:
                raise BoardError(f"a {kind.title} is not for {game_title(game, 'that game')}: it belongs to "
                                 f"{game_title(kind.game)}")
            if name and name != DEFAULT_NAME:
                out[kind.option] = self.load(kind, name)
        size = sent_size(out)
        if size > MAX_OPTIONS_BYTES:
            titles = " and ".join(kind_of(k).title for k, n in choices.items() if n and n != DEFAULT_NAME)
            raise BoardError(f"your {titles} are too large together to start a game with: {_kib(size)} as the table "
                             f"receives them, at most {_kib(MAX_OPTIONS_BYTES)}; shorten their words or notes, or "
                             "start with the one that comes with the game for one of them")
        return out
