"""The controller's configuration: one TOML file, a default for every key.

Every key is declared once in :data:`KEYS` (type, default, check, meaning);
loading, validation and ``docs/config.md`` all follow that table. A bad key or
value raises :class:`ConfigError` whose one-line message starts with the dotted
key, e.g. ``mqtt.port: must be an integer 1-65535, got 'x'``; the CLI prints it
and exits with status 2.

The ``[hardware]`` section belongs to the sensor layer and is validated by
``hardware.config.load_hardware_config``, imported only when a config is loaded
so that the controller does not pull in gpiozero to print ``--help``.
"""

from __future__ import annotations

import os
import re
import stat
import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from controller.games import GAME_NAMES
from controller.protocol.broker_url import (
    PLAIN_PORT,
    TLS_PORT,
    BrokerUrl,
    check_broker_url,
    parse_broker_url,
)
from controller.protocol.names import check_name, check_table_id, default_name
from controller.protocol.payloads import check_players
from gravekeeper.errors import GravekeeperError


class ConfigError(GravekeeperError, ValueError):
    """A bad config key or value; the message is one line that names the key."""


@dataclass(frozen=True)
class MqttConfig:
    url: str | None
    host: str
    port: int
    base_topic: str
    username: str | None
    password: str | None
    tls: bool
    ca_file: str | None
    client_id: str | None
    keepalive: int


@dataclass(frozen=True)
class TableConfig:
    id: str
    token: str
    game: str
    players: tuple[str, ...]
    seed: int | None
    token_generated: bool = False  # True when no token was configured: `run` must print it
    token_file: str | None = None  # where a generated token is kept (beside the journal)
    token_kept: bool = False  # the generated token was read from token_file (False: made now, not yet kept)
    reveal_hands: bool = False  # history shows the hands of finished games (docs/referee.md)
    name: str = ""  # what people read: table.name, or one made from the id (load_config fills it)


@dataclass(frozen=True)
class JournalConfig:
    path: str


# Seconds the panel may serve no page before it is stopped (``gravekeeper run``: started again), and the bounds
# a config or ``gravekeeper panel --hang-timeout`` may set.
PANEL_HANG_TIMEOUT_S = 30
PANEL_HANG_TIMEOUT_RANGE = (2, 3600)


@dataclass(frozen=True)
class PanelConfig:
    enabled: bool
    host: str
    port: int
    public_names: tuple[str, ...] = ()  # names the panel answers to besides its own (docs/panel.md)
    hang_timeout: int = PANEL_HANG_TIMEOUT_S  # seconds serving no page before ``gravekeeper run`` starts it again


@dataclass(frozen=True)
class RefereeConfig:
    board: str  # "sensors" | "manual"
    tomb_grace_ms: int
    skull_window_ms: int
    trap_window_ms: int
    mismatch_grace_ms: int


@dataclass(frozen=True)
class EffectsConfig:
    enabled: bool = True
    packs: tuple[tuple[str, str], ...] = ()  # (game, path of the owner's pack); a game not named plays its default

    def pack_for(self, game: str) -> str | None:
        return dict(self.packs).get(game)


@dataclass(frozen=True)
class HomeAssistantConfig:
    discovery: bool = False
    prefix: str = "homeassistant"


@dataclass(frozen=True)
class Config:
    table: TableConfig
    mqtt: MqttConfig
    journal: JournalConfig
    panel: PanelConfig
    referee: RefereeConfig
    hardware: Any  # hardware.config.HardwareConfig
    simulate: bool
    effects: EffectsConfig = EffectsConfig()
    homeassistant: HomeAssistantConfig = HomeAssistantConfig()


# ----- checks -----------------------------------------------------------------
Check = Callable[[Any], str | None]  # returns the complaint, or None when the value is fine


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _int_range(lo: int, hi: int) -> Check:
    def check(v: Any) -> str | None:
        return None if _is_int(v) and lo <= v <= hi else f"must be an integer {lo}-{hi}"

    return check


