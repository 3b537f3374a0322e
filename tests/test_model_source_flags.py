"""ModelOptions source flags: each switches one seed formula to the Origami C++ source's behaviour
(/work/shared/ANCHORS.md section 3) and changes exactly what it should."""
import math

import pytest

from origami_nv import _core

P4096 = (4096, 4096, 4096, "float16")


@pytest.fixture(scope="module")
def hw():
    return _core.resolve_hardware(None, "RTX_3090", "")


def opts(**flags):
    o = _core.ModelOptions("seed")
    for k, v in flags.items():
        setattr(o.source, k, v)
    return o


def test_flags_default_off_and_settable_in_place():
    o = _core.ModelOptions("seed")
    assert not o.source.integer_mma_latency
    o.source.integer_mma_latency = True
    assert o.source.integer_mma_latency


def test_flag1_l2_hit_min_global_reuse(hw):
    shape = (8192, 53248, 16384, "float16")
    c = _core.TileConfig(256, 256, 64, 10)
    seed = _core.predict(*shape, c, hw, opts())
    assert seed["l2_global_cap_applied"] and seed["l2_hit_rate"] == 0.5  # working set > 6 MB
    src = _core.predict(*shape, c, hw, opts(l2_hit_min_global_reuse=True))
    assert src["l2_hit_rate"] == pytest.approx(min(src["l2_local_hit_rate"], src["l2_global_reuse_rate"]))
    assert src["l2_hit_rate"] != 0.5 and not src["l2_global_cap_applied"]


def test_flag2_round_contiguous_dim(hw):
    for bk, factor in ((16, 4), (32, 2), (64, 1)):
        c = _core.TileConfig(128, 128, bk, 10)
        seed = _core.predict(*P4096, c, hw, opts())
        src = _core.predict(*P4096, c, hw, opts(round_contiguous_dim_128b=True))
        assert seed["load_a_bytes"] == 128 * bk * 2
        assert src["load_a_bytes"] == factor * seed["load_a_bytes"]
        assert src["load_b_bytes"] == factor * seed["load_b_bytes"]


def test_flag3_dram_floor_at_supergroup_unique_bytes(hw):
    c = _core.TileConfig(128, 128, 128, 10)
    seed = _core.predict(*P4096, c, hw, opts())
    src = _core.predict(*P4096, c, hw, opts(dram_floor_supergroup_unique_bytes=True))
    unique = (9 * 128 + 10 * 128) * 128 * 2
    assert seed["dram_load_bytes"] < unique
    assert src["dram_load_bytes"] == unique
    assert src["dram_cycles"] == pytest.approx(unique / 439.2 + 500)
    # no 128-byte per-SM floor: a 16x16x16 tile loads 1 KB either way, but the floor is gone
    tiny = _core.predict(16, 16, 16, "float16", _core.TileConfig(16, 16, 16, 10), hw,
                         opts(dram_floor_supergroup_unique_bytes=True))
    assert tiny["per_sm_load_bytes"] == 1024


def test_flag4_quadratic_dram_bandwidth(tmp_path):
    f = tmp_path / "q.json"  # fixed coefficients, whatever the calibrated table says
    f.write_text('{"dram_bw_coeff": 0.025, "dram_bw_c0": -0.000625, "dram_bw_c1": 0.05, "dram_bw_c2": 0}')
    h100 = _core.resolve_hardware(None, "H100_SXM", str(f))
    c = _core.TileConfig(256, 256, 64, 12)
    shape = (1024, 1280, 4096, "float16")  # 4 x 5 = 20 tiles -> 20 active SMs
    lin = _core.predict(*shape, c, h100, opts())
    quad = _core.predict(*shape, c, h100, opts(quadratic_dram_bandwidth=True))
    assert lin["active_sms"] == 20
    assert lin["dram_bw_fraction"] == pytest.approx(0.025 * 20)
    assert quad["dram_bw_fraction"] == pytest.approx(-0.000625 * 400 + 0.05 * 20)
    big = _core.predict(8192, 8192, 8192, "float16", c, h100, opts(quadratic_dram_bandwidth=True))
    assert big["dram_bw_fraction"] == pytest.approx(1.0)  # held at the vertex (saturation)


def test_flag5_k_pad_in_epilogue(hw):
    c = _core.TileConfig(128, 128, 128, 10)
    shape = (4096, 4096, 4100, "float16")
    seed = _core.predict(*shape, c, hw, opts())
    src = _core.predict(*shape, c, hw, opts(k_pad_in_epilogue=True))
    k_pad = 4 / 4100 * 50000
    assert seed["k_pad_penalty_cycles"] == pytest.approx(k_pad)
    assert src["tile_cycles"] - seed["tile_cycles"] == pytest.approx(k_pad)  # counted twice instead of once


def test_flag6_integer_mma_latency(hw):
    c = _core.TileConfig(128, 128, 128, 10)
    seed = _core.predict(*P4096, c, hw, opts())
    src = _core.predict(*P4096, c, hw, opts(integer_mma_latency=True))
    assert seed["mma_issue_cycles"] == 8.25 and src["mma_issue_cycles"] == 8.0
    assert src["compute_cycles"] == 8192


def test_flag7_supergroup_follows_triton_rows(hw):
    c = _core.TileConfig(128, 128, 128, 10)
    seed = _core.predict(*P4096, c, hw, opts())
    rows = _core.predict(*P4096, c, hw, opts(l2_supergroup_triton_rows=True))
    assert (seed["l2_tile_m"], seed["l2_tile_n"]) == (9, 10)
    assert (rows["l2_tile_m"], rows["l2_tile_n"]) == (10, 9)
    # on a wide grid the orientation matters: 1 x 112 tiles
    shape = (128, 14336, 4096, "float16")
    c2 = _core.TileConfig(128, 128, 128, 10)
    a = _core.predict(*shape, c2, hw, opts())
    b = _core.predict(*shape, c2, hw, opts(l2_supergroup_triton_rows=True))
    assert (b["l2_tile_m"], b["l2_tile_n"]) == (1, 82)
    assert a["l2_tile_m"] == 1 and a["l2_hit_rate"] != b["l2_hit_rate"] or a["l2_tile_n"] != b["l2_tile_n"]


def _brute_cost(grid_m, grid_n, g, first, last, bm, bn):
    rows, cols = set(), set()
    for pid in range(first, min(last, grid_m * grid_n)):
        per_group = g * grid_n
        group = pid // per_group
        first_m = group * g
        gsm = min(grid_m - first_m, g)
        rows.add(first_m + (pid % per_group) % gsm)
        cols.add((pid % per_group) // gsm)
    return len(rows) * bm + len(cols) * bn


def test_flag8_phase2_all_waves(hw):
    s_seed = _core.Selector(hw, [], opts())
    s_src = _core.Selector(hw, [], opts(phase2_all_waves=True))
    a = s_seed.selection(*P4096, 1)
    b = s_src.selection(*P4096, 1)
    for (g, cost_a), (g2, cost_b) in zip(a["group_size_m_costs"], b["group_size_m_costs"]):
        assert g == g2
        assert cost_a == _brute_cost(32, 32, g, 0, 82, 128, 128)
        assert cost_b == sum(_brute_cost(32, 32, g, w, w + 82, 128, 128) for w in range(0, 1024, 82))
    # grid dimension of 1: the source's shortcut gives GROUP_SIZE_M = 1 with a single cost entry
    one = s_src.selection(64, 16384, 4096, "float16", 1)
    assert one["breakdown"]["grid_m"] == 1
    assert one["config"].group_size_m == 1 and len(one["group_size_m_costs"]) == 1
