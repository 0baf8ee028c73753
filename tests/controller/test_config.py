"""Config: defaults for every key, one-line errors naming the key, overrides from the CLI."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from controller.config import KEYS, ConfigError, load_config

DOCS = Path(__file__).resolve().parents[2] / "docs" / "config.md"


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "gravekeeper.toml"
    path.write_text(text)
    return path


def test_defaults_need_no_file(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    config = load_config()
    assert config.table.id == "t1" and config.table.game == "terror"
    assert config.table.players == ("Player 1", "Player 2") and config.table.seed is None
    assert config.table.token and config.table.token_generated
    assert config.mqtt.url is None and (config.mqtt.host, config.mqtt.port) == ("127.0.0.1", 1883)
    assert config.mqtt.base_topic == "gravekeeper" and not config.mqtt.tls
    assert config.journal.path == str(tmp_path / "state" / "gravekeeper" / "t1.journal")
    assert config.referee.board == "sensors" and config.panel.enabled
    assert config.simulate is False and config.hardware is not None


def test_a_full_file_is_read(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        """
simulate = true
[table]
id = "club-2"
token = "s3cret"
game = "superstition"
players = ["Ann", "Bo", "Cy"]
seed = 42
[mqtt]
host = "broker.local"
port = 1884
username = "gk"
password = "pw"
[journal]
path = "/var/lib/gk/club-2.journal"
[panel]
host = "0.0.0.0"
port = 9000
[referee]
board = "manual"
trap_window_ms = 1500
""",
    )
    config = load_config(path)
    assert config.table.id == "club-2" and config.table.token == "s3cret" and not config.table.token_generated
    assert config.table.players == ("Ann", "Bo", "Cy") and config.table.seed == 42
    # a host in the file is a configured broker, so it gets a URL ("no URL" means "embedded allowed")
    assert config.mqtt.url == "mqtt://broker.local:1884"
    assert (config.mqtt.username, config.mqtt.password) == ("gk", "pw")
    assert config.journal.path == "/var/lib/gk/club-2.journal"
    assert (config.panel.host, config.panel.port) == ("0.0.0.0", 9000)
    assert config.referee.board == "manual" and config.referee.trap_window_ms == 1500
    assert config.simulate is True


def test_cli_overrides_win_and_none_means_not_given(tmp_path: Path) -> None:
    path = write(tmp_path, '[table]\nid = "a"\ngame = "terror"\n')
    config = load_config(
        path,
        overrides={"table.id": "t2", "table.game": "dogs", "mqtt.url": "mqtts://u:p%40ss@host.example:8884",
                   "simulate": True, "table.seed": None},
    )
    assert config.table.id == "t2" and config.table.game == "dogs" and config.simulate
    assert (config.mqtt.host, config.mqtt.port, config.mqtt.tls) == ("host.example", 8884, True)
    assert (config.mqtt.username, config.mqtt.password) == ("u", "p@ss")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[mqtt]\nport = 'x'\n", "mqtt.port: must be an integer 1-65535, got 'x'"),
        ("[mqtt]\nport = 70000\n", "mqtt.port: must be an integer 1-65535, got 70000"),
        ("[mqtt]\nprot = 1\n", "mqtt.prot: unknown key (see docs/config.md)"),
        ("colour = 'red'\n", "colour: unknown key (see docs/config.md)"),
        ("[table]\nid = 'a/b'\n", "table.id: must be 1-64 letters"),
        ("[table]\ngame = 'chess'\n", "table.game: must be one of terror, superstition, dogs, got 'chess'"),
        ("[table]\nplayers = []\n", "table.players: must be a list of player names"),
        ("[table]\nplayers = ['Ann', 'ann']\n", "table.players: must not repeat a name"),
        ("[table]\nseed = -3\n", "table.seed: must be an integer 0 or more"),
        ("[mqtt]\nurl = 'http://x'\n", "mqtt.url: must be a URL like mqtt://host:1883"),
        ("[mqtt]\nbase_topic = 'a/#'\n", "mqtt.base_topic: must not contain the MQTT wildcards"),
        ("[mqtt]\npassword = 'pw'\n", "mqtt.password: needs mqtt.username too"),
        ("[mqtt]\ntls = 'yes'\n", "mqtt.tls: must be true or false, got 'yes'"),
        ("[referee]\nboard = 'lasers'\n", "referee.board: must be 'sensors' or 'manual'"),
        ("[referee]\ntomb_grace_ms = true\n", "referee.tomb_grace_ms: must be an integer 0-60000, got True"),
        ("table = 3\n", "table: must be a table ([table])"),
        ("[hardware]\nbogus = 1\n", "hardware.bogus: unknown key"),
        ("[table\n", "is not valid TOML"),
        ("[mqtt]\nurl = 'http://u:hunter2@x'\n", "got 'http://***@x'"),
        ("[table]\ntoken = 12345678\n", "table.token: must be a string, got a value that is not shown"),
    ],
)
def test_a_bad_key_or_value_is_one_line_naming_it(tmp_path: Path, text: str, message: str) -> None:
    with pytest.raises(ConfigError) as info:
        load_config(write(tmp_path, text))
    text_of_error = str(info.value)
    assert message in text_of_error
    assert "\n" not in text_of_error


def test_a_missing_file_and_a_bad_override_name_themselves(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"^config: file not found: .*nope\.toml$"):
        load_config(tmp_path / "nope.toml")
    with pytest.raises(ConfigError, match=r"^table\.id: must be"):
        load_config(overrides={"table.id": "has space"})


def test_config_errors_are_value_errors() -> None:
    assert issubclass(ConfigError, ValueError)


def _toml(value: object) -> str:
    if value is None:
        return "unset"
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, str):
        return f'"{value}"'
    if isinstance(value, list):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    return str(value)


def test_docs_list_every_key_with_its_default(tmp_path: Path) -> None:
    text = DOCS.read_text()
    for key, (default, _, _) in KEYS.items():
        row = re.search(rf"^\| `{re.escape(key.rpartition('.')[2])}` \| `?([^|`]*)`? \|", _section(text, key),
                        re.MULTILINE)
        assert row is not None, f"docs/config.md has no row for {key}"
        assert row.group(1).strip() == _toml(default), f"docs/config.md gives the wrong default for {key}"
    example = re.search(r"```toml\n(.*?)```", text, re.DOTALL)
    assert example is not None, "docs/config.md needs an example file"
    load_config(write(tmp_path, example.group(1)))  # the documented example is itself valid


def _section(text: str, key: str) -> str:
    """The part of the docs under the key's ``[section]`` heading (top-level keys: the whole text)."""
    section = key.rpartition(".")[0]
    if not section:
        return text
    match = re.search(rf"^### `\[{section}\]`\n(.*?)(?=^### |\Z)", text, re.MULTILINE | re.DOTALL)
    assert match is not None, f"docs/config.md has no [{section}] section"
    return match.group(1)


