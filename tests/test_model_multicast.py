"""The model's plan for the 2-CTA multicast twins (CPU; the reference sm_90 kernel table where the build has no CUDA).

A config with a twin in the launched layout (KernelResources::multicast_layouts) is predicted as the twin for the pick
alone (ModelOptions::pitch_copy_plan): each CTA of the pair issues half of B's rows in the TMA stage term, and C is stored
by the threads. The op launches it where that beats the 1-CTA plan by NvModelConstants::multicast_min_gain; a tile
with a twin may replace the ranking's pick that way (Selection.replaced_pick).
"""
import pytest

import origami_nv
from origami_nv import _core, _kernels


def _final(M, N, K, layout="nt", gpu="H200", dtype="float16"):
    return origami_nv.explain(M, N, K, dtype, gpu=gpu, layout=layout).selection


def _have_twins():
    recs = _kernels.kernel_records() or _kernels.reference_table()["kernels"]
    return any(r.get("multicast") for r in recs)


needs_twins = pytest.mark.skipif(not _have_twins(), reason="no multicast twin in this build's kernel table")


def test_merge_marks_multicast_layouts_only_where_asked():
    lb = _kernels.layout_bit
    cfg = dict(block_m=128, block_n=192, block_k=64, stages=5, warps=12, family="wgmma")
    base = dict(config=cfg, dtype="float16", arch="sm_90a", threads=384, registers_per_thread=168,
                spill_store_bytes=0, spill_load_bytes=0, local_bytes=0, smem_bytes=222288)
    recs = [dict(base, a_k_contiguous=True, b_k_contiguous=True),
            dict(base, a_k_contiguous=True, b_k_contiguous=False),
            dict(base, a_k_contiguous=True, b_k_contiguous=True, multicast=True, registers_per_thread=200),
            dict(base, a_k_contiguous=True, b_k_contiguous=False, multicast=True, local_bytes=8)]
    (m,) = _kernels.merge_kernel_records(recs)
    assert m["layouts"] == lb(True, True) | lb(True, False)
    assert m["multicast_layouts"] == lb(True, True)  # the twin with local memory does not count
    assert m["registers_per_thread"] == 168  # the twins' resources are not the config's
    (off,) = _kernels.merge_kernel_records(recs, multicast=False)
    assert off["multicast_layouts"] == 0


@needs_twins
@pytest.mark.parametrize("gpu", ["H100_SXM", "H200"])
def test_twin_taken_where_rows_are_off_lines_only(gpu):
    # 6000-byte rows (K = 3000 fp16): the twin halves B's straddling requests; 3072: rows on lines, nothing to win
    s = _final(1000, 3000, 5000, gpu=gpu)
    fb = s["final_breakdown"]
    assert fb["multicast_b"] and s["config"].split_k == 1
    for M, N, K in [(3072, 3072, 3072), (4096, 4096, 4096), (8192, 8192, 8192)]:
        assert not _final(M, N, K, gpu=gpu)["final_breakdown"]["multicast_b"]


@needs_twins
@pytest.mark.parametrize("gpu", ["H100_SXM", "H200"])
def test_small_tile_twin_only_where_b_rows_are_off_lines(gpu):
    # The 64x128 twin at 1000^3 (2000-byte rows: 1.17x faster than its 1-CTA kernel on the H100); at 1024^3 (rows on
    # lines) it ran 1.2x slower though the TMA stage term, halving B's rows, predicts a gain: not weighed there
    # (probe_small_odd_h100.txt)
    for lay in ("nn", "nt"):
        s = _final(1000, 1000, 1000, gpu=gpu, layout=lay)
        assert s["final_breakdown"]["multicast_b"] and (s["config"].block_m, s["config"].block_n) == (64, 128), lay
        assert not _final(1024, 1024, 1024, gpu=gpu, layout=lay)["final_breakdown"]["multicast_b"], lay


@needs_twins
def test_twin_prediction_halves_b_rows_in_the_tma_term():
    hw = _core.resolve_hardware(None, "H200", "")
    recs = {(r["config"]["block_m"], r["config"]["block_n"]): r for r in _kernels.reference_kernel_resources()
            or _kernels.compiled_kernel_resources()}
    from origami_nv._api import _resources_from_dict
    kr = _resources_from_dict(recs[(128, 192)])
    assert kr.multicast_layouts
    cfg = origami_nv.Config(128, 192, 64, group_size_m=12, stages=5, warps=12, family="wgmma")
    o = _core.ModelOptions("nv")
    o.pitch_copy_plan = True
    with_twin = _core.predict(1000, 3000, 5000, "float16", cfg, hw, o, kr, layout="nt")
    kr.multicast_layouts = 0
    without = _core.predict(1000, 3000, 5000, "float16", cfg, hw, o, kr, layout="nt")
    assert with_twin["multicast_b"] and not without["multicast_b"]
    assert with_twin["tma_box_cycles"] < without["tma_box_cycles"]
    gain = float(o.nv.multicast_min_gain)
    assert with_twin["total_cycles"] * gain < without["total_cycles"]
    # the ranking (no plan stage) never predicts the twin
    o.pitch_copy_plan = False
    kr.multicast_layouts = 0xF
    assert not _core.predict(1000, 3000, 5000, "float16", cfg, hw, o, kr, layout="nt")["multicast_b"]


@needs_twins
def test_a_replaced_pick_is_explained():
    s = _final(6000, 2000, 3000, gpu="H200")
    text = str(origami_nv.explain(6000, 2000, 3000, "float16", gpu="H200", layout="nt"))
    if s["final_breakdown"]["multicast_b"]:
        assert "[Multicast]" in text and "2-CTA cluster twin" in text
        if s["replaced_pick"] is not None:
            assert "replaces the ranking's first config" in text
            assert s["replaced_pick_cycles"] > s["final_breakdown"]["total_cycles"] * float(
                _core.ModelOptions("nv").nv.multicast_min_gain)
    else:
        assert "[Multicast]" not in text
