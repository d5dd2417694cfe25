#!/usr/bin/env bash
# test.sh - the second README command: the whole test suite. .ci/run calls exactly this (no flags).
#  --quick: stage 1 only, release build + the unit-labelled tests (ctest -L unit); no install/addon/Blender/slow
#  tests, no sanitizer build, no fuzzing. For the edit-build-test loop; CI always runs the full suite.
#  1. Release build with -Werror: unit tests (Check), install/consumer test, addon tests (plain Python and
#     real headless Blender), all through CTest.
#  2. AddressSanitizer + UndefinedBehaviorSanitizer build: the unit tests again.
#  3. A short bounded libFuzzer run of every fuzz target (clang).
# Corpus tests read SKINKIT_ASSETS (.ci/run sets it to ../shared/assets); unset, they are skipped with one line.
set -uo pipefail
cd "$(dirname "$0")/.."
QUICK=0
for arg in "$@"; do
  case "$arg" in
    --quick) QUICK=1 ;;
    -h|--help) sed -n '2,9p' "$0"; exit 0 ;;
    *) echo "test.sh: unknown option $arg (see scripts/test.sh --help)" >&2; exit 2 ;;
  esac
done
JOBS=$(nproc)
FUZZ_SECONDS=${SKINKIT_FUZZ_SECONDS:-15}
passed=0; failed=0
summary() { echo "$1 passed, $2 failed"; }
# Each stage says what it expects to take before it starts and what it took after (figures from 2 shared cores,
# build/ already built once; a first build from scratch adds about 5 minutes to stage 1: --quick measured 6m24s
# from scratch, 1m30s with build/ built, on 2 shared cores).
STAGE_START=0
stage() { echo "== $1 (about $2 on $(nproc) cores)"; STAGE_START=$SECONDS; }
took() { local s=$((SECONDS - STAGE_START)); printf '   took %dm%02ds\n' $((s / 60)) $((s % 60)); }

run_ctest() { # build-dir label-args...
  local dir=$1; shift
  local log; log=$(mktemp)
  (cd "$dir" && ctest --output-on-failure -j"$JOBS" "$@") 2>&1 | tee "$log"
  local line; line=$(grep -E "tests passed, [0-9]+ tests failed out of [0-9]+" "$log" | tail -1)
  local total fails
  total=$(sed -E 's/.* out of ([0-9]+).*/\1/' <<<"$line"); fails=$(sed -E 's/.* ([0-9]+) tests failed.*/\1/' <<<"$line")
  if [ -z "$line" ]; then total=1; fails=1; fi
  passed=$((passed + total - fails)); failed=$((failed + fails))
  rm -f "$log"
}

if [ "$QUICK" = 1 ]; then
  stage "[1/1] quick: release build (-Werror) + unit tests (ctest -L unit)" "2 min, 7 from scratch,"
else
  stage "[1/3] release build (-Werror) + every CTest test" "4 min from scratch"
fi
if cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DSKINKIT_WERROR=ON >/dev/null && cmake --build build -j"$JOBS"; then
  if [ "$QUICK" = 1 ]; then run_ctest build -L unit; else run_ctest build; fi
else
  echo "release build FAILED"; failed=$((failed + 1))
fi
took
if [ "$QUICK" = 1 ]; then
  summary "$passed" "$failed"
  [ "$failed" -eq 0 ]
  exit
fi

stage "[2/3] sanitizer build (ASan + UBSan), unit tests" "6 min"
if cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DSKINKIT_WERROR=ON -DSKINKIT_SANITIZE=ON -DSKINKIT_BENCH=OFF >/dev/null \
   && cmake --build build-asan -j"$JOBS"; then
  ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 run_ctest build-asan -L unit
else
  echo "sanitizer build FAILED"; failed=$((failed + 1))
fi
took

NFUZZ=$(ls tests/fuzz/fuzz_*.c 2>/dev/null | wc -l)
stage "[3/3] fuzz targets, ${FUZZ_SECONDS}s each" "$((3 + (NFUZZ * FUZZ_SECONDS + 59) / 60)) min (clang build + ${NFUZZ} targets)"
if ls tests/fuzz/fuzz_*.c >/dev/null 2>&1; then
  if CC=clang cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSKINKIT_FUZZ=ON -DSKINKIT_BENCH=OFF -DSKINKIT_TESTS=ON >/dev/null \
     && cmake --build build-fuzz -j"$JOBS" --target fuzzers && bash scripts/fuzz.sh build-fuzz "$FUZZ_SECONDS"; then
    passed=$((passed + 1))
  else
    echo "fuzzing FAILED"; failed=$((failed + 1))
  fi
else
  echo "(no fuzz targets yet)"
fi
took

summary "$passed" "$failed"
[ "$failed" -eq 0 ]
