"""The realigning mma.sync kernels (issue 13) without a GPU: which tiles the generator gives them and how, and how the
model and the kernel table treat them. The kernels themselves: tests/test_realign_gpu.py.

A realigning variant (KernelEntry::realign, the `_ra` kernels) reads operands whose base pointer, leading dimension
or batch stride is only element-aligned in place; the aligned kernels need the op to copy such an operand first.
"""
import json
import os
import pathlib

import pytest

from conftest import kernel_family
from origami_nv import _api, _core, _kernels

REPO = pathlib.Path(__file__).resolve().parents[1]
SPACE = REPO / "cpp" / "model" / "config_space.def"

# The rule of cpp/kernels/families/mma_sync.py, spelled out: BLOCK_M in {16, 32, 64}, BLOCK_N in {16, 32, 64, 128},
# at most 4 warps, BLOCK_K 64 or 32 where 64 would exceed 16 copy chunks per thread per k-tile.
EXPECTED_TILES = {(16, 16, 64), (16, 32, 64), (16, 64, 32), (16, 128, 32), (32, 16, 64), (32, 32, 64), (32, 64, 64),
                  (32, 128, 64), (64, 16, 32), (64, 32, 64), (64, 64, 64)}


@pytest.fixture(scope="module")
def generated():
    gen, fam = kernel_family("mma_sync")
    specs, _ = fam.specializations(gen.parse_config_space(str(SPACE)))
    return gen, fam, specs


def _kernels_of(specs):
    return [k for s in specs for k in s["kernels"]]


def test_generator_rule_tiles_and_count(generated):
    _, fam, specs = generated
    ra = [k for k in _kernels_of(specs) if k["realign"]]
    tiles = {(k["block_m"], k["block_n"], k["block_k"]) for k in ra}
    assert tiles == EXPECTED_TILES
    assert len(ra) == 66  # 11 tiles x 2 dtypes x 3 layouts
    # the stale-record rule of the benchmark data (kernel change 10) names the same tiles
    from origami_nv.bench import configs
    assert configs._REALIGN_TILES == tiles
    info = {"M": 127, "N": 129, "K": 130, "dtype": "float16", "layout": "nn"}
    assert configs._mma_sync_realigned(info, {"family": "mma_sync", "block_m": 16, "block_n": 16, "block_k": 64})
    assert not configs._mma_sync_realigned(info, {"family": "mma_sync", "block_m": 16, "block_n": 16, "block_k": 128})
    assert not configs._mma_sync_realigned(dict(info, K=128, N=128), {"family": "mma_sync", "block_m": 16,
                                                                       "block_n": 16, "block_k": 64})
    for bm, bn, bk in EXPECTED_TILES:
        assert fam.realign_tile(bm, bn, bk) and fam.realign_block_k(bm, bn) == bk
        warps = fam.choose_warps(bm, bn)[0]
        assert warps <= fam.REALIGN_MAX_WARPS
        assert sum(fam.copy_iterations(bm, bn, bk, warps)) <= fam.REALIGN_MAX_COPY_CHUNKS
    # the rule's exclusions: 8 warps (64x128), a 256 side, a depth other than the chosen one
    assert fam.realign_block_k(64, 128) is None and fam.realign_block_k(128, 16) is None
    assert not fam.realign_tile(16, 16, 32) and not fam.realign_tile(16, 64, 64)


def test_generator_realign_kernels_mirror_their_aligned_twin(generated):
    _, fam, specs = generated
    for spec in specs:
        ks = spec["kernels"]
        ra = [k for k in ks if k["realign"]]
        if not ra:
            continue
        al = [k for k in ks if not k["realign"]]
        # aligned kernels first in the TU (and so in the registry): the op keeps the first variant on a tie
        assert ks.index(ra[0]) == len(al) == 6 and len(ra) == 6
        twins = {(k["dtype"], k["a_k_contiguous"], k["b_k_contiguous"]): k for k in al}
        for k in ra:
            t = twins[(k["dtype"], k["a_k_contiguous"], k["b_k_contiguous"])]
            assert k["name"] == t["name"] + fam.REALIGN_SUFFIX and k["name"].endswith("_ra")
            assert k["alignment_elems"] == 1 and t["alignment_elems"] == 8
            for f in ("block_m", "block_n", "block_k", "stages", "warps", "warps_m", "warps_n", "threads",
                      "smem_bytes", "min_blocks_per_sm", "double_frags", "min_cc"):
                assert k[f] == t[f], (k["name"], f)
            assert k["stages"] >= 3  # the kernel's static_assert: the last copy group is stored after the barrier
        text = fam.tu_text(spec)
        assert text.count(", true>;") == 6  # REALIGN = true: the template's last argument
        assert all(f"{k['name']}(origami::mma_sync::Params p)" in text for k in ra)


