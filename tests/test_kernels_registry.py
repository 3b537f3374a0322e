"""The build's kernel table (data/kernel_resources.json from the ptxas reports) without a GPU: every
config the generator lists is present with sane resources, and the real selector filters on them."""
import json
import os
import re

import pytest

import origami_nv
from conftest import kernel_family
from origami_nv import _kernels

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
build = json.load(open(os.path.join(os.path.dirname(origami_nv.__file__), "data", "build_info.json")))
pytestmark = pytest.mark.skipif(not build.get("cuda"), reason="built without CUDA: no compiled kernels")


def _family_module():
    return kernel_family("mma_sync")


def test_every_generated_mma_sync_kernel_has_a_ptxas_record():
    gen, fam = _family_module()
    space = gen.parse_config_space(os.path.join(REPO, "cpp", "model", "config_space.def"))
    specs, excluded = fam.specializations(space)
    table = _kernels.kernel_records()
    flt = json.load(open(os.path.join(os.path.dirname(origami_nv.__file__), "data",
                                      "kernel_resources.json"))).get("filter", "")
    names = {r["name"] for r in table if r["source"] == "ptxas"}
    wanted = {k["name"] for s in specs for k in s["kernels"] if not flt or re.search(flt, k["name"])}
    assert wanted and wanted <= names, sorted(wanted - names)[:5]
    # the space minus the exclusions is exactly what was generated (no silent holes)
    tiles = {(bm, bn, bk) for bm in space["BLOCK_M"] for bn in space["BLOCK_N"] for bk in space["BLOCK_K"]}
    gen_tiles = {(s["kernels"][0]["block_m"], s["kernels"][0]["block_n"], s["kernels"][0]["block_k"]) for s in specs}
    assert gen_tiles | {tuple(t) for t, _ in excluded} == tiles
    for t, why in excluded:
        assert "shared memory" in why or "warp layout" in why


def test_records_are_sane():
    recs = [r for r in _kernels.kernel_records() if r["family"] == "mma_sync"]
    assert recs
    for r in recs:
        c = r["config"]
        assert r["threads"] == 32 * c["warps"]
        assert 16 <= r["registers_per_thread"] <= 255
        assert r["spill_store_bytes"] >= 0 and r["spill_load_bytes"] >= 0 and r["local_bytes"] >= 0
        eb = 4 if r["dtype"] == "tfloat32" else 2
        assert r["smem_bytes"] >= c["stages"] * (c["block_m"] + c["block_n"]) * c["block_k"] * eb
        assert r["smem_bytes"] <= 232448
        assert re.fullmatch(r"sm_\d+a?", r["arch"]) and r["source"] == "ptxas"
        assert r["name"].startswith(f"origami_mma_sync_{c['block_m']}x{c['block_n']}x{c['block_k']}_s{c['stages']}")
    # three operand layouts (KN, KK, MN; MK is served by a copy) and both 16-bit dtypes per config; the tfloat32
    # kernels of families/mma_sync.py TF32_TILES K-contiguous only (no ldmatrix.trans for 32-bit elements)
    _, fam = _family_module()
    per = {}
    for r in recs:
        c = r["config"]
        per.setdefault((c["block_m"], c["block_n"], c["block_k"]), set()).add(
            (r["dtype"], r["a_k_contiguous"], r["b_k_contiguous"]))
    sixteen = {(d, a, b) for d in ("float16", "bfloat16") for a, b in ((True, False), (True, True), (False, False))}
    for (bm, bn, bk), v in per.items():
        tf32 = (bm, bn) in fam.TF32_TILES and bk == fam.TF32_BLOCK_K
        assert v == sixteen | ({("tfloat32", True, True)} if tf32 else set()), (bm, bn, bk)
    tf32_recs = [r for r in recs if r["dtype"] == "tfloat32"]
    assert all(r["alignment_elems"] == 4 and r["name"].endswith("_tf32_kk") for r in tf32_recs)


