"""Rows off 128-byte lines (NvModelConstants::wgmma_tma_off_line_row_cost, wgmma_tma_off_sector_row_cost,
pitch_copy_min_gain; cpp/model/model.cpp): the wgmma TMA stage term weighs a box row that starts off a line, more where
it starts inside a 32-byte sector, the shares of such rows follow the pitch (rows_off_lines_share,
rows_off_sectors_share, cpp/model/types.hpp), and the model copies such an operand into padded rows where that is
predicted faster (LatencyBreakdown::pitch_copy_a/b, which the op follows). CPU only."""
import pytest

import origami_nv
from origami_nv import _core


@pytest.fixture(scope="module")
def hw():
    return _core.resolve_hardware(None, "H100_SXM", "")


def _kernel(bm, bn, stages, warps, regs=168):
    cfg = _core.TileConfig(bm, bn, 64, group_size_m=8, stages=stages, warps=warps, family="wgmma")
    kr = _core.KernelResources(cfg, dtype="float16", threads=32 * warps, registers_per_thread=regs,
                               spill_store_bytes=0, spill_load_bytes=0, local_bytes=0,
                               smem_bytes=stages * (bm + bn) * 128 + bm * 128 + 2048, arch="sm_90a", source="test")
    return cfg, kr


def _opts(**nv):
    o = _core.ModelOptions("nv")
    o.pitch_copy_plan = True  # the selector sets it for its pick's final breakdown (the op follows that one)
    c = o.nv
    for k, v in nv.items():
        setattr(c, k, v)
    o.nv = c
    return o


def test_share_of_rows_off_lines_follows_the_pitch(hw):
    cfg, kr = _kernel(128, 192, 5, 12)
    # no copies allowed (a copy would zero the in-place shares): the shares of the rows as read
    o = _opts(pitch_copy_min_gain=1e9)
    d = _core.predict(3000, 3000, 3000, "float16", cfg, hw, o, kr, layout="nn")    # 6000-byte rows
    assert d["off_line_share_a"] == pytest.approx(7 / 8) and d["off_line_share_b"] == pytest.approx(7 / 8)
    d = _core.predict(4000, 4000, 4000, "float16", cfg, hw, o, kr, layout="nn")    # 8000 bytes: every other row
    assert d["off_line_share_a"] == pytest.approx(0.5)
    d = _core.predict(3000, 3000, 3000, "float16", cfg, hw, o, kr, layout="nn", a_ld=3008, b_ld=3008)  # 47 lines
    assert d["off_line_share_a"] == 0 and d["off_line_share_b"] == 0
    d = _core.predict(3072, 3072, 3072, "float16", cfg, hw, o, kr, layout="nt")
    assert d["off_line_share_a"] == 0 and d["off_line_share_b"] == 0
    # the mma_sync family is not charged (cp.async rows: a term of its own, not this one)
    mcfg = _core.TileConfig(128, 128, 32, group_size_m=8, stages=4, warps=8, family="mma_sync")
    d = _core.predict(3000, 3000, 3000, "float16", mcfg, hw, o, None, layout="nn")
    assert d["off_line_share_a"] == 0


def test_rows_inside_sectors_are_a_share_of_their_own(hw):
    # rows off 128-byte lines that also start inside a 32-byte sector (16-byte-granular pitches) weigh
    # wgmma_tma_off_sector_row_cost more; pitches of whole sectors (8000, 12000 bytes) have none of them
    cfg, kr = _kernel(128, 192, 5, 12)
    o = _opts(pitch_copy_min_gain=1e9)
    d = _core.predict(3000, 3000, 3000, "float16", cfg, hw, o, kr, layout="nn")    # 6000 bytes: 16 mod 32
    assert d["off_sector_share_a"] == pytest.approx(0.5) and d["off_line_share_a"] == pytest.approx(7 / 8)
    for n in (4000, 6000):                                                          # 8000, 12000 bytes
        d = _core.predict(n, n, n, "float16", cfg, hw, o, kr, layout="nt")
        assert d["off_sector_share_a"] == 0 and d["off_line_share_a"] > 0
    # the sector share adds to the stage term: 6000-byte rows cost more than 12000-byte ones at the same line share
    def box(n, **nv):
        return _core.predict(2048, 2048, 2048, "float16", cfg, hw, _opts(pitch_copy_min_gain=1e9, **nv), kr,
                             layout="nt", a_ld=n, b_ld=n)["tma_box_cycles"]
    assert box(3000) > box(6000) > box(2048)  # 6000 bytes: 7/8 off lines, half in sectors; 12000: 3/4, none
    assert box(3000, wgmma_tma_off_sector_row_cost=0.0) < box(3000)
    assert box(6000, wgmma_tma_off_sector_row_cost=0.0) == pytest.approx(box(6000))


