"""Driving the panel's pages in Chromium."""

from __future__ import annotations

import os
import re
import time
from pathlib import Path
from typing import Any

ARTIFACTS = Path(__file__).resolve().parents[3] / "test-artifacts"

# How long a page's wait may take before the test fails. A wait ends as soon as what it waits for is
# there, so this only bounds a failure; on two busy cores (two workers, their browsers, panels and
# tables) a login's answer was seen to take over 8 s, and a shorter bound failed CI on load alone.
PAGE_WAIT_MS = 20_000


# The page's own ready signal (web_panel/static/ready.js): its styles, scripts and fonts have applied.
PAGE_READY = "document.documentElement.dataset.ready === '1'"


def wait_ready(page: Any) -> None:
    """Wait until the page in ``page`` says it is ready; anything measured before that measures an unstyled page."""
    page.wait_for_function(PAGE_READY)


def open_page(page: Any, url: str, **options: Any) -> Any:
    """Go to ``url`` and wait for the page's ready signal; the navigation's response."""
    response = page.goto(url, **options)
    wait_ready(page)
    return response


CLICK_ACTION = """(a) => {
  const same = (x, y) => JSON.stringify(x) === JSON.stringify(y) ||
    (x && y && typeof x === "object" && typeof y === "object" && !Array.isArray(x) &&
     Object.keys(x).length === Object.keys(y).length && Object.keys(x).every(k => same(x[k], y[k])));
  const b = [...document.querySelectorAll("button.act")].find(b => same(JSON.parse(b.dataset.action), a));
  if (!b) return false;
  b.click();
  return true;
}"""


def click_action(page: Any, action: dict[str, Any]) -> bool:
    """Click the page's button for ``action`` (params compared as JSON, key order aside)."""
    return bool(page.evaluate(CLICK_ACTION, action))


# Screenshots for a person to look at, written only when asked for: GRAVEKEEPER_TEST_SHOTS=1. They are
# no check (check_phone_page is), and the suite's 200 of them cost a fifth of a second each, on both cores.
SHOTS = os.environ.get("GRAVEKEEPER_TEST_SHOTS") == "1"


def shot(page: Any, name: str) -> None:
    """A full-page screenshot in ``test-artifacts/``, when screenshots were asked for (``SHOTS``)."""
    if not SHOTS:
        return
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)


def shot_of(locator: Any, name: str) -> None:
    """:func:`shot` of one element."""
    if not SHOTS:
        return
    ARTIFACTS.mkdir(exist_ok=True)
    locator.screenshot(path=str(ARTIFACTS / f"{name}.png"))


def wait_until_panel_knows(page: Any, base_url: str, table: str) -> None:
    """A panel that has just printed its address may not have had the table's retained topics yet
    (its page is then a 404): wait until the panel knows the table, as a person would reload.
    Two browser workers, their controllers and panels on two cores were seen to need over 15 s."""
    deadline = time.monotonic() + 45
    while page.request.get(f"{base_url}api/t/{table}").status == 404:
        assert time.monotonic() < deadline, f"the panel at {base_url} did not learn of table {table} in 45 s"
        page.wait_for_timeout(100)


def login(page: Any, base_url: str, table: str, token: str) -> None:
    wait_until_panel_knows(page, base_url, table)
    open_page(page, f"{base_url}t/{table}")
    page.fill("#login-token", token)
    page.click("#login-submit")
    page.wait_for_selector("#controls")


# ----- what every page must pass, on a phone: one helper for every test (docs/panel.md, "Phones") -------
PHONE_WIDTHS = (360, 390)
PHONE_HEIGHT = 844
MIN_TARGET_PX = 44
# What must never reach a person: ids and coordinates (a Superstition space id, a grid pair, a sensor
# id, a seat number counted from 0, a row and a column). Word boundaries, so "b5" inside a table's name
# like "t3b5f" passes, and "the Wolf tomb." ending a sentence is words, not the sensor id tomb.wolf.
# Also: snake_case names (end_a, move_pawn), sensor ids (trap.ladder, chute.left), numbered trap ids (grave1).
RAW_ID = re.compile(r"\b[bs]\d+\b|\(-?\d+, ?-?\d+\)|\brows? \d|\bcolumns? \d|\btomb\.\w|\bseat \d|\b[a-z]+_[a-z_]+\b|"
                    r"\b(?:trap|chute|launcher)\.\w|\bgrave\d\b|\b(?:arrow|danger)-[a-z]+\b")

