#!/usr/bin/env bash
# fuzz.sh [--long] BUILD_DIR SECONDS - runs every libFuzzer target built in BUILD_DIR (cmake -DSKINKIT_FUZZ=ON
# with clang) for SECONDS each, seeded from tests/fuzz/seeds-<target>/ and from the $SKINKIT_ASSETS files each
# target reads (fuzz_import: every model format; fuzz_gltf: .glb; fuzz_gltf_edit: .glb and .gltf; fuzz_iqm: .iqm;
# fuzz_md5: .md5mesh;
# fuzz_fbx_fixup and fuzz_fbx_edit: .fbx, the latter also the Blender-written .fbx of tests/data and tests/unskinned; fuzz_collada_clips: .dae, also those of tests/data).
# Prints one line per target with its exec count; fails if a target finds a crash (the reproducer is left in
# BUILD_DIR). --long (a run by hand before changing a parser): also appends "FUZZ <target> <seconds> <execs>
# <execs/s> <corpus files>" per target to BUILD_DIR/fuzz-stats.txt, for docs/fuzzing.md.
# FUZZ_TARGETS="fuzz_iqm fuzz_fbx_fixup" limits the run to those targets; FUZZ_RUNS=N stops each target after N
# executions (SECONDS stays the cap), e.g. FUZZ_RUNS=10000000 for the ten-million-execution long run;
# FUZZ_MAX_LEN=N caps the input length (libFuzzer otherwise takes the largest seed's); FUZZ_TIMEOUT=S is the
# per-input time limit (20 s; a long run at nice 19 on a shared machine needs more, or CPU starvation reads as a hang).
set -uo pipefail
cd "$(dirname "$0")/.."
LONG=0
if [ "${1:-}" = --long ]; then LONG=1; shift; fi
B=${1:-build-fuzz}; SECS=${2:-20}
status=0

# corpus_seeds NAME DIR: the $SKINKIT_ASSETS files of the formats target NAME reads, written into DIR (prefixed
# with the selector byte the target expects); prints DIR when it holds any.
corpus_seeds() {
  local name=$1 sd=$2 i=0 f e
  [ -n "${SKINKIT_ASSETS:-}" ] && [ -d "$SKINKIT_ASSETS" ] || return 0
  rm -rf "$sd"; mkdir -p "$sd"
  case "$name" in
    fuzz_import)
      # one seed per corpus file, first byte selecting the extension the fuzz target writes (see kExt there)
      while IFS= read -r -d '' f; do
        case "${f##*.}" in glb) e=0;; gltf) e=1;; fbx) e=2;; dae) e=3;; x|X) e=4;; b3d) e=5;; md5mesh) e=6;; esac
        { printf "\\x$(printf %02x $e)"; cat "$f"; } > "$sd/seed$i"; i=$((i+1))
      done < <(find "$SKINKIT_ASSETS" -type f \( -name '*.glb' -o -name '*.gltf' -o -name '*.fbx' -o -name '*.dae' \
                 -o -iname '*.x' -o -name '*.b3d' -o -name '*.md5mesh' \) -size -400k -print0) ;;
    fuzz_gltf)
      # self-contained glTF only: the target reads from memory, without a folder for external buffers
      while IFS= read -r -d '' f; do cp "$f" "$sd/seed$i"; i=$((i+1)); done \
        < <(find "$SKINKIT_ASSETS" -type f -name '*.glb' -size -1000k -print0) ;;
    fuzz_gltf_edit)
      # self-contained glTF (a .glb, or a .gltf with data: URIs), first byte the skin change and weight type
      while IFS= read -r -d '' f; do
        { printf "\\x$(printf %02x $((i % 64)))"; cat "$f"; } > "$sd/seed$i"; i=$((i+1))
      done < <(find "$SKINKIT_ASSETS" -type f \( -name '*.glb' -o -name '*.gltf' \) -size -1000k -print0) ;;
    fuzz_iqm|fuzz_collada_clips|fuzz_dae_edit)
      local ext=iqm; [ "$name" != fuzz_iqm ] && ext=dae
      while IFS= read -r -d '' f; do cp "$f" "$sd/seed$i"; i=$((i+1)); done \
        < <(find "$SKINKIT_ASSETS" -type f -iname "*.$ext" -size -1000k -print0) ;;
    fuzz_md5)
      while IFS= read -r -d '' f; do cp "$f" "$sd/seed$i"; i=$((i+1)); done \
        < <(find "$SKINKIT_ASSETS" -type f -iname '*.md5mesh' -size -1000k -print0) ;;
    fuzz_fbx_edit)
      while IFS= read -r -d '' f; do cp "$f" "$sd/seed$i"; i=$((i+1)); done \
        < <(find "$SKINKIT_ASSETS" -type f -iname '*.fbx' -size -1000k -print0) ;;
    fuzz_fbx_fixup)
      # binary FBX: modes 0 (repair), 1 (stop times, unwrapping) and 2 (written as ASCII text); ASCII FBX: mode 3
      # (the stacks' starts; fuzz_fbx_fixup.c)
      while IFS= read -r -d '' f; do
        if head -c 18 "$f" | grep -q "Kaydara FBX Binary"; then
          for e in 0 1 2; do { printf "\\x$(printf %02x $e)"; cat "$f"; } > "$sd/seed$i.$e"; done
        else
          { printf "\\x03"; cat "$f"; } > "$sd/seed$i.3"
        fi
        i=$((i+1))
      done < <(find "$SKINKIT_ASSETS" -type f -iname '*.fbx' -size -1000k -print0) ;;
  esac
  [ "$i" -gt 0 ] && echo "$sd"
}

