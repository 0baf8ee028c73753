"""The board editor's routes: only for the control token, checked by the engines' loaders, saved as files."""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from controller.games.terror import load_board
from tests.support.broker import Broker
from tests.web_panel.support.browser import RAW_ID
from tests.web_panel.support.client import csrf_of, login
from tests.web_panel.support.fake_table import FakeTable
from web_panel import PanelSettings, create_app
from web_panel.boards_store import KINDS
from web_panel.mqtt import MqttView

DEFAULT_TERROR = json.loads(KINDS["terror-board"].default_file.read_text())


@pytest.fixture
def boards(tmp_path: Path) -> Path:
    return tmp_path / "boards"


@pytest.fixture
def app(mosquitto: Broker, token: str, fake: FakeTable, boards: Path) -> Iterator[Flask]:
    settings = PanelSettings(broker_port=mosquitto.port, token=token, listen_port=0, command_timeout=3.0,
                             boards_dir=str(boards))
    app = create_app({"PANEL_SETTINGS": settings, "TESTING": True})
    view: MqttView = app.extensions["gravekeeper"]
    assert view.wait_until(lambda: view.has_table(fake.table), 5)
    yield app
    view.close()


def _post(client: FlaskClient, url: str, csrf: str, body: Any) -> Any:
    data = body if isinstance(body, (bytes, str)) else json.dumps(body)
    return client.post(url, data=data, headers={"X-CSRF-Token": csrf, "Content-Type": "application/json"})


def _bushed() -> dict[str, Any]:
    doc = copy.deepcopy(DEFAULT_TERROR)
    doc["layout"][8] = doc["layout"][8][:3] + "#" + doc["layout"][8][4:]  # [8, 3]: grass -> bushes
    return doc


def test_spectators_cannot_open_or_save(client: FlaskClient, table_id: str) -> None:
    csrf = csrf_of(client, table_id)
    assert client.get(f"/t/{table_id}/boards").status_code == 403
    assert client.get(f"/api/t/{table_id}/boards/terror-board/default").status_code == 403
    r = _post(client, f"/api/t/{table_id}/boards/terror-board/mine", csrf, _bushed())
    assert r.status_code == 403 and "control token" in r.get_json()["error"]


def test_check_points_at_the_cell(client: FlaskClient, table_id: str, token: str) -> None:
    csrf = login(client, table_id, token)
    doc = copy.deepcopy(DEFAULT_TERROR)
    doc["platforms"][0]["spaces"][2]["end_a"] = "pit"  # [6, 4] is a pit where the tomb does not stand
    r = _post(client, f"/api/t/{table_id}/boards/terror-board/check", csrf, doc)
    assert r.status_code == 422
    body = r.get_json()
    assert body["at"] == {"cell": [6, 4],
                          "tombs": {"mummy": "end_a"}} and "only the cell under the tomb is a pit" in body["error"]
    assert _post(client, f"/api/t/{table_id}/boards/terror-board/check", csrf, _bushed()).get_json() == {"ok": True}


def test_save_export_import_round_trip(client: FlaskClient, table_id: str, token: str, boards: Path) -> None:
    csrf = login(client, table_id, token)
    r = _post(client, f"/api/t/{table_id}/boards/terror-board/My printing", csrf, _bushed())
    assert r.status_code == 200, r.get_json()
    saved = boards / "terror-board" / "My printing.json"
    assert load_board(saved).static[8 * 9 + 3] == "bush"  # the file plays as it is
    exported = client.get(f"/api/t/{table_id}/boards/terror-board/My printing?download=1")
    assert exported.status_code == 200
    assert "attachment" in exported.headers["Content-Disposition"]
    assert json.loads(exported.data) == _bushed()
    # Importing the exported file under another name gives the same data.
    r = _post(client, f"/api/t/{table_id}/boards/terror-board/Shared copy", csrf, exported.data)
    assert r.status_code == 200
    again = client.get(f"/api/t/{table_id}/boards/terror-board/Shared copy")
    assert json.loads(again.data) == json.loads(exported.data)
    listing = client.get(f"/api/t/{table_id}/boards").get_json()["kinds"]["terror-board"]["names"]
    assert listing == ["My printing", "Shared copy"]


