"""The drop-in switch and origami_nv.nn without a GPU: a small Llama-shaped model written with torch.nn runs
with the switch on (CPU tensors routed by opt-in, devices=("cpu",): the op's CPU implementation computes in
fp32 and rounds once) and gives torch's output; every GEMM reached the op (counted); every case the op does not
compute goes to torch unchanged with its reason; nn.Linear/convert keep state and identity; torch.compile
traces the op into one graph with no break."""
import threading

import pytest

torch = pytest.importorskip("torch")
import torch.nn.functional as F  # noqa: E402
from torch import nn  # noqa: E402

import origami_nv  # noqa: E402
from conftest import requires_op  # noqa: E402

pytestmark = requires_op()

CPU = ("cpu",)
# One rounding of the output differs at most by an ulp of the result; products summed in another order
# (torch's CPU half GEMM vs the op's fp32 path) move results by a few ulps after the softmax and norms.
TOL = {torch.float16: dict(atol=2e-2, rtol=1e-2), torch.bfloat16: dict(atol=1e-1, rtol=5e-2),
       torch.float32: dict(atol=1e-5, rtol=1e-5)}  # fp32: the op's CPU path sums bias and product in another order


class RMSNorm(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x):
        x32 = x.float()
        return (x32 * torch.rsqrt(x32.pow(2).mean(-1, keepdim=True) + 1e-6)).to(x.dtype) * self.weight


class Block(nn.Module):
    """A Llama decoder layer (pre-norm attention + SwiGLU MLP) with attention written as matmuls. use_bmm
    spells the attention with torch.bmm on (batch*heads, S, D) instead of 4-D @."""

    def __init__(self, dim, heads, hidden, use_bmm):
        super().__init__()
        self.heads, self.use_bmm = heads, use_bmm
        self.attn_norm, self.mlp_norm = RMSNorm(dim), RMSNorm(dim)
        self.q_proj = nn.Linear(dim, dim, bias=True)  # Qwen-style q/k/v biases: the fused-bias route
        self.k_proj = nn.Linear(dim, dim, bias=True)
        self.v_proj = nn.Linear(dim, dim, bias=True)
        self.o_proj = nn.Linear(dim, dim, bias=False)
        self.gate_proj = nn.Linear(dim, hidden, bias=False)
        self.up_proj = nn.Linear(dim, hidden, bias=False)
        self.down_proj = nn.Linear(hidden, dim, bias=False)

    def forward(self, x):
        b, s, d = x.shape
        h, hd = self.heads, d // self.heads
        y = self.attn_norm(x)
        q, k, v = (p(y).view(b, s, h, hd).transpose(1, 2) for p in (self.q_proj, self.k_proj, self.v_proj))
        mask = torch.full((s, s), float("-inf"), dtype=torch.float32, device=x.device).triu(1)
        if self.use_bmm:
            q3, k3, v3 = (t.reshape(b * h, s, hd) for t in (q, k, v))
            scores = torch.bmm(q3, k3.transpose(1, 2)).view(b, h, s, s)
        else:
            scores = q @ k.transpose(-1, -2)
        p = ((scores.float() / hd ** 0.5) + mask).softmax(-1).to(x.dtype)
        if self.use_bmm:
            att = torch.bmm(p.reshape(b * h, s, s), v.reshape(b * h, s, hd)).view(b, h, s, hd)
        else:
            att = torch.matmul(p, v)
        x = x + self.o_proj(att.transpose(1, 2).reshape(b, s, d))
        y = self.mlp_norm(x)
        return x + self.down_proj(F.silu(self.gate_proj(y)) * self.up_proj(y))


class TinyDecoder(nn.Module):
    """Embedding, layers, norm, and an LM head applied with torch.addmm (weight + bias)."""

    def __init__(self, vocab=61, dim=32, heads=4, hidden=48, layers=2):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.layers = nn.ModuleList(Block(dim, heads, hidden, use_bmm=bool(i % 2)) for i in range(layers))
        self.norm = RMSNorm(dim)
        self.head = nn.Parameter(torch.randn(vocab, dim) / dim ** 0.5)
        self.head_bias = nn.Parameter(torch.randn(vocab) * 0.1)

    def forward(self, tokens):
        x = self.embed(tokens)
        for layer in self.layers:
            x = layer(x)
        x = self.norm(x)
        b, s, d = x.shape
        return torch.addmm(self.head_bias, x.reshape(b * s, d), self.head.t()).view(b, s, -1)

    # per forward: 7 Linear + 2 attention GEMMs per layer, 1 addmm head
    def gemm_calls(self):
        return 9 * len(self.layers) + 1


def make_model(dtype, seed=0, device="cpu", **sizes):
    torch.manual_seed(seed)
    return TinyDecoder(**sizes).to(device=device, dtype=dtype).eval()


def tokens(batch=2, seq=7, seed=1, vocab=61, device="cpu"):
    return torch.randint(0, vocab, (batch, seq), generator=torch.Generator().manual_seed(seed)).to(device)


