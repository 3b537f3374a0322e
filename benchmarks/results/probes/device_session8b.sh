#!/usr/bin/env bash
# One-off device job of 2026-11-25 (eighth session): build with the wgmma in-kernel split-K fix-up and the one-CTA
# simt 128x128x16; the split-K and simt GPU tests (memcheck included); where a split launch's time goes now
# (probe_split_cost.py); the pick against cuBLAS on the split-heavy sets and fp32. Deadline-guarded (600 s).
#   bash benchmarks/results/probes/device_session8b.sh
set -uo pipefail
t0=$(date +%s); r=$PWD
nvidia-smi --query-gpu=name --format=csv,noheader | head -1
left() { echo $(( $1 - ($(date +%s) - t0) )); }
bash benchmarks/results/probes/device_build.sh || exit 1
echo "build $(( $(date +%s) - t0 )) s"
python3 - <<'PY'
import json, origami_nv, os
d = json.load(open(os.path.join(os.path.dirname(origami_nv.__file__), "data", "kernel_resources.json")))
sp = [(k["name"], k["spill_store_bytes"]) for k in d["kernels"] if k["spill_store_bytes"]]
print("spilling kernels:", sp[:8], len(sp))
PY
cd /tmp && timeout 170 python3 -m pytest "$r/tests/test_split_k_gpu.py" "$r/tests/test_simt_gpu.py" -q -p no:cacheprovider -rfE -x > "$OUT/tests.log" 2>&1
echo "tests rc $?"; tail -3 "$OUT/tests.log"
timeout 100 python3 "$r/benchmarks/results/probes/probe_split_cost.py" 2>&1 | grep -v -i warn > "$OUT/split_cost.txt"; echo "split rc $?"
grep -E "cublas|sk" "$OUT/split_cost.txt" | cut -c1-160
for job in "mid longk:float16:vs_cublas_mid_longk" "small-lm decode:bfloat16:vs_cublas_decode"; do
  IFS=: read -r sets dt name <<< "$job"
  l=$(left 585); echo "$name budget $l s"; [ "$l" -lt 20 ] && break
  timeout "$l" python3 "$r/benchmarks/vs_cublas.py" --sets $sets --dtypes $dt --out "$OUT/$name" > "$OUT/$name.log" 2>&1
  echo "$name rc $?"; grep -E "^\| [a-z-]+ \| [a-z0-9]+ \| [0-9]+ \|" "$OUT/$name.md" 2>/dev/null; tail -1 "$OUT/$name.log"
done
echo "total $(( $(date +%s) - t0 )) s"
