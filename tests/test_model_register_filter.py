"""The register-pressure / shared-memory filter and the occupancy arithmetic (CUDA occupancy
calculator rules, cuda_occupancy.h) on synthetic KernelResources; nv-mode selection over them."""
import math
import pytest

from origami_nv import _core


@pytest.fixture(scope="module")
def h100():
    return _core.resolve_hardware(None, "H100_SXM", "")


def kr(bm=128, bn=128, bk=64, stages=3, warps=8, regs=128, smem=0, spill_st=0, spill_ld=0, local=0,
       family="mma_sync", dtype="float16", threads=None):
    cfg = _core.TileConfig(bm, bn, bk, 1, stages, warps, family)
    return _core.KernelResources(cfg, dtype=dtype, threads=threads or 32 * warps, registers_per_thread=regs,
                                 spill_store_bytes=spill_st, spill_load_bytes=spill_ld, local_bytes=local,
                                 smem_bytes=smem, arch="sm_90", source="ptxas")


# Hand-computed on sm_90 (65,536 regs = 4 sub-partitions x 16,384; 2,048 threads; 32 blocks;
# 233,472 B smem per SM; +1 KB reserved per block; 128 B smem unit; 256-register warp unit).
@pytest.mark.parametrize("threads,regs,smem,expect", [
    # 128 regs x 32 = 4096/warp -> 16384/4096 = 4 warps per sub-partition -> 16 warps -> 2 blocks of 8 warps
    (256, 128, 0, dict(by_registers=2, by_threads=8, blocks=2, limiter="registers")),
    # 168 x 32 = 5376 (21 units) -> 3 warps/sub-partition -> 12 warps -> 3 blocks of 4 warps;
    # smem (98304 + 1024) = 99328 -> 233472 // 99328 = 2 blocks
    (128, 168, 98304, dict(by_registers=3, by_shared_memory=2, blocks=2, limiter="shared memory",
                           shared_memory_per_block=99328)),
    # 255 x 32 = 8160 -> 8192 -> 2 warps/sub-partition -> 8 warps -> 1 block of 8 warps
    (256, 255, 0, dict(by_registers=1, blocks=1, registers_per_block=8 * 8192)),
    # 12 warps x 8192 = 98304 > 65536: cannot launch
    (384, 255, 0, dict(by_registers=0, blocks=0)),
    # 1024 threads x 64 regs: 2048/warp -> 8 warps/sub-partition -> 32 warps -> 1 block; threads 2048/1024 = 2
    (1024, 64, 0, dict(by_registers=1, by_threads=2, blocks=1)),
    # 3 warps x 80 regs: 2560/warp -> 6 warps/sub-partition -> 24 warps -> 8 blocks; threads 2048 // 96 = 21
    (96, 80, 0, dict(by_registers=8, by_threads=21, blocks=8)),
    # exactly the per-block opt-in maximum: 232448 + 1024 = 233472 -> 1 block
    (256, 64, 232448, dict(by_shared_memory=1, blocks=1, shared_memory_per_block=233472)),
    # tiny blocks: the 32-blocks-per-SM limit
    (32, 32, 0, dict(by_block_limit=32, blocks=32, limiter="blocks")),
])
def test_blocks_per_sm_hand_computed(h100, threads, regs, smem, expect):
    got = _core.blocks_per_sm(kr(threads=threads, regs=regs, smem=smem), h100)
    for k, v in expect.items():
        assert got[k] == v, (k, got)


def test_admissible_kernel_has_no_reason(h100):
    assert _core.kernel_exclusion_reason(kr(regs=168, smem=98304), h100) == ""


@pytest.mark.parametrize("res,phrase", [
    (dict(spill_st=96, spill_ld=64), "spills registers: 96 B spill stores, 64 B spill loads"),
    (dict(local=32), "local memory: 32 B"),
    (dict(smem=232449), "shared memory 232449 B > 232448 B"),
    (dict(threads=1056, warps=33), "threads per block"),
    (dict(threads=384, warps=12, regs=255), "registers: 255/thread x 384 threads"),
])
def test_exclusion_reasons(h100, res, phrase):
    assert phrase in _core.kernel_exclusion_reason(kr(**res), h100)


def _nv_selector(h100, kernels):
    return _core.Selector(h100, kernels, _core.ModelOptions("nv"))