@pytest.fixture(autouse=True)
def _clean():
    origami_nv.reset_dispatch_stats()
    depth = torch._C._len_torch_function_stack()
    yield
    assert not origami_nv.is_enabled("cpu") and not origami_nv.is_enabled("cuda"), "a test left the switch on"
    assert torch._C._len_torch_function_stack() == depth, "a test left a mode on the stack"


# ---- the model: same output, every GEMM routed ----------------------------------------------------------
@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_model_output_equals_torch_and_every_gemm_is_routed(dtype):
    model, tok = make_model(dtype), tokens()
    with torch.no_grad():
        ref = model(tok)
        assert origami_nv.dispatch_stats()["routed"] == 0
        with origami_nv.enabled(devices=CPU):
            out = model(tok)
    st = origami_nv.dispatch_stats()
    assert st["routed"] == model.gemm_calls() and st["fallback"] == 0, st
    assert st["routed_calls"] == {"F.linear": 14, "Tensor.matmul": 1, "torch.matmul": 1, "torch.bmm": 2,
                                  "torch.addmm": 1}, st
    assert out.dtype == dtype and out.shape == ref.shape
    torch.testing.assert_close(out, ref, **TOL[dtype])


def test_routed_calls_run_the_op():
    # The routed result is the op's, bit for bit: the switch adds no arithmetic of its own.
    model, tok = make_model(torch.float16), tokens()
    x = model.embed(tok)
    lin = model.layers[0].q_proj
    with torch.no_grad():
        with origami_nv.enabled(devices=CPU):
            got = lin(x)
        want = origami_nv.matmul(x, lin.weight.t(), bias=lin.bias)
    assert torch.equal(got, want)


def test_float32_model_routes_at_highest_precision():
    model, tok = make_model(torch.float32), tokens()
    assert not torch.backends.cuda.matmul.allow_tf32  # torch's default: fp32 matmuls exact
    with torch.no_grad():
        ref = model(tok)
        with origami_nv.enabled(devices=CPU):
            out = model(tok)
    torch.testing.assert_close(out, ref, **TOL[torch.float32])
    st = origami_nv.dispatch_stats()
    assert st["routed"] == model.gemm_calls() and st["fallback"] == 0, st


_TF32_SWITCHES = ["allow_tf32", "precision_high", "precision_medium"] + (
    ["fp32_precision_tf32"] if hasattr(torch.backends.cuda.matmul, "fp32_precision") else [])


def _set_tf32(how):
    m = torch.backends.cuda.matmul
    if how == "allow_tf32":
        m.allow_tf32 = True
    elif how == "fp32_precision_tf32":
        m.fp32_precision = "tf32"
    else:
        torch.set_float32_matmul_precision(how.split("_")[1])


def _reset_tf32(how):
    # back to torch's default through the API that set it (after the fp32_precision setter the legacy getters raise)
    if how == "fp32_precision_tf32":
        torch.backends.cuda.matmul.fp32_precision = "ieee"
    else:
        torch.set_float32_matmul_precision("highest")


@pytest.mark.parametrize("how", _TF32_SWITCHES)
def test_tf32_switch_is_read_as_torch_sets_it(how):
    # The op reads torch's float32 matmul precision at each call (cpp/ops/ops.cpp tf32_allowed): every way torch
    # offers to allow TF32 turns it on, and going back to "highest" turns it off.
    assert not origami_nv.tf32_allowed()
    try:
        _set_tf32(how)
        assert origami_nv.tf32_allowed()
    finally:
        _reset_tf32(how)
    assert not origami_nv.tf32_allowed()


@pytest.mark.parametrize("how", ["allow_tf32", "precision_high"])
def test_float32_with_tf32_allowed_routes(how):
    # TF32 allowed: on CUDA the op runs float32 on its TF32 kernels (where the device has them, else the switch leaves
    # the call to torch: _probe_device asks the op for "tfloat32"); on CPU it computes exactly, as torch's CPU
    # matmul does under the same switch, so the outputs agree bit for bit.
    model, tok = make_model(torch.float32), tokens()
    try:
        _set_tf32(how)
        with torch.no_grad():
            ref = model(tok)
            with origami_nv.enabled(devices=CPU):
                out = model(tok)
    finally:
        _reset_tf32(how)
    torch.testing.assert_close(out, ref, **TOL[torch.float32])
    st = origami_nv.dispatch_stats()
    assert st["routed"] == model.gemm_calls() and st["fallback"] == 0, st


def test_cpu_tensors_not_routed_by_default():
    model, tok = make_model(torch.float16), tokens()
    with torch.no_grad():
        ref = model(tok)
        with origami_nv.enabled():  # devices=("cuda",)
            out = model(tok)
    assert torch.equal(out, ref)
    st = origami_nv.dispatch_stats()
    assert st["routed"] == 0 and st["fallback"] == model.gemm_calls()
    assert all(k.endswith("device cpu not routed") for k in st["fallback_calls"]), st


def test_autocast_operands_cast_as_autocast_would():
    model, tok = make_model(torch.float32), tokens()
    with torch.no_grad(), torch.autocast("cpu", dtype=torch.bfloat16):
        ref = model(tok)
        with origami_nv.enabled(devices=CPU):
            out = model(tok)
    assert out.dtype == ref.dtype == torch.bfloat16
    torch.testing.assert_close(out, ref, **TOL[torch.bfloat16])
    assert origami_nv.dispatch_stats()["routed"] == model.gemm_calls()


