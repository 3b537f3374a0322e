#!/usr/bin/env bash
# Thirty-seventh session (H200): the picks that the split-N store term (NvModelConstants::wgmma_split_n_store_factor)
# changes, timed through the op on the H200 beside the stored brute force, in one call of at most 600 s:
#   bash benchmarks/results/probes/device_session37.sh SUITE...   build unless the op loads; for each suite, time what
#                                                                  the installed model adds to the stored data (its new
#                                                                  picks); the shards come back as $OUT/shards.tar
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
source benchmarks/results/probes/device_lib.sh
device_prepare nvidia-h200
for suite in "$@"; do
  device_resume_suite "$suite" || break
done
device_ship_shards
echo "total $(( $(date +%s) - t0 )) s"
