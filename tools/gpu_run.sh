#!/usr/bin/env bash
# One call on the GPU machine: build with all cores, run the GPU tests and the benchmark suites,
# write full results under $OUT, print a short table last.
#
#   bash tools/gpu_run.sh [--no-tests] [--calibrate] [--suites "seed llm"] [--bench-budget SECONDS]
#                         [--pytest-args "..."] [--build-args "..."] [--bench-args "..."]
#                         [--head-to-head "M,N,K M,N,K ..."]   (benchmarks/head_to_head.py, both dtypes)
#                         [--small-gemm]   (benchmarks/small_gemm.py: PDL on/off, Triton BF, cuBLAS)
#                         [--vs-cublas "decode mid longk odd shortk"] [--vs-cublas-args "--dtypes float16 bfloat16"]
#                                          (benchmarks/vs_cublas.py: the pick vs cuBLAS per shape set)
#                         [--op-overhead]  (benchmarks/op_overhead.py: eager host time per call)
#                         [--deadline SECONDS]  (default 540: the benchmark budget is cut to what is left of it
#                                          after the build and the tests, so the run ends, and packs its results,
#                                          inside the device tool's 600 s per command)
#
# Results: $OUT/logs.tar.gz (device.txt, build.log, smoke.txt, tests.log, bench.log), reports.tar.gz,
#          calibration.json + gpus.json (with --calibrate: the tool's own table update)
# (the device tool brings back at most 8 files, two folders deep, so reports travel as one archive).
set -uo pipefail
export PYTHONUNBUFFERED=1
export CMAKE_BUILD_PARALLEL_LEVEL=${CMAKE_BUILD_PARALLEL_LEVEL:-$(nproc)}
OUT=${OUT:-/tmp/origami_out}
mkdir -p "$OUT"

run_tests=1
calibrate=0
bench_args=""
suites="seed"
bench_budget=300
pytest_args=""
build_args=""
h2h_sizes=""
small_gemm=0
vs_sets=""
vs_args=""
op_overhead=0
deadline=540
while [ $# -gt 0 ]; do
  case "$1" in
    --no-tests) run_tests=0 ;;
    --calibrate) calibrate=1 ;;
    --bench-args) bench_args="$2"; shift ;;
    --suites) suites="$2"; shift ;;
    --bench-budget) bench_budget="$2"; shift ;;
    --pytest-args) pytest_args="$2"; shift ;;
    --build-args) build_args="$2"; shift ;;
    --head-to-head) h2h_sizes="$2"; shift ;;
    --small-gemm) small_gemm=1 ;;
    --vs-cublas) vs_sets="$2"; shift ;;
    --vs-cublas-args) vs_args="$2"; shift ;;
    --op-overhead) op_overhead=1 ;;
    --deadline) deadline="$2"; shift ;;
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
repo=$PWD
cd /tmp  # import the installed package, not the source tree

echo "== smoke"
timeout 120 python3 - >"$OUT/smoke.txt" 2>&1 <<'PY'
import torch, origami_nv
print(origami_nv.select(4096, 4096, 4096))
a = torch.randn(4096, 4096, device="cuda", dtype=torch.float16)
b = torch.randn(4096, 4096, device="cuda", dtype=torch.float16)
c = origami_nv.matmul(a, b)
ref = a.float() @ b.float()
print("picked", torch.ops.origami_nv.select_config(4096, 4096, 4096, "float16"),
      "rel err", float((c.float() - ref).norm() / ref.norm()))
PY
echo "smoke rc=$?"; tail -3 "$OUT/smoke.txt"

if [ "$calibrate" = 1 ]; then
  echo "== calibrate"
  cp "$repo/python/origami_nv/data/gpus.json" "$OUT/gpus.json"
  python3 -m origami_nv calibrate --out "$OUT/calibration.json" --write-table --table "$OUT/gpus.json" \
    >"$OUT/calibrate.log" 2>&1
  echo "calibrate rc=$?"; tail -25 "$OUT/calibrate.log"
fi

test_summary="(skipped)"
if [ "$run_tests" = 1 ]; then
  echo "== tests"
  # Timing-sensitive GPU tests (calibration bounds, the benchmark harness) run alone; the rest in
  # parallel processes sharing the GPU.
  timeout "${TEST_TIMEOUT:-330}" python3 -m pytest "$repo/tests" -q -rfEs -n "${XDIST:-4}" -p no:cacheprovider \
    --ignore="$repo/tests/test_calibrate_gpu.py" --ignore="$repo/tests/test_bench_gpu.py" $pytest_args \
    >"$OUT/tests.log" 2>&1
  echo "parallel tests rc=$?"
  timeout 150 python3 -m pytest "$repo/tests/test_calibrate_gpu.py" "$repo/tests/test_bench_gpu.py" -q -rfEs \
    -p no:cacheprovider >>"$OUT/tests.log" 2>&1
  echo "serial tests rc=$?"
  test_summary=$(grep -E "^[0-9]+ (passed|failed)|passed|failed" "$OUT/tests.log" | grep -E " in [0-9.]+s" | tr '\n' ';')
  grep -E "FAILED|ERROR" "$OUT/tests.log" | head -20
