"""GPU tests of stream-K (TileConfig.stream_k; make_stream_k_plan, cpp/model/types.hpp; the wgmma family's persistent
kernel, Kernel::run_ss in cpp/kernels/wgmma/gemm_wgmma.cuh). Marked gpu: skipped without a CUDA GPU; the wgmma
kernels need sm_90.

The whole waves of tiles run unsplit and the k-iterations of the last partial wave are dealt out to every CTA; a tile
whose k-iterations several CTAs hold is finished by its owner after the others' fp32 partials, in CTA order. Checked
here: every compiled wgmma tile against an fp32 reference at ragged sizes chosen so that ranges start and end inside
tiles (with whole waves before the tail and without), bias, batched GEMMs, every operand layout, bf16 and TF32 (both
operands K-major), bit-identical results run to run and across CUDA-graph replays with new inputs (the flags clear
themselves), and memcheck / racecheck-free completion under compute-sanitizer.
"""
import pytest

torch = pytest.importorskip("torch")
import origami_nv  # noqa: E402
from conftest import run_memcheck  # noqa: E402
from origami_nv import _core, _kernels  # noqa: E402

pytestmark = pytest.mark.gpu

TOL = {torch.float16: 2e-3, torch.bfloat16: 1e-2, torch.float32: 3e-3}  # float32: TF32 math


@pytest.fixture(autouse=True)
def _needs_sm90():
    if not torch.cuda.is_available():
        pytest.skip("no CUDA GPU visible")
    if torch.cuda.get_device_capability() != (9, 0):
        pytest.skip("the wgmma family (stream-K) needs sm_90")


def _wgmma_tiles(dtype):
    out = set()
    for r in _kernels.kernel_records():
        if r["dtype"] == dtype and r["family"] == "wgmma" and r.get("b_k_contiguous", True):
            c = r["config"]
            out.add((c["block_m"], c["block_n"], c["block_k"], c["stages"], c["warps"]))
    return sorted(out)


def _cfg(t, group_size_m=2):
    return dict(block_m=t[0], block_n=t[1], block_k=t[2], stages=t[3], warps=t[4], family="wgmma",
                group_size_m=group_size_m, split_k=1, stream_k=True)


def _plan(M, N, K, t, batch=1):
    return _core.make_stream_k_plan(M, N, K, batch, t[0], t[1], t[2], torch.cuda.get_device_properties(0).multi_processor_count)


def _check(a, b, cfg, dtype, bias=None):
    ref = a.float() @ b.float()
    if bias is not None:
        ref = ref + bias.float()
    out = origami_nv.matmul(a, b, bias=bias, config=cfg)
    assert out.dtype == dtype and out.shape == ref.shape
    err = ((out.float() - ref).norm() / ref.norm()).item()
    assert err < TOL[dtype], (cfg, tuple(a.shape), tuple(b.shape), err)
    again = origami_nv.matmul(a, b, bias=bias, config=cfg)
    assert torch.equal(out, again), (cfg, "stream-K result not bit-identical run to run")
    return out


