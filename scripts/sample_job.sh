#!/usr/bin/env bash
# sample_job.sh - the README's main job, on samples our own code generated (tests/data/, see its README):
#  1. pose the cylinder rig and print LBS/DQS/COR deformation figures;
#  2. inspect and validate the samples (the drifted one has weight-sum findings: exit 1 is expected);
#  3. convert it with --normalize and validate the result (must be clean).
set -euo pipefail
cd "$(dirname "$0")/.."
B=${SKINKIT_BUILD:-build}
OUT=$B/sample
mkdir -p "$OUT"
"$B/skinkit" --version
echo; echo "== deform the sample rig"
"$B/skinkit" demo
echo; echo "== inspect"
"$B/skinkit" info tests/data/cylinder_rig_drift.glb
echo; echo "== validate (the drifted sample has findings)"
set +e
"$B/skinkit" validate tests/data/cylinder_rig.glb tests/data/cylinder_rig_drift.glb
rc=$?
set -e
[ "$rc" -eq 1 ] || { echo "expected findings (exit 1), got exit $rc" >&2; exit 1; }
echo; echo "== convert --normalize, then validate again"
"$B/skinkit" convert tests/data/cylinder_rig_drift.glb "$OUT/cylinder_rig_fixed.glb" --normalize --force
"$B/skinkit" validate "$OUT/cylinder_rig_fixed.glb"
echo; echo "sample job done: fixed file in $OUT/cylinder_rig_fixed.glb"
