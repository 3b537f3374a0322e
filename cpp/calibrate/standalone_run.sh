#!/usr/bin/env bash
# Builds origami_nv._calibrate with nvcc/g++ directly (no CMake, none of the rest of the project)
# into a minimal package under $SHIM, then runs the calibration CLI and the calibration GPU tests.
# For a GPU session where the rest of the tree may not build yet:
#   OUT=/tmp/out bash cpp/calibrate/standalone_run.sh [calibrate args...]
# CALIB_BUILD_ONLY=1: build the module and stop (import it with PYTHONPATH=$SHIM).
set -uo pipefail
export PYTHONUNBUFFERED=1
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
S=$ROOT/cpp/calibrate
B=${BUILD:-/tmp/calib_build}
SHIM=${SHIM:-/tmp/calib_shim}
OUT=${OUT:-/tmp/calib_out}
mkdir -p "$B" "$SHIM/origami_nv" "$OUT"
NV="nvcc -std=c++17 -O3 -Xcompiler -fPIC -lineinfo"
ARCH="-gencode arch=compute_90,code=sm_90 -gencode arch=compute_80,code=compute_80"
t0=$(date +%s)
pids=()
for f in memory_bench smem_bench compute_bench; do $NV $ARCH -c "$S/$f.cu" -o "$B/$f.o" & pids+=($!); done
for f in wgmma_bench tma_stream_bench; do
  $NV -gencode=arch=compute_90a,code=sm_90a -c "$S/$f.cu" -o "$B/$f.o" & pids+=($!)
done
g++ -std=c++17 -O2 -fPIC $(python3 -m pybind11 --includes) -I"$S" -c "$S/module.cpp" -o "$B/module.o" & pids+=($!)
for p in "${pids[@]}"; do wait "$p" || { echo "BUILD FAILED"; exit 1; }; done
nvcc -shared -cudart static -Xcompiler -fPIC -o "$SHIM/origami_nv/_calibrate$(python3-config --extension-suffix)" \
  "$B"/*.o || { echo "LINK FAILED"; exit 1; }
echo "build: $(( $(date +%s) - t0 ))s"
echo "from .calibrate import calibrate" > "$SHIM/origami_nv/__init__.py"
cp "$ROOT/python/origami_nv/calibrate.py" "$SHIM/origami_nv/"
[ -n "${CALIB_BUILD_ONLY:-}" ] && exit 0  # the package under $SHIM, for a probe script
export PYTHONPATH=$SHIM
cd /tmp
python3 -c "import sys; from origami_nv.calibrate import main; sys.exit(main(sys.argv[1:]))" "$@"
