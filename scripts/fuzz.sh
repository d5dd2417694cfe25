#!/usr/bin/env bash
# fuzz.sh BUILD_DIR SECONDS - runs every libFuzzer target built in BUILD_DIR (cmake -DSKINKIT_FUZZ=ON with clang)
# for SECONDS each, seeded from tests/fuzz/seeds-<target>/ and, for the import target, from $SKINKIT_ASSETS.
# Prints the exec count of each run; fails if a target finds a crash (the reproducer is left in BUILD_DIR).
set -uo pipefail
cd "$(dirname "$0")/.."
B=${1:-build-fuzz}; SECS=${2:-20}
status=0
for bin in "$B"/fuzz_*; do
  [ -x "$bin" ] || continue
  name=$(basename "$bin")
  work="$B/corpus-$name"; mkdir -p "$work"
  seeds=()
  [ -d "tests/fuzz/seeds-$name" ] && seeds+=("tests/fuzz/seeds-$name")
  if [ "$name" = fuzz_import ] && [ -n "${SKINKIT_ASSETS:-}" ] && [ -d "$SKINKIT_ASSETS" ]; then
    # one seed per corpus file, first byte selecting the extension the fuzz target writes (see kExt there)
    sd="$B/seeds-import"; mkdir -p "$sd"
    i=0
    for f in $(find "$SKINKIT_ASSETS" -type f \( -name '*.glb' -o -name '*.gltf' -o -name '*.fbx' -o -name '*.dae' -o -iname '*.x' -o -name '*.b3d' -o -name '*.md5mesh' \) -size -400k); do
      case "${f##*.}" in glb) e=0;; gltf) e=1;; fbx) e=2;; dae) e=3;; x|X) e=4;; b3d) e=5;; md5mesh) e=6;; esac
      { printf "\\x$(printf %02x $e)"; cat "$f"; } > "$sd/seed$i"; i=$((i+1))
    done
    seeds+=("$sd")
  fi
  log="$B/$name.log"
  ASAN_OPTIONS=detect_leaks=1:fast_unwind_on_malloc=0 LSAN_OPTIONS=suppressions=$PWD/tests/lsan.supp "$bin" -print_final_stats=1 -max_total_time="$SECS" -rss_limit_mb=4096 -timeout=20 -artifact_prefix="$B/$name-" \
    "$work" "${seeds[@]}" >"$log" 2>&1
  rc=$?
  execs=$(grep -Eo "stat::number_of_executed_units: *[0-9]+" "$log" | grep -Eo "[0-9]+$" | tail -1)
  [ -z "$execs" ] && execs=$(grep -Eo "#[0-9]+" "$log" | tail -1 | tr -d '#')
  if [ $rc -eq 0 ]; then
    echo "fuzz $name: ${SECS}s, ${execs:-?} executions, no crash"
  else
    echo "fuzz $name: FAILED (exit $rc) after ${execs:-?} executions; log $log"; tail -30 "$log"; status=1
  fi
done
exit $status
