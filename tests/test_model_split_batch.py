"""The problem the kernel runs, in the model (cpp/model): batch, operand layout and alignment, and split-K
(make_split_plan: whole waves unsplit, the last partial wave split; the reduction; the selector's split
candidates), through the bindings and the Python API. CPU only."""
import json
import pickle

import pytest

import origami_nv
from origami_nv import Config, _api, _core, _kernels

H100 = "H100_SXM"


pytestmark = pytest.mark.usefixtures("default_hardware")


@pytest.fixture(scope="module")
def hw():
    return _core.resolve_hardware(None, H100, "")


def _needs_kernel_table():
    if not _kernels.compiled_kernel_resources("float16"):
        pytest.skip("this build has no compiled-kernel table (built without nvcc)")


def _kernel(bm, bn, bk, stages, warps, family, threads=None, regs=128, layouts=0xF):
    cfg = _core.TileConfig(bm, bn, bk, group_size_m=1, stages=stages, warps=warps, family=family)
    kr = _core.KernelResources(cfg, dtype="float16", threads=threads or 32 * warps, registers_per_thread=regs,
                               smem_bytes=stages * (bm + bn) * bk * 2, arch="sm_90a", source="test",
                               layouts=layouts)
    return cfg, kr


# ---- the schedule ---------------------------------------------------------------------------------
def test_effective_split_never_leaves_an_empty_slice():
    # K = 640 in k-tiles of 64: 10 k-tiles. split 4 -> 3+3+3+1 (4 slices); 8 -> 2+2+2+2+2 (5); 64 -> 10.
    assert [_core.effective_split_k(640, 64, s) for s in (1, 2, 4, 8, 64)] == [1, 2, 4, 5, 10]
    assert _core.effective_split_k(64, 64, 8) == 1  # one k-tile: nothing to split


def test_split_plan_splits_only_the_last_partial_wave():
    # 3072^3 with 128x256 tiles: 24 x 12 = 288 tiles on 132 slots: 264 whole, 24 split 4 ways.
    sp = _core.split_plan(3072, 3072, 3072, 1, 128, 256, 64, 4, 132, "mma_sync")
    assert (sp["tiles"], sp["dp_tiles"], sp["tail_tiles"], sp["slices"]) == (288, 264, 24, 4)
    assert sp["units"] == 264 + 24 * 4 and sp["workspace_elems"] == 4 * 24 * 128 * 256
    # fewer tiles than slots: classic split-K, every tile split
    sp = _core.split_plan(1, 4096, 4096, 1, 64, 256, 64, 4, 132, "mma_sync")
    assert (sp["dp_tiles"], sp["tail_tiles"], sp["units"]) == (0, 16, 64)
    # whole waves: nothing to split, no workspace
    sp = _core.split_plan(128 * 132, 256, 4096, 1, 128, 256, 64, 4, 132, "mma_sync")
    assert (sp["slices"], sp["tail_tiles"], sp["workspace_elems"]) == (1, 0, 0)
    # batches count as tiles of one launch
    sp = _core.split_plan(64, 64, 8192, 7, 64, 64, 64, 3, 132, "mma_sync")
    assert (sp["tiles"], sp["dp_tiles"], sp["tail_tiles"], sp["slices"]) == (7, 0, 7, 3)


# ---- the model's terms ------------------------------------------------------------------------------
def test_split_terms_and_total(hw):
    cfg, kr = _kernel(64, 256, 64, 4, 8, "wgmma", threads=256)
    o = _core.ModelOptions("nv")
    unsplit = _core.predict(1, 4096, 4096, "float16", cfg, hw, o, kr)
    split = _core.predict(1, 4096, 4096, "float16", cfg.replace(split_k=4), hw, o, kr)
    assert unsplit["split_slices"] == 1 and unsplit["reduction_cycles"] == 0 and unsplit["tail_cycles"] == 0
    assert split["split_slices"] == 4 and split["split_dp_tiles"] == 0 and split["split_tail_tiles"] == 16
    assert split["tail_units"] == 64 and split["tail_k_iters"] == 16 and split["output_elem_bytes"] == 4.0
    assert split["reduction_cycles"] > o.nv.split_k_reduce_fixed_cycles
    assert split["total_cycles"] == pytest.approx(split["tail_cycles"] + split["reduction_cycles"])
    # 16 tiles on 132 SMs: four times the units, a quarter of the K-loop each -> faster despite the reduction
    assert split["total_cycles"] < unsplit["total_cycles"]


