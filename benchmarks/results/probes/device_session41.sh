#!/usr/bin/env bash
# Forty-first session (H200): split-K for the swapped-operand wgmma kernels (C^T = B^T A^T; each slice writes C's
# tile to the workspace, the reduction walks C^T's raster), in one call of at most 600 s:
#   bash benchmarks/results/probes/device_session41.sh [tests|probe|alltests] SUITE...   build unless the op loads;
#        "probe": probe_swap_split.py (the new picks against the previous model's and cuBLAS); "alltests": the whole
#        test suite; "tests": the GPU
#        tests of the swapped kernels and of split-K (correctness of every swapped kernel split, memcheck); then for
#        each suite, time what the installed model adds to the stored data (its new picks, the swapped kernels'
#        splits of the size's fastest unsplit kernels); the shards come back as $OUT/shards.tar
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
source benchmarks/results/probes/device_lib.sh
device_prepare nvidia-h200
for suite in "$@"; do
  if [ "$suite" = probe ]; then  # the new picks against the previous model's and cuBLAS, same process
    python3 benchmarks/results/probes/probe_swap_split.py 2>&1 | tee "$OUT/probe_swap_split.txt" | tail -20
    echo "probe done $(( $(date +%s) - t0 )) s"; continue
  fi
  if [ "$suite" = alltests ]; then  # the whole test suite (every GPU test)
    R=$PWD; (cd /tmp && timeout $(( 580 - ($(date +%s) - t0) )) python3 -m pytest -q -p no:cacheprovider -x $R/tests \
      2>&1 | tail -6)
    echo "alltests done $(( $(date +%s) - t0 )) s"; continue
  fi
  if [ "$suite" = tests ]; then
    R=$PWD; (cd /tmp && timeout 300 python3 -m pytest -q -p no:cacheprovider -x $R/tests/test_swap_ab_gpu.py \
      $R/tests/test_model_swap_ab.py $R/tests/test_split_k_gpu.py 2>&1 | tail -4)
    echo "tests done $(( $(date +%s) - t0 )) s"; continue
  fi
  device_resume_suite "$suite" || break
done
device_ship_shards
echo "total $(( $(date +%s) - t0 )) s"
