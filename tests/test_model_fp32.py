"""float32 in the model (issue 15): the CUDA-core (simt) family and seed 002's roof, through the bindings,
select/rank/explain and the CLI; the op's CPU path, autograd and the fake kernel for fp32. CPU only."""
import math
import subprocess
import sys

import pytest

import origami_nv
from origami_nv import _core, _kernels

H100 = "H100_SXM"


pytestmark = pytest.mark.usefixtures("default_hardware")


@pytest.fixture(scope="module")
def hw():
    return _core.resolve_hardware(None, H100, "")


def _simt(bm, bn, bk, stages=3, warps=8, regs=128):
    cfg = _core.TileConfig(bm, bn, bk, group_size_m=1, stages=stages, warps=warps, family="simt")
    kr = _core.KernelResources(cfg, dtype="float32", threads=32 * warps, registers_per_thread=regs,
                               smem_bytes=stages * (bm + bn) * bk * 4, arch="sm_90", source="test")
    return cfg, kr


def test_dtype_names_and_errors():
    assert _core.parse_dtype("fp32") == _core.parse_dtype("torch.float32") == "float32"
    assert _core.parse_dtype("tf32") == _core.parse_dtype("TFloat32") == "tfloat32"
    assert _core.supported_dtypes() == "float16, bfloat16, float32, tfloat32"
    with pytest.raises(ValueError, match="supported: float16, bfloat16, float32, tfloat32"):
        origami_nv.select(64, 64, 64, dtype="float64")


def test_seed_002_roof_terms(hw):
    # 128x128 over 256 threads: 64 outputs per thread, an 8x8 thread tile: 64 FFMA against 2 + 2 LDS.128 and the
    # other issue slots of a k-step (NvModelConstants.simt_k_step_extra_issue).
    cfg, kr = _simt(128, 128, 16)
    extra = _core.ModelOptions("nv").nv.simt_k_step_extra_issue
    assert extra > 0
    b = _core.predict(4096, 4096, 4096, "float32", cfg, hw, _core.ModelOptions("nv"), kr)
    assert (b["fp32_thread_tile_m"], b["fp32_thread_tile_n"]) == (8, 8)
    assert b["fp32_issue_share"] == pytest.approx(64 / (68 + extra))
    o0 = _core.ModelOptions("nv")
    nv = o0.nv
    nv.simt_k_step_extra_issue = 0.0
    o0.nv = nv
    assert _core.predict(4096, 4096, 4096, "float32", cfg, hw, o0, kr)["fp32_issue_share"] == pytest.approx(64 / 68)
    assert b["compute_limiter"] == "FFMA issue" and b["smem_cycles"] == 0  # no mma.sync shared-memory term
    assert b["fp32_fma_fraction"] == 1.0
    assert b["fp32_lane_fraction"] == 1.0  # 4096 is a multiple of every tile side: no edge waste
    phi = hw.get("fp32_flops_per_cycle") * 64 / (68 + extra)
    assert b["fp32_sm_flops_per_cycle"] == pytest.approx(phi)
    # One CTA per SM here (a grid of 1024 tiles over 132 SMs x the resident blocks): the block's rate is Phi / resident.
    resident = math.ceil(b["concurrent_tiles"] / b["active_sms"])
    assert b["tensor_flops_per_cycle"] == pytest.approx(phi / resident)
    assert b["compute_cycles"] == pytest.approx(2 * 128 * 128 * 16 / (phi / resident))
    # A smaller thread tile spends more issue slots per FFMA: 32x32 over 64 threads, 4x4, 16 / (16 + 2 + extra).
    cfg2, kr2 = _simt(32, 32, 16, warps=2)
    b2 = _core.predict(4096, 4096, 4096, "float32", cfg2, hw, _core.ModelOptions("nv"), kr2)
    assert b2["fp32_issue_share"] == pytest.approx(16 / (18 + extra))
    # Edge tiles: theta (useful lanes) is the work utilisation.
    b3 = _core.predict(3000, 3000, 3000, "float32", cfg, hw, _core.ModelOptions("nv"), kr)
    assert b3["fp32_lane_fraction"] == pytest.approx(3000 ** 3 / (3072 * 3072 * 3008))


