#!/bin/bash
# Probe (thirty-third session, issue 13 point 3): 64-row wgmma tiles with two consumer warpgroups splitting BLOCK_N
# (STUDY_TILES 64x96 .. 64x256 w12) against the one-consumer 64-row tiles, the 128-row tiles and cuBLAS at M = 64..512
# projections (the classes where the best compiled kernel trails cuBLAS: M ~ 320, M ~ 100-250 on the H200) and two
# large controls. Dev harness (cpp/kernels/wgmma/dev): fp16 x @ w.t() (kk), GROUP_SIZE_M 12, unsplit, cold rotating
# inputs, CUDA events, median; every timed kernel checked against cuBLAS, the new ones first by the harness's check.
#   bash benchmarks/results/probes/probe_split64.sh
set -o pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
SIZES="64,4096,4096;64,6784,8832;128,5120,5120;128,2048,3072;128,8192,3072;128,4608,4096;128,4096,14336;192,4096,4096;160,2560,6912;256,3072,8192;256,9216,3072;320,4544,4544;320,1280,5120;320,4096,5120;320,14336,5120;320,7680,5120;384,4096,4096;448,8192,4096;512,2048,8192;512,4096,4096;512,14336,4096;512,3072,8192;1024,4096,4096;4096,4096,4096"
bash cpp/kernels/wgmma/dev/device_run.sh \
  '^origami_wgmma_(64x[0-9]+x64_s[0-9]_w(8|12)|128x(64|96|112|128|144|192|256)x64_s[0-9]_w12|256x128x64_s[0-9]_w12|192x192x64_s[0-9]_w12)_fp16_k[kn]$' \
  '64x[0-9]+x64_s[0-9]_w12' "$SIZES" 'fp16_kk$' 12 > "$OUT/probe_split64.log" 2>&1
echo "rc=$?"
grep -E "build:|check rc|FAIL|check:" "$OUT/probe_split64.log" | head
python3 cpp/kernels/wgmma/dev/summarise.py --times "$OUT/probe_split64.log" > "$OUT/probe_split64_times.md"
cat "$OUT/probe_split64_times.md"
