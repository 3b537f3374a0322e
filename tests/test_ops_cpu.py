"""The origami_nv op without a GPU: registration, schema, fake tensors, the CPU implementation in every
shape form, errors, opcheck, autograd and torch.compile."""
import pytest

torch = pytest.importorskip("torch")
import origami_nv  # noqa: E402
from conftest import requires_op  # noqa: E402
from origami_nv import ops  # noqa: E402

pytestmark = requires_op()


def _ref(a, b):
    return torch.matmul(a.float(), b.float()).to(a.dtype)


def test_schema_registered():
    ns = torch.ops.origami_nv
    assert "Tensor a, Tensor b" in str(ns.matmul.default._schema)
    assert "Tensor bias" in str(ns.matmul_bias.default._schema)
    assert "Tensor? bias=None" in str(ns.matmul_config.default._schema)
    s = str(ns.matmul_config.default._schema)
    for arg in ("int block_m", "int block_n", "int block_k", "int group_size_m", "int stages", "int warps",
                "int family", "int split_k=1", "bool swap_ab=False"):
        assert arg in s
    sel = str(ns.select_config.default._schema)
    assert "int[]" in sel and "int batch=1" in sel and 'str layout="nn"' in sel
    assert "bool a_aligned=True" in sel and "bool b_aligned=True" in sel
    assert "-> str" in str(ns.device_kernel_resources.default._schema)
    assert "bool enabled" in str(ns.set_programmatic_dependent_launch.default._schema)


def test_programmatic_dependent_launch_switch():
    # The setting is process-wide; the context manager puts the previous one back (also without a GPU,
    # where it has no effect).
    ns = torch.ops.origami_nv
    start = ns.set_programmatic_dependent_launch(True)
    try:
        with origami_nv.programmatic_dependent_launch(False):
            assert ns.set_programmatic_dependent_launch(False) is False
            with origami_nv.programmatic_dependent_launch(True):
                assert ns.set_programmatic_dependent_launch(True) is True
            assert ns.set_programmatic_dependent_launch(False) is False
        assert ns.set_programmatic_dependent_launch(True) is True
    finally:
        ns.set_programmatic_dependent_launch(start)


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
@pytest.mark.parametrize("form", ["2d", "2d-transposed", "batched", "batched-transposed", "4d@2d", "linear"])
def test_cpu_matches_fp32_reference(dtype, form):
    g = torch.Generator().manual_seed(0)
    r = lambda *s: torch.randn(*s, generator=g).to(dtype)  # noqa: E731
    a, b = {
        "2d": (r(13, 7), r(7, 9)),
        "2d-transposed": (r(7, 13).t(), r(9, 7).t()),
        "batched": (r(3, 5, 8), r(3, 8, 6)),
        "batched-transposed": (r(3, 8, 5).transpose(1, 2), r(3, 6, 8).transpose(1, 2)),
        "4d@2d": (r(2, 3, 4, 8), r(8, 5)),
        "linear": (r(2, 6, 8), r(5, 8).t()),
    }[form]
    out = origami_nv.matmul(a, b)
    want = _ref(a, b)
    assert out.shape == want.shape and out.dtype == dtype
    torch.testing.assert_close(out, want, rtol=0, atol=0)  # same fp32 accumulation, one rounding


def test_cpu_explicit_config_and_zero_sizes():
    a, b = torch.randn(5, 4).half(), torch.randn(4, 3).half()
    cfg = dict(block_m=64, block_n=64, block_k=32, group_size_m=4, stages=3, warps=4, family="mma_sync")
    torch.testing.assert_close(origami_nv.matmul(a, b, config=cfg), _ref(a, b))
    assert origami_nv.matmul(torch.empty(0, 4).half(), b).shape == (0, 3)
    z = origami_nv.matmul(torch.empty(5, 0).half(), torch.empty(0, 3).half())
    assert z.shape == (5, 3) and bool((z == 0).all())


def test_errors_are_clear():
    a = torch.randn(4, 4).half()
    with pytest.raises(TypeError, match="dtype mismatch"):
        origami_nv.matmul(a, a.bfloat16())
    with pytest.raises(TypeError, match="unsupported dtype.*supported: torch.float16, torch.bfloat16, torch.float32"):
        origami_nv.matmul(a.double(), a.double())
    with pytest.raises(RuntimeError, match="inner dimensions do not match"):
        origami_nv.matmul(a, torch.randn(3, 4).half())
    with pytest.raises(RuntimeError, match="batch sizes differ"):
        origami_nv.matmul(torch.randn(2, 4, 4).half(), torch.randn(3, 4, 4).half())
    with pytest.raises(RuntimeError, match="unsupported ranks"):
        origami_nv.matmul(a[0], a)
    with pytest.raises(RuntimeError, match=r"family must be 0 \(mma_sync\), 1 \(wgmma\) or 2 \(simt\)"):
        torch.ops.origami_nv.matmul_config(a, a, 64, 64, 32, 1, 3, 4, 7)
    with pytest.raises(RuntimeError, match="split_k must be in"):
        torch.ops.origami_nv.matmul_config(a, a, 64, 64, 32, 1, 3, 4, 0, 0)
    with pytest.raises(RuntimeError, match="split_k must be in"):
        origami_nv.matmul(a, a, config=dict(block_m=64, block_n=64, block_k=32, stages=3, warps=4, split_k=-2))
    with pytest.raises(ValueError, match="unknown kernel family"):
        origami_nv.matmul(a, a, config=dict(block_m=64, block_n=64, block_k=32, stages=3, warps=4, family="x"))
    with pytest.raises(TypeError, match="config must be"):
        origami_nv.matmul(a, a, config=object())


