"""iqm_writer.py - the small IQM v2 model of tests/unit/test_iqm.c, written from Python (standard library only).

A 3-joint chain along +Z ("hip", "knee", "foot"), two meshes of a quad strip (positions, texcoords, u8 blend
indexes and weights), and with anim=True one 2-frame animation bending the knee 90 degrees about X. Used as a
seed by tests/fuzz/make_seeds.py (fuzz_iqm) and tests/hostile/gen_mutants.py (the CLI replay test).
"""
import math
import struct

POS = [(0, 0, 0), (0.3, 0, 0), (0, 0, 0.9), (0.3, 0, 0.9), (0, 0, 1.1), (0.3, 0, 1.1), (0, 0, 2), (0.3, 0, 2)]
JA = [0, 0, 0, 0, 1, 1, 1, 1]
JB = [1, 1, 1, 1, 2, 2, 2, 2]
WA = [255, 255, 128, 128, 191, 191, 64, 64]
TRI = [(0, 3, 1), (0, 2, 3), (4, 7, 5), (4, 6, 7)]
TEXT = b"\0hip\0knee\0foot\0upper\0lower\0skin\0bend\0"
T_HIP, T_KNEE, T_FOOT, T_UPPER, T_LOWER, T_SKIN, T_BEND = 1, 5, 10, 15, 21, 27, 32


def _pad4(b):
    b.extend(b"\0" * (-len(b) % 4))


def write_iqm(anim=True, empty_mesh=False):
    """Bytes of the model (IQM version 2); empty_mesh: the second mesh holds 0 vertices and 0 triangles (session 73:
    Assimp's writers crashed on a mesh without vertices)."""
    b = bytearray(b"INTERQUAKEMODEL\0" + b"\0" * (124 - 16))
    h = [0] * 27
    h[0] = 2
    h[3], h[4] = len(TEXT), len(b)
    b += TEXT
    _pad4(b)
    h[5], h[6] = 2, len(b)
    lower = (4, 0, 2, 0) if empty_mesh else (4, 4, 2, 2)
    b += struct.pack("<12I", T_UPPER, T_SKIN, 0, 4, 0, 2, T_LOWER, T_SKIN, *lower)
    h[7], h[8], h[9] = 4, len(POS), len(b)
    va_at = len(b)
    b += b"\0" * 80
    arrays = [[0, 0, 7, 3, 0], [1, 0, 7, 2, 0], [4, 0, 1, 4, 0], [5, 0, 1, 4, 0]]
    arrays[0][4] = len(b)
    for p in POS:
        b += struct.pack("<3f", *p)
    arrays[1][4] = len(b)
    for p in POS:
        b += struct.pack("<2f", p[0], 0.25)
    arrays[2][4] = len(b)
    for v in range(len(POS)):
        b += bytes([JA[v], JB[v], 0, 0])
    arrays[3][4] = len(b)
    for v in range(len(POS)):
        b += bytes([WA[v], 255 - WA[v], 0, 0])
    b[va_at:va_at + 80] = struct.pack("<20I", *[x for a in arrays for x in a])
    h[10], h[11] = len(TRI), len(b)
    for t in TRI:
        b += struct.pack("<3I", *t)
    h[13], h[14] = 3, len(b)
    for j, name in enumerate((T_HIP, T_KNEE, T_FOOT)):
        b += struct.pack("<Ii10f", name, j - 1, 0, 0, 1.0 if j else 0.0, 0, 0, 0, 1, 1, 1, 1)
    if anim:
        h[15], h[16] = 3, len(b)
        for j in range(3):
            mask = (1 << 3 | 1 << 6) if j == 1 else 0
            off = [0, 0, 1.0 if j else 0.0, 0, 0, 0, 1, 1, 1, 1]
            scl = [0.0] * 10
            if j == 1:
                scl[3] = math.sin(math.pi / 4) / 65535.0
                scl[6] = (math.cos(math.pi / 4) - 1.0) / 65535.0
            b += struct.pack("<iI20f", j - 1, mask, *off, *scl)
        h[17], h[18] = 1, len(b)
        b += struct.pack("<3IfI", T_BEND, 0, 2, 10.0, 0)
        h[19], h[20], h[21] = 2, 2, len(b)
        b += bytes([0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff])
    h[1] = len(b)
    b[16:16 + 108] = struct.pack("<27I", *h)
    return bytes(b)


if __name__ == "__main__":
    import sys
    with open(sys.argv[1], "wb") as f:
        f.write(write_iqm())