def test_compiled_kernel_resources_worst_over_layouts():
    res = _kernels.compiled_kernel_resources("float16", "sm_90")
    assert res
    fields = {"config", "dtype", "threads", "registers_per_thread", "spill_store_bytes", "spill_load_bytes",
              "local_bytes", "smem_bytes", "arch", "source", "layouts", "realign_layouts", "multicast_layouts",
              "ping_pong_layouts"}
    recs = _kernels.kernel_records()
    for r in res:
        assert set(r) == fields
        # (+ swap_ab, true, on the swapped-operand wgmma kernels' configs only)
        assert set(r["config"]) - {"swap_ab"} == {"block_m", "block_n", "block_k", "stages", "warps", "family"}
        assert r["config"].get("swap_ab", True) is True
        same = [x for x in recs if x["config"] == r["config"] and x["dtype"] == "float16"
                and x["arch"].startswith("sm_90")]
        aligned = [x for x in same if not x["realign"] and not x["multicast"]]
        # the resources are the aligned variants' (an aligned problem never runs a realigning one)
        assert r["registers_per_thread"] == max(x["registers_per_thread"] for x in aligned)
        assert r["spill_store_bytes"] == max(x["spill_store_bytes"] for x in aligned)
        # the compiled operand layouts as a mask (cpp/model/types.hpp layout_bit)
        assert r["layouts"] == sum({_kernels.layout_bit(x["a_k_contiguous"], x["b_k_contiguous"]) for x in aligned})
        # ...and those with a realigning variant (no spill, no local memory: every compiled one, see below)
        assert r["realign_layouts"] == (sum({_kernels.layout_bit(x["a_k_contiguous"], x["b_k_contiguous"])
                                             for x in same if x["realign"]}) if _kernels.realign_enabled() else 0)
        # ...and those with a 2-CTA multicast twin (KernelEntry::multicast; none spills)
        assert r["multicast_layouts"] == (sum({_kernels.layout_bit(x["a_k_contiguous"], x["b_k_contiguous"])
                                               for x in same if x["multicast"]}) if _kernels.multicast_enabled() else 0)
        # ...and those whose kernel has a ping-pong schedule (KernelEntry::ping_pong_kernel; compiled without spill)
        assert r["ping_pong_layouts"] == (sum({_kernels.layout_bit(x["a_k_contiguous"], x["b_k_contiguous"])
                                               for x in aligned if x.get("pingpong")})
                                          if _kernels.ping_pong_enabled() else 0)
    assert _kernels.compiled_kernel_resources("bf16") and _kernels.compiled_kernel_resources("fp16")
    assert (any(r["realign_layouts"] for r in res) or not _kernels.realign_enabled()
            or not any(x["realign"] for x in recs))


def test_realign_kernels_in_the_table_fit_their_registers():
    """Every realigning (`_ra`) kernel of the build is in the ptxas table and runs without spill or local memory
    (the kernel's copy groups are sized for that: gemm_mma_sync.cuh REALIGN "Grouping"), with alignment_elems 1;
    each has its aligned twin."""
    recs = _kernels.kernel_records()
    ra = [r for r in recs if r["realign"]]
    if not ra:
        pytest.skip("no realigning kernel in this build (kernel filter)")
    names = {r["name"] for r in recs}
    for r in ra:
        assert r["name"].endswith("_ra") and r["name"][:-3] in names, r["name"]
        assert r["spill_store_bytes"] == r["spill_load_bytes"] == r["local_bytes"] == 0, r["name"]
        assert r["alignment_elems"] == 1 and r["family"] == "mma_sync"
    assert _kernels.compiled_kernel_resources("float16", arch="sm_75") == []
    with pytest.raises(ValueError, match="supported: float16, bfloat16, float32"):
        _kernels.compiled_kernel_resources("float64")


def test_selector_filters_on_the_build_table():
    """The real selector (origami_nv.select/explain over the compiled kernels) never picks a spilling
    kernel, and every pick is a compiled config."""
    res = _kernels.compiled_kernel_resources("float16", "sm_90")
    spilling = {tuple(r["config"][k] for k in ("block_m", "block_n", "block_k", "stages", "warps"))
                for r in res if r["spill_store_bytes"] > 0}
    compiled = {tuple(r["config"][k] for k in ("block_m", "block_n", "block_k", "stages", "warps")) for r in res}
    for M, N, K in [(8192, 8192, 8192), (4096, 4096, 4096), (128, 4096, 4096), (1, 1, 1), (1000, 7, 129)]:
        try:
            pick = origami_nv.select(M, N, K, dtype="float16")
        except Exception as e:  # pragma: no cover - model side not built
            pytest.skip(f"origami_nv.select unavailable: {e}")
        key = tuple(getattr(pick, k) for k in ("block_m", "block_n", "block_k", "stages", "warps"))
        assert key in compiled, (M, N, K, key)
        assert key not in spilling, (M, N, K, key)
