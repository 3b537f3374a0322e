"""After a model change: `bench run` measures the new pick and nothing already measured, and
`bench report --repredict` shows the installed model's predictions and pick (no GPU)."""
import json
import shutil
from pathlib import Path

import pytest

from origami_nv import _core
from origami_nv.bench import configs as C
from origami_nv.bench.fake import FakeHarness, FakeSystem
from origami_nv.bench.report import write_report
from origami_nv.bench.repredict import repredict
from origami_nv.bench.runner import RunOptions, run_suite
from origami_nv.bench.store import load_records
from origami_nv.bench.suites import Size, Suite

ROOT = Path(__file__).resolve().parents[1]


def cfg(bm, bn, bk, stages=3, warps=4):
    return {"block_m": bm, "block_n": bn, "block_k": bk, "group_size_m": 8, "stages": stages, "warps": warps,
            "family": "mma_sync"}


A, B = cfg(128, 128, 32), cfg(64, 128, 32)
SUITE = Suite("t", "test", (Size(256, 256, 256), Size(512, 512, 512)))


def test_rerun_after_model_change_measures_only_the_new_pick(tmp_path):
    times = {"cublas": 1e-6, C.config_id(A): 1.2e-6, C.config_id(B): 1.0e-6}
    h = FakeHarness(dict(times))
    old = FakeSystem("origami", [(A, 1000.0), (B, 1100.0)], pick=A)
    assert run_suite(SUITE, tmp_path, h, [old], RunOptions()).complete
    n_timed = len(h.timed)
    # same model again: nothing to do
    h2 = FakeHarness(dict(times))
    run_suite(SUITE, tmp_path, h2, [FakeSystem("origami", [(A, 1000.0), (B, 1100.0)], pick=A)], RunOptions())
    assert h2.timed == []
    # the model now picks B: the pick is timed again, and with it, in the same run, the size's best launch (B again,
    # a reference for a same-run A/BF); no other launch
    h3 = FakeHarness(dict(times))
    new = FakeSystem("origami", [(A, 1200.0), (B, 900.0)], pick=B)
    assert run_suite(SUITE, tmp_path, h3, [new], RunOptions()).complete
    items = [item for _, item, _ in h3.timed]
    assert items == ["pick " + C.config_id(B), C.config_id(B)] * len(SUITE.sizes), items
    assert n_timed > len(items)
    picks = {}
    for r in load_records(tmp_path):
        if r["kind"] == "pick":
            picks[r["size"]] = r  # later records win, as in the report
    assert all(p["config_id"] == C.config_id(B) and p.get("repick") for p in picks.values())


@pytest.fixture(scope="module")
def h200_llm_raw():
    raw = ROOT / "reports" / "nvidia-h200" / "raw" / "llm" / "rotate"
    if not raw.is_dir():
        pytest.skip(f"no raw measurements at {raw}")
    return raw


