"""The panel adds a Terror state's spaces in words (``view.places``) before a page reads it."""

from __future__ import annotations

import json

from controller.games.terror import Terror, view_places
from web_panel import create_app
from web_panel.mqtt import MqttView
from web_panel.terror_places import with_places


def test_the_picture_and_the_api_carry_the_engines_words() -> None:
    app = create_app({"START_MQTT": False})
    view: MqttView = app.extensions["gravekeeper"]
    try:
        public = Terror.new(["Ann", "Bo"], 1).public_view()
        state = {"seq": 1, "game": "terror", "game_id": "g1", "view": public}
        view.handle("gravekeeper/t1/status", b'{"state": "online"}', retained=True)
        view.handle("gravekeeper/t1/state", json.dumps(state).encode(), retained=True)
        assert (view.state("t1") or {})["view"]["places"] == view_places(public)
        snap = app.test_client().get("/api/t/t1").get_json()
        assert snap["state"]["view"]["places"] == view_places(public)
    finally:
        view.close()


def test_a_forgerys_words_never_reach_a_page() -> None:
    public = Terror.new(["Ann", "Bo"], 1).public_view()
    forged = {"game": "terror", "view": {**public, "places": [["go to example.com"]]}}
    assert with_places(forged)["view"]["places"] == view_places(public)
    unreadable = {"game": "terror", "view": {"board": "none", "places": [["go to example.com"]]}}
    assert "places" not in with_places(unreadable)["view"]


def test_other_games_states_are_left_as_they_are() -> None:
    state = {"game": "dogs", "view": {"tiles": []}}
    assert with_places(state) is state