def _shape_for(t, sms, whole_waves):
    """A ragged (M, N, K) for tile t whose stream-K tail has ranges that start and end inside tiles: tiles_m x tiles_n
    tiles with a partial last wave (after `whole_waves` whole ones), K not a multiple of BLOCK_K."""
    bm, bn, bk = t[0], t[1], t[2]
    tiles = whole_waves * sms + 37
    tn = 3
    tm = -(-tiles // tn)
    return tm * bm - bm // 3, tn * bn - 5, bk * 7 + 13


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_every_wgmma_tile_stream_k_matches_reference(dtype):
    tdt = torch.float16 if dtype == "float16" else torch.bfloat16
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    gen = torch.Generator(device="cuda").manual_seed(7)
    tiles = _wgmma_tiles(dtype)
    assert tiles
    for i, t in enumerate(tiles):
        M, N, K = _shape_for(t, sms, whole_waves=i % 2)
        plan = _plan(M, N, K, t)
        assert plan["ctas"] > 0, (t, M, N, K, plan)
        a = torch.randn(M, K, device="cuda", generator=gen).to(tdt)
        b = torch.randn(N, K, device="cuda", generator=gen).to(tdt).t()  # x @ w.t(): every tile reads it
        _check(a, b, _cfg(t), tdt)


def test_stream_k_layouts_bias_batch_and_few_tiles():
    gen = torch.Generator(device="cuda").manual_seed(11)
    t = (128, 128, 64, 6, 12)
    assert t in _wgmma_tiles("float16")
    # every layout (the 128x128 tile reads all four)
    for la in ("r", "c"):
        for lb in ("r", "c"):
            M, N, K = 1200, 1000, 1000
            a = torch.randn(M, K, device="cuda", generator=gen).half()
            b = torch.randn(K, N, device="cuda", generator=gen).half()
            if la == "c":
                a = a.t().contiguous().t()
            if lb == "c":
                b = b.t().contiguous().t()
            _check(a, b, _cfg(t), torch.float16)
    # bias (added once, by the tile's owner)
    a = torch.randn(1500, 2000, device="cuda", generator=gen).half()
    w = torch.randn(1900, 2000, device="cuda", generator=gen).half()
    bias = torch.randn(1900, device="cuda", generator=gen).half()
    _check(a, w.t(), _cfg(t), torch.float16, bias=bias)
    # batched: the tail spans batches
    a = torch.randn(5, 700, 900, device="cuda", generator=gen).half()
    b = torch.randn(5, 900, 650, device="cuda", generator=gen).half()
    _check(a, b, _cfg(t), torch.float16)
    # fewer tiles than SMs (no whole wave): every tile shared by several CTAs, long K
    a = torch.randn(256, 16384, device="cuda", generator=gen).half()
    b = torch.randn(16384, 384, device="cuda", generator=gen).half()
    plan = _plan(256, 384, 16384, t)
    assert plan["dp_tiles"] == 0 and plan["ctas"] == torch.cuda.get_device_properties(0).multi_processor_count
    _check(a, b, _cfg(t), torch.float16)
    # decode-sized M
    a = torch.randn(3, 4096, device="cuda", generator=gen).half()
    w = torch.randn(8000, 4096, device="cuda", generator=gen).half()
    _check(a, w.t(), _cfg((64, 128, 64, 8, 8)) if (64, 128, 64, 8, 8) in _wgmma_tiles("float16") else _cfg(t),
           torch.float16)


def test_stream_k_tf32_k_major():
    old = torch.backends.cuda.matmul.allow_tf32
    torch.backends.cuda.matmul.allow_tf32 = True
    try:
        tiles = _wgmma_tiles("tfloat32")
        assert tiles
        gen = torch.Generator(device="cuda").manual_seed(3)
        a = torch.randn(2100, 1500, device="cuda", generator=gen)
        w = torch.randn(1700, 1500, device="cuda", generator=gen)
        for t in tiles[:3]:
            _check(a, w.t(), _cfg(t), torch.float32)
    finally:
        torch.backends.cuda.matmul.allow_tf32 = old


def test_stream_k_cuda_graph_replays_with_new_inputs():
    # The flags of a captured launch keep one value across replays; the owners clear what they consume, so every
    # replay waits for its own partials.
    t = (128, 256, 64, 4, 12)
    assert t in _wgmma_tiles("float16")
    gen = torch.Generator(device="cuda").manual_seed(5)
    M, N, K = 2000, 3000, 3000
    a = torch.randn(M, K, device="cuda", generator=gen).half()
    w = torch.randn(N, K, device="cuda", generator=gen).half()
    cfg = _cfg(t)
    assert _plan(M, N, K, t)["ctas"] > 0
    origami_nv.matmul(a, w.t(), config=cfg)
    torch.cuda.synchronize()
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        out = origami_nv.matmul(a, w.t(), config=cfg)
    for seed in range(4):
        a.copy_(torch.randn(M, K, device="cuda", generator=gen).half())
        g.replay()
        ref = a.float() @ w.float().t()
        err = ((out.float() - ref).norm() / ref.norm()).item()
        assert err < 2e-3, (seed, err)
        assert torch.equal(out, origami_nv.matmul(a, w.t(), config=cfg)), "graph replay differs from eager bits"


def test_stream_k_rejects_what_it_does_not_run():
    a = torch.randn(64, 64, device="cuda").half()
    with pytest.raises(RuntimeError, match="wgmma family only"):
        torch.ops.origami_nv.matmul_config(a, a, 64, 64, 32, 1, 3, 4, 0, 1, None, True)
    with pytest.raises(RuntimeError, match="two schedules"):
        torch.ops.origami_nv.matmul_config(a, a, 128, 128, 64, 1, 6, 12, 1, 2, None, True)
    # TF32 with a row-major B below kSwappedTf32MaxM runs the swapped kernel, which has no stream-K
    old = torch.backends.cuda.matmul.allow_tf32
    torch.backends.cuda.matmul.allow_tf32 = True
    try:
        x = torch.randn(256, 512, device="cuda")
        y = torch.randn(512, 256, device="cuda")
        with pytest.raises(RuntimeError, match="stream_k runs on the wgmma kernels that read both operands"):
            origami_nv.matmul(x, y, config=_cfg((128, 128, 32, 6, 12)))
    finally:
        torch.backends.cuda.matmul.allow_tf32 = old


SANITIZER_SCRIPT = """
import torch, origami_nv
gen = torch.Generator(device="cuda").manual_seed(1)
for (M, N, K, tile) in [(1500, 1100, 1000, (128, 128, 64, 6, 12)), (300, 700, 5000, (64, 128, 64, 8, 8)),
                        (3000, 2000, 777, (128, 256, 64, 4, 12))]:
    cfg = dict(block_m=tile[0], block_n=tile[1], block_k=tile[2], stages=tile[3], warps=tile[4], family="wgmma",
               group_size_m=2, split_k=1, stream_k=True)
    a = torch.randn(M, K, device="cuda", generator=gen).half()
    w = torch.randn(N, K, device="cuda", generator=gen).half()
    bias = torch.randn(N, device="cuda", generator=gen).half()
    out = origami_nv.matmul(a, w.t(), bias=bias, config=cfg)
    ref = a.float() @ w.float().t() + bias.float()
    assert ((out.float() - ref).norm() / ref.norm()).item() < 2e-3
torch.cuda.synchronize()
print("STREAMK-SANITIZER-DONE")
"""


def test_stream_k_compute_sanitizer_memcheck(tmp_path):
    run_memcheck(SANITIZER_SCRIPT, tmp_path, "STREAMK-SANITIZER-DONE")
