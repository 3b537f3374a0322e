"""Report maths and rendering from synthetic timings, and the merge of shards (no GPU)."""
import csv
import json

import pytest

from origami_nv.bench import cli
from origami_nv.bench import configs as C
from origami_nv.bench import report as R
from origami_nv.bench.fake import FakeHarness, FakeSystem
from origami_nv.bench.runner import RunOptions, run_suite
from origami_nv.bench.suites import SUITES
from origami_nv.bench.store import load_records


def cfg(bm, bn, bk, g=8, family="mma_sync"):
    return {"block_m": bm, "block_n": bn, "block_k": bk, "group_size_m": g, "stages": 3, "warps": 4,
            "family": family}


A, B, Cc, D, E = cfg(128, 128, 32), cfg(64, 128, 32), cfg(128, 64, 64), cfg(32, 32, 32), cfg(256, 128, 64)
ID = {k: C.config_id(v) for k, v in dict(A=A, B=B, C=Cc, D=D, E=E).items()}
SUITE = SUITES["tiny"]
S1, S2, S3 = SUITE.sizes


def systems():
    o = FakeSystem("origami", [(A, 1000.0), (B, 1100.0), (Cc, 1500.0), (D, 9000.0), (E, None)], pick=A)
    sa, sb = cfg(64, 64, 64, 4, "triton"), cfg(128, 128, 64, 4, "triton")
    s = FakeSystem("seed", [(sa, 2000.0), (sb, 1000.0)], pick=sb)
    return o, s


def times():
    t = {"cublas": 1.0e-6, ID["A"]: 1.2e-6, ID["B"]: 1.0e-6, ID["C"]: 2.0e-6,
         ID["D"]: 10e-6, ID["E"]: 1.5e-6,
         C.config_id(cfg(64, 64, 64, 4, "triton")): 2.0e-6, C.config_id(cfg(128, 128, 64, 4, "triton")): 4.0e-6}
    t[(S2.key, "pick " + ID["A"])] = 5.0e-6        # size 2: the pick is 5x slower than the best -> a failure
    return t


def run_all(raw, shards=1):
    for i in range(shards):
        h = FakeHarness(times())
        assert run_suite(SUITE, raw, h, list(systems()), RunOptions(shard=(i, shards))).complete


def test_analysis_numbers(tmp_path):
    run_all(tmp_path)
    an = R.analyze(load_records(tmp_path), SUITE)
    assert an["systems"] == ["origami", "seed"]
    row = an["rows"][0]
    o = row.systems["origami"]
    assert row.cublas_tflops == pytest.approx(S1.flops / 1e-6 / 1e12)
    assert o.a_bf == pytest.approx(1.0 / 1.2)
    assert o.a_cublas == pytest.approx(1.0 / 1.2)
    assert o.bf["config_id"] == ID["B"]
    # predicted A<B<C<D, measured B<A<C<D: one discordant pair of 6 -> (5-1)/6
    assert o.tau == pytest.approx(4 / 6) and o.n_tau == 4
    assert o.pred_rank_of_best == 2 and o.n_ranked == 4       # B is the model's #2
    assert o.meas_rank_of_pick == 2 and o.n_ok == 5           # A is the 2nd fastest of 5
    assert o.pick_pred_s == pytest.approx(1e-6)               # 1000 cycles at 1 GHz
    assert o.pick_pred_err == pytest.approx(1.0 / 1.2 - 1.0)
    assert o.n_cut == 1                                       # D: 10 us > 4 x 1 us
    assert not o.failed
    o2 = an["rows"][1].systems["origami"]
    assert o2.a_bf == pytest.approx(0.2) and o2.failed and "A/BF" in o2.failure
    s = row.systems["seed"]
    assert s.a_bf == pytest.approx(0.5) and s.tau == pytest.approx(-1.0)
    S = an["summary"]["origami"]
    assert S["a_bf_median"] == pytest.approx(1.0 / 1.2)
    assert S["a_bf_min"] == pytest.approx(0.2)
    assert S["failures"] == 1 and S["sizes"] == 3
    assert S["tau_mean"] == pytest.approx(4 / 6)
    assert S["selection_cold_median_s"] == pytest.approx(50e-6)
    assert an["sizes_measured"] == 3 and an["sizes_total"] == 3


