"""The nv model's per-family feed terms and the real-rows rule (cpp/model/model.cpp), and the
offline evaluation of the installed model on the committed H200 measurements
(benchmarks/fit_model.py)."""
import contextlib
import importlib.util
import math
from pathlib import Path

import pytest

from origami_nv import _core, _kernels

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def hw():
    return _core.resolve_hardware(None, "H200", "")


def kernel(bm, bn, bk, stages, warps, family, threads=None, regs=128, smem=None):
    cfg = _core.TileConfig(bm, bn, bk, group_size_m=1, stages=stages, warps=warps, family=family)
    threads = threads or 32 * warps
    smem = smem if smem is not None else stages * (bm + bn) * bk * 2
    kr = _core.KernelResources(cfg, dtype="float16", threads=threads, registers_per_thread=regs,
                               spill_store_bytes=0, spill_load_bytes=0, local_bytes=0, smem_bytes=smem,
                               arch="sm_90a", source="test")
    return cfg, kr


def predict(hw, M, N, K, cfg, kr, layout="nn", **nv):
    o = _core.ModelOptions("nv")
    c = o.nv
    for k, v in nv.items():
        setattr(c, k, v)
    o.nv = c
    return _core.predict(M, N, K, "float16", cfg, hw, o, kr, layout=layout)


def test_wgmma_l2_rate_uses_family_factor(hw):
    cfg, kr = kernel(128, 256, 64, 4, 12, "wgmma", threads=384, regs=168)
    base = predict(hw, 4096, 4096, 4096, cfg, kr, wgmma_l2_bandwidth_factor=1.0)
    fast = predict(hw, 4096, 4096, 4096, cfg, kr, wgmma_l2_bandwidth_factor=2.0)
    assert base["l2_feed_factor"] == 1.0 and fast["l2_feed_factor"] == 2.0
    assert fast["limited_l2_bw"] == pytest.approx(2.0 * base["limited_l2_bw"])
    assert fast["l2_cycles"] == pytest.approx(base["l2_cycles"] / 2.0)
    frac = base["active_sms"] / hw.get("n_sm")
    assert base["limited_l2_bw"] == pytest.approx(hw.get("l2_perf_ratio") * frac)


def test_mma_sync_l2_rate_uses_its_own_factor(hw):
    cfg, kr = kernel(128, 128, 32, 3, 8, "mma_sync")
    a = predict(hw, 4096, 4096, 4096, cfg, kr, wgmma_l2_bandwidth_factor=1.0)
    b = predict(hw, 4096, 4096, 4096, cfg, kr, wgmma_l2_bandwidth_factor=3.0)
    assert a["l2_feed_factor"] == b["l2_feed_factor"] == _core.ModelOptions("nv").nv.mma_sync_l2_bandwidth_factor
    assert a["l2_cycles"] == b["l2_cycles"]
    one = predict(hw, 4096, 4096, 4096, cfg, kr, mma_sync_l2_bandwidth_factor=1.0)
    two = predict(hw, 4096, 4096, 4096, cfg, kr, mma_sync_l2_bandwidth_factor=2.0)
    assert one["l2_feed_factor"] == 1.0
    assert one["limited_l2_bw"] == pytest.approx(hw.get("l2_perf_ratio") * one["active_sms"] / hw.get("n_sm"))
    assert two["l2_cycles"] == pytest.approx(one["l2_cycles"] / 2.0)


def test_mma_sync_decode_one_warp_kernel_not_l2_bound(hw):
    # 16x8192x8192, one-warp 16x16x64 s6: 512 CTAs read the same 16 A rows. At the per-thread-load
    # L2 rate the model called it L2-bound (710 cycles per K-iteration, measured 526 on the H200);
    # at the mma.sync rate the L2 time falls under the cp.async pipeline bound.
    cfg, kr = kernel(16, 16, 64, 6, 1, "mma_sync", regs=82, smem=24576)
    old = predict(hw, 16, 8192, 8192, cfg, kr, mma_sync_l2_bandwidth_factor=1.0)
    new = predict(hw, 16, 8192, 8192, cfg, kr)
    assert old["memory_bound"] == "L2 bandwidth"
    assert new["l2_cycles"] == pytest.approx(old["l2_cycles"] / new["l2_feed_factor"])
    assert new["memory_cycles"] < old["memory_cycles"]
    assert new["memory_cycles"] == pytest.approx(max(new["l2_cycles"], new["dram_cycles"], new["latency_bound_cycles"]))


def test_mma_sync_load_issue_shared_by_the_sms_warps(hw):
    # One 8-warp block per SM (16 CTAs): only 4 warps issue at the per-warp rate at once.
    cfg, kr = kernel(32, 256, 128, 3, 8, "mma_sync", regs=128)
    rate = 2.5
    b = predict(hw, 1, 4096, 4096, cfg, kr, mma_sync_warp_load_bytes_per_cycle=rate)
    free = predict(hw, 1, 4096, 4096, cfg, kr, mma_sync_warp_load_bytes_per_cycle=rate,
                   mma_sync_load_issue_warps_per_sm=0.0)
    issued = (32 + 256) * 128 * 2
    assert b["concurrent_tiles"] == 16 and b["active_sms"] == 16
    assert free["load_issue_cycles"] == pytest.approx(issued / (8 * rate))
    assert b["load_issue_cycles"] == pytest.approx(issued / (4 * rate))
    # A one-warp block with 3 others on its SM (512 CTAs on 132 SMs) still issues at the full rate;
    # with 7 blocks per SM (896 CTAs) it gets 4/7 of it.
    small, skr = kernel(16, 16, 64, 6, 1, "mma_sync", regs=82, smem=24576)
    four = predict(hw, 16, 8192, 8192, small, skr, mma_sync_warp_load_bytes_per_cycle=rate)
    seven = predict(hw, 16, 14336, 4096, small, skr, mma_sync_warp_load_bytes_per_cycle=rate)
    stage = (16 + 16) * 64 * 2
    assert four["load_issue_cycles"] == pytest.approx(stage / rate)
    assert seven["load_issue_cycles"] == pytest.approx(stage / (rate * 4 / 7))


