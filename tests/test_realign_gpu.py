"""GPU tests of the realigning mma.sync kernels (issue 13; marked gpu: skipped without a CUDA GPU).

A realigning variant (the `_ra` kernels: gemm_mma_sync.cuh REALIGN, cpp/kernels/families/mma_sync.py) reads an
operand whose base pointer, leading dimension or batch stride is only element-aligned in place: each 16-byte chunk
from the aligned 16-byte blocks that hold it, realigned in registers, where the aligned kernels need the op to copy
the operand first. Checked here, for every compiled realigning kernel: misaligned shapes (odd M, N, K) in the three
compiled layouts against an fp32 reference, and bit for bit against the aligned twin of the same config on the same
values laid out aligned by hand (the two kernels differ only in how a chunk reaches shared memory); base pointers
off the 16-byte grid by 2..14 bytes; batched; split-K; fused bias; decode 1 x N x K. That the op runs them (and only
for misaligned operands, never the row copy then), that ORIGAMI_NV_REALIGN=0 brings the copy back, and memcheck.
Tolerance: relative Frobenius error <= 2e-3 (fp16), <= 1e-2 (bf16).
"""
import os
import subprocess
import sys
import textwrap

import pytest

torch = pytest.importorskip("torch")
import origami_nv  # noqa: E402
from conftest import run_memcheck  # noqa: E402
from origami_nv import _kernels  # noqa: E402

pytestmark = pytest.mark.gpu

TOL = {torch.float16: 2e-3, torch.bfloat16: 1e-2}
DTYPES = {"float16": torch.float16, "bfloat16": torch.bfloat16}
# (A layout, B layout) of the three compiled variants: 'r' row-major, 'c' a transposed view of row-major storage.
# KN: x @ w, KK: x @ w.t() (nn.Linear), MN: x.t() @ g (the weight gradient).
LAYOUTS = {"kn": ("r", "r"), "kk": ("r", "c"), "mn": ("c", "r")}


def _tiles(dtype):
    """Every (block_m, block_n, block_k, stages, warps) with realigning kernels for `dtype` in this build."""
    out = set()
    for r in _kernels.kernel_records():
        if r["realign"] and r["dtype"] == dtype:
            c = r["config"]
            out.add((c["block_m"], c["block_n"], c["block_k"], c["stages"], c["warps"]))
    return sorted(out)


def _ra_names(dtype):
    return {r["name"] for r in _kernels.kernel_records() if r["realign"] and r["dtype"] == dtype}


def _need_tiles(dtype):
    tiles = _tiles(dtype)
    if not tiles:
        pytest.skip("no realigning kernel in this build (kernel filter)")
    return tiles


def _cfg(t, split_k=1, group_size_m=2):
    return dict(block_m=t[0], block_n=t[1], block_k=t[2], stages=t[3], warps=t[4], family="mma_sync",
                group_size_m=group_size_m, split_k=split_k)


def _operand(rows, cols, dtype, layout, gen, batch=None, pad=0, off=0):
    """A (batch,) rows x cols operand, row-major ('r') or a transposed view of row-major storage ('c'), cut from
    storage with `pad` extra elements per row at element offset `off` (its base 2 * off bytes off the grid)."""
    r, c = (rows, cols) if layout == "r" else (cols, rows)
    shape = (r, c + pad) if batch is None else (batch, r, c + pad)
    t = torch.randn(shape, device="cuda", dtype=torch.float32, generator=gen).to(dtype)[..., off:off + c]
    return t if layout == "r" else t.transpose(-1, -2)


def _aligned(t):
    """The same values with rows on 64-element lines (read in place by the aligned kernels)."""
    if t.stride(-1) != 1:
        return _aligned(t.transpose(-1, -2)).transpose(-1, -2)
    rows, cols = t.shape[-2], t.shape[-1]
    ld = (cols + 63) // 64 * 64
    buf = torch.empty(t.shape[:-2] + (rows, ld), device="cuda", dtype=t.dtype)
    return buf[..., :cols].copy_(t)


def _poison(numel, dtype):
    t = torch.full((numel,), float("nan"), dtype=dtype, device="cuda")
    del t


