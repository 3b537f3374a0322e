"""GPU tests of split-K (TileConfig.split_k) in both kernel families (marked gpu: skipped without a CUDA GPU).

A split config runs S = effective_split_k(K, block_k, split_k) K-slices per output tile into an fp32 workspace
and sums them in slice order in a second kernel (cpp/kernels/split_k.cu). Checked here: every compiled tile of
both families with a split at ragged sizes against an fp32 reference (output poisoned with NaN first), every
operand layout incl. the copied one and batched GEMMs, bit-identical results run to run (eager and CUDA graph,
programmatic dependent launch on and off), a workspace allocated inside graph capture, and memcheck. The opt-in
reduction in a thread-block cluster (ORIGAMI_NV_CLUSTER_SPLIT=1, make_split_plan): the same bits as the reduction
kernel on every wgmma tile, bias, batched, odd N and TF32, under memcheck too.
"""
import os
import subprocess
import sys
import textwrap

import pytest

torch = pytest.importorskip("torch")
import origami_nv  # noqa: E402
from conftest import require_compiled, run_memcheck  # noqa: E402
from origami_nv import _kernels  # noqa: E402

pytestmark = pytest.mark.gpu

TOL = {torch.float16: 2e-3, torch.bfloat16: 1e-2}
DTYPES = {"float16": torch.float16, "bfloat16": torch.bfloat16}


def _tiles(dtype, family=None):
    """Every compiled (block_m, block_n, block_k, stages, warps, family) for a dtype that runs on this GPU."""
    cc = torch.cuda.get_device_capability()
    out = set()
    for r in _kernels.kernel_records():
        if r["dtype"] != dtype or (family and r["family"] != family) or r["config"].get("swap_ab"):
            continue  # (the swapped-operand kernels' split-K: test_swap_ab_gpu.py)
        if r["family"] == "wgmma" and cc != (9, 0):
            continue
        c = r["config"]
        out.add((c["block_m"], c["block_n"], c["block_k"], c["stages"], c["warps"], r["family"]))
    return sorted(out)


def _cfg(t, split_k, group_size_m=2):
    return dict(block_m=t[0], block_n=t[1], block_k=t[2], stages=t[3], warps=t[4], family=t[5],
                group_size_m=group_size_m, split_k=split_k)


def _operand(rows, cols, dtype, layout, gen, batch=None):
    shape = (rows, cols) if layout == "r" else (cols, rows)
    if batch is not None:
        shape = (batch,) + shape
    t = torch.randn(shape, device="cuda", dtype=torch.float32, generator=gen).to(dtype)
    return t if layout == "r" else t.transpose(-1, -2)


def _poison(numel, dtype):
    t = torch.full((numel,), float("nan"), dtype=dtype, device="cuda")
    del t


def _check(out, a, b, dtype, what):
    ref = torch.matmul(a.float(), b.float())
    assert out.shape == ref.shape and out.dtype == dtype, what
    assert not torch.isnan(out).any(), f"{what}: NaN in the output (unwritten element)"
    err = ((out.float() - ref).norm() / ref.norm().clamp_min(1e-30)).item()
    assert err <= TOL[dtype], f"{what}: relative Frobenius error {err:.3e} > {TOL[dtype]}"


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_every_tile_with_split_ragged_sizes(dtype):
    """Every compiled tile of both families, split 3 (uneven slices: the last one is shorter and ends in a
    partial k-tile) and a large split that effective_split_k caps, at ragged M, N, K, rotating layouts."""
    dt = DTYPES[dtype]
    tiles = _tiles(dtype)
    require_compiled(tiles, "kernels")
    gen = torch.Generator(device="cuda").manual_seed(5)
    layouts = [("r", "r"), ("r", "c"), ("c", "r"), ("c", "c")]
    for i, t in enumerate(tiles):
        bm, bn, bk = t[:3]
        M, N = bm + 5, 2 * bn - 3
        K = 7 * bk + 9          # 8 k-tiles, the last partial
        for j, split in enumerate((3, 64)):
            la, lb = layouts[(i + j) % 4]
            a, b = _operand(M, K, dt, la, gen), _operand(K, N, dt, lb, gen)
            _poison(M * N, dt)
            out = origami_nv.matmul(a, b, config=_cfg(t, split))
            _check(out, a, b, dt, f"{t} split {split} {la}{lb} {M}x{N}x{K}")


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_split_tail_of_a_multi_wave_grid(dtype):
    """Grids of more tiles than resident CTAs: the whole waves run unsplit and only the last, partial wave's
    tiles are split (make_split_plan, cpp/model/types.hpp). ~1500 ragged tiles, so the data-parallel part,
    the split tail and the mapping of tail tiles in the reduction are all exercised, for every tile (bf16: a
    third of them), batched and not."""
    dt = DTYPES[dtype]
    tiles = _tiles(dtype)
    if dtype == "bfloat16":
        tiles = tiles[::3]
    gen = torch.Generator(device="cuda").manual_seed(10)
    for i, t in enumerate(tiles):
        bm, bn, bk = t[:3]
        batch = 3 if i % 4 == 1 else None
        M, N, K = (50 * bm + 3, 30 * bn + 1, 4 * bk + 7) if batch is None else (17 * bm + 3, 30 * bn + 1, 4 * bk + 7)
        a = _operand(M, K, dt, "r", gen, batch)
        b = _operand(K, N, dt, "c" if i % 2 else "r", gen, batch)
        _poison(M * N * (batch or 1), dt)
        _check(origami_nv.matmul(a, b, config=_cfg(t, 3)), a, b, dt, f"{t} split 3 multi-wave {batch} x {M}x{N}x{K}")