def _bool(v: Any) -> str | None:
    return None if isinstance(v, bool) else "must be true or false"


def _text(v: Any) -> str | None:
    return None if isinstance(v, str) else "must be a string"


def _nonempty(v: Any) -> str | None:
    return None if isinstance(v, str) and v.strip() else "must be a non-empty string"


def _opt_text(v: Any) -> str | None:
    return None if v is None or isinstance(v, str) else "must be a string"


def _table_name(v: Any) -> str | None:
    return None if v is None else check_name(v)


def _base_topic(v: Any) -> str | None:
    if not isinstance(v, str) or not v or v.startswith("/") or v.endswith("/"):
        return "must be a topic like 'gravekeeper' (no leading or trailing '/')"
    if any(c in v for c in "+#\0"):
        return "must not contain the MQTT wildcards '+' or '#'"
    return None


def _game(v: Any) -> str | None:
    return None if v in GAME_NAMES else f"must be one of {', '.join(GAME_NAMES)}"


def _seed(v: Any) -> str | None:
    return None if v is None or (_is_int(v) and 0 <= v < 2**63) else "must be an integer 0 or more"


def _board(v: Any) -> str | None:
    return None if v in ("sensors", "manual") else "must be 'sensors' or 'manual'"


def _mqtt_url(v: Any) -> str | None:
    return None if v is None else check_broker_url(v)