def test_reduction_time_is_its_bytes_or_its_round_trips(hw):
    # The reduction kernel (cpp/kernels/split_k.cu) issues the loads of 4 slices (SplitPlan::kReduceSliceBatch)
    # per L2 round trip: one tail tile of 64x64 is 1024 threads, one pass, 1 + ceil((S - 1) / 4) round trips.
    import math
    cfg, kr = _kernel(64, 64, 64, 4, 4, "mma_sync")
    o = _core.ModelOptions("nv")
    lat, rate = hw.get("l2_latency_cycles"), hw.get("l2_perf_ratio")
    for s in (2, 5, 6, 9, 32):
        b = _core.predict(16, 64, 64 * 160, "float16", cfg.replace(split_k=s), hw, o, kr)
        assert b["split_slices"] == s and b["split_tail_tiles"] == 1
        trips = 1 + math.ceil((s - 1) / 4)
        assert b["reduction_latency_cycles"] == pytest.approx(trips * lat)
        by_bytes = b["reduction_bytes"] / rate
        assert b["reduction_cycles"] == pytest.approx(max(by_bytes, trips * lat) + o.nv.split_k_reduce_fixed_cycles +
                                                      s * o.nv.split_k_slice_cycles +
                                                      o.nv.split_k_tail_overhead_fraction * b["tail_cycles"])
    # 6 to 9 slices share a round-trip count (1 + 2); 5 needs one fewer, 10 one more
    r = {s: _core.predict(16, 64, 64 * 160, "float16", cfg.replace(split_k=s), hw, o, kr)["reduction_latency_cycles"]
         for s in (5, 6, 9, 10)}
    assert r[5] < r[6] == r[9] < r[10]


def test_split_launch_cost_grows_with_its_tail_phase(hw):
    # A share of the split tail phase's time (split_k_tail_overhead_fraction, fitted on tensor-core launches) is part of
    # what a split launch costs beyond its terms: the partial tiles written while other slices load, the CTA start and
    # pipeline fill of every unit. Off, only the fixed and per-slice costs remain; an unsplit launch pays none of it.
    cfg, kr = _kernel(64, 256, 64, 4, 8, "wgmma", threads=256)
    o = _core.ModelOptions("nv")
    assert 0 < o.nv.split_k_tail_overhead_fraction < 1
    off = _core.ModelOptions("nv")
    nv = off.nv
    nv.split_k_tail_overhead_fraction = 0.0
    off.nv = nv
    for s in (2, 4, 8):
        b = _core.predict(8, 4096, 8192, "float16", cfg.replace(split_k=s), hw, o, kr)
        b0 = _core.predict(8, 4096, 8192, "float16", cfg.replace(split_k=s), hw, off, kr)
        assert b["tail_cycles"] > 0 and b["tail_cycles"] == pytest.approx(b0["tail_cycles"])
        assert b["total_cycles"] - b0["total_cycles"] == pytest.approx(o.nv.split_k_tail_overhead_fraction * b["tail_cycles"])
    whole = _core.predict(8, 4096, 8192, "float16", cfg, hw, o, kr)
    assert whole["total_cycles"] == pytest.approx(_core.predict(8, 4096, 8192, "float16", cfg, hw, off, kr)["total_cycles"])


