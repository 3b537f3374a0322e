"""Python API: select / rank / explain / Config, bad inputs, caching and the override file."""
import json
import time

import pytest

import origami_nv
from origami_nv import Config, _api


pytestmark = pytest.mark.usefixtures("default_hardware")


def test_select_seed_mode_is_appendix_a():
    c = origami_nv.select(4096, 4096, 4096, gpu="RTX_3090", mode="seed")
    assert c == Config(128, 128, 128, group_size_m=8, stages=2, warps=8, family="mma_sync")


def test_select_default_mode_returns_a_config():
    c = origami_nv.select(4096, 4096, 4096)
    assert isinstance(c, Config)
    phase1 = origami_nv.explain(4096, 4096, 4096).to_dict()["phase1_group_size_m"]
    assert c.family in ("mma_sync", "wgmma") and c.group_size_m in (1, 2, 3, 4, 5, 6, 8, 16, phase1)


def test_phase2_keeps_the_phase1_group_size_unless_a_footprint_is_smaller():
    # 1024x2048x5120 with a one-wave grid: every GROUP_SIZE_M has the same footprint. nv keeps the phase-1 value
    # (ceil(sqrt(132)) = 12 on the H100; measured 1.2x faster than 1, probe_op_path.py); seed keeps the smallest.
    d = origami_nv.explain(1024, 2048, 5120, dtype="bfloat16", gpu="H100_SXM").to_dict()
    costs = {p["group_size_m"]: p["cost"] for p in d["phase2"]}
    assert d["breakdown"]["num_waves"] == 1 and len(set(costs.values())) == 1 and len(costs) == 9
    assert d["phase1_group_size_m"] == 12 and d["config"]["group_size_m"] == 12
    s = origami_nv.explain(1024, 2048, 5120, dtype="bfloat16", gpu="H100_SXM", mode="seed").to_dict()
    seed_costs = {p["group_size_m"]: p["cost"] for p in s["phase2"]}
    assert 12 not in seed_costs
    g = s["config"]["group_size_m"]
    assert seed_costs[g] == min(seed_costs.values()) and all(k >= g for k, v in seed_costs.items() if v == seed_costs[g])


def test_phase2_gives_a_swapped_pick_the_measured_group_size():
    # The swapped kernels walk the raster with the problem's N as rows; at long K the footprint rule's values (12-16)
    # thrashed the H100's L2 (benchmarks/results/long_k_group_size.md), so their GROUP_SIZE_M is the measured 4
    # (cpp/model/types.hpp kSwappedGroupSizeM), counted in the kernel's orientation. The other tiles keep the rule.
    for gpu in ("H100_SXM", "H200"):
        d = origami_nv.explain(4096, 8192, 28672, dtype="bfloat16", gpu=gpu, layout="nt").to_dict()
        assert d["config"]["swap_ab"] and d["config"]["group_size_m"] == 4
        assert [p["group_size_m"] for p in d["phase2"]] == [4]
        assert "kSwappedGroupSizeM" in str(origami_nv.explain(4096, 8192, 28672, dtype="bfloat16", gpu=gpu, layout="nt"))
        u = origami_nv.explain(4096, 4096, 4096, dtype="bfloat16", gpu=gpu, layout="nt").to_dict()
        assert not u["config"].get("swap_ab") and u["config"]["group_size_m"] == 12
    # the seed mode has no swapped kernels and is untouched
    s = origami_nv.explain(4096, 8192, 28672, dtype="bfloat16", gpu="H100_SXM", mode="seed").to_dict()
    assert {p["group_size_m"] for p in s["phase2"]} == {1, 2, 3, 4, 5, 6, 8, 16}


