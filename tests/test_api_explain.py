"""explain(): the Appendix A walk-through, tiers, ranking, phase 2, exclusions; HTML and dict."""
import json

import pytest

import origami_nv


pytestmark = pytest.mark.usefixtures("default_hardware")


SEED_TERMS = ["N_MMA", "L_MI", "L_compute", "grid_M", "grid_N", "total_tiles", "active_SMs", "num_waves",
              "L2_hit", "Global cap check", "load_A", "load_B", "total_load", "L_L2", "L_DRAM", "L_mem",
              "utilization", "penalty", "occupancy", "L_prologue", "L_epilogue", "num_iter", "k_pad", "L_steady",
              "L_tile", "L_total", "Phase 2", "GROUP_SIZE_M", "Excluded (28)", "Top 10 of 122"]


def test_seed_explain_text_has_every_term_and_figure():
    e = origami_nv.explain(4096, 4096, 4096, gpu="RTX_3090", mode="seed")
    text = str(e)
    for term in SEED_TERMS:
        assert term in text, term
    for figure in ["1,024 MMA instructions", "8,448.0 cycles", "= 13 waves", "0.8944", "4,234.1", "1,791.6",
                   "6,033.6", "13,837.6", "311,097.8", "4,044,272 cycles", "GROUP_SIZE_M=8", "cycles per MMA",
                   "bytes/cycle"]:
        assert figure in text, figure
    # every hardware value with its tier
    assert "[table] gpus.json row RTX_3090" in text and "[default]" in text
    assert "shared memory (BM*BK + BK*BN) * 2 = 131072 B > 101376 B" in text
    assert "Family: mma_sync" in text


def test_nv_explain_names_family_and_source_of_candidates():
    e = origami_nv.explain(4096, 4096, 4096, gpu="H100_SXM")
    text = str(e)
    for term in ["blocks_per_SM", "L_compute", "L2_hit", "L_L2", "L_DRAM", "latency bound", "L_mem", "L_steady",
                 "L_prologue", "L_epilogue", "L_tile", "L_total", "TFLOP/s", "Family:"]:
        assert term in text, term
    assert e.candidates_note in text
    assert e.config.family in text.split("Family:")[1].split("\n")[0]


def test_explain_says_why_mma_sync_tiles_rank_at_short_k():
    from origami_nv import _api
    sel = _api.get_selector("H100_SXM").selector
    if sel.abstract_space:
        pytest.skip("no compiled or reference kernel list: the abstract space has no domination rule to scope")
    short, usual = origami_nv.explain(512, 4096, 16, gpu="H100_SXM"), origami_nv.explain(512, 4096, 64, gpu="H100_SXM")
    extra = sel.candidate_count("float16", K=16) - sel.candidate_count("float16")
    assert extra > 0 and short.short_k_candidates == extra and usual.short_k_candidates == 0
    assert short.candidate_count == usual.candidate_count + extra
    assert "below the wgmma kernels' BLOCK_K" in str(short) and "below the wgmma" not in str(usual)
    assert "below the wgmma kernels&#x27; BLOCK_K" in short._repr_html_()
    assert short.to_dict()["candidates"]["short_k_mma_sync"] == extra
    assert short.config.family == "mma_sync"  # the model ranks the 16-deep tile first (it does 1/4 the tensor work)


def test_explain_html_and_dict():
    e = origami_nv.explain(1000, 3000, 2000, dtype="bfloat16", gpu="H200", mode="seed", top=3)
    h = e._repr_html_()
    assert h.count("<table") >= 3 and "Walk-through" in h and "H200" in h
    d = json.loads(json.dumps(e.to_dict()))
    assert d["problem"] == {"M": 1000, "N": 3000, "K": 2000, "dtype": "bfloat16", "batch": 1, "layout": "nn",
                            "a_aligned": True, "b_aligned": True, "bias": False}
    assert len(d["ranking"]) == 3 and d["ranking"][0]["predicted_cycles"] == d["predicted_cycles"]
    assert d["config"] == e.config.to_dict()
    assert d["hardware"]["values"]["n_sm"]["tier"] == "table"
    assert {p["group_size_m"] for p in d["phase2"]} == {1, 2, 3, 4, 5, 6, 8, 16}
    assert all("reason" in x for x in d["excluded"])
    assert d["breakdown"]["total_cycles"] == e.predicted_cycles


def test_explain_top_must_be_positive():
    with pytest.raises(ValueError, match="top"):
        origami_nv.explain(64, 64, 64, top=0)


