#!/usr/bin/env bash
# The fifty-eighth session's device call, one command of at most 600 s for a session with little device time left:
# the build, the GPU tests that exercise the op's operand copies (chained up to configs.COPY_CHAIN_MAX_FLOP, unchained
# above; the 16 GFLOP bound of 2f949ca never ran on a GPU), the kernel table, then the deep-ring probe
# (probe_deep_rings.sh, dev harness) re-measured on the kernels after change 16 (the stepped wgmma descriptors sped the
# 64-row tiles up by 3-10 %; probe_deep_rings_h*.txt and probe_mid_w8_deep_h100.txt.gz predate it). Logs and tables under $OUT (at most 8 files come back).
#   bash benchmarks/results/probes/device_session58.sh
set -u
source benchmarks/results/probes/device_lib.sh
device_begin
echo "built $(( $(date +%s) - t0 )) s"
(cd /tmp && timeout $(( 420 - ($(date +%s) - t0) )) python3 -m pytest -q -rfEs -n 6 -p no:cacheprovider \
  "$R/tests/test_ops_gpu.py" "$R/tests/test_pitch_copy_gpu.py" "$R/tests/test_realign_gpu.py" \
  "$R/tests/test_dispatch_gpu.py" "$R/tests/test_random_problems_gpu.py" > "$OUT/tests_copies.log" 2>&1)
echo "copy tests rc=$?: $(tail -1 "$OUT/tests_copies.log") ($(( $(date +%s) - t0 )) s)"
grep -h -E "^(FAILED|ERROR)" "$OUT/tests_copies.log" | head -20
cp "$(python3 -c 'import origami_nv, os; print(os.path.dirname(origami_nv.__file__))')/data/kernel_resources.json" "$OUT/"
left=$(( 590 - ($(date +%s) - t0) ))
if [ "$left" -gt 90 ]; then
  DEEP_SET=mid \
    OUT=/tmp/deep timeout "$left" bash benchmarks/results/probes/probe_deep_rings.sh > "$OUT/probe_deep_rings_$gpu.txt" 2>&1
  echo "deep-ring probe rc=$? ($(( $(date +%s) - t0 )) s)"; tail -30 "$OUT/probe_deep_rings_$gpu.txt"
  gzip -c /tmp/deep/probe_deep_rings.log > "$OUT/probe_deep_rings_${gpu}.log.gz" 2>/dev/null
fi
