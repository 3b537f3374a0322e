"""GPU tests of the swapped-operand wgmma kernels (marked gpu: skipped without an sm_90 GPU).

The `_ab` kernels (TileConfig::swap_ab; cpp/kernels/families/wgmma.py SWAP_AB_TILES) compute C^T = B^T A^T: the
problem's M on wgmma's N side, C staged transposed and stored by the threads. Checked through the op with explicit
configs: every kernel (dtype x the problem's B K-major or row-major) at edge sizes, a batch, a fused bias, K not a
multiple of 64, A M-major (the op copies it into the K-major layout the kernels read), NaN-poisoned outputs, the same
bits run to run; split-K through the workspace; misuse refused with a clear error; the op launches a swapped kernel where the model picks one.
"""
import textwrap

import pytest

torch = pytest.importorskip("torch")
import origami_nv  # noqa: E402
from origami_nv import _kernels  # noqa: E402
from conftest import run_memcheck  # noqa: E402

pytestmark = pytest.mark.gpu


@pytest.fixture(autouse=True)
def _sm90(needs_sm90):
    """Every test here runs the wgmma kernels (conftest.needs_sm90)."""


def _swapped(dtype=None):
    out = sorted({(r["config"]["block_m"], r["config"]["block_n"], r["config"]["stages"], r["config"]["warps"],
                   r["dtype"], r["b_k_contiguous"]) for r in _kernels.kernel_records()
                  if r["config"].get("swap_ab") and (dtype is None or r["dtype"] == dtype)})
    if not out:
        pytest.skip("no swapped-operand kernel in this build")
    return out


def _cfg(bm, bn, stages, warps, **kw):
    return dict(block_m=bm, block_n=bn, block_k=64, group_size_m=kw.pop("group_size_m", 3), stages=stages,
                warps=warps, family="wgmma", swap_ab=True, **kw)


def _operands(M, N, K, dtype, b_k, a_k=True, batch=None, seed=0):
    g = torch.Generator(device="cuda").manual_seed(seed)
    lead = (batch,) if batch else ()
    a = (torch.rand(*lead, M, K, generator=g, device="cuda") * 2 - 1).to(dtype)
    if not a_k:
        a = a.transpose(-1, -2).contiguous().transpose(-1, -2)
    b = (torch.rand(*lead, N, K, generator=g, device="cuda") * 2 - 1).to(dtype).transpose(-1, -2) if b_k else \
        (torch.rand(*lead, K, N, generator=g, device="cuda") * 2 - 1).to(dtype)
    return a, b


def _poison(numel, dtype):
    # The op allocates C from the caching allocator: a NaN-filled block of the same size first, so an element the
    # kernel does not write shows up.
    t = torch.full((numel,), float("nan"), dtype=dtype, device="cuda")
    del t


def _check(out, a, b, bias=None):
    ref = torch.matmul(a.float(), b.float()) + (bias.float() if bias is not None else 0)
    assert out.shape == ref.shape and out.dtype == a.dtype
    assert torch.isfinite(out).all(), "unwritten (NaN-poisoned) or non-finite outputs"
    err = (out.float() - ref).abs().max().item()
    ulp = 2.0 ** -8 if a.dtype == torch.bfloat16 else 2.0 ** -11
    assert err <= 2 * ulp * max(1.0, ref.abs().max().item()), err


def test_every_swapped_kernel_at_edges_batches_and_with_bias():
    for bm, bn, stages, warps, dt_name, b_k in _swapped():
        dt = getattr(torch, dt_name)
        cfg = _cfg(bm, bn, stages, warps)
        # M around the tile (1, odd, just over one and two tile rows), N odd where B is K-major (a row-major B is
        # read in place with N a multiple of 8), K not a multiple of 64
        n_odd = 131 if b_k else 136
        for i, (batch, M, N, K) in enumerate([(None, 1, n_odd, 200), (None, bm + 1, 3 * bn + (5 if b_k else 8), 520),
                                              (3, 2 * bm + 9, n_odd, 72), (None, 37, 2 * bn, 64 * 9)]):
            a, b = _operands(M, N, K, dt, b_k, batch=batch, seed=i + bm)
            _poison((batch or 1) * M * N, dt)
            _check(origami_nv.matmul(a, b, config=cfg), a, b)
        a, b = _operands(bm + 3, 2 * bn + 8, 136, dt, b_k, seed=99)
        bias = torch.randn(2 * bn + 8, device="cuda").to(dt)
        _check(origami_nv.matmul(a, b, bias=bias, config=cfg), a, b, bias)


def test_an_m_major_a_is_copied_into_the_layout_the_swapped_kernels_read():
    bm, bn, stages, warps, dt_name, b_k = _swapped("float16")[0]
    a, b = _operands(200, 3 * bn, 300, torch.float16, b_k, a_k=False, seed=5)
    _check(origami_nv.matmul(a, b, config=_cfg(bm, bn, stages, warps)), a, b)


def test_same_bits_every_run():
    for bm, bn, stages, warps, dt_name, b_k in _swapped("bfloat16"):
        a, b = _operands(2 * bm + 5, 4 * bn, 1000, torch.bfloat16, b_k, seed=bm + bn)
        cfg = _cfg(bm, bn, stages, warps)
        first = origami_nv.matmul(a, b, config=cfg)
        assert torch.equal(origami_nv.matmul(a, b, config=cfg), first)


