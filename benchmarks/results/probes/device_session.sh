#!/usr/bin/env bash
# The device call of a session, in one command of at most 600 s (forty-third session on: the per-session
# device_sessionNN.sh scripts before it repeated these steps; they stay as the records of their sessions):
#   bash benchmarks/results/probes/device_session.sh STEP...
# Steps, in the order given:
#   tests          the whole test suite: 6 processes sharing the GPU, then the timing-sensitive calibration and harness
#                  tests alone (~3 min on the H200; logs under $OUT)
#   kernels        the build's kernel table to $OUT/kernel_resources.json (the reference table's source)
#   probe:PATH     a Python probe of benchmarks/results/probes (output to $OUT/NAME.txt)
#   SUITE          time what the installed model adds to the suite's stored data (its new picks, missing launches),
#                  filed under this machine's GPU (reports/nvidia-h100 or nvidia-h200); shards back as $OUT/shards.tar
#   retime:SUITE   the same, and re-time the stored launches a later kernel change altered (bench run --retime-stale;
#                  bench/configs.py KERNEL_CHANGES, e.g. 15: the PDL fill rule's grids)
#   vs:NAME:SETS:DTYPES[:ROUNDS[:VAR=VALUE]]   benchmarks/vs_cublas.py --sets SETS --dtypes DTYPES --rounds ROUNDS
#                  (default 2; lists comma-separated) into $OUT/NAME_<gpu>.{json,md}, with VAR=VALUE in its environment
#                  if given, e.g. vs:vs_cublas_fp32_tf32:squares,squares-nt,seed:float32,tfloat32:4
#                  or vs:copy_off:misaligned,odd:float16:1:ORIGAMI_NV_COPY_PDL=0
#   e2e:NAME[:BATCHES]   benchmarks/e2e_llama.py, Llama-3-8B under torch.compile, batch 1 and 8 (or BATCHES, e.g. 1:
#                  half the grid, when a call cannot hold the whole), prefill 512 and 2048, 128 decode steps, cuBLAS
#                  against the dispatcher (issue 14's grid) into $OUT/NAME_<gpu>/e2e_llama.*
# The package is built first unless the op already loads (a warm machine).
set -u
source benchmarks/results/probes/device_lib.sh
device_begin
for step in "$@"; do
  case "$step" in
    tests)
      (cd /tmp && timeout $(( 580 - ($(date +%s) - t0) )) python3 -m pytest "$R/tests" -q -rfEs -n 6 -p no:cacheprovider \
        --ignore="$R/tests/test_calibrate_gpu.py" --ignore="$R/tests/test_bench_gpu.py" > "$OUT/tests_parallel.log" 2>&1)
      echo "parallel tests rc=$?: $(tail -1 "$OUT/tests_parallel.log")"
      (cd /tmp && timeout $(( 590 - ($(date +%s) - t0) )) python3 -m pytest "$R/tests/test_calibrate_gpu.py" \
        "$R/tests/test_bench_gpu.py" -q -rfEs -p no:cacheprovider > "$OUT/tests_serial.log" 2>&1)
      echo "serial tests rc=$?: $(tail -1 "$OUT/tests_serial.log")"
      grep -h -E "^(FAILED|ERROR)" "$OUT"/tests_*.log | head -20 ;;
    kernels)
      cp "$(python3 -c 'import origami_nv, os; print(os.path.dirname(origami_nv.__file__))')/data/kernel_resources.json" \
        "$OUT/" ;;
    probe:*)
      p=${step#probe:}; n=$(basename "$p" .py)
      (cd /tmp && timeout $(( 580 - ($(date +%s) - t0) )) python3 "$R/$p" > "$OUT/${n}_$gpu.txt" 2>&1)
      echo "$n rc=$?"; tail -5 "$OUT/${n}_$gpu.txt" ;;
    vs:*)
      IFS=: read -r _ n sets dts rounds envset <<< "$step"
      (cd /tmp && env ${envset:-ORIGAMI_NV_VS_STEP=1} timeout $(( 585 - ($(date +%s) - t0) )) python3 "$R/benchmarks/vs_cublas.py" --sets ${sets//,/ } \
        --dtypes ${dts//,/ } --rounds "${rounds:-2}" --out "$OUT/${n}_$gpu" > "$OUT/${n}_$gpu.log" 2>&1)
      echo "$n rc=$?"; sed -n '/^| set | dtype/,/^$/p' "$OUT/${n}_$gpu.md" ;;
    e2e:*)
      IFS=: read -r _ n batches <<< "$step"; left=$(( 585 - ($(date +%s) - t0) ))
      (cd /tmp && timeout "$left" python3 "$R/benchmarks/e2e_llama.py" --presets llama-3-8b --batches "${batches:-1,8}" \
        --prefill 512,2048 --decode 128 --modes compile --variants cublas,dispatcher --dtype bfloat16 --reps 3 \
        --budget-s $(( left - 60 )) --out "$OUT/${n}_$gpu" > "$OUT/${n}_$gpu.log" 2>&1)
      echo "$n rc=$?"; grep -E "^\| (variant|dispatcher)" "$OUT/${n}_$gpu/e2e_llama.md" | head -4 ;;
    retime:*)
      device_resume_suite "${step#retime:}" --retime-stale || break ;;
    *)
      device_resume_suite "$step" || break ;;
  esac
  echo "$step done $(( $(date +%s) - t0 )) s"
done
device_ship_shards
echo "total $(( $(date +%s) - t0 )) s"
