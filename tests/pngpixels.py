#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Counts the pixels of a PNG (8-bit RGB or RGBA, as Chromium writes them)
that are close to each colour given:  pngpixels.py FILE R,G,B[~TOL]|warm ...
prints one count per colour; "warm" is flamegraph.pl's frame palette (red
205-255, green up to 230, blue up to 55). The standard library only."""
import struct
import sys
import zlib


def decode(path):
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise SystemExit("%s: not a PNG" % path)
    pos, idat, w = 8, b"", 0
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            w, h, depth, ctype = struct.unpack(">IIBB", body[:10])
            if depth != 8 or ctype not in (2, 6):
                raise SystemExit("%s: %d-bit colour type %d not handled" % (path, depth, ctype))
            bpp = 3 if ctype == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    raw, stride, rows, prev = zlib.decompress(idat), w * bpp, [], bytearray(w * bpp)
    for y in range(h):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for x in range(stride):
            a = line[x - bpp] if x >= bpp else 0
            b, c = prev[x], prev[x - bpp] if x >= bpp else 0
            if f == 1:
                line[x] = (line[x] + a) & 255
            elif f == 2:
                line[x] = (line[x] + b) & 255
            elif f == 3:
                line[x] = (line[x] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(line)
        prev = line
    return w, h, bpp, rows


def main():
    w, h, bpp, rows = decode(sys.argv[1])
    for spec in sys.argv[2:]:
        if spec == "warm":
            print(sum(1 for row in rows for x in range(0, w * bpp, bpp)
                      if row[x] >= 205 and row[x + 1] <= 230 and row[x + 2] <= 55))
            continue
        rgb, _, tol = spec.partition("~")
        want, tol = [int(v) for v in rgb.split(",")], int(tol or 8)
        n = sum(1 for row in rows for x in range(0, w * bpp, bpp)
                if all(abs(row[x + i] - want[i]) <= tol for i in range(3)))
        print(n)


main()