def test_every_non_realign_kernel_keeps_its_name_and_alignment(generated):
    _, fam, specs = generated
    al = [k for k in _kernels_of(specs) if not k["realign"]]
    sixteen = [k for k in al if k["dtype"] != "tfloat32"]
    assert len(sixteen) == 732 and all(k["alignment_elems"] == 8 and not k["name"].endswith("_ra") for k in sixteen)
    # the 5 mma.sync tf32 kernels (families/mma_sync.py TF32_TILES): 16 bytes = 4 fp32
    tf32 = [k for k in al if k["dtype"] == "tfloat32"]
    assert len(tf32) == len(fam.TF32_TILES) and all(k["alignment_elems"] == 4 for k in tf32)


def test_generate_registers_and_lists_realign(tmp_path):
    gen, _ = kernel_family("mma_sync")
    assert gen.main(["--space", str(SPACE), "--out", str(tmp_path), "--filter", "16x16x64_s6_w1_fp16_kn"]) == 0
    tu = (tmp_path / "mma_sync_16x16x64.cu").read_text()
    assert "e.realign = true;" in tu and "e.realign = false;" in tu
    assert "e.alignment_elems = 1;" in tu
    man = json.loads((tmp_path / "manifest.json").read_text())
    by = {k["name"]: k for k in man["kernels"]}
    assert by["origami_mma_sync_16x16x64_s6_w1_fp16_kn_ra"]["realign"] is True
    assert by["origami_mma_sync_16x16x64_s6_w1_fp16_kn"]["realign"] is False


# ---- the kernel table and the model --------------------------------------------------------------------------
def _record(bm, bn, bk, stages, warps, a_k, b_k, regs, realign=False, spill=0, dtype="float16"):
    name = f"origami_mma_sync_{bm}x{bn}x{bk}_s{stages}_w{warps}_fp16_{'k' if a_k else 'm'}{'k' if b_k else 'n'}"
    return {"name": name + ("_ra" if realign else ""), "family": "mma_sync", "dtype": dtype, "arch": "sm_90",
            "config": {"block_m": bm, "block_n": bn, "block_k": bk, "stages": stages, "warps": warps,
                       "family": "mma_sync"},
            "a_k_contiguous": a_k, "b_k_contiguous": b_k, "threads": 32 * warps,
            "smem_bytes": stages * (bm + bn) * bk * 2, "registers_per_thread": regs, "local_bytes": spill,
            "spill_store_bytes": spill, "spill_load_bytes": spill, "source": "ptxas", "realign": realign,
            "alignment_elems": 1 if realign else 8}


LAYOUTS = [(True, False), (True, True), (False, False)]


def _table(realign_regs=198, spill_layout=None):
    recs = []
    for a_k, b_k in LAYOUTS:
        recs.append(_record(16, 16, 64, 6, 1, a_k, b_k, 90))
        recs.append(_record(16, 16, 64, 6, 1, a_k, b_k, realign_regs, realign=True,
                            spill=8 if (a_k, b_k) == spill_layout else 0))
        recs.append(_record(128, 128, 32, 4, 8, a_k, b_k, 128))  # no realigning variant
    return recs


