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
  # the mix's projections where the op trails cuBLAS most at M = 128..512 (vs_cublas_mix_h100_session54.md) and decode;
  # the 64-row tiles at the stage rule's ring and the deepest that fits, and the two-consumer 128x64 / 128x96
  SIZES="1,4096,4096;16,5120,5120;16,14336,4096;64,4096,4096;128,2048,4096;128,4096,4096;128,3072,8192;128,4096,14336"
  SIZES="$SIZES;256,4096,4096;256,2048,4096;256,3584,3584;256,1024,3584;256,9216,3072;256,3072,8192;256,8192,8192"
  SIZES="$SIZES;256,2048,8192;256,14336,4096;384,4096,4096;512,2048,4096;512,3072,3072;512,2048,8192;512,4096,4096"
  SIZES=$SIZES KERNELS='^origami_wgmma_64x(48|64|80|96|112|128)x64_s[0-9]+_w8_fp16_kk$|128x(64|96)x64_s[0-9]+_w12_fp16_kk$' \
    OUT=/tmp/deep timeout "$left" bash benchmarks/results/probes/probe_deep_rings.sh > "$OUT/probe_deep_rings_$gpu.txt" 2>&1
  echo "deep-ring probe rc=$? ($(( $(date +%s) - t0 )) s)"; tail -30 "$OUT/probe_deep_rings_$gpu.txt"
  gzip -c /tmp/deep/probe_deep_rings.log > "$OUT/probe_deep_rings_${gpu}.log.gz" 2>/dev/null
fi