# key -> (default, check, meaning).  Order is the order of docs/config.md.
KEYS: dict[str, tuple[Any, Check, str]] = {
    "table.id": ("t1", check_table_id, "Table id; part of every MQTT topic (`<base>/<id>/...`)."),
    "table.name": (
        None,
        _table_name,
        "What people read for this table on every page; unset: made from the id (`t1`: \"Table 1\").",
    ),
    "table.token": (
        "",
        _text,
        (
            "Control token: signs commands and seals private views. Empty: a random one is made by the "
            "first `gravekeeper run`, kept beside the journal (`<journal>.token`, mode 0600) and printed "
            "at each start; `gravekeeper run --new-token` replaces it."
        ),
    ),
    "table.game": ("terror", _game, "Game started when the journal holds none: terror, superstition or dogs."),
    "table.players": (["Player 1", "Player 2"], check_players, "Seat names of that first game, in seat order."),
    "table.seed": (None, _seed, "Seed of that first game; unset: a random seed (kept in the journal)."),
    "table.reveal_hands": (
        False,
        _bool,
        "History: replays of finished games show every player's hand (never a game still running).",
    ),
    "mqtt.url": (
        None,
        _mqtt_url,
        (
            "Broker URL (`mqtt://user:pass@host:1883`, `mqtts://` for TLS). Unset, with no host or "
            "port either: `run` uses a broker already answering on 127.0.0.1:1883, or starts its own."
        ),
    ),
    "mqtt.host": ("127.0.0.1", _nonempty, "Broker host, when no URL is given."),
    "mqtt.port": (1883, _int_range(1, 65535), "Broker port, when no URL is given."),
    "mqtt.base_topic": ("gravekeeper", _base_topic, "First level of every topic."),
    "mqtt.username": (None, _opt_text, "Broker user name (optional)."),
    "mqtt.password": (None, _opt_text, "Broker password (optional)."),
    "mqtt.tls": (False, _bool, "Use TLS (also implied by an `mqtts://` URL)."),
    "mqtt.ca_file": (None, _opt_text, "CA certificate file for TLS; unset: the system's CAs."),
    "mqtt.client_id": (None, _opt_text, "MQTT client id; unset: `gravekeeper-<table id>`."),
    "mqtt.keepalive": (30, _int_range(5, 3600), "MQTT keepalive in seconds (also how fast the last will fires)."),
    "journal.path": (
        "",
        _text,
        (
            "SQLite journal file. Empty: `$XDG_STATE_HOME/gravekeeper/<table id>.journal` "
            "(`~/.local/state/gravekeeper/...`)."
        ),
    ),
    "panel.enabled": (True, _bool, "Start the web panel with `gravekeeper run`."),
    "panel.host": (
        "0.0.0.0",
        _nonempty,
        "Panel address: `0.0.0.0` (every interface) lets players' phones reach it; `127.0.0.1`: this machine only.",
    ),
    "panel.port": (8080, _int_range(1, 65535), "Panel port."),
    "panel.public_names": (
        "",
        _text,
        "Other names the panel is opened by, comma-separated (`games.example.org`); its own are always answered.",
    ),
    "panel.hang_timeout": (
        PANEL_HANG_TIMEOUT_S,
        _int_range(*PANEL_HANG_TIMEOUT_RANGE),
        "Seconds the panel may serve no page (hung: a deadlock, a stopped process) before `gravekeeper run` "
        "kills it and starts it again.",
    ),
    "referee.board": (
        "sensors",
        _board,
        "`sensors`: the sensed board drives the game; `manual`: no sensors, every move is a command.",
    ),
    "referee.tomb_grace_ms": (
        2000,
        _int_range(0, 60000),
        "How long a tomb may sit between positions (`moving`) before it is a mismatch.",
    ),
    "referee.skull_window_ms": (
        8000,
        _int_range(100, 120000),
        "After a skull attempt: how long to wait for the Headless Ghost to fly before it counts as a miss.",
    ),
    "referee.trap_window_ms": (
        2000,
        _int_range(100, 60000),
        "After a peg is pulled: how long the trap has to spring (zapped) before it counts as sneaked by.",
    ),
    "referee.mismatch_grace_ms": (
        300,
        _int_range(0, 10000),
        "How long an unexpected reading may last before it is reported (sensors settle in any order).",
    ),
    "effects.enabled": (True, _bool, "Play sound, speech, light and vibration cues on game events (docs/effects.md)."),
    "effects.terror": (None, _opt_text, "Your own effects pack for Terror in the Graveyard; unset: the shipped one."),
    "effects.superstition": (None, _opt_text, "Your own effects pack for Superstition; unset: the shipped one."),
    "effects.dogs": (None, _opt_text, "Your own effects pack for the graveyard dogs; unset: the shipped one."),
    "homeassistant.discovery": (
        False, _bool, "Announce the table to Home Assistant by MQTT discovery (docs/home-assistant.md).",
    ),
    "homeassistant.prefix": ("homeassistant", _base_topic, "Home Assistant's discovery prefix."),
    "simulate": (False, _bool, "Use simulated sensors instead of GPIO and the MCU."),
}

_SECTIONS = {"table", "mqtt", "journal", "panel", "referee", "hardware", "effects", "homeassistant"}
_SECRET_KEYS = {"table.token", "mqtt.password"}  # never echoed in an error: it may be printed or logged


def _flatten(data: Mapping[str, Any]) -> dict[str, Any]:
    flat: dict[str, Any] = {}
    for key, value in data.items():
        if key == "hardware":
            continue
        if key in _SECTIONS:
            if not isinstance(value, Mapping):
                raise ConfigError(f"{key}: must be a table ([{key}])")
            for sub, sub_value in value.items():
                flat[f"{key}.{sub}"] = sub_value
        else:
            flat[key] = value
    return flat


def _describe(v: Any) -> str:
    text = repr(v)
    return text if len(text) <= 60 else text[:57] + "..."


def _default_journal_path(table_id: str) -> str:
    state = os.environ.get("XDG_STATE_HOME") or os.path.join(os.path.expanduser("~"), ".local", "state")
    return os.path.join(state, "gravekeeper", f"{table_id}.journal")