def _check(out, a, b, dtype, what, bias=None):
    ref = torch.matmul(a.float(), b.float())
    if bias is not None:
        ref = ref + bias.float()
    assert out.shape == ref.shape and out.dtype == dtype, what
    assert not torch.isnan(out).any(), f"{what}: NaN in the output (unwritten element)"
    err = ((out.float() - ref).norm() / ref.norm().clamp_min(1e-30)).item()
    assert err <= TOL[dtype], f"{what}: relative Frobenius error {err:.3e} > {TOL[dtype]}"


def _run(a, b, t, dtype, what, split_k=1, bias=None, same_bits=True):
    """The op with config t on (a, b): checked against fp32, and (same_bits) bit for bit against the same config on
    aligned copies of a and b. Returns the output."""
    M, N = a.shape[-2], b.shape[-1]
    _poison(M * N * (a.shape[0] if a.dim() == 3 else 1), dtype)
    out = origami_nv.matmul(a, b, config=_cfg(t, split_k), bias=bias)
    _check(out, a, b, dtype, what, bias)
    if same_bits:
        want = origami_nv.matmul(_aligned(a), _aligned(b), config=_cfg(t, split_k), bias=bias)
        assert torch.equal(out, want), f"{what}: the realigning kernel differs from its aligned twin"
    return out


