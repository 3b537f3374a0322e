#!/usr/bin/env python3
"""Remove from committed raw shards the records a re-timing superseded, in place, so that the data of record stays
what every reader already sees and the working tree that travels to the GPU machine stays under its 64 MiB.

    python benchmarks/prune_superseded.py reports/nvidia-h100/raw/gen-valid/rotate ...   # report what it would drop
    python benchmarks/prune_superseded.py --write reports/*/raw/*/*                       # rewrite the shards

The readers of the raw data (the report, `benchmarks/fit_model.py`) take the records through
`configs.drop_superseded`: a launch that `bench run --retime-stale` / `--retime-split` re-timed with newer kernels or a
newer split reduction is dropped there, size by size, with its attempt record. (The runner's resume reads every record:
its ResumeIndex counts a superseded launch as done, and only its choice of the best launch to time a reference of
drops them.) Those records are only ever read to be
dropped; each re-timing of a set adds them again (H100 gen-valid: 189,957 records, 86,698 kept). This script drops
them from the files themselves: each shard keeps its name (the reports' list of shards merged, the run order) and
every other line as it was, byte for byte; a file is rewritten only when it loses a record, in its own compression
(xz -9e, as committed). It refuses a folder where the pruned records would not be a fixed point of drop_superseded
(the readers would then see something else). The dropped records stay in the git history.

What changes: a later `bench run` without a re-timing flag no longer sees the superseded launches as done, so a launch
the installed model ranks that only a superseded record held is timed again (it would be stale anyway).
"""
from __future__ import annotations

import argparse
import gzip
import json
import lzma
import os
import sys
from pathlib import Path

from origami_nv.bench import configs as C
from origami_nv.bench.store import _run_order, open_shard, shard_name


def read_folder(folder: Path) -> tuple[list[tuple[Path, list]], list[dict]]:
    """The folder's shard files in load_records' order, each with its lines as (text, record or None), and the
    records in reading order (the same selection and order as store.load_records)."""
    files: dict[str, Path] = {}
    for pattern in ("shard-*.jsonl", "shard-*.jsonl.xz", "shard-*.jsonl.gz"):
        for p in sorted(folder.glob(pattern)):
            files.setdefault(shard_name(p), p)
    out, records = [], []
    for name in sorted(files, key=_run_order):
        p = files[name]
        lines = []
        with open_shard(p) as f:
            for line in f:
                rec = None
                s = line.strip()
                if s:
                    try:
                        obj = json.loads(s)
                    except json.JSONDecodeError:
                        obj = None
                    if isinstance(obj, dict) and "kind" in obj:
                        obj["_file"] = name  # (what load_records adds; not written back)
                        rec = obj
                        records.append(rec)
                lines.append((line, rec))
        out.append((p, lines))
    return out, records


def _strip(rec: dict) -> dict:
    return {k: v for k, v in rec.items() if k != "_file"}


def write_shard(path: Path, text: str) -> None:
    tmp = path.with_name(path.name + ".tmp")
    if path.suffix == ".xz":
        with lzma.open(tmp, "wt", encoding="utf-8", preset=9 | lzma.PRESET_EXTREME) as f:
            f.write(text)
    elif path.suffix == ".gz":
        with gzip.open(tmp, "wt", encoding="utf-8", compresslevel=9) as f:
            f.write(text)
    else:
        tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


def prune(folder: Path, write: bool) -> tuple[int, int, int]:
    """(records, records kept, bytes saved) of one raw folder; the files rewritten when write."""
    shards, records = read_folder(folder)
    kept = C.drop_superseded(records)
    keep_ids = {id(r) for r in kept}
    if len(kept) == len(records):
        return len(records), len(kept), 0
    # What the readers see after the pruning must be what they see now.
    again = C.drop_superseded(kept)
    if [_strip(r) for r in again] != [_strip(r) for r in kept]:
        raise SystemExit(f"{folder}: the pruned records are not a fixed point of drop_superseded; nothing written")
    saved = 0
    for path, lines in shards:
        if not write or all(rec is None or id(rec) in keep_ids for _, rec in lines):
            continue
        text = "".join(line if line.endswith("\n") else line + "\n"
                       for line, rec in lines if rec is None or id(rec) in keep_ids)
        before = path.stat().st_size
        write_shard(path, text)
        saved += before - path.stat().st_size
    return len(records), len(kept), saved


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("folders", nargs="+", type=Path, help="raw folders (reports/<gpu>/raw/<suite>/<timing>)")
    ap.add_argument("--write", action="store_true", help="rewrite the shards (default: report only)")
    args = ap.parse_args(argv)
    total_saved = 0
    for folder in args.folders:
        if not folder.is_dir():
            continue
        n, k, saved = prune(folder, args.write)
        total_saved += saved
        if k < n:
            print(f"{folder}: {n} records, {n - k} superseded" + (f", {saved / 1e6:.2f} MB saved" if args.write else ""))
    if args.write:
        print(f"{total_saved / 1e6:.2f} MB saved")
    return 0


if __name__ == "__main__":
    sys.exit(main())