# The ids of the tables a page is about (its body's, or a club list's lines'): kept in URLs and data
# attributes for machines (and in an address shown to type), never shown as a word of the text nor in the
# window's title: people read the table's name.
TABLE_IDS = """() => [...new Set([...document.querySelectorAll("[data-table]")].map(e => e.dataset.table)
  .filter(Boolean))]"""


def table_ids_shown(page: Any, text: str) -> list[str]:
    """Each table id of the page that shows in ``text`` or the page's title as a word of its own."""
    found = []
    for table in page.evaluate(TABLE_IDS):
        word = re.compile(rf"(?<![\w/-]){re.escape(table)}(?![\w/-])")  # not inside a URL to type
        for where, shown in (("text", text), ("title", page.title())):
            m = word.search(shown)
            if m:
                found.append(f"the table id {table!r} in the {where}: "
                             f"...{shown[max(0, m.start() - 40):m.end() + 40]!r}...")
    return found


TARGETS = """(min) => {
  const sel = "button, a[href], summary, input:not([type=hidden]), select, textarea, svg#board [role=button]";
  const out = [];
  for (const el of document.querySelectorAll(sel)) {
    if (el.disabled) continue;
    // A checkbox or radio inside its label is tapped anywhere on the label: the label is the target.
    const label = /^(checkbox|radio)$/.test(el.type || "") ? el.closest("label") : null;
    const r = (label || el).getBoundingClientRect();
    if (r.width === 0 && r.height === 0) continue;           // not shown (hidden, or in a closed fold)
    const style = getComputedStyle(el);
    if (style.visibility === "hidden" || style.display === "none") continue;
    if (r.width < min - 0.5 || r.height < min - 0.5) {
      out.push((el.id ? "#" + el.id : el.tagName.toLowerCase() + "." + (el.getAttribute("class") || "")) +
               " '" + (el.getAttribute("aria-label") || el.textContent || "").trim().slice(0, 40) + "' is " +
               Math.round(r.width) + "x" + Math.round(r.height));
    }
  }
  return out;
}"""

SIDEWAYS = """() => {
  const d = document.documentElement;
  return {scroll: Math.max(d.scrollWidth, document.body.scrollWidth), view: d.clientWidth};
}"""

# Every shown element that reaches past the viewport's sides, folds opened: a wide table inside a
# scrolling box, or one the page clips, scrolls sideways (or is cut off) all the same on a phone, and
# the document's own scrollWidth does not see it. Folds are opened for the measure, then put back.
TOO_WIDE = """() => {
  const view = document.documentElement.clientWidth;
  const closed = [...document.querySelectorAll("details:not([open])")].filter(d => !d.hidden);
  for (const d of closed) d.open = true;
  const out = [];
  try {
    for (const el of document.body.querySelectorAll("*")) {
      const r = el.getBoundingClientRect();
      if (r.width === 0 || r.height === 0) continue;
      const style = getComputedStyle(el);
      if (style.visibility === "hidden" || style.position === "fixed") continue;
      if (r.right > view + 1 || r.left < -1) {
        // Report the outermost offender only, not each of its children.
        const parent = el.parentElement && el.parentElement.getBoundingClientRect();
        if (parent && (parent.right > view + 1 || parent.left < -1) && el.parentElement !== document.body) continue;
        out.push((el.id ? "#" + el.id : el.tagName.toLowerCase() + (el.className && typeof el.className === "string"
                  ? "." + el.className.split(" ")[0] : ""))
                 + " spans " + Math.round(r.left) + ".." + Math.round(r.right));
      }
    }
  } finally {
    for (const d of closed) d.open = false;
  }
  return out.slice(0, 8);
}"""

DRAWN_FOR_WIDTH = """() => {
  const svg = document.getElementById("board");
  if (!svg || !svg.dataset.drawnWidth) return true;
  return Math.abs(Number(svg.dataset.drawnWidth) - svg.getBoundingClientRect().width) < 1;
}"""


