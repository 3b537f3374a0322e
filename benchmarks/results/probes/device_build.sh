#!/usr/bin/env bash
# The device jobs' package build (run from the repository root on the GPU machine): pip install into the
# machine's Python with a persistent CMake build folder (a warm machine rebuilds only what changed), log in
# $OUT/build.log, the log's tail and a non-zero status on failure.
#   bash benchmarks/results/probes/device_build.sh [JOBS]     (default: every core)
CMAKE_BUILD_PARALLEL_LEVEL=${1:-$(nproc)} python3 -m pip install --no-build-isolation --no-deps -v \
  -Cbuild-dir=/tmp/origami_build . >"$OUT/build.log" 2>&1 || { tail -30 "$OUT/build.log"; exit 1; }