def test_only_real_rows_move(hw):
    # M = 1 with BLOCK_M = 128: one row of A is loaded per K-iteration, not 128.
    cfg, kr = kernel(128, 64, 64, 8, 12, "wgmma", threads=384, regs=168)
    one = predict(hw, 1, 4096, 4096, cfg, kr)
    full = predict(hw, 128, 4096, 4096, cfg, kr)
    assert one["load_a_bytes"] == pytest.approx(full["load_a_bytes"] / 128)
    assert one["load_b_bytes"] == full["load_b_bytes"]
    # B is streamed once and A is one row: almost nothing is an L2 hit.
    assert one["l2_hit_rate"] < 0.05
    assert one["output_bytes"] == pytest.approx(full["output_bytes"] / 128)


def test_mma_sync_load_issue_term(hw):
    cfg, kr = kernel(16, 64, 512, 2, 1, "mma_sync", regs=96)
    rate = 3.0
    b = predict(hw, 1, 8192, 8192, cfg, kr, mma_sync_warp_load_bytes_per_cycle=rate)
    issued = (16 + 64) * 512 * 2  # every row of the tile is issued, the zero-filled ones too
    assert b["load_issue_cycles"] == pytest.approx(issued / rate)
    latency = b["l2_hit_rate"] * hw.get("l2_latency_cycles") + (1 - b["l2_hit_rate"]) * hw.get("hbm_latency_penalty")
    # two stages: a stage has one iteration to be issued and to land
    assert b["latency_bound_cycles"] == pytest.approx(latency + issued / rate)
    assert b["memory_bound"] == "load issue + latency"
    assert b["memory_cycles"] == pytest.approx(b["latency_bound_cycles"])
    off = predict(hw, 1, 8192, 8192, cfg, kr, mma_sync_warp_load_bytes_per_cycle=0.0)
    assert off["load_issue_cycles"] == 0 and off["latency_bound_cycles"] == pytest.approx(latency)
    assert off["total_cycles"] < b["total_cycles"]
    # twice the warps, half the time to issue the same tile
    cfg2, kr2 = kernel(16, 64, 512, 2, 2, "mma_sync", regs=96)
    b2 = predict(hw, 1, 8192, 8192, cfg2, kr2, mma_sync_warp_load_bytes_per_cycle=rate)
    assert b2["load_issue_cycles"] == pytest.approx(b["load_issue_cycles"] / 2)
    # more stages spread issue + latency over more iterations (the measured ordering on the H200
    # at 1x4096x4096: 16x16x64 s6 458 cycles per iteration, 16x16x512 s3 6077)
    cfg6, kr6 = kernel(16, 16, 64, 6, 1, "mma_sync", regs=96)
    cfg3, kr3 = kernel(16, 16, 512, 3, 1, "mma_sync", regs=96)
    b6 = predict(hw, 1, 4096, 4096, cfg6, kr6, mma_sync_warp_load_bytes_per_cycle=rate)
    b3 = predict(hw, 1, 4096, 4096, cfg3, kr3, mma_sync_warp_load_bytes_per_cycle=rate)
    assert b6["total_cycles"] < b3["total_cycles"]


def test_wgmma_has_no_load_issue_term(hw):
    cfg, kr = kernel(128, 64, 64, 8, 12, "wgmma", threads=384, regs=168)
    b = predict(hw, 128, 4096, 4096, cfg, kr, mma_sync_warp_load_bytes_per_cycle=0.5)
    assert b["load_issue_cycles"] == 0


def test_wgmma_tma_out_of_bounds_fill(hw):
    cfg, kr = kernel(128, 64, 64, 8, 12, "wgmma", threads=384, regs=168)
    rate = 16.0
    # The edge tile of a longer extent: a K-major A's box ends at the matrix edge (kernel version 13), nothing filled;
    # an M-major A ("tn") loads whole 64-row slabs: M = 200 over two 128-row tiles, 28 rows filled per tile (averaged).
    assert predict(hw, 200, 4096, 4096, cfg, kr, wgmma_tma_oob_fill_bytes_per_cycle=rate)["tma_oob_fill_cycles"] == 0
    edge = predict(hw, 200, 4096, 4096, cfg, kr, layout="tn", wgmma_tma_oob_fill_bytes_per_cycle=rate,
                   wgmma_tma_box_bytes_per_cycle=0.0)
    assert edge["tma_oob_fill_cycles"] == pytest.approx((128 - 100) * 64 * 2 / rate)
    # A K-major B's edge box moves back by whole multiples of 8 rows: N = 4100 over 65 tiles of 64 hangs 60 rows over,
    # 4 of them stay filled on the last tile (averaged over the 65).
    b_edge = predict(hw, 256, 4100, 4096, cfg, kr, layout="nt", wgmma_tma_oob_fill_bytes_per_cycle=rate)
    assert b_edge["tma_oob_fill_cycles"] == pytest.approx(4 / 65 * 64 * 2 / rate)
    inside = predict(hw, 256, 4096, 4096, cfg, kr, wgmma_tma_oob_fill_bytes_per_cycle=rate)
    assert inside["tma_oob_fill_cycles"] == 0
    # One tile row (decode): a K-major A is loaded by a box of its own rows (kernel version 7), nothing filled;
    # an M-major A by the 64-row slabs that hold its rows, the rest of the last slab filled.
    assert predict(hw, 1, 4096, 4096, cfg, kr, wgmma_tma_oob_fill_bytes_per_cycle=rate)["tma_oob_fill_cycles"] == 0
    slab = predict(hw, 8, 4096, 4096, cfg, kr, layout="tn", wgmma_tma_oob_fill_bytes_per_cycle=rate)
    assert slab["tma_oob_fill_cycles"] == pytest.approx((64 - 8) * 64 * 2 / rate)
    # ...and a B shorter than BLOCK_N likewise (N = 40 < 64, K-major B in "nt")
    assert predict(hw, 256, 40, 4096, cfg, kr, layout="nt",
                   wgmma_tma_oob_fill_bytes_per_cycle=rate)["tma_oob_fill_cycles"] == 0
    off = predict(hw, 200, 4096, 4096, cfg, kr, layout="tn", wgmma_tma_oob_fill_bytes_per_cycle=0.0,
                  wgmma_tma_box_bytes_per_cycle=0.0)
    assert off["tma_oob_fill_cycles"] == 0 and off["total_cycles"] < edge["total_cycles"]
    # The fill does not overlap the box's real bytes: it adds to the memory time of a K-iteration.
    assert edge["memory_cycles"] == pytest.approx(off["memory_cycles"] + edge["tma_oob_fill_cycles"])