def test_explain_shows_the_tma_terms_of_a_wgmma_pick(monkeypatch):
    # With the committed sm_90 kernel table (the op's kernels, no GPU needed): a decode projection picks a wgmma
    # tile, and explain prints the TMA stage floor with the rows its boxes load (one row of A at M = 1, kernel
    # version 7: no zero fill of A), and an out-of-bounds fill line only where the last tile's B box still reaches past
    # N: a K-major B's edge box ends at N, moved back by whole multiples of 8 rows (kernel change 13), so with N not a
    # multiple of BLOCK_N it is zero-filled over (overhang mod 8) rows (the 64x48 tile at N = 4096 = 85 x 48 + 16:
    # an overhang of 32, none; at N = 4100, 28: 4 rows).
    import json
    import pathlib
    from origami_nv import _api, _kernels
    table = json.loads((pathlib.Path(__file__).parents[1] / "reports" / "kernel_resources_sm90.json").read_text())
    monkeypatch.setattr(_kernels, "_table", lambda: table)
    _api.clear_caches()
    try:
        for n in (4100, 4096):
            e = origami_nv.explain(1, n, 4096, gpu="H100_SXM", layout="nt")
            text = str(e)
            if e.config.family != "wgmma":
                pytest.skip(f"the pick at 1x{n}x4096 is {e.config}: no wgmma terms to show")
            assert "TMA stage floor" in text
            overhang = -n % e.config.block_n
            assert ("TMA out-of-bounds fill" in text) == (overhang % 8 != 0), (n, e.config)
        floor = e.to_dict()["breakdown"]["tma_box_cycles"]
        nv = origami_nv._core.ModelOptions("nv").nv
        assert floor == pytest.approx(nv.wgmma_tma_stage_cycles + (1 + e.config.block_n) * 64 * 2
                                      / nv.wgmma_tma_box_bytes_per_cycle)
    finally:
        _api.clear_caches()


def test_explain_shows_the_ping_pong_schedule_where_the_pick_runs_it(monkeypatch):
    # With the committed sm_90 kernel table: the 16-bit 128x128 kernels have a ping-pong schedule (`pingpong`), which
    # the launcher runs where every CTA has two or more tiles. 30 batches of 608x592 are 750 tiles of 128x128 (> 2 x 132
    # SMs); explain names the schedule and its share when the pick is that tile, and ORIGAMI_NV_PINGPONG=0 (the
    # launchers' switch) takes it away.
    import json
    import pathlib
    from origami_nv import _api, _kernels
    table = json.loads((pathlib.Path(__file__).parents[1] / "reports" / "kernel_resources_sm90.json").read_text())
    assert any(r.get("pingpong") for r in table["kernels"])
    monkeypatch.setattr(_kernels, "_table", lambda: table)
    _api.clear_caches()
    try:
        e = origami_nv.explain(608, 592, 224, dtype="bfloat16", gpu="H200", batch=30)
        if (e.config.family, e.config.block_m, e.config.block_n, e.config.split_k) != ("wgmma", 128, 128, 1):
            pytest.skip(f"the pick is {e.config}: not the tile with a ping-pong schedule")
        text, b = str(e), e.to_dict()["breakdown"]
        assert b["ping_pong"] and b["epilogue_hidden_cycles"] > 0
        assert "[Ping-pong]" in text and "(wgmma_ping_pong_epilogue_overlap)" in text
        monkeypatch.setenv("ORIGAMI_NV_PINGPONG", "0")
        _api.clear_caches()
        off = origami_nv.explain(608, 592, 224, dtype="bfloat16", gpu="H200", batch=30)
        assert "[Ping-pong]" not in str(off) and not off.to_dict()["breakdown"]["ping_pong"]
    finally:
        _api.clear_caches()


def test_explain_prices_the_cluster_forms_reduction_in_the_cluster(monkeypatch):
    # A decode split whose slices reduce in a thread-block cluster (SplitPlan::cluster): explain says where the slices
    # meet and shows the distributed-shared-memory reads (the row's calibrated dsmem_bytes_per_cycle, dsmem_latency_cycles).
    import json
    import pathlib
    from origami_nv import _api, _kernels
    table = json.loads((pathlib.Path(__file__).parents[1] / "reports" / "kernel_resources_sm90.json").read_text())
    monkeypatch.setattr(_kernels, "_table", lambda: table)
    _api.clear_caches()
    try:
        e = origami_nv.explain(16, 2048, 4096, gpu="H100_SXM", layout="nt")
        b = e.to_dict()["final_breakdown"]
        if not b["split_cluster"]:
            pytest.skip(f"the pick is {e.config}: not a cluster-form split")
        text = str(e)
        assert "reduction (in the thread-block cluster, slice order)" in text and "second kernel" not in text
        assert b["cluster_dsmem_cycles"] > 0 and f"distributed shared memory {b['cluster_dsmem_cycles']:,.0f}" in text
    finally:
        _api.clear_caches()


def test_explain_prints_the_lone_warp_term():
    # A one-warp mma.sync pick at decode: the walk-through names the lone-warp issue term and its value, and the memory
    # time it sets.
    from origami_nv import _core
    e = origami_nv.explain(1, 3584, 14336, dtype="bfloat16", layout="nt")
    tc = _core.TileConfig(16, 16, 512, group_size_m=8, stages=3, warps=1, family="mma_sync")
    hw = _core.resolve_hardware(None, _core.default_gpu_name(), "")
    b = _core.predict(1, 3584, 14336, "bfloat16", tc, hw, _core.ModelOptions("nv"), layout="nt")
    e.selection = dict(e.selection, config=tc, breakdown=b)
    lines = [ln for ln in str(e).splitlines() if "lone-warp" in ln]
    assert any(f"= {b['lone_warp_cycles']:,.1f} cycles" in ln for ln in lines), lines
    assert any("L_mem" in ln and "lone-warp issue" in ln for ln in lines), lines
