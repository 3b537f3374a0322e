#!/bin/bash
# Probe (2026-11-25, fourth session): the wgmma epilogue through TMA stores (issue 13 item 2) against the
# previous epilogue (each consumer thread storing its own 16-byte chunks), same run, alternated order.
# Needs the previous kernel sources under .devbuild/old (git archive <commit> cpp/kernels cpp/model | tar -x -C .devbuild/old;
# carried to the GPU machine). Checks every specialisation of the new build against cuBLAS (dev harness), then
# times both builds (fp16 nt, cold rotating inputs, CUDA events, medians) in the order old, new, new, old.
set -o pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
FILTER='(128x256x64_s4|128x128x64_s6|256x128x64_s4|128x192x64_s5)_w12_fp16_kk$|64x(64|128|256)x64_s[0-9]_w8_fp16_kk$'
SIZES=${SIZES:-"8192,8192,64;8192,8192,256;8192,8192,1024;16384,16384,256;4096,4096,4096;8192,8192,8192;2048,2048,2048;1024,1024,1024;128,4096,4096;3000,3000,3000"}
build() {  # $1 = source root, $2 = binary, $3 = filter
  local GEN=/tmp/wg_$(basename $2); rm -rf $GEN
  python3 $1/cpp/kernels/families/wgmma.py --emit-dev $GEN --filter "$3" || return 1
  local FLAGS="-O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -I$GEN -I$1/cpp/kernels"
  ls $GEN/*.cu | xargs -P 16 -I{} sh -c "nvcc $FLAGS -c {} -o {}.o" || return 1
  nvcc $FLAGS -c $1/cpp/kernels/wgmma/dev/bench_wgmma.cu -o $GEN/bench.o && nvcc $FLAGS $GEN/*.o -lcublas -o $2
}
t0=$(date +%s)
build .devbuild/old /tmp/bench_old "$FILTER" || exit 1
build . /tmp/bench_new "$FILTER" || exit 1
[ -n "$NO_CHECK" ] || build . /tmp/bench_all '.' || exit 1
echo "build: $(( $(date +%s) - t0 )) s"
[ -n "$NO_CHECK" ] || timeout 200 /tmp/bench_all check '.' > $OUT/check.txt 2>&1; echo "check rc=$?"; grep -E "FAIL|check:" $OUT/check.txt | head -20
i=0
for r in old new new old; do i=$((i + 1)); /tmp/bench_$r bench "$SIZES" 'fp16_kk' 8 > $OUT/bench_${r}_$i.txt 2>&1; done
python3 - $OUT <<'PY'
import sys, glob, collections, statistics
t = collections.defaultdict(list)
for f in sorted(glob.glob(sys.argv[1] + "/bench_*_*.txt")):
    ver = f.split("bench_")[1].split("_")[0]
    for line in open(f):
        x = line.split()
        if len(x) >= 9 and x[1].isdigit():
            name = x[0].replace("origami_wgmma_", "").replace("_fp16_kk", "")
            t[(int(x[1]), int(x[2]), int(x[3]), name, "cublas" if name.startswith("cublas") else ver)].append(float(x[5]))
shapes = sorted({k[:3] for k in t}, key=lambda s: (s[2], s[0]))
print(f"{'M,N,K':>20s} {'kernel':>22s} {'old us':>8s} {'new us':>8s} {'old/new':>7s} {'cuBLAS':>8s} {'cub/new':>7s}")
for s in shapes:
    cub = statistics.median(sum((v for k, v in t.items() if k[:3] == s and k[4] == "cublas"), []))
    for name in sorted({k[3] for k in t if k[:3] == s and k[4] != "cublas"}):
        o = statistics.median(t[s + (name, "old")]); n = statistics.median(t[s + (name, "new")])
        print(f"{str(s):>20s} {name:>22s} {o:8.1f} {n:8.1f} {o / n:7.3f} {cub:8.1f} {cub / n:7.3f}")
PY
