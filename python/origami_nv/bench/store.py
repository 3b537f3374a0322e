"""Raw results: one JSONL file per (suite, timing mode, shard), appended record by record.

Every record is written and fsync'ed as soon as it is produced, so a run that is killed (time
limit, a kernel that hangs or takes the CUDA context down) loses at most the config in flight;
an `attempt` record written before each launch lets the next run mark that one as crashed and
skip it instead of crashing on it again.

Record kinds (all carry suite, size (key), system, t):
  meta       run header: device, software, timing options, systems, shard, argv
  attempt    about to run one item (item = config id, "pick" or "cublas")
  config     one brute-force config: status ok | wrong | error | crashed, timing, predicted cycles
  pick       the model's pick through the selection path: config, timing, selection times
  reference  the size's fastest launch so far, timed again right after a re-timed pick in the same run (pick_t:
             that pick record's t), so the report's A/BF can be a ratio of two times of one run on one machine
  baseline   cuBLAS (torch.matmul)
  size_done  every item of (size, system) has a result
  cancelled  the item in flight when SIGTERM/SIGINT arrived (not a crash: measured again next run)
  stopped    the run stopped early (time budget, device error, signal); re-running resumes
"""
from __future__ import annotations

import gzip
import lzma
import json
import math
import os
import re
import time
from pathlib import Path

RESULT_KINDS = ("config", "pick", "baseline", "reference")


def _clean(v):
    """JSON cannot hold nan/inf: write them as null."""
    if isinstance(v, float) and not math.isfinite(v):
        return None
    if isinstance(v, dict):
        return {k: _clean(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_clean(x) for x in v]
    return v


def run_id() -> str:
    """UTC time + pid: file names of successive runs sort in the order they ran."""
    return time.strftime("%Y%m%dT%H%M%SZ", time.gmtime()) + f"-{os.getpid()}"


def shard_file(raw_dir: Path, shard: tuple[int, int], run: str | None = None) -> Path:
    """One file per (shard, run): raw folders from several machines can be copied together
    without overwriting each other."""
    i, n = shard
    return Path(raw_dir) / f"shard-{i}-of-{n}-{run or run_id()}.jsonl"


class RawStore:
    def __init__(self, raw_dir: Path, shard: tuple[int, int], run: str | None = None):
        self.raw_dir = Path(raw_dir)
        self.raw_dir.mkdir(parents=True, exist_ok=True)
        self.path = shard_file(self.raw_dir, shard, run)

    def append(self, record: dict) -> dict:
        rec = dict(record)
        rec.setdefault("t", time.time())
        line = json.dumps(_clean(rec), sort_keys=True)
        with open(self.path, "a", encoding="utf-8") as f:
            f.write(line + "\n")
            f.flush()
            os.fsync(f.fileno())
        return rec


_SHARD_STAMP = re.compile(r"shard-\d+-of-\d+-(\d{8}T\d{6}Z)")


def _run_order(name: str) -> tuple:
    """Shard files in the order they were started: by the UTC start stamp in the name (shard-i-of-n-STAMP-pid),
    then by name. Plain name order is not run order once runs with different shard counts share a folder
    (shard-0-of-1-<later> would sort before shard-2-of-3-<earlier>)."""
    m = _SHARD_STAMP.match(name)
    return (m.group(1) if m else "", name)


# The suffixes of a compressed shard and how to read it. xz is what finished shards are committed as: the JSON
# records compress ~35 % better than with gzip (H100 gen-valid, 26 shards: 10.9 MB gzip -9, 7.0 MB xz -9e), and the
# working tree that travels to the GPU machine is capped at 64 MiB.
_COMPRESSED = {".xz": lzma.open, ".gz": gzip.open}


def shard_name(path: Path) -> str:
    """A shard's name without its compression suffix (shard-....jsonl)."""
    return path.name[:-len(path.suffix)] if path.suffix in _COMPRESSED else path.name


def open_shard(path: Path):
    """A shard file (plain, .xz or .gz) opened for reading text."""
    return _COMPRESSED.get(path.suffix, open)(path, "rt", encoding="utf-8")


def load_records(*raw_dirs: Path) -> list[dict]:
    """All records of every shard file in the raw folders, file by file in run order
    (_run_order), so a later result of the same item wins. A line that does not parse (a write cut short
    by a kill) is skipped; a file name seen in an earlier folder is read once."""
    out = []
    files: dict[str, Path] = {}
    # Finished shards may be committed compressed (shard-*.jsonl.xz or .gz: the raw data of a suite is tens of MB
    # as text); every spelling of one shard counts once.
    for d in raw_dirs:
        d = Path(d)
        if d.is_dir():
            for pattern in ("shard-*.jsonl", "shard-*.jsonl.xz", "shard-*.jsonl.gz"):
                for p in sorted(d.glob(pattern)):
                    files.setdefault(shard_name(p), p)
    for name in sorted(files, key=_run_order):
        p = files[name]
        with open_shard(p) as f:
            for line in f:
                line = line.strip()
                if not line:
                    continue
                try:
                    rec = json.loads(line)
                except json.JSONDecodeError:
                    continue
                if isinstance(rec, dict) and "kind" in rec:
                    rec["_file"] = name
                    out.append(rec)
    return out


class ResumeIndex:
    """What is already done, over every shard file of the suite (so a re-run with a different
    shard count still skips finished work)."""

    def __init__(self, records: list[dict]):
        self.results: dict[tuple, dict] = {}
        self.attempts: dict[tuple, dict] = {}
        self.size_done: set[tuple] = set()
        for r in records:
            k = r.get("kind")
            key = (r.get("size"), r.get("system"), r.get("item"))
            if k in RESULT_KINDS:
                self.results[key] = r
            elif k == "attempt":
                self.attempts[key] = r
            elif k == "cancelled":
                self.attempts.pop(key, None)
            elif k == "size_done":
                self.size_done.add((r.get("size"), r.get("system")))

    def has(self, size_key: str, system: str, item: str) -> bool:
        return (size_key, system, item) in self.results

    def crashed(self) -> list[dict]:
        """Attempts that never got a result: the process died during them."""
        return [a for key, a in self.attempts.items() if key not in self.results]

    def add(self, rec: dict) -> None:
        k = rec.get("kind")
        key = (rec.get("size"), rec.get("system"), rec.get("item"))
        if k in RESULT_KINDS:
            self.results[key] = rec
        elif k == "attempt":
            self.attempts[key] = rec
        elif k == "cancelled":
            self.attempts.pop(key, None)
        elif k == "size_done":
            self.size_done.add((rec.get("size"), rec.get("system")))

    def best_time(self, size_key: str, system: str) -> float | None:
        """Fastest fully timed correct brute-force config so far (the cut-off reference)."""
        best = None
        for (s, sy, _), r in self.results.items():
            if s == size_key and sy == system and r.get("kind") == "config" and r.get("status") == "ok" \
                    and not r.get("cut_off") and r.get("time_s"):
                best = r["time_s"] if best is None else min(best, r["time_s"])
        return best
