"""GPU test of the mma.sync main loop's steady state (marked gpu: skipped without a CUDA GPU).

The kernel copies the k-tiles of a CTA that is away from the M and N edges without predicates while
the tile being loaded is a full one in K (gemm_mma_sync.cuh: the steady-state loop), and switches to
the predicated copy for the rest. test_ops_gpu.py's sizes (K = 2-3 k-tiles) barely reach that loop,
so here every compiled config runs with K long enough for the ring to wrap several times
(stages + 3 k-tiles), once at exact tile multiples (every CTA interior, every k-tile full) and once
with ragged M, N and a K remainder (interior and edge CTAs, steady loop then edge loop in one
launch), rotating over the three compiled operand layouts, for fp16 and bf16, against an fp32
reference with the output poisoned first.
"""
import pytest

torch = pytest.importorskip("torch")
import origami_nv  # noqa: E402
from origami_nv import _kernels  # noqa: E402

pytestmark = pytest.mark.gpu

TOL = {torch.float16: 2e-3, torch.bfloat16: 1e-2}
DTYPES = {"float16": torch.float16, "bfloat16": torch.bfloat16}
LAYOUTS = [("r", "r"), ("r", "c"), ("c", "r")]  # the kn, kk and mn kernels (no copy)


def _configs(dtype):
    seen = set()
    for r in _kernels.kernel_records():
        if r["family"] == "mma_sync" and r["dtype"] == dtype:
            c = r["config"]
            seen.add((c["block_m"], c["block_n"], c["block_k"], c["stages"], c["warps"]))
    return sorted(seen)


def _operand(rows, cols, dtype, layout, gen):
    shape = (rows, cols) if layout == "r" else (cols, rows)
    t = torch.randn(shape, device="cuda", dtype=torch.float32, generator=gen).to(dtype)
    return t if layout == "r" else t.t()


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_every_config_steady_state_all_layouts(dtype):
    dt = DTYPES[dtype]
    configs = _configs(dtype)
    assert configs, "no mma_sync kernels compiled"
    gen = torch.Generator(device="cuda").manual_seed(3)
    for i, (bm, bn, bk, stages, warps) in enumerate(configs):
        k_long = (stages + 3) * bk
        sizes = [(2 * bm, 2 * bn, k_long), (2 * bm + 5, bn + 3, k_long + 24)]
        for j, (M, N, K) in enumerate(sizes):
            la, lb = LAYOUTS[(i + j) % 3]
            a = _operand(M, K, dt, la, gen)
            b = _operand(K, N, dt, lb, gen)
            torch.full((M * N,), float("nan"), dtype=dt, device="cuda")  # freed: the op's C reuses it
            cfg = dict(block_m=bm, block_n=bn, block_k=bk, stages=stages, warps=warps, group_size_m=2,
                       family="mma_sync")
            out = origami_nv.matmul(a, b, config=cfg)
            ref = a.float() @ b.float()
            what = f"{(bm, bn, bk, stages, warps)} {la}{lb} {M}x{N}x{K}"
            assert not torch.isnan(out).any(), f"{what}: NaN in the output (unwritten element)"
            err = ((out.float() - ref).norm() / ref.norm()).item()
            assert err <= TOL[dt], f"{what}: relative Frobenius error {err:.3e} > {TOL[dt]}"
