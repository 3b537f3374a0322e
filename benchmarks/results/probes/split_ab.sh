#!/usr/bin/env bash
# Twenty-fourth session: split-K launches of an older commit's kernels against the working tree's, both built with a
# kernel filter (~45 s on the device), timed in alternating processes (probe_split_ab.py). Make the old tree first
# (untracked, so it travels to the device):
#   mkdir ab_old && git archive COMMIT CMakeLists.txt pyproject.toml cpp python README.md | tar -x -C ab_old
# and a variant tree as ab_v3/ (optional; VARIANTS=v3 times it too). Delete both afterwards.
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
F='^origami_wgmma_(128x192x64_s5|128x144x64_s6|128x128x64_s6)_w12_fp16_kk$|^origami_wgmma_(128x256x64_s4|256x128x64_s4)_w12_bf16_(kk|kn)$'
t0=$(date +%s)
build() {  # src target builddir
  CMAKE_BUILD_PARALLEL_LEVEL=16 python3 -m pip install --no-build-isolation --no-deps -q --target "$2" \
    -Cbuild-dir="$3" -Ccmake.define.ORIGAMI_NV_KERNEL_FILTER="$F" -Ccmake.define.ORIGAMI_NV_CALIBRATE=OFF "$1" \
    >"$OUT/build_$(basename $2).log" 2>&1 || { tail -20 "$OUT/build_$(basename $2).log"; exit 1; }
}
build ./ab_old /tmp/oldpkg /tmp/oldbuild & build . /tmp/newpkg /tmp/newbuild &
[ -d ab_v3 ] && build ./ab_v3 /tmp/v3pkg /tmp/v3build &
wait
echo "builds $(( $(date +%s) - t0 )) s"
for r in 1 2; do for v in old new ${VARIANTS:-}; do
  PYTHONPATH=/tmp/${v}pkg timeout 100 python3 benchmarks/results/probes/probe_split_ab.py $v >> "$OUT/probe_split_ab.txt" 2>&1
done; done
cat "$OUT/probe_split_ab.txt" | grep -v Warn | cut -c1-150
echo "total $(( $(date +%s) - t0 )) s"
