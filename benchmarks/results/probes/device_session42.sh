#!/usr/bin/env bash
# Forty-second session (H200): the swapped-operand tiles 80x64 (one consumer) and 96x128 in the build
# (families/wgmma.py SWAP_AB_TILES), in one call of at most 600 s:
#   bash benchmarks/results/probes/device_session42.sh [tests|alltests] SUITE...   build unless the op loads; the
#        build's kernel table comes back as $OUT/kernel_resources.json (the reference table's source);
#        "tests": the GPU tests of the swapped kernels and split-K (every swapped kernel, split, at edges, memcheck);
#        "alltests": the whole test suite; then for each suite, time what the installed model adds to the stored
#        data (its new picks, the new kernels' launches and splits); the shards come back as $OUT/shards.tar
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
source benchmarks/results/probes/device_lib.sh
device_prepare nvidia-h200
cp "$(python3 -c 'import origami_nv, os; print(os.path.dirname(origami_nv.__file__))')/data/kernel_resources.json" "$OUT/"
for suite in "$@"; do
  if [ "$suite" = alltests ]; then
    R=$PWD; (cd /tmp && timeout $(( 580 - ($(date +%s) - t0) )) python3 -m pytest -q -p no:cacheprovider -x $R/tests \
      2>&1 | tail -6)
    echo "alltests done $(( $(date +%s) - t0 )) s"; continue
  fi
  if [ "$suite" = tests ]; then
    R=$PWD; (cd /tmp && timeout 300 python3 -m pytest -q -p no:cacheprovider -x $R/tests/test_swap_ab_gpu.py \
      $R/tests/test_model_swap_ab.py $R/tests/test_split_k_gpu.py $R/tests/test_wgmma_gpu.py 2>&1 | tail -4)
    echo "tests done $(( $(date +%s) - t0 )) s"; continue
  fi
  device_resume_suite "$suite" || break
done
device_ship_shards
echo "total $(( $(date +%s) - t0 )) s"
