#!/usr/bin/env bash
# Shared steps of the one-off device jobs (source it from the repository root on the GPU machine):
#   device_start           t0, unbuffered Python, the GPU's name printed; sets $name and $gpu (h100 / h200)
#   device_require GPU     exit 3 unless this is GPU (nvidia-h100 / nvidia-h200): never file one GPU's timings
#                          under the other's name (the device may lend the other Hopper GPU)
#   device_ensure_built    the package is built (device_build.sh) unless the op already loads; the time so far
#   device_build_filtered REGEX   a quick build of the kernels whose names match REGEX (ORIGAMI_NV_KERNEL_FILTER;
#                          ~1 min instead of ~4): the op then selects among those only
#   device_ship_shards     the raw shards under /tmp/rep gzipped into $OUT/shards.tar (bench run --out /tmp/rep);
#                          here, unpack_shards.sh stores them as committed (.jsonl.xz)
#   device_prepare GPU     the three above in order
#   device_begin           $OUT made, device_start, device_ensure_built, R = the repository root: a script's preamble
#   device_resume_suite S  time what the installed model adds to suite S's stored data (its new picks, the brute
#                          force's missing launches) within ${DEVICE_CALL_S:-540} s of t0 (set it lower when the
#                          session's device time left is less than a whole call), into /tmp/rep under this GPU's name
#                          (nvidia-h100 / nvidia-h200, from device_start); 1 when no time is left
device_start() {
  t0=$(date +%s)
  export PYTHONUNBUFFERED=1
  name=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1); echo "$name"
  gpu=h100; case "$name" in *H200*) gpu=h200;; esac
}

device_require() {
  local have=unknown
  case "$name" in *H200*) have=nvidia-h200;; *H100*) have=nvidia-h100;; esac
  [ "$have" = "$1" ] || { echo "asked to time $1 but this is $name: nothing timed"; exit 3; }
}

device_ensure_built() {
  if ! python3 -c "from origami_nv.ops import load_op; load_op()" >/dev/null 2>&1; then
    bash benchmarks/results/probes/device_build.sh || exit 1
  fi
  echo "build/check $(( $(date +%s) - t0 )) s"
}

device_build_filtered() {
  python3 -m pip install --no-build-isolation --no-deps -q -Cbuild-dir=/tmp/origami_build \
    "-Ccmake.define.ORIGAMI_NV_KERNEL_FILTER=$1" . >"$OUT/build.log" 2>&1 || { tail -30 "$OUT/build.log"; exit 1; }
  echo "build $(( $(date +%s) - t0 )) s"
}

device_prepare() {
  device_start
  device_require "$1"
  device_ensure_built
}

device_ship_shards() {
  local f d
  rm -rf /tmp/ship && mkdir -p /tmp/ship
  for f in /tmp/rep/*/raw/*/*/shard-*.jsonl; do
    [ -e "$f" ] || continue; d=/tmp/ship/${f#/tmp/}; mkdir -p "$(dirname "$d")"; gzip -c "$f" > "$d.gz"; done
  for f in /tmp/rep/*/raw/*/*/shard-*.jsonl.gz; do
    [ -e "$f" ] || continue; d=/tmp/ship/${f#/tmp/}; mkdir -p "$(dirname "$d")"; cp "$f" "$d"; done
  [ -d /tmp/ship/rep ] && (cd /tmp/ship && tar cf "$OUT/shards.tar" rep && ls -la "$OUT/shards.tar")
}

# device_resume_suite SUITE [--retime-stale]: time what the stored data lacks (and, with --retime-stale, the launches a
# later kernel change altered: bench/configs.py KERNEL_CHANGES) within the call's remaining time
device_resume_suite() {
  local left=$(( ${DEVICE_CALL_S:-540} - ($(date +%s) - t0) ))
  [ "$left" -gt 30 ] || { echo "no time left for $1"; return 1; }
  python3 -m origami_nv bench run --suite "$1" --out /tmp/rep --resume-from reports --gpu-name "nvidia-$gpu" \
    --no-seed --no-plots --no-report --time-budget "$left" ${2:-} 2>&1 | tail -2
  echo "$1 done $(( $(date +%s) - t0 )) s"
}

device_begin() {
  OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
  R=$PWD
  device_start
  device_ensure_built
}