def test_simt_copy_floor_counts_the_transposing_copies(hw):
    # The simt ring copies an M-contiguous A / N-contiguous B in 16-byte chunks and transposes a K-contiguous operand
    # with 4-byte copies (gemm_simt.cuh): a 64x64x16 stage is 64*16/(32*4) = 8 warp copies per 16-byte operand, 32 per
    # transposed one. "nn": A transposed, B not; "tn" (A column-major): neither; "nt": both.
    cfg, kr = _simt(64, 64, 16, stages=4, warps=4)
    rate = _core.ModelOptions("nv").nv.simt_copy_cycles_per_warp_instruction
    assert rate > 0
    got = {}
    for layout, instr in (("nn", 32 + 8), ("tn", 8 + 8), ("nt", 32 + 32), ("tt", 8 + 32)):
        b = _core.predict(4096, 4096, 4096, "float32", cfg, hw, _core.ModelOptions("nv"), kr, layout=layout)
        assert b["simt_copy_instructions"] == instr, layout
        resident = math.ceil(b["concurrent_tiles"] / b["active_sms"])
        assert b["simt_copy_cycles"] == pytest.approx(resident * instr * rate)
        assert b["memory_cycles"] >= b["simt_copy_cycles"]
        got[layout] = b["total_cycles"]
    assert got["tn"] <= got["nn"] <= got["nt"]
    # Not a term of the tensor-core families.
    mcfg = _core.TileConfig(64, 64, 32, group_size_m=1, stages=4, warps=4, family="mma_sync")
    assert _core.predict(4096, 4096, 4096, "float16", mcfg, hw, _core.ModelOptions("nv"))["simt_copy_cycles"] == 0


def test_simt_roof_follows_the_calibrated_fp32_rate(hw, tmp_path, monkeypatch):
    cfg, kr = _simt(128, 128, 16)
    slow = tmp_path / "half_fp32.json"
    slow.write_text('{"fp32_flops_per_cycle": %r}' % (hw.get("fp32_flops_per_cycle") / 2))
    hw_slow = _core.resolve_hardware(None, H100, str(slow))
    o = _core.ModelOptions("nv")
    fast = _core.predict(4096, 4096, 4096, "float32", cfg, hw, o, kr)
    half = _core.predict(4096, 4096, 4096, "float32", cfg, hw_slow, o, kr)
    assert half["compute_cycles"] == pytest.approx(2 * fast["compute_cycles"])


def test_fp16_roof_untouched_by_the_fp32_rate(hw, tmp_path):
    cfg = _core.TileConfig(128, 128, 64, group_size_m=1, stages=4, warps=8, family="mma_sync")
    slow = tmp_path / "half_fp32.json"
    slow.write_text('{"fp32_flops_per_cycle": 10.0}')
    o = _core.ModelOptions("nv")
    a = _core.predict(4096, 4096, 4096, "float16", cfg, hw, o)
    b = _core.predict(4096, 4096, 4096, "float16", cfg, _core.resolve_hardware(None, H100, str(slow)), o)
    assert a["total_cycles"] == b["total_cycles"] and a["fp32_issue_share"] == 0


