#!/usr/bin/env bash
# Twenty-ninth session: build with the new twins and the off-line rule, then the held-out A/B (probe_twins_valid.py) in
# alternating processes, and the kernel table this build wrote.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
source benchmarks/results/probes/device_lib.sh
device_start
device_ensure_built
python3 -c "import origami_nv, os, shutil; shutil.copy(os.path.join(os.path.dirname(origami_nv.__file__), 'data', 'kernel_resources.json'), os.environ['OUT'])"
for v in 1 2 1 2; do ORIGAMI_NV_MULTICAST=$v python3 benchmarks/results/probes/probe_twins_valid.py r$v 2>&1 | tee -a "$OUT/twins_valid.txt" | cut -c1-230; done
python3 -m pytest -q -p no:cacheprovider tests/test_model_multicast.py tests/test_kernels_registry.py tests/test_multicast_gpu.py 2>&1 | tail -3
echo "total $(( $(date +%s) - t0 )) s"
