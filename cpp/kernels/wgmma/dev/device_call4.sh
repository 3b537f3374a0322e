#!/bin/bash
# Call 4 (diagnosis of the 8192^3 gap and of the 2-CTA cluster slowdown): resident clusters, timing,
# sustained clocks/power per kernel (nvidia-smi sampled alongside `soak`), Nsight Compute sections.
# Usage (repo root, GPU machine): bash cpp/kernels/wgmma/dev/device_call4.sh [FILTER]
set -o pipefail
export PYTHONUNBUFFERED=1
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
FILTER=${1:-'128x256x64_s4.*_kk'}
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.limit --format=csv,noheader
bash cpp/kernels/wgmma/dev/device_run.sh "$FILTER" 2>&1 | tail -3
B=/tmp/bench_wgmma
$B info | tee $OUT/info.txt
timeout 60 $B bench '8192,8192,8192;4096,4096,4096' '_kk(_c2)?$' 8 | tee $OUT/bench.txt
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu,clocks_throttle_reasons.active --format=csv,noheader -lms 200 > $OUT/smi.csv &
SMI=$!
timeout 60 $B soak 8192,8192,8192 '_kk(_c2)?$' 3 | tee $OUT/soak.txt
kill $SMI
python3 - "$OUT/soak.txt" "$OUT/smi.csv" <<'PY'
import sys, datetime
soak = [l.split() for l in open(sys.argv[1]) if l.startswith("soak")]
rows = []
for l in open(sys.argv[2]):
    f = [x.strip() for x in l.split(",")]
    try:
        t = datetime.datetime.strptime(f[0], "%Y/%m/%d %H:%M:%S.%f").timestamp()
        rows.append((t, float(f[1].split()[0]), float(f[2].split()[0]), f[4]))
    except Exception:
        pass
for s in soak:
    t0, t1 = (float(x) for x in s[-1].split("=")[1].split(".."))
    sel = [r for r in rows if t0 + 0.5 <= r[0] <= t1]
    if sel:
        print(f"{s[1]:44s} {s[4]:>20s} clock {sum(r[1] for r in sel)/len(sel):6.0f} MHz power {sum(r[2] for r in sel)/len(sel):6.0f} W throttle {sel[-1][3]} (n={len(sel)})")
PY
n=0
for k in "origami_wgmma_128x256x64_s4_w12_fp16_kk$" "origami_wgmma_128x256x64_s4_w12_fp16_kk_c2" "nvjet|sm90_xmma|cutlass"; do
  timeout 90 ncu --clock-control none -k "regex:$k" -s 2 -c 1 --section SpeedOfLight --section MemoryWorkloadAnalysis \
    --section WarpStateStats --section LaunchStats --section Occupancy $B bench 8192,8192,8192 '128x256x64_s4_w12_fp16_kk' 8 \
    > "$OUT/ncu_$((++n)).txt" 2>&1
  echo "ncu $k rc=$?"
done
for f in $OUT/ncu_*.txt; do echo "== $f"; grep -E "^  [a-z_0-9]+|SM Frequency|Duration|Compute \(SM\) Throughput|Memory Throughput|DRAM Throughput|L2 Hit|L1/TEX Hit|Grid Size|Stall|Cluster|Registers|Warp Cycles Per Issued|Issued Warp" $f | head -30; done