def test_select_rank_explain_float32():
    cfg = origami_nv.select(4096, 4096, 4096, dtype="float32", gpu=H100)
    assert cfg.family == "simt"
    ranked = origami_nv.rank(4096, 4096, 4096, dtype="float32", gpu=H100, top=50)
    assert ranked and all(r.config.family == "simt" for r in ranked)
    # fp16 never sees a simt kernel
    assert all(r.config.family != "simt" for r in origami_nv.rank(4096, 4096, 4096, dtype="float16", gpu=H100, top=200))
    e = origami_nv.explain(1000, 3000, 700, dtype="float32", gpu=H100)
    text = str(e)
    assert "CUDA-core roof (seed 002)" in text and "f_fp32 = FFMA / issue slots" in text
    assert "fp32_flops_per_cycle" in text and "theta" in text and "m_FMA" in text
    d = e.to_dict()
    bd = d["breakdown"]
    tm, tn = bd["fp32_thread_tile_m"], bd["fp32_thread_tile_n"]
    extra = _core.ModelOptions("nv").nv.simt_k_step_extra_issue
    assert bd["fp32_issue_share"] == pytest.approx(tm * tn / (tm * tn + tm / 4 + tn / 4 + extra))
    assert f"+ {extra:g} other (simt_k_step_extra_issue)" in text


def test_seed_mode_says_float32_is_nv_only():
    with pytest.raises(ValueError, match="seed model .* tensor-core kernels only"):
        origami_nv.explain(64, 64, 64, dtype="float32", mode="seed")


def test_compiled_simt_kernels_are_float32_only():
    rows = _kernels.compiled_kernel_resources("float32")
    if not rows:
        pytest.skip("this build has no compiled-kernel table (built without nvcc)")
    assert all(r["config"]["family"] == "simt" for r in rows)
    assert not any(r["config"]["family"] == "simt" for r in _kernels.compiled_kernel_resources("float16"))


def test_simt_generator_one_cta_tile_and_committed_table_agree():
    """families/simt.py: only the 8x8 thread tile at BLOCK_K 16 (128x128x16) runs one CTA per SM, with two fragment
    sets, its whole k-tile unrolled and 3 stages; every other simt kernel keeps the 128-register two-CTA rule. The
    committed sm_90 table (reports/kernel_resources_sm90.json, read by the offline fits) lists exactly the generated
    simt kernels with the generator's shared memory."""
    import json
    import os
    from conftest import REPO as repo, kernel_family
    gen, fam = kernel_family("simt")
    specs, _ = fam.specializations(gen.parse_config_space(os.path.join(repo, "cpp", "model", "config_space.def")))
    kernels = [k for s in specs for k in s["kernels"]]
    one = [k for k in kernels if k["min_blocks_per_sm"] == 1 and k["threads"] == 256]
    assert {(k["block_m"], k["block_n"], k["block_k"]) for k in one} == {(128, 128, 16)}
    for k in one:
        assert k["double_frags"] and k["k_unroll"] == 16 and k["stages"] == 3
        assert "Kernel<128, 128, 16, 3, 4, 2, 8, 8" in fam.tu_text({"kernels": [k]}) and ", true, 16>" in fam.tu_text({"kernels": [k]})
        assert "__launch_bounds__(256, 1)" in fam.tu_text({"kernels": [k]})
    for k in kernels:
        if k not in one:
            assert k["k_unroll"] == 0 and k["min_blocks_per_sm"] * k["threads"] * 128 <= 65536
    table = json.load(open(os.path.join(repo, "reports", "kernel_resources_sm90.json")))["kernels"]
    committed = {r["name"]: r["smem_bytes"] for r in table if r["family"] == "simt"}
    assert committed == {k["name"]: k["smem_bytes"] for k in kernels}


