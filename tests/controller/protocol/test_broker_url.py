"""One reading of ``mqtt[s]://[user[:password]@]host[:port]`` for the controller and the panel."""

from __future__ import annotations

from typing import Any

import pytest

from controller.config import ConfigError, load_config
from controller.protocol.broker_url import (
    BrokerUrl,
    BrokerUrlError,
    check_broker_url,
    parse_broker_url,
)
from gravekeeper.errors import GravekeeperError
from web_panel.settings import SettingsError, broker_settings


@pytest.mark.parametrize(("text", "expected"), [
    ("mqtt://localhost", BrokerUrl("localhost", 1883, False, port_given=False)),
    ("mqtts://pi.local", BrokerUrl("pi.local", 8883, True, port_given=False)),
    ("tcp://10.0.0.2:1999", BrokerUrl("10.0.0.2", 1999, False)),
    ("ssl://b:1", BrokerUrl("b", 1, True)),
    ("mqtt://ann:s%40cret@10.0.0.2:1999/", BrokerUrl("10.0.0.2", 1999, False, "ann", "s@cret")),
    ("mqtt://[::1]:1884", BrokerUrl("::1", 1884, False)),
])
def test_a_broker_url_names_host_port_tls_and_who_logs_in(text: str, expected: BrokerUrl) -> None:
    assert parse_broker_url(text) == expected
    assert check_broker_url(text) is None


@pytest.mark.parametrize(("text", "words"), [
    ("localhost:1883", "must look like mqtt://host:1883"),
    ("", "must look like"),
    (None, "must look like"),
    (1883, "must look like"),
    ("http://x", "the scheme 'http' is neither mqtt nor mqtts"),
    ("mqtt://x:99999", "the port must be a number from 1 to 65535"),
    ("mqtt://x:0", "the port must be a number from 1 to 65535"),
    ("mqtt://x:port", "the port must be a number from 1 to 65535"),
    ("mqtt://:1883", "it has no host"),
    ("mqtt://x/topic", "must not have a path, query or fragment"),
    ("mqtt://x?a=1", "must not have a path, query or fragment"),
])
def test_a_bad_broker_url_says_what_is_wrong(text: Any, words: str) -> None:
    with pytest.raises(BrokerUrlError, match=words) as err:
        parse_broker_url(text)
    assert isinstance(err.value, ValueError) and isinstance(err.value, GravekeeperError)
    assert check_broker_url(text) == err.value.reason


def test_the_message_never_shows_the_password() -> None:
    with pytest.raises(BrokerUrlError) as err:
        parse_broker_url("mqtt://ann:s3cret@x:99999")
    assert "s3cret" not in str(err.value) and "mqtt://***@x:99999" in str(err.value)


def test_a_broker_url_is_shown_without_its_credentials() -> None:
    assert str(parse_broker_url("mqtts://ann:pw@pi.local")) == "mqtts://pi.local:8883"
    assert str(BrokerUrl("::1", 1883)) == "mqtt://[::1]:1883"


def test_the_controller_and_the_panel_read_one_url_alike(tmp_path: Any) -> None:
    url = "mqtts://ann:s%40cret@pi.local:8884"
    config = tmp_path / "gk.toml"
    config.write_text(f"[mqtt]\nurl = '{url}'\n[journal]\npath = '{tmp_path / 'j.journal'}'\n")
    mqtt = load_config(config).mqtt
    panel = broker_settings(url)
    assert (mqtt.host, mqtt.port, mqtt.tls, mqtt.username, mqtt.password) == (
        panel["broker_host"], panel["broker_port"], panel["broker_tls"], panel["broker_username"],
        panel["broker_password"]) == ("pi.local", 8884, True, "ann", "s@cret")


@pytest.mark.parametrize("url", ["mqtt://x/topic", "http://x", "mqtt://:1"])
def test_both_refuse_the_same_urls(tmp_path: Any, url: str) -> None:
    config = tmp_path / "gk.toml"
    config.write_text(f"[mqtt]\nurl = '{url}'\n")
    with pytest.raises(ConfigError, match="mqtt.url: ") as config_err:
        load_config(config)
    with pytest.raises(SettingsError) as panel_err:
        broker_settings(url)
    assert check_broker_url(url) in str(config_err.value)
    assert check_broker_url(url) in str(panel_err.value)