def _mqtt(values: Mapping[str, Any], explicit: set[str]) -> MqttConfig:
    url = values["mqtt.url"]
    host, port, tls = values["mqtt.host"], values["mqtt.port"], values["mqtt.tls"]
    username, password = values["mqtt.username"], values["mqtt.password"]
    if url is not None:
        broker = parse_broker_url(url)  # checked already (``_mqtt_url``)
        tls = tls or broker.tls
        host = broker.host
        port = broker.port if broker.port_given else (TLS_PORT if tls else PLAIN_PORT)
        if broker.username:
            username = broker.username
        if broker.password:
            password = broker.password
    elif explicit & {"mqtt.host", "mqtt.port"}:
        # A host or port in the config is a configured broker: give it a URL so that
        # "url is None" keeps meaning "nothing configured, embedded broker allowed".
        url = str(BrokerUrl(host, port, tls))
    if password is not None and not username:  # an empty name would send no credentials at all
        raise ConfigError("mqtt.password: needs mqtt.username too")
    ca_file = values["mqtt.ca_file"]
    if ca_file is not None:
        # Checked here, not at connect time, so a typo is one clear line before anything starts.
        if Path(ca_file).is_dir():
            raise ConfigError(f"mqtt.ca_file: is a folder, not a certificate file: {ca_file}")
        if not Path(ca_file).is_file():
            raise ConfigError(f"mqtt.ca_file: no such file: {ca_file}")
        if not os.access(ca_file, os.R_OK):
            raise ConfigError(f"mqtt.ca_file: not readable: {ca_file}")
    return MqttConfig(
        url=url,
        host=host,
        port=port,
        base_topic=values["mqtt.base_topic"],
        username=username,
        password=password,
        tls=tls,
        ca_file=values["mqtt.ca_file"],
        client_id=values["mqtt.client_id"],
        keepalive=values["mqtt.keepalive"],
    )


def _hardware(section: Any) -> Any:
    if not isinstance(section, Mapping):
        raise ConfigError("hardware: must be a table ([hardware])")
    from hardware.config import load_hardware_config  # lazy: gpiozero is heavy

    try:
        return load_hardware_config(section)
    except ConfigError:
        raise
    except ValueError as exc:
        message = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise ConfigError(message if message.startswith("hardware") else f"hardware.{message}") from None


MAX_CONFIG_BYTES = 1 << 20  # a real config is a few hundred bytes


def _read_config(path: str | Path) -> bytes:
    """The bytes of a config file: a regular file of at most ``MAX_CONFIG_BYTES``, else ConfigError.

    Opened without blocking and checked on the open descriptor: a FIFO would
    otherwise hang the start with no output, and ``/dev/zero`` would be read
    until the memory ran out.
    """
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    try:
        info = os.fstat(fd)
        if stat.S_ISDIR(info.st_mode):
            raise ConfigError(f"config: cannot read {path}: Is a directory")  # as open() words it
        if not stat.S_ISREG(info.st_mode):
            raise ConfigError(f"config: cannot read {path}: it is not a regular file")
        with os.fdopen(os.dup(fd), "rb") as fh:
            raw = fh.read(MAX_CONFIG_BYTES + 1)  # it may have grown since the fstat
    finally:
        os.close(fd)
    if info.st_size > MAX_CONFIG_BYTES or len(raw) > MAX_CONFIG_BYTES:
        raise ConfigError(f"config: cannot read {path}: it is larger than {MAX_CONFIG_BYTES // 1024} KiB")
    return raw