def test_failed_pick_counts_as_zero(tmp_path):
    h = FakeHarness(times(), launch_errors={"pick"})
    o, _ = systems()
    run_suite(SUITE, tmp_path, h, [o], RunOptions())
    an = R.analyze(load_records(tmp_path), SUITE)
    r = an["rows"][0].systems["origami"]
    assert r.a_tflops == 0.0 and r.a_bf == 0.0 and r.failed and "pick error" in r.failure
    assert an["summary"]["origami"]["failures"] == 3


def test_unmeasured_repredicted_pick_is_neither_a_failure_nor_a_zero(tmp_path):
    # bench/repredict.py: a pick of the installed model that no run timed has status "unmeasured". Its size has no A
    # figure (left out of the A/BF and A/cuBLAS statistics), is not a failure, and is counted and listed as such.
    run_all(tmp_path)
    recs = load_records(tmp_path)
    recs = [dict(r, status="unmeasured", time_s=None, error="repredicted pick X was not measured by the brute force")
            if r.get("kind") == "pick" and r.get("system") == "origami" and r.get("size") == S1.key else r
            for r in recs]
    an = R.analyze(recs, SUITE)
    o = an["rows"][0].systems["origami"]
    assert o.unmeasured and not o.failed and o.a_bf != o.a_bf  # nan
    S = an["summary"]["origami"]
    assert S["picks_unmeasured"] == 1 and S["failures"] == 1  # size 2's slow pick only
    assert S["a_bf_min"] == pytest.approx(0.2) and S["a_bf_median"] > 0.2
    assert S["unmeasured_list"] == [(S1.key, "repredicted pick X was not measured by the brute force")]
    md = R.render_markdown(an, SUITE.name, "rotate", [])
    assert "| picks not timed (re-predicted launches no run measured; no A figure) | 1 |" in md
    assert f"Picks of `origami` not timed (left out of the A figures): {S1.key}: repredicted pick X" in md


def test_report_files_and_rendering(tmp_path):
    raw = tmp_path / "raw"
    run_all(raw)
    an = R.write_report(raw, tmp_path / "rep", SUITE, "tiny", "rotate")
    md = (tmp_path / "rep" / "tiny.md").read_text()
    for want in ("## 7.2 Performance per size", "## 7.3 Summary", "## 7.4 Ranking quality",
                 "Fake GPU", "timing mode | **rotate**", "83.3%", "#2/4", "0.667", "| (128, 128, 128) |",
                 "failures (pick cannot run"):
        assert want in md, want
    with open(tmp_path / "rep" / "tiny.csv") as f:
        rows = list(csv.DictReader(f))
    # per size: cublas + origami (pick + 5 configs) + seed (pick + 2 configs)
    assert len(rows) == 3 * (1 + 6 + 3)
    b = next(r for r in rows if r["size"] == S1.key and r["item"] == ID["B"])
    assert float(b["time_s"]) == pytest.approx(1e-6) and float(b["predicted_s"]) == pytest.approx(1.1e-6)
    doc = json.loads((tmp_path / "rep" / "tiny.json").read_text())
    assert doc["summary"]["origami"]["failures"] == 1 and len(doc["records"]) == len(rows)
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        assert an["files"] == ["tiny.md", "tiny.csv", "tiny.json"]
    else:
        for p in ("tiny_a_bf.png", "tiny_a_cublas.png", "tiny_pred_vs_meas.png"):
            assert (tmp_path / "rep" / p).stat().st_size > 1000 and p in md