def test_split_launch_cost_per_slice(hw):
    # What a split launch costs beyond its bytes and round trips (NvModelConstants): a fixed part and a part per
    # slice, so each extra slice must buy more than split_k_slice_cycles of shorter K-loop.
    cfg, kr = _kernel(64, 64, 64, 4, 4, "mma_sync")
    o = _core.ModelOptions("nv")
    assert o.nv.split_k_slice_cycles > 0 and o.nv.split_k_reduce_fixed_cycles > 0
    off = _core.ModelOptions("nv")
    nv = off.nv
    nv.split_k_slice_cycles = 0.0
    off.nv = nv
    for s in (2, 4, 8):
        b = _core.predict(16, 64, 64 * 160, "float16", cfg.replace(split_k=s), hw, o, kr)
        b0 = _core.predict(16, 64, 64 * 160, "float16", cfg.replace(split_k=s), hw, off, kr)
        assert b["reduction_cycles"] - b0["reduction_cycles"] == pytest.approx(s * o.nv.split_k_slice_cycles)
        assert b["split_launch_cycles"] == pytest.approx(o.nv.split_k_reduce_fixed_cycles + s * o.nv.split_k_slice_cycles +
                                                         o.nv.split_k_tail_overhead_fraction * b["tail_cycles"])
        assert b["total_cycles"] - b0["total_cycles"] == pytest.approx(s * o.nv.split_k_slice_cycles)
    # an unsplit launch pays none of it
    whole = _core.predict(16, 64, 64 * 160, "float16", cfg, hw, o, kr)
    assert whole["reduction_cycles"] == 0


def test_split_tail_with_whole_waves(hw):
    cfg, kr = _kernel(128, 256, 64, 4, 12, "wgmma", threads=384, regs=168)
    b = _core.predict(3072, 3072, 3072, "float16", cfg.replace(split_k=4), hw, _core.ModelOptions("nv"), kr)
    assert (b["split_dp_tiles"], b["split_tail_tiles"], b["num_waves"], b["tail_waves"]) == (264, 24, 2, 1)
    assert b["total_cycles"] == pytest.approx(b["dp_cycles"] + b["tail_cycles"] + b["reduction_cycles"])


def test_batched_split_tail_reads_every_batch_from_dram(hw):
    # 256 GEMMs of 1x128x2048, one tile each, split 2: the tail's units are 256 batches x 2 slices, no two of
    # which share an operand byte. Each must read its B slice from DRAM (134 MB in all, well past L2), so the
    # split's main loop is DRAM-bound like the unsplit launch's, not an L2 hit (the tail's reuse period was the
    # whole tail: every unit counted as reading the first batch's tile, hit rate 1).
    cfg, kr = _kernel(16, 128, 32, 6, 2, "mma_sync")
    o = _core.ModelOptions("nv")
    b = _core.predict(1, 128, 2048, "float16", cfg.replace(split_k=2), hw, o, kr, batch=256)
    assert b["split_tail_tiles"] == 256 and b["tail_units"] == 512
    assert b["l2_hit_rate"] < 0.05
    b_bytes = 256 * 2048 * 128 * 2
    assert b["tail_cycles"] > 0.9 * b_bytes / hw.get("dram_perf_ratio")
    # the same tail at batch 1 (one tile, split 2): its two slices read disjoint K ranges, nothing shared either
    one = _core.predict(1, 128, 2048, "float16", cfg.replace(split_k=2), hw, o, kr)
    assert one["l2_hit_rate"] < 0.05


def test_batch_multiplies_the_work(hw):
    cfg, kr = _kernel(64, 64, 64, 4, 4, "mma_sync")
    o = _core.ModelOptions("nv")
    one = _core.predict(512, 512, 64, "float16", cfg, hw, o, kr)
    many = _core.predict(512, 512, 64, "float16", cfg, hw, o, kr, batch=256)
    assert many["batch"] == 256 and many["total_tiles"] == 256 * one["total_tiles"]
    assert many["num_waves"] > one["num_waves"]
    assert many["total_cycles"] > 20 * one["total_cycles"]


