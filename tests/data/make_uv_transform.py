#!/usr/bin/python3
"""A skinned textured quad for KHR_texture_transform (session 75): uv_plain.glb (float UVs in a part of the
texture, no transform: gltfpack's input) and uv_transform.glb (the same quad, its texture moved, turned a quarter
and scaled by KHR_texture_transform). Usage: make_uv_transform.py OUTDIR"""
import base64, json, struct, sys, zlib, math

def png_1x1():
    def chunk(t, d):
        return struct.pack('>I', len(d)) + t + d + struct.pack('>I', zlib.crc32(t + d) & 0xffffffff)
    return (b'\x89PNG\r\n\x1a\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', 1, 1, 8, 2, 0, 0, 0)) +
            chunk(b'IDAT', zlib.compress(b'\x00\xff\x80\x00')) + chunk(b'IEND', b''))

def glb(transform):
    pos = [(0, 0, 0), (1, 0, 0), (0, 1, 0), (1, 1, 0)]
    uv = [(0.25, 0.5), (0.75, 0.5), (0.25, 0.625), (0.75, 0.625)]
    parts = [b''.join(struct.pack('<3f', *p) for p in pos), b''.join(struct.pack('<2f', *t) for t in uv),
             bytes([0, 0, 0, 0] * 4), b''.join(struct.pack('<4f', 1, 0, 0, 0) for _ in pos),
             struct.pack('<6H', 0, 1, 2, 1, 3, 2) + b'\0\0', struct.pack('<16f', *[1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1]),
             png_1x1()]
    views, off, data = [], 0, b''
    for p in parts:
        views.append({'buffer': 0, 'byteOffset': off, 'byteLength': len(p)})
        p += b'\0' * (-len(p) % 4)
        data += p; off += len(p)
    acc = [{'bufferView': 0, 'componentType': 5126, 'count': 4, 'type': 'VEC3', 'min': [0, 0, 0], 'max': [1, 1, 0]},
           {'bufferView': 1, 'componentType': 5126, 'count': 4, 'type': 'VEC2'},
           {'bufferView': 2, 'componentType': 5121, 'count': 4, 'type': 'VEC4'},
           {'bufferView': 3, 'componentType': 5126, 'count': 4, 'type': 'VEC4'},
           {'bufferView': 4, 'componentType': 5123, 'count': 6, 'type': 'SCALAR'},
           {'bufferView': 5, 'componentType': 5126, 'count': 1, 'type': 'MAT4'}]
    views[4]['byteLength'] = 12
    tex = {'index': 0}
    doc = {'asset': {'version': '2.0', 'generator': 'make_uv_transform.py'}, 'scene': 0,
           'scenes': [{'nodes': [0, 1]}],
           'nodes': [{'name': 'bone'}, {'name': 'quad', 'mesh': 0, 'skin': 0}],
           'skins': [{'joints': [0], 'inverseBindMatrices': 5}],
           'meshes': [{'name': 'quad', 'primitives': [{'attributes': {'POSITION': 0, 'TEXCOORD_0': 1, 'JOINTS_0': 2,
                                                                      'WEIGHTS_0': 3}, 'indices': 4, 'material': 0}]}],
           'materials': [{'name': 'skin', 'pbrMetallicRoughness': {'baseColorTexture': tex}}],
           'textures': [{'source': 0}], 'images': [{'bufferView': 6, 'mimeType': 'image/png'}],
           'accessors': acc, 'bufferViews': views, 'buffers': [{'byteLength': len(data)}]}
    if transform:
        tex['extensions'] = {'KHR_texture_transform': {'offset': [0.5, 0.25], 'rotation': math.pi / 2, 'scale': [2, 0.5]}}
        doc['extensionsUsed'] = ['KHR_texture_transform']
    j = json.dumps(doc, separators=(',', ':')).encode()
    j += b' ' * (-len(j) % 4)
    return (struct.pack('<III', 0x46546C67, 2, 12 + 8 + len(j) + 8 + len(data)) + struct.pack('<I', len(j)) +
            b'JSON' + j + struct.pack('<I', len(data)) + b'BIN\0' + data)

out = sys.argv[1] if len(sys.argv) > 1 else '.'
open(out + '/uv_plain.glb', 'wb').write(glb(False))
open(out + '/uv_transform.glb', 'wb').write(glb(True))