for bin in "$B"/fuzz_*; do
  [ -x "$bin" ] || continue
  name=$(basename "$bin")
  case "$name" in *.log|*.txt) continue;; esac
  if [ -n "${FUZZ_TARGETS:-}" ] && [[ " $FUZZ_TARGETS " != *" $name "* ]]; then continue; fi
  work="$B/corpus-$name"; mkdir -p "$work"
  seeds=()
  [ -d "tests/fuzz/seeds-$name" ] && seeds+=("tests/fuzz/seeds-$name")
  if [ "$name" = fuzz_fbx_edit ] || [ "$name" = fuzz_dae_edit ] || [ "$name" = fuzz_collada_clips ]; then # our
    # Blender-written fixtures (libFuzzer takes folders, not files, as seeds; blender_tips.dae for the tips' scanner)
    ext=fbx; [ "$name" != fuzz_fbx_edit ] && ext=dae
    d="$B/seeds-data-$name"; rm -rf "$d"; mkdir -p "$d"; cp tests/data/*."$ext" tests/unskinned/*."$ext" "$d"/
    seeds+=("$d")
  fi
  sd=$(corpus_seeds "$name" "$B/seeds-corpus-$name")
  [ -n "$sd" ] && seeds+=("$sd")
  log="$B/$name.log"
  # -malloc_limit_mb: a single allocation past 2 GiB from an input of at most a few MB is a count that was not
  # capped before allocating; libFuzzer reports it as a crash
  # full unwinding on malloc lets the LSan suppressions see the libassimp frames (fuzz_import); the in-process
  # targets never reach Assimp and run twice as fast without it
  unwind=1; [ "$name" = fuzz_import ] && unwind=0
  runs=(); [ -n "${FUZZ_RUNS:-}" ] && runs=(-runs="$FUZZ_RUNS")
  [ -n "${FUZZ_MAX_LEN:-}" ] && runs+=(-max_len="$FUZZ_MAX_LEN")
  t0=$(date +%s)
  ASAN_OPTIONS=detect_leaks=1:fast_unwind_on_malloc=$unwind LSAN_OPTIONS=suppressions=$PWD/tests/lsan.supp "$bin" -print_final_stats=1 -max_total_time="$SECS" -rss_limit_mb=4096 -malloc_limit_mb=2048 -timeout="${FUZZ_TIMEOUT:-20}" -artifact_prefix="$B/$name-" \
    "${runs[@]}" "$work" "${seeds[@]}" >"$log" 2>&1
  rc=$?
  took=$(( $(date +%s) - t0 )); [ "$took" -lt 1 ] && took=1
  execs=$(grep -Eo "stat::number_of_executed_units: *[0-9]+" "$log" | grep -Eo "[0-9]+$" | tail -1)
  [ -z "$execs" ] && execs=$(grep -Eo "#[0-9]+" "$log" | tail -1 | tr -d '#')
  if [ $rc -eq 0 ]; then
    echo "fuzz $name: ${took}s, ${execs:-?} executions, no crash"
  else
    echo "fuzz $name: FAILED (exit $rc) after ${execs:-?} executions; log $log"
    # the report's head (what failed, where: the CI log keeps only this output) and then its last lines
    grep -E -m 1 -A 14 "ERROR: |runtime error|deadly signal|timeout after|out-of-memory" "$log" | grep -v "^ *0x"
    tail -6 "$log"; status=1
  fi
  if [ $LONG -eq 1 ]; then
    files=$(find "$work" -type f | wc -l)
    rate=$(( ${execs:-0} / took ))
    line="FUZZ $name $took ${execs:-0} $rate $files"
    [ $rc -ne 0 ] && line="$line FAILED"
    echo "$line" | tee -a "$B/fuzz-stats.txt"
  fi
done
exit $status