def test_layout_not_compiled_costs_a_copy(hw):
    nn_nt_tn = (1 << 0) | (1 << 1) | (1 << 2)   # layout_bit: the mma_sync family has no "tt" kernel
    cfg, kr = _kernel(128, 128, 32, 4, 8, "mma_sync", layouts=nn_nt_tn)
    o = _core.ModelOptions("nv")
    tt = _core.predict(4096, 1024, 4096, "float16", cfg, hw, o, kr, layout="tt")
    nt = _core.predict(4096, 1024, 4096, "float16", cfg, hw, o, kr, layout="nt")
    assert nt["operand_copy_cycles"] == 0
    # the smaller operand (B), transposed: a gather, kTransposingCopyFactor (3) times a streamed copy
    assert tt["operand_copy_bytes"] == 3 * 4096 * 1024 * 2
    assert "not compiled" in tt["operand_copy_reason"]
    assert tt["total_cycles"] == pytest.approx(nt["total_cycles"] + tt["operand_copy_cycles"])
    wcfg, wkr = _kernel(128, 128, 64, 6, 12, "wgmma", threads=384, layouts=0xF)
    assert _core.predict(4096, 1024, 4096, "float16", wcfg, hw, o, wkr, layout="tt")["operand_copy_cycles"] == 0


def test_misaligned_operand_is_copied_for_every_kernel(hw):
    cfg, kr = _kernel(128, 128, 64, 6, 12, "wgmma", threads=384)
    b = _core.predict(1000, 1000, 1001, "float16", cfg, hw, _core.ModelOptions("nv"), kr, a_aligned=False)
    assert b["operand_copy_bytes"] == 1000 * 1001 * 2 and "misaligned" in b["operand_copy_reason"]


def test_misaligned_operand_copy_keeps_its_layout_where_the_kernel_reads_it(hw):
    # A misaligned row-major B (nn, N = 4097): a kernel with an N-contiguous variant takes one streamed copy; one that
    # reads only a K-contiguous B (the wgmma 64xBN tiles, BN not a multiple of 64) a transposing one, 3x, as the op
    # plans it (ops_cuda.cpp copy_cost). On the H100 the pick of 1x4097x4099 ran 144 us through the op with the
    # transposing copy where the same kernel family ran 45 us with the streamed one (reports/nvidia-h100/odd.md).
    o = _core.ModelOptions("nv")
    cfg, every = _kernel(64, 64, 64, 8, 8, "wgmma", threads=256, layouts=0xF)
    k_major_b = (1 << 1) | (1 << 3)   # layout_bit: "nt" and "tt"
    cfg48, only_k = _kernel(64, 48, 64, 8, 8, "wgmma", threads=256, layouts=k_major_b)
    streamed = _core.predict(1, 4097, 4099, "float16", cfg, hw, o, every, b_aligned=False)
    gathered = _core.predict(1, 4097, 4099, "float16", cfg48, hw, o, only_k, b_aligned=False)
    assert streamed["operand_copy_bytes"] == 4099 * 4097 * 2 and "misaligned" in streamed["operand_copy_reason"]
    assert gathered["operand_copy_bytes"] == 3 * 4099 * 4097 * 2
    assert gathered["operand_copy_cycles"] > 2.5 * streamed["operand_copy_cycles"]


