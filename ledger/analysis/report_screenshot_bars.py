#!/usr/bin/env python3
# ledger/analysis/report_screenshot_bars.py PNG: counts the forest-plot bars
# in a screenshot of a report page (issue 29's screenshot-based check; used by
# report_browser_test.sh). A bar is a run of pixel rows, inside the plot's
# x range [300, 760) of the forest SVGs (shifted by the page's 2em = 32 px
# <body> margin; report.cpp's style), holding >= 3 adjacent pixels of exactly one verdict
# colour (report_forest.cpp: #2a8a2a, #c03030, #d08a00, #888888). Verdict
# text is drawn right of the plot, the shaded band is translucent (another
# colour), so neither is counted. Prints the count. Standard library only:
# the PNG is decoded here (8-bit RGB or RGBA, non-interlaced, as chromium
# writes it).
import struct
import sys
import zlib

COLOURS = {(0x2A, 0x8A, 0x2A), (0xC0, 0x30, 0x30), (0xD0, 0x8A, 0x00), (0x88, 0x88, 0x88)}


def decode(path):
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        sys.exit(f"{path}: not a PNG")
    at, idat = 8, b""
    while at < len(data):
        (length,) = struct.unpack(">I", data[at:at + 4])
        kind, body = data[at + 4:at + 8], data[at + 8:at + 8 + length]
        if kind == b"IHDR":
            width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", body)
            if depth != 8 or colour not in (2, 6) or interlace:
                sys.exit(f"{path}: unsupported PNG (depth {depth}, colour type {colour}, interlace {interlace})")
        elif kind == b"IDAT":
            idat += body
        at += 12 + length
    bpp = 3 if colour == 2 else 4
    raw, stride = zlib.decompress(idat), width * bpp
    rows, prev = [], bytearray(stride)
    for y in range(height):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b, c = prev[i], prev[i - bpp] if i >= bpp else 0
            if f == 1: line[i] = (line[i] + a) & 255
            elif f == 2: line[i] = (line[i] + b) & 255
            elif f == 3: line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(line)
        prev = line
    return width, bpp, rows


def main():
    width, bpp, rows = decode(sys.argv[1])
    x0, x1 = 32 + 300, min(width, 32 + 760)
    bars, inside = 0, False
    for line in rows:
        run = best = 0
        for x in range(x0, x1):
            px = tuple(line[x * bpp:x * bpp + 3])
            run = run + 1 if px in COLOURS else 0
            best = max(best, run)
        hit = best >= 3
        if hit and not inside:
            bars += 1
        inside = hit
    print(bars)


main()