def test_repredict_uses_the_installed_model(h200_llm_raw):
    from origami_nv.bench.repredict import _kid
    from origami_nv.bench.repredict import load_kernel_table
    recs = load_records(h200_llm_raw)
    # The kernels this data set measured (the committed table may list kernels added since, which no record
    # of this suite has timed: a pick of one of those would be unmeasured, which is not what this test is about).
    timed = {_kid(r["config"]) for r in recs if r.get("kind") == "config" and r.get("config")}
    table = [k for k in load_kernel_table(ROOT / "reports" / "kernel_resources_sm90.json") if _kid(k["config"]) in timed]
    new, info = repredict(recs, kernel_table=table)
    assert info["gpu"] == "H200" and info["configs"] > 1000 and info["sizes"] == 40
    # every origami config's predicted cycles are the installed model's
    hw = _core.resolve_hardware(None, "H200", "")
    r = next(x for x in new if x.get("kind") == "config" and x.get("system") == "origami"
             and x.get("predicted_cycles") is not None and x["config"]["family"] == "wgmma")
    si, c, res = r["size_info"], r["config"], r["resources"]
    tc = _core.TileConfig(c["block_m"], c["block_n"], c["block_k"], group_size_m=1, stages=c["stages"],
                          warps=c["warps"], family=c["family"])
    kr = _core.KernelResources(tc, dtype=si["dtype"], threads=res["threads"],
                               registers_per_thread=res["registers_per_thread"], spill_store_bytes=0,
                               spill_load_bytes=0, local_bytes=0, smem_bytes=res["smem_bytes"], arch="", source="")
    want = _core.predict(si["M"], si["N"], si["K"], si["dtype"], tc, hw, _core.ModelOptions("nv"), kr)["total_cycles"]
    assert r["predicted_cycles"] == pytest.approx(want)
    # one pick per size, the installed model's: its own measurement through the op where a `bench run`
    # timed that kernel as the pick, otherwise the brute-force time of the same kernel
    picks = [x for x in new if x.get("kind") == "pick" and x.get("system") == "origami"]
    assert len(picks) == 40
    # (a pick the brute force never timed — a split of a kernel whose unsplit launch was not among the fastest, which
    # its second pass splits — is a record with status "unmeasured" and no time; the installed model may pick a few)
    unmeasured = [p for p in picks if p.get("status") == "unmeasured"]
    via_op = [p for p in picks if p.get("status") != "unmeasured" and not p.get("via", "").startswith("repredicted")]
    via_bf = [p for p in picks if p.get("via", "").startswith("repredicted")]
    assert len(via_op) == info["picks_timed_through_op"] and len(via_op) + len(via_bf) + len(unmeasured) == 40
    assert sorted(p["size"] for p in unmeasured) == sorted(info["picks_unmeasured"]) and len(unmeasured) <= 2
    for p in unmeasured:
        assert "was not measured by the brute force" in p["error"] and "time_s" not in p
    for p in via_op + via_bf:
        assert p["time_s"] > 0
    for p in via_bf:  # the brute force timed the same kernel
        bf = [x for x in new if x.get("kind") == "config" and x.get("system") == "origami" and x.get("config")
              and x["size"] == p["size"] and _kid(x["config"]) == _kid(p["config"])]
        assert p["time_s"] in {x.get("time_s") for x in bf}
    # a size whose measured pick is not the installed model's takes the brute-force time of the new pick
    assert set(info["picks_changed"]) <= {p["size"] for p in via_bf + unmeasured}
    # make one size's measured pick another kernel (as if an older model had picked it): it is reported
    # as changed and its pick record becomes the brute-force time of the installed model's pick
    size = picks[0]["size"]
    other = next(x["config"] for x in new if x.get("kind") == "config" and x.get("system") == "origami"
                 and x["size"] == size and x.get("config") and _kid(x["config"]) != _kid(picks[0]["config"]))
    edited = [dict(r, config=other) if r.get("kind") == "pick" and r.get("system") == "origami" and r.get("size") == size
              else r for r in recs]
    new2, info2 = repredict(edited, kernel_table=table)
    assert size in info2["picks_changed"]
    p2 = next(x for x in new2 if x.get("kind") == "pick" and x.get("system") == "origami" and x["size"] == size)
    assert p2["via"].startswith("repredicted") and _kid(p2["config"]) == _kid(picks[0]["config"])


def test_repredict_never_takes_an_eager_probe_for_the_picks_time(h200_llm_raw):
    # A launch slower than the cut-off is timed by one eager probe: a bound for the ranking, not its time. When
    # that is all the brute force has of the installed model's pick, the pick is reported unmeasured.
    from origami_nv.bench.repredict import _kid
    recs = load_records(h200_llm_raw)
    # Without the op's own timing of a size's pick, the re-prediction takes the pick's time from the brute force
    # (the size's recorded picks dropped: the data may have been timed with the installed model's picks).
    first = next(r["size"] for r in recs if r.get("kind") == "pick" and r.get("system") == "origami")
    recs = [r for r in recs if not (r.get("kind") == "pick" and r.get("size") == first)]
    new, _ = repredict(recs)
    pick = next(x for x in new if x.get("kind") == "pick" and x.get("system") == "origami"
                and x.get("via", "").startswith("repredicted"))
    size, kid = pick["size"], _kid(pick["config"])
    probed = [dict(r, method="eager-probe", cut_off=True, time_s=1.0)
              if r.get("kind") == "config" and r.get("system") == "origami" and r.get("size") == size
              and r.get("config") and _kid(r["config"]) == kid else r for r in recs]
    new2, info2 = repredict(probed)
    assert size in info2["picks_unmeasured"]
    p2 = next(x for x in new2 if x.get("kind") == "pick" and x.get("system") == "origami" and x["size"] == size)
    assert p2["status"] == "unmeasured" and "not measured" in p2["error"]