def test_tf32_row_major_b_in_place_up_to_the_swapped_bound():
    """TF32 a @ b (B row-major): the swapped kernels read B in place up to kSwappedTf32MaxM rows (cpp/model/types.hpp),
    so the model charges no copy there; above it the pick pays B's transposing copy and explain says why. With the
    installed kernel table (the reference sm_90 build: it has the swapped kernels)."""
    from origami_nv import _kernels
    if not any(r["dtype"] == "tfloat32" and not r["b_k_contiguous"] for r in _kernels.kernel_records()):
        pytest.skip("the kernel table has no swapped tf32 kernel")
    small = str(origami_nv.explain(2048, 4096, 4096, dtype="tfloat32", gpu=H100))
    large = str(origami_nv.explain(2049, 4096, 4096, dtype="tfloat32", gpu=H100))
    assert "[Operand copies]" not in small
    # above the bound the pick pays a copy of B: the bound's, or (a tile without a swapped kernel, 192x192) the layout's
    assert ("[Operand copies] TF32 with B row-major and M above kSwappedTf32MaxM" in large or
            "[Operand copies] operand layout not compiled for this kernel" in large), large
    # a tile that has the swapped kernel: above the bound its copy is the bound's
    from origami_nv import _api, _core
    entry = _api.get_selector(H100, "nv")
    kr = next(k for k in _api._kernel_resources()[0]
              if k.dtype == "tfloat32" and k.config.family == "wgmma"
              and (k.config.block_m, k.config.block_n) == (128, 256))
    for M, copied in ((2048, False), (2049, True)):
        d = _core.predict(M, 4096, 4096, "tfloat32", kr.config, entry.hardware, entry.selector.options, kr, layout="nn")
        assert (d["operand_copy_bytes"] > 0) == copied
        assert not copied or "kSwappedTf32MaxM" in d["operand_copy_reason"]
    # x @ w.t() (B K-major) never copies
    assert "[Operand copies]" not in str(origami_nv.explain(4096, 4096, 4096, dtype="tfloat32", gpu=H100, layout="nt"))


def test_cli_explain_float32():
    out = subprocess.run([sys.executable, "-m", "origami_nv", "explain", "512", "512", "512", "--dtype", "float32",
                          "--gpu", H100], capture_output=True, text=True, check=True).stdout
    assert "float32" in out and "simt" in out and "CUDA-core roof" in out


# ---- the op on CPU (the fp32 path of the CPU implementation; the CUDA kernels are GPU tests) ----------------
from conftest import requires_op  # noqa: E402


@requires_op()
def test_op_float32_cpu_matches_torch_and_autograd():
    torch = pytest.importorskip("torch")
    g = torch.Generator().manual_seed(0)
    a = torch.randn(33, 70, generator=g, requires_grad=True)
    b = torch.randn(70, 45, generator=g, requires_grad=True)
    bias = torch.randn(45, generator=g, requires_grad=True)
    out = origami_nv.matmul(a, b, bias=bias)
    assert out.dtype == torch.float32
    torch.testing.assert_close(out, a @ b + bias, rtol=1e-5, atol=1e-5)
    out.sum().backward()
    ga, gb, gbias = a.grad.clone(), b.grad.clone(), bias.grad.clone()
    a.grad = b.grad = bias.grad = None
    (a @ b + bias).sum().backward()
    torch.testing.assert_close(ga, a.grad, rtol=1e-5, atol=1e-5)
    torch.testing.assert_close(gb, b.grad, rtol=1e-5, atol=1e-5)
    torch.testing.assert_close(gbias, bias.grad, rtol=1e-5, atol=1e-5)
    # the fake kernel: shape and dtype without data (torch.compile traces through it)
    fake = origami_nv.matmul(torch.empty(7, 5, device="meta"), torch.empty(5, 3, device="meta"))
    assert fake.shape == (7, 3) and fake.dtype == torch.float32