def watch_console(page: Any) -> list[str]:
    """Collect the page's console errors and uncaught exceptions from now on."""
    errors: list[str] = []
    page.on("console", lambda msg: errors.append(f"console: {msg.text}") if msg.type == "error" else None)
    page.on("pageerror", lambda exc: errors.append(f"uncaught: {exc}"))
    return errors


def axe_violations(page: Any) -> list[str]:
    """Serious and critical accessibility violations axe-core finds on the page as it is now."""
    from axe_playwright_python.sync_playwright import Axe

    result = Axe().run(page)
    return [f"{v['id']} ({v['impact']}): {v['help']} -- " + "; ".join(n["target"][0] if isinstance(n["target"][0], str)
                                                                       else str(n["target"]) for n in v["nodes"][:4])
            for v in result.response["violations"] if v.get("impact") in ("serious", "critical")]


# A page hides a control with the `hidden` attribute; an author style such as `button { display: flex }`
# beats the browser's own `[hidden] { display: none }`, and the control stays on screen.
SHOWN_THOUGH_HIDDEN = """() => [...document.querySelectorAll("[hidden]")]
  .filter(e => getComputedStyle(e).display !== "none")
  .map(e => e.tagName.toLowerCase() + (e.id ? "#" + e.id : "") + " "
             + JSON.stringify((e.textContent || "").trim().slice(0, 60)))"""


# A die showing a word ("Monster") cut off at the die's edges: "lonste" is not a word a person can read.
CUT_DICE = """() => [...document.querySelectorAll("svg.die")].filter(svg => {
  const text = svg.querySelector("text"), rect = svg.querySelector("rect");
  if (!text || !rect) return false;
  const t = text.getBBox(), r = rect.getBBox();
  return t.width > 0 && (t.x < r.x - 0.5 || t.x + t.width > r.x + r.width + 0.5);
}).map(svg => svg.getAttribute("aria-label"))"""


def check_phone_page(page: Any, what: str, errors: list[str] | None = None, *, accessibility: bool = True,
                     shot_name: str | None = None) -> None:
    """The checks every page passes at 360 and 390 CSS px wide: every enabled button, link and board target
    is at least 44x44, nothing scrolls sideways (the document, and no element reaches past the screen's
    sides, with every fold opened), no die's word cut off, no id or coordinate shows in the text (nor the table's
    id in the text or the title: people read its name), no console error;
    and (once, at 390) no serious or critical axe-core violation. The viewport is left at 390x844."""
    wait_ready(page)
    problems: list[str] = []
    for width in PHONE_WIDTHS:
        page.set_viewport_size({"width": width, "height": PHONE_HEIGHT})
        page.wait_for_function(DRAWN_FOR_WIDTH)
        small = page.evaluate(TARGETS, MIN_TARGET_PX)
        problems += [f"{width}px: {s}" for s in small]
        side = page.evaluate(SIDEWAYS)
        if side["scroll"] > side["view"]:
            problems.append(f"{width}px: the page scrolls sideways ({side['scroll']} > {side['view']} px)")
        problems += [f"{width}px: wider than the screen (folds opened): {w}" for w in page.evaluate(TOO_WIDE)]
        problems += [f"{width}px: hidden but shown (a style overrides the hidden attribute): {h}"
                     for h in page.evaluate(SHOWN_THOUGH_HIDDEN)]
        problems += [f"{width}px: a die's word is cut off at its edges: {d!r}" for d in page.evaluate(CUT_DICE)]
        text = page.evaluate("document.body.innerText")
        for m in RAW_ID.finditer(text):
            problems.append(f"{width}px: raw id {m.group(0)!r} in the text: "
                            f"...{text[max(0, m.start() - 40):m.end() + 40]!r}...")
        problems += [f"{width}px: {t}" for t in table_ids_shown(page, text)]
        if shot_name:
            shot(page, f"{shot_name}-{width}")
    if accessibility:
        problems += [f"axe: {v}" for v in axe_violations(page)]
    if errors:
        problems += list(errors)
    assert not problems, f"{what}:\n" + "\n".join(problems)
