#!/bin/bash
# One GPU call for the kernel work: build (mma_sync family; WGMMA=ON adds the wgmma family), a crash
# diagnostic of the op under gdb, the op/kernel tests, timings against torch.matmul. Logs under $OUT.
#   REPO=$PWD OUT=... bash cpp/kernels/dev/gpu_run.sh
export PYTHONUNBUFFERED=1
set -o pipefail
OUT=${OUT:-/tmp/out}
REPO=${REPO:-$PWD}
mkdir -p $OUT
T0=$(date +%s)
export CMAKE_BUILD_PARALLEL_LEVEL=$(nproc)
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
python3 -m pip install --no-build-isolation --no-deps -v -Cbuild-dir=/tmp/b -Ccmake.define.ORIGAMI_NV_CALIBRATE=OFF \
  -Ccmake.define.ORIGAMI_NV_WGMMA=${WGMMA:-OFF} ${FILTER:+"-Ccmake.define.ORIGAMI_NV_KERNEL_FILTER=$FILTER"} . \
  > $OUT/build.log 2>&1 || { grep -E "error|FAILED" $OUT/build.log | head -30; tail -30 $OUT/build.log; exit 1; }
T1=$(date +%s); echo "build: $((T1-T0)) s"
grep -E "Linking CXX shared module.*_C.so" -A0 $OUT/build.log | head -2
cd /tmp
SP=$(python3 -c "import origami_nv,os;print(os.path.dirname(origami_nv.__file__))")
cp $SP/data/kernel_resources.json $OUT/ 2>/dev/null
python3 -c "import json;d=json.load(open('$SP/data/kernel_resources.json'));print(len(d['kernels']),'kernel records')"
ldd $SP/_C.so | grep -i cudart
export ORIGAMI_NV_SEGV_BACKTRACE=1
if command -v gdb >/dev/null; then
  timeout 90 gdb -q -batch -ex run -ex bt --args python3 $REPO/cpp/kernels/dev/diag_op.py 2>&1 | grep -v "^\[New Thread\|^\[Thread\|libthread_db\|^warning:" | tail -40 | tee $OUT/diag.txt
else
  timeout 90 python3 $REPO/cpp/kernels/dev/diag_op.py 2>&1 | tail -40 | tee $OUT/diag.txt
fi
T2=$(date +%s); echo "diag: $((T2-T1)) s"
timeout ${TEST_TIMEOUT:-200} python3 -m pytest -q -n ${XDIST:-3} -p no:cacheprovider \
  ${TESTS:-$REPO/tests/test_ops_gpu.py $REPO/tests/test_ops_cpu.py $REPO/tests/test_kernels_registry.py} \
  > $OUT/tests.txt 2>&1
grep -E "passed|failed|FAILED|Error|error" $OUT/tests.txt | head -30
T3=$(date +%s); echo "tests: $((T3-T2)) s"
timeout ${BENCH_TIMEOUT:-150} python3 $REPO/cpp/kernels/dev/bench_mma_sync.py ${BENCH_ARGS} --out $OUT/bench.json 2>&1 | tee $OUT/bench.txt | tail -20
T4=$(date +%s); echo "bench: $((T4-T3)) s"
