"""GPU tests of the origami_nv op and the mma.sync kernels (marked gpu: skipped without a CUDA GPU).

Every compiled mma_sync config is run at two sizes (edges in M, N and K) against an fp32 reference on
fresh random inputs, with the output memory poisoned with NaN first (the op allocates C; a NaN-filled
block of the same size is freed just before, so the caching allocator hands it back) so an unwritten
element fails. A rotating subset of configs runs at odd sizes from {1, 7, 129, 1000, 4097}.
Tolerance: relative Frobenius error <= 2e-3 (fp16), <= 1e-2 (bf16).
"""
import json
import textwrap

import pytest

torch = pytest.importorskip("torch")
import origami_nv  # noqa: E402
from conftest import require_compiled, run_memcheck  # noqa: E402
from origami_nv import _kernels  # noqa: E402

pytestmark = pytest.mark.gpu

TOL = {torch.float16: 2e-3, torch.bfloat16: 1e-2}
DTYPES = {"float16": torch.float16, "bfloat16": torch.bfloat16}
ODD = [1, 7, 129, 1000, 4097]


def _records():
    # one record per kernel and SASS arch; the arch is whatever the build targeted (sm_90, sm_90a, ...)
    seen = {}
    for r in _kernels.kernel_records():
        if r["family"] == "mma_sync":
            seen.setdefault(r["name"], r)
    return list(seen.values())


def _configs(dtype):
    seen = {}
    for r in _records():
        if r["dtype"] == dtype:
            c = r["config"]
            seen[(c["block_m"], c["block_n"], c["block_k"], c["stages"], c["warps"])] = r
    return sorted(seen)


def _poison(numel, dtype):
    t = torch.full((numel,), float("nan"), dtype=dtype, device="cuda")
    del t


def _operand(rows, cols, dtype, layout, batch=None, gen=None):
    """A (batch,) rows x cols operand, row-major ('r') or a transposed view of column-major storage ('c')."""
    shape = (rows, cols) if layout == "r" else (cols, rows)
    if batch is not None:
        shape = (batch,) + shape
    t = torch.randn(shape, device="cuda", dtype=torch.float32, generator=gen).to(dtype)
    return t if layout == "r" else t.transpose(-1, -2)


def _check(out, a, b, dtype, what):
    ref = torch.matmul(a.float(), b.float())
    assert out.shape == ref.shape, what
    assert out.dtype == dtype, what
    assert not torch.isnan(out).any(), f"{what}: NaN in the output (unwritten element)"
    err = ((out.float() - ref).norm() / ref.norm().clamp_min(1e-30)).item()
    assert err <= TOL[dtype], f"{what}: relative Frobenius error {err:.3e} > {TOL[dtype]}"


def _run_config(cfg, a, b, dtype):
    M, N = a.shape[-2], b.shape[-1]
    numel = M * N * (a.shape[0] if a.dim() == 3 else 1)
    _poison(numel, dtype)
    c = dict(block_m=cfg[0], block_n=cfg[1], block_k=cfg[2], stages=cfg[3], warps=cfg[4], group_size_m=3,
             family="mma_sync")
    return origami_nv.matmul(a, b, config=c)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_every_config_two_sizes_all_layouts(dtype):
    dt = DTYPES[dtype]
    configs = _configs(dtype)
    require_compiled(configs, "mma_sync kernels")
    gen = torch.Generator(device="cuda").manual_seed(0)
    layouts = [("r", "r"), ("r", "c"), ("c", "r"), ("c", "c")]  # kn, kk, mn kernels; cc: copy + kk/mn
    for i, cfg in enumerate(configs):
        bm, bn, bk = cfg[:3]
        # size 1: ragged edges in every dimension, > 1 tile each way, K > one pipeline's worth
        # size 2: exact tile multiples
        sizes = [(2 * bm + 3, 2 * bn + 5, 3 * bk + 8), (bm, bn, 2 * bk)]
        for j, (M, N, K) in enumerate(sizes):
            la, lb = layouts[(i + j) % 4]
            a = _operand(M, K, dt, la, gen=gen)
            b = _operand(K, N, dt, lb, gen=gen)
            _check(_run_config(cfg, a, b, dt), a, b, dt, f"{cfg} {la}{lb} {M}x{N}x{K}")


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_every_config_steady_state_loop(dtype):
    """The kernel copies the k-tiles of a CTA away from the M and N edges without predicates while the
    tile being loaded is full in K (gemm_mma_sync.cuh: the steady-state loop) and switches to the
    predicated copy for the rest. The sizes above (K = 2-3 k-tiles) barely reach that loop, so here
    every compiled config runs with K long enough for the ring to wrap several times (stages + 3
    k-tiles): once at exact tile multiples (every CTA interior, every k-tile full), once with ragged
    M, N and a K remainder (steady loop then edge loop in one launch), rotating over the three
    compiled operand layouts (kn, kk, mn: no copy)."""
    dt = DTYPES[dtype]
    configs = _configs(dtype)
    require_compiled(configs, "mma_sync kernels")
    gen = torch.Generator(device="cuda").manual_seed(3)
    layouts = [("r", "r"), ("r", "c"), ("c", "r")]
    for i, cfg in enumerate(configs):
        bm, bn, bk, stages = cfg[:4]
        k_long = (stages + 3) * bk
        for j, (M, N, K) in enumerate([(2 * bm, 2 * bn, k_long), (2 * bm + 5, bn + 3, k_long + 24)]):
            la, lb = layouts[(i + j) % 3]
            a, b = _operand(M, K, dt, la, gen=gen), _operand(K, N, dt, lb, gen=gen)
            _check(_run_config(cfg, a, b, dt), a, b, dt, f"{cfg} {la}{lb} {M}x{N}x{K}")