# ---- selection -------------------------------------------------------------------------------------------
def test_decode_picks_a_split_and_large_squares_do_not():
    _needs_kernel_table()
    # Decode with few output tiles: a split (measured best on the H100 and H200 gen-valid sets at 1/16 x 2048 x 5120
    # and 1/16 x 1024 x 4096: the one-warp 16x16x64 kernel split 4-16 ways). With N = 4096 and more, the unsplit
    # one-warp kernel fills the GPU and was measured best (1/16 x 4608 x 4096): no split needed.
    assert origami_nv.select(1, 2048, 4096, gpu=H100, layout="nt").split_k > 1
    assert origami_nv.select(16, 1024, 8192, gpu=H100, layout="nt").split_k > 1
    assert origami_nv.select(8192, 8192, 8192, gpu=H100).split_k == 1
    ranked = origami_nv.rank(768, 768, 65536, top=None, gpu=H100)
    assert any(r.config.split_k > 1 for r in ranked) and ranked[0].config.split_k > 1
    # every split candidate is a distinct schedule of an admissible kernel, capped at 2 k-tiles per slice
    seen = set()
    for r in ranked:
        key = (str(r.config).rsplit(" g", 1)[0], r.config.split_k)
        assert key not in seen
        seen.add(key)
        assert r.config.split_k <= 65536 // r.config.block_k // 2


def test_split_candidates_can_be_switched_off():
    _needs_kernel_table()
    kernels, _ = _api._kernel_resources()
    o = _core.ModelOptions("nv")
    o.split_k = False
    sel = _core.Selector(_core.resolve_hardware(None, H100, ""), kernels, o)
    assert all(c.split_k == 1 for c, _ in sel.rank(1, 4096, 4096, "float16"))


def test_cache_key_is_the_whole_problem():
    _needs_kernel_table()
    sel = _api.get_selector(H100).selector
    sel.clear_cache()
    picks = {(b, l): origami_nv.select(512, 512, 64, gpu=H100, batch=b, layout=l)
             for b in (1, 256) for l in ("nn", "tt")}
    assert sel.cache_size() == 4
    assert picks[(1, "nn")] is origami_nv.select(512, 512, 64, gpu=H100)  # the Python-level cache


def test_batched_pick_differs_from_the_single_gemm():
    """256 attention heads of 512x512x64: the single GEMM has 16-64 tiles for 132 SMs and picks a small tile
    (or a split); 256 of them fill the GPU many times over and take a bigger tile, unsplit."""
    _needs_kernel_table()
    one = origami_nv.select(512, 512, 64, gpu=H100)
    many = origami_nv.select(512, 512, 64, gpu=H100, batch=256)
    assert many.split_k == 1
    assert (many.block_m * many.block_n, many.split_k) != (one.block_m * one.block_n, one.split_k)


# ---- API --------------------------------------------------------------------------------------------------
def test_config_split_k_field_pickle_and_repr():
    c = Config(128, 64, 64, group_size_m=4, stages=8, warps=12, family="wgmma", split_k=3)
    assert c.split_k == 3 and c.to_dict()["split_k"] == 3 and str(c).endswith(" sk3") and "split_k=3" in repr(c)
    assert pickle.loads(pickle.dumps(c)) == c and c != c.replace(split_k=1)
    assert hash(c) != hash(c.replace(split_k=1)) or c != c.replace(split_k=1)
    old = Config.__new__(Config)
    old.__setstate__((128, 64, 64, 4, 8, 12, 1))  # a 7-tuple pickled before split_k existed
    assert old.split_k == 1 and old.family == "wgmma"
    with pytest.raises(ValueError, match="split_k must be a positive integer"):
        Config(64, 64, 64, split_k=0)


@pytest.mark.parametrize("kwargs,msg", [
    (dict(batch=0), "batch must be a positive integer"),
    (dict(batch=True), "batch must be a positive integer"),
    (dict(layout="xt"), "layout must be one of nn, nt, tn, tt"),
    (dict(a_aligned=1), "a_aligned must be True or False"),
])
def test_problem_argument_errors(kwargs, msg):
    for fn in (origami_nv.select, origami_nv.rank, origami_nv.explain):
        with pytest.raises(ValueError, match=msg):
            fn(64, 64, 64, gpu=H100, **kwargs)


