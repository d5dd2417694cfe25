# glb_json.py - the fixture makers' .glb reading and writing (plain Python: json, struct): load(name) gives a file of
# tests/data as (its JSON document, the bytes after the JSON chunk - the BIN chunk with its header); save(name, doc,
# rest) writes the document back (padded with spaces to 4 bytes) before those bytes.
import json
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))


def load(name):
    data = open(os.path.join(HERE, name), "rb").read()
    n = struct.unpack_from("<I", data, 12)[0]
    return json.loads(data[20:20 + n]), data[20 + n:]


def save(name, doc, rest):
    text = json.dumps(doc, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 4)
    head = struct.pack("<4sII", b"glTF", 2, 12 + 8 + len(text) + len(rest)) + struct.pack("<I4s", len(text), b"JSON")
    open(os.path.join(HERE, name), "wb").write(head + text + rest)
