#!/usr/bin/env bash
# One-off device job of 2026-11-26 (thirteenth session), issues 12/13: build, the split-K and op GPU tests (the
# cluster-capacity cache in registry.cu), then benchmarks/vs_cublas.py on the given sets, fp16 and bf16, into
# $OUT/vs_cublas_<gpu>_<tag>.{json,md,log}.
#   bash benchmarks/results/probes/device_session13.sh TAG SET...
set -uo pipefail
source benchmarks/results/probes/device_lib.sh
tag=$1; shift
device_start
device_ensure_built
timeout 150 python3 -m pytest tests/test_split_k_gpu.py tests/test_ops_gpu.py -q -p no:cacheprovider -k "not memcheck" \
  > "$OUT/tests_$gpu.txt" 2>&1
echo "tests rc=$? $(tail -1 "$OUT/tests_$gpu.txt") $(( $(date +%s) - t0 )) s"
python3 benchmarks/vs_cublas.py --sets "$@" --dtypes float16 bfloat16 --rounds 2 \
  --out "$OUT/vs_cublas_${gpu}_$tag" > "$OUT/vs_cublas_${gpu}_$tag.log" 2>&1
echo "vs_cublas rc=$? $(( $(date +%s) - t0 )) s"
timeout 90 python3 benchmarks/results/probes/probe_cublas_kernels.py "$OUT/cublas_kernels_$gpu.txt" > /dev/null 2>&1; echo "cublas kernels rc=$?"
grep -E "shapes  geomean|^total" "$OUT/vs_cublas_${gpu}_$tag.log"
