#!/usr/bin/env bash
# Twenty-fourth session: probe_edge_shift.py's tiles only (a kernel-filtered build, ~45 s), ORIGAMI_NV_EDGE_SHIFT 0 / 1
# in alternating processes: the kernel-level A/B of the shifted edge boxes on a second GPU. The "pick" lines choose
# among these kernels only (not the op's pick of a full build).
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
F='^origami_wgmma_(128x128x64_s6|128x112x64_s7|128x256x64_s4|256x128x64_s4|128x192x64_s5)_w12_fp16_(kk|kn)$|^origami_wgmma_64x256x64_s4_w8_fp16_(kk|kn)$'
t0=$(date +%s)
gpu=h100; nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200 && gpu=h200
CMAKE_BUILD_PARALLEL_LEVEL=16 python3 -m pip install --no-build-isolation --no-deps -q --target /tmp/fpkg \
  -Cbuild-dir=/tmp/fbuild -Ccmake.define.ORIGAMI_NV_KERNEL_FILTER="$F" -Ccmake.define.ORIGAMI_NV_CALIBRATE=OFF . \
  >"$OUT/build_filtered.log" 2>&1 || { tail -20 "$OUT/build_filtered.log"; exit 1; }
echo "build $(( $(date +%s) - t0 )) s"
for v in 0 1 0 1; do
  ORIGAMI_NV_EDGE_SHIFT=$v PYTHONPATH=/tmp/fpkg timeout ${STEP_S:-40} python3 benchmarks/results/probes/probe_edge_shift.py \
    >> "$OUT/probe_edge_shift_${gpu}_filtered.txt" 2>&1
done
grep -c " us " "$OUT/probe_edge_shift_${gpu}_filtered.txt"; grep -c WRONG "$OUT/probe_edge_shift_${gpu}_filtered.txt"
echo "total $(( $(date +%s) - t0 )) s"