def test_spilling_kernel_is_never_chosen(h100):
    big = kr(256, 256, 64, stages=3, regs=255, smem=3 * (256 * 64 + 64 * 256) * 2, spill_st=512, spill_ld=512)
    good = kr(128, 128, 64, stages=4, regs=168, smem=4 * (128 * 64 + 64 * 128) * 2)
    # without its spill the big tile would win (more reuse per byte) ...
    clean_big = kr(256, 256, 64, stages=3, regs=255, smem=3 * (256 * 64 + 64 * 256) * 2)
    sel_clean = _nv_selector(h100, [clean_big, good]).selection(8192, 8192, 8192, "float16", None)
    assert (sel_clean["config"].block_m, sel_clean["config"].block_n) == (256, 256)
    # ... with it, it is excluded and the reason is shown
    s = _nv_selector(h100, [big, good])
    sel = s.selection(8192, 8192, 8192, "float16", None)
    assert (sel["config"].block_m, sel["config"].block_n, sel["config"].stages) == (128, 128, 4)
    # one admissible kernel (the rest of the ranking: its split-K launches, a launch-time choice)
    assert {(c.block_m, c.block_n, c.block_k) for c, _ in sel["ranking"]} == {(128, 128, 64)}
    (cfg, why), = sel["excluded"]
    assert (cfg.block_m, cfg.block_n) == (256, 256) and "spills registers" in why


def test_too_big_smem_excluded_and_dtype_separated(h100):
    huge = kr(256, 128, 128, stages=4, regs=200, smem=4 * (256 * 128 + 128 * 128) * 2)
    ok16 = kr(128, 128, 64, stages=4, regs=168, smem=65536)
    ok_bf = kr(64, 64, 64, stages=4, regs=96, smem=32768, dtype="bfloat16")
    s = _nv_selector(h100, [huge, ok16, ok_bf])
    assert s.candidate_count("float16") == 1 and s.candidate_count("bfloat16") == 1
    (cfg, why), = s.excluded("float16")
    assert "shared memory" in why and f"{huge.smem_bytes} B" in why
    assert s.select_config(4096, 4096, 4096, "bfloat16").block_m == 64
    assert not s.abstract_space


