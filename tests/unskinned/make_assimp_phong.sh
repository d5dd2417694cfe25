#!/bin/sh
# make_assimp_phong.sh - writes tests/unskinned/assimp_phong.fbx: a two-triangle OBJ with a Phong material (Kd 0.6 0.3 0.2,
# Ks 0.5, Ns 50) converted by Assimp's own tool (Debian assimp-utils 5.2.5: `assimp export`). Its FBX writer gives the
# material no ReflectionFactor of its own (the Phong template's 1.0 applies) and a black ReflectionColor: no metal,
# though Blender's and skinkit's FBX writers keep the metallic factor in ReflectionFactor (test_materials).
#   sh tests/unskinned/make_assimp_phong.sh tests/unskinned/assimp_phong.fbx
set -e
out=$(realpath "$1")
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
printf 'mtllib box.mtl\no Box\nv 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nvn 0 0 1\nusemtl Shiny\nf 1//1 2//1 3//1\nf 1//1 3//1 4//1\n' > "$dir/box.obj"
printf 'newmtl Shiny\nKa 0 0 0\nKd 0.6 0.3 0.2\nKs 0.5 0.5 0.5\nNs 50\nillum 2\n' > "$dir/box.mtl"
(cd "$dir" && assimp export box.obj box.fbx > /dev/null)
cp "$dir/box.fbx" "$out"
