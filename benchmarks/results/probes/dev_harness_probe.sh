#!/bin/bash
# The dev-harness probes' common run (forty-third session on): build the wgmma kernels matching FILTER with the dev
# harness (cpp/kernels/wgmma/dev/device_run.sh: no package build), check those matching CHECK against cuBLAS, time
# BENCH's kernels at SIZES ("M,N,K;..."), GROUP_SIZE_M GROUPS; log to $OUT/NAME.log, then print the build / check lines
# and the time per size (summarise.py).
#   bash benchmarks/results/probes/dev_harness_probe.sh NAME FILTER CHECK SIZES BENCH GROUPS
set -o pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
name=$1; shift
bash cpp/kernels/wgmma/dev/device_run.sh "$@" > "$OUT/$name.log" 2>&1
echo "rc=$?"
grep -E "build:|check rc|FAIL|check:" "$OUT/$name.log" | head
python3 cpp/kernels/wgmma/dev/summarise.py --times "$OUT/$name.log"   # time (us) per size: cuBLAS, each kernel
