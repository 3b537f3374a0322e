"""The wgmma family on the GPU (sm_90): results against an fp32 reference through the op with
explicit wgmma configs (every tile, both dtypes, all four operand layouts, odd M/N, batched), and
the standalone harness (cuBLAS reference, poisoned outputs, misuse refused) under compute-sanitizer."""
import importlib.util
import os
import shutil
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
KERNELS = os.path.join(ROOT, "cpp", "kernels")

pytestmark = pytest.mark.gpu


def _family():
    spec = importlib.util.spec_from_file_location("origami_wgmma_family_gpu",
                                                  os.path.join(KERNELS, "families", "wgmma.py"))
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    return mod


wg = _family()
# The 16-bit specialisations (the tf32 ones have their own stage counts and GPU tests: test_tf32_gpu.py).
# (the swapped-operand kernels have theirs: test_swap_ab_gpu.py)
TILES = sorted({(s.block_m, s.block_n, s.stages, s.warps) for s in wg.all_specs() if s.dtype != "tf32" and not s.swap_ab})


def _need_sm90():
    import torch
    if torch.cuda.get_device_capability() < (9, 0):
        pytest.skip("the wgmma family needs sm_90")


def _op_with_wgmma():
    _need_sm90()
    try:
        import origami_nv
        from origami_nv import ops
        recs = ops.kernels()
    except (ImportError, AttributeError) as e:
        pytest.skip(f"origami_nv op not available: {e}")
    if not any(r.get("family") == "wgmma" for r in recs):
        pytest.skip("origami_nv was built without the wgmma family (ORIGAMI_NV_WGMMA=OFF or a kernel filter)")
    return origami_nv, {(r["config"]["block_m"], r["config"]["block_n"]) for r in recs if r.get("family") == "wgmma"}


def _poison_allocator(torch, numel, dtype):
    # The op allocates its output from the caching allocator: hand it a NaN-filled block of the
    # same size first, so an element the kernel fails to write shows up as NaN.
    t = torch.full((numel,), float("nan"), dtype=dtype, device="cuda")
    del t


def _operands(torch, M, N, K, dtype, a_k, b_k, batch=None, seed=0):
    g = torch.Generator(device="cuda").manual_seed(seed)
    lead = (batch,) if batch else ()
    a = (torch.rand(*lead, M, K, generator=g, device="cuda") * 2 - 1).to(dtype) if a_k else \
        (torch.rand(*lead, K, M, generator=g, device="cuda") * 2 - 1).to(dtype).transpose(-1, -2)
    b = (torch.rand(*lead, N, K, generator=g, device="cuda") * 2 - 1).to(dtype).transpose(-1, -2) if b_k else \
        (torch.rand(*lead, K, N, generator=g, device="cuda") * 2 - 1).to(dtype)
    return a, b


def _check(torch, out, a, b):
    ref = torch.matmul(a.float(), b.float())
    assert out.shape == ref.shape and out.dtype == a.dtype
    assert torch.isfinite(out).all(), "unwritten (NaN-poisoned) or non-finite outputs"
    err = (out.float() - ref).abs().max().item()
    ulp = 2.0 ** -8 if a.dtype == torch.bfloat16 else 2.0 ** -11
    assert err <= 2 * ulp * max(1.0, ref.abs().max().item()), err


@pytest.mark.parametrize("tile", TILES, ids=lambda t: f"{t[0]}x{t[1]}")
@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("layout", ["kk", "kn", "mk", "mn"])
def test_op_wgmma_tiles_layouts_edges(tile, dtype, layout):
    import torch
    origami_nv, built = _op_with_wgmma()
    bm, bn, stages, warps = tile
    if (bm, bn) not in built:
        pytest.skip(f"wgmma {bm}x{bn} not in this build")
    dt = getattr(torch, dtype)
    cfg = dict(block_m=bm, block_n=bn, block_k=64, group_size_m=3, stages=stages, warps=warps, family="wgmma")
    # M-contiguous A / N-contiguous B need M / N multiples of 8 to be read in place; the others
    # take odd sizes (edge tiles, predicated stores, scalar tail of an odd ldc).
    M = 264 if layout[0] == "m" else 257
    N = 392 if layout[1] == "n" else 131
    for (m, n, k) in [(M, N, 200), (2 * bm + 8, bn * 3, 64 * 5 + 8)]:
        a, b = _operands(torch, m, n, k, dt, layout[0] == "k", layout[1] == "k", seed=m + n + k)
        _poison_allocator(torch, m * n, dt)
        _check(torch, origami_nv.matmul(a, b, config=cfg), a, b)