def test_merge_marks_realign_layouts_and_keeps_aligned_resources():
    lb = _kernels.layout_bit
    merged = {(r["config"]["block_m"], r["config"]["block_n"]): r for r in _kernels.merge_kernel_records(_table())}
    small, big = merged[(16, 16)], merged[(128, 128)]
    assert small["layouts"] == small["realign_layouts"] == lb(True, False) | lb(True, True) | lb(False, False)
    assert small["registers_per_thread"] == 90  # the realigning kernels' 198 do not change aligned predictions
    assert big["realign_layouts"] == 0
    # a realigning kernel that spills is not offered (the register filter's rule)
    m = {(r["config"]["block_m"]): r for r in _kernels.merge_kernel_records(_table(spill_layout=(True, True)))}
    assert m[16]["realign_layouts"] == lb(True, False) | lb(False, False) and m[16]["spill_store_bytes"] == 0
    # switched off: as if there were none
    off = {(r["config"]["block_m"]): r for r in _kernels.merge_kernel_records(_table(), realign=False)}
    assert off[16]["realign_layouts"] == 0
    assert {k: v for k, v in off[16].items() if k != "realign_layouts"} == \
        {k: v for k, v in small.items() if k != "realign_layouts"}


def test_env_switch_and_records(monkeypatch):
    table = {"kernels": _table(), "excluded": []}
    monkeypatch.setattr(_kernels, "_table", lambda: table)
    assert all("realign" in r for r in _kernels.kernel_records())
    monkeypatch.delenv("ORIGAMI_NV_REALIGN", raising=False)
    on = _kernels.compiled_kernel_resources("float16")
    monkeypatch.setenv("ORIGAMI_NV_REALIGN", "0")
    off = _kernels.compiled_kernel_resources("float16")
    assert any(r["realign_layouts"] for r in on) and not any(r["realign_layouts"] for r in off)


@pytest.fixture(scope="module")
def h100():
    return _core.resolve_hardware(None, "H100_SXM", "")


def _kr(bm, bn, bk, stages, warps, regs, realign_layouts):
    cfg = _core.TileConfig(bm, bn, bk, group_size_m=1, stages=stages, warps=warps, family="mma_sync")
    return cfg, _core.KernelResources(cfg, dtype="float16", threads=32 * warps, registers_per_thread=regs,
                                      smem_bytes=stages * (bm + bn) * bk * 2, arch="sm_90", source="test",
                                      layouts=0b0111, realign_layouts=realign_layouts)


def _predict(hw, M, N, K, cfg, kr, layout="nn", a_aligned=True, b_aligned=True, mode="nv", batch=1, **nv):
    o = _core.ModelOptions(mode)
    c = o.nv
    for k, v in nv.items():
        setattr(c, k, v)
    o.nv = c
    return _core.predict(M, N, K, "float16", cfg, hw, o, kr, batch=batch, layout=layout, a_aligned=a_aligned,
                         b_aligned=b_aligned)


def test_misaligned_problem_with_a_realigning_kernel_has_no_copy_charge(h100):
    cfg, with_ra = _kr(16, 16, 64, 6, 1, 90, 0b0111)
    _, without = _kr(16, 16, 64, 6, 1, 90, 0)
    for layout, (a_al, b_al) in (("nn", (True, False)), ("nn", (False, True)), ("nt", (True, False)),
                                 ("tn", (False, False))):
        ra = _predict(h100, 1, 4097, 4099, cfg, with_ra, layout, a_al, b_al)
        cp = _predict(h100, 1, 4097, 4099, cfg, without, layout, a_al, b_al)
        assert ra["operand_copy_bytes"] == 0 and ra["operand_copy_cycles"] == 0 and ra["realign_read"]
        assert ra["realign_a"] == (not a_al) and ra["realign_b"] == (not b_al)
        assert cp["operand_copy_bytes"] > 0 and not cp["realign_read"]
        assert "misaligned" in cp["operand_copy_reason"]
        # the launch itself: the aligned kernel's terms, except that its loads keep one k-tile in flight (Little's
        # law with depth 1, not stages - 1 = 5; 8 chunks per thread: one group) and issue at realign_load_factor (2)
        # times a cp.async's cost
        latency = cp["latency_bound_cycles"] * (6 - 1) - cp["load_issue_cycles"]
        assert ra["load_issue_cycles"] == pytest.approx(2.0 * cp["load_issue_cycles"])
        assert ra["latency_bound_cycles"] == pytest.approx(latency + ra["load_issue_cycles"])
        assert ra["memory_cycles"] >= ra["latency_bound_cycles"] > cp["latency_bound_cycles"]
    # a tile whose copy is 12 chunks per thread (16x32x64, one warp: 4 of A, 8 of B) loads them in two groups of
    # registers, one memory round trip each (gemm_mma_sync.cuh kRealignGroups)
    cfg2, with2 = _kr(16, 32, 64, 6, 1, 128, 0b0111)
    _, without2 = _kr(16, 32, 64, 6, 1, 128, 0)
    ra2 = _predict(h100, 1, 4097, 4099, cfg2, with2, "nn", True, False)
    cp2 = _predict(h100, 1, 4097, 4099, cfg2, without2, "nn", True, False)
    latency2 = cp2["latency_bound_cycles"] * (6 - 1) - cp2["load_issue_cycles"]
    assert ra["realign_groups"] == 1 and ra2["realign_groups"] == 2
    assert ra2["latency_bound_cycles"] == pytest.approx(2 * latency2 + ra2["load_issue_cycles"])
    # "tt" has no kernel of either kind: the cheapest copy (a transposing one) stays, whatever realigns
    tt = _predict(h100, 64, 4097, 4099, cfg, with_ra, "tt", False, False)
    assert tt["operand_copy_bytes"] > 0


