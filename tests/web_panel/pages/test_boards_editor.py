"""The board editor in Chromium, against a real ``gravekeeper run --simulate``: edit, save, play on it.

For each game: the default data is edited in the page into something else,
saved, chosen in the new-game form, and the game the table starts follows it
(Terror: a space painted into bushes is no longer a destination). Refusals
are shown at the cell. The pages fit a phone's width with 44 px targets.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from controller.games import Action, Game, get_game
from controller.games.terror import load_board
from controller.protocol.security import game_seed
from tests.controller.games.board_cases import RAW
from tests.support.broker import Broker
from tests.web_panel.support.browser import PAGE_WAIT_MS, check_phone_page, click_action, login, open_page, shot_of
from tests.web_panel.support.e2e_driver import clicks_for, step
from tests.web_panel.support.service_runner import RunningService, start_service
from web_panel.boards_store import KINDS

pytestmark = [pytest.mark.browser, pytest.mark.slow]

TABLET = {"width": 768, "height": 1024}
# Pictures of the editor land with the other test artifacts when asked for (browser.SHOTS); docs/img holds
# copies for docs/boards.md.

FITS = """() => {
  const wide = document.documentElement.scrollWidth > document.documentElement.clientWidth + 1;
  const small = [...document.querySelectorAll('.editor button, .editor a.big, .editor select, .editor input, ' +
                                              '#back-to-boards, #back-to-table')]
    .filter(e => e.offsetParent !== null)
    .map(e => e.getBoundingClientRect())
    .filter(r => r.width < 43.5 || r.height < 43.5).length;
  return {wide, small};
}"""


@pytest.fixture
def service(request: pytest.FixtureRequest, mosquitto: Broker, tmp_path: Path,
            table_id: str) -> Iterator[RunningService]:
    svc = start_service(mosquitto, tmp_path, table_id, "tok-boards", game=request.param)
    yield svc
    svc.stop()


@pytest.fixture
def page(chromium: Any) -> Iterator[Any]:
    errors: list[str] = []
    ctx = chromium.new_context(viewport=TABLET, bypass_csp=True)
    pg = ctx.new_page()
    pg.set_default_timeout(PAGE_WAIT_MS)
    pg.on("pageerror", lambda exc: errors.append(str(exc)))
    yield pg
    ctx.close()
    assert errors == [], f"the pages' scripts failed: {errors}"


def _snapshot(page: Any, svc: RunningService) -> dict[str, Any]:
    return page.evaluate("async (u) => (await fetch(u, {credentials: 'same-origin'})).json()",
                         f"{svc.panel_url}api/t/{svc.table}")


def _wait_state(page: Any, svc: RunningService, test: Any, what: str, timeout: float = 10.0) -> dict[str, Any]:
    import time
    deadline = time.monotonic() + timeout
    while True:
        state = (_snapshot(page, svc) or {}).get("state") or {}
        if test(state):
            return state
        if time.monotonic() > deadline:
            raise AssertionError(f"the table never showed {what}; last state: {json.dumps(state)[:400]}")
        page.wait_for_timeout(100)


def _verdict_ok(page: Any) -> None:
    page.wait_for_function("document.getElementById('verdict').className.includes('ok')")


def _plain(page: Any, note: str) -> str:
    """The refusal at the entry, checked to be plain words on the status line as well: no id, coordinate or key."""
    page.wait_for_function("document.getElementById('verdict').className.includes('err')")
    page.wait_for_selector(note)
    words = page.inner_text(note)
    verdict = page.inner_text("#verdict")
    for text in (words, verdict):
        assert not RAW.search(text), f"{text!r} shows {RAW.search(text).group(0)!r}"
    assert words in verdict, (words, verdict)
    return words


def _save(page: Any, name: str) -> None:
    page.fill("#save-name", name)
    page.click("#save")
    page.wait_for_function("document.getElementById('saved').className.includes('ok')")


def _new_game(page: Any, svc: RunningService, game: str, kind: str, name: str, seed: int) -> dict[str, Any]:
    old = (_snapshot(page, svc).get("state") or {}).get("game_id")
    open_page(page, f"{svc.panel_url}t/{svc.table}")
    page.wait_for_selector("#controls")
    page.click("#new-game-box summary")
    page.select_option("#ng-game", game)
    page.wait_for_selector(f"#ng-{kind} option[value='{name}']", state="attached")
    page.select_option(f"#ng-{kind}", name)
    page.fill("#ng-players", "Ann, Bo")
    page.fill("#ng-seed", str(seed))
    page.click("#ng-start")
    return _wait_state(page, svc, lambda s: s.get("game_id") not in (None, old) and s.get("game") == game,
                       "the new game")


def _destinations(game: Game) -> set[tuple[int, int]]:
    return {tuple(a.params["to"]) for a in game.legal_actions() if a.kind == "move_pawn"}


def _to_first_move(game: Game) -> list[Action]:
    """Roll, and slide a tomb when the die says so, until a pawn may move; the actions taken."""
    taken: list[Action] = []
    while not any(a.kind == "move_pawn" for a in game.legal_actions()) and len(taken) < 4:
        action = game.legal_actions()[0]
        game.apply(action)
        taken.append(action)
    return taken


def _terror_case(token: str) -> tuple[int, list[int], dict[str, Any], list[Action]]:
    """A seed whose first turn moves a pawn, and a grass space among its destinations that may become bushes."""
    base = json.loads(KINDS["terror-board"].default_file.read_text())
    cls = get_game("terror")
    for seed in range(200):
        game = cls.new(["Ann", "Bo"], game_seed(token, seed))
        taken = _to_first_move(game)
        for cell in sorted(_destinations(game)):
            r, c = cell
            if base["layout"][r][c] != ".":
                continue
            doc = copy.deepcopy(base)
            doc["layout"][r] = doc["layout"][r][:c] + "#" + doc["layout"][r][c + 1:]
            try:
                load_board(doc)
            except ValueError:
                continue
            return seed, [r, c], doc, taken
    raise AssertionError("no seed found whose first move could reach a grass space")


@pytest.mark.parametrize("service", ["terror"], indirect=True)
def test_terror_bushes_painted_in_the_editor_are_no_destination(page: Any, service: RunningService) -> None:
    svc = service
    seed, cell, expected, taken = _terror_case(svc.token)
    login(page, svc.panel_url, svc.table, svc.token)
    open_page(page, f"{svc.panel_url}t/{svc.table}/boards")
    page.click("#kind-terror-board a.big")  # start from the one that comes with the game
    page.wait_for_selector("#edit-board g.cell")
    _verdict_ok(page)

    # A refusal first: the Entrance's only way out painted into bushes leaves no way to the Crypt.
    page.click(".palette .pick[data-value='bush']")
    page.click("#edit-board g.cell[data-cell='6,0']")
    page.wait_for_function("document.getElementById('verdict').className.includes('err')")
    assert "no path leads from the Gate to the Crypt" in page.inner_text("#verdict")
    page.wait_for_selector("#edit-board rect.error-cell[data-cell='6,0']")  # the cut, where it was painted
    assert _plain(page, ".at-error").startswith("With the Mummy tomb at one end, the Monster tomb at one end")
    shot_of(page.locator(".editor"), "boards-terror-refused")
    page.click(".palette .pick[data-value='potion']")
    page.click("#edit-board g.cell[data-cell='6,0']")  # back as it was: a Magic Potion
    _verdict_ok(page)
    assert page.locator("#edit-board rect.error-cell").count() == 0

    # A platform space at one tomb position: a pit where the tomb does not stand is refused at that cell.
    page.click(".palette .pick[data-value='pit']")
    page.click("#edit-board g.cell[data-cell='7,3']")
    page.wait_for_selector("#edit-board rect.error-cell[data-cell='7,3']")
    assert _plain(page, ".at-error") == ("With the Mummy tomb at one end, this space is not under it: only the space "
                                         "under the tomb is a pit.")
    # A Danger space painted away from the pit with the Mummy tomb in the middle: the editor shows
    # the board with the Mummy in the middle, where the problem is, even when looking elsewhere.
    page.click(".palette .pick[data-value='arrow-red']")
    page.click("#edit-board g.cell[data-cell='7,3']")  # as it was
    _verdict_ok(page)
    page.select_option("select[data-tomb='mummy']", "middle")
    page.click(".palette .pick[data-value='danger']")
    page.click("#edit-board g.cell[data-cell='5,1']")
    page.wait_for_selector("#edit-board rect.error-cell[data-cell='5,1']")
    assert _plain(page, ".at-error") == ("With the Mummy tomb at the middle, this red Danger space is not next to the "
                                         "pit: a pawn can fall only into a pit beside it.")
    page.select_option("select[data-tomb='mummy']", "end_a")  # look elsewhere; the next check brings it back
    page.click(".palette .pick[data-value='potion']")
    page.click("#edit-board g.cell[data-cell='5,3']")  # end_a: potion, as it was; middle still wrong
    page.wait_for_function("document.querySelector(\"select[data-tomb='mummy']\").value === 'middle'")
    page.wait_for_selector("#edit-board rect.error-cell[data-cell='5,1']")
    page.click(".palette .pick[data-value='potion']")
    page.click("#edit-board g.cell[data-cell='5,1']")  # middle: potion, as it was
    _verdict_ok(page)
    page.select_option("select[data-tomb='mummy']", "end_a")

    page.click(".palette .pick[data-value='bush']")
    page.click(f"#edit-board g.cell[data-cell='{cell[0]},{cell[1]}']")
    _verdict_ok(page)
    assert page.get_attribute(f"#edit-board g.cell[data-cell='{cell[0]},{cell[1]}']", "data-type") == "bush"
    fits = page.evaluate(FITS)
    assert fits == {"wide": False, "small": 0}
    shot_of(page.locator(".editor"), "boards-terror-editor")
    _save(page, "Bushy")
    exported = page.evaluate("async (u) => (await fetch(u, {credentials: 'same-origin'})).json()",
                             f"{svc.panel_url}api/t/{svc.table}/boards/terror-board/Bushy")
    assert exported == expected

    _new_game(page, svc, "terror", "terror-board", "Bushy", seed)
    for action in taken:  # the same roll, and the same tomb slid, as the game on the saved board offline
        page.wait_for_function("document.querySelectorAll('button.act, svg#board g.tomb-spot.clickable').length > 0")
        if action.kind == "move_tomb":
            # The spot is small and under the tomb's cell: dispatched as the e2e driver does.
            page.dispatch_event(f'svg#board '
                                f'g.tomb-spot[data-tomb="{action.params["tomb"]}"][data-pos="{action.params["to"]}"]',
                                "click")
        else:
            assert click_action(page, action.to_json()), f"no button for {action.to_text()}"
        page.wait_for_timeout(50)
    state = _wait_state(page, svc, lambda s: any(a["kind"] == "move_pawn" for a in s.get("legal", [])),
                        "a pawn to move")
    on_table = {tuple(a["params"]["to"]) for a in state["legal"] if a["kind"] == "move_pawn"}
    offline = get_game("terror").new(["Ann", "Bo"], game_seed(svc.token, seed), {"board": expected})
    assert [a.to_json() for a in _to_first_move(offline)] == [a.to_json() for a in taken]
    assert tuple(cell) not in on_table
    assert on_table == _destinations(offline)
    default = get_game("terror").new(["Ann", "Bo"], game_seed(svc.token, seed))
    _to_first_move(default)
    assert tuple(cell) in _destinations(default)  # on the board that comes with the game, it was one


def _dogs_case(token: str) -> tuple[int, int, list[int], list[int], dict[str, Any], Action]:
    """A seed, the first tile drawn (its index in the file), its Jack-O-Lantern, and a dog square to move it to.

    The default tiles use every spook token's Gravestone, so the edit moves the Jack-O-Lantern instead.
    """
    from controller.games.dogs import parse_tiles

    base = json.loads(KINDS["dogs-tiles"].default_file.read_text())
    cls = get_game("dogs")
    for seed in range(100):
        game = cls.new(["Ann", "Bo"], game_seed(token, seed))
        place = next(a for a in game.legal_actions() if a.kind == "place_tile" and a.params["rotation"] == 0)
        game.apply(place)
        tile = game.public_view()["tiles"][0]
        index = next(i for i, t in enumerate(base["tiles"]) if t["id"] == tile["id"])
        grid0 = base["tiles"][index]["grid"]
        jack = next([r, row.index("J")] for r, row in enumerate(grid0) if "J" in row)
        for x, y in sorted(_dog_squares(game)):
            r, c = y - place.params["y"], x - place.params["x"]
            doc = copy.deepcopy(base)
            grid = doc["tiles"][index]["grid"]
            grid[jack[0]] = grid[jack[0]][:jack[1]] + "." + grid[jack[0]][jack[1] + 1:]
            grid[r] = grid[r][:c] + "J" + grid[r][c + 1:]
            try:
                parse_tiles(doc)
            except ValueError:
                continue
            return seed, index, jack, [r, c], doc, place
    raise AssertionError("no seed found whose first tile's Jack-O-Lantern may move onto a dog square")


def _dog_squares(game: Game) -> set[tuple[int, int]]:
    return {(a.params["x"], a.params["y"]) for a in game.legal_actions() if a.kind == "place_dog"}


@pytest.mark.parametrize("service", ["dogs"], indirect=True)
def test_dogs_a_jack_o_lantern_moved_on_a_tile_is_no_dog_start(page: Any, service: RunningService) -> None:
    svc = service
    seed, index, jack, square, expected, place = _dogs_case(svc.token)
    login(page, svc.panel_url, svc.table, svc.token)
    open_page(page, f"{svc.panel_url}t/{svc.table}/boards/dogs-tiles/edit?name=default")
    page.wait_for_selector(".tile .sq")
    _verdict_ok(page)
    tile = f".tile[data-tile='{index}']"
    old = f"{tile} .sq[data-square='{jack[0]},{jack[1]}']"
    page.click(old)  # Jack-O-Lantern -> Gravestone: a ninth Gravestone and no Jack-O-Lantern, refused at the tile
    assert "needs exactly one Jack-O-Lantern; it has 0." in _plain(page, f"{tile} .at-error")
    shot_of(page.locator(tile), "boards-dogs-refused")
    page.click(old)  # -> plain
    sq = f"{tile} .sq[data-square='{square[0]},{square[1]}']"
    page.click(sq)  # plain -> Jack-O-Lantern
    _verdict_ok(page)
    assert page.get_attribute(sq, "data-value") == "J"
    assert page.evaluate(FITS) == {"wide": False, "small": 0}
    _save(page, "Stony")
    exported = page.evaluate("async (u) => (await fetch(u, {credentials: 'same-origin'})).json()",
                             f"{svc.panel_url}api/t/{svc.table}/boards/dogs-tiles/Stony")
    assert exported == expected

    _new_game(page, svc, "dogs", "dogs-tiles", "Stony", seed)
    offline = get_game("dogs").new(["Ann", "Bo"], game_seed(svc.token, seed), {"tiles": expected})
    step(page, clicks_for(place), None)
    offline.apply(place)
    state = _wait_state(page, svc, lambda s: any(a["kind"] == "place_dog" for a in s.get("legal", [])),
                        "a dog to place")
    on_table = {(a["params"]["x"], a["params"]["y"]) for a in state["legal"] if a["kind"] == "place_dog"}
    lantern = (place.params["x"] + square[1], place.params["y"] + square[0])
    assert on_table == _dog_squares(offline)
    assert lantern not in on_table
    default = get_game("dogs").new(["Ann", "Bo"], game_seed(svc.token, seed))
    default.apply(place)
    assert lantern in _dog_squares(default)


@pytest.mark.parametrize("service", ["superstition"], indirect=True)
def test_superstition_a_shorter_brick_path_is_the_one_played(page: Any, service: RunningService) -> None:
    svc = service
    login(page, svc.panel_url, svc.table, svc.token)
    open_page(page, f"{svc.panel_url}t/{svc.table}/boards/superstition-board/edit?name=default")
    page.wait_for_selector("#sup-brick")
    _verdict_ok(page)
    # A way onto the Ladder from a space the path no longer has: refused beside that field.
    page.fill("#sup-ladder_in", "40")
    page.dispatch_event("#sup-ladder_in", "change")
    # No way onto the Ladder: said beside that field, in the field's own numbers.
    assert _plain(page, "#sup-ladder_in >> xpath=.. >> xpath=following-sibling::p[1]") == (
        "There is no way onto the Ladder: it is entered from a brick space the path does not have. "
        "It is brick space 40, past the end of the brick path, which has 32 spaces.")
    shot_of(page.locator(".editor"), "boards-superstition-refused")
    page.fill("#sup-ladder_in", "10")
    page.dispatch_event("#sup-ladder_in", "change")
    _verdict_ok(page)
    page.fill("#sup-brick", "28")
    page.dispatch_event("#sup-brick", "change")
    _verdict_ok(page)
    assert page.evaluate(FITS) == {"wide": False, "small": 0}
    _save(page, "Short path")
    doc = page.evaluate("async (u) => (await fetch(u, {credentials: 'same-origin'})).json()",
                        f"{svc.panel_url}api/t/{svc.table}/boards/superstition-board/Short path")
    assert len(doc["brick_path"]) == 28 and doc["platforms"]["ladder"]["brick_entrance"] == "b9"

    seed = 3
    _new_game(page, svc, "superstition", "superstition-board", "Short path", seed)
    open_page(page, f"{svc.panel_url}t/{svc.table}")
    page.wait_for_function("window.gkLive && window.gkLive.state && window.gkLive.state.game === 'superstition'")
    table_options = {"challenge": "sensors", "outcome_window_ms": 300}  # the table's referee config adds these
    offline = get_game("superstition").new(["Ann", "Bo"], game_seed(svc.token, seed), {"board": doc, **table_options})
    default = get_game("superstition").new(["Ann", "Bo"], game_seed(svc.token, seed), table_options)
    assert len(page.evaluate("window.gkLive.state.view.board.brick_path")) == 28
    for _ in range(8):  # the opening rolls, then moves round the 28 spaces: the page shows the engine's view
        legal = offline.legal_actions()
        action = legal[0]
        offline.apply(action)
        try:
            step(page, clicks_for(action), offline.public_view())
        except AssertionError as err:
            shown = page.evaluate("window.gkLive.state.view")
            want = offline.public_view()
            raise AssertionError({k: (shown.get(k), want.get(k)) for k in want if shown.get(k) != want.get(k)}) from err
    assert offline.public_view() != default.public_view()


@pytest.mark.parametrize("service", ["terror"], indirect=True)
def test_terror_card_mix_import_export_and_phone_widths(page: Any, service: RunningService, tmp_path: Path) -> None:
    svc = service
    login(page, svc.panel_url, svc.table, svc.token)
    open_page(page, f"{svc.panel_url}t/{svc.table}/boards/terror-cards/edit?name=default")
    page.wait_for_selector(".cards-mix input")
    _verdict_ok(page)
    first = page.locator(".cards-mix input").first
    card = first.get_attribute("data-card")
    count = int(first.input_value())
    first.fill("0")
    first.dispatch_event("change")
    page.wait_for_function(f"document.getElementById('deck-total').textContent.includes('{36 - count} of 36')")
    _verdict_ok(page)
    shot_of(page.locator(".editor"), "boards-terror-cards")
    _save(page, "Fewer monsters")
    exported = page.evaluate("async (u) => (await fetch(u, {credentials: 'same-origin'})).text()",
                             f"{svc.panel_url}api/t/{svc.table}/boards/terror-cards/Fewer monsters?download=1")
    assert len(json.loads(exported)["cards"]) == 36 - count
    assert all(c["id"] != card for c in json.loads(exported)["cards"])

    # Import: the exported file comes back the same; a bad one is refused with its entry named, nothing saved.
    shared = tmp_path / "shared.json"
    shared.write_text(exported)
    open_page(page, f"{svc.panel_url}t/{svc.table}/boards")
    form = "form.import[data-kind='terror-cards']"
    page.set_input_files(f"{form} input[type=file]", str(shared))
    page.fill(f"{form} input[name=name]", "From a friend")
    page.click(f"{form} button")
    page.wait_for_function(f"document.querySelector(\"{form} .reply\").className.includes('ok')")
    again = page.evaluate("async (u) => (await fetch(u, {credentials: 'same-origin'})).text()",
                          f"{svc.panel_url}api/t/{svc.table}/boards/terror-cards/From a friend")
    assert json.loads(again) == json.loads(exported)
    page.wait_for_selector("#kind-terror-cards a.saved[data-name='From a friend']")
    bad = json.loads(exported)
    bad["cards"][3]["effect"] = "explode"
    (tmp_path / "bad.json").write_text(json.dumps(bad))
    page.set_input_files(f"{form} input[type=file]", str(tmp_path / "bad.json"))
    page.fill(f"{form} input[name=name]", "Broken")
    page.click(f"{form} button")
    page.wait_for_function(f"document.querySelector(\"{form} .reply\").className.includes('err')")
    reply = page.inner_text(f"{form} .reply")
    # Plain words first, then the entry as the file names it: an imported file is mended by hand.
    title = bad["cards"][3]["title"]
    assert reply.startswith(f"Not imported, nothing was saved. The 4th card, “{title}”, does something the game "
                            "does not know. (In the file: ")
    assert "cards[3]" in reply and "effect 'explode'" in reply
    names = page.evaluate("async (u) => (await fetch(u, {credentials: 'same-origin'})).json()",
                          f"{svc.panel_url}api/t/{svc.table}/boards")["kinds"]["terror-cards"]["names"]
    assert names == ["Fewer monsters", "From a friend"]

    # Reopened, the saved mix still offers the card set to 0, and every card the engine knows besides.
    open_page(page, f"{svc.panel_url}t/{svc.table}/boards/terror-cards/edit?name=Fewer monsters")
    _verdict_ok(page)
    gone = page.locator(f".cards-mix input[data-card='{card}']")
    assert gone.input_value() == "0"
    gone.fill(str(count))
    gone.dispatch_event("change")
    quick = page.locator(".cards-mix input[data-card='steal-ring-anytime']")  # not in the box's default mix
    assert quick.input_value() == "0"
    quick.fill("1")
    quick.dispatch_event("change")
    page.wait_for_function("document.getElementById('deck-total').textContent.includes('37 of 36')")
    assert "err" in page.get_attribute("#deck-total", "class")  # over the box: not even sent for checking
    rings = page.locator(".cards-mix input[data-card='ring-1']")
    rings.fill(str(int(rings.input_value()) - 1))
    rings.dispatch_event("change")
    page.wait_for_function("document.getElementById('deck-total').textContent.includes('36 of 36')")
    _verdict_ok(page)
    _save(page, "Quick fingers")
    mix = page.evaluate("async (u) => (await fetch(u, {credentials: 'same-origin'})).json()",
                        f"{svc.panel_url}api/t/{svc.table}/boards/terror-cards/Quick fingers")["cards"]
    assert len(mix) == 36 and any(c["id"] == card for c in mix)
    assert [c["effect"] for c in mix if c["kind"] == "anytime" and c["effect"] == "steal_ring"] == ["steal_ring"]

    # The saved mixes are new games' decks.
    _new_game(page, svc, "terror", "terror-cards", "Fewer monsters", 1)
    state = _snapshot(page, svc)["state"]
    assert state["view"]["draw_count"] == 36 - count
    _new_game(page, svc, "terror", "terror-cards", "Quick fingers", 2)
    assert _snapshot(page, svc)["state"]["view"]["draw_count"] == 36

    # Every editor page, and the list, pass the phone checks at 360 and 390 px (44 px targets, no sideways
    # scroll, no id or coordinate in the text, no serious accessibility problem), and fit a tablet.
    for path in ("boards", "boards/terror-board/edit", "boards/terror-cards/edit",
                 "boards/superstition-board/edit", "boards/dogs-tiles/edit"):
        page.set_viewport_size(TABLET)
        open_page(page, f"{svc.panel_url}t/{svc.table}/{path}")
        if path != "boards":
            _verdict_ok(page)
        assert page.evaluate(FITS) == {"wide": False, "small": 0}, ("tablet", path)
        check_phone_page(page, path)


@pytest.mark.parametrize("service", ["dogs"], indirect=True)
def test_an_import_refused_for_its_size_or_its_words_is_said_in_words_on_a_phone(
        page: Any, service: RunningService, tmp_path: Path) -> None:
    """At 360 px, the refusal of a huge file or of a tile's name too long fits the screen and saves nothing."""
    svc = service
    login(page, svc.panel_url, svc.table, svc.token)
    page.set_viewport_size({"width": 360, "height": 740})
    open_page(page, f"{svc.panel_url}t/{svc.table}/boards")
    form = "form.import[data-kind='dogs-tiles']"
    huge = tmp_path / "huge.json"
    huge.write_bytes(b'{"name": "' + b"x" * (300 * 1024) + b'"}')
    tiles = json.loads(KINDS["dogs-tiles"].default_file.read_text(encoding="utf-8"))
    tiles["tiles"][1]["name"] = "Moonlit" * 150
    wordy = tmp_path / "wordy.json"
    wordy.write_text(json.dumps(tiles), encoding="utf-8")
    for path, said in ((huge, "larger than 48 KiB"), (wordy, "Tile 2 has a name that is too long")):
        page.set_input_files(f"{form} input[type=file]", str(path))
        page.fill(f"{form} input[name=name]", "From a friend")
        page.evaluate(f"document.querySelector(\"{form} .reply\").className = 'reply'")
        page.click(f"{form} button")
        page.wait_for_function(f"document.querySelector(\"{form} .reply\").className.includes('err')")
        reply = page.inner_text(f"{form} .reply")
        assert reply.startswith("Not imported, nothing was saved. ") and said in reply, reply
        assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth"), reply
    names = page.evaluate("async (u) => (await fetch(u, {credentials: 'same-origin'})).json()",
                          f"{svc.panel_url}api/t/{svc.table}/boards")["kinds"]["dogs-tiles"]["names"]
    assert names == []
