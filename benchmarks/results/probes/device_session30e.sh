#!/usr/bin/env bash
# Thirtieth session: a health check of HEAD on one GPU: the full build, then the whole test suite (GPU tests
# included) within the call's time, interrupted (SIGINT: pytest prints its summary) when time runs out.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
source benchmarks/results/probes/device_lib.sh
device_start
device_ensure_built
left=$(( ${DEADLINE:-570} - ($(date +%s) - t0) ))
timeout -s INT "$left" python3 -m pytest tests -q -p no:cacheprovider -rfE --durations=12 > "$OUT/tests.log" 2>&1
echo "pytest rc=$?"
grep -E "passed|failed|error|FAILED|ERROR" "$OUT/tests.log" | tail -25
tail -20 "$OUT/tests.log"
echo "total $(( $(date +%s) - t0 )) s"
