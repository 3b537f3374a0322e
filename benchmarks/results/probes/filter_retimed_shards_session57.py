#!/usr/bin/env python3
"""How the fifty-seventh session's H100 re-timing shards were filtered before they were committed (a record, not a tool).

The re-timing (`device_session.sh retime:gen-valid`, then `retime:gen-train retime:odd`, H100, commit 9264606) ran with
every operand copy of the op chained (programmatic dependent launch); the op was then bounded to chain only problems of
at most 16 GFLOP (cpp/ops/ops_cuda.cpp kCopyChainMaxFlop), because the chained copies made long GEMMs slower. So the
launches of a size above the bound whose op call copies an operand were measured with a behaviour the op no longer has.
Every record of such a size (its launches, picks and size_done mark) was left out, so the size keeps its earlier
measurements, as if the re-timing had not reached it (configs.drop_superseded works size by size); the other sizes'
records, measured as the op now runs them, were kept. Dropped: gen-valid 11 of 30 re-timed sizes, gen-train 7 of 130,
odd 5 of 10.
    python benchmarks/results/probes/filter_retimed_shards_session57.py DIR/shards.tar...   (writes reports/.../raw)
"""
import gzip
import json
import lzma
import sys
import tarfile
import tempfile
from pathlib import Path

from origami_nv.bench import configs as C

ROOT = Path(__file__).resolve().parents[3]


def chained_when_run(info: dict, cfg: dict) -> bool:
    """configs._op_copies_an_operand without the flop bound: the launches whose copies the re-timing run chained."""
    bound, C.COPY_CHAIN_MAX_FLOP = C.COPY_CHAIN_MAX_FLOP, float("inf")
    try:
        return C._op_copies_an_operand(info, cfg)
    finally:
        C.COPY_CHAIN_MAX_FLOP = bound


def main(tars):
    for t in tars:
        with tempfile.TemporaryDirectory() as tmp:
            tarfile.open(t).extractall(tmp)
            for f in sorted(Path(tmp).glob("rep/*/raw/*/*/shard-*.jsonl.gz")):
                lines = gzip.open(f, "rt").read().splitlines()
                recs = [json.loads(x) for x in lines]
                above = {r["size"] for r in recs if r.get("size_info") and r.get("config")
                         and 2 * int(r["size_info"].get("batch", 1) or 1) * r["size_info"]["M"] * r["size_info"]["N"]
                         * r["size_info"]["K"] > C.COPY_CHAIN_MAX_FLOP
                         and chained_when_run(r["size_info"], C.normalize(r["config"]))}
                keep = [x for x, r in zip(lines, recs) if r.get("size") not in above or r.get("kind") == "meta"]
                rel = f.relative_to(Path(tmp) / "rep")
                dest = ROOT / "reports" / str(rel)[: -len(".gz")]
                dest = dest.with_name(dest.name + ".xz")
                if dest.exists():
                    continue
                dest.parent.mkdir(parents=True, exist_ok=True)
                with lzma.open(dest, "wt", preset=9 | lzma.PRESET_EXTREME) as o:
                    o.write("\n".join(keep) + "\n")
                print(f"{rel}: {len(recs)} -> {len(keep)} records; sizes left out: {sorted(above)}")


if __name__ == "__main__":
    main(sys.argv[1:])
