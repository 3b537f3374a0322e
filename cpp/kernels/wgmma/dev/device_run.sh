#!/bin/bash
# One device call: build every wgmma specialisation + the harness, check, benchmark.
# Usage (repo root): bash cpp/kernels/wgmma/dev/device_run.sh [FILTER] [CHECK_REGEX] [BENCH_SIZES] [BENCH_REGEX] [GROUPS]
set -o pipefail
export PYTHONUNBUFFERED=1
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
FILTER=${1:-.}
GEN=/tmp/wg; rm -rf $GEN
python3 cpp/kernels/families/wgmma.py --emit-dev $GEN --variants --filter "$FILTER" || exit 1
FLAGS="-O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -I$GEN -I$PWD/cpp/kernels"
t0=$(date +%s)
ls $GEN/*.cu | xargs -P 16 -I{} sh -c "nvcc $FLAGS -Xptxas -v -c {} -o {}.o > {}.log 2>&1 || { cat {}.log; exit 1; }" || exit 1
nvcc $FLAGS -c cpp/kernels/wgmma/dev/bench_wgmma.cu -o $GEN/bench.o || exit 1
nvcc $FLAGS $GEN/*.o -lcublas -o /tmp/bench_wgmma || exit 1
t1=$(date +%s)
echo "build: $((t1 - t0)) s for $(ls $GEN/*.cu | wc -l) TUs"
cat $GEN/*.log | grep -E "warning|Used|spill" | grep -v "0 bytes spill" | sort | uniq -c | head -20 > $OUT/ptxas.txt
grep -h -E "C7508|warning" $GEN/*.log | head -5
cuobjdump --dump-sass $(ls $GEN/origami_wgmma_128x256*bf16_kk.cu.o | head -1) > $OUT/sass_128x256_bf16_kk.txt 2>/dev/null
echo "HGMMA in 128x256 bf16_kk: $(grep -c HGMMA $OUT/sass_128x256_bf16_kk.txt)  LDL/STL: $(grep -c -E 'LDL|STL' $OUT/sass_128x256_bf16_kk.txt)"
/tmp/bench_wgmma info | tee $OUT/info.txt | head -60
if [ -n "$2" ]; then timeout 150 /tmp/bench_wgmma check "$2" > $OUT/check.txt 2>&1; echo "check rc=$?"; grep -E "FAIL|check:" $OUT/check.txt | head -40; fi
if [ -n "$3" ]; then timeout 300 /tmp/bench_wgmma bench "$3" "${4:-_kk}" "${5:-8}" 2>&1 | tee $OUT/bench.txt; fi
