"""benchmarks/prune_superseded.py: the records a re-timing superseded leave the committed shards, nothing else moves."""
import importlib.util
import json
import lzma
from pathlib import Path

from origami_nv.bench import configs as C
from origami_nv.bench.store import load_records

_SPEC = importlib.util.spec_from_file_location(
    "prune_superseded", Path(__file__).resolve().parents[1] / "benchmarks" / "prune_superseded.py")
prune_superseded = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(prune_superseded)

CFG = {"block_m": 128, "block_n": 128, "block_k": 32, "group_size_m": 8, "stages": 3, "warps": 4,
       "family": "mma_sync"}
EDGE = {"M": 100, "N": 256, "K": 64, "dtype": "float16"}  # every 128-row tile hangs over M: kernel change 3 alters it


def _line(rec: dict) -> str:
    return json.dumps(rec, sort_keys=True) + "\n"


def _without_file(recs):
    return [{k: v for k, v in r.items() if k != "_file"} for r in recs]


def test_prune_drops_the_superseded_records_and_keeps_every_other_line(tmp_path):
    old = {"kind": "config", "system": "origami", "size": "e", "size_info": EDGE, "config": CFG, "kernel_version": 2,
           "status": "ok", "time_s": 2e-5, "t": 1.0}
    old_attempt = dict(old, kind="attempt", result_kind="config", t=0.5)
    cublas = {"kind": "config", "system": "cublas", "size": "e", "size_info": EDGE, "status": "ok", "time_s": 1e-5,
              "t": 1.5}
    new = dict(old, kernel_version=4, time_s=1.5e-5, t=10.0)
    assert C.stale_kernel_record(old, upto=4) and not C.stale_kernel_record(new, upto=4)
    first = tmp_path / "shard-0-of-1-20260101T000000Z-1.jsonl.xz"
    first_lines = ['{"kind": "meta", "device": "test GPU", "t": 0.1}\n', _line(old_attempt), _line(old),
                   "not a record: a write cut short\n", _line(cublas)]
    with lzma.open(first, "wt", encoding="utf-8") as f:
        f.write("".join(first_lines))
    second = tmp_path / "shard-0-of-1-20260102T000000Z-2.jsonl"
    done = {"kind": "size_done", "system": "origami", "size": "e", "t": 11.0}  # the re-timing of "e" completed
    retiming = {"kind": "meta", "device": "test GPU", "retime_stale": True, "t": 9.0}  # (bench run --retime-stale)
    second_text = _line(retiming) + _line(new) + _line(done)
    second.write_text(second_text, encoding="utf-8")
    seen = C.drop_superseded(load_records(tmp_path))
    assert len(seen) == len(load_records(tmp_path)) - 2  # the old launch and its attempt

    # A dry run reports and writes nothing.
    before = first.read_bytes()
    assert prune_superseded.prune(tmp_path, write=False) == (7, 5, 0)
    assert first.read_bytes() == before

    n, kept, saved = prune_superseded.prune(tmp_path, write=True)
    assert (n, kept) == (7, 5) and saved != 0
    with lzma.open(first, "rt", encoding="utf-8") as f:  # still xz, the other lines byte for byte, in order
        assert f.read() == "".join(line for line in first_lines if line not in (_line(old), _line(old_attempt)))
    assert second.read_text(encoding="utf-8") == second_text  # a shard that lost nothing is not rewritten
    after = load_records(tmp_path)
    assert _without_file(after) == _without_file(seen)  # what every reader sees did not change
    assert _without_file(C.drop_superseded(after)) == _without_file(seen)
    # A second pass has nothing left to drop.
    assert prune_superseded.prune(tmp_path, write=True) == (5, 5, 0)
