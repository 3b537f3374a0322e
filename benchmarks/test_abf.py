"""Runs one A/BF suite (or one shard of it) and writes its report: see benchmarks/METHOD.md."""
import json
from pathlib import Path

import pytest


def test_suite_report(bench_args):
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("benchmark: no CUDA GPU is visible")
    from origami_nv.bench import cli
    rc = cli.main(bench_args)
    if rc == cli.EXIT_INCOMPLETE:
        pytest.skip("stopped by --time-budget; the raw results are kept: re-run the same command to resume")
    assert rc == cli.EXIT_OK, f"bench run exited with {rc} (4 = the CUDA context broke; see the report)"
    out = Path(bench_args[bench_args.index("--out") + 1])
    suite = bench_args[bench_args.index("--suite") + 1]
    mode = bench_args[bench_args.index("--timing") + 1]
    stem = suite if mode == "rotate" else f"{suite}-{mode}"
    reports = list(out.glob(f"*/{stem}.json"))
    assert reports, f"no report {stem}.json under {out}"
    doc = json.loads(max(reports, key=lambda p: p.stat().st_mtime).read_text())
    # every size of this shard has a cuBLAS baseline that ran and matched the fp32 reference
    base = [r for r in doc["records"] if r.get("kind") == "baseline"]
    assert base and all(r["status"] == "ok" for r in base), [r.get("error") for r in base if r["status"] != "ok"]
