#!/bin/sh
# run_fuzz.sh SECONDS [BUILD_DIR] - bounded libFuzzer runs of the .skf targets (CI).
# Builds BUILD_DIR (default build-fuzz) with clang and -DSKINKIT_FUZZ=ON if needed, then runs each target for
# SECONDS seconds. Exit status: non-zero if a target crashes or leaks. Corpora are kept in BUILD_DIR/fuzz-corpus.
set -eu
secs=${1:-60}
here=$(cd "$(dirname "$0")/../.." && pwd)
bdir=${2:-$here/build-fuzz}
if [ ! -x "$bdir/fuzz_skf_decode" ] || [ ! -x "$bdir/fuzz_skf_roundtrip" ]; then
  cmake -S "$here" -B "$bdir" -DCMAKE_C_COMPILER=clang -DSKINKIT_FUZZ=ON -DSKINKIT_BENCH=OFF >/dev/null
fi
cmake --build "$bdir" --target fuzz_skf_decode fuzz_skf_roundtrip -j2 >/dev/null
status=0
for t in fuzz_skf_decode fuzz_skf_roundtrip; do
  mkdir -p "$bdir/fuzz-corpus/$t"
  echo "== $t (${secs}s)"
  if ! "$bdir/$t" -max_total_time="$secs" -max_len=65536 -rss_limit_mb=2048 -print_final_stats=1 \
      "$bdir/fuzz-corpus/$t" 2>"$bdir/$t.log"; then
    status=1
    tail -40 "$bdir/$t.log"
  fi
  grep -E "stat::number_of_executed_units|stat::peak_rss_mb" "$bdir/$t.log" || true
done
exit $status
