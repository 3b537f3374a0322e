#!/usr/bin/env bash
# One-off device job of 2026-11-26 (twelfth session), issue 12: build with the cluster split-K reduction, the split-K
# GPU tests (memcheck included), then the two reductions against each other (probe_cluster_split.py, alternated:
# cluster, kernel, cluster, kernel).
#   bash benchmarks/results/probes/device_session12.sh DEADLINE_S
set -uo pipefail
t0=$(date +%s); deadline=$1
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name --format=csv,noheader | head -1
bash benchmarks/results/probes/device_build.sh || exit 1
echo "build $(( $(date +%s) - t0 )) s"
cp "$(python3 -c "import origami_nv,os;print(os.path.dirname(origami_nv.__file__))")/data/kernel_resources.json" "$OUT/"
timeout 400 python3 -m pytest tests/test_split_k_gpu.py -q -p no:cacheprovider > "$OUT/tests.txt" 2>&1
echo "tests rc=$?"; tail -2 "$OUT/tests.txt"; grep -E "^(FAILED|ERROR)|Error|error" "$OUT/tests.txt" | head -20
for r in 1 2; do
  for form in cluster kernel; do
    left=$(( deadline - ($(date +%s) - t0) - 10 ))
    [ $left -lt 30 ] && break 2
    if [ $form = kernel ]; then export ORIGAMI_NV_CLUSTER_SPLIT=0; else unset ORIGAMI_NV_CLUSTER_SPLIT; fi
    timeout $left python3 benchmarks/results/probes/probe_cluster_split.py "$form$r" >> "$OUT/probe.txt" 2>> "$OUT/probe.err"
    echo "$form$r rc=$? $(( $(date +%s) - t0 )) s"
  done
done
unset ORIGAMI_NV_CLUSTER_SPLIT
tail -5 "$OUT/probe.err" 2>/dev/null
echo "total $(( $(date +%s) - t0 )) s"
