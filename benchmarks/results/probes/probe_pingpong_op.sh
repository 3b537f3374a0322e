#!/usr/bin/env bash
# Device job (thirty-fourth session): a filtered build (the 128x128 kernels) and probe_pingpong_op.py in alternated
# processes, cooperative (ORIGAMI_NV_PINGPONG=0) and as shipped; output in $OUT/probe_pingpong_op.txt.
source benchmarks/results/probes/device_lib.sh
device_start
device_build_filtered 'origami_wgmma_128x128x64'
for r in 1 2 3; do
  ORIGAMI_NV_PINGPONG=0 python3 benchmarks/results/probes/probe_pingpong_op.py "coop$r" 2>&1 | tee -a "$OUT/probe_pingpong_op.txt"
  python3 benchmarks/results/probes/probe_pingpong_op.py "ship$r" 2>&1 | tee -a "$OUT/probe_pingpong_op.txt"
done
echo "total $(( $(date +%s) - t0 )) s"
