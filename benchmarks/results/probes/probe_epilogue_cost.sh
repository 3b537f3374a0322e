#!/bin/bash
# Probe (2026-11-25, fourth session): where the wgmma tile's time goes at short K, with the epilogue of commit
# cb18227 (each consumer thread storing its own 16-byte chunks of C). Three builds of the same kernels: the epilogue as
# it was (0), C staged in shared memory but never stored (1), no epilogue at all (2); results (H100) in
# probe_epilogue_cost_h100.txt. Needs those sources under .devbuild/old (git archive cb18227 cpp/kernels cpp/model |
# tar -x -C .devbuild/old; carried to the GPU machine); the probe inserts its two hooks into a copy of them.
set -o pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
SRC=/tmp/epi_src; rm -rf $SRC; cp -r ${1:-.devbuild/old} $SRC
python3 - $SRC/cpp/kernels/wgmma/gemm_wgmma.cuh <<'PY'
import sys
p = sys.argv[1]; s = open(p).read()
s = s.replace("      if (p.bias != nullptr) {", "#if ORIGAMI_DEV_SKIP_EPILOGUE == 2\n      if (p.M >= 0) continue;\n#endif\n"
              "      if (p.bias != nullptr) {", 1)
s = s.replace("        if (!p.c_vector_ok) {", "#if ORIGAMI_DEV_SKIP_EPILOGUE == 1\n        if (p.M >= 0) continue;\n#endif\n"
              "        if (!p.c_vector_ok) {", 1)
assert s.count("ORIGAMI_DEV_SKIP_EPILOGUE") == 2, "hooks not placed: not the cb18227 epilogue"
open(p, "w").write(s)
PY
GEN=/tmp/wg; rm -rf $GEN
python3 $SRC/cpp/kernels/families/wgmma.py --emit-dev $GEN --filter '(128x256x64_s4|256x128x64_s4|128x128x64_s6)_w12_fp16_kk$' || exit 1
FLAGS="-O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -I$GEN -I$SRC/cpp/kernels"
for v in 0 1 2; do
  mkdir -p $GEN/o$v
  ls $GEN/*.cu | xargs -P 16 -I{} sh -c "nvcc $FLAGS -DORIGAMI_DEV_SKIP_EPILOGUE=$v -c {} -o $GEN/o$v/\$(basename {}).o" || exit 1
done
nvcc $FLAGS -c $SRC/cpp/kernels/wgmma/dev/bench_wgmma.cu -o $GEN/bench.o || exit 1
for v in 0 1 2; do nvcc $FLAGS $GEN/o$v/*.o $GEN/bench.o -lcublas -o /tmp/bench$v || exit 1; done
SIZES="8192,8192,64;8192,8192,256;8192,8192,1024;16384,16384,256;4096,4096,4096;8192,8192,8192"
for v in 0 1 2; do /tmp/bench$v bench "$SIZES" 'fp16_kk' 8 > $OUT/epi$v.txt 2>&1; done
for v in 0 1 2; do echo "== variant $v (0 full, 1 no global C store, 2 no epilogue)"; awk '$2 ~ /^[0-9]+$/ {sub("origami_wgmma_","",$1); printf "%-26s %6s %6s %5s %8s us\n", $1, $2, $3, $4, $6}' $OUT/epi$v.txt; done
