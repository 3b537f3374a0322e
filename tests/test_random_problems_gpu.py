"""The op's default path (the model's pick: tile, split-K, swapped kernel, realigning kernel or operand copy, cluster
reduction) on seeded random problems that no suite holds, against a float64 reference (marked gpu).

The other GPU tests run every compiled kernel by an explicit config on chosen sizes; these let the selector choose,
as a user's call does, over sizes drawn log-uniformly from 1 to 8192 in M, N and K (at most 1e10 multiply-adds),
batched or not, fp16 / bf16 / exact fp32 / TF32, each operand row-major or a transposed view, some at a base off the
16-byte grid (a sliced tensor), some with a fused bias. Every output lands on NaN-poisoned memory (an unwritten element fails), is checked
against the reference, and is computed a second time: the same bits (results are deterministic).
"""
import math
import random

import pytest

torch = pytest.importorskip("torch")
import origami_nv  # noqa: E402

pytestmark = pytest.mark.gpu

# relative Frobenius error bounds: the ones of test_ops_gpu.py (16-bit), test_simt_gpu.py (fp32, issue 15) and
# test_tf32_gpu.py (TF32)
TOL = {"float16": 2e-3, "bfloat16": 1e-2, "float32": 1e-5, "tfloat32": 3e-3}
TORCH = {"float16": torch.float16, "bfloat16": torch.bfloat16, "float32": torch.float32, "tfloat32": torch.float32}
PROBLEMS = 400


def _dim(rng):
    return max(1, int(round(math.exp(rng.uniform(0.0, math.log(8192.0))))))


def _problems():
    rng = random.Random(55)
    out = []
    while len(out) < PROBLEMS:
        M, N, K = _dim(rng), _dim(rng), _dim(rng)
        batch = 1 if rng.random() < 0.7 else rng.randint(2, 5)
        if batch * M * N * K > 1e10:  # (a bounded test: ~10 s on an H100)
            continue
        dtype = rng.choice(["float16", "bfloat16", "float16", "bfloat16", "float32", "tfloat32"])
        out.append({"M": M, "N": N, "K": K, "batch": batch, "dtype": dtype,
                    "a": rng.choice("rc"), "b": rng.choice("rc"),
                    "shift_a": rng.random() < 0.15, "shift_b": rng.random() < 0.15,
                    "bias": batch == 1 and rng.random() < 0.35})
    return out


def _operand(rows, cols, dtype, layout, batch, shift, gen):
    """rows x cols (batched when batch > 1), row-major ('r') or the transposed view of column-major storage ('c');
    shift: a view one element into a wider buffer, so its base is off the 16-byte grid."""
    inner = (rows, cols + shift) if layout == "r" else (cols, rows + shift)
    shape = ((batch,) if batch > 1 else ()) + inner
    t = torch.randn(shape, device="cuda", dtype=torch.float32, generator=gen).to(dtype)
    if shift:
        t = t[..., 1:]
    return t if layout == "r" else t.transpose(-1, -2)


@pytest.mark.parametrize("p", _problems(), ids=lambda p: f"{p['batch']}x{p['M']}x{p['N']}x{p['K']}-{p['dtype']}-"
                                                      f"{p['a']}{p['b']}{'-s' if p['shift_a'] or p['shift_b'] else ''}"
                                                      f"{'-bias' if p['bias'] else ''}")
def test_random_problem_default_path(p):
    gen = torch.Generator(device="cuda").manual_seed(p["M"] * 7919 + p["N"] * 104729 + p["K"])
    dt = TORCH[p["dtype"]]
    a = _operand(p["M"], p["K"], dt, p["a"], p["batch"], p["shift_a"], gen)
    b = _operand(p["K"], p["N"], dt, p["b"], p["batch"], p["shift_b"], gen)
    bias = torch.randn(p["N"], device="cuda", generator=gen).to(dt) if p["bias"] else None
    assert (a.shape[-2], a.shape[-1], b.shape[-1]) == (p["M"], p["K"], p["N"])
    prev = torch.backends.cuda.matmul.allow_tf32
    torch.backends.cuda.matmul.allow_tf32 = p["dtype"] == "tfloat32"
    try:
        outs = []
        for _ in range(2):
            poison = torch.full((p["batch"] * p["M"] * p["N"],), float("nan"), device="cuda", dtype=dt)
            del poison  # (the caching allocator hands the NaN block to the op's output)
            outs.append(origami_nv.matmul(a, b, bias=bias))
    finally:
        torch.backends.cuda.matmul.allow_tf32 = prev
    ref = torch.matmul(a.double(), b.double())
    if bias is not None:
        ref = ref + bias.double()
    out = outs[0]
    assert out.shape == ref.shape and out.dtype == dt
    assert not torch.isnan(out).any(), "NaN in the output (an element left unwritten)"
    err = ((out.double() - ref).norm() / ref.norm().clamp_min(1e-30)).item()
    assert err <= TOL[p["dtype"]], f"relative Frobenius error {err:.3e} > {TOL[p['dtype']]}"
    assert torch.equal(outs[0], outs[1]), "two calls on the same inputs gave different bits"