@pytest.mark.parametrize("tile", TILES, ids=lambda t: f"{t[0]}x{t[1]}")
@pytest.mark.parametrize("layout", ["kk", "kn", "mk", "mn"])
def test_op_wgmma_operand_shorter_than_tile(tile, layout):
    # M < BLOCK_M or N < BLOCK_N (decode, small batches): the launcher loads only the operand's rows (a shorter box,
    # or fewer 64-row slabs), so the other shared-memory rows keep whatever an earlier launch left there. Launch the
    # same kernel on NaN operands with whole tiles first, so those rows hold NaN: none may reach a stored output.
    import torch
    origami_nv, built = _op_with_wgmma()
    bm, bn, stages, warps = tile
    if (bm, bn) not in built:
        pytest.skip(f"wgmma {bm}x{bn} not in this build")
    dt = torch.float16
    nan_a = torch.full((2 * bm, 512), float("nan"), dtype=dt, device="cuda")
    nan_b = torch.full((512, 264 * bn), float("nan"), dtype=dt, device="cuda")
    a_k, b_k = layout[0] == "k", layout[1] == "k"
    # An M-contiguous A (N-contiguous B) is read in place only with M (N) a multiple of 8.
    ms = [8, 24, min(bm - 8, 72)] if not a_k else [1, 5, min(bm - 1, 100)]
    ns = [8, 40, 136] if not b_k else [3, 24, 136]
    for i, (m, n) in enumerate([(ms[0], 3 * bn + 5 if b_k else 3 * bn + 8), (ms[1], ns[1]), (ms[2], ns[0]),
                                (2 * bm + 8, ns[2] if ns[2] < bn else ns[1])]):
        for split in (1, 3):
            cfg = dict(block_m=bm, block_n=bn, block_k=64, group_size_m=1, stages=stages, warps=warps,
                       family="wgmma", split_k=split)
            origami_nv.matmul(nan_a.t().contiguous().t() if not a_k else nan_a,
                              nan_b if not b_k else nan_b.t().contiguous().t(), config={**cfg, "split_k": 1})
            a, b = _operands(torch, m, n, 64 * 6 + 8, dt, a_k, b_k, seed=17 * i + split)
            _poison_allocator(torch, m * n, dt)
            _check(torch, origami_nv.matmul(a, b, config=cfg), a, b)


@pytest.mark.parametrize("tile", TILES, ids=lambda t: f"{t[0]}x{t[1]}")
@pytest.mark.parametrize("layout", ["kk", "mk"])
def test_op_wgmma_ctas_with_several_tiles(tile, layout):
    # More tiles than SMs: a CTA hands every tile but its last to TMA stores of C slices (128-byte-row boxes, or the
    # split-N tiles' 64-byte-row boxes) while it computes the next; the other tests' grids are one wave.
    import torch
    origami_nv, built = _op_with_wgmma()
    bm, bn, stages, warps = tile
    if (bm, bn) not in built:
        pytest.skip(f"wgmma {bm}x{bn} not in this build")
    # 18 x 18 = 324 tiles; an M-contiguous A is read in place with M a multiple of 8
    m, n, k = 17 * bm + (8 if layout == "mk" else 3), 17 * bn + 8, 64 * 2 + 8  # C rows 16-byte aligned: TMA stores
    a, b = _operands(torch, m, n, k, torch.float16, layout[0] == "k", True, seed=m + n)
    _poison_allocator(torch, m * n, torch.float16)
    cfg = dict(block_m=bm, block_n=bn, block_k=64, group_size_m=4, stages=stages, warps=warps, family="wgmma")
    _check(torch, origami_nv.matmul(a, b, config=cfg), a, b)