@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_every_config_at_the_m_edge_with_stale_shared_memory(dtype):
    """Where every CTA is at the M edge (M < BLOCK_M, decode) with A row-major, the steady loop copies A's M rows
    only and leaves the tile's other rows of each stage as they were (gemm_mma_sync.cuh copy_rows): whatever they
    hold must not reach C. Each config first runs a GEMM whose C tiles are all inf (so the CTAs' shared memory,
    which stages C in the epilogue, is left full of inf), then at M = 1 and M = BLOCK_M - 1 (or 1) with K long
    enough for the ring to wrap (stages + 3 k-tiles and a K remainder), N two whole tiles (the steady loop) plus
    a ragged one, both B layouts; the output is checked against the reference and for NaN/inf."""
    dt = DTYPES[dtype]
    configs = _configs(dtype)
    require_compiled(configs, "mma_sync kernels")
    gen = torch.Generator(device="cuda").manual_seed(5)
    for i, cfg in enumerate(configs):
        bm, bn, bk, stages = cfg[:4]
        k_long = (stages + 3) * bk + 24
        # 12 x 12 tiles: more CTAs than SMs, so every SM the next launch can use staged inf
        inf_a = torch.full((12 * bm, bk), float("inf"), device="cuda", dtype=dt)
        inf_b = torch.ones((bk, 12 * bn), device="cuda", dtype=dt)
        for M in sorted({1, max(1, bm - 1)}):
            _run_config(cfg, inf_a, inf_b, dt)  # C = inf everywhere: stale inf in every SM's shared memory
            lb = "rc"[(i + M) % 2]
            a = _operand(M, k_long, dt, "r", gen=gen)
            b = _operand(k_long, 2 * bn + 7, dt, lb, gen=gen)
            out = _run_config(cfg, a, b, dt)
            assert torch.isfinite(out).all(), f"{cfg} r{lb} M={M}: non-finite output (stale shared memory reached C)"
            _check(out, a, b, dt, f"{cfg} r{lb} {M}x{2 * bn + 7}x{k_long}")


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_odd_sizes_rotating_subset(dtype):
    dt = DTYPES[dtype]
    configs = _configs(dtype)
    gen = torch.Generator(device="cuda").manual_seed(1)
    combos = [(m, n, k) for m in ODD for n in ODD for k in ODD if m * n * k <= 4097 * 1000 * 129]
    step = max(1, len(configs) // 24)
    for idx, cfg in enumerate(configs[::step]):
        for t in range(3):
            M, N, K = combos[(idx * 3 + t) * 7 % len(combos)]
            la, lb = "rc"[(idx + t) % 2], "rc"[(idx // 2 + t) % 2]
            a = _operand(M, K, dt, la, gen=gen)
            b = _operand(K, N, dt, lb, gen=gen)
            _check(_run_config(cfg, a, b, dt), a, b, dt, f"{cfg} {la}{lb} {M}x{N}x{K}")


def test_selected_kernel_shape_forms_and_layouts():
    dt = torch.float16
    gen = torch.Generator(device="cuda").manual_seed(2)
    r = lambda *s: torch.randn(*s, device="cuda", generator=gen).to(dt)  # noqa: E731
    x, w = r(4, 33, 64), r(96, 64)
    cases = {
        "2d": (r(300, 200), r(200, 129)),
        "2d A^T": (r(200, 300).t(), r(200, 129)),
        "2d B^T": (r(300, 200), r(129, 200).t()),
        "2d A^T B^T": (r(200, 300).t(), r(129, 200).t()),
        "batched": (r(3, 65, 80), r(3, 80, 40)),
        "batched transposed": (r(3, 80, 65).transpose(1, 2), r(3, 40, 80).transpose(1, 2)),
        "linear x @ w.t()": (x, w.t()),
        "4-D @ 2-D": (r(2, 3, 17, 64), r(64, 24)),
        "odd K copy": (r(31, 7), r(7, 13)),
        "strided (copy)": (r(64, 256)[:, ::2], r(128, 48)),
        "misaligned slice (copy)": (r(64, 129)[:, 1:], r(128, 32)),
        "expanded batch": (r(1, 16, 32).expand(4, 16, 32), r(4, 32, 16)),
    }
    for name, (a, b) in cases.items():
        _poison(a.shape[-2] * b.shape[-1] * 16, dt)
        _check(origami_nv.matmul(a, b), a, b, dt, name)


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16, torch.float32])
def test_misaligned_operand_copy_is_exact(dtype):
    """An operand the kernels cannot read in place (a base off the 16-byte grid, an odd leading dimension) is copied
    into 128-byte aligned rows first (ops_cuda.cpp padded_copy -> cpp/kernels/row_copy.cu, which realigns 16-byte
    blocks in registers). The same kernel on the same values laid out aligned by hand gives the same bits: any
    element the copy moved wrongly shows. Every base offset of a 16-byte block, rows that end in a partial chunk,
    a batch whose stride breaks the grid, a column-major source (its rows are the copy's rows), and decode."""
    gen = torch.Generator(device="cuda").manual_seed(21)

    def aligned(t):  # the same values, rows on 64-element lines: read in place by every kernel
        rows, cols = t.shape[-2], t.shape[-1]
        ld = (cols + 63) // 64 * 64
        buf = torch.empty(t.shape[:-2] + (rows, ld), device="cuda", dtype=t.dtype)
        return buf[..., :cols].copy_(t)

    def same_bits(a, b, what):
        cfg = origami_nv.select(a.shape[-2], b.shape[-1], a.shape[-1], dtype=dtype,
                                batch=a.shape[0] if a.dim() == 3 else 1).to_dict()
        cfg["split_k"] = 1
        out = origami_nv.matmul(a, b, config=cfg)
        want = origami_nv.matmul(aligned(a) if a.stride(-1) == 1 else aligned(a.mT).mT,
                                 aligned(b) if b.stride(-1) == 1 else aligned(b.mT).mT, config=cfg)
        assert torch.equal(out, want), f"{what} ({cfg}): the copied operand differs from the aligned one"
        if dtype != torch.float32:
            _check(out, a, b, dtype, what)

    r = lambda *s: torch.randn(*s, device="cuda", generator=gen).to(dtype)  # noqa: E731
    for off in range(8):
        big = r(19, 37 + 9)
        same_bits(big[:, off:off + 37], r(37, 23), f"A base +{off} elements, ld 46")
        same_bits(r(19, 37), r(37, 23 + 9)[:, off:off + 23], f"B base +{off} elements, ld 32")
    same_bits(r(3, 17, 41)[:, :, 1:], r(3, 40, 9), "batched A, ld 41, batch stride 697")
    same_bits(r(40, 17).t(), r(40, 9), "column-major A with rows of 17")
    same_bits(r(1, 4099), r(4097, 4099).t(), "decode: W of 4097 x 4099 read as W.t()")


def test_zero_sizes():
    z = torch.empty(0, 8, device="cuda", dtype=torch.float16)
    assert origami_nv.matmul(z, torch.randn(8, 4, device="cuda").half()).shape == (0, 4)
    c = origami_nv.matmul(torch.randn(5, 0, device="cuda").half(), torch.randn(0, 3, device="cuda").half())
    assert c.shape == (5, 3) and bool((c == 0).all())


def test_errors():
    a = torch.randn(8, 8, device="cuda", dtype=torch.float16)
    with pytest.raises(TypeError, match="dtype mismatch"):
        origami_nv.matmul(a, a.bfloat16())
    with pytest.raises(TypeError, match="unsupported dtype.*supported: torch.float16, torch.bfloat16, torch.float32"):
        origami_nv.matmul(a.double(), a.double())
    with pytest.raises(RuntimeError, match="same device"):
        origami_nv.matmul(a, a.cpu())
    with pytest.raises(RuntimeError, match="inner dimensions"):
        origami_nv.matmul(a, torch.randn(7, 8, device="cuda", dtype=torch.float16))
    with pytest.raises(RuntimeError, match="unsupported ranks"):
        origami_nv.matmul(a[0], a)
    bad = dict(block_m=96, block_n=128, block_k=32, stages=3, warps=8, group_size_m=1, family="mma_sync")
    with pytest.raises(RuntimeError, match="not compiled.*Closest compiled configs: \\(block_m="):
        origami_nv.matmul(a, a, config=bad)
    if torch.cuda.device_count() > 1:
        with pytest.raises(RuntimeError, match="same device"):
            origami_nv.matmul(a, a.to("cuda:1"))


def test_autograd_and_opcheck():
    gen = torch.Generator(device="cuda").manual_seed(3)
    for shapes in [((37, 64), (64, 40)), ((3, 20, 32), (3, 32, 24)), ((2, 5, 32), (32, 16))]:
        a = torch.randn(*shapes[0], device="cuda", generator=gen).half().requires_grad_()
        b = torch.randn(*shapes[1], device="cuda", generator=gen).half().requires_grad_()
        g = torch.randn(*torch.matmul(a, b).shape, device="cuda", generator=gen).half()
        origami_nv.matmul(a, b).backward(g)
        a32, b32 = a.detach().float().requires_grad_(), b.detach().float().requires_grad_()
        torch.matmul(a32, b32).backward(g.float())
        for got, want in ((a.grad, a32.grad), (b.grad, b32.grad)):
            assert ((got.float() - want).norm() / want.norm()).item() < 5e-3
    args = (torch.randn(33, 64, device="cuda").half(), torch.randn(64, 48, device="cuda").half())
    torch.library.opcheck(torch.ops.origami_nv.matmul.default, args)
    # the compiled 64x64x64 kernel's stages/warps (families/mma_sync.py's rule decides them)
    c = next(r["config"] for r in _records() if r["dtype"] == "float16"
             and (r["config"]["block_m"], r["config"]["block_n"], r["config"]["block_k"]) == (64, 64, 64))
    torch.library.opcheck(torch.ops.origami_nv.matmul_config.default,
                          args + (64, 64, 64, 2, c["stages"], c["warps"], 0))


def test_select_config_with_a_misaligned_operand_keeps_its_copy_streamed():
    # 1 x 4097 x 4099, B row-major with N = 4097: matmul copies B first. The pick must be a kernel with an
    # N-contiguous B variant (the copy streams rows), not one of the K-major-only wgmma 64xBN tiles (a transposing
    # gather, 3x: the H100 op ran 144 us that way against 45 us); matmul computes it right either way.
    cfg = torch.ops.origami_nv.select_config(1, 4097, 4099, "float16", 1, "nn", False, True, False)
    n_major = {(r["config"]["block_m"], r["config"]["block_n"], r["config"]["block_k"]) for r in _kernels.kernel_records()
               if r["dtype"] == "float16" and not r["b_k_contiguous"]}
    assert (cfg[0], cfg[1], cfg[2]) in n_major, cfg
    a = torch.randn(1, 4099, device="cuda", dtype=torch.float16)
    b = torch.randn(4099, 4097, device="cuda", dtype=torch.float16)
    ref = a.float() @ b.float()
    assert ((origami_nv.matmul(a, b).float() - ref).norm() / ref.norm()).item() < 2e-3


def test_select_config_is_compiled():
    for dtype in ("float16", "bfloat16"):
        for M, N, K in [(1, 1, 1), (128, 4096, 4096), (4096, 4096, 4096), (1000, 7, 129)]:
            cfg = torch.ops.origami_nv.select_config(M, N, K, dtype)
            assert len(cfg) == 9 and cfg[7] >= 1 and cfg[8] in (0, 1)  # the 7 tile fields, split_k, swap_ab
            names = {(r["config"]["block_m"], r["config"]["block_n"], r["config"]["block_k"],
                      r["config"]["stages"], r["config"]["warps"]) for r in _kernels.kernel_records()
                     if r["dtype"] == dtype}
            assert (cfg[0], cfg[1], cfg[2], cfg[4], cfg[5]) in names, cfg


def test_driver_resources_match_ptxas_table():
    dev = json.loads(torch.ops.origami_nv.device_kernel_resources())
    major, minor = torch.cuda.get_device_capability()
    by_name = {d["name"]: d for d in dev["kernels"]}
    checked = 0
    for r in _kernels.kernel_records():
        if r["arch"] not in (f"sm_{major}{minor}", f"sm_{major}{minor}a"):
            continue
        d = by_name[r["name"]]
        assert d["error"] is None, (r["name"], d["error"])
        assert d["num_regs"] == r["registers_per_thread"], r["name"]
        assert d["local_size_bytes"] == r["local_bytes"], r["name"]
        assert d["max_threads_per_block"] >= r["threads"], r["name"]
        assert d["max_active_blocks_per_sm"] >= 1, r["name"]
        # the ping-pong schedule registered with the kernel it sits beside (the table's `pingpong`: compiled, no spill)
        assert d["ping_pong"] == ("pingpong" in r), r["name"]
        checked += 1
    assert checked > 0


def _chain_configs():
    """Short-running configs of both families (the overlap of programmatic dependent launch matters most
    where kernels are short): the smallest and a mid mma_sync tile, and a wgmma tile if compiled here."""
    out = []
    for cfg in _configs("float16"):
        if cfg[:3] in ((16, 16, 64), (64, 64, 64)):
            out.append(dict(block_m=cfg[0], block_n=cfg[1], block_k=cfg[2], stages=cfg[3], warps=cfg[4],
                            group_size_m=1, family="mma_sync"))
    if torch.cuda.get_device_capability() == (9, 0):
        for r in _kernels.kernel_records():
            c = r["config"]
            if r["family"] == "wgmma" and r["dtype"] == "float16" and (c["block_m"], c["block_n"]) == (128, 64):
                out.append(dict(c, group_size_m=1))
                break
    assert len(out) >= 2, out
    return out


@pytest.mark.parametrize("pdl", [True, False])
def test_dependent_chain_sees_previous_output(pdl):
    """A chain x_{i+1} = x_i @ W_i where every GEMM reads the previous GEMM's output, with NaN poison under
    each fresh output and a torch elementwise kernel between some steps: with programmatic dependent launch
    a kernel starts before its predecessor ends, and griddepcontrol.wait is what keeps it from reading
    stale or poisoned data. Eager and replayed from a CUDA graph; each step is checked against its own
    (final) input."""
    gen = torch.Generator(device="cuda").manual_seed(11)
    cfgs = _chain_configs()
    n = 256
    ws = [(torch.randn(n, n, device="cuda", generator=gen) / n ** 0.5).half() for _ in range(12)]
    x0 = torch.randn(n, n, device="cuda", generator=gen).half()

    def chain(x):
        xs = [x]
        for i, w in enumerate(ws):
            _poison(n * n, torch.float16)
            y = origami_nv.matmul(xs[-1], w, config=cfgs[i % len(cfgs)])
            xs.append(y * 1.0 if i % 3 == 2 else y)  # a torch kernel between some GEMMs
        return xs

    with origami_nv.programmatic_dependent_launch(pdl):
        xs = chain(x0)
        torch.cuda.synchronize()
        for i, w in enumerate(ws):
            _check(xs[i + 1], xs[i], w, torch.float16, f"eager step {i} ({cfgs[i % len(cfgs)]}, pdl={pdl})")
        static_x = x0.clone()
        chain(static_x)  # warm-up outside capture (lazy init, smem attributes)
        torch.cuda.synchronize()
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g):
            gxs = chain(static_x)
        for _ in range(3):
            static_x.copy_(torch.randn(n, n, device="cuda", generator=gen).half())
            g.replay()
            torch.cuda.synchronize()
            for i, w in enumerate(ws):
                _check(gxs[i + 1], gxs[i], w, torch.float16, f"graph step {i} ({cfgs[i % len(cfgs)]}, pdl={pdl})")