def gradients_match_torch(model, tok, ctx, atol, rtol):
    """Backward of a loss on model(tok) inside ctx() gives torch's parameter gradients (within atol / rtol)."""
    model(tok).float().square().mean().backward()
    ref = {n: p.grad.clone() for n, p in model.named_parameters() if p.grad is not None}
    model.zero_grad(set_to_none=True)
    with ctx():
        model(tok).float().square().mean().backward()
    for n, p in model.named_parameters():
        if n in ref:
            torch.testing.assert_close(p.grad, ref[n], atol=atol, rtol=rtol, msg=n)


def test_gradients_through_the_switch():
    torch.manual_seed(3)
    model = make_model(torch.float16).train()
    gradients_match_torch(model, tokens(), lambda: origami_nv.enabled(devices=CPU), atol=5e-3, rtol=5e-2)
    assert origami_nv.dispatch_stats()["routed"] == model.gemm_calls()


# ---- every spelling routed -------------------------------------------------------------------------------
def _r(*shape, dtype=torch.float16, seed=0):
    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed)).to(dtype)


A, B, A3, B3, A4 = _r(5, 8), _r(8, 6, seed=1), _r(3, 5, 8, seed=2), _r(3, 8, 6, seed=3), _r(2, 3, 5, 8, seed=4)
BIAS, C = _r(6, seed=5), _r(5, 6, seed=6)
W = _r(6, 8, seed=7)  # linear weight (out, in)

ROUTED = {
    "x @ w": ("Tensor.matmul", lambda: A @ B),
    "x.matmul": ("Tensor.matmul", lambda: A.matmul(B)),
    "torch.matmul 2-D": ("torch.matmul", lambda: torch.matmul(A, B)),
    "torch.matmul 3-D batched": ("torch.matmul", lambda: torch.matmul(A3, B3)),
    "torch.matmul N-D @ 2-D": ("torch.matmul", lambda: torch.matmul(A4, B)),
    "torch.matmul 4-D @ 4-D": ("torch.matmul", lambda: torch.matmul(A4, A4.transpose(-1, -2))),
    "transposed views": ("torch.matmul", lambda: torch.matmul(B.t(), A.t())),
    "__rmatmul__": ("Tensor.__rmatmul__", lambda: torch.Tensor.__rmatmul__(B, A)),
    "torch.mm": ("torch.mm", lambda: torch.mm(A, B)),
    "x.mm": ("Tensor.mm", lambda: A.mm(B)),
    "torch.bmm": ("torch.bmm", lambda: torch.bmm(A3, B3)),
    "x.bmm": ("Tensor.bmm", lambda: A3.bmm(B3)),
    "torch.addmm 1-D bias": ("torch.addmm", lambda: torch.addmm(BIAS, A, B)),
    "torch.addmm (1, N) bias": ("torch.addmm", lambda: torch.addmm(BIAS[None], A, B)),
    "torch.addmm (M, N) input": ("torch.addmm", lambda: torch.addmm(C, A, B)),
    "torch.addmm explicit ones": ("torch.addmm", lambda: torch.addmm(BIAS, A, B, beta=1, alpha=1.0)),
    "x.addmm": ("Tensor.addmm", lambda: C.addmm(A, B)),
    "F.linear": ("F.linear", lambda: F.linear(A, W)),
    "F.linear bias": ("F.linear", lambda: F.linear(A3, W, BIAS)),
    "F.linear bias keyword": ("F.linear", lambda: F.linear(A, W, bias=BIAS)),
    "zero K": ("torch.mm", lambda: torch.mm(A[:, :0], B[:0])),
    "zero M": ("torch.mm", lambda: torch.mm(A[:0], B)),
}


@pytest.mark.parametrize("case", sorted(ROUTED))
def test_each_spelling_is_routed(case):
    name, fn = ROUTED[case]
    ref = fn()
    with origami_nv.enabled(devices=CPU):
        out = fn()
    st = origami_nv.dispatch_stats()
    assert st["routed_calls"] == {name: 1} and st["fallback"] == 0, st
    assert out.shape == ref.shape and out.dtype == ref.dtype
    torch.testing.assert_close(out, ref, **TOL[torch.float16])


# ---- everything else goes to torch, with its reason -----------------------------------------------------
class Subclass(torch.Tensor):
    pass


def _sparse():
    return torch.eye(5).to_sparse()


def _vmapped():
    return torch.func.vmap(lambda x: x @ B)(A3)


def _forward_ad():
    import torch.autograd.forward_ad as fwAD
    with fwAD.dual_level():
        dual = fwAD.make_dual(A.float(), torch.ones(5, 8))
        return fwAD.unpack_dual(dual.half() @ B).primal