def test_wgmma_tma_stage_floor(hw):
    # A wgmma K-iteration is at least wgmma_tma_stage_cycles + the bytes of the boxes a stage loads / the per-SM rate,
    # whatever the stages (model.hpp); the boxes hold the rows they load: at M = 1 a K-major A box is one row (kernel
    # version 7), so 64x128 loads (1 + 128) x 64 x 2 bytes. The mma.sync family has no such term.
    cfg, kr = kernel(64, 128, 64, 8, 8, "wgmma", threads=256, regs=137)
    on = predict(hw, 1, 512, 2048, cfg, kr, wgmma_tma_box_bytes_per_cycle=20.0, wgmma_tma_stage_cycles=50.0,
                 wgmma_tma_oob_fill_bytes_per_cycle=0.0)
    assert on["tma_box_cycles"] == pytest.approx(50.0 + (1 + 128) * 64 * 2 / 20.0)
    assert on["memory_cycles"] == pytest.approx(on["tma_box_cycles"])
    assert on["memory_bound"] == "TMA stage throughput"
    off = predict(hw, 1, 512, 2048, cfg, kr, wgmma_tma_box_bytes_per_cycle=0.0)
    assert off["tma_box_cycles"] == 0 and on["total_cycles"] > off["total_cycles"]
    # whole tiles: both boxes whole; an M-major A shorter than the tile loads whole 64-row slabs
    full = predict(hw, 4096, 4096, 4096, cfg, kr, wgmma_tma_box_bytes_per_cycle=20.0, wgmma_tma_stage_cycles=50.0)
    assert full["tma_box_cycles"] == pytest.approx(50.0 + (64 + 128) * 64 * 2 / 20.0)
    slab = predict(hw, 8, 512, 2048, cfg, kr, layout="tn", wgmma_tma_box_bytes_per_cycle=20.0,
                   wgmma_tma_stage_cycles=50.0)
    assert slab["tma_box_cycles"] == pytest.approx(full["tma_box_cycles"])
    # A slow floor binds; a fast one leaves the other memory terms in charge.
    fast = predict(hw, 1, 512, 2048, cfg, kr, wgmma_tma_box_bytes_per_cycle=1e6, wgmma_tma_stage_cycles=0.0)
    assert fast["memory_cycles"] == pytest.approx(off["memory_cycles"])
    mcfg, mkr = kernel(16, 16, 64, 6, 1, "mma_sync", regs=90)
    assert predict(hw, 1, 512, 2048, mcfg, mkr)["tma_box_cycles"] == 0

def test_tma_round_trip_latency_and_per_sm_dram_rate(hw):
    # wgmma: the latency bound is the pointer-chase latency x wgmma_pipeline_latency_factor over stages - 1 (M = 1:
    # every byte a DRAM miss), and a launch on few SMs is not capped by the active-SM curve when
    # wgmma_active_sm_dram_cap = 0; the mma.sync family keeps both as they were.
    cfg, kr = kernel(64, 128, 64, 8, 8, "wgmma", threads=256, regs=137)
    one = predict(hw, 1, 3072, 8192, cfg, kr, wgmma_pipeline_latency_factor=1.0, wgmma_active_sm_dram_cap=1.0)
    five = predict(hw, 1, 3072, 8192, cfg, kr, wgmma_pipeline_latency_factor=5.0, wgmma_active_sm_dram_cap=1.0)
    assert five["latency_bound_cycles"] == pytest.approx(5.0 * one["latency_bound_cycles"], rel=1e-6)
    assert one["active_sms"] == 24 and one["dram_bw_fraction"] < 0.9           # 24 SMs: the curve caps the rate
    uncapped = predict(hw, 1, 3072, 8192, cfg, kr, wgmma_active_sm_dram_cap=0.0)
    assert uncapped["dram_bw_fraction"] == 1.0 and uncapped["dram_cycles"] < one["dram_cycles"]
    mcfg, mkr = kernel(16, 16, 64, 6, 1, "mma_sync")
    m1 = predict(hw, 1, 3072, 8192, mcfg, mkr, wgmma_pipeline_latency_factor=1.0, wgmma_active_sm_dram_cap=1.0)
    m5 = predict(hw, 1, 3072, 8192, mcfg, mkr, wgmma_pipeline_latency_factor=5.0, wgmma_active_sm_dram_cap=0.0)
    assert m5["latency_bound_cycles"] == m1["latency_bound_cycles"] and m5["dram_bw_fraction"] == m1["dram_bw_fraction"]


def test_wgmma_tma_store_hides_the_epilogue_of_every_wave_but_the_last(hw):
    # A CTA with a next tile stores C by TMA and computes on (gemm_wgmma.cuh): each wave but the last costs the
    # longer of its main loop and the DRAM traffic both share; wgmma_epilogue_overlap scales what that hides.
    cfg, kr = kernel(128, 256, 64, 4, 12, "wgmma", threads=384, regs=168)
    full = predict(hw, 8192, 8192, 256, cfg, kr, wgmma_epilogue_overlap=1.0)
    off = predict(hw, 8192, 8192, 256, cfg, kr, wgmma_epilogue_overlap=0.0)
    part = predict(hw, 8192, 8192, 256, cfg, kr, wgmma_epilogue_overlap=0.32)
    waves = full["num_waves"]
    assert waves == 16 and off["epilogue_hidden_cycles"] == 0
    main_loop = full["tile_cycles"] - full["epilogue_cycles"]
    shared_dram = full["dram_cycles"] * full["num_iter"] + full["output_bytes"] / full["epilogue_bw"]
    hidden = (full["tile_cycles"] - max(main_loop, shared_dram)) * (waves - 1)
    assert hidden > 0 and full["epilogue_hidden_cycles"] == pytest.approx(hidden)
    assert part["epilogue_hidden_cycles"] == pytest.approx(0.32 * hidden)
    assert off["total_cycles"] == pytest.approx(off["tile_cycles"] * waves)
    assert full["total_cycles"] == pytest.approx(off["total_cycles"] - hidden)
    assert full["dp_cycles"] == pytest.approx(full["total_cycles"])
    # nothing to hide: one wave; C rows not 16-byte aligned (odd N: the threads store); the mma.sync family
    assert predict(hw, 1024, 2048, 256, cfg, kr, wgmma_epilogue_overlap=1.0)["epilogue_hidden_cycles"] == 0
    assert predict(hw, 8192, 8191, 256, cfg, kr, wgmma_epilogue_overlap=1.0)["epilogue_hidden_cycles"] == 0
    mcfg, mkr = kernel(128, 128, 32, 4, 8, "mma_sync")
    assert predict(hw, 8192, 8192, 256, mcfg, mkr, wgmma_epilogue_overlap=1.0)["epilogue_hidden_cycles"] == 0