def test_graph_overlaps_only_after_our_kernels():
    """While a CUDA graph is captured a GEMM overlaps (programmatic dependent launch) only the kernels of this library
    (registry.hpp, follows_library_kernels): in [elementwise, GEMM, GEMM, split GEMM, GEMM] the GEMMs after a GEMM
    overlap and the first does not; eager launches always do; with PDL off none does. Counted by the op
    (gemm_launch_counts), and the replayed graph computes what eager mode does."""
    from origami_nv.ops import load_op
    load_op()  # registers torch.ops.origami_nv.* (this test may run alone)
    counts = torch.ops.origami_nv.gemm_launch_counts
    cc = torch.cuda.get_device_capability()
    if cc < (9, 0):
        pytest.skip("programmatic dependent launch needs sm_90+")
    gen = torch.Generator(device="cuda").manual_seed(5)
    x = torch.randn(64, 256, device="cuda", generator=gen).half()
    w = [(torch.randn(256, 256, device="cuda", generator=gen) / 16).half() for _ in range(4)]
    split = dict(_chain_configs()[0], split_k=2)  # 16x16x64 mma_sync: 64 tiles in two slices, a reduction kernel

    def step(x):
        h = x * 2.0                                  # a torch kernel first
        y = origami_nv.matmul(h, w[0])              # after it: no overlap while captured
        y = origami_nv.matmul(y, w[1])              # after our GEMM: overlap
        y = origami_nv.matmul(y, w[2], config=split)  # after our GEMM (its reduction follows it in any case)
        return origami_nv.matmul(y, w[3])           # after our GEMM or our reduction: overlap

    for pdl in (True, False):
        with origami_nv.programmatic_dependent_launch(pdl):
            want = step(x)
            torch.cuda.synchronize()
            c0 = counts()
            step(x)
            c1 = counts()
            assert c1[0] - c0[0] == 4 and c1[1] - c0[1] == (4 if pdl else 0), (pdl, c0, c1)  # eager
            g = torch.cuda.CUDAGraph()
            with torch.cuda.graph(g):
                got = step(x)
            c2 = counts()
            assert c2[0] - c1[0] == 4 and c2[1] - c1[1] == (3 if pdl else 0), (pdl, c1, c2)  # captured
            g.replay()
            torch.cuda.synchronize()
            assert torch.equal(got, want), f"graph replay differs from eager (pdl={pdl})"