@pytest.mark.parametrize("family", ["mma_sync", "wgmma"])
def test_split_batched_odd_and_decode_shapes(family):
    if family == "wgmma" and torch.cuda.get_device_capability() != (9, 0):
        pytest.skip("wgmma kernels run on sm_90 only")
    dt = torch.float16
    tiles = _tiles("float16", family)
    small = [t for t in tiles if t[0] <= 64] or tiles
    gen = torch.Generator(device="cuda").manual_seed(6)
    cases = [  # (batch, M, N, K, layout a, layout b)
        (None, 1, 4096, 4096, "r", "c"),     # decode, nn.Linear layout
        (None, 4, 1031, 8192, "r", "r"),
        (None, 16, 1024, 14336, "r", "c"),
        (5, 33, 70, 1000, "r", "r"),         # batched, ragged
        (3, 64, 128, 4096, "c", "r"),        # batched, A transposed
        (None, 7, 9, 3, "r", "r"),           # one k-tile: the split collapses to 1
    ]
    for i, (batch, M, N, K, la, lb) in enumerate(cases):
        t = small[i % len(small)]
        a, b = _operand(M, K, dt, la, gen, batch), _operand(K, N, dt, lb, gen, batch)
        for split in (2, 8):
            _poison(M * N * (batch or 1), dt)
            what = f"{t} split {split} " + (f"{batch} x " if batch else "") + f"{M}x{N}x{K}"
            _check(origami_nv.matmul(a, b, config=_cfg(t, split)), a, b, dt, what)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_fused_bias_every_tile_with_and_without_split(dtype):
    """bias[n] is added in fp32 before the one rounding: in the epilogue of both families, and in the reduction
    with split-K. Every compiled tile, ragged sizes, the nn.Linear layout (x @ w.t())."""
    dt = DTYPES[dtype]
    gen = torch.Generator(device="cuda").manual_seed(9)
    for i, t in enumerate(_tiles(dtype)):
        bm, bn, bk = t[:3]
        M, N, K = bm + 3, bn + 7, 3 * bk + 5
        x = torch.randn(M, K, device="cuda", generator=gen).to(dt)
        w = torch.randn(N, K, device="cuda", generator=gen).to(dt)
        bias = (torch.randn(N, device="cuda", generator=gen) * 4).to(dt)
        ref = (x.float() @ w.float().t() + bias.float())
        for split in (1, 3):
            _poison(M * N, dt)
            out = origami_nv.matmul(x, w.t(), bias=bias, config=_cfg(t, split))
            assert not torch.isnan(out).any(), f"{t} split {split}: NaN"
            err = ((out.float() - ref).norm() / ref.norm()).item()
            assert err <= TOL[dt], f"{t} split {split} bias: relative error {err:.3e}"
    x = torch.randn(3, 5, 64, device="cuda", generator=gen).to(dt)
    w = torch.randn(48, 64, device="cuda", generator=gen).to(dt)
    bias = torch.randn(48, device="cuda", generator=gen).to(dt)
    out = origami_nv.matmul(x, w.t(), bias=bias)  # the model's pick, N-D @ 2-D
    ref = x.float() @ w.float().t() + bias.float()
    assert ((out.float() - ref).norm() / ref.norm()).item() <= TOL[dt]