def test_a_missing_ca_file_is_named_before_anything_starts(tmp_path) -> None:
    from controller.config import ConfigError, load_config

    conf = tmp_path / "c.toml"
    conf.write_text('[mqtt]\ntls = true\nca_file = "/nonexistent/ca.pem"\n')
    with pytest.raises(ConfigError, match=r"^mqtt\.ca_file: no such file: /nonexistent/ca\.pem$"):
        load_config(conf)


def test_too_few_players_for_the_game_names_table_players(tmp_path) -> None:
    from controller.config import ConfigError, load_config

    conf = tmp_path / "c.toml"
    conf.write_text('[table]\ngame = "superstition"\nplayers = ["Ann"]\n')
    with pytest.raises(ConfigError, match=r"^table\.players: Superstition needs 2 to 4 players, got 1$"):
        load_config(conf)


@pytest.mark.parametrize("content", [b"\xff\xfe[\x00t\x00a\x00b\x00", "[table]\nid = 'caf\u00e9'\n".encode("latin-1")])
def test_a_file_that_is_not_utf8_is_one_line_not_a_traceback(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "c.toml"
    path.write_bytes(content)  # saved as UTF-16 or Latin-1 by an editor
    with pytest.raises(ConfigError) as info:
        load_config(path)
    message = str(info.value)
    assert message.startswith(f"config: {path} is not valid TOML: it is not UTF-8 text") and "\n" not in message


def test_a_folder_given_as_the_config_or_the_ca_file_says_so(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"^config: cannot read .*: Is a directory$"):
        load_config(tmp_path)
    conf = write(tmp_path, f'[mqtt]\ntls = true\nca_file = "{tmp_path}"\n')
    with pytest.raises(ConfigError, match=r"^mqtt\.ca_file: is a folder, not a certificate file: "):
        load_config(conf)


def test_a_password_with_an_empty_user_name_is_refused_not_silently_dropped(tmp_path: Path) -> None:
    # The link sends credentials only with a user name: "" would connect anonymously without a word.
    with pytest.raises(ConfigError, match=r"^mqtt\.password: needs mqtt\.username too$"):
        load_config(write(tmp_path, '[mqtt]\nusername = ""\npassword = "secret"\n'))


def test_player_names_with_control_characters_are_refused(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"^table\.players: must be names without control characters"):
        load_config(write(tmp_path, '[table]\nplayers = ["Ann\\nBo", "Cy"]\n'))


def test_player_names_may_hold_any_printable_text_emoji_included(tmp_path: Path) -> None:
    config = load_config(write(tmp_path,
                               '[table]\nplayers = ["Zo\u00eb", "\U0001f468\u200d\U0001f469\u200d\U0001f467"]\n'))
    assert config.table.players == ("Zo\u00eb", "\U0001f468\u200d\U0001f469\u200d\U0001f467")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[table]\nname = ''\n", "table.name: must be a non-empty name, got ''"),
        ("[table]\nname = '   '\n", "table.name: must be a non-empty name"),
        ("[table]\nname = 3\n", "table.name: must be a non-empty name, got 3"),
        ("[table]\nname = '" + "x" * 61 + "'\n", "table.name: must be at most 60 characters"),
        ("[table]\nname = \"Kitchen\\ntable\"\n", "table.name: must be a name without control characters"),
        ("[table]\nname = \"Kitchen\\ttable\"\n", "table.name: must be a name without control characters"),
        ("[table]\nname = \"Kitchen\\u2028table\"\n", "table.name: must be a name without control characters"),
    ],
)
def test_a_bad_table_name_is_refused(tmp_path: Path, text: str, message: str) -> None:
    with pytest.raises(ConfigError) as info:
        load_config(write(tmp_path, text))
    assert message in str(info.value) and "\n" not in str(info.value)


def test_a_table_name_is_trimmed_and_kept(tmp_path: Path) -> None:
    config = load_config(write(tmp_path, "[table]\nid = 'k7'\nname = '  The kitchen 🦇 table  '\n"))
    assert config.table.name == "The kitchen 🦇 table" and config.table.id == "k7"
    assert load_config(write(tmp_path, "[table]\nname = '" + "x" * 60 + "'\n")).table.name == "x" * 60


@pytest.mark.parametrize(
    ("table_id", "name"),
    [
        ("t1", "Table 1"), ("t12", "Table 12"), ("table_03", "Table 3"), ("kitchen-table", "Kitchen table"),
        ("room2", "Room 2"), ("7", "Table 7"), ("t98a2cdf2cd", "Table 98A2"), ("tabcdefabcd", "Table ABCD"),
        ("club_back-room", "Club back room"), ("bar-t3", "Bar table 3"),
    ],
)
def test_an_unnamed_table_gets_a_readable_name_from_its_id(tmp_path: Path, table_id: str, name: str) -> None:
    assert load_config(overrides={"table.id": table_id, "journal.path": str(tmp_path / "j")}).table.name == name