def test_cached_select_returns_the_same_object_and_is_fast():
    a = origami_nv.select(3000, 5000, 7000, dtype="bfloat16", gpu="H200")
    b = origami_nv.select(3000, 5000, 7000, dtype="bfloat16", gpu="H200")
    assert a is b
    n = 20000
    t0 = time.perf_counter()
    for _ in range(n):
        origami_nv.select(3000, 5000, 7000, dtype="bfloat16", gpu="H200")
    per_call_us = (time.perf_counter() - t0) / n * 1e6
    assert per_call_us < 20  # the benchmark measures the real figure (target <= 2 us)


def test_dtype_aliases_share_the_answer():
    a = origami_nv.select(2048, 2048, 2048, dtype="fp16", gpu="H100_SXM")
    assert origami_nv.select(2048, 2048, 2048, dtype="float16", gpu="H100_SXM") == a
    assert origami_nv.select(2048, 2048, 2048, dtype="half", gpu="H100_SXM") == a


@pytest.mark.parametrize("kw,name", [
    (dict(M=0), "M"), (dict(N=-3), "N"), (dict(K=1.5), "K"), (dict(M="64"), "M"), (dict(M=True), "M"),
    (dict(N=None), "N"), (dict(K=4096.0), "K"),
])
def test_bad_dimensions_name_the_argument(kw, name):
    args = dict(M=64, N=64, K=64)
    args.update(kw)
    with pytest.raises(ValueError, match=f"^{name} must be a positive integer"):
        origami_nv.select(args["M"], args["N"], args["K"])
    with pytest.raises(ValueError, match=f"^{name} must be"):
        origami_nv.rank(args["M"], args["N"], args["K"])
    with pytest.raises(ValueError, match=f"^{name} must be"):
        origami_nv.explain(args["M"], args["N"], args["K"])


def test_float_after_int_is_still_rejected():
    origami_nv.select(512, 512, 512)
    with pytest.raises(ValueError, match="^M must be"):
        origami_nv.select(512.0, 512, 512)


def test_numpy_integers_are_accepted():
    np = pytest.importorskip("numpy")
    assert origami_nv.select(np.int64(512), np.int32(512), 512) == origami_nv.select(512, 512, 512)


def test_bad_dtype_gpu_mode():
    with pytest.raises(ValueError, match="supported: float16, bfloat16, float32"):
        origami_nv.select(64, 64, 64, dtype="float64")
    # Seed 000 models tensor-core kernels: float32 is an nv-mode problem, said so.
    with pytest.raises(ValueError, match="float32: the seed model .* models tensor-core kernels only"):
        origami_nv.select(64, 64, 64, dtype="float32", mode="seed")
    with pytest.raises(ValueError) as e:
        origami_nv.select(64, 64, 64, gpu="A100_PCIE")
    assert "A100_PCIE" in str(e.value) and "H100_SXM" in str(e.value) and "RTX_3090" in str(e.value)
    with pytest.raises(ValueError, match="supported: nv, seed"):
        origami_nv.select(64, 64, 64, mode="fast")


def test_override_file_changes_the_pick_and_bad_file_errors(tmp_path, monkeypatch):
    base = origami_nv.rank(4096, 4096, 4096, top=1, gpu="RTX_3090", mode="seed")[0]
    f = tmp_path / "slow_l2.json"
    f.write_text(json.dumps({"l2_perf_ratio": 100.0, "meta": {"note": "pretend L2 is slow"}}))
    monkeypatch.setenv("ORIGAMI_NV_HW_PARAMS", str(f))
    slow = origami_nv.rank(4096, 4096, 4096, top=1, gpu="RTX_3090", mode="seed")[0]
    assert slow.predicted_cycles > base.predicted_cycles
    assert origami_nv.hardware("RTX_3090")["l2_perf_ratio"].tier == "override"
    bad = tmp_path / "bad.json"
    bad.write_text('{"l2_perf_ratio": -1}')
    monkeypatch.setenv("ORIGAMI_NV_HW_PARAMS", str(bad))
    with pytest.raises(ValueError) as e:
        origami_nv.select(4096, 4096, 4096, gpu="RTX_3090")
    assert str(bad) in str(e.value) and "l2_perf_ratio" in str(e.value)


