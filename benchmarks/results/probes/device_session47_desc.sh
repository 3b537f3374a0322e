#!/usr/bin/env bash
# Written in the forty-seventh session, run in the forty-eighth (H100, 46 s: probe_desc_step_h100.txt.gz beside this
# script; cpp/kernels/wgmma/NOTES.md session 48): the consumers' wgmma descriptors built once and stepped by one add
# (gemm_wgmma.cuh wgmma_desc_step, a warp-uniform warpgroup index; kernel change 16) against the kernel before it (one
# make_desc per wgmma: ~19 integer instructions per HGMMA, Nsight Compute, NOTES.md session 47). Two dev-harness
# binaries of the same kernels, the header before the change (BEFORE, a copy of it inside the working tree, so that it
# travels) and the working tree's, timed in alternating order (A B B A, three rounds), every launch checked by the
# harness (the MN-major layouts too):
#   git show <commit before the change>:cpp/kernels/wgmma/gemm_wgmma.cuh > benchmarks/results/probes/before.cuh
#   (device) BEFORE=benchmarks/results/probes/before.cuh bash benchmarks/results/probes/device_session47_desc.sh
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
nvidia-smi --query-gpu=name,power.limit,clocks.max.sm --format=csv,noheader | tee "$OUT/gpu.txt"
GEN=/tmp/wg; rm -rf $GEN /tmp/cbefore; mkdir -p /tmp/cbefore
cp -r cpp/. /tmp/cbefore/ && cp "$BEFORE" /tmp/cbefore/kernels/wgmma/gemm_wgmma.cuh || exit 1  # (the headers reach ../model)
FILTER='^origami_wgmma_(128x256x64_s4|256x128x64_s4|128x192x64_s5|128x128x64_s6|128x96x64_s7)_w12_fp16_kk$'
FILTER="$FILTER|^origami_wgmma_64x(64x64_s8|96x64_s8|128x64_s8)_w8_fp16_kk$|^origami_wgmma_128x128x64_s6_w12_fp16_mn$"
python3 cpp/kernels/families/wgmma.py --emit-dev $GEN --filter "$FILTER" || exit 1
t0=$(date +%s)
build() {  # build KERNELS_DIR BINARY
  local d=$GEN/o$(basename $2) FLAGS="-O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -I$GEN -I$1"
  mkdir -p $d
  ls $GEN/*.cu | xargs -P 16 -I{} sh -c "nvcc $FLAGS -c {} -o $d/\$(basename {}).o > $d/\$(basename {}).log 2>&1 || { cat $d/\$(basename {}).log; exit 1; }" || return 1
  nvcc $FLAGS -c $1/wgmma/dev/bench_wgmma.cu -o $d/bench.o && nvcc $FLAGS $d/*.o -lcublas -o $2
}
build /tmp/cbefore/kernels /tmp/bench_before || exit 1
build $PWD/cpp/kernels /tmp/bench_after || exit 1
echo "build $(( $(date +%s) - t0 )) s"
SIZES="512,3072,3072;256,4096,4096;512,14336,4096;128,8192,8192;4096,4096,4096;2048,14336,4096;8192,8192,1024"
for round in 1 2 3; do
  for v in before after after before; do
    timeout 100 /tmp/bench_$v bench "$SIZES" "fp16_(kk|mn)" 12 2>&1 | grep -v "^kernel" | sed "s/^/$v r$round /"
  done
done > "$OUT/bench_desc.txt"
echo "ok $(grep -c ' ok' "$OUT/bench_desc.txt") WRONG $(grep -c WRONG "$OUT/bench_desc.txt")"
python3 - "$OUT/bench_desc.txt" <<'PY'
import collections, math, sys
t = collections.defaultdict(list)
for l in open(sys.argv[1]):
    p = l.split()
    if len(p) < 8 or not p[2].startswith(("origami", "cublas")): continue
    t[(p[0], (p[3], p[4], p[5]), p[2])].append(float(p[7]))
med = lambda x: sorted(x)[len(x) // 2]
rs = []
for (v, s, k), a in sorted(t.items()):
    if v != "before" or (("after", s, k) not in t): continue
    r = med(a) / med(t[("after", s, k)])
    print("x".join(s), k.replace("origami_wgmma_", "")[:26], f"{r:.3f}", f"{med(t[('after', s, k)]):.1f} us")
    if not k.startswith("cublas"): rs.append(r)
print(f"after vs before: geomean time ratio (> 1: after faster) {math.exp(sum(map(math.log, rs)) / len(rs)):.3f}, "
      f"min {min(rs):.3f}, max {max(rs):.3f}, n {len(rs)}")
PY
