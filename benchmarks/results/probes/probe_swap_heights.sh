#!/bin/bash
# Probe (forty-first session, issue 13): swapped-operand tiles of the M-fitted heights cuBLAS runs at mid M
# (probe_cublas_kernels_swapsplit_h200.txt: 80, 104, 136, 160, 176, 216 rows of M), study tiles 80/96/144/208 rows
# (families/wgmma.py SWAP_AB_STUDY_TILES), against the built swapped tiles (112, 160 rows), the built 128-row tiles and
# cuBLAS. Dev harness (cpp/kernels/wgmma/dev), fp16 nt, GROUP_SIZE_M 12, unsplit, cold rotating inputs, CUDA events per
# launch, median; every study kernel checked against cuBLAS first.
#   bash benchmarks/results/probes/probe_swap_heights.sh
set -o pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
SIZES="156,4160,7424;517,8704,11712;262,25408,4736;426,13760,10304;528,13952,5504;192,14336,3584;397,12288,1600;320,14336,5120"
bash cpp/kernels/wgmma/dev/device_run.sh \
  '^origami_wgmma_(80|96|112|144|160|208)x(64|128|256)x64_s[0-9]+_w(8|12)_fp16_kk_ab$|^origami_wgmma_128x(128|192|256)x64_s[0-9]+_w12_fp16_kk$' \
  '^origami_wgmma_(80|96|144|208)x' "$SIZES" 'fp16_kk(_ab)?$' 12 > "$OUT/probe_swap_heights.log" 2>&1
echo "rc=$?"
grep -E "build:|check rc|FAIL|check:" "$OUT/probe_swap_heights.log" | head
python3 cpp/kernels/wgmma/dev/summarise.py --times "$OUT/probe_swap_heights.log"   # time (us) per size: cuBLAS, each kernel
