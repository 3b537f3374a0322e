#!/bin/bash
# One-off device probe (issues 12/13, mid-size M): cuBLAS runs 2-CTA clusters at M = 32-512 (probe_mid_profile_h100.txt).
# Do 2-CTA clusters sharing the weight tile (B) by TMA multicast help our one-consumer 64-row tiles and the 128x64 /
# 128x128 tiles there? The dev harness with 64x64, 64x128, 128x64, 128x128 and their _c2 twins (fp16, x @ W^T = kk).
#   bash benchmarks/results/probes/probe_mid_c2.sh   (repo root, on the GPU machine)
set -o pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
GEN=/tmp/wg; rm -rf $GEN; mkdir -p $GEN
python3 - "$GEN" <<'PY'
import os, sys
sys.path.insert(0, "cpp/kernels/families")
import wgmma as W
out = sys.argv[1]
specs = []
for bm, bn, cons in ((64, 64, 1), (64, 128, 1), (128, 64, 2), (128, 128, 2)):
    for cl in (1, 2):
        s = W.Spec(bm, bn, cons, "fp16", True, True, cluster=cl)
        assert not s.problems(), (s.name, s.problems())
        specs.append(s)
for s in specs:
    k = W.kernel_dict(s)
    with open(os.path.join(out, s.name + ".cu"), "w") as f:
        f.write(W.tu_text(dict(name=s.name, kernels=[k])) + W._dev_registration(k))
with open(os.path.join(out, "wgmma_list.hpp"), "w") as f:
    f.write(W.render_list(specs))
print("\n".join(s.name for s in specs))
PY
FLAGS="-O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -I$GEN -I$PWD/cpp/kernels"
ls $GEN/*.cu | xargs -P 16 -I{} sh -c "nvcc $FLAGS -c {} -o {}.o || exit 1" || exit 1
nvcc $FLAGS -c cpp/kernels/wgmma/dev/bench_wgmma.cu -o $GEN/bench.o && nvcc $FLAGS $GEN/*.o -lcublas -o /tmp/bench_c2 || exit 1
/tmp/bench_c2 info | grep -E "c2|resident" | head -4
SIZES=${SIZES:-"128,1024,3584;256,1024,3584;128,4096,4096;256,4096,4096;512,3072,3072;512,3072,8192;64,9216,3072;256,8192,8192;512,2048,4096"}
for round in 1 2; do
  timeout 200 /tmp/bench_c2 bench "$SIZES" "_fp16_kk" 8 2>&1 | grep -v "^kernel"
done | tee $OUT/probe_mid_c2.txt
