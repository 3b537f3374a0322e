#!/bin/bash
# Build and run the simt probe on the device (from the repository root):
#   benchmarks/results/probes/simt/run.sh [perf|check|all]
# Builds with nvcc for sm_90 unless a prebuilt binary is given in SIMT_PROBE_BIN; finds cuBLAS (torch's or the
# toolkit's) for the comparison; writes the log to $OUT/simt_probe.log when OUT is set.
set -o pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../../.." && pwd)
bin=${SIMT_PROBE_BIN:-/tmp/simt_probe}
if [ -z "$SIMT_PROBE_BIN" ]; then
  nvcc -arch=sm_90 -O3 -std=c++17 -I "$root/cpp" -I "$root/cpp/kernels" -I "$here" "$here/simt_probe.cu" -o "$bin" -ldl || exit 1
fi
if [ -z "$CUBLAS_LIB" ]; then
  CUBLAS_LIB=$(ls /usr/local/cuda/lib64/libcublas.so* 2>/dev/null | head -1)
  [ -z "$CUBLAS_LIB" ] && CUBLAS_LIB=$(python3 -c "import glob,os,torch;d=os.path.dirname(torch.__file__)+'/..';print((sorted(glob.glob(d+'/nvidia/**/libcublas.so*',recursive=True))+[''])[0])" 2>/dev/null)
fi
export CUBLAS_LIB NVIDIA_TF32_OVERRIDE=0
echo "cuBLAS: $CUBLAS_LIB"
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv,noheader
"$bin" "${1:-all}" 2>&1 | tee ${OUT:+$OUT/simt_probe.log}
