"""Kendall tau-b, ranks, ratios and the config spelling of the benchmark harness (no GPU)."""
import math
import random

import pytest

from origami_nv.bench import configs as C
from origami_nv.bench import stats
from origami_nv.bench.suites import SUITES, Size, get_suite, llama3_projections, parse_shard, shard_sizes


def test_tau_perfect_and_reversed():
    assert stats.kendall_tau_b([1, 2, 3, 4, 5], [10, 20, 30, 40, 50]) == pytest.approx(1.0)
    assert stats.kendall_tau_b([1, 2, 3, 4, 5], [5, 4, 3, 2, 1]) == pytest.approx(-1.0)


def test_tau_one_swap():
    # 6 pairs, one discordant: (5 - 1) / 6
    assert stats.kendall_tau_b([1, 2, 3, 4], [1, 3, 2, 4]) == pytest.approx(4 / 6)


def test_tau_b_with_ties_by_hand():
    # pairs: (12)+ (13)+ (14)+ (23) tie in x, (24)+ (34) tie in y -> S = 4, n0 = 6, n1 = n2 = 1
    assert stats.kendall_tau_b([1, 2, 2, 3], [1, 2, 3, 3]) == pytest.approx(4 / math.sqrt(5 * 5))
    # tie in both variables of the same pair: counted in n1 and n2, S = 5
    assert stats.kendall_tau_b([1, 2, 2, 3], [1, 2, 2, 3]) == pytest.approx(1.0)
    # tau-a would give 4/6 here; tau-b corrects for the ties
    x, y = [1, 1, 2, 3], [1, 2, 3, 4]
    assert stats.kendall_tau_b(x, y) == pytest.approx(5 / math.sqrt(5 * 6))


def test_tau_undefined_and_errors():
    assert math.isnan(stats.kendall_tau_b([1], [1]))
    assert math.isnan(stats.kendall_tau_b([1, 1, 1], [1, 2, 3]))
    with pytest.raises(ValueError, match="equal length"):
        stats.kendall_tau_b([1, 2], [1, 2, 3])
    with pytest.raises(ValueError, match="nan"):
        stats.kendall_tau_b([1, float("nan")], [1, 2])


def test_tau_matches_scipy_with_ties():
    scipy_stats = pytest.importorskip("scipy.stats")
    rng = random.Random(1)
    for n in (2, 7, 50, 300):
        x = [rng.randint(0, 9) for _ in range(n)]           # many ties
        y = [xi * 0.5 + rng.gauss(0, 2) for xi in x]
        y = [round(v, 1) for v in y]
        want = scipy_stats.kendalltau(x, y, variant="b").statistic
        got = stats.kendall_tau_b(x, y)
        if math.isnan(want):
            assert math.isnan(got)
        else:
            assert got == pytest.approx(want, abs=1e-12)


def test_rank_tflops_ratio_geomean():
    assert stats.rank_of(3.0, [5.0, 3.0, 1.0, 3.0]) == 2   # ties share the best rank
    assert stats.rank_of(0.5, [1.0, 2.0]) == 1
    assert stats.tflops(4096, 4096, 4096, 1e-3) == pytest.approx(2 * 4096**3 / 1e-3 / 1e12)
    assert stats.tflops(10, 10, 10, 0.0) == 0.0
    assert stats.ratio(1.0, 2.0) == 0.5
    assert math.isnan(stats.ratio(1.0, 0.0)) and math.isnan(stats.ratio(None, 1.0))
    assert stats.geomean([1.0, 4.0, 0.0, float("nan")]) == pytest.approx(2.0)   # zeros are failures
    assert stats.median([3.0, None, 1.0, 2.0]) == 2.0
    assert stats.relative_error(1.5, 1.0) == pytest.approx(0.5)
    assert stats.quartiles([1, 2, 3, 4, 5]) == (2.0, 3.0, 4.0)