def test_merge_of_shards_equals_single_run(tmp_path):
    run_all(tmp_path / "one", shards=1)
    run_all(tmp_path / "three", shards=3)
    a = R.analyze(load_records(tmp_path / "one"), SUITE)
    b = R.analyze(load_records(tmp_path / "three"), SUITE)
    assert len(list((tmp_path / "three").glob("shard-*.jsonl"))) == 3
    for k in ("a_bf_median", "a_bf_min", "failures", "tau_mean"):
        assert a["summary"]["origami"][k] == pytest.approx(b["summary"]["origami"][k])
    assert [r.size.key for r in a["rows"]] == [r.size.key for r in b["rows"]] == [s.key for s in SUITE.sizes]


def test_incomplete_run_is_marked(tmp_path):
    h = FakeHarness(times())
    o, _ = systems()
    run_suite(SUITE, tmp_path, h, [o], RunOptions(shard=(0, 3)))
    an = R.analyze(load_records(tmp_path), SUITE)
    assert an["sizes_measured"] == 1 and an["sizes_total"] == 3
    assert "1 of 3 sizes complete" in R.render_markdown(an, "tiny", "rotate", [])


def test_cli_report_merges_shards(tmp_path, capsys):
    raw = tmp_path / "fake-gpu" / "raw" / "tiny" / "rotate"
    run_all(raw, shards=2)
    assert cli.main(["report", "--suite", "tiny", "--out", str(tmp_path), "--no-plots"]) == 0
    out = capsys.readouterr().out
    assert (tmp_path / "fake-gpu" / "tiny.md").is_file()
    last = out.strip().splitlines()
    assert last[-1].startswith("sizes complete: 3/3")
    assert any("origami: A/BF median 0.833" in line for line in last)
    assert cli.main(["report", "--suite", "seed", "--out", str(tmp_path)]) == cli.EXIT_USAGE   # no raw data


def test_cli_rejects_bad_shard(capsys):
    assert cli.main(["run", "--suite", "tiny", "--shard", "3/2"]) == cli.EXIT_USAGE
    assert "0 <= i < n" in capsys.readouterr().err
    assert cli.main(["run", "--suite", "nope"]) == cli.EXIT_USAGE


def test_cli_run_without_gpu_says_why(tmp_path, capsys):
    torch = pytest.importorskip("torch")
    if torch.cuda.is_available():
        pytest.skip("a GPU is visible")
    assert cli.main(["run", "--suite", "tiny", "--out", str(tmp_path)]) == cli.EXIT_ENV
    assert "needs a visible CUDA GPU" in capsys.readouterr().err


def test_cli_selection_time_table(tmp_path, capsys):
    out = tmp_path / "sel.md"
    assert cli.main(["select", "--suite", "tiny", "--mode", "seed", "--repeats", "5", "--out", str(out)]) == 0
    md = out.read_text()
    rows = [line for line in md.splitlines() if line.startswith("| (")]
    assert len(rows) == len(SUITE.sizes)
    for line in rows:
        cells = [c.strip() for c in line.strip("|").split("|")]
        cold, cached, cpp_select, cpp_rank = (float(c) for c in cells[4:8])
        assert int(cells[3]) > 100                      # the seed space after its filter (~120-140 configs)
        assert cold > 0 and cached > 0 and cpp_select > 0 and cpp_rank > 0
        assert cached < cold                            # a cached pick is a dict lookup


def test_unavailable_system_is_named_in_the_header(tmp_path):
    h = FakeHarness(times())
    _, seed = systems()
    run_suite(SUITE, tmp_path, h, [seed], RunOptions(unavailable={"origami": "the probe process died with SIGSEGV in step 'select_config'"}))
    an = R.analyze(load_records(tmp_path), SUITE)
    assert an["systems"] == ["seed"]
    md = R.render_markdown(an, "tiny", "rotate", [])
    assert "system `origami` | **not measured in the latest run**: the probe process died with SIGSEGV" in md
