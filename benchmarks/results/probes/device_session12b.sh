#!/usr/bin/env bash
# One-off device job of 2026-11-26 (twelfth session), issue 12: the cluster split-K reduction against the reduction
# kernel with programmatic dependent launch on and off (probe_cluster_split.py; forms alternated, two rounds).
#   bash benchmarks/results/probes/device_session12b.sh DEADLINE_S
set -uo pipefail
t0=$(date +%s); deadline=$1
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name --format=csv,noheader | head -1
bash benchmarks/results/probes/device_build.sh || exit 1
echo "build $(( $(date +%s) - t0 )) s"
for r in 1 2; do
  for pdl in 1 0; do
    for form in cluster kernel; do
      left=$(( deadline - ($(date +%s) - t0) - 10 ))
      [ $left -lt 30 ] && break 3
      if [ $form = kernel ]; then cs=0; else cs=1; fi
      ORIGAMI_NV_CLUSTER_SPLIT=$cs ORIGAMI_NV_PDL=$pdl timeout $left python3 \
        benchmarks/results/probes/probe_cluster_split.py "${form}_pdl$pdl.$r" >> "$OUT/probe.txt" 2>> "$OUT/probe.err"
      echo "$form pdl$pdl round $r rc=$? $(( $(date +%s) - t0 )) s"
    done
  done
done
tail -5 "$OUT/probe.err" 2>/dev/null
echo "total $(( $(date +%s) - t0 )) s"
