"""What an emulated Pico boots from: the vendored images and a littlefs image of the firmware.

The MicroPython and bootrom images are vendored in ``firmware_bridge/firmware/pico/``
(provenance in its README). The filesystem is built at run time from the
unchanged ``main.py`` and ``gkfw.py``, so the board runs exactly the files a
builder copies to a real Pico.
"""

from __future__ import annotations

import hashlib
import shutil
import subprocess
from pathlib import Path

from littlefs import LittleFS

FIRMWARE_DIR = Path(__file__).resolve().parent.parent / "firmware"
IMAGES_DIR = FIRMWARE_DIR / "pico"
MICROPYTHON_IMAGE = IMAGES_DIR / "micropython-1.27.0-rpi-pico.bin"
BOOTROM_IMAGE = IMAGES_DIR / "rp2040-bootrom-b1.bin"
HARNESS_DIR = Path(__file__).resolve().parent / "harness"
HARNESS_SCRIPT = HARNESS_DIR / "pico.js"

# The README's provenance table gives the same hashes; the images must be the ones it describes.
SHA256 = {
    MICROPYTHON_IMAGE.name: "c2596245b5337bde61995f923f0eb59ba010f63a9561d85c337be25ad0e88f55",
    BOOTROM_IMAGE.name: "90b31e108faedfa6bbcfcc33ba05dac61e645108cfbbdc385f8dafc71fde44ae",
}

# MicroPython's RPI_PICO build keeps its littlefs2 filesystem here (2 MiB minus 1,408 KiB).
FS_FLASH_OFFSET = 0xA0000
FS_BLOCK_SIZE = 4096
FS_BLOCK_COUNT = 352
FS_PROG_SIZE = 256
FIRMWARE_FILES = ("main.py", "gkfw.py")


class EmulatorUnavailable(RuntimeError):
    """Node, the npm packages or an image is missing; the message says how to get it."""


def sha256_of(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def build_fs_image(dest: Path, files: dict[str, bytes] | None = None) -> Path:
    """Write the Pico's littlefs image holding ``files`` (default: the firmware's two files)."""
    if files is None:
        files = {name: (FIRMWARE_DIR / name).read_bytes() for name in FIRMWARE_FILES}
    fs = LittleFS(block_size=FS_BLOCK_SIZE, block_count=FS_BLOCK_COUNT, prog_size=FS_PROG_SIZE)
    for name, data in files.items():
        with fs.open(name, "wb") as f:
            f.write(data)
    dest.write_bytes(bytes(fs.context.buffer))
    return dest


def node_command() -> list[str]:
    """``node`` and the harness script, after checking that everything it needs is here."""
    node = shutil.which("node")
    if node is None:
        raise EmulatorUnavailable("node is not installed: install Debian's nodejs and npm "
                                  "(scripts/test.sh does), then run `npm ci` in " + str(HARNESS_DIR))
    version = subprocess.run([node, "--version"], capture_output=True, text=True, timeout=30).stdout.strip()
    try:
        major = int(version.lstrip("v").split(".")[0])
    except ValueError:
        raise EmulatorUnavailable(f"cannot read node's version from {version!r}") from None
    if major < 18:
        raise EmulatorUnavailable(f"node {version} is too old for rp2040js 1.4.1 (18 or newer)")
    if not (HARNESS_DIR / "node_modules" / "rp2040js" / "package.json").is_file():
        raise EmulatorUnavailable(f"rp2040js is not installed: run `npm ci` in {HARNESS_DIR}")
    for image in (MICROPYTHON_IMAGE, BOOTROM_IMAGE):
        if not image.is_file():
            raise EmulatorUnavailable(f"{image} is missing")
    return [node, str(HARNESS_SCRIPT)]