def _kernel_names(fn, need=True):
    """The CUDA kernels fn launches (torch.profiler). Without kernel events (no CUPTI): a skip when `need`, else
    None (fn has run; the caller's other checks stand)."""
    from torch.profiler import ProfilerActivity, profile
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        fn()
        torch.cuda.synchronize()
    names = {e.name for e in prof.events() if getattr(e, "device_type", None) == torch.autograd.DeviceType.CUDA}
    if not any(n.startswith("origami_") for n in names):
        if need:
            pytest.skip("torch.profiler recorded no kernel of ours (no CUPTI?)")
        return None
    return names


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_every_realign_kernel_at_misaligned_shapes_all_layouts(dtype):
    """Odd M, N and K in every compiled layout: every operand breaks the 16-byte rule (A's and B's leading
    dimensions are K / N / M), edge chunks and rows in all three dimensions, one shape long enough in K for the
    predicate-free steady loops and with interior CTAs. Every realigning kernel of the dtype runs (profiler), and
    the op never copies an operand on the way."""
    dt = DTYPES[dtype]
    gen = torch.Generator(device="cuda").manual_seed(13)
    tiles = _need_tiles(dtype)

    def body():
        for t in tiles:
            bm, bn, bk = t[:3]
            for lay, (la, lb) in LAYOUTS.items():
                for M, N, K in ((2 * bm + 5, 2 * bn + 3, 12 * bk + 9), (5, bn + 7, 45)):
                    a = _operand(M, K, dt, la, gen)
                    b = _operand(K, N, dt, lb, gen)
                    _run(a, b, t, dt, f"{t} {lay} {M}x{N}x{K}")

    names = _kernel_names(body, need=False)
    if names is not None:
        missing = _ra_names(dtype) - names
        assert not missing, f"realigning kernels that did not run: {sorted(missing)[:6]}"
        assert not any("row_copy" in n or "transpose_copy" in n for n in names), "an operand was copied"


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_base_pointer_off_the_grid(dtype):
    """Leading dimensions on the 16-byte grid, base pointers 2..14 bytes off it (a[:, off:] slices): every chunk of
    the operand starts at the same offset in its aligned block. Each offset, both operands, three layouts."""
    dt = DTYPES[dtype]
    gen = torch.Generator(device="cuda").manual_seed(14)
    tiles = _need_tiles(dtype)
    for t in (tiles[0], tiles[len(tiles) // 2], tiles[-1]):
        bm, bn, bk = t[:3]
        M, N, K = bm + 8, bn + 8, 3 * bk + 16
        for lay, (la, lb) in LAYOUTS.items():
            for off in range(1, 8):
                a = _operand(M, K, dt, la, gen, pad=8, off=off)
                b = _operand(K, N, dt, lb, gen, pad=8, off=8 - off)
                _run(a, b, t, dt, f"{t} {lay} offsets {off}/{8 - off}")


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_batched_odd_dims(dtype):
    """bmm with odd M, N, K: batch strides off the grid too, every realigning tile, three layouts."""
    dt = DTYPES[dtype]
    gen = torch.Generator(device="cuda").manual_seed(15)
    for t in _need_tiles(dtype):
        bm, bn, bk = t[:3]
        M, N, K = bm + 1, bn + 5, 2 * bk + 3
        for lay, (la, lb) in LAYOUTS.items():
            a = _operand(M, K, dt, la, gen, batch=3)
            b = _operand(K, N, dt, lb, gen, batch=3)
            _run(a, b, t, dt, f"{t} {lay} batched 3x{M}x{N}x{K}")


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_split_k_and_bias(dtype):
    """Split-K (3 and 8 slices: partials and the reduction) and the fused bias, with and without a split, on
    misaligned operands. Checked against fp32 (a split schedule depends on the kernel's CTAs per SM, which differ
    from the aligned twin's, so not bit for bit)."""
    dt = DTYPES[dtype]
    gen = torch.Generator(device="cuda").manual_seed(16)
    for t in _need_tiles(dtype):
        bm, bn, bk = t[:3]
        M, N, K = bm + 3, 2 * bn + 7, 10 * bk + 11
        bias = (torch.randn(N, device="cuda", generator=gen) * 4).to(dt)
        for lay, (la, lb) in LAYOUTS.items():
            a = _operand(M, K, dt, la, gen)
            b = _operand(K, N, dt, lb, gen)
            for split in (3, 8):
                _run(a, b, t, dt, f"{t} {lay} split {split}", split_k=split, same_bits=False)
            _run(a, b, t, dt, f"{t} {lay} bias", bias=bias)
            _run(a, b, t, dt, f"{t} {lay} bias split 3", split_k=3, bias=bias, same_bits=False)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_decode_1xNxK(dtype):
    """Decode: M = 1 (A is one row, every CTA at the M edge), B 4099 x 4097 row-major (ld 4097) or the nn.Linear
    weight 4097 x 4099 (ld 4099): every realigning tile, unsplit and split 4."""
    dt = DTYPES[dtype]
    gen = torch.Generator(device="cuda").manual_seed(17)
    N, K = 4097, 4099
    x = _operand(1, K, dt, "r", gen)
    w_kn = _operand(K, N, dt, "r", gen)
    w_kk = _operand(K, N, dt, "c", gen)
    for t in _need_tiles(dtype):
        for name, b in (("kn", w_kn), ("kk", w_kk)):
            _run(x, b, t, dt, f"{t} decode {name}")
            _run(x, b, t, dt, f"{t} decode {name} split 4", split_k=4, same_bits=False)


def test_model_picks_on_misaligned_problems():
    """The op's own pick (no config) on the brief's small and decode shapes with misaligned operands, in the layouts
    the shapes come in: correct, and where the pick has a realigning kernel no operand is copied."""
    gen = torch.Generator(device="cuda").manual_seed(18)
    dt = torch.float16
    for M, N, K, lay in ((1, 4097, 4099, "kn"), (8, 4097, 4099, "kk"), (127, 129, 130, "kn"), (255, 257, 259, "kn"),
                         (127, 129, 130, "mn"), (33, 4099, 513, "kk")):
        la, lb = LAYOUTS[lay]
        a = _operand(M, K, dt, la, gen)
        b = _operand(K, N, dt, lb, gen)
        out = {}
        names = _kernel_names(lambda: out.setdefault("c", origami_nv.matmul(a, b)), need=False)
        _check(out["c"], a, b, dt, f"pick {M}x{N}x{K} {lay}")
        if names and any(n.endswith("_ra") for n in names):
            assert not any("row_copy" in n for n in names), (M, N, K, lay, names)


def test_aligned_operands_never_run_a_realigning_kernel():
    """With every operand on the 16-byte grid the op keeps the aligned variant of a config that has both (the plan
    prefers it on a tie of copy cost; find_kernel returns it)."""
    gen = torch.Generator(device="cuda").manual_seed(19)
    tiles = _need_tiles("float16")

    def body():
        for t in tiles:
            bm, bn, bk = t[:3]
            for lay, (la, lb) in LAYOUTS.items():
                a = _operand(bm + 8, 4 * bk, torch.float16, la, gen)
                b = _operand(4 * bk, bn + 8, torch.float16, lb, gen)
                _check(origami_nv.matmul(a, b, config=_cfg(t)), a, b, torch.float16, f"{t} {lay} aligned")

    names = _kernel_names(body)
    assert not any(n.endswith("_ra") for n in names), sorted(n for n in names if n.endswith("_ra"))[:4]


SWITCH_SCRIPT = textwrap.dedent("""
    import sys, torch, origami_nv
    from torch.profiler import ProfilerActivity, profile
    from origami_nv import _kernels
    t = sorted({(r["config"]["block_m"], r["config"]["block_n"], r["config"]["block_k"], r["config"]["stages"],
                 r["config"]["warps"]) for r in _kernels.kernel_records() if r["realign"]})[0]
    cfg = dict(block_m=t[0], block_n=t[1], block_k=t[2], stages=t[3], warps=t[4], family="mma_sync", group_size_m=2)
    a = torch.randn(37, 131, device="cuda").half()
    b = torch.randn(131, 45, device="cuda").half()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        c = origami_nv.matmul(a, b, config=cfg)
        torch.cuda.synchronize()
    ref = a.float() @ b.float()
    assert ((c.float() - ref).norm() / ref.norm()).item() < 2e-3
    names = {e.name for e in prof.events() if getattr(e, "device_type", None) == torch.autograd.DeviceType.CUDA}
    if not any(n.startswith("origami_") for n in names):
        print("NO-PROFILE")
        sys.exit(0)
    print("RA" if any(n.endswith("_ra") for n in names) else "NO-RA", "COPY" if any("row_copy" in n for n in names)
          else "NO-COPY", "model-realign-layouts", sum(r["realign_layouts"] for r in
                                                       _kernels.compiled_kernel_resources("float16")) > 0)
""")


def test_env_switch_brings_the_copy_back():
    """ORIGAMI_NV_REALIGN=0 (read once, so in a fresh process): the realigning kernels are out of the op's plans and
    the model's kernels, the misaligned operands are copied (row_copy.cu) and the aligned kernel runs."""
    _need_tiles("float16")
    out = {}
    for v in ("1", "0"):
        env = dict(os.environ, ORIGAMI_NV_REALIGN=v)
        p = subprocess.run([sys.executable, "-c", SWITCH_SCRIPT], capture_output=True, text=True, timeout=300, env=env)
        assert p.returncode == 0, p.stdout[-2000:] + p.stderr[-3000:]
        out[v] = p.stdout.strip().splitlines()[-1]
        if out[v] == "NO-PROFILE":
            pytest.skip("torch.profiler recorded no kernel of ours (no CUPTI?)")
    assert out["1"] == "RA NO-COPY model-realign-layouts True", out
    assert out["0"] == "NO-RA COPY model-realign-layouts False", out


MEMCHECK_SCRIPT = textwrap.dedent("""
    import torch, origami_nv
    from origami_nv import _kernels
    tiles = sorted({(r["config"]["block_m"], r["config"]["block_n"], r["config"]["block_k"], r["config"]["stages"],
                     r["config"]["warps"]) for r in _kernels.kernel_records() if r["realign"] and
                    r["dtype"] == "float16"})
    torch.manual_seed(0)
    for t in tiles:
        cfg = dict(block_m=t[0], block_n=t[1], block_k=t[2], stages=t[3], warps=t[4], family="mma_sync",
                   group_size_m=2)
        for M, N, K in ((1, 9, 7), (t[0] + 3, t[1] + 5, 2 * t[2] + 9)):
            for off in (0, 1, 7):
                # operands ending at the end of their storage: the last chunk's aligned blocks are read
                a = torch.randn(M, K + off, device="cuda").half()[:, off:]
                b = torch.randn(K * N + off, device="cuda").half()[off:].view(K, N)
                origami_nv.matmul(a, b, config=cfg)
                origami_nv.matmul(a, b.t().contiguous().t(), config=cfg)
                origami_nv.matmul(a.t().contiguous().t(), b, config=dict(cfg, split_k=3))
    torch.cuda.synchronize()
    print("REALIGN-MEMCHECK-DONE")
""")


def test_realign_compute_sanitizer_memcheck(tmp_path):
    """No realigning load leaves the operands' allocations (with torch's caching allocator, as the op runs:
    memcheck sees its segments), no shared-memory access out of bounds."""
    _need_tiles("float16")
    run_memcheck(MEMCHECK_SCRIPT, tmp_path, "REALIGN-MEMCHECK-DONE")