def test_every_swapped_kernel_split_k_at_edges_batches_and_with_bias():
    """Split-K of the swapped kernels: each slice writes C's tile (the transposed partial) to the workspace and the
    reduction walks C^T's raster. Shapes with few tiles (so the whole grid is split), with whole waves plus a split
    tail (more tiles than SMs), edge tiles shifted inside the matrix (M not a multiple of the tile, B K-major), a
    batch, a fused bias; NaN-poisoned outputs, the same bits on a second run."""
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    for bm, bn, stages, warps, dt_name, b_k in _swapped():
        dt = getattr(torch, dt_name)
        n_odd = 131 if b_k else 136
        tail_n = (sms // 2 + 3) * bn + (5 if b_k else 8)  # two tile rows x this: a wave of tiles and a split tail
        for i, (batch, M, N, K, split) in enumerate([(None, 1, n_odd, 1000, 3), (None, bm + 1, 3 * bn + 8, 2100, 4),
                                                     (2, 2 * bm + 9, n_odd, 700, 5), (None, 37, 2 * bn, 64 * 9, 9),
                                                     (None, bm + 7, tail_n, 1300, 2)]):
            cfg = _cfg(bm, bn, stages, warps, split_k=split)
            a, b = _operands(M, N, K, dt, b_k, batch=batch, seed=i + 7 * bm)
            _poison((batch or 1) * M * N, dt)
            out = origami_nv.matmul(a, b, config=cfg)
            _check(out, a, b)
            assert torch.equal(origami_nv.matmul(a, b, config=cfg), out), (bm, bn, dt_name, M, N, K, split)
        a, b = _operands(bm + 3, 2 * bn + 8, 1500, dt, b_k, seed=98)
        bias = torch.randn(2 * bn + 8, device="cuda").to(dt)
        _check(origami_nv.matmul(a, b, bias=bias, config=_cfg(bm, bn, stages, warps, split_k=4)), a, b, bias)


def test_misuse_is_refused_with_a_clear_error():
    bm, bn, stages, warps, _, _ = _swapped("float16")[0]
    a, b = _operands(64, 64, 64, torch.float16, True)
    with pytest.raises(RuntimeError, match="wgmma family"):
        origami_nv.matmul(a, b, config=dict(_cfg(bm, bn, stages, warps), family="mma_sync"))
    with pytest.raises(RuntimeError, match="not compiled"):  # a tile that has no swapped kernel
        origami_nv.matmul(a, b, config=_cfg(128, 128, 6, 12))


def test_the_op_launches_the_swapped_kernel_the_model_picks():
    from torch.profiler import ProfilerActivity, profile
    M, N, K = 320, 7680, 5120
    cfg = origami_nv.select(M, N, K, "bfloat16", layout="nt")
    if not cfg.swap_ab:
        pytest.skip(f"the model does not pick a swapped kernel here on this GPU ({cfg})")
    x = torch.randn(M, K, device="cuda", dtype=torch.bfloat16)
    w = torch.randn(N, K, device="cuda", dtype=torch.bfloat16)
    origami_nv.matmul(x, w.t())
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        y = origami_nv.matmul(x, w.t())
        torch.cuda.synchronize()
    names = {e.name for e in prof.events() if getattr(e, "device_type", None) == torch.autograd.DeviceType.CUDA}
    ours = [n for n in names if n.startswith("origami_")]
    if not ours:
        pytest.skip("torch.profiler recorded no kernel of ours (no CUPTI?)")
    assert any(n.endswith("_ab") and f"{cfg.block_m}x{cfg.block_n}x" in n for n in ours), ours
    _check(y, x, w.t())


SWAP_SPLIT_MEMCHECK = textwrap.dedent("""
    import torch, origami_nv
    from origami_nv import _kernels
    ks = sorted({(r["config"]["block_m"], r["config"]["block_n"], r["config"]["stages"], r["config"]["warps"],
                  r["b_k_contiguous"]) for r in _kernels.kernel_records()
                 if r["config"].get("swap_ab") and r["dtype"] == "float16"})
    torch.manual_seed(0)
    for bm, bn, stages, warps, b_k in ks:
        cfg = dict(block_m=bm, block_n=bn, block_k=64, group_size_m=2, stages=stages, warps=warps, family="wgmma",
                   swap_ab=True, split_k=5)
        for M, N, K in [(1, 136, 700), (bm + 9, 2 * bn + 8, 1000), (33, 72, 300)]:
            a = torch.randn(M, K, device="cuda").half()
            b = torch.randn(N, K, device="cuda").half().t() if b_k else torch.randn(K, N, device="cuda").half()
            origami_nv.matmul(a, b, config=cfg)
            origami_nv.matmul(a.unsqueeze(0).expand(2, -1, -1), b.unsqueeze(0).expand(2, -1, -1), config=cfg)
    torch.cuda.synchronize()
    print("SWAP-SPLIT-MEMCHECK-DONE")
""")


def test_swapped_split_k_compute_sanitizer_memcheck(tmp_path):
    _swapped("float16")
    run_memcheck(SWAP_SPLIT_MEMCHECK, tmp_path, "SWAP-SPLIT-MEMCHECK-DONE")
