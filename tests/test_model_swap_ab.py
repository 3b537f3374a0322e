"""The model and the selector for the swapped-operand wgmma kernels (TileConfig::swap_ab; CPU, the reference sm_90
kernel table where the build has no CUDA).

A swapped kernel computes C^T = B^T A^T: its tile is named by the problem's (block_m rows of C), but it runs the
transposed problem with the transposed tile, and stores C through the threads (no TMA-stored epilogue overlapping the
next tile). The model predicts exactly that launch (model.cpp predict_into), the selector ranks its split launches
(slices reduced through the workspace, never in a cluster), and the config spells itself everywhere with the flag.
"""
import pickle

import pytest

import origami_nv
from origami_nv import _core, _kernels
from origami_nv._api import _resources_from_dict
from origami_nv.bench import configs as C


def _records():
    return _kernels.kernel_records() or _kernels.reference_table()["kernels"]


needs_swapped = pytest.mark.skipif(not any(r["config"].get("swap_ab") for r in _records()),
                                   reason="no swapped-operand kernel in this build's kernel table")


def _resources(bm, bn, swap_ab, dtype="float16"):
    recs = _kernels.merge_kernel_records(_records(), dtype, "sm_90")
    (r,) = [r for r in recs if (r["config"]["block_m"], r["config"]["block_n"], r["config"]["family"],
                                bool(r["config"].get("swap_ab"))) == (bm, bn, "wgmma", swap_ab)]
    return r


def test_the_flag_spells_itself_everywhere():
    c = origami_nv.Config(160, 256, 64, group_size_m=8, stages=4, warps=12, family="wgmma", swap_ab=True)
    assert c.swap_ab and str(c) == "wgmma 160x256x64 s4 w12 g8 ab" and "swap_ab=True" in repr(c)
    plain = c.replace(swap_ab=False)
    assert c != plain and not c.same_kernel(plain) and hash(c) != hash(plain)
    assert pickle.loads(pickle.dumps(c)) == c
    assert c.to_dict()["swap_ab"] is True and "swap_ab" not in plain.to_dict()
    n = C.normalize(c.to_dict())
    assert n["swap_ab"] is True and C.config_id(n) == str(c) and "swap_ab" not in C.normalize(plain.to_dict())
    assert C.compiled_kernel_id(n) == "wgmma 160x256x64 s4 w12 ab"
    with pytest.raises(ValueError, match="wgmma"):
        origami_nv.Config(128, 128, 32, family="mma_sync", swap_ab=True)


def test_merge_keeps_a_swapped_kernel_apart_from_a_plain_one_of_the_same_tile():
    base = dict(dtype="float16", arch="sm_90a", threads=384, registers_per_thread=168, spill_store_bytes=0,
                spill_load_bytes=0, local_bytes=0, smem_bytes=220272)
    cfg = dict(block_m=128, block_n=112, block_k=64, stages=7, warps=12, family="wgmma")
    recs = [dict(base, config=cfg, a_k_contiguous=True, b_k_contiguous=True),
            dict(base, config=dict(cfg, swap_ab=True), a_k_contiguous=True, b_k_contiguous=False)]
    merged = _kernels.merge_kernel_records(recs)
    assert len(merged) == 2
    by = {bool(m["config"].get("swap_ab")): m for m in merged}
    assert by[True]["layouts"] == _kernels.layout_bit(True, False)
    assert by[False]["layouts"] == _kernels.layout_bit(True, True)


@needs_swapped
@pytest.mark.parametrize("gpu", ["H100_SXM", "H200"])
def test_a_swapped_launch_is_the_transposed_launch_of_its_kernel_tile(gpu):
    """320 x 7680 x 5120 with 160x128 swapped tiles: 2 x 60 = 120 tiles, one wave (no epilogue to overlap), so the
    prediction is the transposed problem's (7680 x 320) with the 128x160 tile, term for term; the operand plan is told
    in the problem's terms."""
    hw = _core.resolve_hardware(None, gpu, "")
    o = _core.ModelOptions("nv")
    sw = _resources(160, 128, True)
    kr = _resources_from_dict(sw)
    cfg = origami_nv.Config(160, 128, 64, group_size_m=8, stages=sw["config"]["stages"], warps=12, family="wgmma",
                            swap_ab=True)
    b = _core.predict(320, 7680, 5120, "float16", cfg, hw, o, kr, layout="nt")
    # the same kernel as an unswapped config of the transposed tile, on the transposed problem: nt stays nt
    kr_t = _resources_from_dict(dict(sw, config=dict(sw["config"], block_m=128, block_n=160, swap_ab=False)))
    t = _core.predict(7680, 320, 5120, "float16", cfg.replace(block_m=128, block_n=160, swap_ab=False), hw, o, kr_t,
                      layout="nt")
    assert b["swap_ab"] and not t["swap_ab"]
    assert b["num_waves"] == t["num_waves"] == 1 and b["grid_m"] == t["grid_m"] == 60
    for term in ("total_cycles", "tile_cycles", "l2_hit_rate", "memory_cycles", "compute_cycles", "epilogue_cycles"):
        assert b[term] == pytest.approx(t[term], rel=1e-12), term
    assert b["layout"] == "nt"


