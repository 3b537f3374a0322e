#!/usr/bin/env bash
# Thirty-sixth session (H200): what the 128x128 ping-pong schedule (kernel change 14) left stale on the H200, and the
# suites the H200 never ran, with this tree's full build, in calls of at most 600 s (a warm machine keeps the build):
#   bash benchmarks/results/probes/device_session36.sh              build; the prefill head-to-head vs cuBLAS; TF32 vs
#                                                                    cuBLAS TF32 (issue 15)
#   bash benchmarks/results/probes/device_session36.sh e2e          Llama-3-8B end to end under torch.compile
#   bash benchmarks/results/probes/device_session36.sh long         the prefill of 2048 tokens at batch 1 and 8 vs cuBLAS
#   bash benchmarks/results/probes/device_session36.sh suite SUITE  a suite's whole brute force (odd, batched, small-lm;
#                                                                    resumable); the shards come back as $OUT/shards.tar
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
source benchmarks/results/probes/device_lib.sh
device_prepare nvidia-h200
case "${1:-}" in
  e2e)
    timeout 560 python3 benchmarks/e2e_llama.py --presets llama-3-8b --batches 1,8 --prefill 512,2048 --decode 128 \
      --modes compile --variants cublas,dispatcher --dtype bfloat16 --reps 3 --budget-s 470 \
      --out "$OUT/e2e_llama_h200_session36_8b" 2>&1 | tail -15
    ;;
  long)
    timeout 340 python3 benchmarks/vs_cublas.py --sets prefill-long --dtypes bfloat16 --rounds 2 --top 4 \
      --out "$OUT/vs_cublas_prefill_long_h200_session36" 2>&1 | tail -4
    ;;
  suite)
    # the suites the H100 has and the H200 never ran (issue 13's odd suite among them); a second call on the warm
    # machine resumes from /tmp/rep, and every suite run there comes back in the tar
    python3 -m origami_nv bench run --suite "$2" --out /tmp/rep --gpu-name nvidia-h200 --no-seed \
      --no-plots --no-report --time-budget $(( 540 - ($(date +%s) - t0) )) 2>&1 | tail -3
    device_ship_shards
    ;;
  *)
    timeout 200 python3 benchmarks/vs_cublas.py --sets prefill --dtypes bfloat16 --rounds 2 --top 4 \
      --out "$OUT/vs_cublas_prefill_h200_session36" 2>&1 | tail -4
    echo "prefill done $(( $(date +%s) - t0 )) s"
    timeout $(( 560 - ($(date +%s) - t0) )) python3 benchmarks/vs_cublas.py --sets squares squares-nt seed \
      --dtypes tfloat32 --rounds 2 --out "$OUT/vs_cublas_tf32_h200_session36" 2>&1 | tail -4
    echo "tf32 done $(( $(date +%s) - t0 )) s"
    ;;
esac
echo "total $(( $(date +%s) - t0 )) s"
