#!/usr/bin/env bash
# Thirty-second session (issue 15): the mma.sync tf32 kernels. Full build, their GPU tests with the wgmma tf32 and op
# tests beside them (the 16-bit mma.sync kernels share the changed header), then probe_mma_sync_tf32.py.
# (The runs filed this session used tests/test_tf32_mma_sync_gpu.py, since merged into tests/test_tf32_gpu.py.)
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
source benchmarks/results/probes/device_lib.sh
device_start
device_ensure_built
python3 -c "import json,origami_nv,os; print(open(os.path.join(os.path.dirname(origami_nv.__file__),'data','kernel_resources.json')).read())" > "$OUT/kernel_resources.json" 2>/dev/null
timeout 330 python3 -m pytest -q -x -p no:cacheprovider tests/test_tf32_gpu.py tests/test_kernels_registry.py \
  tests/test_tf32_gpu.py 2>&1 | tail -15 | tee "$OUT/tests_$gpu.txt"
echo "tests $(( $(date +%s) - t0 )) s"
timeout 200 python3 benchmarks/results/probes/probe_mma_sync_tf32.py "$gpu" 2>&1 | tee "$OUT/probe_mma_sync_tf32_$gpu.txt" | cut -c1-250
echo "total $(( $(date +%s) - t0 )) s"
