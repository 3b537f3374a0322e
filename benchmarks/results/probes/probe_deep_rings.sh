#!/bin/bash
# Probe (thirtieth session, issue 13): on the H200 the small-M projections run at 0.83-0.90 of cuBLAS, which runs
# 64x32 .. 96x64 tiles with 10-16 stages there (ncu_small_m_h200.txt: 128x5120x5120 nvjet 96x64 10 stages, 4x2
# clusters, DRAM 64 % of peak vs ours 53 %). The fourth session measured the deeper rings on the H100 only
# (probe_small_m_tiles_h100.txt: within 2-5 %); the H200 streams 1.4x the bytes per second at about the same latency,
# so it needs more bytes in flight. Dev harness (cpp/kernels/wgmma/dev, the --variants of families/wgmma.py): the
# 64-row tiles at the stage rule's 8 stages and at the deepest ring that fits, 128x64; fp16 nt (kk), GROUP_SIZE_M 12,
# unsplit, cold rotating inputs, CUDA events, median; every variant checked against cuBLAS first.
#   bash benchmarks/results/probes/probe_deep_rings.sh
# SIZES (M,N,K;...) and KERNELS (a regular expression on the --variants names) in the environment replace the
# thirtieth session's sets (device_session58.sh: the fifty-eighth session's re-measurement on the kernels after change 16).
# DEEP_SET=mid: the fifty-eighth session's set (the mix's projections where the op trails cuBLAS most at M = 128..512,
# vs_cublas_mix_h100_session54.md, and decode; the 64-row tiles at the stage rule's ring and the deepest that fits, and
# the two-consumer 128x64 / 128x96), first run in the fifty-ninth (probe_deep_rings_s58_h100.txt).
set -o pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
if [ "${DEEP_SET:-}" = mid ]; then
  SIZES="1,4096,4096;16,5120,5120;16,14336,4096;64,4096,4096;128,2048,4096;128,4096,4096;128,3072,8192;128,4096,14336"
  SIZES="$SIZES;256,4096,4096;256,2048,4096;256,3584,3584;256,1024,3584;256,9216,3072;256,3072,8192;256,8192,8192"
  SIZES="$SIZES;256,2048,8192;256,14336,4096;384,4096,4096;512,2048,4096;512,3072,3072;512,2048,8192;512,4096,4096"
  KERNELS='^origami_wgmma_64x(48|64|80|96|112|128)x64_s[0-9]+_w8_fp16_kk$|128x(64|96)x64_s[0-9]+_w12_fp16_kk$'
fi
SIZES=${SIZES:-"128,5120,5120;128,2048,3072;128,8192,3072;128,4608,4096;128,4096,14336;128,6144,4096;96,3584,3584;112,11008,4096;192,4096,4096;256,3072,8192;160,2560,6912;240,5120,1536;16,5120,5120;16,14336,4096;64,4096,4096"}
bash cpp/kernels/wgmma/dev/device_run.sh \
  "${KERNELS:-^origami_wgmma_64x(32|64|80|96|112|128)x64_s[0-9]+_w8_fp16_kk\$|128x64x64_s8_w12_fp16_kk\$}" \
  '_s1[0-6]_' "$SIZES" 'fp16_kk$' 12 > "$OUT/probe_deep_rings.log" 2>&1
echo "rc=$?"
grep -E "build:|check rc|FAIL|check:" "$OUT/probe_deep_rings.log" | head
python3 cpp/kernels/wgmma/dev/summarise.py --times "$OUT/probe_deep_rings.log"   # time (us) per size: cuBLAS, each kernel