def test_nv_occupancy_uses_real_blocks_per_sm(h100):
    a = kr(64, 64, 32, stages=2, warps=4, regs=80, smem=2 * (64 * 32 + 32 * 64) * 2)
    o = _core.ModelOptions("nv")
    d = _core.predict(8192, 8192, 4096, "float16", a.config, h100, o, a)
    expect = _core.blocks_per_sm(a, h100)["blocks"]
    assert d["blocks_per_sm"] == expect > 1
    assert d["num_waves"] == -(-d["total_tiles"] // (132 * expect))
    assert d["concurrent_tiles"] == 132 * expect


def test_nv_family_throughput(h100):
    o = _core.ModelOptions("nv")
    ms = kr(128, 256, 64, stages=4, warps=8, regs=232, smem=4 * (128 * 64 + 64 * 256) * 2)
    wg = kr(128, 256, 64, stages=4, warps=12, regs=168, smem=4 * (128 * 64 + 64 * 256) * 2, family="wgmma")
    dm = _core.predict(8192, 8192, 8192, "float16", ms.config, h100, o, ms)
    dw = _core.predict(8192, 8192, 8192, "float16", wg.config, h100, o, wg)
    flops = 2 * 128 * 256 * 64
    ms_rate, wg_rate = h100.get("mma_sync_flops_per_cycle"), h100.get("wgmma_flops_per_cycle")
    # mma.sync: the tensor issue rate or the SM's shared memory (every warp's ldmatrix fragments + the cp.async
    # stage, model.hpp mma_sync_smem_efficiency), whichever is slower
    issue = flops / (ms_rate * o.nv.mma_sync_issue_efficiency)
    assert dm["smem_cycles"] > 0
    assert dm["compute_cycles"] == pytest.approx(max(issue, dm["smem_cycles"]))
    assert dm["compute_limiter"] == ("shared memory" if dm["smem_cycles"] > issue else "tensor issue")
    assert dw["compute_cycles"] == pytest.approx(flops / (wg_rate * o.nv.wgmma_issue_efficiency))
    # Both families ranked when every compiled kernel is a candidate; by default (ModelOptions::
    # mma_sync_dominated_by_wgmma) a 128-row mma.sync tile is left to wgmma on a GPU that has it, with the reason.
    every = _core.ModelOptions("nv")
    every.mma_sync_dominated_by_wgmma = False
    sel = _core.Selector(h100, [ms, wg], every).selection(8192, 8192, 8192, "float16", None)
    assert set(sel["best_by_family"]) == {"mma_sync", "wgmma"}
    sel = _nv_selector(h100, [ms, wg]).selection(8192, 8192, 8192, "float16", None)
    assert set(sel["best_by_family"]) == {"wgmma"}
    (cfg, why), = sel["excluded"]
    assert cfg.family == ms.config.family and "wgmma family covers it" in why
    # The rule's scope: K at least the wgmma kernels' BLOCK_K. Below it every wgmma k-tile is mostly zero fill, so
    # the left-out tiles rank again (selector.cpp, Selector::Impl::short_k), with the count explain prints.
    ms16 = kr(128, 128, 16, stages=6, warps=8, regs=152, smem=6 * (128 * 16 + 16 * 128) * 2)
    wg64 = kr(128, 128, 64, stages=6, warps=12, regs=168, smem=6 * (128 * 64 + 64 * 128) * 2, family="wgmma")
    narrow = _nv_selector(h100, [ms16, wg64])
    assert narrow.candidate_count("float16") == 1 and narrow.candidate_count("float16", K=64) == 1
    assert narrow.candidate_count("float16", K=63) == 2
    for K, families in ((16, {"mma_sync", "wgmma"}), (64, {"wgmma"}), (4096, {"wgmma"})):
        sel = narrow.selection(512, 4096, K, "float16", None)
        assert set(sel["best_by_family"]) == families, K
        assert len(sel["excluded"]) == (0 if K < 64 else 1)
        ranked = {c.family for c, _ in narrow.rank(512, 4096, K, "float16")}
        assert ranked == families
    # at K = 16 the 16-deep tile does a quarter of the wgmma tile's tensor work and the model sees it
    assert narrow.select_config(512, 4096, 16, "float16").family == "mma_sync"
    # Without an admissible wgmma kernel (the family needs sm_90a) the mma.sync tile stays a candidate.
    rtx = _core.resolve_hardware(None, "RTX_3090", "")
    small_ms = kr(64, 64, 64, stages=3, warps=4, regs=96, smem=3 * (64 * 64 * 2) * 2)
    small_wg = kr(64, 64, 64, stages=3, warps=8, regs=96, smem=3 * (64 * 64 * 2) * 2, family="wgmma")
    sel = _nv_selector(rtx, [small_ms, small_wg]).selection(4096, 4096, 4096, "float16", None)
    assert set(sel["best_by_family"]) == {"mma_sync"}
    assert [why for _, why in sel["excluded"]] == [_core.kernel_exclusion_reason(small_wg, rtx)]


def test_stages_overlap_and_latency_bound(h100):
    o = _core.ModelOptions("nv")
    one = kr(64, 64, 64, stages=1, warps=4, regs=96, smem=(64 * 64 * 2) * 2)
    three = kr(64, 64, 64, stages=3, warps=4, regs=96, smem=3 * (64 * 64 * 2) * 2)
    d1 = _core.predict(4096, 4096, 4096, "float16", one.config, h100, o, one)
    d3 = _core.predict(4096, 4096, 4096, "float16", three.config, h100, o, three)
    # one stage: no overlap (compute + memory); latency cannot be spread over later iterations
    assert d1["steady_cycles"] == pytest.approx(d1["compute_cycles"] + d1["memory_cycles"])
    for d, stages in ((d1, 1), (d3, 3)):
        latency = d["l2_hit_rate"] * h100.get("l2_latency_cycles") + (1 - d["l2_hit_rate"]) * h100.get("hbm_latency_penalty")
        # a stage is issued by the block's warps (cp.async), then travels the latency; the warps of
        # all blocks resident on the SM share at most mma_sync_load_issue_warps_per_sm warps' rate
        resident = math.ceil(d["concurrent_tiles"] / d["active_sms"])
        warps = min(4 * resident, o.nv.mma_sync_load_issue_warps_per_sm) / resident
        issue = (64 + 64) * 64 * 2 / (warps * o.nv.mma_sync_warp_load_bytes_per_cycle)
        assert d["load_issue_cycles"] == pytest.approx(issue)
        assert d["latency_bound_cycles"] == pytest.approx((latency + issue) / max(1, stages - 1))


def test_triton_raster_footprint_matches_brute_force():
    import random

    rng = random.Random(7)
    for _ in range(300):
        gm, gn = rng.randint(1, 40), rng.randint(1, 40)
        g = rng.choice([1, 2, 3, 4, 5, 6, 8, 16])
        first = rng.randrange(gm * gn)
        last = rng.randint(first + 1, gm * gn)
        rows, cols = set(), set()
        for pid in range(first, last):
            per_group = g * gn
            fm = (pid // per_group) * g
            gsm = min(gm - fm, g)
            rows.add(fm + (pid % per_group) % gsm)
            cols.add((pid % per_group) // gsm)
        assert _core.triton_raster_footprint(gm, gn, g, first, last) == (len(rows), len(cols)), (gm, gn, g, first, last)


def test_nv_abstract_fallback_estimates_registers(h100):
    s = _core.Selector(h100, [], _core.ModelOptions("nv"))
    assert s.abstract_space
    reasons = {(c.block_m, c.block_n, c.block_k): why for c, why in s.excluded("float16")}
    assert "estimated" in reasons[(256, 256, 16)] and "registers" in reasons[(256, 256, 16)]
    assert "shared memory" in reasons[(128, 128, 512)]


def test_cache_returns_same_selection_and_bad_problem(h100):
    s = _core.Selector(h100, [], _core.ModelOptions("seed"))
    assert s.cache_size() == 0
    a = s.select_config(1000, 2000, 3000, "float16")
    assert s.cache_size() == 1
    assert s.select_config(1000, 2000, 3000, "float16") == a and s.cache_size() == 1
    s.select_config(1000, 2000, 3000, "bfloat16")
    assert s.cache_size() == 2
    s.clear_cache()
    assert s.cache_size() == 0
    for bad in [(0, 1, 1), (1, -4, 1), (1, 1, 0)]:
        with pytest.raises(ValueError, match="must be a positive integer"):
            s.select_config(*bad, "float16")


def test_cache_is_thread_safe(h100):
    import threading

    s = _core.Selector(h100, [], _core.ModelOptions("nv"))
    shapes = [(64 * i, 128 * j, 4096) for i in range(1, 9) for j in range(1, 9)]
    results = {}

    def work(tid):
        results[tid] = [s.select_config(*sh, "float16") for sh in shapes]

    threads = [threading.Thread(target=work, args=(t,)) for t in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert all(results[t] == results[0] for t in results)
    assert s.cache_size() == len(shapes)


def test_cold_selections_reuse_no_state_between_problems(h100):
    # The selector's per-thread scratch buffers (selector.cpp) are reused by every cold selection: a selection
    # must not depend on the ones before it. Picks (splits included) from one selector over a sequence of
    # shapes, threads interleaving, equal those of a fresh selector per shape.
    import threading

    kernels = [kr(bm, bn, 64, stages=4, warps=w, regs=128, smem=4 * (bm + bn) * 64 * 2 + 1024,
                  family="wgmma" if w >= 8 else "mma_sync")
               for bm, bn, w in ((64, 128, 8), (128, 128, 12), (128, 256, 12), (16, 64, 4), (64, 64, 4))]
    kernels.append(kr(256, 256, 64, stages=4, warps=8, regs=128, smem=300_000))  # excluded: shared memory
    shapes = [(1, 4096, 4096), (4096, 4096, 4096), (128, 14336, 4096), (1, 2048, 14336), (333, 4096, 12289),
              (64, 64, 64), (768, 768, 65536), (8192, 128, 4096)]
    fresh = {sh: _core.Selector(h100, kernels, _core.ModelOptions("nv")).select_config(*sh, "float16")
             for sh in shapes}
    assert any(c.split_k > 1 for c in fresh.values()) and any(c.split_k == 1 for c in fresh.values())
    shared = _core.Selector(h100, kernels, _core.ModelOptions("nv"))
    out = {}

    def work(tid):
        order = shapes[tid:] + shapes[:tid]
        out[tid] = {sh: shared.select_config(*sh, "float16") for sh in order}

    threads = [threading.Thread(target=work, args=(t,)) for t in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for got in out.values():
        assert got == fresh
    # The selection's exclusion list is the selector's own (no copy per selection).
    sel = shared.selection(64, 64, 64, "float16")
    reasons = [why for _, why in sel["excluded"]]
    assert len(reasons) == 2 and any("shared memory" in r for r in reasons)
    assert any("wgmma family covers it" in r for r in reasons)  # the 64-row mma.sync tile
    assert reasons == [why for _, why in shared.excluded("float16")]


def test_wgmma_excluded_below_sm90():
    rtx = _core.resolve_hardware(None, "RTX_3090", "")
    assert rtx.get("compute_capability") == 86
    wg = kr(128, 128, 64, stages=4, warps=12, regs=168, smem=65536, family="wgmma")
    assert "wgmma needs sm_90a" in _core.kernel_exclusion_reason(wg, rtx)
    assert _core.kernel_exclusion_reason(wg, _core.resolve_hardware(None, "H200", "")) == ""