FALLBACK = {  # case -> (fn, the reason in the counter key)
    "float64": (lambda: A.double() @ B.double(), "dtype torch.float64"),
    "int64": (lambda: torch.mm(A.long(), B.long()), "dtype torch.int64"),
    "vector @ matrix": (lambda: torch.matmul(A[0], B), "1-D operand"),
    "matrix @ vector": (lambda: A @ B[:, 0], "1-D operand"),
    "broadcast batch 1 vs 3": (lambda: torch.matmul(A3[:1], B3), "broadcast batch dims"),
    "2-D @ 3-D": (lambda: torch.matmul(A, B3), "broadcast batch dims"),
    "out=": (lambda: torch.matmul(A, B, out=torch.empty(5, 6, dtype=torch.float16)), "keyword out"),
    "mm out=": (lambda: torch.mm(A, B, out=torch.empty(5, 6, dtype=torch.float16)), "keyword out"),
    "addmm beta": (lambda: torch.addmm(C, A, B, beta=0.5), "alpha/beta != 1"),
    "addmm alpha": (lambda: torch.addmm(C, A, B, alpha=2), "alpha/beta != 1"),
    "tensor subclass": (lambda: A.as_subclass(Subclass) @ B, "tensor subclass Subclass"),
    "sparse": (lambda: torch.mm(_sparse(), A.float()), "layout torch.sparse_coo"),
    "negative-bit view": (lambda: torch._neg_view(A) @ B, "negative-bit view"),
    "vmap": (_vmapped, "functorch transform"),
    "forward AD": (_forward_ad, "forward-mode AD"),
    "linear 1-D input": (lambda: F.linear(A[0], W), "1-D operand"),
    "linear 0-D bias": (lambda: F.linear(A, W, BIAS[0]), "bias shape"),
}


@pytest.mark.parametrize("case", sorted(FALLBACK))
def test_unsupported_calls_fall_back_to_torch(case):
    fn, reason = FALLBACK[case]
    ref = fn()
    with origami_nv.enabled(devices=CPU):
        out = fn()
    st = origami_nv.dispatch_stats()
    assert st["routed"] == 0 and st["fallback"] >= 1, st
    assert any(k.endswith(": " + reason) for k in st["fallback_calls"]), st
    ref, out = (t.to_dense() if t.layout != torch.strided else t for t in (ref, out))
    assert torch.equal(out, ref)  # torch computed it: the same bits


ERRORS = {  # calls torch rejects: the switch passes them on and torch raises its own error
    "mixed dtypes": lambda: A @ B.bfloat16(),
    "inner dims differ": lambda: A @ A,
    "addmm input too large": lambda: torch.addmm(_r(2, 5, 6), A, B),
}


@pytest.mark.parametrize("case", sorted(ERRORS))
def test_calls_torch_rejects_raise_torchs_error(case):
    fn = ERRORS[case]
    with pytest.raises(Exception) as want:
        fn()
    with origami_nv.enabled(devices=CPU):
        with pytest.raises(type(want.value)) as got:
            fn()
    assert str(got.value) == str(want.value)
    assert origami_nv.dispatch_stats()["routed"] == 0


def test_other_devices_go_to_torch():
    # Whatever torch does with a cpu @ meta call (it does not raise), the switch leaves to it; meta tensors
    # (a device type the op has no kernels for) too.
    want_mixed, want_meta = torch.mm(A, B.to("meta")), torch.mm(A.to("meta"), B.to("meta"))
    with origami_nv.enabled(devices=("cpu", "meta")):
        mixed = torch.mm(A, B.to("meta"))
        meta = torch.mm(A.to("meta"), B.to("meta"))
    for got, want in ((mixed, want_mixed), (meta, want_meta)):
        assert (got.device, got.shape, got.dtype) == (want.device, want.shape, want.dtype)
    assert origami_nv.dispatch_stats()["fallback_calls"] == {
        "torch.mm: operands on different devices": 1, "torch.mm: the op has no meta implementation": 1}


def test_stats_reset_and_shape():
    with origami_nv.enabled(devices=CPU):
        A @ B
        A.double() @ B.double()
    with origami_nv.enabled(devices=CPU, dispatcher=True):
        A @ B
    st = origami_nv.dispatch_stats()
    zero = {op: {"routed": 0, "fallback": 0} for op in ("aten::mm", "aten::bmm", "aten::addmm", "aten::mm.out",
                                                        "aten::bmm.out", "aten::addmm.out")}
    assert st == {"routed": 1, "fallback": 1, "routed_calls": {"Tensor.matmul": 1},
                  "fallback_calls": {"Tensor.matmul: dtype torch.float64": 1},
                  "dispatcher": dict(zero, **{"aten::mm": {"routed": 1, "fallback": 0}})}
    origami_nv.reset_dispatch_stats()
    assert origami_nv.dispatch_stats() == {"routed": 0, "fallback": 0, "routed_calls": {}, "fallback_calls": {},
                                           "dispatcher": zero}


