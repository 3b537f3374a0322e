#!/usr/bin/env bash
# One-off device job of 2026-11-26 (eleventh session), third call: the build with the staged B of the tf32 kernels
# (N-major, transposed in shared memory); the kernel table, the rounding probe, the GPU tests the change touches, TF32
# vs cuBLAS TF32 (squares nt and nn, the seed sizes nn: B read N-major in place), within one deadline.
#   bash benchmarks/results/probes/device_session11c.sh DEADLINE_S
set -uo pipefail
t0=$(date +%s); deadline=$1
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name --format=csv,noheader | head -1
bash benchmarks/results/probes/device_build.sh || exit 1
echo "build $(( $(date +%s) - t0 )) s"
cp "$(python3 -c "import origami_nv,os;print(os.path.dirname(origami_nv.__file__))")/data/kernel_resources.json" "$OUT/" 2>/dev/null
python3 benchmarks/results/probes/probe_tf32_rounding.py 2>&1 | tee "$OUT/probe_tf32.txt"
timeout 240 python3 -m pytest tests/test_tf32_gpu.py tests/test_ops_gpu.py tests/test_dispatch_cpu.py \
  -q -p no:cacheprovider > "$OUT/tests.txt" 2>&1; echo "tests rc=$?"; tail -3 "$OUT/tests.txt"
grep -E "^(FAILED|ERROR)" "$OUT/tests.txt" | head
echo "tests $(( $(date +%s) - t0 )) s"
left=$(( deadline - ($(date +%s) - t0) - 15 ))
[ $left -gt 60 ] && timeout $left python3 benchmarks/vs_cublas.py --sets squares-nt squares seed --dtypes tfloat32 \
  --rounds 2 --out "$OUT/vs_tf32" > "$OUT/vs_tf32.log" 2>&1
grep -E "^square|geomean" "$OUT/vs_tf32.log" | tail -8
echo "total $(( $(date +%s) - t0 )) s"
