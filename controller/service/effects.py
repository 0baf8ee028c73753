"""A running table's effects and Home Assistant discovery, kept off the referee's path.

:class:`TableEffects` is told of every batch of events once the journal holds
it (``Referee.on_events``) and only queues it: an
:class:`~controller.effects.engine.EffectsPlayer` thread matches the events
against the game's pack, publishes the cues on ``gravekeeper/<t>/effects``,
plays light patterns on the Pi's outputs, and fires Home Assistant's device
triggers. Nothing here can delay a decision or lose an event: a full queue
drops the oldest batch of cues (counted in health), a failing output is
skipped.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Mapping
from typing import Any

from controller.effects.engine import Effects, EffectsPlayer, load_effects
from controller.mqtt.homeassistant import Discovery
from controller.mqtt.put_right import PutRightGate
from controller.service.context import TableContext

log = logging.getLogger(__name__)


class TableEffects:
    """The effects and Home Assistant discovery of ``table`` (started and closed with the service)."""

    def __init__(self, table: TableContext) -> None:
        self._table = table
        config = table.config
        self._enabled = config.effects.enabled
        self._packs: dict[str, Effects] = {}
        self._errors: dict[str, str] = {}
        self._lock = threading.Lock()
        self._announced: tuple[str | None, int] | None = None  # (game, connection) last announced on
        self._config: bytes | None = None  # the discovery config last announced
        # Someone else's discovery config, put right as the link's retained topics are: a flood gets a
        # few answers a second, and its last forgery is put right by the worker's next round (tick).
        self._config_gate: PutRightGate[str] = PutRightGate()
        # Anyone can publish "online" on Home Assistant's birth topic, or a config where discovery is
        # off: each was answered at once, so a flood of them became a flood of retained configs (or
        # removals) from the table. Answered a few times a second; the last one by the next tick.
        self._birth_gate: PutRightGate[str] = PutRightGate()
        self._removal_gate: PutRightGate[str] = PutRightGate()
        self.discovery: Discovery | None = None
        self.player: EffectsPlayer | None = None
        self._pending: list[dict[str, Any]] = []  # decided, not yet offered: see hand_over()

    # ----- lifecycle (the service's start and stop) --------------------------
    def start(self) -> None:
        table = self._table
        link = table.link
        assert link is not None and table.referee is not None
        ha = table.config.homeassistant
        self.discovery = Discovery(table.config.mqtt.base_topic, table.table, ha.prefix,
                                   lambda topic, data, retain: link.publish_now(topic, data, qos=1, retain=retain),
                                   name=table.config.table.name)
        if ha.discovery:
            link.listen(self.discovery.birth_topic, self._on_birth)
            # Home Assistant cannot check a signature: a forged config could point the table's
            # entities at anyone's topics. Ours is put back when someone else's lands there.
            link.listen(self.discovery.config_topic, self._on_config)
        else:
            # Discovery turned off: a config retained by an earlier run is removed, so the
            # entities go from Home Assistant too. Nothing is written where there is none.
            link.listen(self.discovery.config_topic, self._on_old_config)
        self.player = EffectsPlayer(
            table.table,
            effects=self._effects_now,
            players=self._players_now,
            publish=self._publish_cues,
            lights=self._light if table.hub is not None else None,
            also=self._moment if ha.discovery else None,
        )
        self.player.start()
        self._load_owner_packs()
        table.referee.on_events = self._on_events

    def close(self) -> None:
        referee = self._table.referee
        if referee is not None:
            referee.on_events = None
        if self.player is not None:
            self.player.close()

    # ----- on the decision path: keep only ---------------------------------------
    def _on_events(self, events: list[dict[str, Any]]) -> None:
        # Under the service's decision lock, between the commit and the publish: waking the
        # effects thread here would put it on the event's way to the broker (the interpreter
        # lock paho's thread needs to write it). The service's worker offers them with
        # hand_over() once paho has sent them.
        self._pending.extend(events)

    def hand_over(self) -> None:
        """Offer the events decided since the last call (the service's worker, under its decision lock)."""
        if self._pending:
            events, self._pending = self._pending, []
            if self.player is not None:
                self.player.offer(events)

    # ----- the effects thread ------------------------------------------------------
    def _game(self) -> str | None:
        return self._table.game_name

    def _players_now(self) -> list[str]:
        game = self._table.referee.game if self._table.referee is not None else None
        return list(getattr(game, "players", []) or [])

    def _load_owner_packs(self) -> None:
        """Read every configured pack now (before the first event): an owner sees a typo as the table starts.

        ``load_effects`` logs what is wrong with each; the error of the game in play shows in health.
        """
        if not self._enabled:
            return
        for game, path in self._table.config.effects.packs:
            effects = self._pack(game)
            if self._errors.get(game) is None:
                self._name_outputs_elsewhere(effects, path)

    def _pack(self, game: str) -> Effects:
        """The game's effects, read once (a broken pack: the built-in one, and its error noted)."""
        with self._lock:
            effects = self._packs.get(game)
            if effects is None:
                effects, error = load_effects(game, self._table.config.effects.pack_for(game))
                self._packs[game] = effects
                if error is not None:
                    self._errors[game] = error
            return effects

    def _name_outputs_elsewhere(self, effects: Effects, path: str) -> None:
        """One line for an owner's light cues that name no output of this Pi (a typo lights nothing)."""
        hub = self._table.hub
        have = set(hub.output_names) if hub is not None else set()
        missing = sorted(effects.pack.outputs - have)
        if missing:
            log.warning("effects pack %s: %s %s not an output of this Pi (%s under [hardware.outputs]); "
                        "%s cues go out on the effects topic only, for home automation",
                        path, ", ".join(repr(m) for m in missing), "is" if len(missing) == 1 else "are",
                        "it has " + (", ".join(sorted(have)) or "none"), "those" if len(missing) > 1 else "its")

    def _effects_now(self) -> Effects | None:
        game = self._game()
        if game is None:
            return None
        effects = self._pack(game)
        return effects if self._enabled else None

    def _publish_cues(self, body: dict[str, Any]) -> None:
        link = self._table.link
        if link is not None:
            link.publish_now(link.topics.effects, json.dumps(body, sort_keys=True).encode(), qos=0, sign=True)

    def _light(self, output: str, cue: Mapping[str, Any]) -> None:
        from hardware.patterns import Pattern

        hub = self._table.hub
        if hub is None or output not in hub.output_names:
            return  # a light of home automation, not of this Pi: the effects topic carries it
        pattern = Pattern(str(cue.get("pattern", "blink")), int(cue.get("ms", 1000)),
                          int(cue.get("period_ms", 400)), float(cue.get("level", 1.0)))
        hub.play_pattern(output, pattern, seed=hash((output, cue.get("ms"))) & 0xFFFF)

    def _moment(self, event: Mapping[str, Any]) -> None:
        if self.discovery is not None:
            self.discovery.moment(event)

    # ----- Home Assistant ----------------------------------------------------------
    def tick(self) -> None:
        """The worker, every round: announce discovery once per connection and per game."""
        link = self._table.link
        if self.discovery is None or link is None:
            return
        if not self._table.config.homeassistant.discovery:
            self._remove_old_config()  # a flood's last config, left for this round
            return
        key = (self._game(), int(link.health()["connects"]))
        self._put_config_right()  # a flood's last forgery, left for this round
        self._answer_birth()  # a flood's last birth message, likewise
        if key == self._announced or not link.connected:
            return
        config = self.discovery.config(key[0])
        # Known as ours before it goes out: its echo must not look like someone else's (_on_config).
        previous, self._config = self._config, config
        if self.discovery.publish_config(config):
            self._announced = key
        else:
            self._config = previous

    def _on_birth(self, payload: bytes, retained: bool) -> None:
        # paho's thread: Home Assistant (re)started and forgot what it was told
        if payload.strip() == b"online":
            self._birth_gate.forged("birth")
            self._answer_birth()

    def _answer_birth(self) -> None:
        """Publish the discovery config again for a birth message, if one waits and it is not too soon."""
        config, discovery = self._config, self.discovery
        if config is not None and discovery is not None and self._birth_gate.due(time.monotonic()):
            discovery.publish_config(config)

    def _on_config(self, payload: bytes, retained: bool) -> None:
        # paho's thread: our own config comes back as it is; anything else is someone else's
        config = self._config
        if config is None or payload == config or self.discovery is None:
            return
        self._config_gate.forged("config")
        self._put_config_right()

    def _put_config_right(self) -> None:
        """Publish our discovery config again if someone else's was seen and it is not too soon (any thread)."""
        config, discovery = self._config, self.discovery
        if config is not None and discovery is not None and self._config_gate.due(time.monotonic()):
            discovery.publish_config(config)

    def _on_old_config(self, payload: bytes, retained: bool) -> None:
        if payload and self.discovery is not None:
            self._removal_gate.forged("config")
            self._remove_old_config()

    def _remove_old_config(self) -> None:
        if self.discovery is not None and self._removal_gate.due(time.monotonic()):
            self.discovery.remove()

    @property
    def config_restored(self) -> int:
        """How many times someone else's discovery config was put right."""
        return self._config_gate.restored

    def health(self) -> dict[str, Any]:
        counters = dict(self.player.counters) if self.player is not None else {}
        faults = self.player.faults if self.player is not None else []
        return {"enabled": self._enabled, "error": self._errors.get(self._game() or ""), **counters,
                "faults": faults,  # what is failing now (an output, Home Assistant), each logged once
                "discovery_restored": self.config_restored}  # someone else's discovery config, put right
