#!/usr/bin/env bash
# Thirty-first session: TMA-stored twins at large aligned sizes (probe_large_twins.py) alone: device_session31b.sh with
# OLD=0 (only the build with the launcher change; as run for the first rounds of probe_large_twins_h100.txt, where the
# change was in the tree itself). ROUNDS="0 2 0 2 0 2 0 2" by default.
OLD=0 LARGE=1 ROUNDS="${ROUNDS:-0 2 0 2 0 2 0 2}" exec bash benchmarks/results/probes/device_session31b.sh
