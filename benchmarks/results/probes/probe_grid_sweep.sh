#!/bin/bash
# Probe (forty-second session, issue 11): how one wgmma tile's K-iteration grows with the SMs busy. For each of five
# built tiles (fp16, x @ w.t()), grids of G = 8 .. 132 CTAs (one wave, one tile per CTA) in two shapes: one tile row
# (M = BLOCK_M, N = G x BLOCK_N: every CTA reads the same A rows) and four (M = 4 BLOCK_M, N = G / 4 x BLOCK_N), each at
# K = 4096 and K = 12288: the difference over the 128 extra K-iterations is the steady K-iteration, free of the launch,
# the pipeline fill and the epilogue. Dev harness (cpp/kernels/wgmma/dev), GROUP_SIZE_M 12, cold rotating inputs,
# CUDA events per launch, median, every launch checked against cuBLAS.
# DECODE=1: M = 8 (the A box 8 rows, as at decode) against M = BLOCK_M, same grids, tiles TILES (env) or the five.
#   bash benchmarks/results/probes/probe_grid_sweep.sh     (then probe_grid_sweep.py on the log)
set -o pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
TILES=${TILES:-"64x128x64_s8_w8 64x256x64_s4_w8 128x64x64_s8_w12 128x128x64_s6_w12 128x256x64_s4_w12"}
FILTER="^origami_wgmma_($(echo $TILES | tr ' ' '|'))_fp16_kk$"
bash cpp/kernels/wgmma/dev/device_run.sh "$FILTER" "" "" > "$OUT/probe_grid_sweep.build.log" 2>&1 || { tail -20 "$OUT/probe_grid_sweep.build.log"; exit 1; }
grep -E "build:" "$OUT/probe_grid_sweep.build.log"
for t in $TILES; do
  bm=${t%%x*}; rest=${t#*x}; bn=${rest%%x*}
  S=""
  for g in 8 16 32 64 100 132; do
    for k in 4096 12288; do
      if [ "${DECODE:-0}" = 1 ]; then S="$S;8,$((bn * g)),$k;$bm,$((bn * g)),$k"  # M = 8 (decode) against M = BLOCK_M
      else S="$S;$bm,$((bn * g)),$k;$((4 * bm)),$((bn * g / 4)),$k"; fi
    done
  done
  /tmp/bench_wgmma bench "${S#;}" "^origami_wgmma_${t}_fp16_kk$" 12
done > "$OUT/probe_grid_sweep.log" 2>&1
echo "rc=$?"; grep -c " ok$" "$OUT/probe_grid_sweep.log"; grep -c "WRONG" "$OUT/probe_grid_sweep.log"