def test_explain_shows_split_batch_layout_and_the_plain_pick():
    _needs_kernel_table()
    e = origami_nv.explain(1, 2048, 4096, gpu=H100, layout="nt")
    assert e.config.split_k > 1, e.config
    s = str(e)
    assert "batch 1; layout nt" in s and "[Split-K]" in s and "reduction" in s and "split launch cost" in s
    assert "The plain problem" in s and e.to_dict()["problem"]["layout"] == "nt"
    b = origami_nv.explain(512, 512, 64, gpu=H100, batch=256, layout="tt")
    t = str(b)
    assert "batch 256; layout tt" in t and "The plain problem (512, 512, 64), batch 1, layout nn" in t
    assert b.to_dict()["plain"]["config"]["block_m"] > 0
    assert "Against the plain problem" in b._repr_html_()
    plain = origami_nv.explain(512, 512, 64, gpu=H100)
    assert plain.plain is None and "The plain problem" not in str(plain)


# ---- fused bias (issue 14): an epilogue term, in the cache key and through select/rank/explain --------------
def test_fused_bias_epilogue_term(hw):
    cfg, kr = _kernel(128, 128, 64, 4, 8, "mma_sync")
    o = _core.ModelOptions("nv")
    plain = _core.predict(512, 4096, 4096, "float16", cfg, hw, o, kr)
    fused = _core.predict(512, 4096, 4096, "float16", cfg, hw, o, kr, bias=True)
    assert not plain["epilogue_bias"] and plain["bias_cycles"] == 0
    assert fused["epilogue_bias"]
    # the tiles in flight (4 x 32 = 128 of 128 columns) read their bias columns: 128 x 128 x 2 bytes
    assert fused["bias_bytes"] == pytest.approx(fused["concurrent_tiles"] * 128 * 2)
    assert fused["bias_cycles"] >= hw.get("l2_latency_cycles")
    assert fused["epilogue_cycles"] == pytest.approx(plain["epilogue_cycles"] + fused["bias_cycles"])
    assert fused["total_cycles"] == pytest.approx(plain["total_cycles"] + fused["bias_cycles"] * fused["num_waves"])
    # split-K: the split tiles' bias is added by the reduction (one more round trip per pass), not the partial write
    split = _core.TileConfig(128, 128, 64, group_size_m=1, stages=4, warps=8, family="mma_sync", split_k=4)
    sp_plain = _core.predict(128, 1024, 8192, "float16", split, hw, o, kr)
    sp_fused = _core.predict(128, 1024, 8192, "float16", split, hw, o, kr, bias=True)
    assert sp_fused["split_slices"] == 4 and sp_fused["split_dp_tiles"] == 0 and sp_fused["bias_cycles"] == 0
    assert sp_fused["reduction_bytes"] > sp_plain["reduction_bytes"]
    assert sp_fused["reduction_latency_cycles"] > sp_plain["reduction_latency_cycles"]


def test_fused_bias_through_the_api():
    a = origami_nv.select(512, 4096, 4096, gpu=H100, layout="nt")
    b = origami_nv.select(512, 4096, 4096, gpu=H100, layout="nt", bias=True)
    assert isinstance(b, Config) and a.family and b.family  # both picks exist (the key differs: cached apart)
    r = origami_nv.rank(512, 4096, 4096, gpu=H100, layout="nt", bias=True, top=3)
    assert r[0].breakdown["epilogue_bias"] or r[0].breakdown["split_slices"] > 1
    e = origami_nv.explain(512, 4096, 4096, gpu=H100, layout="nt", bias=True)
    assert e.to_dict()["problem"]["bias"] is True and "fused bias" in str(e)
    with pytest.raises(ValueError, match="bias must be True or False"):
        origami_nv.select(64, 64, 64, bias=1)