def test_config_normalize_spellings():
    want = {"block_m": 128, "block_n": 64, "block_k": 32, "group_size_m": 8, "stages": 4, "warps": 4,
            "family": "mma_sync", "split_k": 1}
    assert C.normalize([128, 64, 32, 8, 4, 4, 0]) == want                   # select_config's list (7 ints)
    assert C.normalize([128, 64, 32, 8, 4, 4, 0, 1]) == want                # ... with split_k (8 ints)
    split = C.normalize([128, 64, 32, 8, 4, 4, 1, 3])
    assert split["split_k"] == 3 and split["family"] == "wgmma"
    assert C.config_id(split) == "wgmma 128x64x32 s4 w4 g8 sk3" and C.kernel_id(split) == "wgmma 128x64x32 s4 w4 sk3"
    assert C.compiled_kernel_id(split) == "wgmma 128x64x32 s4 w4"
    assert C.normalize([128, 64, 32, 8, 4, 4, "mma_sync"]) == want
    # select_config's full list ends with swap_ab: a swapped pick keeps its kernel's identity (H100 gen-mid-valid,
    # 2026-12-06: the runner timed a 96x128 ab pick through the op, recorded it unswapped, then asked matmul_config for
    # an unswapped 96x128 that was never compiled)
    assert C.normalize([128, 64, 32, 8, 4, 4, 1, 1, 0]) == dict(want, family="wgmma")
    swapped = C.normalize([96, 128, 64, 4, 7, 12, 1, 1, 1])
    assert swapped["swap_ab"] is True and C.kernel_id(swapped) == "wgmma 96x128x64 s7 w12 ab"
    assert C.normalize(dict(want, family="Family.MmaSync")) == want
    assert C.normalize({"config": want, "dtype": "float16"}) == want        # a kernels() dict

    class Obj:
        block_m, block_n, block_k, group_size_m, stages, warps, family = 128, 64, 32, 8, 4, 4, 1
    assert C.normalize(Obj())["family"] == "wgmma"
    assert C.config_id(want) == "mma_sync 128x64x32 s4 w4 g8"
    assert C.kernel_id(want) == "mma_sync 128x64x32 s4 w4"
    with pytest.raises(ValueError):
        C.normalize({"block_m": 1})


def test_suites_shapes_and_shards():
    assert len(SUITES["seed"].sizes) == 23 and SUITES["seed"].sizes[-1].key == "8192x53248x16384-float16"
    assert all(s.dtype == "bfloat16" for s in SUITES["seed-bf16"].sizes)
    # Llama-3-8B: q and o coincide (4096x4096) -> merged; kv fused = 2*8*128
    p8 = dict((name, (n, k)) for name, n, k in llama3_projections("llama3-8b"))
    assert p8 == {"q,o": (4096, 4096), "kv": (2048, 4096), "gate/up": (14336, 4096), "down": (4096, 14336)}
    p70 = dict((name, (n, k)) for name, n, k in llama3_projections("llama3-70b"))
    assert p70["down"] == (8192, 28672) and p70["kv"] == (2048, 8192)
    assert len(SUITES["llm"].sizes) == 2 * 4 * 5
    assert all(s.M % 16 or s.N % 16 or s.K % 16 or s.M % 128 or s.N % 128 for s in SUITES["odd"].sizes)
    for n in (1, 2, 3, 5):
        parts = [shard_sizes(SUITES["seed"].sizes, (i, n)) for i in range(n)]
        keys = [s.key for p in parts for s in p]
        assert sorted(keys) == sorted(s.key for s in SUITES["seed"].sizes)   # a partition
        assert len(set(keys)) == len(keys)
    with pytest.raises(ValueError, match="0 <= i < n"):
        parse_shard("2/2")
    with pytest.raises(ValueError, match="i/n"):
        parse_shard("half")
    assert parse_shard(None) == (0, 1)
    with pytest.raises(ValueError, match="unknown suite"):
        get_suite("nope")
    with pytest.raises(ValueError):
        Size(0, 1, 1)


def test_seed_space_from_config_space_def():
    from pathlib import Path

    from origami_nv.bench import seed_triton
    text = (Path(__file__).resolve().parents[1] / "cpp" / "model" / "config_space.def").read_text()
    sp = seed_triton.parse_config_space(text)
    assert len(sp["BLOCK_M"]) * len(sp["BLOCK_N"]) * len(sp["BLOCK_K"]) == 150      # seed 000, 5 x 5 x 6
    assert sorted(seed_triton.seed_tile_space()) == sorted(
        (m, n, k) for m in sp["BLOCK_M"] for n in sp["BLOCK_N"] for k in sp["BLOCK_K"])
    cfg = seed_triton.as_seed_config({"block_m": 64, "block_n": 32, "block_k": 128, "group_size_m": 4})
    assert (cfg["stages"], cfg["warps"], cfg["family"]) == (2, 8, "triton")       # seed 000, Appendix C.2
    with pytest.raises(ValueError, match="BLOCK_K"):
        seed_triton.parse_config_space("ORIGAMI_BLOCK_M(16)\nORIGAMI_BLOCK_N(16)\n")


def test_timing_spread_is_the_interquartile_range_over_the_median():
    from origami_nv.bench.stats import MAX_SPREAD, spread
    quiet = [10.0, 10.01, 10.02, 10.0, 9.99, 10.01, 10.0]
    assert spread(quiet) < 0.01 < MAX_SPREAD
    q1, med, q3 = stats.quartiles([7.7, 13.6, 17.7, 21.2, 23.1, 25.0, 29.4])
    assert spread([7.7, 13.6, 17.7, 21.2, 23.1, 25.0, 29.4]) == (q3 - q1) / med > MAX_SPREAD  # re-measured
    assert spread([0.0, 0.0, 0.0]) == 0.0
