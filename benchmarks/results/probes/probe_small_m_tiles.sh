#!/bin/bash
# Probe (2026-11-25, fourth session): do deeper rings (64x64 s13, 64x32 s16) and a 64x32 tile close the small-M
# gap to cuBLAS (nvjet runs 64x32 .. 64x64 tiles with 13-16 stages there: probe_mid_profile_h100.txt)?
# Builds the dev harness (cpp/kernels/wgmma/dev) with the --variants of cpp/kernels/families/wgmma.py, checks
# every new variant against cuBLAS (both dtypes, K-major and M-major A, edge sizes, batches), then times fp16
# nt (A K-major, B K-major) against cuBLAS with cold rotating inputs. Usage (repo root, on the GPU machine):
#   bash benchmarks/results/probes/probe_small_m_tiles.sh
set -o pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
SIZES=""
for M in 16 32 64 128 256; do
  for NK in 4096,4096 5120,5120 9216,3072 2048,3072 4608,4096 14336,4096 3072,3072; do SIZES="$SIZES;$M,$NK"; done
done
SIZES=${SIZES#;}
bash cpp/kernels/wgmma/dev/device_run.sh \
  '64x(32|64|128)x64_s[0-9]+_w8_(fp16|bf16)_(kk|mk)$|128x64x64_s8_w12_fp16_kk$|128x128x64_s6_w12_fp16_kk$' \
  '64x32|_s13_|_s16_' "$SIZES" 'fp16_kk$' 8 > "$OUT/probe_small_m_tiles.log" 2>&1
echo "rc=$?"
grep -E "build:|check rc|FAIL|check:" "$OUT/probe_small_m_tiles.log" | head
# per shape: cuBLAS and each kernel's time (us)
python3 - "$OUT/probe_small_m_tiles.log" <<'PY'
import sys, collections
rows = collections.OrderedDict()
for line in open(sys.argv[1]):
    f = line.split()
    if len(f) >= 9 and (f[0].startswith("origami_wgmma") or f[0].startswith("cublas")) and f[1].isdigit():
        key = (int(f[1]), int(f[2]), int(f[3]))
        name = "cublas" if f[0].startswith("cublas") else f[0].replace("origami_wgmma_", "").replace("_fp16_kk", "")
        rows.setdefault(key, {})[name] = float(f[5]) if not f[0].startswith("cublas") else float(f[5])
names = []
for v in rows.values():
    for n in v:
        if n not in names: names.append(n)
print("M,N,K " + " ".join(f"{n:>20s}" for n in names))
for k, v in rows.items():
    print(f"{k} " + " ".join(f"{v.get(n, float('nan')):20.1f}" for n in names))
PY