def test_ping_pong_launch_hides_its_epilogue_with_its_own_share(hw):
    # A config whose kernel has a ping-pong schedule in the launched layout (KernelResources::ping_pong_layouts) runs
    # it where every CTA has two or more tiles and there is no split-K (gemm_wgmma.cuh ping_pong_pays): each wave but
    # the last hides its epilogue under the other warpgroup's main loop, by wgmma_ping_pong_epilogue_overlap, whether
    # C leaves by TMA or by the threads.
    cfg, kr = kernel(128, 128, 64, 6, 12, "wgmma", threads=384, regs=168)
    kr.ping_pong_layouts = _kernels.layout_bit(True, False)                       # "nn" only
    shares = dict(wgmma_epilogue_overlap=0.1, wgmma_ping_pong_epilogue_overlap=0.9)
    pp = predict(hw, 8192, 8192, 1024, cfg, kr, **shares)                       # 4096 tiles, 132 SMs
    assert pp["ping_pong"] and pp["num_waves"] == 32
    main_loop = pp["tile_cycles"] - pp["epilogue_cycles"]
    shared_dram = pp["dram_cycles"] * pp["num_iter"] + pp["output_bytes"] / pp["epilogue_bw"]
    hidden = (pp["tile_cycles"] - max(main_loop, shared_dram)) * (pp["num_waves"] - 1)
    assert hidden > 0 and pp["epilogue_hidden_cycles"] == pytest.approx(0.9 * hidden)
    coop = predict(hw, 8192, 8192, 1024, cfg, kr, layout="nt", **shares)        # no schedule in that layout
    assert not coop["ping_pong"] and coop["epilogue_hidden_cycles"] == pytest.approx(0.1 * hidden, rel=0.05)
    odd = predict(hw, 8192, 8191, 1024, cfg, kr, **shares)                      # C rows not 16-byte aligned
    assert odd["ping_pong"] and odd["epilogue_hidden_cycles"] > 0
    # one tile per SM and a few more (< 2 x 132 tiles): the cooperative kernel, whose odd-N epilogue hides nothing
    few = predict(hw, 2048, 2048, 1024, cfg, kr, **shares)                      # 256 tiles
    assert not few["ping_pong"] and few["num_waves"] == 2
    assert predict(hw, 2048, 2112, 1024, cfg, kr, **shares)["ping_pong"]        # 272 tiles
    assert not predict(hw, 8192, 8191, 1024, cfg, kr, layout="nt", **shares)["epilogue_hidden_cycles"]
    split = _core.TileConfig(128, 128, 64, group_size_m=1, stages=6, warps=12, family="wgmma", split_k=2)
    assert not predict(hw, 8192, 8192, 1024, split, kr, **shares)["ping_pong"]
    kr.ping_pong_layouts = 0
    assert not predict(hw, 8192, 8192, 1024, cfg, kr, **shares)["ping_pong"]


def test_split_n_tile_writes_c_slower_by_its_factor(hw):
    # 192x192 (two consumer warpgroups, each every row and 96 columns) stores C in 32-column slices of 64-byte rows:
    # its write of C takes wgmma_split_n_store_factor times the DRAM-rate time; 128x256 (each consumer 64 rows of 256
    # columns, 128-byte rows) and the fp32 partials of a split launch keep the DRAM rate.
    cfg, kr = kernel(192, 192, 64, 4, 12, "wgmma", threads=384, regs=168)
    on = predict(hw, 8192, 8192, 128, cfg, kr, wgmma_split_n_store_factor=1.5)
    off = predict(hw, 8192, 8192, 128, cfg, kr, wgmma_split_n_store_factor=1.0)
    assert on["split_n_store"] and off["split_n_store"]
    assert on["epilogue_write_cycles"] == pytest.approx(1.5 * off["epilogue_write_cycles"])
    assert on["epilogue_write_cycles"] == pytest.approx(on["output_bytes"] / on["epilogue_bw"] * 1.5)
    assert on["epilogue_cycles"] - off["epilogue_cycles"] == pytest.approx(0.5 * off["epilogue_write_cycles"])
    assert on["total_cycles"] > off["total_cycles"]
    wide, wkr = kernel(128, 256, 64, 4, 12, "wgmma", threads=384, regs=168)
    w = predict(hw, 8192, 8192, 128, wide, wkr, wgmma_split_n_store_factor=1.5)
    assert not w["split_n_store"]
    assert w["epilogue_write_cycles"] == pytest.approx(w["output_bytes"] / w["epilogue_bw"])
    split = _core.TileConfig(192, 192, 64, group_size_m=1, stages=4, warps=12, family="wgmma", split_k=4)
    sk = predict(hw, 512, 512, 8192, split, kr, wgmma_split_n_store_factor=1.5)
    assert not sk["split_n_store"]


