"""GPU tests of the float32 CUDA-core family (simt, issue 15; marked gpu: skipped without a CUDA GPU).

Every compiled simt config runs at ragged and exact sizes, with a K long enough for its cp.async ring to wrap,
over the compiled operand layouts (and the copied fourth), against an fp64 reference, the output memory
poisoned with NaN first (an unwritten element fails). Tolerance: relative Frobenius error <= 1e-5 (issue 15:
fp32 relative error <= 1e-5 vs fp64). Split-K, batch, fused bias, determinism, routing at torch's default
"highest" precision and the sanitizer (TF32: tests/test_tf32_gpu.py).
"""
import textwrap

import pytest

torch = pytest.importorskip("torch")
import origami_nv  # noqa: E402
from conftest import fp32_operand as _operand, poison_fp32 as _poison, require_compiled, run_memcheck  # noqa: E402
from origami_nv import _kernels  # noqa: E402

pytestmark = pytest.mark.gpu

TOL = 1e-5
ODD = [1, 7, 129, 1000, 4097]


def _configs():
    seen = set()
    for r in _kernels.kernel_records():
        if r["family"] == "simt" and r["dtype"] == "float32":
            c = r["config"]
            seen.add((c["block_m"], c["block_n"], c["block_k"], c["stages"], c["warps"]))
    return sorted(seen)


def _cfg(c, **extra):
    return dict(block_m=c[0], block_n=c[1], block_k=c[2], stages=c[3], warps=c[4], group_size_m=3, family="simt",
                **extra)


def _check(out, a, b, what, bias=None):
    ref = torch.matmul(a.double(), b.double())
    if bias is not None:
        ref = ref + bias.double()
    assert out.shape == ref.shape and out.dtype == torch.float32, what
    assert not torch.isnan(out).any(), f"{what}: NaN in the output (unwritten element)"
    err = ((out.double() - ref).norm() / ref.norm().clamp_min(1e-30)).item()
    assert err <= TOL, f"{what}: relative Frobenius error {err:.3e} > {TOL}"


def _run(c, a, b, **extra):
    M, N = a.shape[-2], b.shape[-1]
    _poison(M * N * (a.shape[0] if a.dim() == 3 else 1))
    return origami_nv.matmul(a, b, config=_cfg(c, **extra))


def test_simt_kernels_compiled():
    require_compiled(_configs(), "simt (float32) kernels")


def test_every_config_ragged_exact_and_long_k():
    gen = torch.Generator(device="cuda").manual_seed(0)
    layouts = [("r", "r"), ("r", "c"), ("c", "r"), ("c", "c")]  # kn, kk, mn kernels; cc: a copy first
    for i, c in enumerate(_configs()):
        bm, bn, bk, stages = c[:4]
        k_long = (stages + 3) * bk
        sizes = [(2 * bm + 3, 2 * bn + 5, 3 * bk + 7), (bm, bn, 2 * bk), (2 * bm, 2 * bn, k_long),
                 (2 * bm + 5, bn + 3, k_long + 9)]
        for j, (M, N, K) in enumerate(sizes):
            la, lb = layouts[(i + j) % 4]
            a, b = _operand(M, K, la, gen=gen), _operand(K, N, lb, gen=gen)
            _check(_run(c, a, b), a, b, f"simt {c} {la}{lb} {M}x{N}x{K}")


