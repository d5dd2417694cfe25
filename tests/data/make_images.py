# make_images.py - writes tests/data/images/: TGA, BMP and DDS textures in the variants characters carry, each with
# <file>.rgba beside it, the pixels as Pillow (an independent decoder) reads them (8-bit RGBA, top row first), and
# manifest.txt (file, width, height, tolerance: the largest difference allowed per channel; 1 where Pillow expands
# 5-bit channels by truncation and skinkit rounds).
#   /usr/bin/python3 tests/data/make_images.py            (Debian's python3-pil)
# Pillow writes the TGA (types 1, 2, 3 and their RLE forms, both origins) and BMP (1, 8, 24 and 32 bits) files; the
# others are built here byte by byte (15/16-bit TGA with and without attribute bits, right-to-left TGA, colour-mapped
# TGA with a 16-bit map, BMP RLE8 / RLE4 with moves and literals, 16-bit 5-6-5 and 32-bit V5 bit fields, top-down
# rows, an OS/2 1.x header, a 4-bit palette, a 32-bit BI_RGB file with alpha in its fourth byte) and checked against
# Pillow's reading of them where Pillow reads them right (expected pixels computed here otherwise: Pillow 9.4 reads no
# 15-bit TGA, and its RLE BMP reader takes two bytes too many after a move and drops the last pixel of an odd RLE4
# literal - BmpImagePlugin.BmpRleDecoder).
import io, os, struct
from PIL import Image

out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "images")
os.makedirs(out, exist_ok=True)
W, H = 7, 5
manifest = []


def pattern(x, y):
    a = 0 if (x, y) == (6, 4) else (128 if (x + y) % 3 == 0 else 255)
    return (x * 36 % 256, y * 60 % 256, (x * y * 13 + 7) % 256, a)


rgba = Image.new("RGBA", (W, H))
rgba.putdata([pattern(x, y) for y in range(H) for x in range(W)])


def record(name, data, expected=None, tol=0, size=(W, H)):
    path = os.path.join(out, name)
    with open(path, "wb") as f:
        f.write(data)
    if expected is None:
        expected = Image.open(io.BytesIO(data)).convert("RGBA")
    assert expected.size == size, name
    with open(path + ".rgba", "wb") as f:
        f.write(expected.tobytes())
    manifest.append("%s %d %d %d" % (name, size[0], size[1], tol))


def pil(img, fmt, **kw):
    b = io.BytesIO()
    img.save(b, fmt, **kw)
    return b.getvalue()


# ---- Pillow's own writers
for mode in ("RGBA", "RGB", "L", "LA", "P"):
    src = rgba.convert(mode) if mode != "P" else rgba.convert("RGB").quantize(12)
    for rle in (False, True):
        for top in (False, True):
            kw = {"compression": "tga_rle"} if rle else {}
            if top:
                kw["orientation"] = 1
            record("pil_%s%s%s.tga" % (mode.lower(), "_rle" if rle else "", "_top" if top else ""), pil(src, "TGA", **kw))
for mode in ("1", "L", "P", "RGB", "RGBA"):
    src = rgba.convert(mode) if mode != "P" else rgba.convert("RGB").quantize(12)
    # Pillow writes RGBA as a BI_RGB 32-bit BMP with the alpha in the fourth byte, and reads that byte back as
    # padding: the file holds the alpha it was given, which is what skinkit reads (as Blender does)
    record("pil_%s.bmp" % mode.lower(), pil(src, "BMP"), rgba if mode == "RGBA" else None)


