#!/usr/bin/env python3
"""Writes the .gst inputs of the golden "damaged trace" cases (tests/golden/cases/gst_*):
damaged copies of examples/traces/pi.gst (the pi example recorded by our runtime) and two small
hand-made traces (a clock that goes backwards, a message never received). Deterministic: rerun
after re-recording pi.gst, then `run_golden.py --update` the gst_* cases and read the diff.

  tests/golden/make_gst_cases.py
"""
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
CASES = os.path.join(HERE, "cases")
PI = os.path.join(ROOT, "examples", "traces", "pi.gst")

MAGIC = b"\x89GST\r\n\x1a\n"
CHUNK_HEADER = 32
EVENT_BLOCK, CLOCK, REGION, STRING, END = 6, 2, 3, 4, 7


def _crc32c_table():
    table = []
    for i in range(256):
        c = i
        for _ in range(8):
            c = (c >> 1) ^ 0x82F63B78 if c & 1 else c >> 1
        table.append(c)
    return table


TABLE = _crc32c_table()


def crc32c(data):
    crc = 0xFFFFFFFF
    for b in data:
        crc = TABLE[(crc ^ b) & 0xFF] ^ (crc >> 8)
    return crc ^ 0xFFFFFFFF


def chunks(data):
    """(offset, type, stored_size) of every chunk of a version 2 file."""
    out, at = [], struct.unpack_from("<I", data, 12)[0]
    while at + CHUNK_HEADER <= len(data):
        ctype, _flags, stored = struct.unpack_from("<III", data, at)
        out.append((at, ctype, stored))
        at += CHUNK_HEADER + stored
    return out


def chunk(ctype, payload, stream=0, sequence=0):
    head = struct.pack("<IIIIII", ctype, 0, len(payload), len(payload), stream, sequence)
    head += struct.pack("<I", crc32c(payload))
    head += struct.pack("<I", crc32c(head))
    return head + payload


def file_header(major=2):
    return MAGIC + struct.pack("<HHIIIQ", major, 0, 32, 16, 0, 0)


def record(time, kind, ident, extra=0):
    return struct.pack("<QBBHI", time, kind, extra, 0, ident)


def region(ident, name):
    name = name.encode()
    return chunk(REGION, struct.pack("<IB3xqIIII", ident, 1, ident, 0, len(name), 0, 0) + name)


def string(ident, text):
    text = text.encode()
    return chunk(STRING, struct.pack("<II", ident, len(text)) + text)


def small_trace(stream0, stream1):
    """A monotonic-clock trace: grains 1 and 2, string 1 "x", two streams, closed normally."""
    out = file_header()
    out += chunk(CLOCK, struct.pack("<IIQqd", 0, 0, 1000, 1000, 1.0))
    out += region(1, "producer") + region(2, "consumer") + string(1, "x")
    out += chunk(EVENT_BLOCK, b"".join(stream0), 0, 0)
    out += chunk(EVENT_BLOCK, b"".join(stream1), 1, 0)
    out += chunk(END, struct.pack("<QIiII", 0, 0, 0, 2, 0))
    return out


def slot(nbytes, peer, grain):
    return struct.pack("<QiI", nbytes, peer, grain)


def write(case, name, data):
    d = os.path.join(CASES, case)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


def main():
    with open(PI, "rb") as f:
        pi = f.read()
    parts = chunks(pi)
    blocks = [c for c in parts if c[1] == EVENT_BLOCK]

    # Cut in the middle of an event block: a valid prefix with a warning.
    at, _, stored = blocks[len(blocks) // 2]
    write("gst_truncated", "pi.gst", pi[: at + CHUNK_HEADER + stored // 2])
    # Cut inside the file header: an error.
    write("gst_truncated_header", "pi.gst", pi[:20])
    # A flipped bit in an event block's payload: that stream ends before it, with a warning.
    flipped = bytearray(pi)
    flipped[at + CHUNK_HEADER + stored // 3] ^= 0x04
    write("gst_bitflip_block", "pi.gst", bytes(flipped))
    # A flipped bit in a chunk header (the first event block's size): skipped to the next chunk.
    flipped = bytearray(pi)
    flipped[blocks[0][0] + 9] ^= 0x01
    write("gst_bitflip_header", "pi.gst", bytes(flipped))
    # Not a .gst file, and a version this reader does not know.
    write("gst_bad_magic", "pi.gst", b"\x89GSX" + pi[4:])
    write("gst_wrong_version", "pi.gst", pi[:8] + struct.pack("<H", 3) + pi[10:])
    # A write that never happened (SIGKILL): zeros where a block should be, the end chunk lost.
    last_at, _, last_stored = blocks[-1]
    hole = pi[:last_at] + bytes(CHUNK_HEADER + last_stored) + pi[last_at + CHUNK_HEADER + last_stored:]
    end_at = [c for c in parts if c[1] == END][0][0]
    write("gst_killed", "pi.gst", hole[:end_at])

    # The clock goes backwards on stream 0 (clamped, counted); stream 1 receives the message.
    write("gst_clock_backwards", "trace.gst", small_trace(
        [record(1100, 1, 1), record(1050, 2, 1), record(1210, 3, 1, 1), slot(64, 1, 1), record(1220, 4, 1)],
        [record(1050, 1, 2), record(1060, 5, 1), record(1230, 6, 1, 1), slot(64, 0, 0), record(1300, 2, 2)]))
    # A message sent and never received: a warning, the rest analysed.
    write("gst_unreceived_message", "trace.gst", small_trace(
        [record(1100, 1, 1), record(1200, 2, 1), record(1210, 3, 1, 1), slot(64, 1, 1), record(1220, 4, 1)],
        [record(1050, 1, 2), record(1300, 2, 2)]))


if __name__ == "__main__":
    main()