# ---- switch semantics: nesting, enable/disable, threads ----------------------------------------------------
def test_nesting_restores_each_level_and_decides_once():
    base = torch._C._len_torch_function_stack()
    with origami_nv.enabled(devices=CPU):
        assert origami_nv.is_enabled("cpu")
        with origami_nv.disabled():
            assert not origami_nv.is_enabled("cpu")
            A @ B  # not routed, and not decided twice by an outer mode
            with origami_nv.enabled(devices=CPU):
                A @ B
                assert torch._C._len_torch_function_stack() == base + 1  # one origami mode, however deep
            assert not origami_nv.is_enabled("cpu")
        with origami_nv.enabled(devices=("cuda",)):
            A @ B  # cpu not routed here
        A @ B
    st = origami_nv.dispatch_stats()
    assert st["routed"] == 2, st
    assert st["fallback_calls"] == {"Tensor.matmul: device cpu not routed": 1}, st
    assert torch._C._len_torch_function_stack() == base


def test_enable_disable():
    base = torch._C._len_torch_function_stack()
    origami_nv.enable(devices=CPU)
    try:
        assert origami_nv.is_enabled("cpu") and torch._C._len_torch_function_stack() == base + 1
        origami_nv.enable(devices=CPU)  # again: a setting, not a second mode
        assert torch._C._len_torch_function_stack() == base + 1
        A @ B
        with origami_nv.disabled():
            A @ B
            origami_nv.disable()  # inside a block: the block's state; the block's exit restores enable()'s
            A @ B
        assert origami_nv.is_enabled("cpu")
        A @ B
    finally:
        origami_nv.disable()
    assert not origami_nv.is_enabled("cpu") and torch._C._len_torch_function_stack() == base  # mode removed
    A @ B
    origami_nv.disable()  # a no-op when off
    assert origami_nv.dispatch_stats()["routed"] == 2


def test_enable_inside_a_block_ends_with_the_block():
    with origami_nv.enabled(devices=("cuda",)):
        origami_nv.enable(devices=CPU)
        assert origami_nv.is_enabled("cpu")
    assert not origami_nv.is_enabled("cpu")


def test_the_switch_is_thread_local():
    seen = {}

    def worker():
        seen["enabled"] = origami_nv.is_enabled("cpu")
        seen["out"] = A @ B

    with origami_nv.enabled(devices=CPU):
        t = threading.Thread(target=worker)
        t.start()
        t.join()
        A @ B
    assert seen["enabled"] is False
    assert origami_nv.dispatch_stats()["routed"] == 1  # the worker's call was not seen by this thread's switch
    assert torch.equal(seen["out"], A @ B)