def test_report_repredict_header(tmp_path, h200_llm_raw):
    raw = tmp_path / "raw"
    shutil.copytree(h200_llm_raw, raw)
    an = write_report(raw, tmp_path, None, "llm", "rotate", plots=False, repredict=True)
    md = (tmp_path / "llm.md").read_text()
    assert "re-predicted at report time" in md and "gpu row H200" in md
    assert an["repredicted"]["sizes"] == 40
    doc = json.loads((tmp_path / "llm.json").read_text())
    assert doc["summary"]["origami"]


def test_repredict_ranks_each_compiled_kernel_once():
    # Split launches of a kernel are launches, not kernels: the selector gets one entry per compiled kernel and
    # dtype, as the op's registry gives it (duplicates took split-candidate slots: re-predicted picks were worse).
    raw = ROOT / "reports" / "nvidia-h100" / "raw" / "gen-valid" / "rotate"
    if not raw.is_dir():
        pytest.skip(f"no raw measurements at {raw}")
    recs = C.drop_superseded(load_records(raw))
    timed = [r for r in recs if r.get("kind") == "config" and r.get("system") == "origami" and r.get("config")
             and r.get("resources")]
    kernels = {((r.get("size_info") or {}).get("dtype"), C.compiled_kernel_id(C.normalize(r["config"]))) for r in timed}
    launches = {((r.get("size_info") or {}).get("dtype"), C.kernel_id(C.normalize(r["config"]))) for r in timed}
    assert len(launches) > len(kernels)  # the set has split launches
    _, info = repredict(recs)
    # A CUDA build re-predicts with its own kernel table (every kernel it compiled, timed in this set or not: the
    # H100 set predates the forty-second session's swapped tiles); without one, with the kernels the set timed.
    from origami_nv._kernels import kernel_records
    dtypes = {dt for dt, _ in kernels}
    compiled = {(r["dtype"], C.compiled_kernel_id(C.normalize(r["config"]))) for r in kernel_records()
                if r["dtype"] in dtypes and str(r.get("arch", "")).startswith("sm_90")}
    assert info["kernels"] == len(compiled or kernels)


def _table_record(bm, bn, bk, a_k, b_k, regs, dtype="float16"):
    return {"name": f"k{bm}x{bn}x{bk}{a_k}{b_k}", "family": "mma_sync", "dtype": dtype, "arch": "sm_90",
            "config": {"block_m": bm, "block_n": bn, "block_k": bk, "stages": 4, "warps": 4, "family": "mma_sync"},
            "a_k_contiguous": a_k, "b_k_contiguous": b_k, "threads": 128, "smem_bytes": 32768,
            "registers_per_thread": regs, "local_bytes": 0, "spill_store_bytes": 0, "spill_load_bytes": 0}


def test_op_kernels_of_a_kernel_table_carry_layouts_and_worst_resources():
    # The op's selector sees one entry per config: the worst resources over its layout variants and the mask
    # of the compiled layouts (a problem in another layout pays the operand copy). The offline re-prediction
    # must see the same, or it picks kernels the op would not (H100 gen-valid 1x4608x36864 nt: mma.sync
    # 16x256x32 sk22 offline, wgmma 64x256 sk7 on the GPU).
    from origami_nv._kernels import layout_bit
    from origami_nv.bench.repredict import _op_kernels
    table = [_table_record(64, 64, 32, True, False, 96), _table_record(64, 64, 32, True, True, 112),
             _table_record(128, 64, 32, True, False, 128)]
    ks = _op_kernels(table, {"float16"})
    both = ks[("float16", C.compiled_kernel_id(C.normalize(cfg(64, 64, 32, stages=4))))]
    one = ks[("float16", C.compiled_kernel_id(C.normalize(cfg(128, 64, 32, stages=4))))]
    assert both.layouts == layout_bit(True, False) | layout_bit(True, True) and both.registers_per_thread == 112
    assert one.layouts == layout_bit(True, False)