@pytest.mark.parametrize(
    "body, reason",
    [
        (b"{not json", "not valid JSON"),
        (json.dumps({"layout": ["."], "platforms": []}), "exactly one gate cell"),
        (json.dumps(dict(DEFAULT_TERROR, layout=DEFAULT_TERROR["layout"][:-1] + ["S#g..#.p?"])), "layout[8][8]"),
    ],
)
def test_a_bad_import_names_the_entry_and_saves_nothing(client: FlaskClient, table_id: str, token: str,
                                                        boards: Path, body: Any, reason: str) -> None:
    csrf = login(client, table_id, token)
    r = _post(client, f"/api/t/{table_id}/boards/terror-board/bad", csrf, body)
    assert r.status_code == 422 and reason in r.get_json()["error"]
    assert not (boards / "terror-board" / "bad.json").exists()


def test_a_refused_save_keeps_the_good_file(client: FlaskClient, table_id: str, token: str, boards: Path) -> None:
    csrf = login(client, table_id, token)
    assert _post(client, f"/api/t/{table_id}/boards/terror-board/mine", csrf, _bushed()).status_code == 200
    before = (boards / "terror-board" / "mine.json").read_bytes()
    broken = _bushed()
    broken["platforms"][0]["spaces"][0]["end_a"] = "grass"
    assert _post(client, f"/api/t/{table_id}/boards/terror-board/mine", csrf, broken).status_code == 422
    assert (boards / "terror-board" / "mine.json").read_bytes() == before


@pytest.mark.parametrize("name", ["../escape", ".hidden", "default", "a/b", "x" * 49])
def test_names_are_never_paths(client: FlaskClient, table_id: str, token: str, boards: Path, name: str) -> None:
    csrf = login(client, table_id, token)
    r = _post(client, f"/api/t/{table_id}/boards/terror-board/{name}", csrf, _bushed())
    assert r.status_code in (404, 422)
    assert not any(p.is_file() for p in boards.parent.rglob("*.json"))


def test_new_game_options_carry_the_documents(client: FlaskClient, table_id: str, token: str) -> None:
    csrf = login(client, table_id, token)
    assert _post(client, f"/api/t/{table_id}/boards/terror-board/mine", csrf, _bushed()).status_code == 200
    r = client.get(f"/api/t/{table_id}/boards/options/terror?terror-board=mine")
    assert r.get_json() == {"ok": True, "options": {"board": _bushed()}}
    r = client.get(f"/api/t/{table_id}/boards/options/dogs?terror-board=mine")
    error = r.get_json()["error"]
    assert r.status_code == 422 and "is not for Graveyard Dogs: it belongs to Terror in the Graveyard" in error, error
    r = client.get(f"/api/t/{table_id}/boards/options/terror?terror-board=missing")
    assert r.status_code == 422 and "no saved" in r.get_json()["error"]


def test_without_a_boards_dir_nothing_is_saved(mosquitto: Broker, token: str, fake: FakeTable) -> None:
    settings = PanelSettings(broker_port=mosquitto.port, token=token, listen_port=0)
    app = create_app({"PANEL_SETTINGS": settings, "TESTING": True})
    view: MqttView = app.extensions["gravekeeper"]
    try:
        assert view.wait_until(lambda: view.has_table(fake.table), 5)
        client = app.test_client()
        csrf = login(client, fake.table, token)
        r = _post(client, f"/api/t/{fake.table}/boards/terror-board/mine", csrf, _bushed())
        assert r.status_code == 409 and "boards directory" in r.get_json()["error"]
        page = client.get(f"/t/{fake.table}/boards/terror-board/edit")
        assert page.status_code == 200 and b'data-can-save="no"' in page.data
        # The defaults are still there to start from and to check against.
        assert json.loads(client.get(f"/api/t/{fake.table}/boards/terror-board/default").data) == DEFAULT_TERROR
        assert client.get(f"/api/t/{fake.table}/boards").get_json()["kinds"]["terror-board"]["names"] == []
        r = client.get(f"/api/t/{fake.table}/boards/options/terror?terror-board=mine")
        assert r.status_code == 422 and "no boards directory" in r.get_json()["error"]
    finally:
        view.close()