@pytest.mark.parametrize("tile", TILES, ids=lambda t: f"{t[0]}x{t[1]}")
@pytest.mark.parametrize("layout", ["kk", "mk", "kn"])
def test_op_wgmma_edge_tiles_same_bits_as_padded(tile, layout):
    # The edge tile of a K-major operand longer than its tile loads the box that ends at the matrix edge (rows its
    # neighbour loads too: KernelParams::shift_edges) and stores only its own rows and columns. Every output must have
    # the bits of the same kernel on operands zero-padded to whole tiles (no edge at all), with and without split-K
    # (the workspace partials of a shifted tile), with a bias, batched; shared memory first holds NaN from an earlier
    # launch, so a row of the box that is not loaded and reaches a stored output shows.
    import torch
    origami_nv, built = _op_with_wgmma()
    bm, bn, stages, warps = tile
    if (bm, bn) not in built:
        pytest.skip(f"wgmma {bm}x{bn} not in this build")
    a_k, b_k = layout[0] == "k", layout[1] == "k"
    if not b_k and bn % 64:
        pytest.skip("an N-major B needs BLOCK_N a multiple of 64")
    dt = torch.float16
    # rows (columns) of an MN-major operand are read in place in multiples of 8
    m = 3 * bm + (40 if not a_k else 37)
    n = 2 * bn + (24 if not b_k else 21)
    k, batch = 64 * 3 + 8, 2
    mp, np_ = -(-m // bm) * bm, -(-n // bn) * bn
    nan_a = torch.full((bm, 512), float("nan"), dtype=dt, device="cuda")
    nan_b = torch.full((512, bn), float("nan"), dtype=dt, device="cuda")
    g = torch.Generator(device="cuda").manual_seed(m * n)
    a_rows = torch.rand(batch, mp, k, generator=g, device="cuda").to(dt) - 0.5
    b_rows = torch.rand(batch, np_, k, generator=g, device="cuda").to(dt) - 0.5
    a_rows[:, m:] = 0
    b_rows[:, n:] = 0
    bias = torch.rand(np_, generator=g, device="cuda").to(dt)

    def operands(rows_a, rows_b):  # the layout's views of (M, K) and (N, K) data
        a = rows_a if a_k else rows_a.transpose(-1, -2).contiguous().transpose(-1, -2)
        b = rows_b.transpose(-1, -2) if b_k else rows_b.transpose(-1, -2).contiguous()
        return a, b
    for split in (1, 3):
        cfg = dict(block_m=bm, block_n=bn, block_k=64, group_size_m=2, stages=stages, warps=warps, family="wgmma",
                   split_k=split)
        for use_bias in (False, True):
            origami_nv.matmul(nan_a if a_k else nan_a.t().contiguous().t(),
                              nan_b.t().contiguous().t() if b_k else nan_b, config={**cfg, "split_k": 1})
            a, b = operands(a_rows[:, :m], b_rows[:, :n])
            out = origami_nv.matmul(a, b, bias=bias[:n] if use_bias else None, config=cfg)
            ap, bp = operands(a_rows, b_rows)
            ref = origami_nv.matmul(ap, bp, bias=bias if use_bias else None, config=cfg)[:, :m, :n]
            assert torch.equal(out, ref), (split, use_bias, (out.float() - ref.float()).abs().max().item())
            if not use_bias:
                _check(torch, out, a, b)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_op_wgmma_batched_and_group_sizes(dtype):
    import torch
    origami_nv, built = _op_with_wgmma()
    dt = getattr(torch, dtype)
    bm, bn, stages, warps = next(t for t in TILES if (t[0], t[1]) in built)
    a, b = _operands(torch, 300, 200, 328, dt, True, False, batch=3, seed=7)
    for g in (1, 2, 8, 16):
        cfg = dict(block_m=bm, block_n=bn, block_k=64, group_size_m=g, stages=stages, warps=warps, family="wgmma")
        _poison_allocator(torch, a.shape[0] * 300 * 200, dt)
        _check(torch, origami_nv.matmul(a, b, config=cfg), a, b)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("layout", ["kk", "kn", "mk", "mn"])
def test_op_wgmma_ping_pong_same_bits_as_one_tile_per_cta(dtype, layout):
    # The ping-pong tiles (families/wgmma.py PINGPONG_TILES) run their ping-pong schedule where every CTA has two or
    # more tiles (gemm_wgmma.cuh ping_pong_pays) and the cooperative one below that. Both sum each output in the same
    # order, so a tile must have the same bits whichever schedule computed it: the ping-pong launch (batched, edges
    # in M and N, K with a tail, a bias; C rows 16-byte aligned (TMA-stored slices) and not (the threads' element
    # stores)) against the cooperative launch of its first 2 x 3 tiles, and both against an fp32 reference.
    import torch
    origami_nv, built = _op_with_wgmma()
    tiles = [t for t in TILES if (t[0], t[1]) in wg.PINGPONG_TILES and (t[0], t[1]) in built]
    if not tiles:
        pytest.skip("no ping-pong tile in this build")
    bm, bn, stages, warps = tiles[0]
    dt = getattr(torch, dtype)
    a_k, b_k = layout[0] == "k", layout[1] == "k"
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    batch = 2
    rows = -(-2 * sms // (batch * 18)) * bm  # >= 2 tiles per SM over 18 tile columns and the batch
    for n in (17 * bn + 8, 17 * bn + 3):
        if not b_k and n % 8:
            continue  # an N-major B is read in place with N a multiple of 8
        m = rows + (8 if not a_k else 5)
        a, b = _operands(torch, m, n, 64 * 3 + 24, dt, a_k, b_k, batch=batch, seed=m + n)
        bias = (torch.rand(n, device="cuda") - 0.5).to(dt)
        cfg = dict(block_m=bm, block_n=bn, block_k=64, group_size_m=4, stages=stages, warps=warps, family="wgmma")
        _poison_allocator(torch, batch * m * n, dt)
        big = origami_nv.matmul(a, b, bias=bias, config=cfg)
        small = origami_nv.matmul(a[:, :2 * bm], b[:, :, :3 * bn], bias=bias[:3 * bn], config=cfg)
        assert torch.equal(big[:, :2 * bm, :3 * bn], small), (n, (big[:, :2 * bm, :3 * bn].float() - small.float()).abs().max())
        ref = torch.matmul(a.float(), b.float()) + bias.float()
        assert torch.isfinite(big).all(), "unwritten (NaN-poisoned) or non-finite outputs"
        ulp = 2.0 ** -8 if dt == torch.bfloat16 else 2.0 ** -11
        assert (big.float() - ref).abs().max().item() <= 2 * ulp * max(1.0, ref.abs().max().item())


def test_op_wgmma_unaligned_k_is_still_correct():
    # K = 7: a row-major A has a 14-byte leading dimension, which TMA cannot read; the op must not hand
    # it to the wgmma kernel as is (it copies to an aligned buffer or picks another kernel).
    import torch
    origami_nv, built = _op_with_wgmma()
    bm, bn, stages, warps = next(t for t in TILES if (t[0], t[1]) in built)
    a, b = _operands(torch, 129, 77, 7, torch.float16, True, False, seed=3)
    cfg = dict(block_m=bm, block_n=bn, block_k=64, group_size_m=1, stages=stages, warps=warps, family="wgmma")
    _check(torch, origami_nv.matmul(a, b, config=cfg), a, b)


# ---- the standalone harness (cuBLAS reference) and compute-sanitizer -----------------------------------
def _build_harness(tmp_path, pattern):
    _need_sm90()
    if shutil.which("nvcc") is None:
        pytest.skip("nvcc is not on the PATH")
    gen = tmp_path / "gen"
    subprocess.run([sys.executable, os.path.join(KERNELS, "families", "wgmma.py"), "--emit-dev", str(gen),
                    "--filter", pattern], check=True)
    flags = ["-O3", "-std=c++17", *wg.NVCC_FLAGS, "-I", str(gen), "-I", KERNELS]
    srcs = sorted(str(p) for p in gen.glob("*.cu"))
    procs = [subprocess.Popen(["nvcc", *flags, "-c", s, "-o", s + ".o"]) for s in srcs]
    procs.append(subprocess.Popen(["nvcc", *flags, "-c", os.path.join(KERNELS, "wgmma", "dev", "bench_wgmma.cu"),
                                   "-o", str(gen / "bench.o")]))
    assert all(p.wait() == 0 for p in procs)
    exe = str(tmp_path / "bench_wgmma")
    subprocess.run(["nvcc", *flags, *[s + ".o" for s in srcs], str(gen / "bench.o"), "-lcublas", "-o", exe],
                   check=True)
    return exe


# 16-bit kernels only: the dev harness (bench_wgmma.cu) allocates and checks 16-bit operands.
PATTERN = (r"128x256x64.*_(kk|mn)$|64x256.*bf16_kn$|256x128.*fp16_mk$|128x192.*bf16_kk$|64x48.*fp16_kk$|64x144.*bf16_mk$"
           r"|192x192.*fp16_mk$|128x128x64.*_(kn|mn)$")  # (128x128: its ping-pong schedule at the check's 2500 x 2100)


def test_harness_check_against_cublas(tmp_path):
    exe = _build_harness(tmp_path, PATTERN)
    r = subprocess.run([exe, "check", "."], capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stdout[-4000:] + r.stderr[-2000:]
    assert "0 failures" in r.stdout and "FAIL" not in r.stdout


@pytest.mark.parametrize("tool", ["memcheck", "racecheck", "synccheck"])
def test_harness_under_compute_sanitizer(tmp_path, tool):
    if shutil.which("compute-sanitizer") is None:
        pytest.skip("compute-sanitizer is not on the PATH")
    exe = _build_harness(tmp_path, r"128x256.*bf16_kk$|64x256.*fp16_mn$|64x80.*fp16_kk$|192x192.*bf16_kk$"
                         r"|128x128x64.*bf16_kk$")
    r = subprocess.run(["compute-sanitizer", f"--tool={tool}", "--error-exitcode=9", exe, "check", ".", "small"],
                       capture_output=True, text=True, timeout=900)
    assert r.returncode == 0, r.stdout[-4000:] + r.stderr[-2000:]
    assert "0 failures" in r.stdout