def test_repredict_with_the_committed_kernel_table(tmp_path):
    raw = ROOT / "reports" / "nvidia-h100" / "raw" / "gen-valid" / "rotate"
    table_path = ROOT / "reports" / "kernel_resources_sm90.json"
    if not raw.is_dir() or not table_path.exists():
        pytest.skip("no raw measurements or kernel table in this checkout")
    from origami_nv.bench.repredict import load_kernel_table
    table = load_kernel_table(table_path)
    recs = C.drop_superseded(load_records(raw))
    _, info = repredict(recs, kernel_table=table)
    configs = {(r["dtype"], tuple(sorted(r["config"].items()))) for r in table
               if r["dtype"] in ("float16", "bfloat16") and r["arch"].startswith("sm_90")}
    assert info["kernels"] == len(configs)
    assert "kernel table given" in info["resources_from"]
    (tmp_path / "bad.json").write_text("{}")
    with pytest.raises(ValueError, match="not a kernel table"):
        load_kernel_table(tmp_path / "bad.json")


def test_a_swapped_pick_recorded_unswapped_is_read_as_the_kernel_the_op_ran():
    # Before 2026-12-07 the runner read select_config's list without swap_ab: the H200 gen-mid-valid timed its 96x128
    # ab pick at 1018x1088x5504 through the op and recorded "wgmma 96x128x64 s7 w12 g4", a kernel never compiled.
    swapped = {"block_m": 96, "block_n": 128, "block_k": 64, "group_size_m": 4, "stages": 7, "warps": 12,
               "family": "wgmma", "split_k": 1}
    rec = {"config": swapped, "size_info": {"dtype": "float16"}, "via": "origami_nv.matmul(a, b)"}
    compiled = {("float16", "wgmma 96x128x64 s7 w12 ab")}
    assert C.pick_config_as_run(rec, compiled) == dict(swapped, swap_ab=True)
    # not where the unswapped kernel is compiled, nor for another dtype, nor for a pick launched with an explicit config
    assert C.pick_config_as_run(rec, compiled | {("float16", "wgmma 96x128x64 s7 w12")}) == swapped
    assert C.pick_config_as_run(dict(rec, size_info={"dtype": "bfloat16"}), compiled) == swapped
    assert C.pick_config_as_run(dict(rec, via="origami_nv.select + origami_nv.matmul(a, b, config=pick)"),
                                compiled) == swapped

    raw = ROOT / "reports" / "nvidia-h200" / "raw" / "gen-mid-valid" / "rotate"
    table_path = ROOT / "reports" / "kernel_resources_sm90.json"
    if not raw.is_dir() or not table_path.exists():
        pytest.skip("no raw measurements or kernel table in this checkout")
    from origami_nv.bench.repredict import load_kernel_table
    recs = C.drop_superseded(load_records(raw))
    stored = [r for r in recs if r.get("kind") == "pick" and r.get("size") == "1018x1088x5504-float16"]
    assert stored and not stored[-1]["config"].get("swap_ab")  # the record as written
    new, info = repredict(recs, kernel_table=load_kernel_table(table_path))
    pick = next(r for r in new if r.get("kind") == "pick" and r.get("size") == "1018x1088x5504-float16")
    if C.kernel_id(pick["config"]) == "wgmma 96x128x64 s7 w12 ab":  # the installed model picks it still: its own time
        assert pick["via"] == "origami_nv.matmul(a, b)" and pick["time_s"] == stored[-1]["time_s"]
        assert "1018x1088x5504-float16" not in info["picks_changed"]
    else:  # a later model picks another launch: the size is reported as changed
        assert "1018x1088x5504-float16" in info["picks_changed"]