def test_no_launch_is_predicted_faster_than_dram_or_the_tensor_cores(hw):
    # Physical floors of every prediction, over random problems of every class (batched, split, decode, odd):
    # the operands must come from DRAM at least once (the harness and a real model read them cold), and the
    # flops cannot beat the tensor cores' peak. A term that drops the batch or counts a reuse that does not
    # exist shows up here first (the batched split tail did: 256 x 1x128x2048 split 2 at 0.5x the DRAM floor).
    import random
    rng = random.Random(11)
    o = _core.ModelOptions("nv")
    kernels = [_kernel(16, 128, 32, 6, 2, "mma_sync"), _kernel(64, 64, 64, 4, 4, "mma_sync"),
               _kernel(128, 128, 32, 4, 8, "mma_sync"), _kernel(64, 128, 64, 8, 8, "wgmma", threads=256),
               _kernel(128, 256, 64, 4, 12, "wgmma", threads=384, regs=168)]
    dram, peak = hw.get("dram_perf_ratio"), hw.get("n_sm") * hw.get("wgmma_flops_per_cycle")
    for _ in range(300):
        m, n, k = (max(1, int(2 ** rng.uniform(0, 13))) for _ in range(3))
        batch = rng.choice([1, 1, 4, 64, 256])
        for cfg, kr in kernels:
            for split in (1, 2, 4):
                b = _core.predict(m, n, k, "float16", cfg.replace(split_k=split), hw, o, kr, batch=batch)
                floor = max(batch * (m * k + k * n) * 2 / dram, 2.0 * batch * m * n * k / peak)
                assert b["total_cycles"] >= 0.9 * floor, (m, n, k, batch, cfg, split, b["total_cycles"], floor)


# ---- the split-K reduction in a thread-block cluster (make_split_plan: SplitPlan::cluster) --------------------------
H100_CLUSTERS = [66, 39, 30, 22, 17, 15, 15]  # cudaOccupancyMaxActiveClusters, 2..8 CTAs (H100 and H200 alike)


def test_cluster_plan_only_for_one_wave_of_clusters_with_short_slices():
    # 1x2048x2048, 64x128 tiles: 16 tiles of 32 k-tiles, every tile split. S = 4: 16 clusters of 4 fit the 30
    # resident, slices of 8 k-tiles -> in the cluster, no workspace; S = 8: 16 clusters of 8 do not fit the 15.
    sp = _core.split_plan(1, 2048, 2048, 1, 64, 128, 64, 4, 132, "wgmma", H100_CLUSTERS)
    assert sp["cluster"] and sp["workspace_elems"] == 0 and sp["units"] == 64
    sp = _core.split_plan(1, 2048, 2048, 1, 64, 128, 64, 8, 132, "wgmma", H100_CLUSTERS)
    assert not sp["cluster"] and sp["workspace_elems"] == 8 * 16 * 64 * 128
    # slices longer than kClusterMaxKTilesPerSlice (24): the reduction kernel (1x2048x8192 split 4: 32 k-tiles)
    assert not _core.split_plan(1, 2048, 8192, 1, 64, 128, 64, 4, 132, "wgmma", H100_CLUSTERS)["cluster"]
    assert _core.split_plan(1, 2048, 8192, 1, 64, 128, 64, 6, 132, "wgmma", H100_CLUSTERS)["cluster"]  # 22
    # more than 8 slices: never in a cluster (the portable cluster size)
    assert not _core.split_plan(1, 1024, 4096, 1, 64, 128, 64, 16, 132, "wgmma", [999] * 7)["cluster"]
    # a split tail after whole tiles: never (the whole tiles are not clusters)
    sp = _core.split_plan(3072, 3072, 1024, 1, 128, 256, 64, 4, 132, "wgmma", H100_CLUSTERS)
    assert sp["dp_tiles"] == 264 and not sp["cluster"]
    # the other families, or no capacity given: the reduction kernel
    assert not _core.split_plan(1, 2048, 2048, 1, 64, 128, 64, 4, 132, "mma_sync", H100_CLUSTERS)["cluster"]
    assert not _core.split_plan(1, 2048, 2048, 1, 64, 128, 64, 4, 132, "wgmma")["cluster"]