def test_select_config_argument_errors():
    # The same argument checks with or without a GPU (select_config itself needs the CUDA op).
    ns = torch.ops.origami_nv
    with pytest.raises(RuntimeError, match="layout must be one of nn, nt, tn, tt"):
        ns.select_config(64, 64, 64, "float16", 1, "xx")
    with pytest.raises(RuntimeError, match="batch must be >= 1"):
        ns.select_config(64, 64, 64, "float16", 0, "nn")
    with pytest.raises(RuntimeError, match="unsupported dtype"):
        ns.select_config(64, 64, 64, "float64", 1, "nn")


def test_split_k_config_on_cpu_matches_reference():
    # The CPU implementation ignores the tile (and the split) but validates it; results as any config.
    g = torch.Generator().manual_seed(1)
    a = torch.randn(5, 300, generator=g).half()
    b = torch.randn(300, 7, generator=g).half()
    c = origami_nv.matmul(a, b, config=dict(block_m=16, block_n=16, block_k=64, stages=6, warps=1, split_k=4))
    torch.testing.assert_close(c, _ref(a, b))
    c8 = torch.ops.origami_nv.matmul_config(a, b, 16, 16, 64, 1, 6, 1, 0, 4)
    torch.testing.assert_close(c8, c)


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_bias_cpu_one_rounding_and_errors(dtype):
    g = torch.Generator().manual_seed(2)
    a = torch.randn(2, 6, 40, generator=g).to(dtype)
    w = torch.randn(9, 40, generator=g).to(dtype)
    bias = torch.randn(9, generator=g).to(dtype)
    out = origami_nv.matmul(a, w.t(), bias=bias)
    want = (torch.matmul(a.float(), w.float().t()) + bias.float()).to(dtype)  # fp32 sum, one rounding
    assert torch.equal(out, want)
    cfg = dict(block_m=64, block_n=64, block_k=32, stages=3, warps=4, split_k=2)
    assert torch.equal(origami_nv.matmul(a, w.t(), bias=bias, config=cfg), want)
    # K = 0: the result is the bias on every row
    z = origami_nv.matmul(torch.empty(3, 0, dtype=dtype), torch.empty(0, 9, dtype=dtype), bias=bias)
    assert torch.equal(z, bias.expand(3, 9))
    with pytest.raises(RuntimeError, match="bias must be 1-D with N = 9"):
        origami_nv.matmul(a, w.t(), bias=bias[:4])
    with pytest.raises(RuntimeError, match="bias must be 1-D"):
        origami_nv.matmul(a, w.t(), bias=bias.expand(6, 9))
    with pytest.raises(TypeError, match="bias dtype"):
        origami_nv.matmul(a, w.t(), bias=bias.float())


def test_bias_autograd_and_opcheck_cpu():
    a = torch.randn(2, 5, 16, dtype=torch.float16, requires_grad=True)
    w = torch.randn(7, 16, dtype=torch.float16, requires_grad=True)
    bias = torch.randn(7, dtype=torch.float16, requires_grad=True)
    out = origami_nv.matmul(a, w.t(), bias=bias)
    g = torch.randn_like(out)
    out.backward(g)
    torch.testing.assert_close(bias.grad.float(), g.float().sum((0, 1)), rtol=1e-2, atol=1e-2)
    a32, w32 = a.detach().float().requires_grad_(), w.detach().float().requires_grad_()
    (torch.matmul(a32, w32.t())).backward(g.float())
    torch.testing.assert_close(a.grad.float(), a32.grad, rtol=2e-2, atol=2e-2)
    torch.testing.assert_close(w.grad.float(), w32.grad, rtol=2e-2, atol=2e-2)
    x, wt, b = torch.randn(9, 16).half(), torch.randn(5, 16).half().t(), torch.randn(5).half()
    torch.library.opcheck(torch.ops.origami_nv.matmul_bias.default, (x, wt, b))
    torch.library.opcheck(torch.ops.origami_nv.matmul_config.default, (x, wt, 64, 64, 32, 2, 3, 4, 0, 1, b))


