#!/usr/bin/env bash
# test.sh - the second README command: the whole test suite. .ci/run calls exactly this.
#  1. Release build with -Werror: unit tests (Check), install/consumer test, addon tests (plain Python and
#     real headless Blender), all through CTest.
#  2. AddressSanitizer + UndefinedBehaviorSanitizer build: the unit tests again.
#  3. A short bounded libFuzzer run of every fuzz target (clang).
# Corpus tests read SKINKIT_ASSETS (.ci/run sets it to ../shared/assets); unset, they are skipped with one line.
set -uo pipefail
cd "$(dirname "$0")/.."
JOBS=$(nproc)
FUZZ_SECONDS=${SKINKIT_FUZZ_SECONDS:-15}
passed=0; failed=0
summary() { echo "$1 passed, $2 failed"; }

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

echo "== [1/3] release build (-Werror)"
if cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DSKINKIT_WERROR=ON >/dev/null && cmake --build build -j"$JOBS"; then
  run_ctest build
else
  echo "release build FAILED"; failed=$((failed + 1))
fi

echo "== [2/3] sanitizer build (ASan + UBSan), unit tests"
if cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DSKINKIT_WERROR=ON -DSKINKIT_SANITIZE=ON -DSKINKIT_BENCH=OFF >/dev/null \
   && cmake --build build-asan -j"$JOBS"; then
  ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 run_ctest build-asan -L unit
else
  echo "sanitizer build FAILED"; failed=$((failed + 1))
fi

echo "== [3/3] fuzz targets, ${FUZZ_SECONDS}s each"
if ls tests/fuzz/fuzz_*.c >/dev/null 2>&1; then
  if CC=clang cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSKINKIT_FUZZ=ON -DSKINKIT_BENCH=OFF -DSKINKIT_TESTS=ON >/dev/null \
     && cmake --build build-fuzz -j"$JOBS" && bash scripts/fuzz.sh build-fuzz "$FUZZ_SECONDS"; then
    passed=$((passed + 1))
  else
    echo "fuzzing FAILED"; failed=$((failed + 1))
  fi
else
  echo "(no fuzz targets yet)"
fi

summary "$passed" "$failed"
[ "$failed" -eq 0 ]