def test_simt_split_slices_cost_the_simt_constant(hw):
    # A split launch pays split_k_reduce_fixed_cycles + a per-slice cost: simt_split_k_slice_cycles for the simt family
    # (fitted on fp32 data), split_k_slice_cycles for the tensor-core families; the tail share
    # (split_k_tail_overhead_fraction, fitted on tensor-core launches) is not the simt family's.
    nv = _core.ModelOptions("nv").nv
    assert nv.simt_split_k_slice_cycles != nv.split_k_slice_cycles
    cfg = _core.TileConfig(16, 128, 16, group_size_m=1, stages=4, warps=2, family="simt", split_k=16)
    kr = _core.KernelResources(_core.TileConfig(16, 128, 16, group_size_m=1, stages=4, warps=2, family="simt"),
                               dtype="float32", threads=64, registers_per_thread=127, smem_bytes=4 * 144 * 16 * 4,
                               arch="sm_90", source="test")
    b = _core.predict(1, 4096, 8192, "float32", cfg, hw, _core.ModelOptions("nv"), kr)
    slices = b["split_slices"]
    assert slices > 1
    assert b["split_launch_cycles"] == pytest.approx(nv.split_k_reduce_fixed_cycles + nv.simt_split_k_slice_cycles * slices)
    o = _core.ModelOptions("nv")
    c = o.nv
    c.simt_split_k_slice_cycles = nv.simt_split_k_slice_cycles + 1000.0
    o.nv = c
    b2 = _core.predict(1, 4096, 8192, "float32", cfg, hw, o, kr)
    assert b2["split_launch_cycles"] - b["split_launch_cycles"] == pytest.approx(1000.0 * slices)
    assert b2["total_cycles"] > b["total_cycles"]


# ---- tfloat32: float32 storage on the TF32 tensor cores (the wgmma tf32 kernels) ----------------------------------
def _tf32(bm, bn, stages=4, consumers=2, regs=168):
    warps = 4 * (consumers + 1)
    cfg = _core.TileConfig(bm, bn, 32, group_size_m=1, stages=stages, warps=warps, family="wgmma")
    kr = _core.KernelResources(cfg, dtype="tfloat32", threads=32 * warps, registers_per_thread=regs,
                               smem_bytes=stages * (bm + bn) * 128 + 32768, arch="sm_90a", source="test")
    return cfg, kr


def test_tf32_rate_is_half_the_16_bit_wgmma_rate_and_atoms_are_k8(hw):
    # The H100 and H200 rows measure it (calibrate, 2026-11-26): half the 16-bit wgmma rate, as the k8 vs k16
    # instruction shapes say; a row without the measurement (RTX_3090 has a wgmma rate key) takes that half as its
    # default.
    assert hw.tier("wgmma_tf32_flops_per_cycle") == "table"
    assert hw.get("wgmma_tf32_flops_per_cycle") == pytest.approx(0.5 * hw.get("wgmma_flops_per_cycle"), rel=1e-3)
    other = _core.resolve_hardware(None, "RTX_3090", "")
    assert other.tier("wgmma_tf32_flops_per_cycle") == "default"
    assert other.get("wgmma_tf32_flops_per_cycle") == pytest.approx(0.5 * other.get("wgmma_flops_per_cycle"))
    cfg, kr = _tf32(128, 256)
    o = _core.ModelOptions("nv")
    tf = _core.predict(4096, 4096, 4096, "tfloat32", cfg, hw, o, kr)
    cfg16 = _core.TileConfig(128, 256, 64, group_size_m=1, stages=4, warps=12, family="wgmma")
    kr16 = _core.KernelResources(cfg16, dtype="float16", threads=384, registers_per_thread=168,
                                 smem_bytes=4 * 384 * 128 + 32768, arch="sm_90a", source="test")
    h = _core.predict(4096, 4096, 4096, "float16", cfg16, hw, o, kr16)
    # the same 128-byte stage row: half the K per k-iteration at half the rate, the same compute time per iteration
    assert tf["flops_per_k_iter"] == pytest.approx(0.5 * h["flops_per_k_iter"])
    assert tf["compute_cycles"] == pytest.approx(h["compute_cycles"], rel=1e-5)  # the measured rates: 2e-6 apart
    assert tf["n_mma"] == pytest.approx(h["n_mma"])  # k8 atoms over BLOCK_K 32 = k16 atoms over 64