fi

bench_summary=""
# What is left of the deadline, less a margin for packing the results (a command killed at the device tool's
# limit loses every file not yet under $OUT in a form the tool brings back: on 2026-11-25 a 350 s budget after a
# 290 s cold build and smoke test lost a whole shard).
left=$(( deadline - ( $(date +%s) - t0 ) - 30 ))
if [ -n "$suites" ] && [ "$suites" != "none" ] && [ "$left" -lt "${bench_budget%.*}" ]; then
  echo "benchmark budget ${bench_budget}s cut to ${left}s (deadline ${deadline}s)"
  bench_budget=$left
fi
if [ -n "$suites" ] && [ "$suites" != "none" ] && [ "${bench_budget%.*}" -lt 30 ]; then
  echo "== benchmarks skipped: ${bench_budget}s left before the deadline"
  suites=none
fi
if [ -n "$suites" ] && [ "$suites" != "none" ]; then
  echo "== benchmarks: $suites (budget ${bench_budget}s)"
  # A suite may carry its own flags after a colon, commas for spaces: "llm:--no-seed,--bf-limit,40".
  for spec in $suites; do
    s=${spec%%:*}
    extra=""
    case "$spec" in *:*) extra=$(echo "${spec#*:}" | tr ',' ' ') ;; esac
    python3 -m origami_nv bench run --suite "$s" --out "$OUT/reports" --time-budget "$bench_budget" $bench_args $extra \
      >>"$OUT/bench.log" 2>&1
    bench_summary+=$'\n'"$(tail -30 "$OUT/bench.log")"
  done
  # Finished shards are committed compressed (the bench reads .jsonl.xz and .jsonl.gz like .jsonl; xz where the
  # machine has it: ~35 % smaller).
  if command -v xz >/dev/null; then find "$OUT/reports" -name "shard-*.jsonl" -exec xz -9 {} +
  else find "$OUT/reports" -name "shard-*.jsonl" -exec gzip -9 {} +; fi
  (cd "$OUT" && tar czf reports.tar.gz reports && rm -rf reports)
fi

h2h_summary=""
if [ -n "$h2h_sizes" ]; then
  echo "== head-to-head vs cuBLAS: $h2h_sizes"
  python3 "$repo/benchmarks/head_to_head.py" --sizes $h2h_sizes --out "$OUT/head_to_head" >"$OUT/head_to_head.log" 2>&1
  echo "head-to-head rc=$?"
  h2h_summary=$(tail -8 "$OUT/head_to_head.log")
fi

small_summary=""
if [ "$small_gemm" = 1 ]; then
  echo "== small GEMMs: PDL on/off, Triton BF, cuBLAS"
  python3 "$repo/benchmarks/small_gemm.py" --out "$OUT/small_gemm" >"$OUT/small_gemm.log" 2>&1
  echo "small-gemm rc=$?"
  small_summary=$(tail -10 "$OUT/small_gemm.log")
fi

vs_summary=""
if [ -n "$vs_sets" ]; then
  echo "== the pick vs cuBLAS: $vs_sets"
  python3 "$repo/benchmarks/vs_cublas.py" --sets $vs_sets $vs_args --out "$OUT/vs_cublas" >"$OUT/vs_cublas.log" 2>&1
  echo "vs-cublas rc=$?"
  vs_summary=$(grep -E "shapes  geomean|^total" "$OUT/vs_cublas.log")
fi

op_summary=""
if [ "$op_overhead" = 1 ]; then
  echo "== eager host time per call"
  python3 "$repo/benchmarks/op_overhead.py" --out "$OUT/op_overhead" >"$OUT/op_overhead.log" 2>&1
  echo "op-overhead rc=$?"
  op_summary=$(tail -6 "$OUT/op_overhead.log")
fi

# The device tool brings back at most 8 files: logs travel as one archive.
(cd "$OUT" && tar czf logs.tar.gz --remove-files $(ls *.log *.txt 2>/dev/null | grep -v '^run.log$'))
# benchmark tables travel as one archive too (the 8-files limit)
(cd "$OUT" && ls *.md *.json >/dev/null 2>&1 && tar czf results.tar.gz --remove-files $(ls *.md *.json 2>/dev/null))

echo
echo "== summary ($(( $(date +%s) - t0 ))s total, build ${t_build}s)"
echo "tests: $test_summary"
echo "$bench_summary"
[ -n "$h2h_summary" ] && echo "$h2h_summary"
[ -n "$small_summary" ] && echo "$small_summary"
[ -n "$vs_summary" ] && echo "$vs_summary"
[ -n "$op_summary" ] && echo "$op_summary"
true