def test_rank_order_top_and_all():
    r = origami_nv.rank(1024, 1024, 1024, top=5, gpu="RTX_3090", mode="seed")
    assert [x.rank for x in r] == [1, 2, 3, 4, 5]
    cycles = [x.predicted_cycles for x in r]
    assert cycles == sorted(cycles)
    assert r[0].config.same_kernel(origami_nv.select(1024, 1024, 1024, gpu="RTX_3090", mode="seed"))
    assert r[0].predicted_us == pytest.approx(r[0].predicted_cycles / 1695)
    every = origami_nv.rank(1024, 1024, 1024, top=None, gpu="RTX_3090", mode="seed")
    assert len(every) == 122
    assert json.loads(json.dumps(every[0].to_dict()))["rank"] == 1
    with pytest.raises(ValueError):
        origami_nv.rank(64, 64, 64, top=-1)


def test_config_value_type():
    a = Config(128, 64, 32, group_size_m=4, stages=3, warps=4, family="wgmma")
    b = Config(128, 64, 32, 4, 3, 4, "wgmma")
    assert a == b and hash(a) == hash(b) and len({a, b}) == 1
    assert a != a.replace(group_size_m=8) and a.same_kernel(a.replace(group_size_m=8))
    assert repr(a) == "Config(block_m=128, block_n=64, block_k=32, group_size_m=4, stages=3, warps=4, family='wgmma')"
    assert a.to_dict()["family"] == "wgmma" and a.threads == 128
    import pickle

    assert pickle.loads(pickle.dumps(a)) == a
    with pytest.raises(ValueError, match="family"):
        Config(128, 64, 32, family="tcgen05")
    with pytest.raises(ValueError, match="block_k"):
        Config(128, 64, 0)


def test_gpus_lists_rows():
    assert set(origami_nv.gpus()) >= {"H100_SXM", "H200", "RTX_3090"}


def test_huge_dimensions_are_a_value_error():
    with pytest.raises(ValueError, match="^N must be <= 2147483647"):
        origami_nv.select(64, 2**31, 64)
    with pytest.raises(ValueError, match="^K must be <= 2147483647"):
        origami_nv.select(64, 64, 2**70)


def test_unhashable_arguments_are_value_errors():
    with pytest.raises(ValueError, match="unknown dtype"):
        origami_nv.select(64, 64, 64, dtype=["float16"])
    with pytest.raises(ValueError, match="^M must be"):
        origami_nv.select([64], 64, 64)
    with pytest.raises(ValueError, match="gpu must be"):
        origami_nv.select(64, 64, 64, gpu={"H200": 1})


def test_visible_gpu_feeds_the_derived_tier_and_matches_its_row(monkeypatch):
    d = _api._core.DeviceProperties()
    d.name, d.cc_major, d.cc_minor, d.sm_count = "NVIDIA H200", 9, 0, 132
    d.l2_bytes, d.smem_per_block_optin_bytes, d.smem_per_sm_bytes = 62914560, 232448, 233472
    d.regs_per_sm, d.max_threads_per_sm, d.max_blocks_per_sm = 65536, 2048, 32
    d.sm_clock_khz, d.mem_clock_khz, d.mem_bus_width_bits = 1980000, 3201000, 6016
    monkeypatch.setattr(_api, "_live_device", lambda: d)
    _api.clear_caches()
    hw = origami_nv.hardware()
    assert hw.name == "H200" and hw.live_device == "NVIDIA H200"
    e = origami_nv.explain(1024, 1024, 1024, mode="seed")
    assert "gpu H200" in str(e) and "visible device: NVIDIA H200" in str(e)
    # an explicit gpu= ignores the visible device
    assert origami_nv.hardware("RTX_3090").live_device is None