def test_autograd_config_bias_grad_mode_and_double_backward_cpu():
    # The C++ autograd kernel (cpp/ops/ops_autograd.cpp): matmul_config's bias gradient (argument 10), no graph
    # node when nothing requires grad or grad mode is off, and a second derivative through the op.
    x = torch.randn(6, 16, dtype=torch.float16, requires_grad=True)
    w = torch.randn(16, 5, dtype=torch.float16, requires_grad=True)
    b = torch.randn(5, dtype=torch.float16, requires_grad=True)
    out = origami_nv.matmul(x, w, bias=b, config=dict(block_m=64, block_n=64, block_k=32, group_size_m=2, stages=3,
                                                     warps=4, family="mma_sync"))
    g = torch.randn_like(out)
    out.backward(g)
    torch.testing.assert_close(b.grad.float(), g.float().sum(0), rtol=1e-2, atol=1e-2)
    torch.testing.assert_close(x.grad.float(), g.float() @ w.detach().float().t(), rtol=2e-2, atol=2e-2)
    torch.testing.assert_close(w.grad.float(), x.detach().float().t() @ g.float(), rtol=2e-2, atol=2e-2)
    assert origami_nv.matmul(x.detach(), w.detach()).grad_fn is None
    with torch.no_grad():
        assert origami_nv.matmul(x, w).grad_fn is None
    assert origami_nv.matmul(x, w).grad_fn is not None
    # d/dx of sum((x @ w) * v) is v @ w^T; its gradient w.r.t. w (a second derivative) is x^T-independent: v^T.
    v = torch.randn(6, 5, dtype=torch.float16)
    (gx,) = torch.autograd.grad((origami_nv.matmul(x, w).float() * v.float()).sum(), x, create_graph=True)
    (gw2,) = torch.autograd.grad(gx.float().sum(), w)
    torch.testing.assert_close(gw2.float(), v.float().sum(0).expand(16, 5), rtol=2e-2, atol=2e-2)


def test_fake_tensor_shapes():
    from torch._subclasses.fake_tensor import FakeTensorMode
    with FakeTensorMode():
        a = torch.empty(2, 3, 10, 16, dtype=torch.float16)
        b = torch.empty(16, 7, dtype=torch.float16)
        assert torch.ops.origami_nv.matmul(a, b).shape == (2, 3, 10, 7)
        c = torch.ops.origami_nv.matmul_config(torch.empty(4, 5, 6, dtype=torch.bfloat16),
                                               torch.empty(4, 6, 3, dtype=torch.bfloat16), 64, 64, 32, 1, 3, 4, 0)
        assert c.shape == (4, 5, 3) and c.dtype == torch.bfloat16
        with pytest.raises(RuntimeError, match="inner dimensions"):
            torch.ops.origami_nv.matmul(a, torch.empty(15, 7, dtype=torch.float16))


def test_opcheck_cpu():
    args = [(torch.randn(9, 16).half(), torch.randn(16, 5).half()),
            (torch.randn(2, 9, 16).bfloat16(), torch.randn(2, 16, 5).bfloat16()),
            (torch.randn(2, 3, 16).half(), torch.randn(5, 16).half().t())]
    for a, b in args:
        torch.library.opcheck(torch.ops.origami_nv.matmul.default, (a, b))
        torch.library.opcheck(torch.ops.origami_nv.matmul_config.default, (a, b, 64, 64, 32, 2, 3, 4, 0))
        torch.library.opcheck(torch.ops.origami_nv.matmul_config.default, (a, b, 64, 64, 32, 2, 3, 4, 0, 3))


def test_autograd_cpu():
    for sa, sb in [((6, 8), (8, 4)), ((2, 6, 8), (2, 8, 4)), ((2, 3, 8), (8, 4))]:
        a = torch.randn(*sa, dtype=torch.float16, requires_grad=True)
        b = torch.randn(*sb, dtype=torch.float16, requires_grad=True)
        out = origami_nv.matmul(a, b)
        g = torch.randn_like(out)
        out.backward(g)
        a32, b32 = a.detach().float().requires_grad_(), b.detach().float().requires_grad_()
        torch.matmul(a32, b32).backward(g.float())
        torch.testing.assert_close(a.grad.float(), a32.grad, rtol=2e-2, atol=2e-2)
        torch.testing.assert_close(b.grad.float(), b32.grad, rtol=2e-2, atol=2e-2)


def test_torch_compile_module():
    class Linear(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.w = torch.nn.Parameter(torch.randn(12, 16).half())

        def forward(self, x):
            return origami_nv.matmul(x, self.w.t()) * 2

    m = Linear()
    x = torch.randn(3, 5, 16).half()
    eager = m(x)
    compiled = torch.compile(m, backend="aot_eager", fullgraph=True)
    torch.testing.assert_close(compiled(x), eager)


def test_import_without_loading_torch_op():
    # `import origami_nv` must not need the op; ops.matmul loads it lazily.
    import importlib
    import sys
    src = importlib.util.find_spec("origami_nv.ops").origin
    text = open(src).read()
    assert "import torch\n" not in text.split("def _torch")[0], "ops.py must not import torch at module import"
    assert "origami_nv" in sys.modules


def test_negative_bit_view_is_resolved():
    # torch._neg_view keeps the original storage and a negation bit: the result must be -(a @ b).
    g = torch.Generator().manual_seed(4)
    a = torch.randn(6, 16, generator=g).half()
    b = torch.randn(16, 5, generator=g).half()
    torch.testing.assert_close(origami_nv.matmul(torch._neg_view(a), b), _ref(-a, b))
