#!/bin/sh
# Runs the addon tests inside headless Blender against a built addon zip.
#   tests/addon/run_blender_tests.sh build/skinkit_addon.zip [blender] [script]
# script: blender_test_addon.py (default; operators, auto bind) or blender_test_io.py (file import/export, bind on
# a selection, transfer). The addon is installed into a throw-away user scripts/config dir, never into the user's
# own Blender setup.
set -eu
ZIP=${1:?usage: run_blender_tests.sh path/to/skinkit_addon.zip [blender] [script]}
BLENDER=${2:-${BLENDER:-blender}}
SCRIPT=${3:-blender_test_addon.py}
HERE=$(cd "$(dirname "$0")" && pwd)
case "$ZIP" in /*) ;; *) ZIP="$(pwd)/$ZIP" ;; esac
[ -f "$ZIP" ] || { echo "run_blender_tests.sh: no such zip: $ZIP (build it: cmake --build build --target addon)"; exit 2; }
[ -f "$HERE/$SCRIPT" ] || { echo "run_blender_tests.sh: no such test script: $HERE/$SCRIPT"; exit 2; }
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT INT TERM
mkdir -p "$TMP/scripts" "$TMP/config"
# The library must come from the installed zip: do not let a developer's override leak in.
unset SKINKIT_LIBRARY
BLENDER_USER_SCRIPTS="$TMP/scripts" BLENDER_USER_CONFIG="$TMP/config" \
  "$BLENDER" -b --factory-startup --python "$HERE/$SCRIPT" --python-exit-code 1 -- "$ZIP"
