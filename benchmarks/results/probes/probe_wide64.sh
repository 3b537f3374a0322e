#!/bin/bash
# Probe (thirty-third session, issue 13 point 3): one-consumer 64x192 and 64x224 wgmma tiles (STUDY_TILES) at M ~ 320
# projections, where probe_split64.sh found the width 192 1.04-1.07x faster than the built tiles as a split-N
# two-consumer tile, against the built 64- and 128-row tiles and cuBLAS. Dev harness: fp16 x @ w.t() (kk), GROUP_SIZE_M
# 12, unsplit, cold rotating inputs, CUDA events, median; the new kernels checked first.
#   bash benchmarks/results/probes/probe_wide64.sh
set -o pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
SIZES="320,4544,4544;320,1280,5120;320,4096,5120;320,14336,5120;320,7680,5120;336,16064,4032;300,3584,18944;352,4096,3584;256,9216,3072;384,4096,4096;448,8192,4096;262,25408,4736;192,4096,4096;128,8192,3072;64,6784,8832"
bash cpp/kernels/wgmma/dev/device_run.sh \
  '^origami_wgmma_(64x(96|128|144|160|192|224|256)x64_s[0-9]_w8|64x(192|224)x64_s[0-9]_w12|128x(96|112|128|144|192|256)x64_s[0-9]_w12|256x128x64_s[0-9]_w12|192x192x64_s[0-9]_w12)_fp16_kk$' \
  '64x(192|224)x64_s[0-9]_w8' "$SIZES" 'fp16_kk$' 12 > "$OUT/probe_wide64.log" 2>&1
echo "rc=$?"
grep -E "build:|check rc|FAIL|check:" "$OUT/probe_wide64.log" | head
python3 cpp/kernels/wgmma/dev/summarise.py --times "$OUT/probe_wide64.log" > "$OUT/probe_wide64_times.md"
cat "$OUT/probe_wide64_times.md"
