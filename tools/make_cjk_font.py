"""Build attn_lib/pictures/fonts/NotoSansCJKsc-Subset.ttf, the Chinese font the course falls back on.

Maintainer tool, not run by learners or CI. It takes Noto Sans CJK SC (SIL OFL 1.1) from the
`manimgx-fonts-cjk` wheel, fixes the weight at Regular, keeps the 6,763 characters of GB2312
(every common simplified character) plus Chinese punctuation and full-width forms, converts the
outlines to TrueType (matplotlib's bundled FreeType reads it, PDF output embeds it) and renames
the family so that it never shadows a full Noto install. Usage (in a scratch environment):

    python -m pip download --no-deps -d /tmp/font manimgx-fonts-cjk
    python -m pip install fonttools
    python tools/make_cjk_font.py /tmp/font/manimgx_fonts_cjk-*.whl
"""

import sys
import zipfile
from io import BytesIO
from pathlib import Path

from fontTools import subset
from fontTools.pens.cu2quPen import Cu2QuPen
from fontTools.pens.ttGlyphPen import TTGlyphPen
from fontTools.ttLib import TTCollection, newTable
from fontTools.varLib import instancer

FAMILY = "Noto Sans CJK SC Subset"
OUT = Path(__file__).resolve().parents[1] / "attn_lib" / "pictures" / "fonts" / "NotoSansCJKsc-Subset.ttf"


def gb2312_characters():
    """Every character GB2312 encodes (rows 0xA1-0xF7, cells 0xA1-0xFE)."""
    chars = set()
    for hi in range(0xA1, 0xF8):
        for lo in range(0xA1, 0xFF):
            try:
                chars.add(bytes([hi, lo]).decode("gb2312"))
            except UnicodeDecodeError:
                pass
    return chars


def to_truetype(font):
    """Replace CFF outlines by quadratic TrueType ones (the otf2ttf recipe of fontTools)."""
    glyph_set = font.getGlyphSet()
    glyf = newTable("glyf")
    glyf.glyphOrder = font.getGlyphOrder()
    glyf.glyphs = {}
    for name in glyf.glyphOrder:
        pen = TTGlyphPen(glyph_set)
        glyph_set[name].draw(Cu2QuPen(pen, max_err=1.0, reverse_direction=True))
        glyf[name] = pen.glyph()
    font["glyf"] = glyf
    font["loca"] = newTable("loca")
    for tag in ("CFF2", "CFF ", "VORG"):
        if tag in font:
            del font[tag]
    font["maxp"].tableVersion = 0x00010000
    for attr in ("maxZones", "maxTwilightPoints", "maxStorage", "maxFunctionDefs",
                 "maxInstructionDefs", "maxStackElements", "maxSizeOfInstructions",
                 "maxComponentElements", "maxPoints", "maxContours",
                 "maxCompositePoints", "maxCompositeContours", "maxComponentDepth"):
        setattr(font["maxp"], attr, 0)
    font["maxp"].maxZones = 1
    font["head"].indexToLocFormat = 0
    font["head"].glyphDataFormat = 0
    font["post"].formatType = 2.0
    font["post"].extraNames = []
    font["post"].mapping = {}
    font["post"].glyphOrder = None
    font.sfntVersion = "\x00\x01\x00\x00"


def main(wheel, limit=None):
    with zipfile.ZipFile(wheel) as zf:
        data = zf.read("manimgx_fonts_cjk/NotoSansCJK-VF.otf.ttc")
    collection = TTCollection(BytesIO(data))
    font = next(f for f in collection.fonts if f["name"].getDebugName(1) == "Noto Sans CJK SC")
    text = "".join(sorted(gb2312_characters()))
    text += "".join(chr(c) for c in range(0x3000, 0x3040))  # CJK punctuation
    text += "".join(chr(c) for c in range(0xFF01, 0xFF5F))  # full-width forms
    text += "".join(chr(c) for c in range(0x20, 0x7F))  # Latin, as a last resort
    text = text[:limit] if limit else text
    options = subset.Options()
    options.layout_features = ["*"]
    options.name_IDs = ["*"]
    options.notdef_outline = True
    subsetter = subset.Subsetter(options)
    subsetter.populate(text=text)
    subsetter.subset(font)
    font = instancer.instantiateVariableFont(font, {"wght": 400})
    to_truetype(font)

    for record in font["name"].names:
        if record.nameID in (1, 16):
            record.string = FAMILY
        elif record.nameID == 4:
            record.string = FAMILY + " Regular"
        elif record.nameID == 6:
            record.string = FAMILY.replace(" ", "") + "-Regular"
        elif record.nameID == 3:
            record.string = FAMILY + ";attn_lib"
    OUT.parent.mkdir(parents=True, exist_ok=True)
    font.save(OUT)
    print(f"wrote {OUT} ({OUT.stat().st_size / 1e6:.1f} MB, {len(text)} characters)")


if __name__ == "__main__":
    main(sys.argv[1], *(int(a) for a in sys.argv[2:]))