def test_model_prices_the_cluster_form_where_the_plan_takes_it(tmp_path):
    # The H100 row carries the measured cluster capacity; with room for one cluster the 16 tiles price the
    # reduction kernel.
    cfg, kr = _kernel(64, 128, 64, 8, 8, "wgmma", threads=256)
    o = _core.ModelOptions("nv")
    hw_c = _core.resolve_hardware(None, H100, "")
    assert [hw_c.get(f"resident_clusters_{s}") for s in range(2, 9)] == H100_CLUSTERS
    over = tmp_path / "hw.json"
    over.write_text(json.dumps({f"resident_clusters_{s}": 1 for s in range(2, 9)}))  # 16 tiles never fit
    plain = _core.resolve_hardware(None, H100, str(over))
    b0 = _core.predict(1, 2048, 2048, "float16", cfg.replace(split_k=4), plain, o, kr)
    b1 = _core.predict(1, 2048, 2048, "float16", cfg.replace(split_k=4), hw_c, o, kr)
    assert not b0["split_cluster"] and b1["split_cluster"]
    # the cluster form: the reduction kernel's price less the saving, plus each CTA loading a whole partial tile's real
    # fp32 bytes (1 row x 128 columns here) over distributed shared memory, at the smaller of the row's calibrated rate
    # and the bytes its one consumer warpgroup keeps in flight (128 threads x 4 slices x 16 bytes) over the latency of a
    # thread's group of 4 loads (the group of 2's and two further CTAs')
    peak, latency = hw_c.get("dsmem_bytes_per_cycle"), hw_c.get("dsmem_latency_cycles")
    rate = min(peak, 128 * 4 * 16 / (latency + 2 * hw_c.get("dsmem_latency_per_slice_cycles")))
    assert rate < peak  # (H100 row: one warpgroup's loads in flight do not reach the peak)
    dsmem = 1 * 128 * 4.0 / rate
    assert b1["cluster_dsmem_cycles"] == pytest.approx(dsmem) and b0["cluster_dsmem_cycles"] == 0
    assert b1["reduction_cycles"] == pytest.approx(max(0.0, b0["reduction_cycles"] - o.nv.cluster_split_saving_cycles)
                                                   + dsmem)
    # a tile of real rows reads 64 times the bytes (M = 64: the mid-size class where the term matters)
    b64 = _core.predict(64, 2048, 2048, "float16", cfg.replace(split_k=4), hw_c, o, kr)
    assert b64["split_cluster"] and b64["cluster_dsmem_cycles"] == pytest.approx(64 * dsmem)
    # two consumer warpgroups (w12) keep twice the loads in flight: the calibrated peak binds
    cfg2, kr2 = _kernel(128, 128, 64, 6, 12, "wgmma", threads=384)
    b2 = _core.predict(1, 2048, 2048, "float16", cfg2.replace(split_k=4), hw_c, o, kr2)
    assert b2["split_cluster"] and b2["cluster_dsmem_cycles"] == pytest.approx(1 * 128 * 4.0 / peak)
    # reads a million times faster cost nothing: what is left is the form's price before the fifty-third session
    over.write_text(json.dumps({"dsmem_bytes_per_cycle": peak * 1e6, "dsmem_latency_cycles": latency / 1e6,
                                "dsmem_latency_per_slice_cycles": 1e-6}))
    fast = _core.resolve_hardware(None, H100, str(over))
    assert _core.predict(1, 2048, 2048, "float16", cfg.replace(split_k=4), fast, o, kr)["reduction_cycles"] == \
        pytest.approx(max(0.0, b0["reduction_cycles"] - o.nv.cluster_split_saving_cycles), rel=1e-4)
    assert b1["total_cycles"] - b1["reduction_cycles"] == pytest.approx(b0["total_cycles"] - b0["reduction_cycles"])
    # 8 slices do not fit as one wave of clusters: priced as the reduction kernel on the H100 row too
    assert not _core.predict(1, 2048, 2048, "float16", cfg.replace(split_k=8), hw_c, o, kr)["split_cluster"]
