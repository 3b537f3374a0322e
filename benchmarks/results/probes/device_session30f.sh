#!/usr/bin/env bash
# Thirtieth session: 64x64's ring at 8 stages (HEAD) and at 13 (the generator's cap for that tile raised to 16 on the
# device's copy only), unsplit and split, workspace and cluster reductions (probe_split_deep64.py).
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
source benchmarks/results/probes/device_lib.sh
device_start
for ring in 8 13; do
  if [ "$ring" = 13 ]; then
    python3 - <<'PY'
p = "cpp/kernels/families/wgmma.py"
s = open(p).read()
old = "        return min(self.max_stages or MAX_STAGES, free // self.stage_bytes)"
new = ("        cap = self.max_stages or (16 if (self.block_m, self.block_n, self.dtype) in ((64, 64, 'fp16'), (64, 64, 'bf16'))"
       " else MAX_STAGES)\n        return min(cap, (free + 2 * 8 * MAX_STAGES - 2 * 8 * cap) // self.stage_bytes)")
assert old in s
open(p, "w").write(s.replace(old, new))
PY
  fi
  device_build_filtered 'origami_wgmma_64x64x64_'
  for c in 0 1; do ORIGAMI_NV_CLUSTER_SPLIT=$c python3 benchmarks/results/probes/probe_split_deep64.py "$gpu" 2>&1 | tee -a "$OUT/split_deep64_$gpu.txt"; done
done
echo "total $(( $(date +%s) - t0 )) s"