def test_a_build_without_kernels_selects_among_the_reference_sm90_kernels(monkeypatch):
    """A build without CUDA compiles no kernel; select / rank / explain then use the reference sm_90 table (the CUDA
    build the committed reports were measured with), so the pick is one a CUDA build's op makes, not a config of the
    abstract space. Here with the build's own table emptied and the committed reference read from the repository."""
    import pathlib

    from origami_nv import _kernels
    ref_path = pathlib.Path(__file__).parents[1] / "reports" / "kernel_resources_sm90.json"
    reference = json.loads(ref_path.read_text())
    monkeypatch.setattr(_kernels, "_table", lambda: {"kernels": [], "excluded": []})
    monkeypatch.setattr(_kernels, "reference_table", lambda: reference)
    kernels, note = _api._kernel_resources()
    assert "reference sm_90 build" in note and "kernel_resources_sm90.json" in note
    names = {(r["config"]["block_m"], r["config"]["block_n"], r["config"]["block_k"], r["config"]["stages"],
              r["config"]["warps"], r["config"]["family"], r["dtype"]) for r in reference["kernels"] if not r.get("realign")}
    got = {(k.config.block_m, k.config.block_n, k.config.block_k, k.config.stages, k.config.warps, k.config.family,
            k.dtype) for k in kernels}
    assert got == names  # every reference kernel (one record per config and dtype), nothing else
    # a build with its own kernels selects among those, never the reference
    monkeypatch.setattr(_kernels, "_table", lambda: {"kernels": reference["kernels"][:3], "excluded": []})
    assert _kernels.reference_kernel_resources("float16") == []


def test_the_installed_kernel_list_matches_the_build():
    """What select() chooses among in this installation: the build's compiled kernels, or (a build without CUDA) the
    installed reference table; never the abstract space where either exists."""
    from origami_nv import _kernels
    entry = _api.get_selector("H100_SXM")
    if _kernels.kernel_records():
        assert entry.candidates_note.startswith("compiled kernels")
    elif _kernels.reference_table()["kernels"]:
        assert "reference sm_90 build" in entry.candidates_note
        assert origami_nv.select(4096, 4096, 4096, gpu="H100_SXM").family == "wgmma"
    else:
        pytest.skip("an installation without the reference table (a build tree used in place)")


@pytest.mark.parametrize("gpu", ["H100_SXM", "H200"])
def test_the_pick_heads_the_full_ranking(gpu):
    """select() skips the split-K launches of kernels whose ideal-balance bound cannot beat the best unsplit launch
    (cpp/model/selector.cpp, split_candidates); rank() scores them all. The pick must still be the first of the
    full ranking (up to phase 2's GROUP_SIZE_M) on problems of every dtype, layout and batch, or a tile's 2-CTA multicast
    twin that replaced it (Selection.replaced_pick: the ranking's head, and the launch is the twin's)."""
    import random
    rng = random.Random(11)
    for i in range(150):
        M = rng.choice([1, 2, 5, 16, 48, 100, 128, 333, 512, 1000, 2048, 4096, 8192])
        # every fifth K below the wgmma BLOCK_K: the space with the 64-row mma.sync tiles back (Selector::Impl::short_k)
        N, K = rng.randint(1, 20000), (rng.choice([1, 8, 16, 32, 48, 63]) if i % 5 == 0 else rng.randint(1, 30000))
        dt = rng.choice(["float16", "bfloat16", "float32", "tfloat32"])
        lay, b = rng.choice(["nn", "nt", "tn", "tt"]), rng.choice([1, 1, 4, 32])
        pick = origami_nv.select(M, N, K, dt, gpu=gpu, batch=b, layout=lay)
        head = origami_nv.rank(M, N, K, top=1, dtype=dt, gpu=gpu, batch=b, layout=lay)[0].config
        fields = ("block_m", "block_n", "block_k", "stages", "warps", "family", "split_k")
        if [getattr(pick, f) for f in fields] != [getattr(head, f) for f in fields]:
            sel = origami_nv.explain(M, N, K, dt, gpu=gpu, batch=b, layout=lay).selection
            replaced = sel["replaced_pick"]
            assert replaced is not None and sel["final_breakdown"]["multicast_b"], (M, N, K, dt, b, lay)
            assert [getattr(replaced, f) for f in fields] == [getattr(head, f) for f in fields], (M, N, K, dt, b, lay)