def test_a_swapped_launch_gets_no_overlapped_epilogue():
    """Many waves (2048 x 8192 x 1024) of a 256-wide kernel tile, whose plain form stores C by TMA under the next tile's
    main loop: as a swapped launch (the model's rule, whatever the compiled list: the 128x256 kernel's resources with
    the flag) it stores C through the threads and hides none of its epilogue."""
    hw = _core.resolve_hardware(None, "H100_SXM", "")
    o = _core.ModelOptions("nv")
    plain = _resources(128, 256, False)
    cfg = origami_nv.Config(128, 256, 64, group_size_m=8, stages=plain["config"]["stages"], warps=12, family="wgmma")
    t = _core.predict(8192, 2048, 1024, "float16", cfg, hw, o, _resources_from_dict(plain), layout="nt")
    sw = dict(plain, config=dict(plain["config"], block_m=256, block_n=128, swap_ab=True))
    b = _core.predict(2048, 8192, 1024, "float16", cfg.replace(block_m=256, block_n=128, swap_ab=True), hw, o,
                      _resources_from_dict(sw), layout="nt")
    assert b["num_waves"] == t["num_waves"] > 1 and t["epilogue_hidden_cycles"] > 0
    assert b["epilogue_hidden_cycles"] == 0
    assert b["total_cycles"] == pytest.approx(t["total_cycles"] + t["epilogue_hidden_cycles"], rel=1e-12)


@needs_swapped
def test_the_operand_plan_is_told_in_the_problems_terms():
    """A with 6000-byte rows (K = 3000 fp16, off 128-byte lines), B's rows on lines: the swapped kernel reads A as its
    B, but the breakdown's operand plan (rows off lines, padded copies) stays A's, as the op reads it."""
    hw = _core.resolve_hardware(None, "H100_SXM", "")
    o = _core.ModelOptions("nv")
    o.pitch_copy_plan = True  # the pick's plan (the ranking reads every operand in place)
    sw = _resources(160, 128, True)
    cfg = origami_nv.Config(160, 128, 64, group_size_m=8, stages=sw["config"]["stages"], warps=12, family="wgmma",
                            swap_ab=True)
    b = _core.predict(320, 7680, 3000, "float16", cfg, hw, o, _resources_from_dict(sw), layout="nt", a_ld=3000,
                      b_ld=3072)
    # (A is read off lines or, here, copied into padded rows: its 320 x 3000 elements, not B's)
    assert b["pitch_copy_a"] or b["off_line_share_a"] > 0
    assert not b["pitch_copy_b"] and b["off_line_share_b"] == 0
    assert b["operand_copy_bytes"] in (0, 320 * 3000 * 2)


@needs_swapped
@pytest.mark.parametrize("gpu", ["H100_SXM", "H200"])
def test_the_selector_ranks_swapped_splits_and_never_reduces_them_in_a_cluster(gpu):
    """Long-K mid-M problems whose swapped tiles leave most SMs idle unsplit (156 x 4160 x 7424: 33 tiles of 160 x 128
    on 132 SMs) rank split launches of the swapped kernels; their slices reduce through the workspace (the in-cluster
    reduction would store C^T's rows: gemm_wgmma.cuh)."""
    hw = _core.resolve_hardware(None, gpu, "")
    o = _core.ModelOptions("nv")
    for M, N, K in [(156, 4160, 7424), (160, 1024, 65536), (112, 8192, 30000)]:
        for dt in ("float16", "bfloat16"):
            ranked = origami_nv.rank(M, N, K, dtype=dt, gpu=gpu, layout="nt", top=None)
            split = [r.config for r in ranked if r.config.swap_ab and r.config.split_k > 1]
            assert split, (M, N, K, dt)
            for c in split[:3]:
                b = _core.predict(M, N, K, dt, c, hw, o, layout="nt")
                assert b["split_slices"] > 1 and not b["split_cluster"] and b["reduction_cycles"] > 0


@needs_swapped
@pytest.mark.parametrize("gpu", ["H100_SXM", "H200"])
def test_m_320_projections_pick_the_m_fitted_swapped_tiles(gpu):
    """Where two swapped tile rows of 160 cover M = 320 and N / 128 (256) tiles fill the SMs, the model picks them; at
    large M it does not (benchmarks/results/probes/probe_swap_ab_h100.txt measured 160x256 / 160x128 1.11-1.13x faster
    than the best 128-row tile at the first two shapes)."""
    for (M, N, K), tile in [((320, 14336, 5120), (160, 256)), ((320, 7680, 5120), (160, 128))]:
        c = origami_nv.select(M, N, K, "bfloat16", gpu=gpu, layout="nt")
        assert c.swap_ab and (c.block_m, c.block_n) == tile, c
    for M, N, K in [(4096, 4096, 4096), (8192, 8192, 8192), (16384, 1024, 4096)]:
        assert not origami_nv.select(M, N, K, "float16", gpu=gpu, layout="nt").swap_ab