def _det_configs():
    out = []
    for fam in ("mma_sync", "wgmma"):
        ts = _tiles("float16", fam)
        if ts:
            out.append(ts[len(ts) // 3])
            out.append(ts[0])
    return out


@pytest.mark.parametrize("pdl", [True, False])
def test_split_is_deterministic_eager_and_graph(pdl):
    """Same inputs -> the same bits, every run: the partials are summed in slice order, never with atomics.
    Checked eager and replayed from a CUDA graph whose capture allocated the workspace."""
    gen = torch.Generator(device="cuda").manual_seed(7)
    a = torch.randn(24, 3000, device="cuda", generator=gen).half()
    b = torch.randn(3000, 700, device="cuda", generator=gen).half()
    with origami_nv.programmatic_dependent_launch(pdl):
        for t in _det_configs():
            cfg = _cfg(t, 6)
            first = origami_nv.matmul(a, b, config=cfg)
            _check(first, a, b, torch.float16, f"{t} split 6")
            for _ in range(3):
                assert torch.equal(origami_nv.matmul(a, b, config=cfg), first), f"{t}: results differ run to run"
            origami_nv.matmul(a, b, config=cfg)  # warm-up outside capture
            torch.cuda.synchronize()
            g = torch.cuda.CUDAGraph()
            with torch.cuda.graph(g):
                out = origami_nv.matmul(a, b, config=cfg)
                out2 = origami_nv.matmul(a * 1.0, b, config=cfg)  # a second split GEMM after a torch kernel
            for _ in range(3):
                g.replay()
                torch.cuda.synchronize()
                assert torch.equal(out, first), f"{t}: graph replay differs from eager"
                assert torch.equal(out2, first), f"{t}: second split GEMM in the graph differs"


def test_model_pick_with_split_through_the_op():
    """Where the model picks a split (decode shapes), select_config says so and matmul runs that pick."""
    gen = torch.Generator(device="cuda").manual_seed(8)
    picked_split = False
    for M, N, K in [(1, 4096, 4096), (1, 1024, 8192), (4, 2048, 14336), (16, 4096, 4096)]:
        cfg = torch.ops.origami_nv.select_config(M, N, K, "float16", 1, "nt")
        picked_split |= cfg[7] > 1
        x = torch.randn(M, K, device="cuda", generator=gen).half()
        w = torch.randn(N, K, device="cuda", generator=gen).half()
        _poison(M * N, torch.float16)
        _check(origami_nv.matmul(x, w.t()), x, w.t(), torch.float16, f"pick {cfg} at {M}x{N}x{K}")
    assert picked_split, "the model picked no split-K config at any decode shape"


SANITIZER_SCRIPT = textwrap.dedent("""
    import torch, origami_nv
    from origami_nv import _kernels
    cc = torch.cuda.get_device_capability()
    tiles = sorted({(r["config"]["block_m"], r["config"]["block_n"], r["config"]["block_k"], r["config"]["stages"],
                     r["config"]["warps"], r["family"]) for r in _kernels.kernel_records()
                    if r["dtype"] == "float16" and (r["family"] == "mma_sync" or cc == (9, 0))
                    and not r["config"].get("swap_ab")})  # (the swapped kernels' splits: test_swap_ab_gpu.py)
    torch.manual_seed(0)
    sizes = [(1, 9, 700), (7, 129, 1000), (33, 65, 300), (130, 70, 2049)]
    for c in tiles[:: max(1, len(tiles) // 10)]:
        for M, N, K in sizes:
            cfg = dict(block_m=c[0], block_n=c[1], block_k=c[2], stages=c[3], warps=c[4], family=c[5],
                       group_size_m=2, split_k=5)
            for ta in (False, True):
                a = torch.randn(K, M, device="cuda").half().t() if ta else torch.randn(M, K, device="cuda").half()
                b = torch.randn(K, N, device="cuda").half()
                origami_nv.matmul(a, b, config=cfg)
                origami_nv.matmul(a.unsqueeze(0).expand(2, -1, -1), b.unsqueeze(0).expand(2, -1, -1), config=cfg)
    torch.cuda.synchronize()
    print("SANITIZER-SCRIPT-DONE")
""")


def test_split_compute_sanitizer_memcheck(tmp_path):
    run_memcheck(SANITIZER_SCRIPT, tmp_path, "SANITIZER-SCRIPT-DONE")


# Runs the same split launches in a fresh process (ORIGAMI_NV_CLUSTER_SPLIT is read once per process) and saves the
# outputs, and how many of them the plan reduces in a cluster with this device's cluster capacity.
CLUSTER_SCRIPT = textwrap.dedent("""
    import json, sys, torch, origami_nv
    from origami_nv import _core, _kernels
    from origami_nv.ops import load_op
    slots = [r["cluster_slots"] for r in json.loads(load_op().device_kernel_resources())["kernels"]
             if r["family"] == "wgmma" and not r["error"]][0]
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    gen = torch.Generator(device="cuda").manual_seed(21)
    # (the swapped-operand kernels never reduce in a cluster: test_swap_ab_gpu.py, test_model_swap_ab.py)
    recs = [r for r in _kernels.kernel_records() if r["family"] == "wgmma" and not r["config"].get("swap_ab")]
    outs, clustered = [], 0
    torch.backends.cuda.matmul.allow_tf32 = True
    for i, r in enumerate(recs):
        c = dict(r["config"], group_size_m=2)
        dt = {"float16": torch.float16, "bfloat16": torch.bfloat16, "tfloat32": torch.float32}[r["dtype"]]
        bm, bn, bk = c["block_m"], c["block_n"], c["block_k"]
        # (M, N, K, batch, bias, split): decode, ragged and odd N (element-wise stores), batched, 2..8 slices
        for M, N, K, batch, bias, split in ((1, 2 * bn + 8, 9 * bk + 5, None, i % 2 == 0, 2 + i % 7),
                                            (bm + 7, bn + 3, 5 * bk, None, True, 3),
                                            (33, bn - 8, 8 * bk + 1, 3, False, 8)):
            if r["dtype"] == "tfloat32" and N % 4:
                N += 4 - N % 4   # tf32: 16-byte rows of B (TMA), so no copy changes the launch
            shape_a = (batch, M, K) if batch else (M, K)
            a = torch.randn(shape_a, device="cuda", generator=gen).to(dt)
            w = torch.randn((batch, N, K) if batch else (N, K), device="cuda", generator=gen).to(dt)
            b = w.transpose(-1, -2) if r["b_k_contiguous"] else w.transpose(-1, -2).contiguous()
            if not r["a_k_contiguous"]:
                a = a.transpose(-1, -2).contiguous().transpose(-1, -2)
            cfg = dict(c, split_k=split)
            bv = torch.randn(N, device="cuda", generator=gen).to(dt) if bias and not batch else None
            outs.append(origami_nv.matmul(a, b, bias=bv, config=cfg).cpu())
            sp = _core.split_plan(M, N, K, batch or 1, bm, bn, bk, split, sms, "wgmma", slots)
            clustered += int(sp["cluster"])
    torch.cuda.synchronize()
    torch.save({"outs": outs, "clustered": clustered}, sys.argv[1])
    print("CLUSTER-SCRIPT-DONE")
""")


def _cluster_run(tmp_path, on: bool):
    script = tmp_path / "cluster_script.py"
    script.write_text(CLUSTER_SCRIPT)
    out = tmp_path / f"cluster_{int(on)}.pt"
    proc = subprocess.run([sys.executable, str(script), str(out)], capture_output=True, text=True, timeout=600,
                          env={**os.environ, "ORIGAMI_NV_CLUSTER_SPLIT": "1" if on else "0"})
    assert "CLUSTER-SCRIPT-DONE" in proc.stdout, (proc.stdout + proc.stderr)[-3000:]
    return torch.load(out)


def test_cluster_reduction_same_bits_as_the_reduction_kernel(tmp_path):
    """Every wgmma specialisation (fp16, bf16, tf32; every layout it compiles), split 2..8 at decode, ragged, odd-N
    and batched sizes, with and without bias: the slices summed in a cluster from shared memory give exactly the bits
    of the reduction kernel (slice order 0..S-1, then the bias, one rounding)."""
    if torch.cuda.get_device_capability() != (9, 0):
        pytest.skip("the in-cluster reduction is the wgmma family's (sm_90)")
    on, off = _cluster_run(tmp_path, True), _cluster_run(tmp_path, False)
    assert on["clustered"] >= len(on["outs"]) // 2, f"only {on['clustered']} of {len(on['outs'])} launches clustered"
    assert len(on["outs"]) == len(off["outs"])
    for i, (x, y) in enumerate(zip(on["outs"], off["outs"])):
        assert not torch.isnan(x).any(), f"launch {i}: NaN (an element the cluster reduction did not write)"
        assert torch.equal(x, y), f"launch {i}: cluster and reduction-kernel results differ"


def test_cluster_reduction_compute_sanitizer_memcheck(tmp_path):
    if torch.cuda.get_device_capability() != (9, 0):
        pytest.skip("the in-cluster reduction is the wgmma family's (sm_90)")
    script = CLUSTER_SCRIPT.replace("for i, r in enumerate(recs):", "for i, r in enumerate(recs[::9]):")
    script = script.replace("torch.save(", "(lambda *a: None)(")
    run_memcheck(script.replace("sys.argv[1]", "None"), tmp_path, "CLUSTER-SCRIPT-DONE",
                 env={"ORIGAMI_NV_CLUSTER_SPLIT": "1"})