# ---- built here
def tga(kind, bits, desc, pixels, cmap=b"", cmap_bits=0, cmap_first=0, rle=False):
    hdr = struct.pack("<BBBHHBHHHHBB", 0, 1 if cmap else 0, kind + (8 if rle else 0), cmap_first,
                      len(cmap) // ((cmap_bits + 7) // 8) if cmap else 0, cmap_bits, 0, 0, W, H, bits, desc)
    return hdr + cmap + pixels


def rle_packets(pix, size):
    """pixels (a list of byte strings) as alternating run and literal packets, runs crossing rows"""
    o, i = b"", 0
    while i < len(pix):
        j = i
        while j + 1 < len(pix) and pix[j + 1] == pix[i] and j - i < 127:
            j += 1
        if j > i:
            o += bytes([128 | (j - i)]) + pix[i]
            i = j + 1
        else:
            k = i
            while k + 1 < len(pix) and pix[k + 1] != pix[k] and k - i < 127:
                k += 1
            o += bytes([k - i]) + b"".join(pix[i:k + 1])
            i = k + 1
    return o


def rows_bottom_up(fn):
    return [fn(x, y) for y in reversed(range(H)) for x in range(W)]


def p555(c, attr):
    r, g, b, a = c
    return struct.pack("<H", (r >> 3) << 10 | (g >> 3) << 5 | (b >> 3) | (0x8000 if attr and a >= 128 else 0))


def expect5(c, attr):
    e = lambda v: ((v >> 3) * 255 + 15) // 31
    return (e(c[0]), e(c[1]), e(c[2]), (255 if c[3] >= 128 else 0) if attr else 255)


def image_of(fn):
    im = Image.new("RGBA", (W, H))
    im.putdata([fn(x, y) for y in range(H) for x in range(W)])
    return im


# 16-bit TGA: attribute bit as alpha (descriptor 1), bottom-up, RLE; and 15-bit raw, top-down
px = rows_bottom_up(lambda x, y: p555(pattern(x // 2 * 2, y), True))
record("tga16_attr_rle.tga", tga(2, 16, 0x01, rle_packets(px, 2), rle=True),
       image_of(lambda x, y: expect5(pattern(x // 2 * 2, y), True)), 0)
px = [p555(pattern(x, y), False) for y in range(H) for x in range(W)]
record("tga15_top.tga", tga(2, 15, 0x20, b"".join(px)), image_of(lambda x, y: expect5(pattern(x, y), False)), 0)
# 24-bit, right-to-left and top-down (Pillow reads neither orientation bit 4: expected computed here)
px = [bytes(pattern(W - 1 - x, y)[2::-1]) for y in range(H) for x in range(W)]
record("tga24_right_top.tga", tga(2, 24, 0x30, b"".join(px)), image_of(lambda x, y: pattern(x, y)[:3] + (255,)))
# colour-mapped, 16-bit map entries starting at index 3, RLE
cols = sorted(set(pattern(x, y)[:3] for y in range(H) for x in range(W)))
cmap = b"".join(p555(c + (255,), True) for c in cols)
idx = rows_bottom_up(lambda x, y: bytes([3 + cols.index(pattern(x, y)[:3])]))
record("tga8_map16_rle.tga", tga(1, 8, 0x00, rle_packets(idx, 1), cmap, 16, 3, rle=True),
       image_of(lambda x, y: expect5(pattern(x, y)[:3] + (255,), True)))
# 32-bit whose alpha bytes are all 0 (a writer that stores none): opaque
px = rows_bottom_up(lambda x, y: bytes(pattern(x, y)[2::-1]) + b"\0")
record("tga32_alpha_zero.tga", tga(2, 32, 0x00, b"".join(px)), image_of(lambda x, y: pattern(x, y)[:3] + (255,)))


def bmp(info, pixels, palette=b"", masks=b""):
    off = 14 + len(info) + len(masks) + len(palette)
    return b"BM" + struct.pack("<IHHI", off + len(pixels), 0, 0, off) + info + masks + palette + pixels


def info40(w, h, bits, comp, size_img=0, used=0, size=40):
    return struct.pack("<IiiHHIIiiII", size, w, h, 1, bits, comp, size_img, 2835, 2835, used, 0)


def pad4(b):
    return b + b"\0" * (-len(b) % 4)


# 16-bit 5-6-5 bit fields (Windows 3 header + 3 masks), top-down
def p565(c):
    return struct.pack("<H", (c[0] >> 3) << 11 | (c[1] >> 2) << 5 | (c[2] >> 3))


rows = [pad4(b"".join(p565(pattern(x, y)) for x in range(W))) for y in range(H)]
record("bmp565_top.bmp", bmp(info40(W, -H, 16, 3), b"".join(rows), masks=struct.pack("<III", 0xF800, 0x07E0, 0x001F)),
       image_of(lambda x, y: (((pattern(x, y)[0] >> 3) * 255 + 15) // 31, ((pattern(x, y)[1] >> 2) * 255 + 31) // 63,
                              ((pattern(x, y)[2] >> 3) * 255 + 15) // 31, 255)), 1)
# 32-bit V5 header with an alpha mask (A8 B8 G8 R8 order, unusual on purpose), bottom-up
v5 = struct.pack("<IiiHHIIiiII", 124, W, H, 1, 32, 3, 0, 2835, 2835, 0, 0) + struct.pack(
    "<IIII", 0x000000FF, 0x0000FF00, 0x00FF0000, 0xFF000000) + b"sRGB" + b"\0" * 36 + b"\0" * 12 + b"\0" * 16
assert len(v5) == 124
rows = [b"".join(bytes(pattern(x, y)) for x in range(W)) for y in reversed(range(H))]
record("bmp32_v5_alpha.bmp", bmp(v5, b"".join(rows)), rgba)
# 32-bit BI_RGB with alpha in the fourth byte (Photoshop's "32-bit"): read as alpha (Pillow ignores it)
rows = [b"".join(bytes(pattern(x, y)[2::-1] + (pattern(x, y)[3],)) for x in range(W)) for y in reversed(range(H))]
record("bmp32_rgb_alpha.bmp", bmp(info40(W, H, 32, 0), b"".join(rows)), rgba)
# palettes: a 4-bit one and an OS/2 1.x header (3-byte entries)
pal_cols = sorted(set(pattern(x // 3, y // 2)[:3] for y in range(H) for x in range(W)))
assert len(pal_cols) <= 16
pal4 = b"".join(bytes(c[::-1]) + b"\0" for c in pal_cols)
ix = lambda x, y: pal_cols.index(pattern(x // 3, y // 2)[:3])
quant = image_of(lambda x, y: pattern(x // 3, y // 2)[:3] + (255,))


def nibbles(vals):
    vals = vals + [0] * (len(vals) % 2)
    return bytes(vals[i] << 4 | vals[i + 1] for i in range(0, len(vals), 2))


rows = [pad4(nibbles([ix(x, y) for x in range(W)])) for y in reversed(range(H))]
record("bmp4.bmp", bmp(info40(W, H, 4, 0, used=len(pal_cols)), b"".join(rows), pal4), quant)
core = struct.pack("<IHHHH", 12, W, H, 1, 8)
pal3 = b"".join(bytes(c[::-1]) for c in pal_cols) + b"\0\0\0" * (256 - len(pal_cols))
rows = [pad4(bytes(ix(x, y) for x in range(W))) for y in reversed(range(H))]
record("bmp8_os2.bmp", bmp(core, b"".join(rows), pal3), quant)
# RLE8: runs, a literal, end of line, a move (skipped pixels keep entry 0), end of bitmap
data = b""
for y in reversed(range(H)):
    r = [ix(x, y) for x in range(W)]
    if y == 2:  # bottom-up row 2: 3 literal pixels, then a move 2 right 0 up, then the rest as runs
        data += bytes([0, 3]) + bytes(r[:3]) + b"\0" + bytes([0, 2, 2, 0]) + bytes([W - 5, r[5]]) if r[5] == r[6] else \
            bytes([0, 3]) + bytes(r[:3]) + b"\0" + bytes([0, 2, 2, 0]) + bytes([1, r[5], 1, r[6]])
    else:
        data += b"".join(bytes([1, v]) for v in r)
    data += b"\0\0"
data += b"\0\1"
exp8 = image_of(lambda x, y: pal_cols[0] + (255,) if y == 2 and x in (3, 4) else pattern(x // 3, y // 2)[:3] + (255,))
record("bmp_rle8.bmp", bmp(info40(W, H, 8, 1, len(data), len(pal_cols)), data, pal4), exp8)
# RLE4: a run of two nibbles alternating, literals padded to 2 bytes
data = b""
for y in reversed(range(H)):
    r = [ix(x, y) for x in range(W)]
    data += bytes([0, 5]) + nibbles(r[:5]) + b"\0" + bytes([2, r[5] << 4 | r[6]]) + b"\0\0"
data += b"\0\1"
record("bmp_rle4.bmp", bmp(info40(W, H, 4, 2, len(data), len(pal_cols)), data, pal4), quant)

# ---- DDS: Pillow's uncompressed writer (RGB, RGBA); blocks of random bytes for BC1-BC5 (every end-point order, so
# BC1's three-colour mode with its transparent texels, and BC3's six- and four-value alpha blocks) and uncompressed
# formats built here, read by Pillow where it reads them (DX10 BC1 / BC3: the pixels of the FourCC twin; 8-bit
# luminance, A8L8, R5G6B5, X8R8G8B8, A8: computed here)
import random

random.seed(71)
for mode in ("RGB", "RGBA"):
    record("pil_%s.dds" % mode.lower(), pil(rgba.convert(mode), "DDS"))


def dds(w, h, fourcc=b"\0\0\0\0", flags=0x4, bits=0, masks=(0, 0, 0, 0), dx10=None, data=b""):
    pf = struct.pack("<II4sI4I", 32, flags, fourcc, bits, *masks)
    hdr = struct.pack("<7I44x", 124, 0x1007, h, w, 0, 0, 1) + pf + struct.pack("<5I", 0x1000, 0, 0, 0, 0)
    assert len(hdr) == 124
    ext = struct.pack("<5I", dx10, 3, 0, 1, 0) if dx10 is not None else b""
    return b"DDS " + hdr + ext + data


blocks = {}
for fourcc, size in ((b"DXT1", 8), (b"DXT3", 16), (b"DXT5", 16), (b"ATI1", 8), (b"ATI2", 16)):
    data = bytes(random.randrange(256) for _ in range(4 * size))  # 2 x 2 blocks for 7 x 5 pixels
    blocks[fourcc] = data
    name = "bc_%s.dds" % fourcc.decode().lower()
    f = dds(W, H, fourcc, data=data)
    img = Image.open(io.BytesIO(f)).convert("RGBA")
    if fourcc == b"ATI2":  # Pillow leaves blue 0: skinkit writes the normal's z there
        px = [(r, g, round((max(0.0, 1 - (r / 127.5 - 1) ** 2 - (g / 127.5 - 1) ** 2) ** 0.5) * 127.5 + 127.5), 255)
              for r, g, b, a in img.getdata()]
        img = image_of(lambda x, y: px[y * W + x])
    record(name, f, img, 1 if fourcc == b"ATI2" else 0)
for fourcc, fmt in ((b"DXT1", 71), (b"DXT5", 77)):
    twin = Image.open(io.BytesIO(dds(W, H, fourcc, data=blocks[fourcc]))).convert("RGBA")
    record("bc_dx10_%d.dds" % fmt, dds(W, H, b"DX10", dx10=fmt, data=blocks[fourcc]), twin)
record("dx10_rgba.dds", dds(W, H, b"DX10", dx10=28, data=rgba.tobytes()))
grey = lambda x, y: pattern(x, y)[0]
record("lum8.dds", dds(W, H, flags=0x20000, bits=8, masks=(0xFF, 0, 0, 0),
                       data=bytes(grey(x, y) for y in range(H) for x in range(W))),
       image_of(lambda x, y: (grey(x, y),) * 3 + (255,)))
record("a8l8.dds", dds(W, H, flags=0x20001, bits=16, masks=(0xFF, 0, 0, 0xFF00),
                       data=b"".join(bytes((grey(x, y), pattern(x, y)[3])) for y in range(H) for x in range(W))),
       image_of(lambda x, y: (grey(x, y),) * 3 + (pattern(x, y)[3],)))
record("r5g6b5.dds", dds(W, H, flags=0x40, bits=16, masks=(0xF800, 0x07E0, 0x001F, 0),
                         data=b"".join(p565(pattern(x, y)) for y in range(H) for x in range(W))),
       image_of(lambda x, y: (((pattern(x, y)[0] >> 3) * 255 + 15) // 31, ((pattern(x, y)[1] >> 2) * 255 + 31) // 63,
                              ((pattern(x, y)[2] >> 3) * 255 + 15) // 31, 255)))
record("x8r8g8b8.dds", dds(W, H, flags=0x40, bits=32, masks=(0xFF0000, 0xFF00, 0xFF, 0),
                           data=b"".join(bytes(pattern(x, y)[2::-1]) + b"\x55" for y in range(H) for x in range(W))),
       image_of(lambda x, y: pattern(x, y)[:3] + (255,)))
record("a8.dds", dds(W, H, flags=0x2, bits=8, masks=(0, 0, 0, 0xFF),
                     data=bytes(pattern(x, y)[3] for y in range(H) for x in range(W))),
       image_of(lambda x, y: (0, 0, 0, pattern(x, y)[3])))


# ---- BC7 and BC6H (DX10 formats 95-99): random 128-bit blocks with the mode bits forced, and the partition,
# rotation and index-selection fields set to every value they take (two blocks each), laid out 16 blocks a row;
# read by Pillow 9.4 (its BC7 decoder agrees with the specification's on every block; where Pillow departs from the
# specification the expected pixels are Pillow's corrected as the specification says, see below).
def put_bits(v, at, n, x):
    return v & ~(((1 << n) - 1) << at) | (x << at)


def rand128():
    return int.from_bytes(bytes(random.randrange(256) for _ in range(16)), "little")


def block_image(fmt, blks, size=None):
    """a DDS of the blocks, 16 a row (size: the pixels, default every texel), and Pillow's reading of it"""
    per_row = -(-size[0] // 4) if size else min(16, len(blks))
    rows = -(-len(blks) // per_row)
    blks = blks + [blks[-1]] * (rows * per_row - len(blks))
    w, h = size or (4 * per_row, 4 * rows)
    assert -(-w // 4) == per_row and -(-h // 4) == rows
    f = dds(w, h, b"DX10", dx10=fmt, data=b"".join(blks))
    return f, Image.open(io.BytesIO(f)).convert("RGBA"), (w, h)


# BC7 (Table.M of ARB_texture_compression_bptc: partition, rotation and index-selection bits per mode)
BC7_FIELDS = {0: (4, 0, 0), 1: (6, 0, 0), 2: (6, 0, 0), 3: (6, 0, 0), 4: (0, 2, 1), 5: (0, 2, 0), 6: (0, 0, 0),
              7: (6, 0, 0)}
for mode, (pb, rb, isb) in BC7_FIELDS.items():
    blks = []
    for part in range(1 << pb):
        for rot in range(1 << rb):
            for sel in range(1 << isb):
                for rep in range(2 if pb or rb else 16):
                    v = put_bits(rand128(), 0, mode + 1, 1 << mode)
                    v = put_bits(put_bits(put_bits(v, mode + 1, pb, part), mode + 1 + pb, rb, rot), mode + 1 + pb + rb,
                                 isb, sel)
                    blks.append(v.to_bytes(16, "little"))
    size = (61, 4 * -(-len(blks) // 16) - 2) if mode == 1 else None  # partial edge blocks once
    f, img, size = block_image(98, blks, size)
    record("bc7_mode%d.dds" % mode, f, img, 0, size)
# SRGB and typeless: blocks of random modes; the bytes are the same (sRGB-coded values are stored as they are)
blks = [put_bits(rand128(), 0, 8, 1 << random.randrange(8)).to_bytes(16, "little") for _ in range(4)]
for fmt in (97, 99):
    f, img, size = block_image(fmt, blks, (W, H))
    record("bc7_dx10_%d.dds" % fmt, f, img, 0, size)
# mode 8 (byte 0 zero, reserved): Microsoft's BC7 format page says a decoder returns all-zero texels, RGBA 0 0 0 0;
# Pillow 9.4 returns opaque black (0 0 0 255)
blks = [bytes([0]) + bytes(random.randrange(256) for _ in range(15)), blks[0], bytes(16), blks[1]]
f, img, size = block_image(98, blks, (W, H))
img = image_of(lambda x, y: (0, 0, 0, 0) if (x // 4 + 2 * (y // 4)) in (0, 2) else img.getpixel((x, y)))
record("bc7_mode8.dds", f, img, 0, size)

# BC6H (Table.MF / Table.F). Tolerance 1: Pillow 9.4 interpolates without the specification's rounding term (+32
# before the shift by 6; BC7's and BC6H's interpolation are the same) and truncates the [0, 1] value to 8 bits where
# skinkit rounds. With both deviations put into skinkit's decoder the two agree exactly on 13 120 random blocks of
# every mode and partition, unsigned and signed (session 72). Pillow's signed decoding also leaves an end point that
# a transformed (delta) mode wraps to the end point bits without the sign extension the specification gives it, so
# e0 + delta < 0 reads as a large positive value (white instead of black); the signed file keeps those modes to
# non-negative e0 and deltas, where Pillow is right (the layouts of Table.F are read from io/image_bptc.c only to
# find those bits), and test_images checks the negative case against the specification.
BC6_MODES = [0, 1, 2, 6, 10, 14, 18, 22, 26, 30, 3, 7, 11, 15, 19, 23, 27, 31]  # the last four reserved: black
BC6_TWO = {0, 1, 2, 6, 10, 14, 18, 22, 26, 30}
src = open(os.path.join(os.path.dirname(out), "..", "..", "io", "image_bptc.c")).read()
import re

layouts = {}
for m, tr, epb, d, body in re.findall(r"\{(\d+), (\d), \d+, (\d+), \{([\d, ]+)\},\s*((?:\"[^\"]*\"\s*)+)\}", src):
    layouts[int(m)] = (int(tr), int(epb), [int(x) for x in d.split(",")], "".join(re.findall(r'"([^"]*)"', body)))
assert sorted(layouts) == sorted(BC6_MODES[:14]), sorted(layouts)


def bc6_clear_signs(v, mode):
    """e0 below a quarter of its range and the deltas non-negative: no transformed end point is negative"""
    tr, epb, delta, layout = layouts[mode]
    if not tr:
        return v
    at = 2 if mode < 2 else 5
    for field in layout.split(","):
        name, a, b = re.fullmatch(r"([rgb]\d)\[(\d+)(?::(\d+))?\]", field).groups()
        a, b = int(a), int(b if b is not None else a)
        c, e = "rgb".index(name[0]), int(name[1])
        for k in range(abs(a - b) + 1):
            bit = b + k if a >= b else b - k
            if (e == 0 and bit >= epb - 2) or (e > 0 and bit == delta[c] - 1):
                v &= ~(1 << at)
            at += 1
    return v


for fmt, signed in ((95, False), (96, True)):
    blks = []
    for mode in BC6_MODES:
        for part in range(32 if mode in BC6_TWO else 4):
            v = put_bits(rand128(), 0, 2 if mode < 2 else 5, mode)
            if mode in BC6_TWO:
                v = put_bits(v, 77, 5, part)
            if signed and mode in layouts:
                v = bc6_clear_signs(v, mode)
            blks.append(v.to_bytes(16, "little"))
    f, img, size = block_image(fmt, blks)
    record("bc6h_%s.dds" % ("sf16" if signed else "uf16"), f, img, 1, size)

with open(os.path.join(out, "manifest.txt"), "w") as f:
    f.write("\n".join(manifest) + "\n")
print("wrote %d images to %s" % (len(manifest), out))