@needs_swapped
def test_explain_says_the_launch_is_swapped():
    e = origami_nv.explain(320, 14336, 5120, "float16", gpu="H100_SXM", layout="nt")
    text = str(e)
    assert "[Swapped operands]" in text and "swap_ab=True" in text
    assert e.to_dict()["config"]["swap_ab"] is True
    # the grid line names the transposed launch's tiles (its rows along N): 14336 / BLOCK_N by 320 / BLOCK_M
    c = e.to_dict()["config"]
    n_tiles, m_tiles = -(-14336 // c["block_n"]), -(-320 // c["block_m"])
    assert f"grid = ceil(14336/{c['block_n']}) x ceil(320/{c['block_m']}) = {n_tiles} x {m_tiles} tiles" in text


@needs_swapped
def test_explain_of_a_swapped_split_pick_shows_its_slices():
    """159 x 19008 x 9792 bf16 on the H200: 149 tiles of 160 x 128 fill 1.13 waves; the pick splits them (measured 0.83
    -> 0.93 of cuBLAS against the unsplit pick before, probe_swap_split_h200.txt)."""
    e = origami_nv.explain(159, 19008, 9792, "bfloat16", gpu="H200")
    c = e.to_dict()["config"]
    assert c["swap_ab"] and c["split_k"] > 1, c
    text = str(e)
    assert "[Split-K]" in text and "[Swapped operands]" in text and "reduction (second kernel" in text


@needs_swapped
def test_an_80_row_m_takes_the_80x64_swapped_tile():
    """156 x 4160 x 7424 bf16 on the H200: two tile rows of 80 (4 rows past M) and 65 columns of 64 are 130 tiles, one
    wave; cuBLAS runs a 64x80 tile there (probe_cublas_kernels_swapsplit_h200.txt) and so does the pick, unsplit (the
    brute force's fastest launch, 1.10x the swapped 160x128 split 4 picked before: reports/nvidia-h200/gen-mid-train)."""
    c = origami_nv.select(156, 4160, 7424, dtype="bfloat16", gpu="H200")
    assert c.swap_ab and (c.block_m, c.block_n, c.split_k) == (80, 64, 1), c


@needs_swapped
@pytest.mark.parametrize("gpu", ["H100_SXM", "H200"])
def test_swapped_kernels_are_not_ranked_where_cs_rows_are_off_16_bytes(gpu):
    """N x element bytes not a multiple of 16: the swapped kernels store C element by element (not priced); the selector
    leaves them out there (types.hpp swapped_kernels_ranked) and explain says so."""
    for M, N, K in [(320, 7683, 5120), (10170, 1426, 159), (1718, 1415, 528)]:
        ranked = origami_nv.rank(M, N, K, dtype="float16", gpu=gpu, layout="nt", top=None)
        assert ranked and not any(r.config.swap_ab for r in ranked)
        assert "swapped-operand wgmma kernels (swap_ab) are not ranked" in str(
            origami_nv.explain(M, N, K, "float16", gpu=gpu, layout="nt"))
    assert any(r.config.swap_ab for r in origami_nv.rank(320, 7680, 5120, dtype="float16", gpu=gpu, layout="nt",
                                                          top=None))


@needs_swapped
def test_swapped_kernels_split_only_where_their_waves_are_not_full():
    """NvModelConstants::swapped_split_max_fill: at 2048 x 28672 x 8192 (Llama-70B gate/up at 2048 tokens: 1456 swapped
    160 x 256 tiles, 11 waves, fill 0.92) no swapped split is ranked (one was picked, its unsplit launch measured 1.17x
    slower than 256x128); at 262 x 25408 x 4736 (398 tiles of 160 x 128, fill 0.75) they are."""
    big = origami_nv.rank(2048, 28672, 8192, dtype="float16", gpu="H200", layout="nt", top=None)
    assert any(r.config.swap_ab for r in big)  # (ranked unsplit)
    assert not any(r.config.swap_ab and r.config.split_k > 1 for r in big)
    mid = origami_nv.rank(262, 25408, 4736, dtype="bfloat16", gpu="H200", layout="nt", top=None)
    assert any(r.config.swap_ab and r.config.split_k > 1 for r in mid)
    o = _core.ModelOptions("nv")
    assert o.nv.swapped_split_max_fill == pytest.approx(0.8)