def test_graph_gemm_overlaps_its_operand_copy():
    """An operand the op copies first (rows off the 16-byte rule, for a wgmma tile, which has no realigning variant)
    goes through the op's row copy (cpp/kernels/row_copy.cu), chained at this size (a kernel of this library): while a
    CUDA graph is captured, the GEMM after its copy overlaps it (programmatic dependent launch; before the fifty-seventh
    session it never did), whether the copy followed a torch kernel or our GEMM; with PDL off none does. The copies wait for the
    kernel before them (K = 257: A is the torch kernel's fresh output; then a view of the previous GEMM's output at a
    2-byte offset), so the replayed graph computes what eager mode does, and both match fp32."""
    from origami_nv.ops import load_op
    load_op()
    counts = torch.ops.origami_nv.gemm_launch_counts
    if torch.cuda.get_device_capability() != (9, 0):
        pytest.skip("the wgmma family (sm_90a) and programmatic dependent launch")
    cfg = [c for c in _chain_configs() if c.get("family") == "wgmma"][0]
    gen = torch.Generator(device="cuda").manual_seed(7)
    x = torch.randn(64, 257, device="cuda", generator=gen).half()
    w0 = (torch.randn(257, 256, device="cuda", generator=gen) / 16).half()
    w1 = (torch.randn(255, 128, device="cuda", generator=gen) / 16).half()

    def step(x):
        h = x * 2.0                                         # a torch kernel; its output's rows are 514 bytes
        y = origami_nv.matmul(h, w0, config=cfg)            # copy of h (after torch's kernel), GEMM after the copy
        return y, origami_nv.matmul(y[:, 1:], w1, config=cfg)  # copy of a misaligned view (after our GEMM), GEMM

    for pdl in (True, False):
        with origami_nv.programmatic_dependent_launch(pdl):
            want_y, want = step(x)
            torch.cuda.synchronize()
            _check(want_y, x * 2.0, w0, torch.float16, f"eager first GEMM (pdl={pdl})")
            _check(want, want_y[:, 1:], w1, torch.float16, f"eager second GEMM (pdl={pdl})")
            c1 = counts()
            g = torch.cuda.CUDAGraph()
            with torch.cuda.graph(g):
                _, got = step(x)
            c2 = counts()
            assert c2[0] - c1[0] == 2 and c2[1] - c1[1] == (2 if pdl else 0), (pdl, c1, c2)
            got.fill_(float("nan"))
            g.replay()
            torch.cuda.synchronize()
            assert torch.equal(got, want), f"graph replay differs from eager (pdl={pdl})"
    # Above the op's bound (ops_cuda.cpp kCopyChainMaxFlop, 16 GFLOP) the copy is not chained: the GEMM after it does
    # not overlap it while captured (2 x 2048 x 2048 x 2049 = 17.2 GFLOP).
    xb = torch.randn(2048, 2049, device="cuda", generator=gen).half()
    wb = (torch.randn(2049, 2048, device="cuda", generator=gen) / 64).half()
    want = origami_nv.matmul(xb * 2.0, wb, config=cfg)
    torch.cuda.synchronize()
    c1 = counts()
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        got = origami_nv.matmul(xb * 2.0, wb, config=cfg)
    c2 = counts()
    assert c2[0] - c1[0] == 1 and c2[1] - c1[1] == 0, (c1, c2)
    g.replay()
    torch.cuda.synchronize()
    assert torch.equal(got, want), "graph replay differs from eager (a copy not chained)"