def test_split_n_store_term_lifts_the_h200_batched_minimum():
    """The validation figure the term was kept for (model.hpp, wgmma_split_n_store_factor; fitted on both GPUs'
    gen-train, which hold few write-bound 192x192 launches): on the H200 batched set, never read by the fit, the model
    tied 192x192 and 128x256 at 2048x2048x128 x32 where 192x192 runs 1.5x slower (A/BF 0.68). With the term: the pick
    is 128x256 and the set's minimum >= 0.85. On the H100's batched set (re-timed 2026-12-06 for kernel changes 13-15)
    the term trades two sizes: 2048x2048x128 x32 gains (192x192 0.89 -> 128x256 0.91), 384x384x64 x192 loses (192x192,
    the best, 1.00 -> 128x192 0.88); geomean 0.966 -> 0.961, minimum 0.888 -> 0.881. The guard: it costs that set at
    most 0.01 of geomean and 0.02 of minimum."""
    out = {}
    for gpu_dir, row in (("nvidia-h200", "H200"), ("nvidia-h100", "H100_SXM")):
        raw = ROOT / "reports" / gpu_dir / "raw" / "batched" / "rotate"
        if not raw.is_dir():
            pytest.skip(f"no raw measurements at {raw}")
        with _fit_model_with_kernel_table() as fm:
            s = fm.Suite("batched", raw)
            hw_row = _core.resolve_hardware(None, row, "")
            ks = list(s.kernel_resources().values())
            on, off = fm.evaluate(s, hw_row, ks, None), fm.evaluate(s, hw_row, ks, {"wgmma_split_n_store_factor": 1.0})
            out[gpu_dir] = (on["summary"], off["summary"])
            if gpu_dir == "nvidia-h200":
                qk = [(r, o) for r, o in zip(on["rows"], off["rows"]) if (r["M"], r["N"], r["K"]) == (2048, 2048, 128)]
                assert len(qk) == 1 and qk[0][1]["pick"][1:3] == (192, 192) and qk[0][0]["pick"][1:3] == (128, 256)
    h200, h200_off = out["nvidia-h200"]
    assert h200_off["a_bf_min"] < 0.75 and h200["a_bf_min"] >= 0.85
    assert h200["a_bf_geomean"] > h200_off["a_bf_geomean"] + 0.01
    h100, h100_off = out["nvidia-h100"]
    assert h100["a_bf_geomean"] > h100_off["a_bf_geomean"] - 0.01 and h100["a_bf_min"] > h100_off["a_bf_min"] - 0.02