def test_leaving_under_a_foreign_mode_raises():
    from torch.overrides import TorchFunctionMode

    class Other(TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            return func(*args, **(kwargs or {}))

    origami_nv.enable(devices=CPU)
    other = Other()
    other.__enter__()
    try:
        A @ B  # the other mode is innermost; the switch below still routes
        with pytest.raises(RuntimeError, match="another torch function mode"):
            origami_nv.disable()
    finally:
        other.__exit__(None, None, None)
    origami_nv.disable()
    assert origami_nv.dispatch_stats()["routed"] == 1


def test_bad_devices_argument():
    with pytest.raises(ValueError, match="device types"):
        origami_nv.enabled(devices=("cuda:0",))
    with pytest.raises(RuntimeError):
        origami_nv.enabled(devices=("nonsense",))


# ---- the dispatcher path (enable(dispatcher=True): torch's aten::mm/bmm/addmm kernels replaced) -------------
def _aten(st=None):
    st = st or origami_nv.dispatch_stats()
    return {op: (c["routed"], c["fallback"]) for op, c in st["dispatcher"].items()}


def _counts(**by_op):
    """_aten()'s form: every aten op (0, 0) but those given (mm=(1, 0), mm_out=(0, 2), ...)."""
    ops = ("mm", "bmm", "addmm", "mm.out", "bmm.out", "addmm.out")
    return {f"aten::{op}": by_op.get(op.replace(".", "_"), (0, 0)) for op in ops}


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_dispatcher_path_model_matches_torch_every_gemm_routed_no_mode(dtype):
    model, tok = make_model(dtype), tokens()
    base = torch._C._len_torch_function_stack()
    with torch.no_grad():
        ref = model(tok)
        with origami_nv.enabled(devices=CPU, dispatcher=True):
            assert origami_nv.is_enabled("cpu") and torch._C._len_torch_function_stack() == base  # no mode
            out = model(tok)
    st = origami_nv.dispatch_stats()
    assert st["routed"] == 0 and st["fallback"] == 0, st  # the mode saw nothing
    # per layer: 4 bias-free Linear (matmul folds them into mm), 3 with bias (addmm), 2 attention GEMMs (bmm:
    # 4-D @ folds into bmm as well); the head's addmm
    layers = len(model.layers)
    assert _aten(st) == _counts(mm=(4 * layers, 0), bmm=(2 * layers, 0), addmm=(3 * layers + 1, 0)), st
    torch.testing.assert_close(out, ref, **TOL[dtype])


def test_dispatcher_path_runs_the_op_bit_for_bit():
    x, w, bias = _r(4, 5, 8, seed=11), W, BIAS
    with torch.no_grad(), origami_nv.enabled(devices=CPU, dispatcher=True):
        got_linear = F.linear(x, w, bias)
        got_mm = torch.mm(A, B)
        got_bmm = torch.bmm(A3, B3)
        got_addmm_row = torch.addmm(BIAS.view(1, -1), A, B)
    assert torch.equal(got_linear, origami_nv.matmul(x, w.t(), bias=bias))
    assert torch.equal(got_mm, origami_nv.matmul(A, B))
    assert torch.equal(got_bmm, origami_nv.matmul(A3, B3))
    assert torch.equal(got_addmm_row, origami_nv.matmul(A, B, bias=BIAS))
    assert _aten() == _counts(mm=(1, 0), bmm=(1, 0), addmm=(2, 0))


def test_dispatcher_path_leaves_the_rest_to_torchs_kernel():
    cases = {
        "aten::mm": [lambda: torch.mm(A.double(), B.double()),                      # dtype
                     lambda: torch.mm(A.float(), B.float()),                        # fp32 on the CPU
                     lambda: torch.mm(A[:, :0], B[:0])],                            # K = 0
        "aten::addmm": [lambda: torch.addmm(BIAS, A, B, beta=2),                    # beta
                        lambda: torch.addmm(BIAS, A, B, alpha=0.5),                 # alpha
                        lambda: torch.addmm(C, A, B),                               # a full (M, N) input
                        lambda: torch.addmm(BIAS.float(), A.float(), B.float())],   # dtype
    }
    want = {op: [fn() for fn in fns] for op, fns in cases.items()}  # torch's own kernels: the dispatcher path is off
    origami_nv.reset_dispatch_stats()
    with origami_nv.enabled(devices=CPU, dispatcher=True):
        got = {op: [fn() for fn in fns] for op, fns in cases.items()}
    for op in cases:
        for g, w in zip(got[op], want[op]):
            assert g.dtype == w.dtype and torch.equal(g, w), op
    assert _aten() == _counts(mm=(0, 3), addmm=(0, 4))


def test_dispatcher_path_out_forms_run_the_op_into_out():
    outs = {"mm": torch.empty(A.shape[0], B.shape[1], dtype=A.dtype), "bmm": torch.empty(A3.shape[0], A3.shape[1],
            B3.shape[2], dtype=A3.dtype), "addmm": torch.empty(A.shape[0], B.shape[1], dtype=A.dtype)}
    with torch.no_grad(), origami_nv.enabled(devices=CPU, dispatcher=True):
        r_mm = torch.mm(A, B, out=outs["mm"])
        r_bmm = torch.bmm(A3, B3, out=outs["bmm"])
        r_addmm = torch.addmm(BIAS, A, B, out=outs["addmm"])
    for r, op in ((r_mm, "mm"), (r_bmm, "bmm"), (r_addmm, "addmm")):
        assert r.data_ptr() == outs[op].data_ptr(), op  # written where asked, and returned
    assert torch.equal(outs["mm"], origami_nv.matmul(A, B))
    assert torch.equal(outs["bmm"], origami_nv.matmul(A3, B3))
    assert torch.equal(outs["addmm"], origami_nv.matmul(A, B, bias=BIAS))
    assert _aten() == _counts(mm_out=(1, 0), bmm_out=(1, 0), addmm_out=(1, 0))


def test_dispatcher_path_out_forms_left_to_torch():
    m, n = A.shape[0], B.shape[1]
    big = torch.empty(m + 4, n + 3, dtype=A.dtype)
    square = _r(m, m, seed=5)
    cases = [  # (what torch is asked; each must come out as torch's own out= kernel makes it, but the routed ones)
        lambda: torch.mm(A, B, out=torch.empty(0, dtype=A.dtype)),     # wrong shape: torch resizes it
        lambda: torch.mm(A, B, out=big[:m, :n]),                       # not contiguous: routed, copied in
        lambda: torch.mm(A, B, out=torch.empty(n, m, dtype=A.dtype).t()),  # transposed: routed, copied in
        lambda: torch.mm(square, square, out=square.clone()),          # (control: apart, routed)
        lambda: torch.addmm(BIAS, A, B, beta=2, out=torch.empty(m, n, dtype=A.dtype)),  # beta
    ]
    routed = {1: (A, B), 2: (A, B), 3: (square, square)}

    def run():
        return [fn().clone() for fn in cases]
    want = run()
    origami_nv.reset_dispatch_stats()
    with torch.no_grad(), origami_nv.enabled(devices=CPU, dispatcher=True):
        got = run()
        sq = square.clone()
        overlap = torch.mm(sq, square, out=sq)  # out is an operand: torch's to define
    for i, (g, w) in enumerate(zip(got, want)):
        if i in routed:
            assert torch.equal(g, origami_nv.matmul(*routed[i])), i
        else:
            assert g.shape == w.shape and torch.equal(g, w), i
    with torch.no_grad():
        sq = square.clone()
        assert torch.equal(overlap, torch.mm(sq, square, out=sq))  # the same aliasing, torch's kernel
    assert _aten() == _counts(mm_out=(3, 2), addmm_out=(0, 1))


def test_dispatcher_path_under_inductor_routes_its_extern_gemms():
    # Inductor's generated code calls torch's out= GEMMs (extern_kernels.mm / addmm with out=): the dispatcher path
    # routes them, so a compiled model runs the op with no mode and no graph break
    torch._dynamo.reset()
    model, tok = make_model(torch.bfloat16), tokens()
    with torch.no_grad(), origami_nv.enabled(devices=CPU, dispatcher=True):
        eager = model(tok)
        origami_nv.reset_dispatch_stats()
        out = torch.compile(model, fullgraph=True)(tok)
    counts = _aten()
    routed_out = sum(counts[f"aten::{op}.out"][0] for op in ("mm", "bmm", "addmm"))
    assert routed_out == model.gemm_calls() and all(f == 0 for _, f in counts.values()), counts  # every GEMM
    torch.testing.assert_close(out, eager, **TOL[torch.bfloat16])
    torch._dynamo.reset()


def test_dispatcher_path_off_is_torchs_kernel_again():
    before = torch.mm(A, B)
    with origami_nv.enabled(devices=CPU, dispatcher=True):
        routed = torch.mm(A, B)
    after = torch.mm(A, B)
    assert torch.equal(before, after)
    assert torch.equal(routed, origami_nv.matmul(A, B))
    assert _aten()["aten::mm"] == (1, 0)  # the calls while off are not counted


def test_dispatcher_path_gradients():
    torch.manual_seed(3)
    model = make_model(torch.float16).train()
    gradients_match_torch(model, tokens(), lambda: origami_nv.enabled(devices=CPU, dispatcher=True),
                          atol=5e-3, rtol=5e-2)
    routed = sum(r for r, _ in _aten().values())
    assert routed > model.gemm_calls()  # the forward's GEMMs and the backward's (mm's derivatives are mm calls)


def test_dispatcher_path_enable_disable_and_disabled_block():
    block = origami_nv.disabled()  # made while off, entered while on: decides when entered
    origami_nv.enable(devices=CPU, dispatcher=True)
    try:
        assert origami_nv.is_enabled("cpu") and not origami_nv.is_enabled("cuda")
        with block:
            assert not origami_nv.is_enabled("cpu")
            A @ B
        assert origami_nv.is_enabled("cpu")
        A @ B
    finally:
        origami_nv.disable()
    assert not origami_nv.is_enabled("cpu")
    A @ B
    assert _aten()["aten::mm"] == (1, 0)


def test_dispatcher_path_is_process_wide():
    seen = {}

    def worker():
        seen["out"] = A @ B

    with origami_nv.enabled(devices=CPU, dispatcher=True):
        t = threading.Thread(target=worker)
        t.start()
        t.join()
    assert torch.equal(seen["out"], origami_nv.matmul(A, B))
    assert _aten()["aten::mm"] == (1, 0)


def test_dispatcher_path_bad_devices():
    with pytest.raises(ValueError, match="dispatcher path routes 'cpu' and 'cuda'"):
        origami_nv.enable(devices=("meta",), dispatcher=True)
    assert not origami_nv.is_enabled("meta")


# ---- origami_nv.nn ----------------------------------------------------------------------------------------
def test_linear_state_dict_compatible_both_ways():
    torch.manual_seed(0)
    ref = nn.Linear(8, 6)
    mine = origami_nv.nn.Linear(8, 6)
    assert isinstance(mine, nn.Linear)
    assert list(mine.state_dict()) == list(ref.state_dict()) == ["weight", "bias"]
    mine.load_state_dict(ref.state_dict())
    back = nn.Linear(8, 6)
    back.load_state_dict(mine.state_dict())
    assert torch.equal(back.weight, ref.weight) and torch.equal(back.bias, ref.bias)
    no_bias = origami_nv.nn.Linear(8, 6, bias=False, dtype=torch.bfloat16)
    assert list(no_bias.state_dict()) == ["weight"] and no_bias.weight.dtype == torch.bfloat16


def test_linear_forward_routes_and_falls_back(tmp_path):
    torch.manual_seed(0)
    ref = nn.Linear(8, 6).half()
    mine = origami_nv.nn.Linear(8, 6, dtype=torch.float16)
    mine.load_state_dict(ref.state_dict())
    x = _r(2, 5, 8)
    with torch.no_grad():
        assert torch.equal(mine(x), ref(x))  # default devices ("cuda",): CPU falls back to F.linear
        mine.route_devices = frozenset(CPU)
        torch.testing.assert_close(mine(x), ref(x), **TOL[torch.float16])
        assert torch.equal(mine(x), origami_nv.matmul(x, mine.weight.t(), bias=mine.bias))
        mine64 = origami_nv.nn.convert(nn.Linear(8, 6).double(), devices=CPU)
        assert torch.equal(mine64(x.double()), F.linear(x.double(), mine64.weight, mine64.bias))
    st = origami_nv.dispatch_stats()
    assert st["routed_calls"] == {"nn.Linear": 2}, st
    assert st["fallback_calls"] == {"nn.Linear: device cpu not routed": 1, "nn.Linear: dtype torch.float64": 1}, st
    path = tmp_path / "lin.pt"
    torch.save(mine.state_dict(), path)
    plain = nn.Linear(8, 6).half()
    plain.load_state_dict(torch.load(path))
    assert torch.equal(plain.weight, mine.weight)


def test_convert_in_place_keeps_parameters():
    model = make_model(torch.float16)
    model.layers[1].down_proj.weight.requires_grad_(False)

    class MyLinear(nn.Linear):  # a subclass with its own forward: left alone
        def forward(self, x):
            return super().forward(x) * 2
    model.extra = MyLinear(4, 4, dtype=torch.float16)
    params = {n: p for n, p in model.named_parameters()}
    keys = list(model.state_dict())
    hook_calls = []
    model.layers[0].q_proj.register_forward_hook(lambda m, i, o: hook_calls.append(1))

    out = origami_nv.nn.convert(model, devices=CPU)
    assert out is model
    linears = [m for m in model.modules() if isinstance(m, nn.Linear)]
    assert sum(type(m) is origami_nv.nn.Linear for m in linears) == 14
    assert type(model.extra) is MyLinear
    assert list(model.state_dict()) == keys
    for n, p in model.named_parameters():
        assert p is params[n]  # the same Parameter objects: nothing copied or replaced
    assert model.layers[1].down_proj.weight.requires_grad is False
    assert all(p.dtype == torch.float16 for p in model.parameters())
    tok = tokens()
    with torch.no_grad():
        got = model(tok)
    assert hook_calls == [1]
    assert origami_nv.dispatch_stats()["routed_calls"]["nn.Linear"] == 14
    origami_nv.nn.revert(model)
    assert sum(type(m) is nn.Linear for m in model.modules()) == 14
    with torch.no_grad():
        torch.testing.assert_close(model(tok), got, **TOL[torch.float16])
    with pytest.raises(TypeError, match="torch.nn.Module"):
        origami_nv.nn.convert(object())


def test_converted_model_pickles(tmp_path):
    model = origami_nv.nn.convert(make_model(torch.float16), devices=CPU)
    path = tmp_path / "model.pt"
    torch.save(model, path)
    loaded = torch.load(path, weights_only=False)
    assert type(loaded.layers[0].q_proj) is origami_nv.nn.Linear
    assert loaded.layers[0].q_proj.route_devices == frozenset(CPU)
    with torch.no_grad():
        assert torch.equal(loaded(tokens()), model(tokens()))


# ---- torch.compile -------------------------------------------------------------------------------------
def _graph_code(explained):
    return "\n".join(g.code for g in explained.graphs)


def test_compile_one_graph_with_the_op_and_no_break():
    torch._dynamo.reset()
    model, tok = make_model(torch.float16), tokens()
    with torch.no_grad():
        ref = model(tok)
        with origami_nv.enabled(devices=CPU):
            explained = torch._dynamo.explain(model)(tok)
            assert explained.graph_count == 1 and explained.graph_break_count == 0, explained.break_reasons
            code = _graph_code(explained)
            assert code.count("origami_nv.matmul_bias.default") == 7  # q/k/v with bias, and the addmm head
            assert code.count("origami_nv.matmul.default") == model.gemm_calls() - 7
            for plain in ("torch.matmul", "torch.bmm", "torch.addmm", "torch._C._nn.linear", ".matmul("):
                assert plain not in code, plain
            origami_nv.reset_dispatch_stats()
            torch._dynamo.reset()
            counter = torch._dynamo.testing.CompileCounterWithBackend("aot_eager")
            compiled = torch.compile(model, backend=counter, fullgraph=True)
            outs = [compiled(tok) for _ in range(3)]
    assert counter.frame_count == 1
    st = origami_nv.dispatch_stats()
    assert st["routed"] == model.gemm_calls() and st["fallback"] == 0, st  # counted once, while tracing
    for out in outs:
        torch.testing.assert_close(out, ref, **TOL[torch.float16])


def test_compile_recompiles_when_the_switch_changes():
    torch._dynamo.reset()
    model, tok = make_model(torch.float16), tokens()
    counter = torch._dynamo.testing.CompileCounterWithBackend("aot_eager")
    compiled = torch.compile(model, backend=counter)
    with torch.no_grad():
        with origami_nv.enabled(devices=CPU):
            on = compiled(tok)
        off = compiled(tok)  # the guards see the mode gone: a torch-only graph
    assert counter.frame_count == 2
    st = origami_nv.dispatch_stats()
    assert st["routed"] == model.gemm_calls() and st["fallback"] == 0, st
    torch.testing.assert_close(on, off, **TOL[torch.float16])


def test_compile_converted_model_inductor():
    torch._dynamo.reset()
    model = origami_nv.nn.convert(make_model(torch.float16), devices=CPU)
    tok = tokens()
    with torch.no_grad():
        ref = model(tok)
        explained = torch._dynamo.explain(model)(tok)
        assert explained.graph_count == 1 and explained.graph_break_count == 0, explained.break_reasons
        assert _graph_code(explained).count("origami_nv.matmul") == 14  # the Linear layers; the rest is torch
        torch._dynamo.reset()
        out = torch.compile(model, fullgraph=True)(tok)
    torch.testing.assert_close(out, ref, **TOL[torch.float16])