def load_config(path: str | Path | None = None, *, overrides: Mapping[str, Any] | None = None) -> Config:
    """Read ``path`` (or only defaults), apply CLI ``overrides`` and validate everything.

    Overrides are dotted keys (``{"table.id": "t2", "simulate": True}``); a ``None``
    value means "not given" so the CLI can pass its options straight through.
    """
    data: dict[str, Any] = {}
    if path is not None:
        try:
            data = tomllib.loads(_read_config(path).decode("utf-8"))
        except FileNotFoundError:
            raise ConfigError(f"config: file not found: {path}") from None
        except OSError as exc:
            raise ConfigError(f"config: cannot read {path}: {exc.strerror}") from None
        except tomllib.TOMLDecodeError as exc:
            raise ConfigError(f"config: {path} is not valid TOML: {exc}") from None
        except RecursionError:
            raise ConfigError(f"config: {path} is not valid TOML: it is nested too deeply") from None
        except UnicodeDecodeError as exc:
            # TOML is UTF-8 by definition; an editor that saved Latin-1 or UTF-16 lands here.
            raise ConfigError(f"config: {path} is not valid TOML: it is not UTF-8 text "
                              f"(byte 0x{exc.object[exc.start]:02x} at offset {exc.start})") from None
    flat = _flatten(data)
    for key, value in (overrides or {}).items():
        if value is not None:
            flat[key] = value
    unknown = sorted(k for k in flat if k not in KEYS)
    if unknown:
        raise ConfigError(f"{unknown[0]}: unknown key (see docs/config.md)")
    values: dict[str, Any] = {}
    for key, (default, check, _) in KEYS.items():
        value = flat.get(key, default)
        problem = check(value)
        if problem is not None:
            shown = "a value that is not shown" if key in _SECRET_KEYS else _describe(value)
            if key == "mqtt.url" and isinstance(value, str):
                shown = _describe(re.sub(r"//[^@/]*@", "//***@", value))  # no password in the message
            raise ConfigError(f"{key}: {problem}, got {shown}")
        values[key] = value
    explicit = set(flat)
    token = values["table.token"]
    from controller.games import (
        get_game,  # lazy: only the configured engine is imported
    )

    game_cls = get_game(values["table.game"])
    n = len(values["table.players"])
    if not game_cls.min_players <= n <= game_cls.max_players:
        raise ConfigError(f"table.players: {game_cls.title} needs {game_cls.min_players} to "
                          f"{game_cls.max_players} players, got {n}")
    journal_path = os.path.expanduser(values["journal.path"] or _default_journal_path(values["table.id"]))
    generated, kept, token_file = not token, False, None
    if generated:
        from controller.store.token_file import (
            TokenFileError,
            make_token,
            read_token,
            token_path,
        )

        path = token_path(journal_path)
        token_file = str(path)
        try:
            found = read_token(path)
        except TokenFileError as exc:
            raise ConfigError(str(exc)) from None
        kept = found is not None
        token = found if found is not None else make_token()
    table = TableConfig(
        id=values["table.id"],
        token=token,
        game=values["table.game"],
        players=tuple(p.strip() for p in values["table.players"]),
        seed=values["table.seed"],
        token_generated=generated,
        token_file=token_file,
        token_kept=kept,
        reveal_hands=values["table.reveal_hands"],
        name=(values["table.name"] or "").strip() or default_name(values["table.id"]),
    )
    return Config(
        table=table,
        mqtt=_mqtt(values, explicit),
        journal=JournalConfig(path=journal_path),
        panel=PanelConfig(values["panel.enabled"], values["panel.host"], values["panel.port"],
                          tuple(n.strip() for n in values["panel.public_names"].split(",") if n.strip()),
                          values["panel.hang_timeout"]),
        referee=RefereeConfig(
            board=values["referee.board"],
            tomb_grace_ms=values["referee.tomb_grace_ms"],
            skull_window_ms=values["referee.skull_window_ms"],
            trap_window_ms=values["referee.trap_window_ms"],
            mismatch_grace_ms=values["referee.mismatch_grace_ms"],
        ),
        hardware=_hardware(data.get("hardware", {})),
        simulate=values["simulate"],
        effects=EffectsConfig(
            enabled=values["effects.enabled"],
            packs=tuple((g, os.path.expanduser(values[f"effects.{g}"])) for g in GAME_NAMES
                        if values[f"effects.{g}"]),
        ),
        homeassistant=HomeAssistantConfig(values["homeassistant.discovery"], values["homeassistant.prefix"]),
    )