def test_odd_sizes_rotating_subset():
    configs = _configs()
    gen = torch.Generator(device="cuda").manual_seed(1)
    combos = [(m, n, k) for m in ODD for n in ODD for k in ODD if m * n * k <= 4097 * 1000 * 129]
    for idx, c in enumerate(configs):
        for t in range(2):
            M, N, K = combos[(idx * 2 + t) * 7 % len(combos)]
            la, lb = "rc"[(idx + t) % 2], "rc"[(idx // 2 + t) % 2]
            a, b = _operand(M, K, la, gen=gen), _operand(K, N, lb, gen=gen)
            _check(_run(c, a, b), a, b, f"simt {c} {la}{lb} {M}x{N}x{K}")


def test_batched_bias_and_split_k_deterministic():
    gen = torch.Generator(device="cuda").manual_seed(2)
    configs = _configs()
    for i, c in enumerate(configs[:: max(1, len(configs) // 6)]):
        bm, bn, bk = c[:3]
        a = _operand(bm + 3, 40 * bk + 5, "r", batch=3, gen=gen)
        b = _operand(40 * bk + 5, bn + 7, "rc"[i % 2], batch=3, gen=gen)
        _check(_run(c, a, b), a, b, f"simt {c} batched")
        a2, b2 = a[0], b[0]
        bias = torch.randn(b2.shape[-1], device="cuda", generator=gen)
        for split in (1, 3):
            out = origami_nv.matmul(a2, b2, bias=bias, config=_cfg(c, split_k=split))
            _check(out, a2, b2, f"simt {c} bias split {split}", bias=bias)
            again = origami_nv.matmul(a2, b2, bias=bias, config=_cfg(c, split_k=split))
            assert torch.equal(out, again), f"simt {c} split {split}: two runs differ"


def test_selected_float32_kernel_at_highest_precision():
    # torch's default float32 precision ("highest"): the op computes exactly on the CUDA cores, and the drop-in switch
    # routes the call (with TF32 allowed the op runs the wgmma tf32 kernels instead: tests/test_tf32_gpu.py).
    gen = torch.Generator(device="cuda").manual_seed(3)
    a, b = _operand(300, 1000, "r", gen=gen), _operand(1000, 257, "c", gen=gen)
    assert not origami_nv.tf32_allowed()
    assert origami_nv.select(300, 257, 1000, dtype="float32", layout="nt").family == "simt"
    _check(origami_nv.matmul(a, b), a, b, "selected")
    origami_nv.reset_dispatch_stats()
    with origami_nv.enabled():
        out = a @ b
    assert origami_nv.dispatch_stats()["routed_calls"] == {"Tensor.matmul": 1}
    _check(out, a, b, "routed at highest precision")


def test_autograd_and_compile_float32():
    gen = torch.Generator(device="cuda").manual_seed(4)
    a = _operand(64, 96, "r", gen=gen).requires_grad_()
    b = _operand(96, 80, "r", gen=gen).requires_grad_()
    origami_nv.matmul(a, b).sum().backward()
    ga, gb = a.grad.clone(), b.grad.clone()
    ones = torch.ones(64, 80, device="cuda", dtype=torch.float64)
    torch.testing.assert_close(ga.double(), ones @ b.detach().double().t(), rtol=1e-5, atol=1e-5)
    torch.testing.assert_close(gb.double(), a.detach().double().t() @ ones, rtol=1e-5, atol=1e-5)
    f = torch.compile(lambda x, y: origami_nv.matmul(x, y) * 2.0, fullgraph=True)
    x, y = a.detach(), b.detach()
    torch.testing.assert_close(f(x, y), 2.0 * origami_nv.matmul(x, y), rtol=0, atol=0)


SANITIZER_SCRIPT = textwrap.dedent("""
    import torch, origami_nv
    from origami_nv import _kernels
    recs = [r for r in _kernels.kernel_records() if r["family"] == "simt" and r["dtype"] == "float32"]
    cfgs = sorted({(r["config"]["block_m"], r["config"]["block_n"], r["config"]["block_k"], r["config"]["stages"],
                    r["config"]["warps"]) for r in recs})
    torch.manual_seed(0)
    sizes = [(1, 1, 1), (7, 129, 13), (129, 7, 1000), (33, 65, 17)]
    for i, c in enumerate(cfgs):
        for M, N, K in sizes:
            cfg = dict(block_m=c[0], block_n=c[1], block_k=c[2], stages=c[3], warps=c[4], group_size_m=2,
                       family="simt", split_k=1 + (i + M) % 3)
            for ta in (False, True):
                a = torch.randn(K, M, device="cuda").t() if ta else torch.randn(M, K, device="cuda")
                b = torch.randn(K, N, device="cuda")
                origami_nv.matmul(a, b, config=cfg)
    torch.cuda.synchronize()
    print("SANITIZER-SCRIPT-DONE")
""")


def test_compute_sanitizer_memcheck_simt(tmp_path):
    run_memcheck(SANITIZER_SCRIPT, tmp_path, "SANITIZER-SCRIPT-DONE")