def test_a_file_put_there_by_hand_is_read_only_if_sane(client: FlaskClient, table_id: str, token: str,
                                                       boards: Path) -> None:
    import os

    login(client, table_id, token)
    folder = boards / "terror-board"
    folder.mkdir(parents=True)
    (folder / "huge.json").write_bytes(b" " * (64 * 1024))
    os.mkfifo(folder / "pipe.json")  # reading it would block the panel for good
    r = client.get(f"/api/t/{table_id}/boards/terror-board/huge")
    assert r.status_code == 404 and "larger than 48 KiB" in r.get_json()["error"]
    r = client.get(f"/api/t/{table_id}/boards/terror-board/pipe")
    assert r.status_code == 404 and "not a regular file" in r.get_json()["error"]
    r = client.get(f"/api/t/{table_id}/boards/options/terror?terror-board=pipe")
    assert r.status_code == 422 and "not a regular file" in r.get_json()["error"]


def test_delete_removes_only_that_file(client: FlaskClient, table_id: str, token: str, boards: Path) -> None:
    csrf = login(client, table_id, token)
    for name in ("one", "two"):
        assert _post(client, f"/api/t/{table_id}/boards/terror-board/{name}", csrf, _bushed()).status_code == 200
    assert client.post(f"/api/t/{table_id}/boards/terror-board/one/delete").status_code == 403  # no CSRF token
    assert _post(client, f"/api/t/{table_id}/boards/terror-board/one/delete", csrf, {}).get_json() == {"ok": True}
    assert sorted(p.name for p in (boards / "terror-board").iterdir()) == ["two.json"]
    r = _post(client, f"/api/t/{table_id}/boards/terror-board/one/delete", csrf, {})
    assert r.status_code == 404 and "no saved" in r.get_json()["error"]
    r = _post(client, f"/api/t/{table_id}/boards/terror-board/default/delete", csrf, {})
    assert r.status_code == 404 and "kept for the board that comes with the game" in r.get_json()["error"]


def _every_case() -> list[Any]:
    from tests.controller.games.board_cases import ALL_CASES

    return [pytest.param(kind, case, id=f"{kind}: {case[0]}") for kind, cases in ALL_CASES.items() for case in cases]


def test_every_loader_check_reaches_the_editor_in_plain_words(client: FlaskClient, table_id: str, token: str,
                                                              boards: Path) -> None:
    """What the editor shows (``reason``) is plain words; ``error`` keeps the file's entry; nothing is saved."""
    from collections.abc import Mapping

    from tests.controller.games.board_cases import ALL_CASES, RAW

    csrf = login(client, table_id, token)
    seen = 0
    for kind, cases in ALL_CASES.items():
        for name, doc, entry_words, at in cases:
            r = _post(client, f"/api/t/{table_id}/boards/{kind}/check", csrf, doc)
            body = r.get_json()
            assert r.status_code == 422 and body["ok"] is False, (kind, name, body)
            assert body["reason"] and not RAW.search(body["reason"]), (kind, name, body["reason"])
            if isinstance(doc, Mapping):
                assert entry_words in body["error"], (kind, name, body["error"])
                if at is not None:
                    assert body["at"] == at, (kind, name, body["at"])
            saved = _post(client, f"/api/t/{table_id}/boards/{kind}/imported", csrf, doc)
            assert saved.status_code == 422 and saved.get_json()["reason"] == body["reason"], (kind, name)
            seen += 1
    assert not list(boards.rglob("*.json"))  # a refused import saves nothing
    assert seen == sum(len(c) for c in ALL_CASES.values()) > 90


