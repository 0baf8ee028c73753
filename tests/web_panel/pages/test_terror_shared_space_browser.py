"""Terror's pawns on a shared space (issue 29, item 4): every seat's pawns stay in sight.

Four seats, two pawns each (the rulebook's girl and boy), all on the Gate at the start; then each seat's
boy on the Crypt's platform, where the rules let several stand, under a Headless Ghost standing or knocked
off. Each pawn's drawing must show at its own centre (nothing drawn over it), and the GATE and CRYPT words
and the ghost must not touch a pawn: on a phone (360, 390) and a laptop, on the table's page and in the
history's replay (which draws with the same code).
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.web_panel.support.engine_state import public_state
from tests.web_panel.support.fake_table import FakeTable
from tests.web_panel.support.night_tables import publish, terror
from web_panel.server import PanelServer

pytestmark = pytest.mark.browser

PLAYERS = ["Ann", "Bo", "Cy", "Di"]

# For each pawn: its drawn body (the circle of a girl, the square of a boy), whether the thing drawn at the
# body's centre belongs to that pawn, and the boxes of the space's word and of the ghost.
MEASURE = """() => {
  const hitOff = [...document.querySelectorAll("svg#board .hit")];
  for (const h of hitOff) h.style.pointerEvents = "none";  // invisible tap areas are not drawings
  const out = {pawns: [], words: [], ghost: null};
  const page = r => [r.left + scrollX, r.top + scrollY, r.width, r.height];  // boxes on the page, not the screen
  const words = 'svg#board g.cell[data-type="gate"] text, svg#board g.cell[data-type="crypt"] text';
  try {
    for (const g of document.querySelectorAll("svg#board g.pawn")) {
      const body = g.querySelector(":scope > circle, :scope > rect:not(.hit)");
      g.scrollIntoView({block: "center", inline: "center"});
      const r = body.getBoundingClientRect();
      const at = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
      const owner = at && at.closest ? at.closest("g.pawn") : null;
      out.pawns.push({seat: g.dataset.seat, pawn: g.dataset.pawn, box: page(r),
                      seen: owner === g, under: at ? at.outerHTML.slice(0, 90) : null});
    }
    for (const t of document.querySelectorAll(words)) {
      out.words.push({text: t.textContent, box: page(t.getBoundingClientRect())});
    }
    const ghost = document.querySelector("svg#board g.ghost");
    if (ghost) out.ghost = page(ghost.getBoundingClientRect());
  } finally {
    for (const h of hitOff) h.style.pointerEvents = "";
  }
  return out;
}"""


def overlap(a: list[float], b: list[float]) -> bool:
    return a[0] < b[0] + b[2] and b[0] < a[0] + a[2] and a[1] < b[1] + b[3] and b[1] < a[1] + a[3]


def crypt_boys(ghost: str) -> Any:
    def edit(saved: dict[str, Any]) -> None:
        for seat in saved["pawns"]:
            seat[1]["pos"] = [0, 8]  # the Crypt's platform (the default board's top right)
        saved["ghost"] = ghost
    return edit


CASES = {
    "four seats on the Gate": None,
    "four on the Gate, four in the Crypt, ghost standing": crypt_boys("standing"),
    "four on the Gate, four in the Crypt, ghost knocked off": crypt_boys("destroyed"),
}


def replay_answers(fake: FakeTable, state: dict[str, Any]) -> None:
    """The table answers the history's questions: one game of one step, whose board is ``state``."""
    steps = {"game": "terror", "title": "Terror in the Graveyard", "players": PLAYERS, "over": False,
             "steps": [{"text": "The game starts.", "events": []}]}

    def handler(name: str, cmd: dict[str, Any]) -> dict[str, Any]:
        if name != "history":
            return {"ok": False, "error": "unexpected"}
        return {"ok": True, "data": steps if cmd["op"] == "steps" else state if cmd["op"] == "board" else {}}
    fake.handler = handler


@pytest.mark.parametrize("where", ["the table's page", "the history's replay"])
@pytest.mark.parametrize("case", list(CASES))
def test_every_pawn_on_a_shared_space_shows(case: str, where: str, pages: Any, served: PanelServer,
                                            fake: FakeTable) -> None:
    g = terror(PLAYERS, edit=CASES[case])
    publish(fake, g, simulate=False)
    page = pages(390, 844, mobile=True)
    if where == "the table's page":
        page.goto(served.url + f"t/{fake.table}")
    else:
        replay_answers(fake, public_state(g, fake.table, 5))
        page.goto(served.url + f"t/{fake.table}/history/g1")
    page.wait_for_function("document.querySelectorAll('svg#board g.pawn').length === 8")
    problems = []
    for width, height in ((360, 800), (390, 844), (1280, 800)):
        page.set_viewport_size({"width": width, "height": height})
        page.wait_for_function("(w) => Number(document.getElementById('board').dataset.drawnWidth) === "
                               "Math.round(document.getElementById('board').getBoundingClientRect().width)", arg=width)
        got = page.evaluate(MEASURE)
        assert len(got["pawns"]) == 8
        for p in got["pawns"]:
            who = f"{PLAYERS[int(p['seat'])]}'s {'girl' if p['pawn'] == '0' else 'boy'}"
            if not p["seen"]:
                problems.append(f"{width}px: {who} is drawn over at its centre by {p['under']}")
            for w in got["words"]:
                if overlap(w["box"], p["box"]):
                    problems.append(f"{width}px: the word {w['text']!r} touches {who}")
            if got["ghost"] and overlap(got["ghost"], p["box"]):
                problems.append(f"{width}px: the Headless Ghost touches {who}")
        assert {w["text"] for w in got["words"]} >= {"GATE", "CRYPT"}
    assert not problems, f"{case}, {where}:\n" + "\n".join(problems)
