#!/usr/bin/env bash
# One-off device job of 2026-11-25 (ninth session): build with the wgmma 64xBN tiles (BN 48-160, K-major B); the
# op tests of the new tiles at odd sizes; the BN probe (probe_wgmma_bn.py: rate per BN, mid/decode/small-lm picks
# before/after vs every 64-row tile vs cuBLAS); then the harness check vs cuBLAS and the sanitizers.
#   bash benchmarks/results/probes/device_session9.sh
set -uo pipefail
t0=$(date +%s); r=$PWD
nvidia-smi --query-gpu=name --format=csv,noheader | head -1
bash benchmarks/results/probes/device_build.sh || exit 1
echo "build $(( $(date +%s) - t0 )) s"
cp "$(cd /tmp && python3 -c 'import origami_nv._kernels as k; print(k._DATA)')" "$OUT/kernel_resources.json"
(cd /tmp && timeout 120 python3 -m pytest "$r/tests/test_wgmma_gpu.py" -q -p no:cacheprovider -k "(64x48 or 64x80 or 64x96 or 64x112 or 64x144 or 64x160) and not harness" 2>&1 | tail -3) > "$OUT/tests_wgmma.txt"
cat "$OUT/tests_wgmma.txt"
echo "tests $(( $(date +%s) - t0 )) s"
l=$(( 470 - ($(date +%s) - t0) )); [ $l -gt 20 ] && timeout $l python3 "$r/benchmarks/results/probes/probe_wgmma_bn.py" --deadline $(( l - 15 )) > "$OUT/probe_wgmma_bn.txt" 2>&1
grep -c . "$OUT/probe_wgmma_bn.txt"; head -2 "$OUT/probe_wgmma_bn.txt" | cut -c1-600
echo "probe $(( $(date +%s) - t0 )) s"
l=$(( 585 - ($(date +%s) - t0) )); [ $l -gt 20 ] && (cd /tmp && timeout $l python3 -m pytest "$r/tests/test_wgmma_gpu.py" -q -p no:cacheprovider -k "harness and (cublas or memcheck or racecheck)" 2>&1 | tail -3) > "$OUT/tests_harness.txt"
cat "$OUT/tests_harness.txt"
echo "total $(( $(date +%s) - t0 )) s"
