#!/usr/bin/env bash
# Thirtieth session, with the one-consumer tiles' deeper rings built in (families/wgmma.py Spec.stages capped at 16, not
# 8, for the one-consumer 16-bit tiles: measured with this script, not adopted, reverted; NOTES.md): the filtered build of
# device_session30.sh (the same kernels, so the op's picks are comparable with that run's), the op's picks at the
# small-M probe shapes (probe_small_m_twins.py, 1-CTA process, two rounds), then the GPU tests of the wgmma family and
# the op on this build (correctness of every built kernel at edges, layouts, batches; compute-sanitizer).
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
source benchmarks/results/probes/device_lib.sh
device_start
F='origami_wgmma_(64x[0-9]+|128x64|128x112|128x128|128x144|128x256)x64_'
device_build_filtered "$F"
python3 -c "
import origami_nv
print(sorted({(k['config']['block_m'], k['config']['block_n'], k['config']['stages']) for k in origami_nv.kernels('float16') if k['config']['block_m'] == 64}))"
for r in 1 2; do ORIGAMI_NV_MULTICAST=1 python3 benchmarks/results/probes/probe_small_m_twins.py "$gpu-after$r" 2>&1 | tee -a "$OUT/small_m_after_$gpu.txt" | cut -c1-250; done
echo "probe $(( $(date +%s) - t0 )) s"
timeout ${TEST_S:-300} python3 -m pytest tests/test_wgmma_gpu.py tests/test_ops_gpu.py -q -p no:cacheprovider -x 2>&1 | tail -8
echo "total $(( $(date +%s) - t0 )) s"
