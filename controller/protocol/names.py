"""A table's id, what a person calls the table: its display name, and a readable one made from its id.

The id (``table.id``) is for machines: it is part of every MQTT topic and of the
panel's URLs; :func:`check_table_id` is the one rule for it, on both sides of the broker.
People read a name: ``table.name`` in the config, carried in the
table's signed ``status`` so the panel can show it, or, when none is set (or
none is known yet), :func:`default_name` made from the id. Pure helpers (no I/O,
no state), shared by the controller and the panel (``tests/test_import_direction.py``).
"""

from __future__ import annotations

import re
import unicodedata
from typing import Any

MAX_NAME = 60  # a name is a heading on a 360 px phone, not a paragraph
MAX_TABLE_ID = 64
# A table id is one MQTT topic level, a path segment of the panel's URLs, a file name (the journal's
# default) and part of Home Assistant's object ids. Letters, digits, '-' and '_' are safe in all of
# them. '/', '+' and '#' would split or widen a topic; a '.' is legal in a topic but makes "." and
# ".." ids (a URL or a file path that climbs) and Home Assistant object ids that two tables share.
_TABLE_ID = re.compile(rf"[A-Za-z0-9_-]{{1,{MAX_TABLE_ID}}}")
_SPLIT = re.compile(r"[-_]+")
_NUMBERED = re.compile(r"^(?:t|table)(\d+)$", re.IGNORECASE)  # t1, table2: "Table 1"
_WORD_NUMBER = re.compile(r"^([A-Za-z]+?)(\d+)$")  # room2: "room 2"


def check_table_id(v: Any) -> str | None:
    """The complaint about a table id, or None when it is fine (the controller's ``table.id``, the ids the
    panel is configured with, and the table part of every topic it reads)."""
    if isinstance(v, str) and _TABLE_ID.fullmatch(v):
        return None
    return f"must be 1-{MAX_TABLE_ID} letters, digits, '-' or '_' (it is part of MQTT topics)"


def is_table_id(v: Any) -> bool:
    """Whether ``v`` is a table id (:func:`check_table_id` finds nothing wrong with it)."""
    return check_table_id(v) is None


def check_name(v: Any) -> str | None:
    """The complaint about a table name, or None when it is fine (also how the panel checks one it is sent)."""
    if not isinstance(v, str) or not v.strip():
        return "must be a non-empty name"
    if len(v.strip()) > MAX_NAME:
        return f"must be at most {MAX_NAME} characters"
    if any(unicodedata.category(ch) in ("Cc", "Zl", "Zp") for ch in v):  # emoji joiners are fine
        return "must be a name without control characters (tabs, new lines)"
    return None


def _machine_made(part: str) -> bool:
    """A part of an id that no person chose as a word: random hex, a serial number."""
    has_digit = any(c.isdigit() for c in part)
    has_letter = any(c.isalpha() for c in part)
    if re.fullmatch(r"[tT]?[0-9a-fA-F]{8,}", part) and not part.isdigit():  # what tests and scripts make
        return True
    return len(part) >= 8 and has_digit and has_letter and not _WORD_NUMBER.match(part)


def default_name(table_id: str) -> str:
    """A readable name made from an id: "t1" -> "Table 1", "kitchen-table" -> "Kitchen table",
    "room2" -> "Room 2", a machine-made id such as "t98a2cdf2cd" -> "Table 98A2" (its first four
    characters after the "t", so two such tables still read apart; docs/config.md)."""
    parts = [p for p in _SPLIT.split(table_id) if p]
    if not parts:
        return "Table"
    for part in parts:
        if _machine_made(part):
            core = part[1:] if part[0] in "tT" and re.fullmatch(r"[0-9a-fA-F]+", part[1:]) else part
            return "Table " + core[:4].upper()
    words: list[str] = []
    for part in parts:
        if n := _NUMBERED.match(part):
            words += ["table", str(int(n.group(1)))]  # "t3" anywhere: "table 3"
        elif m := _WORD_NUMBER.match(part):
            words += [m.group(1), str(int(m.group(2)))]
        else:
            words.append(str(int(part)) if part.isdigit() else part)
    if all(w.isdigit() for w in words):
        words.insert(0, "table")  # "3" alone says nothing: "Table 3"
    text = " ".join(words)
    return text[0].upper() + text[1:]


def shown_name(table_id: str, name: Any) -> str:
    """The name to show: ``name`` as the table published it if it is a fine name, else the default."""
    return name.strip() if check_name(name) is None else default_name(table_id)
