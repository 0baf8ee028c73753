"""Home Assistant MQTT discovery for one table (opt-in: ``homeassistant.discovery = true``).

One device per table, announced with Home Assistant's device-based discovery
on ``<prefix>/device/gravekeeper_<table>/config`` (retained): the ``dev`` and
``o`` (origin) maps, shared availability from the table's own ``status`` topic
(whose last will says offline), and one component per entity in ``cmps``:

- the table online (connectivity), the game, whose turn, what the referee waits for;
- each tomb's position and the Headless Ghost (Terror), each trap sprung or cocked
  (Superstition): never which peg is live;
- a problem sensor for a mismatch;
- an ``event`` entity carrying the game's events, with their types listed;
- device triggers for the main moments on ``gravekeeper/<t>/moment``.

The entities read the retained ``summary`` topic (``controller.service.summary``),
which is in plain words and holds no secret. Discovery is published again
whenever Home Assistant's birth message (``<prefix>/status`` = ``online``)
arrives, and an empty retained config removes the device when discovery is
turned off.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

from controller import __version__
from controller.games import game_title

# The main moments, as device triggers: (trigger subtype, event type, fields that must match)
MOMENTS: tuple[tuple[str, str, Mapping[str, Any]], ...] = (
    ("ghost_destroyed", "skull_hit", {}),
    ("pawn_fell", "pawn_fell", {}),
    ("trap_zapped", "challenge_resolved", {"zapped": True}),
    ("game_won", "game_won", {}),
    ("game_won", "won", {}),
    ("game_won", "game_over", {}),
    ("your_turn", "turn_started", {}),
    ("mismatch", "mismatch", {}),
)
GAME_EVENTS = {  # every event type each engine emits (a test keeps this complete)
    "terror": (
        "card_drawn", "card_played", "cured", "deck_empty", "extra_turn", "game_over", "game_won",
        "monster_discarded", "monster_placed", "monster_reversed", "no_draw", "paralysed", "pawn_fell", "pawn_moved",
        "pawns_switched", "player_out", "reshuffled", "ring_stolen", "rolled", "skull_attempt", "skull_hit",
        "skull_missed", "skull_void", "steal_failed", "tomb_moved", "turn_ended", "turn_started",
    ),
    "superstition": (
        "challenge_begins", "challenge_resolved", "draw_due", "drew_tokens", "first_player", "jumped_tomb",
        "landed_on_whammy", "moved", "opening_roll", "opening_tie", "peg_pulled", "rolled", "second_throw",
        "traded_places", "trap_reset", "turn_passed", "turn_started", "whammy_moved", "whammy_placed", "won",
    ),
    "dogs": (
        "attack_declined", "attacked", "bat_robbed", "bork_penalty", "borked", "concern", "dice_rolled",
        "die_chosen", "dog_fled", "dog_moved", "dog_placed", "game_over", "haunt_missed", "haunt_refused", "haunted",
        "snack_collected", "snack_placed", "special_skipped", "spook_action_skipped", "spook_moved",
        "spook_picked", "spook_placed", "step_back", "tile_drawn", "tile_placed", "turn_started", "wrestled",
    ),
}
COMMON_EVENTS = ("game_started", "mismatch", "mismatch_cleared",
                 # the game master's (controller/referee/gm.py): every game has them
                 "undone", "undo_requested", "undo_declined", "paused", "resumed", "corrected")


def moment_for(event: Mapping[str, Any]) -> str | None:
    """The device-trigger subtype an event fires, if any."""
    data = event.get("data") or {}
    for subtype, event_type, where in MOMENTS:
        if event.get("type") == event_type and all(data.get(k) == v for k, v in where.items()):
            return subtype
    return None


class Discovery:
    """Builds and publishes one table's discovery config through the table's MQTT link."""

    def __init__(self, base_topic: str, table: str, prefix: str,
                 publish: Callable[[str, bytes, bool], bool], name: str | None = None) -> None:
        self.base = f"{base_topic}/{table}"
        self.table = table
        # What people call the table ("Kitchen table"): Home Assistant shows the device by this name.
        self.name = name or table
        self.prefix = prefix
        self.node = "gravekeeper_" + "".join(c if c.isalnum() else "_" for c in table)
        self._publish = publish

    @property
    def config_topic(self) -> str:
        return f"{self.prefix}/device/{self.node}/config"

    @property
    def birth_topic(self) -> str:
        return f"{self.prefix}/status"

    @property
    def summary_topic(self) -> str:
        return f"{self.base}/summary"

    @property
    def moment_topic(self) -> str:
        return f"{self.base}/moment"

    def payload(self, game: str | None) -> dict[str, Any]:
        uid = self.node
        summary = self.summary_topic

        def sensor(key: str, name: str, template: str, icon: str) -> dict[str, Any]:
            return {"p": "sensor", "name": name, "unique_id": f"{uid}_{key}", "state_topic": summary,
                    "value_template": template, "icon": icon}

        cmps: dict[str, dict[str, Any]] = {
            "online": {"p": "binary_sensor", "name": "Online", "unique_id": f"{uid}_online",
                       "device_class": "connectivity", "state_topic": f"{self.base}/status",
                       "value_template": "{{ value_json.state }}", "payload_on": "online",
                       "payload_off": "offline", "entity_category": "diagnostic"},
            "game": sensor("game", "Game", "{{ value_json.title }}", "mdi:cards-playing"),
            "turn": sensor("turn", "Whose turn", "{{ value_json.turn }}", "mdi:account-arrow-right"),
            "waiting": sensor("waiting", "Waiting for", "{{ value_json.waiting_for }}", "mdi:timer-sand"),
            "mismatch": {"p": "binary_sensor", "name": "Board mismatch", "unique_id": f"{uid}_mismatch",
                         "device_class": "problem", "state_topic": summary,
                         "value_template": "{{ 'ON' if value_json.mismatch else 'OFF' }}",
                         "json_attributes_topic": summary,
                         "json_attributes_template": "{{ {'what': value_json.mismatch_text} | tojson }}"},
            "events": {"p": "event", "name": "Game events", "unique_id": f"{uid}_events",
                       "state_topic": f"{self.base}/events",
                       "event_types": sorted(set(GAME_EVENTS.get(game or "", ())) | set(COMMON_EVENTS)),
                       "value_template": "{{ {'event_type': value_json.type} | tojson }}"},
        }
        if game == "terror":
            for tomb in ("mummy", "monster", "wolf"):
                cmps[f"tomb_{tomb}"] = sensor(f"tomb_{tomb}", f"{tomb.title()} tomb",
                                              f"{{{{ value_json.tomb_{tomb} }}}}", "mdi:grave-stone")
            cmps["ghost"] = sensor("ghost", "Headless Ghost", "{{ value_json.ghost }}", "mdi:ghost")
        elif game == "superstition":
            names = {"ladder": "Ladder", "mirror": "Mirror", "grave1": "First Grave", "grave2": "Second Grave"}
            for trap, name in names.items():
                cmps[f"trap_{trap}"] = sensor(f"trap_{trap}", f"{name} trap",
                                              f"{{{{ value_json.trap_{trap} }}}}", "mdi:mouse-trap")
        for subtype in dict.fromkeys(m[0] for m in MOMENTS):
            cmps[f"trigger_{subtype}"] = {"p": "device_automation", "automation_type": "trigger",
                                          "topic": self.moment_topic, "type": "game_moment",
                                          "subtype": subtype, "payload": subtype}
        return {
            "dev": {"ids": [uid], "name": self.name, "mf": "gravekeeper",
                    "mdl": game_title(game or "", "Game table"), "sw": __version__},
            "o": {"name": "gravekeeper", "sw": __version__},
            "availability": [{"topic": f"{self.base}/status", "value_template": "{{ value_json.state }}"}],
            "payload_available": "online",
            "payload_not_available": "offline",
            "qos": 1,
            "cmps": cmps,
        }

    def config(self, game: str | None) -> bytes:
        return json.dumps(self.payload(game), sort_keys=True).encode()

    def publish_config(self, config: bytes) -> bool:
        return self._publish(self.config_topic, config, True)

    def remove(self) -> bool:
        """An empty retained config: Home Assistant removes the device and its entities."""
        return self._publish(self.config_topic, b"", True)

    def moment(self, event: Mapping[str, Any]) -> bool:
        subtype = moment_for(event)
        return subtype is not None and self._publish(self.moment_topic, subtype.encode(), False)
