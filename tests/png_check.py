#!/usr/bin/env python3
"""Checks that a PNG screenshot is not blank, with the standard library only.

usage: png_check.py FILE [--min-colors N] [--min-ink FRACTION]
Exits 0 when the image decodes, has at least N distinct colors (default 16)
and at least FRACTION of its pixels differ from the most common color
(default 0.01); else prints why and exits 1.
"""
import struct
import sys
import zlib


def decode_png(path):
    """Returns (width, height, channels, rows) for 8-bit RGB/RGBA/gray PNGs."""
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG file")
    pos, idat, width = 8, b"", None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, color, _, _, interlace = struct.unpack(">IIBBBBB", body)
            if depth != 8 or interlace != 0 or color not in (0, 2, 4, 6):
                raise ValueError(f"unsupported PNG (depth {depth}, color type {color}, interlace {interlace})")
            channels = {0: 1, 2: 3, 4: 2, 6: 4}[color]
        elif kind == b"IDAT":
            idat += body
        elif kind == b"IEND":
            break
        pos += 12 + length
    if width is None:
        raise ValueError("no IHDR chunk")
    raw = zlib.decompress(idat)
    stride = width * channels
    rows, prev, i = [], bytearray(stride), 0
    for _ in range(height):
        ftype, line = raw[i], bytearray(raw[i + 1:i + 1 + stride])
        i += 1 + stride
        for x in range(stride):
            a = line[x - channels] if x >= channels else 0
            b = prev[x]
            c = prev[x - channels] if x >= channels else 0
            if ftype == 1:
                line[x] = (line[x] + a) & 0xFF
            elif ftype == 2:
                line[x] = (line[x] + b) & 0xFF
            elif ftype == 3:
                line[x] = (line[x] + (a + b) // 2) & 0xFF
            elif ftype == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 0xFF
        rows.append(bytes(line))
        prev = line
    return width, height, channels, rows


def main(argv):
    path, min_colors, min_ink = argv[1], 16, 0.01
    if "--min-colors" in argv:
        min_colors = int(argv[argv.index("--min-colors") + 1])
    if "--min-ink" in argv:
        min_ink = float(argv[argv.index("--min-ink") + 1])
    width, height, channels, rows = decode_png(path)
    counts = {}
    for row in rows:
        for x in range(0, len(row), channels):
            px = row[x:x + channels]
            counts[px] = counts.get(px, 0) + 1
    total = width * height
    ink = 1 - max(counts.values()) / total
    print(f"{path}: {width}x{height}, {len(counts)} distinct colors, {ink:.1%} non-background pixels")
    if len(counts) < min_colors:
        print(f"FAIL: fewer than {min_colors} distinct colors: the page looks blank")
        return 1
    if ink < min_ink:
        print(f"FAIL: under {min_ink:.0%} of the pixels differ from the background: the page looks blank")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
