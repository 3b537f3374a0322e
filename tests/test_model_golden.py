"""Golden tests of seed mode: the seed's Appendix A worked example (every listed figure) and the
"Config" column of its table 7.2 (23 sizes, RTX 3090 parameters of Appendix A)."""
import math

import pytest

from origami_nv import _core


@pytest.fixture(scope="module")
def seed_3090():
    hw = _core.resolve_hardware(None, "RTX_3090", "")  # no override file: the table row exactly
    return _core.Selector(hw, [], _core.ModelOptions("seed"))


def test_appendix_a_every_figure(seed_3090):
    sel = seed_3090.selection(4096, 4096, 4096, "float16", 5)
    b = sel["breakdown"]
    c = sel["config"]
    assert seed_3090.candidate_count("float16") == 122
    assert (c.block_m, c.block_n, c.block_k) == (128, 128, 128)
    assert abs(b["total_cycles"] - 4_044_272) <= 2
    assert b["n_mma"] == 1024
    assert b["mma_issue_cycles"] == pytest.approx(8.25)
    assert b["compute_cycles"] == pytest.approx(8448)
    assert (b["grid_m"], b["grid_n"]) == (32, 32)
    assert b["total_tiles"] == 1024 and b["active_sms"] == 82
    assert b["num_waves"] == 13
    assert sel["phase1_group_size_m"] == math.ceil(math.sqrt(82)) == 10
    assert round(b["l2_hit_rate"], 3) == 0.894
    assert b["working_set_bytes"] == 2_097_152 and not b["l2_global_cap_applied"]
    assert b["load_a_bytes"] == 32_768 and b["load_b_bytes"] == 32_768
    assert b["per_sm_load_bytes"] == 65_536 and b["total_load_bytes"] == 5_373_952
    assert round(b["l2_cycles"]) == 4234
    assert round(b["dram_load_bytes"]) == 567_250
    assert round(b["dram_cycles"]) == 1792
    assert round(b["memory_cycles"]) == 4234
    assert b["utilization"] == 1.0 and b["penalty"] == 1.0
    assert round(b["prologue_cycles"]) == 6034
    assert b["output_bytes"] == 2_686_976
    assert round(b["epilogue_cycles"]) == 13838
    assert b["num_iter"] == 31 and b["k_pad_penalty_cycles"] == 0
    assert b["steady_cycles"] == pytest.approx(8448) and b["bound"] == "compute"
    assert b["loop_overhead_cycles"] == 15_500 and b["setup_cycles"] == 1
    assert round(b["tile_cycles"]) == 311_098
    assert c.group_size_m == 8
    assert (c.stages, c.warps, c.family) == (2, 8, "mma_sync")


# Seed 000, table 7.2, "Config" column: (M, N, K) -> (BLOCK_M, BLOCK_N, BLOCK_K, GROUP_SIZE_M).
TABLE_7_2 = [
    ((64, 64, 64), (16, 16, 32, 1)),
    ((128, 128, 128), (16, 16, 64, 1)),
    ((256, 256, 256), (32, 32, 128, 1)),
    ((512, 512, 512), (64, 64, 64, 1)),
    ((1024, 1024, 1024), (128, 128, 64, 1)),
    ((2048, 2048, 2048), (256, 256, 64, 1)),
    ((128, 4096, 4096), (64, 128, 128, 1)),
    ((128, 4096, 14336), (64, 128, 256, 1)),
    ((128, 14336, 4096), (64, 128, 128, 2)),
    ((64, 16384, 4096), (64, 256, 128, 1)),
    ((128, 8192, 4096), (128, 128, 128, 1)),
    ((8192, 128, 4096), (128, 128, 128, 1)),
    ((16384, 64, 4096), (256, 64, 128, 1)),
    ((128, 8192, 8192), (128, 128, 128, 1)),
    ((128, 8192, 28672), (128, 128, 128, 1)),
    ((128, 28672, 8192), (128, 128, 128, 1)),
    ((4096, 4096, 4096), (128, 128, 128, 8)),
    ((4096, 4096, 14336), (64, 128, 256, 16)),
    ((4096, 14336, 4096), (256, 256, 64, 8)),
    ((8192, 8192, 8192), (128, 256, 128, 16)),
    ((8192, 14336, 4096), (256, 256, 64, 8)),
    ((8192, 28672, 8192), (256, 256, 64, 8)),
    ((8192, 53248, 16384), (256, 256, 64, 8)),
]


