#!/usr/bin/env bash
# Twenty-ninth session, H100 held-out A/B of the twins with a filtered build (the tiles of the before/after picks only,
# ORIGAMI_NV_KERNEL_FILTER): the op's pick among them is the full build's where the full pick is among them (printed).
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
source benchmarks/results/probes/device_lib.sh
device_start
F='origami_wgmma_(64x64|64x128|128x64|128x128|128x144|128x192|128x256|112x128)x64_'
python3 -m pip install --no-build-isolation --no-deps -q -Cbuild-dir=/tmp/origami_build "-Ccmake.define.ORIGAMI_NV_KERNEL_FILTER=$F" . >"$OUT/build.log" 2>&1 || { tail -30 "$OUT/build.log"; exit 1; }
echo "build $(( $(date +%s) - t0 )) s"
for v in 1 2 1 2; do ORIGAMI_NV_MULTICAST=$v python3 benchmarks/results/probes/probe_twins_valid.py r$v 2>&1 | tee -a "$OUT/twins_valid.txt" | cut -c1-230; done
python3 -c "
import origami_nv
for M,N,K,lay,dt in [(1200,1200,1200,'nn','float16'),(800,2000,1500,'nt','bfloat16'),(1000,1000,2000,'nt','float16'),(500,1500,3000,'nn','float16'),(2500,700,1800,'nt','bfloat16'),(1500,500,2500,'nn','float16')]:
    e=origami_nv.explain(M,N,K,dt,layout=lay).selection; c=e['config']
    print('pick', M,N,K,lay,dt,c.block_m,c.block_n,c.split_k,'twin' if e['final_breakdown']['multicast_b'] else '')
"
echo "total $(( $(date +%s) - t0 )) s"
