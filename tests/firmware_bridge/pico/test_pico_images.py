"""The vendored Pico images are the ones the provenance table describes, and the filesystem holds the firmware."""

from __future__ import annotations

import re
from pathlib import Path

from littlefs import LittleFS

from firmware_bridge.pico_emulator import images


def test_vendored_images_match_their_sha256() -> None:
    for name, digest in images.SHA256.items():
        assert images.sha256_of(images.IMAGES_DIR / name) == digest, name


def test_the_readme_table_gives_the_same_hashes() -> None:
    readme = (images.IMAGES_DIR / "README.md").read_text()
    rows = dict(re.findall(r"^\| `([^`]+\.bin)` \|.*\| `([0-9a-f]{64})` \|$", readme, re.MULTILINE))
    assert rows == images.SHA256


def test_licences_ship_beside_the_images() -> None:
    names = {p.name for p in (images.IMAGES_DIR / "licenses").iterdir()}
    assert {"micropython.LICENSE", "pico-sdk.LICENSE", "tinyusb.LICENSE", "micropython-lib.LICENSE",
            "mbedtls.LICENSE"} <= names


def test_filesystem_image_holds_the_unchanged_firmware_files(tmp_path: Path) -> None:
    image = images.build_fs_image(tmp_path / "fs.img")
    data = image.read_bytes()
    assert len(data) == images.FS_BLOCK_SIZE * images.FS_BLOCK_COUNT
    fs = LittleFS(block_size=images.FS_BLOCK_SIZE, block_count=images.FS_BLOCK_COUNT,
                  prog_size=images.FS_PROG_SIZE, mount=False)
    fs.context.buffer = bytearray(data)
    fs.mount()
    assert sorted(fs.listdir("/")) == ["gkfw.py", "main.py"]
    for name in images.FIRMWARE_FILES:
        with fs.open(name, "rb") as f:
            assert f.read() == (images.FIRMWARE_DIR / name).read_bytes()
