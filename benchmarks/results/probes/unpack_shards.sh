#!/usr/bin/env bash
# Here, after a device job: the raw shards of its $OUT/shards.tar (device_lib.sh device_ship_shards, gzip) into
# reports/<gpu>/raw/<suite>/<mode>/ as .jsonl.xz, the spelling finished shards are committed in
# (python/origami_nv/bench/store.py: ~35 % smaller than gzip). Prints the suites it touched.
#   bash benchmarks/results/probes/unpack_shards.sh PATH/shards.tar
set -euo pipefail
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
tar xf "$1" -C "$tmp"
for f in "$tmp"/rep/*/raw/*/*/shard-*.jsonl.gz; do
  [ -e "$f" ] || continue
  rel=${f#"$tmp"/rep/}; dest=reports/${rel%.gz}.xz
  mkdir -p "$(dirname "$dest")"
  [ -e "$dest" ] || zcat "$f" | xz -9e > "$dest"
  echo "$(dirname "$rel")"
done | sort -u
