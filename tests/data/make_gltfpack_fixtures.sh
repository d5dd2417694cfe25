#!/bin/sh
# Regenerates the gltfpack / glTF-Transform fixtures of tests/unit/test_gltf_read.c from our own sample rig:
#   skinrig.glb           skinkit sample, 3 bones, 12 segments x 8 rings (float positions and weights): the reference
#   skinrig_u8n.glb       gltfpack -noq: float positions, WEIGHTS_0 UNSIGNED_BYTE normalized, vertices reordered
#   skinrig_q.glb         gltfpack: KHR_mesh_quantization (u16 positions, dequantization folded into the inverse binds)
#   skinrig_meshopt.glb   gltfpack -c: the same, EXT_meshopt_compression buffer views
#   skinrig_meshopt_cc.glb gltfpack -cc: the same, higher compression (filters)
#   skinrig_meshopt_khr.glb gltfpack -c -ce khr: KHR_meshopt_compression, vertex codec version 1 (decoded by
#                         io/meshopt_decode.c; every view equals skinrig_meshopt.glb's)
#   skinrig_meshopt_noq.glb gltfpack -c -noq: float attributes, vertex codec version 0
#   skinrig_meshopt_noq_cz.glb gltfpack -cz -noq: the same vertices (in another order) in version 1 with 2-byte delta
#                         and rotated XOR channels
#   skinrig_color_c.glb   skinrig.glb with COLOR_0 (add_vertex_colors.mjs), gltfpack -c: raw 8-bit colours
#   skinrig_color_cz.glb  the same, gltfpack -cz -vc 8: version 1 and the COLOR filter (YCoCg, alpha 7 bits)
#   skinrig_u16n.glb      gltf-transform quantize --quantize-weight 16 --quantize-position 16: WEIGHTS_0 UNSIGNED_SHORT
#                         normalized, SHORT normalized positions, interleaved
# Usage: sh tests/data/make_gltfpack_fixtures.sh BUILD_DIR [NPM_BIN]  (NPM_BIN holds gltfpack and gltf-transform;
# default /tmp/npmtools/node_modules/.bin; made with gltfpack 1.3 and gltf-transform 4.5.1 from npm).
set -eu
build=${1:?usage: make_gltfpack_fixtures.sh BUILD_DIR [NPM_BIN]}
bin=${2:-/tmp/npmtools/node_modules/.bin}
here=$(cd "$(dirname "$0")" && pwd)
"$build/skinkit" sample "$here/skinrig.glb" --segments 12 --rings 8 --bones 3 --force
"$bin/gltfpack" -i "$here/skinrig.glb" -o "$here/skinrig_u8n.glb" -noq
"$bin/gltfpack" -i "$here/skinrig.glb" -o "$here/skinrig_q.glb"
"$bin/gltfpack" -i "$here/skinrig.glb" -o "$here/skinrig_meshopt.glb" -c
"$bin/gltfpack" -i "$here/skinrig.glb" -o "$here/skinrig_meshopt_cc.glb" -cc
"$bin/gltfpack" -i "$here/skinrig.glb" -o "$here/skinrig_meshopt_khr.glb" -c -ce khr
"$bin/gltfpack" -i "$here/skinrig.glb" -o "$here/skinrig_meshopt_noq.glb" -c -noq
"$bin/gltfpack" -i "$here/skinrig.glb" -o "$here/skinrig_meshopt_noq_cz.glb" -cz -noq
tmp=$(mktemp -d)
node "$here/add_vertex_colors.mjs" "$bin/.." "$here/skinrig.glb" "$tmp/skinrig_color.glb"
"$bin/gltfpack" -i "$tmp/skinrig_color.glb" -o "$here/skinrig_color_c.glb" -c
"$bin/gltfpack" -i "$tmp/skinrig_color.glb" -o "$here/skinrig_color_cz.glb" -cz -vc 8
rm -rf "$tmp"
"$bin/gltf-transform" quantize "$here/skinrig.glb" "$here/skinrig_u16n.glb" --quantize-weight 16 \
  --quantize-position 16