@pytest.mark.parametrize("shape,expected", TABLE_7_2, ids=[f"{m}x{n}x{k}" for (m, n, k), _ in TABLE_7_2])
def test_table_7_2_config_column(seed_3090, shape, expected):
    c = seed_3090.select_config(*shape, "float16")
    assert (c.block_m, c.block_n, c.block_k, c.group_size_m) == expected


def test_seed_mode_dtype_is_a_parameter(seed_3090):
    # bf16 has the same element size: same pick and cycles; the cache keeps the two apart.
    a = seed_3090.selection(4096, 4096, 4096, "float16", 1)
    b = seed_3090.selection(4096, 4096, 4096, "bfloat16", 1)
    assert a["config"] == b["config"]
    assert a["breakdown"]["total_cycles"] == b["breakdown"]["total_cycles"]


def test_predict_matches_selector_and_group_size_changes_l2(seed_3090):
    hw = seed_3090.hardware
    o = _core.ModelOptions("seed")
    d10 = _core.predict(4096, 4096, 4096, "float16", _core.TileConfig(128, 128, 128, 10), hw, o)
    assert abs(d10["total_cycles"] - 4_044_272) <= 2
    d1 = _core.predict(4096, 4096, 4096, "float16", _core.TileConfig(128, 128, 128, 1), hw, o)
    # WGM=1: 82 tiles in one column wrap twice over grid_M=32 -> a 32 x 3 super-group, less reuse
    assert (d1["l2_tile_m"], d1["l2_tile_n"]) == (32, 3)
    assert (d10["l2_tile_m"], d10["l2_tile_n"]) == (9, 10)
    assert d1["l2_hit_rate"] == pytest.approx(1 - (32 + 3) / (2 * 32 * 3))
    assert d1["dram_load_bytes"] > d10["dram_load_bytes"]


# /work/shared/ANCHORS.md section 2: the seed's model run on an H200 with parameters derived from
# the device (l2 2717, dram 2125 bytes/cycle, dram_bw_coeff 1/40, latency 500): its "seed pick"
# column. A second, independent check of seed mode (other SM count, L2 and shared memory).
ANCHORS_H200_SEED_PICKS = [
    ((64, 64, 64), (16, 16, 32)), ((128, 128, 128), (16, 16, 64)), ((256, 256, 256), (16, 32, 128)),
    ((512, 512, 512), (32, 64, 128)), ((1024, 1024, 1024), (64, 128, 128)), ((2048, 2048, 2048), (128, 256, 64)),
    ((128, 4096, 4096), (64, 64, 256)), ((128, 4096, 14336), (64, 64, 512)), ((128, 14336, 4096), (128, 128, 128)),
    ((64, 16384, 4096), (64, 128, 256)), ((128, 8192, 4096), (64, 128, 256)), ((8192, 128, 4096), (64, 128, 256)),
    ((16384, 64, 4096), (128, 64, 256)), ((128, 8192, 8192), (64, 128, 256)), ((128, 8192, 28672), (64, 128, 512)),
    ((128, 28672, 8192), (64, 64, 256)), ((4096, 4096, 4096), (256, 256, 64)), ((4096, 4096, 14336), (256, 256, 128)),
    ((4096, 14336, 4096), (256, 256, 64)), ((8192, 8192, 8192), (256, 256, 128)), ((8192, 14336, 4096), (256, 256, 64)),
    ((8192, 28672, 8192), (128, 256, 128)), ((8192, 53248, 16384), (256, 256, 128)),
]


def test_anchors_h200_seed_picks(tmp_path):
    f = tmp_path / "h200_seed_derived.json"
    f.write_text('{"l2_perf_ratio": 2717, "dram_perf_ratio": 2125, "dram_bw_coeff": 0.025, '
                 '"hbm_latency_penalty": 500, "mma_latency": 33, "meta": {"from": "ANCHORS.md section 2"}}')
    hw = _core.resolve_hardware(None, "H200", str(f))
    s = _core.Selector(hw, [], _core.ModelOptions("seed"))
    got = [((M, N, K), tuple(getattr(s.select_config(M, N, K, "float16"), a) for a in ("block_m", "block_n", "block_k")))
           for (M, N, K), _ in ANCHORS_H200_SEED_PICKS]
    assert got == ANCHORS_H200_SEED_PICKS
