# Builds frames and COBS blocks with gkfw on MicroPython and prints them, one
# hex line per record, for the test to compare with the host codec.
#
# /input.bin: records of
#   b"F" u8 type, u16 seq, u16 n, body[n]   -> gkfw.build_frame(type, seq, body)
#   b"C" u16 n, data[n]                      -> gkfw.cobs_encode(data), and whether
#                                               gkfw.cobs_decode gives data back

import binascii
import struct

from firmware_bridge.firmware import gkfw


def run(data: bytes) -> None:
    pos = 0
    while pos < len(data):
        kind = data[pos]
        if kind == 0x46:
            msg_type, seq, n = struct.unpack_from(">BHH", data, pos + 1)
            pos += 6
            print(binascii.hexlify(gkfw.build_frame(msg_type, seq, data[pos:pos + n])).decode())
        elif kind == 0x43:
            (n,) = struct.unpack_from(">H", data, pos + 1)
            pos += 3
            block = data[pos:pos + n]
            encoded = gkfw.cobs_encode(block)
            print(binascii.hexlify(encoded).decode(), 1 if gkfw.cobs_decode(encoded) == block else 0)
        else:
            raise ValueError("bad record kind %d at %d" % (kind, pos))
        pos += n


run(open("/input.bin", "rb").read())