SANITIZER_SCRIPT = textwrap.dedent("""
    import torch, origami_nv
    from origami_nv import _kernels
    recs = [r for r in _kernels.kernel_records() if r["family"] == "mma_sync" and r["dtype"] == "float16"]
    cfgs = sorted({(r["config"]["block_m"], r["config"]["block_n"], r["config"]["block_k"], r["config"]["stages"],
                    r["config"]["warps"]) for r in recs})
    torch.manual_seed(0)
    sizes = [(1, 1, 1), (7, 129, 13), (129, 7, 1000), (33, 65, 17)]
    for i, c in enumerate(cfgs[:: max(1, len(cfgs) // 12)]):
        for M, N, K in sizes:
            cfg = dict(block_m=c[0], block_n=c[1], block_k=c[2], stages=c[3], warps=c[4], group_size_m=2)
            for ta in (False, True):
                a = torch.randn(K, M, device="cuda").half().t() if ta else torch.randn(M, K, device="cuda").half()
                b = torch.randn(K, N, device="cuda").half()
                origami_nv.matmul(a, b, config=cfg)
    # operands the op copies into aligned rows first (cpp/kernels/row_copy.cu): every base offset, a partial last
    # chunk, fp32
    for off in range(8):
        for dt in (torch.float16, torch.float32):
            a = torch.randn(19, 46, device="cuda").to(dt)[:, off:off + 37]
            origami_nv.matmul(a, torch.randn(37, 23, device="cuda").to(dt))
    torch.cuda.synchronize()
    print("SANITIZER-SCRIPT-DONE")
""")


def test_compute_sanitizer_memcheck(tmp_path):
    run_memcheck(SANITIZER_SCRIPT, tmp_path, "SANITIZER-SCRIPT-DONE")


def test_negative_bit_view_is_resolved():
    """The kernels read raw storage; a negation-bit view must be materialised first (ops_cuda.cpp run())."""
    gen = torch.Generator(device="cuda").manual_seed(12)
    a = torch.randn(33, 64, device="cuda", generator=gen).half()
    b = torch.randn(64, 40, device="cuda", generator=gen).half()
    bias = torch.randn(40, device="cuda", generator=gen).half()
    _check(origami_nv.matmul(torch._neg_view(a), b), -a, b, torch.float16, "neg view A")
    _check(origami_nv.matmul(a, torch._neg_view(b)), a, -b, torch.float16, "neg view B")
    out = origami_nv.matmul(a, b, bias=torch._neg_view(bias))
    ref = a.float() @ b.float() - bias.float()
    assert ((out.float() - ref).norm() / ref.norm()).item() < 2e-3