def test_realign_load_factor_scales_the_load_issue_of_realigning_launches_only(h100):
    assert _core.ModelOptions("nv").nv.realign_load_factor == 2.0  # two 16-byte loads per chunk (model.hpp)
    cfg, kr = _kr(16, 32, 64, 6, 1, 128, 0b0111)
    one = _predict(h100, 8, 4097, 4099, cfg, kr, b_aligned=False, realign_load_factor=1.0)
    three = _predict(h100, 8, 4097, 4099, cfg, kr, b_aligned=False, realign_load_factor=3.0)
    assert one["load_issue_cycles"] > 0 and three["load_issue_cycles"] == pytest.approx(3.0 * one["load_issue_cycles"])
    assert three["latency_bound_cycles"] - one["latency_bound_cycles"] == pytest.approx(2.0 * one["load_issue_cycles"])
    assert three["total_cycles"] > one["total_cycles"]
    # a split launch: the tail phase's loads too (here the whole launch is the split tail)
    split_cfg = _core.TileConfig(16, 32, 64, group_size_m=1, stages=6, warps=1, family="mma_sync", split_k=4)
    s1 = _predict(h100, 1, 512, 8191, split_cfg, kr, b_aligned=False, realign_load_factor=1.0)
    s3 = _predict(h100, 1, 512, 8191, split_cfg, kr, b_aligned=False, realign_load_factor=3.0)
    assert s1["split_slices"] > 1 and s3["load_issue_cycles"] == pytest.approx(3.0 * s1["load_issue_cycles"])
    # an aligned problem never runs the realigning kernel: the factor does not touch it
    al1 = _predict(h100, 8, 4096, 4096, cfg, kr, realign_load_factor=1.0)
    al3 = _predict(h100, 8, 4096, 4096, cfg, kr, realign_load_factor=3.0)
    assert al1 == al3 and not al1["realign_read"]


PROBLEMS = [(1, 4096, 4096, "nn", 1), (127, 129, 130, "nt", 1), (333, 4099, 4096, "tn", 1), (17, 33, 45, "nn", 3),
            (2048, 2048, 512, "tt", 1), (1, 1024, 16384, "nt", 1)]


@pytest.mark.parametrize("mode", ["nv", "seed"])
def test_aligned_problems_are_predicted_bit_for_bit_as_without_realigning_kernels(h100, mode):
    for bm, bn, bk, stages, warps, regs in ((16, 16, 64, 6, 1, 90), (64, 64, 64, 4, 4, 142)):
        for split in (1, 3):
            cfg = _core.TileConfig(bm, bn, bk, group_size_m=1, stages=stages, warps=warps, family="mma_sync",
                                   split_k=split)
            _, with_ra = _kr(bm, bn, bk, stages, warps, regs, 0b0111)
            _, without = _kr(bm, bn, bk, stages, warps, regs, 0)
            for M, N, K, layout, batch in PROBLEMS:
                a = _predict(h100, M, N, K, cfg, with_ra, layout, mode=mode, batch=batch)
                b = _predict(h100, M, N, K, cfg, without, layout, mode=mode, batch=batch)
                assert a == b, (mode, bm, bn, split, M, N, K, layout)  # every term, exactly
                assert not a.get("realign_read")