def test_the_card_mix_editor_offers_every_card_the_engine_knows(client: FlaskClient, table_id: str,
                                                                token: str) -> None:
    import re

    from controller.games.terror.cards import EFFECT_KINDS

    login(client, table_id, token)
    page = client.get(f"/t/{table_id}/boards/terror-cards/edit?name=default").get_data(as_text=True)
    found = re.search(r'<script type="application/json" id="card-catalogue">(.*?)</script>', page, re.DOTALL)
    assert found, "the card mix page carries no catalogue"
    catalogue = json.loads(found.group(1))
    offered = {(e["card"]["effect"], e["card"]["kind"]) for e in catalogue}
    assert offered == {(effect, kind) for effect, kinds in EFFECT_KINDS.items() for kind in kinds}
    assert all(e["kind_name"] for e in catalogue)
    # Only the card mix page carries it.
    assert "card-catalogue" not in client.get(f"/t/{table_id}/boards/terror-board/edit").get_data(as_text=True)


@pytest.mark.parametrize("key", list(KINDS))
def test_every_kind_exports_and_imports_the_same_data(client: FlaskClient, table_id: str, token: str,
                                                      key: str) -> None:
    """Each kind of file: saved from an edit, exported, imported under another name, and the same again."""
    from tests.controller.games.board_cases import CARDS, SUPERSTITION, TERROR, TILES

    edited = copy.deepcopy({"terror-board": TERROR, "terror-cards": CARDS, "superstition-board": SUPERSTITION,
                            "dogs-tiles": TILES}[key])
    edited["name"] = "Ours, as printed"
    if key == "terror-cards":
        edited["cards"] = edited["cards"][:-3]  # three cards fewer
    csrf = login(client, table_id, token)
    assert _post(client, f"/api/t/{table_id}/boards/{key}/ours", csrf, edited).status_code == 200
    exported = client.get(f"/api/t/{table_id}/boards/{key}/ours?download=1")
    assert exported.status_code == 200 and json.loads(exported.data) == edited
    assert _post(client, f"/api/t/{table_id}/boards/{key}/theirs", csrf, exported.data).status_code == 200
    assert client.get(f"/api/t/{table_id}/boards/{key}/theirs").data == exported.data


def _default(key: str) -> Any:
    return json.loads(KINDS[key].default_file.read_text(encoding="utf-8"))


def _edited(key: str, edit: Any) -> Any:
    doc = _default(key)
    edit(doc)
    return doc


# Text a person reads on the table (a tile's name, a card's title and words, the file's name) has a
# length that fits where it is shown, and a type; each refusal says which tile or card, in words.
TOO_LONG_OR_WRONG = [
    ("dogs-tiles", lambda d: d["tiles"][1].update(name="Moon " * 200), "Tile 2", "too long"),
    ("terror-cards", lambda d: d["cards"][1].update(title="Wrapped " * 60), "The 2nd card", "too long"),
    ("terror-cards", lambda d: d["cards"][1].update(text="Old bandages. " * 200), "The 2nd card", "too long"),
    ("terror-cards", lambda d: d.update(name=5), "name", "text"),
    ("terror-cards", lambda d: d.update(name="Deck " * 100), "name", "too long"),
    ("terror-board", lambda d: d.update(name="Board " * 100), "name", "too long"),
    ("superstition-board", lambda d: d.update(name=["x"]), "name", "text"),
    ("superstition-board", lambda d: d.update(notes="n" * 5000), "notes", "too long"),
    ("dogs-tiles", lambda d: d.update(name=7), "name", "text"),
    # Players tell the tile to place by its name ("Tile to place: Pumpkin Patch"): two alike, or none, would not do.
    ("dogs-tiles", lambda d: d["tiles"][4].update(name=" pumpkin patch"), "Tile 5", "same name as tile 1"),
    ("dogs-tiles", lambda d: d["tiles"][1].update(name="  "), "Tile 2", "no name"),
]