def _mma_sync_family():
    path = ROOT / "cpp" / "kernels" / "families" / "mma_sync.py"
    spec = importlib.util.spec_from_file_location("mma_sync_family", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_mma_sync_warp_layout_is_the_generators():
    # The model's warp layout (the shared-memory term's bytes) is the one the kernels are generated with, for every
    # tile of the config space and every warp count the generator may choose.
    fam = _mma_sync_family()
    space = _core.space()
    checked = 0
    for bm in space["block_m"]:
        for bn in space["block_n"]:
            for warps in (1, 2, 4, 8):
                lay = fam.warp_layout(bm, bn, warps)
                assert _core.mma_sync_warp_layout(bm, bn, warps) == (lay or (0, 0)), (bm, bn, warps)
                checked += 1
    assert checked >= 64
    assert _core.mma_sync_warp_layout(128, 64, 8) == (4, 2)    # 32x32 warp tiles
    assert _core.mma_sync_warp_layout(128, 256, 8) == (2, 4)   # 64x64
    assert _core.mma_sync_warp_layout(16, 16, 1) == (1, 1)


def test_mma_sync_shared_memory_term(hw):
    # Every warp reads its warp tile's fragments from shared memory and cp.async writes the stage there; the
    # resident blocks share the SM's rate (smem_bytes_per_cycle x mma_sync_smem_efficiency).
    rate = hw.get("smem_bytes_per_cycle")
    assert 100 < rate <= 128                                  # calibrated: 127.7 B/cycle/SM on the H200
    cfg, kr = kernel(128, 64, 64, 4, 8, "mma_sync")           # 4 x 2 warps of 32x32
    b = predict(hw, 1, 4096, 4096, cfg, kr, mma_sync_smem_efficiency=0.5)
    assert (b["warps_m"], b["warps_n"]) == (4, 2)
    assert b["smem_bytes"] == (2 * 128 + 4 * 64) * 64 * 2 + (128 + 64) * 64 * 2
    resident = math.ceil(b["concurrent_tiles"] / b["active_sms"])
    assert b["smem_cycles"] == pytest.approx(resident * b["smem_bytes"] / (rate * 0.5))
    assert b["compute_limiter"] == "shared memory" and b["compute_cycles"] == pytest.approx(b["smem_cycles"])
    off = predict(hw, 1, 4096, 4096, cfg, kr, mma_sync_smem_efficiency=0.0)
    assert off["smem_cycles"] == 0 and off["compute_limiter"] == "tensor issue"
    assert off["compute_cycles"] < b["compute_cycles"]
    # 64x64 warp tiles read half the bytes per flop: at the full bank rate the tensor issue rate, not shared
    # memory, sets their L_compute, where the 32x32 warp tiles are still held by shared memory.
    big, bkr = kernel(128, 256, 32, 4, 8, "mma_sync", regs=240)
    lb = predict(hw, 4096, 4096, 4096, big, bkr, mma_sync_smem_efficiency=1.0)
    assert lb["compute_limiter"] == "tensor issue" and lb["smem_cycles"] < lb["compute_cycles"]
    small = predict(hw, 4096, 4096, 4096, cfg, kr, mma_sync_smem_efficiency=1.0)
    assert small["compute_limiter"] == "shared memory"
    # wgmma reads its operands from shared memory in the tensor core's own path: no such term.
    wcfg, wkr = kernel(128, 128, 64, 6, 12, "wgmma", threads=384, regs=168)
    w = predict(hw, 4096, 4096, 4096, wcfg, wkr, mma_sync_smem_efficiency=0.5)
    assert w["smem_cycles"] == 0 and w["compute_limiter"] == "tensor issue"


def test_seed_mode_has_no_feed_terms(hw):
    o = _core.ModelOptions("seed")
    cfg = _core.TileConfig(128, 128, 64, group_size_m=8, stages=2, warps=8, family="mma_sync")
    b = _core.predict(1, 4096, 4096, "float16", cfg, hw, o, None)
    assert b["load_issue_cycles"] == 0 and b["tma_oob_fill_cycles"] == 0 and b["l2_feed_factor"] == 1.0


def _fit_model():
    path = ROOT / "benchmarks" / "fit_model.py"
    spec = importlib.util.spec_from_file_location("fit_model", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@contextlib.contextmanager
def _fit_model_with_kernel_table():
    """benchmarks/fit_model.py with the sm_90 build's kernel table loaded (which operand layouts each kernel compiles,
    so the model charges the op's copies as on the GPU), unloaded afterwards."""
    fm = _fit_model()
    from origami_nv.bench.repredict import load_kernel_table
    fm.KERNEL_TABLE = load_kernel_table(str(ROOT / "reports" / "kernel_resources_sm90.json"))
    try:
        yield fm
    finally:
        fm.KERNEL_TABLE = []


@pytest.mark.parametrize("suite,min_abf,max_failures,min_tau", [("seed", 0.85, 0, 0.76), ("llm", 0.80, 0, 0.76)])
def test_installed_model_on_h200_measurements(hw, suite, min_abf, max_failures, min_tau):
    """Offline A/BF of the installed model on the committed H200 brute force (every compiled kernel
    timed per size, measured with the pipelined mma.sync main loop): the pick's measured time against
    the best. Thresholds are what the fitted constants reach (benchmarks/results/model_fit.md: seed
    min 0.80 (64x16384x4096), 1 size below 0.8, tau 0.733; llm min 0.79, 2 below 0.8, tau 0.697) with a
    little slack. Re-measured with programmatic dependent launch (same model): seed min 0.774 at
    64x16384x4096 (wgmma 128x128x64 picked, M padded to 128; its zero-filled TMA rows cost time the
    model took as overlapping the DRAM term); with the fill added to the memory time (model.hpp) seed
    min 0.88, 0 sizes below 0.8, tau 0.732; llm min 0.79, 2 below 0.8, tau 0.697. Both re-timed 2026-11-25 (the
    stale mma.sync edge launches, the 64-row wgmma tiles, split-K launches) and the mma.sync shared-memory term
    (model.hpp mma_sync_smem_efficiency, fitted on the gen-train sets, not on these): seed 0.976 / min 0.88 / tau
    0.787, llm 0.970 / 0.87 / 0.782, no size below 0.8. Since kernel change 7 (wgmma loads only the rows an operand
    has: decode and small M much faster) the sizes with such launches are left out until the H200 is re-timed
    (fit_model.Suite.stale_sizes: seed 12 of 23, llm 24 of 40); on the rest seed 0.980 / 0.95 / 0.814, llm 0.978 /
    0.90 / 0.819. Re-timed 2026-11-26 (twelfth session: every stale launch, kernel change 9 included), all sizes, with
    the kernel table's operand layouts: seed 0.980 / 0.88 / 0.790, llm 0.971 / 0.83 (1x2048x4096: wgmma 64x128 split
    4 picked, 64x80 split 4 best, both reduced in a cluster) / 0.798. The comparison with the constants of the first mma.sync main loop moved to the complete H100
    validation set (test_installed_model_on_the_validation_sets): the sizes left here are those it did not change."""
    raw = ROOT / "reports" / "nvidia-h200" / "raw" / suite / "rotate"
    if not raw.is_dir():
        pytest.skip(f"no raw measurements at {raw}")
    # The kernel table of the build: which operand layouts each kernel compiles (the wgmma 64xBN tiles read B
    # K-major only, so at the seed's "nn" sizes the op copies B first, and the model charges it).
    with _fit_model_with_kernel_table() as fm:
        s = fm.Suite(suite, raw)
        kernels = list(s.kernel_resources().values())
        ev = fm.evaluate(s, hw, kernels, None)
    summ = ev["summary"]
    assert summ["unmeasured_picks"] == 0
    assert summ["a_bf_min"] >= min_abf, [(r["size"], r["a_bf"]) for r in ev["rows"] if r["a_bf"] < 0.8]
    assert summ["failures"] <= max_failures
    assert summ["tau_mean"] >= min_tau
    assert len(s.sizes) >= 10 and not math.isnan(summ["tau_mean"])


def test_fit_maximises_the_mean_objective_over_the_training_sets(monkeypatch):
    # --fit-also: the constants that fit two GPUs' training sets at once maximise the mean of the two objectives
    # (here -(x - 1)^2 on one set, -(x - 3)^2 on the other: 1 alone, 2 together).
    fm = _fit_model()
    best_at = {"h100": 1.0, "h200": 3.0}
    monkeypatch.setattr(fm, "evaluate", lambda suite, hw, kernels, consts: {"x": consts["k"], "at": best_at[suite]})
    monkeypatch.setattr(fm, "objective", lambda ev: -(ev["x"] - ev["at"]) ** 2)
    alone, _ = fm.fit("h100", None, [], ["k"], {"k": 1.5}, rounds=6)
    both, val = fm.fit("h100", None, [], ["k"], {"k": 1.5}, rounds=6, also=[("h200", None, [])])
    assert abs(alone["k"] - 1.0) < 0.1
    assert abs(both["k"] - 2.0) < 0.15 and val == pytest.approx(-((both["k"] - 1) ** 2 + (both["k"] - 3) ** 2) / 2)


def test_rank_terms_are_the_error_spread_and_a_soft_pick():
    fm = _fit_model()
    # predictions right up to one factor: no error spread; the soft pick sits on the fastest-predicted launch
    var, soft = fm.rank_terms([1.0, 2.0, 4.0], [3.0, 6.0, 12.0], 3.0)
    assert var == pytest.approx(0.0, abs=1e-12)
    assert 0.0 <= soft < 0.05 * math.log(2.0)
    # the model prefers the slowest launch: the soft regret is about its log slowdown
    var2, soft2 = fm.rank_terms([1.0, 2.0], [6.0, 3.0], 3.0)
    assert var2 > 0 and soft2 == pytest.approx(math.log(2.0), rel=1e-3)
    # two launches predicted equal share the pick
    _, soft3 = fm.rank_terms([1.0, 1.0], [3.0, 6.0], 3.0)
    assert soft3 == pytest.approx(0.5 * math.log(2.0))
    assert all(math.isnan(x) for x in fm.rank_terms([1.0], [1.0], 1.0))


@pytest.mark.parametrize("gpu_dir,row,sizes,stale,min_geomean,min_abf,min_tau", [
    ("nvidia-h100", "H100_SXM", 118, 0, 0.96, 0.54, 0.74), ("nvidia-h200", "H200", 118, 0, 0.965, 0.70, 0.78)])
def test_installed_model_on_the_validation_sets(gpu_dir, row, sizes, stale, min_geomean, min_abf, min_tau):
    """Offline A/BF of the installed model on gen-valid (never read by a fit), both GPUs. Thresholds: what the
    installed model reaches (benchmarks/results/model_fit_latency.md: H100 0.961 / min 0.55 / tau 0.710, H200 0.964 /
    0.66 / 0.733) with a little slack. The brute force has the wgmma 64x64 and 64x128 tiles since 2026-11-25; without
    the TMA round-trip terms (wgmma_pipeline_latency_factor, wgmma_active_sm_dram_cap) the model picked the 64x64
    tile at decode projections where a one-warp mma.sync tile is 1.4-1.9x faster: H100 0.954, H200 0.940 / 0.53.
    With the mma.sync shared-memory term and the feed constants refit beside it on both GPUs' gen-train sets
    (benchmarks/results/model_fit_smem.md): H100 0.957 / 0.55 / 0.755, H200 0.963 / 0.76 / 0.769. H100 gen-valid
    re-timed after the TMA-store epilogue, with wgmma_epilogue_overlap (benchmarks/results/model_fit_epilogue.md):
    0.958 / 0.55 / 0.752. Kernel change 7 (wgmma loads only an operand's rows: no zero fill at decode), H100 gen-valid
    re-timed for it: 0.972 / 0.57 / 0.754, where the constants of the first mma.sync main loop (PREVIOUS, f8a65b6)
    reach 0.953 / tau 0.687; H200 gen-valid not re-timed, its 64 sizes with such launches left out: 0.987 / 0.92 /
    0.805 on the other 54. With the TMA stage floor (model.hpp): H100 0.974 / 0.57 / 0.755. H200 gen-valid re-timed for
    change 7 (eleventh session), all 118 sizes: 0.981 / 0.77 / 0.787 (benchmarks/results/model_fit_cross_device_session11.md).
    Both re-timed for kernel change 9 (split-K reduced in a cluster: faster short split launches, so the best kernel of
    the decode and small-M sizes moved) with cluster_split_saving_cycles fitted on H100 gen-train: H100 0.981 / 0.83 /
    0.769, H200 0.973 / 0.77 / 0.788 (benchmarks/results/model_fit_cluster_split.md). Fourteenth session, with the
    brute force's second-pass split launches counted (their records carry no resources; they were left out before)
    and the split launch cost refit on H100 gen-train (split_k_tail_overhead_fraction; before -> after): H100 0.978 /
    0.85 / 0.773 -> 0.978 / 0.85 / 0.780, H200 0.968 / 0.77 / 0.795 -> 0.969 / 0.71 / 0.803: tau up on both, the H200
    minimum down at one size (128x1024x4096 bf16: 128x64 split 8 picked, 64x80 split 4 best; was 128x96 split 4 at
    0.83), hence 0.70 there (benchmarks/results/model_fit_split_tail.md). Fifteenth session: kernel change 10 (the small
    mma.sync tiles read a misaligned operand in place) made 8 sizes of the H200 set stale, which the evaluation leaves
    out until they are re-timed there; the H100 set was re-timed for it (`stale` = the sizes left out, so a size cannot
    go missing unnoticed). Sixteenth session: the H200 set re-timed too (`bench run --retime-stale`), all 118 sizes:
    0.975 / 0.77 / 0.805; both re-timed for kernel change 11 (mma.sync at the M edge copies A's rows only), then the
    lone-warp term (benchmarks/results/model_fit_lone_warp.md, fitted on H100 gen-train): H100 0.980 / 0.88 / 0.774 ->
    0.980 / 0.88 / 0.781, H200 0.976 / 0.78 / 0.801 -> 0.976 / 0.78 / 0.811."""
    raw = ROOT / "reports" / gpu_dir / "raw" / "gen-valid" / "rotate"
    if not raw.is_dir():
        pytest.skip(f"no raw measurements at {raw}")
    with _fit_model_with_kernel_table() as fm:
        s = fm.Suite("gen-valid", raw)
        hw = _core.resolve_hardware(None, row, "")
        kernels = list(s.kernel_resources().values())
        summ = fm.evaluate(s, hw, kernels, None)["summary"]
        # The lone-warp term (fitted on H100 gen-train only) against the per-warp copy floor it replaces for one-warp
        # CTAs; and the installed constants against those fitted to the first mma.sync main loop (commit f8a65b6).
        off = fm.evaluate(s, hw, kernels, {"mma_sync_lone_warp_k_step_cycles": 0.0})["summary"]
        before = fm.evaluate(s, hw, kernels, fm.PREVIOUS)["summary"] if not s.stale_sizes else None
    assert len(s.stale_sizes) == stale
    assert summ["sizes"] == sizes - stale and summ["unmeasured_picks"] == 0
    assert summ["a_bf_geomean"] >= min_geomean
    assert summ["a_bf_min"] >= min_abf
    assert summ["tau_mean"] >= min_tau
    # The lone-warp term ranks these sets better: tau 0.774 -> 0.781 (H100), 0.801 -> 0.811 (H200), log error
    # variance ~10 % lower.
    assert summ["tau_mean"] > off["tau_mean"] + 0.004 and summ["log_err_var"] < 0.95 * off["log_err_var"]
    if before is not None:
        # The ranking of every launch (tau, log error) is what the refit bought; the pick ties (f8a65b6's constants
        # 0.974 / tau 0.685 / log error variance 0.103 against 0.974 / 0.755 / 0.051 with the TMA stage floor).
        assert summ["tau_mean"] > before["tau_mean"] + 0.03 and summ["log_err_var"] < 0.8 * before["log_err_var"]
        assert summ["a_bf_geomean"] > before["a_bf_geomean"] - 0.005


def test_installed_model_on_the_mid_m_validation_set():
    """Offline A/BF of the installed model on gen-mid-valid (issue 11's M ~ 300 class, which gen-valid's token counts
    skip; H200 brute force of the fortieth session, never read by a fit): 0.986 / min 0.85 / tau 0.822 when it was
    measured (reports/nvidia-h200/gen-mid-valid.md; its training twin gen-mid-train 0.979 / 0.77 / 0.816), thresholds
    with a little slack. A refit of the split-K constants on gen-mid-train did not move it and lowered both gen-valid
    sets (benchmarks/results/model_fit_split_mid_not_adopted.md)."""
    raw = ROOT / "reports" / "nvidia-h200" / "raw" / "gen-mid-valid" / "rotate"
    if not raw.is_dir():
        pytest.skip(f"no raw measurements at {raw}")
    with _fit_model_with_kernel_table() as fm:
        s = fm.Suite("gen-mid-valid", raw)
        summ = fm.evaluate(s, _core.resolve_hardware(None, "H200", ""), list(s.kernel_resources().values()),
                           None)["summary"]
    assert not s.stale_sizes and summ["sizes"] == 40 and summ["unmeasured_picks"] == 0
    assert summ["a_bf_geomean"] >= 0.98 and summ["a_bf_min"] >= 0.82 and summ["tau_mean"] >= 0.81


def test_fit_suite_counts_the_split_launches_whose_records_carry_no_resources(tmp_path):
    # The brute force's second pass (the splits of the fastest unsplit kernels) writes no kernel resources into its
    # records; the offline evaluation must still count those launches (their kernel's resources come from its other
    # records): leaving them out made BF too slow and the offline A/BF too kind (H100 gen-valid 9856 of 26793 split
    # launches had none, 2026-11-26).
    import json
    from origami_nv.bench import configs as C
    fm = _fit_model()
    info = {"M": 8, "N": 512, "K": 2048, "dtype": "bfloat16", "batch": 1, "layout": "nt"}
    res = {"threads": 256, "registers_per_thread": 96, "smem_bytes": 200000, "arch": "sm_90a"}
    base = {"block_m": 64, "block_n": 48, "block_k": 64, "group_size_m": 12, "stages": 8, "warps": 8,
            "family": "wgmma"}
    recs = [{"kind": "config", "system": "origami", "size": "s", "size_info": info, "status": "ok", "time_s": 6.5e-6,
             "config": dict(base, split_k=1), "resources": res, "t": 1.0, "kernel_version": C.KERNEL_VERSION},
            {"kind": "config", "system": "origami", "size": "s", "size_info": info, "status": "ok", "time_s": 4.8e-6,
             "config": dict(base, split_k=4), "t": 2.0, "bf_pass": "split-K of the fastest unsplit kernels",
             "kernel_version": C.KERNEL_VERSION, "split_k_reduction": C.SPLIT_K_REDUCTION_VERSION}]
    (tmp_path / "shard-0-of-1-20261126T000000Z-1.jsonl").write_text("".join(json.dumps(r) + "\n" for r in recs))
    s = fm.Suite("t", tmp_path)
    kernels = s.sizes["s"]["kernels"]
    assert len(kernels) == 2 and min(t for t, _, _ in kernels.values()) == pytest.approx(4.8e-6)
    assert len(s.newest_resources) == 1  # the kernel's resources, from the record that has them


def test_lone_warp_issue_replaces_the_copy_floor_for_warps_alone_on_their_sub_partition():
    """A one-warp mma.sync CTA per SM (decode): its k-iteration is its own serial issue, k-steps x the k-step chain
    plus the stage's warp-wide loads (NvModelConstants::mma_sync_lone_warp_k_step_cycles), and the per-warp copy floor
    is not taken; an 8-warp CTA keeps the copy floor and has no lone-warp term."""
    hw = _core.resolve_hardware(None, "H100_SXM", "")
    o = _core.ModelOptions("nv")
    nv = o.nv

    def pred(bm, bn, bk, stages, warps, opts=o):
        tc = _core.TileConfig(bm, bn, bk, group_size_m=8, stages=stages, warps=warps, family="mma_sync")
        return _core.predict(1, 3584, 14336, "bfloat16", tc, hw, opts, layout="nt")

    b = pred(16, 16, 512, 3, 1)
    # 32 k-steps of a 16x16 warp tile (2 HMMA, faster than the chain) and (16 + 16) x 512 x 2 B = 64 warp loads
    expect = 32 * nv.mma_sync_lone_warp_k_step_cycles + 64 * nv.mma_sync_lone_warp_cycles_per_warp_load
    assert b["lone_warp_cycles"] == pytest.approx(expect)
    assert b["copy_throttle_cycles"] == 0 and b["memory_bound"] == "lone-warp issue"
    short = pred(16, 64, 64, 6, 1)  # BLOCK_K <= 64: the short-K factor
    expect = (4 * nv.mma_sync_lone_warp_k_step_cycles + 20 * nv.mma_sync_lone_warp_cycles_per_warp_load) * \
        nv.mma_sync_lone_warp_short_k_factor
    assert short["lone_warp_cycles"] == pytest.approx(expect)
    wide = pred(128, 128, 32, 4, 8)
    assert wide["lone_warp_cycles"] == 0
    off = _core.ModelOptions("nv")
    c = off.nv
    c.mma_sync_lone_warp_k_step_cycles = 0.0
    off.nv = c
    b_off = pred(16, 16, 512, 3, 1, off)
    assert b_off["lone_warp_cycles"] == 0 and b_off["copy_throttle_cycles"] > 0


def test_diagnose_buckets_launches_by_split_count_and_waves():
    fm = _fit_model()
    assert [fm._split_bucket(s) for s in (1, 2, 3, 4, 6, 7, 12, 13, 40)] == \
        ["unsplit", "split 2-3", "split 2-3", "split 4-6", "split 4-6", "split 7-12", "split 7-12", "split 13+",
         "split 13+"]
    assert fm._wave_bucket(40, 132) == "1 wave, < 1/3 of the SMs"
    assert fm._wave_bucket(44, 132) == fm._wave_bucket(132, 132) == "1 wave, >= 1/3 of the SMs"
    assert fm._wave_bucket(133, 132) == fm._wave_bucket(264, 132) == "1-2 waves"
    assert fm._wave_bucket(500, 132) == "2-4 waves" and fm._wave_bucket(529, 132) == "> 4 waves"
    table = fm._table("t", {("row", "a"): [0.1, 0.3], ("row", "b"): [-0.2]}, ["a", "b", "c"])
    assert table[-2] == "| row | +0.200 (2) | -0.200 (1) |  |"


def test_discordance_counts_the_pairs_ordered_against_the_measurement_by_class_pair():
    fm = _fit_model()
    # launch 2 predicted fastest and measured third; 3 tied in prediction with 0 and measured slowest
    pred = [10.0, 20.0, 5.0, 10.0]
    meas = [1.0, 2.0, 3.0, 4.0]
    labels = ["wgmma whole", "wgmma split", "mma_sync whole", "wgmma whole"]
    disc, total = fm.discordant_pairs(pred, meas, labels)
    # pairs: (0,1) concordant, (0,2) discordant, (0,3) tied, (1,2) discordant, (1,3) discordant, (2,3) concordant
    assert total == {("wgmma split", "wgmma whole"): 2, ("mma_sync whole", "wgmma whole"): 2,
                     ("mma_sync whole", "wgmma split"): 1}
    assert disc == {("mma_sync whole", "wgmma whole"): 1, ("mma_sync whole", "wgmma split"): 1,
                    ("wgmma split", "wgmma whole"): 1}
    assert fm._launch_class(("wgmma ab", 160, 128, 64, 6, 12, 2)) == "wgmma ab split"
    assert fm._launch_class(("mma_sync", 16, 16, 64, 6, 1)) == "mma_sync whole"