def test_seed_mode_ignores_realigning_kernels(h100):
    cfg, with_ra = _kr(16, 16, 64, 6, 1, 90, 0b0111)
    _, without = _kr(16, 16, 64, 6, 1, 90, 0)
    a = _predict(h100, 1, 4097, 4099, cfg, with_ra, "nn", True, False, mode="seed")
    b = _predict(h100, 1, 4097, 4099, cfg, without, "nn", True, False, mode="seed")
    assert a == b and not a["realign_read"]


def _table_with_realign_twins():
    """The committed H100 build's kernel table plus a realigning twin of each aligned kernel of the generator's
    realign tiles (same resources: enough for the model, which reads only their layouts)."""
    table = json.loads((REPO / "reports" / "kernel_resources_sm90.json").read_text())
    _, fam = kernel_family("mma_sync")
    extra = []
    for r in table["kernels"]:
        c = r["config"]
        if r["family"] == "mma_sync" and fam.realign_tile(c["block_m"], c["block_n"], c["block_k"]):
            extra.append(dict(r, name=r["name"] + "_ra", realign=True, alignment_elems=1))
    assert extra
    return dict(table, kernels=table["kernels"] + extra)


def test_select_and_explain_read_a_misaligned_decode_operand_in_place(monkeypatch):
    if not (REPO / "reports" / "kernel_resources_sm90.json").exists():
        pytest.skip("no committed kernel table in this checkout")
    table = _table_with_realign_twins()
    monkeypatch.setattr(_kernels, "_table", lambda: table)
    monkeypatch.delenv("ORIGAMI_NV_REALIGN", raising=False)
    _api.clear_caches()
    try:
        import origami_nv
        # a small problem with both operands misaligned: two copy launches would cost more than the GEMM (the H100
        # probe, benchmarks/results/probes/probe_realign_h100.txt: 6.4 us in place, 8.9 through the copies)
        e = origami_nv.explain(127, 129, 130, gpu="H100_SXM", a_aligned=False, b_aligned=False)
        b = e.to_dict()["breakdown"]
        assert e.config.family == "mma_sync" and b["realign_read"] and b["realign_b"] and b["realign_a"]
        assert b["operand_copy_bytes"] == 0
        text = str(e)
        assert "read in place by a realigning kernel" in text and "realign_load_factor" in text
        # the aligned problem: nothing about it
        plain = origami_nv.explain(127, 129, 130, gpu="H100_SXM")
        assert not plain.to_dict()["breakdown"]["realign_read"] and "realigning kernel" not in str(plain)
        # a long decode GEMV keeps the copy: the realigning loads keep one k-tile in flight, too few for 4099 of K
        dec = origami_nv.explain(1, 4097, 4099, gpu="H100_SXM", a_aligned=True, b_aligned=False)
        assert not dec.to_dict()["breakdown"]["realign_read"] and dec.to_dict()["breakdown"]["operand_copy_bytes"] > 0
        # switched off, the same misaligned problem pays the copy again
        monkeypatch.setenv("ORIGAMI_NV_REALIGN", "0")
        _api.clear_caches()
        off = origami_nv.explain(127, 129, 130, gpu="H100_SXM", a_aligned=False, b_aligned=False)
        bo = off.to_dict()["breakdown"]
        assert not bo["realign_read"] and (bo["operand_copy_bytes"] > 0 or off.config.family != "mma_sync")
    finally:
        _api.clear_caches()


def test_ops_documents_the_switch():
    import origami_nv.ops as ops
    assert "ORIGAMI_NV_REALIGN=0" in ops.matmul.__doc__
    assert "ORIGAMI_NV_REALIGN=0" in (REPO / "README.md").read_text()
    assert "ORIGAMI_NV_REALIGN" in (REPO / "cpp" / "ops" / "ops_cuda.cpp").read_text()
    assert os.path.exists(REPO / "cpp" / "kernels" / "realign.cuh")
