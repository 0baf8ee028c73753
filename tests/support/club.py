"""Helpers for the club tests: many tables on one broker, a broker with users and an ACL."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Any

from controller.mqtt.broker import choose_broker
from controller.service.service import Service
from tests.support.broker import Broker, make_broker
from tests.support.service import service_config

REPO = Path(__file__).resolve().parents[2]
CLUB_ACL = REPO / "deploy" / "mosquitto" / "club.acl"


def mosquitto_passwd(path: Path, users: dict[str, str]) -> None:
    """Write a Mosquitto password file with the real ``mosquitto_passwd`` (hashed, as on a Pi)."""
    path.write_text("".join(f"{user}:{password}\n" for user, password in users.items()))
    subprocess.run(["mosquitto_passwd", "-U", str(path)], check=True, capture_output=True, timeout=30)


def acl_broker(tmp: Path, users: dict[str, str], acl: Path = CLUB_ACL) -> Broker:
    """A Mosquitto with ``password_file`` and ``acl_file``; anonymous clients still connect (to read)."""
    passwd = tmp / "club.passwd"
    mosquitto_passwd(passwd, users)
    # Mosquitto started as root drops to its own user before it reads these files, and that user
    # cannot enter pytest's private temporary directory: keep root then (only a test broker does).
    stay = "user root\n" if os.geteuid() == 0 else ""
    return make_broker(tmp, extra_conf=f"{stay}password_file {passwd}\nacl_file {acl}\n")


def start_table(broker: Broker, tmp: Path, table: str, **overrides: Any) -> Service:
    cfg = service_config(broker, tmp, table, **{"table.game": "terror", **overrides})
    svc = Service(cfg, choose_broker(cfg.mqtt))
    svc.start()
    return svc


def flip_launcher(svc: Service, launched: bool) -> None:
    """Move the simulated board's launcher as a hand would: a foul launch is a mismatch event, re-arming clears it."""
    assert svc.hub is not None
    svc.hub.simulate("launcher", "launched" if launched else "armed")
