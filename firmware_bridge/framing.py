"""Cut a serial byte stream into frames, and resynchronise after damage.

Frames end with 0x00, and COBS guarantees no 0x00 inside a frame, so after any
damage (a flipped bit, dropped bytes, line noise, a frame cut by an unplug) the
decoder recovers at the very next 0x00: the damaged stretch becomes one bad
frame (two if the damage itself forged a 0x00), counted by kind, and the frame
after it decodes normally.
"""

from __future__ import annotations

import struct
from binascii import crc_hqx
from typing import NamedTuple

from cobs import cobs

from firmware_bridge.protocol import (
    MAX_ENCODED,
    PROTOCOL_VERSION,
    ChangeMsg,
    Frame,
    FrameError,
    decode_payload,
)
from firmware_bridge.protocol import decode as decode_frame

# version, type, seq, channel, level, time, crc: a whole CHANGE payload
_CHANGE = struct.Struct(">BBHBBIH")

ERROR_KINDS = ("crc_errors", "cobs_errors", "version_errors", "malformed", "unknown_type", "oversize")


class BadFrame(NamedTuple):
    """A stretch of bytes between delimiters that did not decode."""

    kind: str  # one of ERROR_KINDS
    reason: str
    raw: bytes  # the encoded bytes (truncated for oversize stretches)


class FrameDecoder:
    """Incremental decoder: ``feed`` bytes as they arrive, get frames and bad frames back.

    It never raises on input. Every bad frame is counted in ``counters`` under
    its kind, in ``bad_frames``, and in ``resyncs`` (the decoder dropped bytes
    and realigned at the next delimiter). Bytes before the first delimiter
    after a (re)start are usually the tail of a frame sent before the port was
    opened: if they do not decode they count only as a resync, not as an error.
    """

    def __init__(self, max_encoded: int = MAX_ENCODED) -> None:
        self.max_encoded = max_encoded
        self.counters: dict[str, int] = {}
        self.reset_counters()
        self.restart()

    def reset_counters(self) -> None:
        self.counters = dict.fromkeys(("frames_ok", "bad_frames", "resyncs", "bytes", *ERROR_KINDS), 0)

    def restart(self) -> None:
        """Forget any partial frame, as after reopening the port (counters are kept)."""
        self._buf = b""
        self._skipping = False  # inside an oversize stretch: drop up to the next 0x00
        self._leading = True  # the first chunk may be the tail of an older frame

    @property
    def pending(self) -> int:
        """Bytes held waiting for a delimiter."""
        return len(self._buf)

    def feed(self, data: bytes) -> list[Frame | BadFrame]:
        counters = self.counters
        counters["bytes"] += len(data)
        buf = self._buf + data if self._buf else data
        chunks = buf.split(b"\x00")
        tail = chunks.pop()
        out: list[Frame | BadFrame] = []
        append = out.append
        if self._skipping and chunks:
            # The first chunk ends the oversize stretch already counted.
            chunks[0] = b""
            self._skipping = False
        ok = 0
        decode = cobs.decode
        unpack_change = _CHANGE.unpack
        new = tuple.__new__
        if self._leading and chunks:
            # Only the first delimited chunk after a restart can be a tail.
            self._leading = False
            first = chunks.pop(0)
            if first:
                try:
                    item = decode_frame(first)
                except FrameError:
                    counters["resyncs"] += 1
                else:
                    out.append(item)
                    ok += 1
        for chunk in chunks:
            if not chunk:
                continue  # idle delimiters between frames are legal
            if len(chunk) > self.max_encoded:
                self._bad(out, "oversize", f"frame of {len(chunk)} bytes exceeds {self.max_encoded}", chunk[:64])
                continue
            try:
                payload = decode(chunk)
            except cobs.DecodeError as exc:
                self._bad(out, "cobs_errors", f"bad COBS encoding: {exc}", chunk)
                continue
            # Fast path for the common case, a good CHANGE frame; anything
            # unusual falls through to the general, fully checked decoder.
            if len(payload) == 12 and payload[1] == 3 and not crc_hqx(payload, 0xFFFF):
                version, _, seq, channel, level, t, _ = unpack_change(payload)
                if version == PROTOCOL_VERSION and level < 2:
                    append(new(Frame, (seq, new(ChangeMsg, (channel, level == 1, t)))))
                    ok += 1
                    continue
            try:
                append(decode_payload(payload))
            except FrameError as exc:
                self._bad(out, exc.kind, str(exc), chunk)
                continue
            ok += 1
        counters["frames_ok"] += ok
        if len(tail) > self.max_encoded:
            if not self._skipping:
                self._bad(out, "oversize", f"more than {self.max_encoded} bytes without a delimiter", tail[:64])
                self._skipping = True
            tail = b""
        self._buf = tail
        return out

    def _bad(self, out: list[Frame | BadFrame], kind: str, reason: str, raw: bytes) -> None:
        counters = self.counters
        counters["resyncs"] += 1
        counters[kind] += 1
        counters["bad_frames"] += 1
        out.append(BadFrame(kind, reason, raw))