def test_no_split_launch_is_predicted_below_its_kernels_ideal_balance():
    """The premise of a selection's split pruning (cpp/model/selector.cpp, split_candidates): the model never predicts a
    split-K launch below its kernel's unsplit time x tiles / (slots x waves). Checked over every split launch of the
    full rankings of random problems, both GPU rows (59,664 launches of 800 problems held it when it was written)."""
    import random
    rng = random.Random(3)
    checked = 0
    for gpu in ("H100_SXM", "H200"):
        sel = _api.get_selector(gpu).selector
        for _ in range(40):
            M = rng.choice([1, 2, 7, 16, 48, 100, 128, 333, 512, 1000, 2048, 4096])
            N, K = rng.randint(16, 20000), rng.randint(64, 40000)
            dt = rng.choice(["float16", "bfloat16", "float32", "tfloat32"])
            lay, b = rng.choice(["nn", "nt", "tn", "tt"]), rng.choice([1, 1, 4])
            ranking = sel.selection(M, N, K, dt, None, b, lay)["ranking"]
            kernel = lambda c: (c.block_m, c.block_n, c.block_k, c.stages, c.warps, c.family)  # noqa: E731
            bound = {kernel(c): bd["total_cycles"] * bd["total_tiles"] / max(1, bd["resident_slots"] * bd["num_waves"])
                     for c, bd in ranking if bd["split_slices"] <= 1}
            for c, bd in ranking:
                if bd["split_slices"] > 1 and kernel(c) in bound:
                    checked += 1
                    assert bd["total_cycles"] >= bound[kernel(c)] * (1 - 1e-12), (M, N, K, dt, b, lay, c)
    assert checked > 500


@pytest.mark.parametrize("gpu", ["H100_SXM", "H200"])
def test_an_exact_tie_goes_to_the_tile_that_reads_the_larger_operand_once(gpu):
    """64x128 and 128x64 wgmma tiles tie exactly in the model (same traffic); the tie goes to the tile that leaves the
    larger operand's slabs to one CTA each (cpp/model/selector.cpp, phase1): 128x64 at M = 128 (H200 seed
    128x8192x8192: 64x128 ran at 0.88 of it), 64x128 at N = 128; the seed mode keeps its enumeration order."""
    shape = lambda c: (c.block_m, c.block_n)  # noqa: E731
    wide = origami_nv.rank(128, 8192, 8192, top=2, gpu=gpu, layout="nt")
    assert wide[0].predicted_cycles == pytest.approx(wide[1].predicted_cycles, rel=1e-9)
    assert {shape(wide[0].config), shape(wide[1].config)} == {(64, 128), (128, 64)}
    assert shape(wide[0].config) == (128, 64)
    assert shape(origami_nv.select(128, 8192, 8192, gpu=gpu, layout="nt")) == (128, 64)
    tall = origami_nv.rank(8192, 128, 4096, top=2, gpu=gpu)
    assert tall[0].predicted_cycles == pytest.approx(tall[1].predicted_cycles, rel=1e-9)
    assert shape(tall[0].config) == (64, 128)
    # a square problem has no larger operand: the enumeration order (the smaller BLOCK_M first) decides as before
    sq = origami_nv.rank(1024, 1024, 1024, top=2, gpu=gpu, layout="nt")
    if sq[0].predicted_cycles == pytest.approx(sq[1].predicted_cycles, rel=1e-9):
        assert sq[0].config.block_m <= sq[1].config.block_m
    text = str(origami_nv.explain(128, 8192, 8192, gpu=gpu, layout="nt"))
    assert "Exact tie with 64x128x64 wgmma" in text and "larger operand (B) once per slab" in text
    assert "Exact tie" not in str(origami_nv.explain(4096, 4096, 4096, gpu=gpu))  # no tie: no line
