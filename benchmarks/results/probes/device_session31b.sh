#!/usr/bin/env bash
# Thirty-first session: the twins' TMA-stored epilogue against their thread-stored one (probe_twin_store.py), two
# filtered builds side by side ("old" = this tree, "new" = a copy with the launcher's C-map condition for the twins
# dropped: the change measured and not adopted, cpp/kernels/wgmma/NOTES.md session 31), processes alternated; then
# probe_large_twins.py (1-CTA vs twin at large aligned sizes) on the new build (LARGE=0 skips it).
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
source benchmarks/results/probes/device_lib.sh
device_start
F='origami_wgmma_(64x128|128x64|128x128|128x192|128x256|256x128)x64_'
rm -rf /tmp/newsrc && mkdir /tmp/newsrc && cp -r . /tmp/newsrc/ && rm -rf /tmp/newsrc/build
sed -i 's/!kSwapAB \&\& P::kTmaStore \&\& kCluster == 1 \&\& !sp.cluster \&\& units > sms \&\&/!kSwapAB \&\& P::kTmaStore \&\& !sp.cluster \&\& units * kCluster > sms \&\&/' \
  /tmp/newsrc/cpp/kernels/wgmma/gemm_wgmma.cuh
grep -c "!sp.cluster && units \* kCluster > sms" /tmp/newsrc/cpp/kernels/wgmma/gemm_wgmma.cuh || exit 1
(cd /tmp/newsrc && python3 -m pip install --no-build-isolation --no-deps -q -Cbuild-dir=/tmp/origami_build_new \
   "-Ccmake.define.ORIGAMI_NV_KERNEL_FILTER=$F" --target /tmp/pkg_new . > "$OUT/build_new.log" 2>&1) &
if [ "${OLD:-1}" = 1 ]; then
  python3 -m pip install --no-build-isolation --no-deps -q -Cbuild-dir=/tmp/origami_build_old \
     "-Ccmake.define.ORIGAMI_NV_KERNEL_FILTER=$F" --target /tmp/pkg_old . > "$OUT/build_old.log" 2>&1 || { tail -20 "$OUT/build_old.log"; exit 1; }
fi
wait || true
[ -d /tmp/pkg_new/origami_nv ] || { tail -20 "$OUT/build_new.log"; exit 1; }
echo "builds $(( $(date +%s) - t0 )) s"
if [ "${OLD:-1}" = 1 ]; then
  for r in 1 2 3; do for v in old new; do
    PYTHONPATH=/tmp/pkg_$v timeout 100 python3 benchmarks/results/probes/probe_twin_store.py "$gpu-$v" 2>&1 | tee -a "$OUT/twin_store_$gpu.txt" | cut -c1-200
  done; done
fi
if [ "${LARGE:-1}" = 1 ]; then
  for v in ${ROUNDS:-0 2 0 2 0 2}; do PYTHONPATH=/tmp/pkg_new ORIGAMI_NV_MULTICAST=$v timeout 150 python3 benchmarks/results/probes/probe_large_twins.py "$gpu-r$v" 2>&1 | tee -a "$OUT/large_twins_$gpu.txt" | cut -c1-120; done
fi
echo "total $(( $(date +%s) - t0 )) s"