@pytest.mark.parametrize(("key", "edit", "where", "what"), TOO_LONG_OR_WRONG)
def test_too_long_or_wrongly_typed_text_is_refused_in_words(client: FlaskClient, table_id: str, token: str,
                                                           boards: Path, key: str, edit: Any, where: str,
                                                           what: str) -> None:
    csrf = login(client, table_id, token)
    assert _post(client, f"/api/t/{table_id}/boards/{key}/mine", csrf, _default(key)).status_code == 200
    before = (boards / key / "mine.json").read_bytes()
    r = _post(client, f"/api/t/{table_id}/boards/{key}/mine", csrf, _edited(key, edit))
    body = r.get_json()
    assert r.status_code == 422, body
    assert where in body["reason"] and what in body["reason"], body["reason"]
    assert not RAW_ID.search(body["reason"]), body["reason"]
    assert (boards / key / "mine.json").read_bytes() == before  # the saved file is unchanged


def test_a_card_mix_too_large_to_start_a_game_is_refused_when_saved(client: FlaskClient, table_id: str,
                                                                    token: str, boards: Path) -> None:
    """Each card's words may be long, but the mix travels in the new-game command: it must fit there."""
    csrf = login(client, table_id, token)

    def wordy(d: Any) -> None:
        for card in d["cards"]:
            card["text"] = (card["text"] + " ") * 2  # twice the words: each card fine, the mix too big
    doc = _edited("terror-cards", wordy)
    r = _post(client, f"/api/t/{table_id}/boards/terror-cards/wordy", csrf, doc)
    body = r.get_json()
    assert r.status_code == 422, body
    assert "too large to start a game" in body["reason"] and "KiB" in body["reason"], body["reason"]
    assert not (boards / "terror-cards" / "wordy.json").exists()


def test_a_board_and_card_mix_too_large_together_are_refused_in_words(client: FlaskClient, table_id: str,
                                                                     token: str, boards: Path) -> None:
    csrf = login(client, table_id, token)

    def wordy(d: Any) -> None:
        for card in d["cards"]:
            card["text"] = card["text"] + " " + card["text"][:60]
    deck = _edited("terror-cards", wordy)
    assert _post(client, f"/api/t/{table_id}/boards/terror-cards/wordy", csrf, deck).status_code == 200
    board = _bushed()
    board["notes"] = "My own printing, bought at a fair. " * 20
    assert _post(client, f"/api/t/{table_id}/boards/terror-board/mine", csrf, board).status_code == 200
    r = client.get(f"/api/t/{table_id}/boards/options/terror?terror-board=mine&terror-cards=wordy")
    body = r.get_json()
    assert r.status_code == 422, body
    assert "together" in body["reason"] and "KiB" in body["reason"], body["reason"]
    # Each alone still starts a game.
    assert client.get(f"/api/t/{table_id}/boards/options/terror?terror-cards=wordy").status_code == 200


def test_a_huge_upload_is_refused_in_words_and_saves_nothing(client: FlaskClient, table_id: str, token: str,
                                                            boards: Path) -> None:
    csrf = login(client, table_id, token)
    huge = b'{"name": "' + b"x" * (200 * 1024) + b'"}'
    for url in (f"/api/t/{table_id}/boards/dogs-tiles/huge", f"/api/t/{table_id}/boards/dogs-tiles/check"):
        r = _post(client, url, csrf, huge)
        body = r.get_json()
        assert r.status_code in (413, 422), body
        assert "48 KiB" in body["reason"], body
    assert not (boards / "dogs-tiles" / "huge.json").exists()
    r = _post(client, f"/api/t/{table_id}/boards/dogs-tiles/notjson", csrf, b"PK\x03\x04 a zip file")
    assert r.status_code == 422 and "not" in r.get_json()["reason"]
    assert not (boards / "dogs-tiles" / "notjson.json").exists()
