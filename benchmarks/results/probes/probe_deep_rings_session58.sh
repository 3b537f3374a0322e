#!/bin/bash
# Probe (fifty-eighth session, issue 13 mid-M / decode): the deeper rings of the one-consumer 64-row tiles measured again
# on the kernels as they are now (after kernel change 16, the stepped wgmma descriptors, which sped those tiles up by
# 3-10 %; the earlier measurements, probe_deep_rings_h*.txt (session 30) and probe_mid_w8_deep_h100.txt.gz (session 47),
# predate it). Sizes: the mix's projections where the op trails cuBLAS most at M = 128..512
# (vs_cublas_mix_h100_session54.md) and decode. Dev harness (cpp/kernels/wgmma/dev, the --variants of
# families/wgmma.py): the 64-row tiles at the stage rule's ring and at the deepest ring that fits, and the two-consumer
# 128x64 / 128x96 tiles; fp16 nt (kk), GROUP_SIZE_M 12, unsplit, cold rotating inputs, CUDA events, median; every variant
# checked against cuBLAS first.
#   bash benchmarks/results/probes/probe_deep_rings_session58.sh
set -o pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
SIZES="1,4096,4096;16,5120,5120;16,14336,4096;64,4096,4096;128,2048,4096;128,4096,4096;128,3072,8192;128,4096,14336"
SIZES="$SIZES;256,4096,4096;256,2048,4096;256,3584,3584;256,1024,3584;256,9216,3072;256,3072,8192;256,8192,8192"
SIZES="$SIZES;256,2048,8192;256,14336,4096;384,4096,4096;512,2048,4096;512,3072,3072;512,2048,8192;512,4096,4096"
bash cpp/kernels/wgmma/dev/device_run.sh \
  '^origami_wgmma_64x(48|64|80|96|112|128)x64_s[0-9]+_w8_fp16_kk$|128x(64|96)x64_s[0-9]+_w12_fp16_kk$' \
  '_s1[0-6]_' "$SIZES" 'fp16_kk$' 12 > "$OUT/probe_deep_rings.log" 2>&1
echo "rc=$?"
grep -E "build:|check rc|FAIL|check:" "$OUT/probe_deep_rings.log" | head
python3 cpp/kernels/wgmma/dev/summarise.py --times "$OUT/probe_deep_rings.log"   # time (us) per size: cuBLAS, each kernel
