#!/usr/bin/env bash
# Thirty-first session: the decode GEMV study kernels (gemv_study.cu, probe_gemv_study.py) against cuBLAS; no
# origami_nv build (the study kernels build as a torch extension).
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
source benchmarks/results/probes/device_lib.sh
device_start
export TORCH_EXTENSIONS_DIR=/tmp/torch_ext MAX_JOBS=16
timeout 500 python3 benchmarks/results/probes/probe_gemv_study.py "$gpu" 2>&1 | tee -a "$OUT/gemv_study_$gpu.txt" | cut -c1-300
echo "total $(( $(date +%s) - t0 )) s"
