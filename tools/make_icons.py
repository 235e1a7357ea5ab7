#!/usr/bin/env python3
"""Draws the demo's item icons (assets/icons/*.png): 16x16 pixel art made
for this project, released under the crate's license. Pure Python (zlib),
so it runs anywhere: python3 tools/make_icons.py"""
import os, struct, zlib

OUT = os.path.join(os.path.dirname(__file__), "..", "assets", "icons")

# one letter per pixel: '.' is transparent, the rest are palette entries
ICONS = {
    "berries": ({"g": (60, 150, 60), "r": (190, 30, 70), "R": (240, 90, 120), "d": (110, 15, 40)}, [
        "................",
        ".......gg.......",
        "......g..g......",
        ".....g....g.....",
        "....g......g....",
        "...rRr....rRr...",
        "..rRrrr..rRrrr..",
        "..rrrrd..rrrrd..",
        "..rrrrd..rrrrd..",
        "...rdd.rr.rdd...",
        "......rRrr......",
        ".....rRrrrd.....",
        ".....rrrrrd.....",
        ".....rrrrdd.....",
        "......dddd......",
        "................",
    ]),
    "axe": ({"s": (200, 205, 215), "S": (240, 245, 250), "k": (110, 115, 130), "w": (150, 95, 45), "W": (110, 65, 30)}, [
        "................",
        "........kSSs....",
        ".......kSSSss...",
        "......kSSSsss...",
        "......kSSssss...",
        ".......kssss....",
        "........kWs.....",
        ".......Ww.......",
        "......Ww........",
        ".....Ww.........",
        "....Ww..........",
        "...Ww...........",
        "..Ww............",
        ".Ww.............",
        ".W..............",
        "................",
    ]),
    "letter": ({"p": (235, 225, 190), "P": (250, 245, 225), "k": (150, 130, 90), "r": (180, 30, 30)}, [
        "................",
        "................",
        "................",
        ".kkkkkkkkkkkkkk.",
        ".kPPppppppppPPk.",
        ".kpPPppppppPPpk.",
        ".kppPPppppPPppk.",
        ".kpppPPrrPPpppk.",
        ".kppppPrrPppppk.",
        ".kpppppPPpppppk.",
        ".kppppppppppppk.",
        ".kppppppppppppk.",
        ".kkkkkkkkkkkkkk.",
        "................",
        "................",
        "................",
    ]),
    "flint": ({"f": (90, 95, 110), "F": (150, 155, 170), "d": (50, 52, 62), "y": (255, 210, 80)}, [
        "................",
        "..........y.....",
        "........y..y....",
        ".........yy.....",
        "......dd........",
        ".....dFFd.......",
        "....dFFffd......",
        "...dFFfffd......",
        "...dFfffffd.....",
        "..dFffffffd.....",
        "..dfffffffd.....",
        "..dffffffdd.....",
        "...dfffdd.......",
        "....ddd.........",
        "................",
        "................",
    ]),
    "ore": ({"o": (120, 75, 40), "O": (160, 105, 60), "d": (70, 42, 20), "i": (200, 200, 210)}, [
        "................",
        "................",
        "................",
        "......ddd.......",
        "....ddOOodd.....",
        "...dOOooiood....",
        "..dOooiiooood...",
        "..dOoooooiood...",
        ".dOoiooooooood..",
        ".doooooiiooood..",
        ".dooooooooiodd..",
        "..ddoooooodd....",
        "....dddddd......",
        "................",
        "................",
        "................",
    ]),
    "gem": ({"c": (40, 170, 200), "C": (140, 230, 250), "d": (20, 90, 120), "w": (255, 255, 255)}, [
        "................",
        "................",
        "................",
        ".....dddddd.....",
        "....dCCwCCCd....",
        "...dCCcCCcCCd...",
        "..dddddddddddd..",
        "..dcccCcccCccd..",
        "...dccCcccCcd...",
        "....dcCcccCd....",
        ".....dcCcCd.....",
        "......dCcd......",
        ".......dd.......",
        "................",
        "................",
        "................",
    ]),
}


def png(pixels):
    """RGBA rows as PNG bytes."""
    h, w = len(pixels), len(pixels[0])
    raw = b"".join(b"\x00" + bytes(v for px in row for v in px) for row in pixels)
    def chunk(kind, data):
        c = struct.pack(">I", len(data)) + kind + data
        return c + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    head = struct.pack(">IIBBBBB", w, h, 8, 6, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", head) + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b"")


def main():
    os.makedirs(OUT, exist_ok=True)
    for name, (palette, rows) in ICONS.items():
        assert len(rows) == 16 and all(len(r) == 16 for r in rows), name
        # 4x scale: 64x64, crisp pixels
        pixels = []
        for r in rows:
            line = []
            for ch in r:
                px = (0, 0, 0, 0) if ch == "." else palette[ch] + (255,)
                line += [px] * 4
            pixels += [line] * 4
        with open(os.path.join(OUT, name + ".png"), "wb") as f:
            f.write(png(pixels))
    print("wrote", len(ICONS), "icons to", os.path.normpath(OUT))


if __name__ == "__main__":
    main()
