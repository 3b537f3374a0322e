#!/usr/bin/env bash
# Forty-third session, for the next: the launcher's PDL rule (cpp/kernels/pdl.hpp, pdl_suits_sm_filling_grid) measured
# on training sets, in processes alternated between three arms: PDL for every launch ("all": ORIGAMI_NV_PDL_FILL_RULE=0),
# the rule ("rule"), no PDL ("none": ORIGAMI_NV_PDL=0), each the op's pick and the model's top 4 against cuBLAS
# (benchmarks/vs_cublas.py). The rule was chosen on the H200 `gen-holdout`
# run both ways; this is the measurement to widen or narrow it on (the 113-131-CTA grids of mid-M two-consumer tiles
# ran 4-9 % faster without PDL there, the decode ones 1-4 % slower), and the first on the H100.
#   bash benchmarks/results/probes/probe_pdl_fill_rule.sh [ROUNDS] [SETS]   (default 1 alternation: all, rule, none;
#   SETS "gen-mid-train gen-train"); the runs come back as $OUT/pdl_fill_rule.tgz (the device returns at most 8 files);
#   then here: tar xzf pdl_fill_rule.tgz -C D; python benchmarks/results/probes/pdl_fill_rule_compare.py D
set -u
source benchmarks/results/probes/device_lib.sh
device_begin
for i in $(seq 1 "${1:-1}"); do
  for arm in all rule none; do
    left=$(( 585 - ($(date +%s) - t0) )); [ "$left" -gt 30 ] || break 2
    case $arm in all) env="ORIGAMI_NV_PDL_FILL_RULE=0" ;; rule) env="ORIGAMI_NV_PDL_FILL_RULE=1" ;; none) env="ORIGAMI_NV_PDL=0" ;; esac
    (cd /tmp && env $env timeout "$left" python3 "$R/benchmarks/vs_cublas.py" \
      --sets ${2:-gen-mid-train gen-train} --rounds 2 --top 4 --out "$OUT/pdl_${arm}_${gpu}_r$i" \
      > "$OUT/pdl_${arm}_r$i.log" 2>&1)
    echo "$arm round $i: rc=$? at $(( $(date +%s) - t0 )) s; $(tail -2 "$OUT/pdl_${arm}_r$i.log" | head -1)"
  done
done
(cd "$OUT" && tar czf pdl_fill_rule.tgz pdl_* && rm -f pdl_*.json pdl_*.md pdl_*.log && ls -la pdl_fill_rule.tgz)