def test_tf32_select_explain_and_cli():
    c = origami_nv.select(4096, 4096, 4096, dtype="tfloat32")
    assert c.family == "wgmma" and c.block_k == 32  # the abstract space: wgmma, one 128-byte row of fp32 per stage
    assert origami_nv.select(4096, 4096, 4096, dtype="tf32") == c
    text = str(origami_nv.explain(4096, 4096, 4096, dtype="tfloat32"))
    assert "wgmma_tf32_flops_per_cycle" in text and "m16n8k8-equivalent TF32 MMAs" in text
    with pytest.raises(ValueError, match="tfloat32"):
        origami_nv.select(64, 64, 64, dtype="tfloat32", mode="seed")
    out = subprocess.run([sys.executable, "-m", "origami_nv", "explain", "1024", "1024", "1024", "--dtype", "tfloat32"],
                         capture_output=True, text=True, check=True).stdout
    assert "tfloat32" in out and "wgmma" in out


def test_mma_sync_tf32_generator_committed_table_and_selection():
    """families/mma_sync.py: one tfloat32 kernel per TF32_TILES tile at BLOCK_K 32, K-contiguous A and B, 16-byte
    (4-element) alignment, shared memory from 4-byte elements and its kernel instantiated with BLOCK_K in 16-bit units
    (64: the header's TF32 paragraph); the committed sm_90 table lists exactly those. The model: on an sm_8x row (no
    wgmma) a TF32 GEMM picks them; on the H100 the wgmma tf32 tiles cover them (mma_sync_dominated_by_wgmma)."""
    import json
    import os
    from conftest import REPO as repo, kernel_family
    gen, fam = kernel_family("mma_sync")
    specs, _ = fam.specializations(gen.parse_config_space(os.path.join(repo, "cpp", "model", "config_space.def")))
    tf32 = [k for s in specs for k in s["kernels"] if k["dtype"] == "tfloat32"]
    assert sorted((k["block_m"], k["block_n"]) for k in tf32) == sorted(fam.TF32_TILES)
    for k in tf32:
        bm, bn = k["block_m"], k["block_n"]
        assert k["block_k"] == fam.TF32_BLOCK_K == 32 and k["a_k_contiguous"] and k["b_k_contiguous"]
        assert k["alignment_elems"] == 4 and not k["realign"] and k["name"].endswith("_tf32_kk")
        assert k["smem_bytes"] == max(k["stages"] * (bm + bn) * 32 * 4, bm * (bn + 8) * 4) <= fam.SMEM_OPTIN_BYTES
        assert f"Kernel<float, {bm}, {bn}, 64, {k['stages']}," in fam.tu_text({"kernels": [k]})
    table = json.load(open(os.path.join(repo, "reports", "kernel_resources_sm90.json")))["kernels"]
    committed = {r["name"]: r["smem_bytes"] for r in table if r["family"] == "mma_sync" and r["dtype"] == "tfloat32"}
    assert committed == {k["name"]: k["smem_bytes"] for k in tf32}
    # their rate: half the 16-bit mma.sync rate (k8 tf32 vs k16 atoms), measured on the H100 and H200 rows, the
    # default elsewhere
    for row, tier in ((H100, "table"), ("H200", "table"), ("RTX_3090", "default")):
        hw = _core.resolve_hardware(None, row, "")
        assert hw.tier("mma_sync_tf32_flops_per_cycle") == tier
        assert hw.get("mma_sync_tf32_flops_per_cycle") == pytest.approx(0.5 * hw.get("mma_sync_flops_per_cycle"),
                                                                        rel=1e-3)
    for M, N, K in [(4096, 4096, 4096), (128, 4096, 4096), (7, 8192, 2048)]:
        assert origami_nv.select(M, N, K, dtype="tfloat32", gpu="RTX_3090", layout="nt").family == "mma_sync"
        assert origami_nv.select(M, N, K, dtype="tfloat32", gpu=H100, layout="nt").family == "wgmma"
