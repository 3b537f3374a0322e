#!/usr/bin/env bash
# One call on the GPU machine: build with all cores, run the GPU tests and the benchmark suites,
# write full results under $OUT, print a short table last.
#
#   bash tools/gpu_run.sh [--no-tests] [--suites "seed llm"] [--bench-budget SECONDS] [--pytest-args "..."]
#
# Results: $OUT/build.log, $OUT/tests.log, $OUT/junit.xml, $OUT/bench.log, $OUT/reports.tar.gz
# (the device tool brings back at most 8 files, two folders deep, so reports travel as one archive).
set -uo pipefail
export PYTHONUNBUFFERED=1
export CMAKE_BUILD_PARALLEL_LEVEL=${CMAKE_BUILD_PARALLEL_LEVEL:-$(nproc)}
OUT=${OUT:-/tmp/origami_out}
mkdir -p "$OUT"

run_tests=1
suites="seed"
bench_budget=300
pytest_args=""
build_args=""
while [ $# -gt 0 ]; do
  case "$1" in
    --no-tests) run_tests=0 ;;
    --suites) suites="$2"; shift ;;
    --bench-budget) bench_budget="$2"; shift ;;
    --pytest-args) pytest_args="$2"; shift ;;
    --build-args) build_args="$2"; shift ;;
    *) echo "unknown argument $1" >&2; exit 2 ;;
  esac
  shift
done

t0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem --format=csv | tee "$OUT/device.txt"
echo "== build ($CMAKE_BUILD_PARALLEL_LEVEL jobs)"
if ! python3 -m pip install --no-build-isolation --no-deps -v -Cbuild-dir=/tmp/origami_build $build_args . >"$OUT/build.log" 2>&1; then
  tail -40 "$OUT/build.log"; echo "BUILD FAILED"; exit 1
fi
t_build=$(( $(date +%s) - t0 ))
echo "build: ${t_build}s"
cd /tmp  # import the installed package, not the source tree

test_summary="(skipped)"
if [ "$run_tests" = 1 ]; then
  echo "== tests"
  python3 -m pytest "$OLDPWD/tests" -q -x --timeout=900 -p no:cacheprovider --junitxml="$OUT/junit.xml" $pytest_args \
    >"$OUT/tests.log" 2>&1
  test_summary=$(tail -1 "$OUT/tests.log")
  grep -E "FAILED|ERROR" "$OUT/tests.log" | head -20
fi

bench_summary=""
if [ -n "$suites" ] && [ "$suites" != "none" ]; then
  echo "== benchmarks: $suites (budget ${bench_budget}s)"
  for s in $suites; do
    python3 -m origami_nv bench run --suite "$s" --out "$OUT/reports" --time-budget "$bench_budget" \
      >>"$OUT/bench.log" 2>&1
    bench_summary+=$'\n'"$(tail -30 "$OUT/bench.log")"
  done
  (cd "$OUT" && tar czf reports.tar.gz reports && rm -rf reports)
fi

echo
echo "== summary ($(( $(date +%s) - t0 ))s total, build ${t_build}s)"
echo "tests: $test_summary"
echo "$bench_summary"