def test_rows_off_lines_slow_the_tma_stage_term(hw):
    cfg, kr = _kernel(128, 192, 5, 12)
    in_place = _core.predict(3000, 3000, 3000, "float16", cfg, hw, _opts(pitch_copy_min_gain=1e9), kr, layout="nn")
    padded = _core.predict(3000, 3000, 3000, "float16", cfg, hw, _opts(), kr, layout="nn", a_ld=3008, b_ld=3008)
    off = _core.predict(3000, 3000, 3000, "float16", cfg, hw, _opts(wgmma_tma_off_line_row_cost=0.0), kr, layout="nn")
    assert in_place["tma_box_cycles"] > padded["tma_box_cycles"] * 1.5
    assert in_place["total_cycles"] > padded["total_cycles"] * 1.1
    assert off["tma_box_cycles"] == pytest.approx(padded["tma_box_cycles"])  # term off: as before it


def test_the_model_copies_where_it_pays(hw):
    cfg, kr = _kernel(128, 192, 5, 12)
    d = _core.predict(3000, 3000, 3000, "float16", cfg, hw, _opts(), kr, layout="nt")
    assert d["pitch_copy_a"] or d["pitch_copy_b"]
    assert d["operand_copy_cycles"] > 0 and "128-byte lines" in d["operand_copy_reason"]
    in_place = _core.predict(3000, 3000, 3000, "float16", cfg, hw, _opts(pitch_copy_min_gain=1e9), kr, layout="nt")
    assert d["total_cycles"] * 1.05 < in_place["total_cycles"]
    # decode-sized: the copy of B costs more than the GEMM
    d = _core.predict(16, 3000, 3000, "float16", cfg, hw, _opts(), kr, layout="nt")
    assert not (d["pitch_copy_a"] or d["pitch_copy_b"]) and d["operand_copy_cycles"] == 0
    # term off: never
    d = _core.predict(3000, 3000, 3000, "float16", cfg, hw, _opts(wgmma_tma_off_line_row_cost=0.0), kr, layout="nt")
    assert not (d["pitch_copy_a"] or d["pitch_copy_b"])


def test_the_ranking_is_the_in_place_one(hw):
    # Without pitch_copy_plan (every candidate of the ranking) the term is not applied: the ranking among in-place
    # tiles is the model's of before the term.
    cfg, kr = _kernel(128, 192, 5, 12)
    o = _core.ModelOptions("nv")
    d = _core.predict(3000, 3000, 3000, "float16", cfg, hw, o, kr, layout="nn")
    assert d["off_line_share_a"] == 0 and not d["pitch_copy_a"] and d["operand_copy_cycles"] == 0
    padded = _core.predict(3000, 3000, 3000, "float16", cfg, hw, o, kr, layout="nn", a_ld=3008, b_ld=3008)
    assert d["total_cycles"] == pytest.approx(padded["total_cycles"], rel=0.02)


def test_explain_names_the_copy():
    text = str(origami_nv.explain(3000, 3000, 3000, "float16", layout="nn"))
    assert "off 128-byte lines" in text
    text = str(origami_nv.explain(3072, 3072, 3072, "float16", layout="nn"))
    assert "off 128-byte lines" not in text


def test_python_api_takes_leading_dimensions():
    # select / rank / explain take the operands' leading dimensions (None: contiguous), as the op passes them
    assert origami_nv.select(3000, 3000, 3000) == origami_nv.select(3000, 3000, 3000, a_ld=3008, b_ld=3008)
    text = str(origami_nv.explain(3000, 3000, 3000, a_ld=3008, b_ld=3008))
    assert "off 128-byte lines" not in text and "leading dimensions A 3008, B 3008" in text
    text = str(origami_nv.explain(3000, 3000, 3000, a_ld=3008))  # B still 6000-byte rows
    # B's rows off lines: copied into padded rows, or read in place by a 2-CTA multicast twin (half its rows per CTA)
    assert "A read in place, 0% of its rows off lines" in text
    assert "B copied into padded rows" in text or ("B read in place, 88% of its rows off lines" in text and
                                                   "[Multicast]" in text)
    assert len(origami_nv.rank(3000, 3000, 3000, top=3, a_ld=3000, b_ld=3072)) == 3
    for bad in (dict(a_ld=2999), dict(b_ld=-1), dict(a_ld=True), dict(b_ld="x")):
        with pytest.raises(ValueError, match="_ld must be"):
            origami_nv.select(3000, 3000, 3000, **bad)
    # the layout decides the minimum: A 't' (M-contiguous) rows of M
    with pytest.raises(ValueError, match=r">= 300 for layout 'tn'"):
        origami_nv.select(300, 500, 700, layout="tn", a_ld=299)
