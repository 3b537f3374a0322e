#!/usr/bin/env bash
# Thirty-fifth session (H200): full build with the ping-pong schedule in the kernel table (KernelEntry::ping_pong_kernel,
# the table's `pingpong`, KernelResources::ping_pong_layouts) and the model's ping-pong term; the build's
# data/kernel_resources.json comes back as the new reference table; the tests of the table, the driver's view and the
# ping-pong launches. Then (second call, `picks`) the picks the new model changed, timed on the H200 sets.
#   bash benchmarks/results/probes/device_session35.sh [picks]
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
source benchmarks/results/probes/device_lib.sh
device_prepare nvidia-h200
if [ "${1:-}" != picks ]; then
  cp "$(python3 -c 'import origami_nv, os; print(os.path.dirname(origami_nv.__file__))')/data/kernel_resources.json" \
    "$OUT/kernel_resources_sm90.json"
  timeout 240 python3 -m pytest -q -p no:cacheprovider tests/test_kernels_registry.py tests/test_ops_gpu.py \
    tests/test_wgmma_gpu.py tests/test_model_multicast.py -k "registry or resources or ping_pong or select_config or twin" \
    2>&1 | tail -4 | tee "$OUT/tests_$gpu.txt"
  echo "tests done $(( $(date +%s) - t0 )) s"
  exit 0
fi
for s in gen-valid gen-train llm seed unseen squares; do
  left=$(( 540 - ($(date +%s) - t0) )); [ "$left" -gt 40 ] || break
  python3 -m origami_nv bench run --suite "$s" --out /tmp/rep --resume-from reports --gpu-name nvidia-h200 --no-seed \
    --no-plots --no-report --time-budget $(( left / 2 )) 2>&1 | tail -1
done
device_ship_shards
echo "total $(( $(date +%s) - t0 )) s"
