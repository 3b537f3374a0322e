"""The drop-in switch and origami_nv.nn on CUDA (marked gpu: skipped without a CUDA GPU): the small Llama-shaped
model of test_dispatch_cpu at sizes that reach the real kernels (ragged M, N, K) gives cuBLAS's output within the
dtype's tolerance with every GEMM routed, eagerly, under torch.compile (inductor, and reduce-overhead's CUDA
graphs) and inside a captured CUDA graph replayed on new inputs (bit-identical to eager: the same kernels);
fp32 and the other unsupported cases fall back with their reasons."""
import pytest

torch = pytest.importorskip("torch")
import origami_nv  # noqa: E402
from origami_nv import _dispatch  # noqa: E402,F401  (loads the op)
from test_dispatch_cpu import TinyDecoder, _counts, gradients_match_torch, tokens  # noqa: E402,F401

pytestmark = pytest.mark.gpu

# Model outputs are O(1); origami and cuBLAS both accumulate in fp32 and round once per GEMM, in different
# orders (and split-K): a few ulps per GEMM, amplified through 2 layers, the norms and the softmax.
TOL = {torch.float16: dict(atol=3e-2, rtol=2e-2), torch.bfloat16: dict(atol=1.5e-1, rtol=6e-2)}
SIZES = dict(vocab=1001, dim=256, heads=4, hidden=688, layers=2)  # K = 256 / 688, N = 1001 ragged
DEV = "cuda"


def model_and_tokens(dtype, batch=3, seq=37, seed=0):
    torch.manual_seed(seed)
    model = TinyDecoder(**SIZES).to(device=DEV, dtype=dtype).eval()
    return model, tokens(batch, seq, seed=seed + 1, vocab=SIZES["vocab"], device=DEV)


@pytest.fixture(autouse=True)
def _clean():
    origami_nv.reset_dispatch_stats()
    depth = torch._C._len_torch_function_stack()
    yield
    assert not origami_nv.is_enabled("cuda"), "a test left the switch on"
    assert torch._C._len_torch_function_stack() == depth


def test_the_op_can_run_here():
    dev = torch.device("cuda", torch.cuda.current_device())
    for dt in (torch.float16, torch.bfloat16):
        assert _dispatch._placement_reason(dev, dt, frozenset({"cuda"}), False) == ""
    # float32: exact on the CUDA cores anywhere the op runs; TF32 math where the wgmma tf32 kernels are (sm_90)
    assert _dispatch._placement_reason(dev, torch.float32, frozenset({"cuda"}), False) == ""
    if torch.cuda.get_device_capability() == (9, 0):
        assert _dispatch._placement_reason(dev, torch.float32, frozenset({"cuda"}), True) == ""


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_eager_model_matches_cublas_every_gemm_routed(dtype):
    model, tok = model_and_tokens(dtype)
    with torch.no_grad():
        ref = model(tok)
        with origami_nv.enabled():
            out = model(tok)
    st = origami_nv.dispatch_stats()
    assert st["routed"] == model.gemm_calls() and st["fallback"] == 0, st
    assert out.is_cuda and out.dtype == dtype
    torch.testing.assert_close(out, ref, **TOL[dtype])


def test_fallbacks_on_cuda():
    # float64 has no origami_nv kernel (float32 has, at torch's "highest" precision: the simt family).
    model, tok = model_and_tokens(torch.float64)
    with torch.no_grad():
        ref = model(tok)
        with origami_nv.enabled():
            out = model(tok)
    assert torch.equal(out, ref)
    st = origami_nv.dispatch_stats()
    assert st["routed"] == 0 and st["fallback"] == model.gemm_calls()
    assert all(k.endswith("dtype torch.float64") for k in st["fallback_calls"]), st
    origami_nv.reset_dispatch_stats()
    a = torch.randn(64, 96, device=DEV, dtype=torch.float16)
    b = torch.randn(96, 80, device=DEV, dtype=torch.float16)
    cases = {"negative-bit view": lambda: torch._neg_view(a) @ b,
             "1-D operand": lambda: a @ b[:, 0],
             "keyword out": lambda: torch.mm(a, b, out=torch.empty(64, 80, device=DEV, dtype=torch.float16)),
             "device cpu not routed": lambda: a.cpu() @ b.cpu()}
    for reason, fn in cases.items():
        want = fn()
        with origami_nv.enabled():
            got = fn()
        assert torch.equal(got, want), reason
        assert any(k.endswith(reason) for k in origami_nv.dispatch_stats()["fallback_calls"]), reason
    assert origami_nv.dispatch_stats()["routed"] == 0


def test_autocast_on_cuda():
    model, tok = model_and_tokens(torch.float32)
    with torch.no_grad(), torch.autocast("cuda", dtype=torch.float16):
        ref = model(tok)
        with origami_nv.enabled():
            out = model(tok)
    assert out.dtype == ref.dtype == torch.float16
    torch.testing.assert_close(out, ref, **TOL[torch.float16])
    assert origami_nv.dispatch_stats()["routed"] == model.gemm_calls()


def test_gradients_on_cuda():
    model, tok = model_and_tokens(torch.float16)
    model.train()
    model(tok).float().square().mean().backward()
    ref = {n: p.grad.float().clone() for n, p in model.named_parameters() if p.grad is not None}
    model.zero_grad(set_to_none=True)
    with origami_nv.enabled():
        model(tok).float().square().mean().backward()
    assert origami_nv.dispatch_stats()["routed"] == model.gemm_calls()
    got = {n: p.grad.float() for n, p in model.named_parameters() if n in ref}
    flat_ref, flat_got = torch.cat([r.flatten() for r in ref.values()]), torch.cat([got[n].flatten() for n in ref])
    assert float((flat_got - flat_ref).norm() / flat_ref.norm()) < 2e-2
    # Per tensor against the largest gradient: the k-projection bias has an exactly-zero gradient (softmax does
    # not change when every key of a query moves by the same q . b), so its own norm is rounding noise.
    scale = float(flat_ref.abs().max())
    for n in ref:
        torch.testing.assert_close(got[n], ref[n], atol=1e-2 * scale, rtol=5e-2, msg=n)


@pytest.mark.parametrize("variant", ["switch", "nn"])
def test_compile_inductor_one_graph(variant):
    torch._dynamo.reset()
    model, tok = model_and_tokens(torch.float16)
    with torch.no_grad():
        ref = model(tok)
        if variant == "nn":
            origami_nv.nn.convert(model)
        ctx = origami_nv.enabled if variant == "switch" else origami_nv.disabled
        with ctx():
            explained = torch._dynamo.explain(model)(tok)
            assert explained.graph_count == 1 and explained.graph_break_count == 0, explained.break_reasons
            code = "\n".join(g.code for g in explained.graphs)
            want = model.gemm_calls() if variant == "switch" else 14  # nn: the Linear layers only
            assert code.count("torch.ops.origami_nv.matmul") == want
            torch._dynamo.reset()
            compiled = torch.compile(model, fullgraph=True)
            out1 = compiled(tok)
            out2 = compiled(tokens(3, 37, seed=9, vocab=SIZES["vocab"], device=DEV))
        with ctx():
            eager2 = model(tokens(3, 37, seed=9, vocab=SIZES["vocab"], device=DEV))
    torch.testing.assert_close(out1, ref, **TOL[torch.float16])
    torch.testing.assert_close(out2, eager2, **TOL[torch.float16])


def test_compile_reduce_overhead_cuda_graphs():
    torch._dynamo.reset()
    model, tok = model_and_tokens(torch.bfloat16)
    with torch.no_grad():
        ref = model(tok)
        with origami_nv.enabled():
            compiled = torch.compile(model, mode="reduce-overhead", fullgraph=True)
            outs = [compiled(tok).clone() for _ in range(4)]  # warm-up runs, recording, replays
    for out in outs:
        torch.testing.assert_close(out, ref, **TOL[torch.bfloat16])
    assert torch.equal(outs[-1], outs[-2])  # replays are deterministic


def _routed(variant):
    """The GEMMs sent to the op: by the mode and origami_nv.nn.Linear, or by the dispatcher path."""
    st = origami_nv.dispatch_stats()
    return sum(c["routed"] for c in st["dispatcher"].values()) if variant == "dispatcher" else st["routed"]


@pytest.mark.parametrize("variant", ["switch", "nn", "dispatcher"])
@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_cuda_graph_capture_and_replay(variant, dtype):
    model, tok = model_and_tokens(dtype)
    if variant == "nn":
        origami_nv.nn.convert(model)
    ctx = {"switch": origami_nv.enabled, "nn": origami_nv.disabled,
           "dispatcher": lambda: origami_nv.enabled(dispatcher=True)}[variant]
    static = tok.clone()
    with torch.no_grad():
        stream = torch.cuda.Stream()
        stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(stream), ctx():
            for _ in range(2):
                model(static)
        torch.cuda.current_stream().wait_stream(stream)
        origami_nv.reset_dispatch_stats()
        graph = torch.cuda.CUDAGraph()
        with ctx(), torch.cuda.graph(graph):
            static_out = model(static)
        assert _routed(variant) == (14 if variant == "nn" else model.gemm_calls())
        for seed in (11, 12):
            new = tokens(3, 37, seed=seed, vocab=SIZES["vocab"], device=DEV)
            static.copy_(new)
            graph.replay()
            with ctx():
                eager = model(new)
            assert torch.equal(static_out, eager)  # the same kernels with the same inputs: the same bits
            origami_nv.nn.revert(model)
            ref = model(new)
            if variant == "nn":
                origami_nv.nn.convert(model)
            torch.testing.assert_close(static_out, ref, **TOL[dtype])


# ---- the dispatcher path (enable(dispatcher=True), cpp/ops/aten_route.cpp) ---------------------------------
def _aten():
    return {op: (c["routed"], c["fallback"]) for op, c in origami_nv.dispatch_stats()["dispatcher"].items()}


def _dispatcher():
    return origami_nv.enabled(dispatcher=True)


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_dispatcher_path_eager_matches_cublas_and_the_mode(dtype):
    model, tok = model_and_tokens(dtype)
    layers = len(model.layers)
    with torch.no_grad():
        ref = model(tok)
        with origami_nv.enabled():
            by_mode = model(tok)
        origami_nv.reset_dispatch_stats()
        with _dispatcher():
            out = model(tok)
    assert _aten() == _counts(mm=(4 * layers, 0), bmm=(2 * layers, 0), addmm=(3 * layers + 1, 0))
    assert origami_nv.dispatch_stats()["routed"] == 0  # no mode
    torch.testing.assert_close(out, ref, **TOL[dtype])
    torch.testing.assert_close(out, by_mode, **TOL[dtype])
    # the routed results are the op's, bit for bit
    x = torch.randn(3, 37, SIZES["dim"], device=DEV, dtype=dtype)
    lin = model.layers[0].q_proj
    with torch.no_grad(), _dispatcher():
        got = lin(x)
    assert torch.equal(got, origami_nv.matmul(x, lin.weight.t(), bias=lin.bias))


def test_dispatcher_path_fallbacks_are_torchs_kernel():
    a = torch.randn(33, 65, device=DEV, dtype=torch.float16)
    b = torch.randn(65, 17, device=DEV, dtype=torch.float16)
    c = torch.randn(33, 17, device=DEV, dtype=torch.float16)
    cases = [lambda: torch.mm(a.double(), b.double()), lambda: torch.addmm(c, a, b), lambda: torch.addmm(c[0], a, b, beta=2)]
    want = [f() for f in cases]
    origami_nv.reset_dispatch_stats()
    with _dispatcher():
        got = [f() for f in cases]
    for g, w in zip(got, want):
        assert torch.equal(g, w)
    assert _aten() == _counts(mm=(0, 1), addmm=(0, 2))


def test_dispatcher_path_gradients_on_cuda():
    torch.manual_seed(3)
    model, tok = model_and_tokens(torch.bfloat16)
    gradients_match_torch(model.train(), tok, _dispatcher, atol=5e-2, rtol=1e-1)
    assert sum(r for r, _ in _aten().values()) > model.gemm_calls()  # the backward's GEMMs too (process-wide)


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_dispatcher_path_under_torch_compile(dtype):
    # Inductor's generated code leaves its GEMMs to torch's kernels, mostly as the out= forms (extern_kernels.mm / bmm /
    # addmm with out=), some into buffers it allocates permuted (the attention bmm results: until the nineteenth
    # session those 2 of this model's 19 fell back to torch), and could compute some itself: the dispatcher path
    # routes every aten GEMM the compiled code calls (the profiler counts them), and the compiled model gives
    # cuBLAS's output within tolerance. Counted on the second call: compiling runs GEMMs of its own.
    torch._dynamo.reset()
    model, tok = model_and_tokens(dtype)
    with torch.no_grad():
        ref = model(tok)
        with _dispatcher():
            compiled = torch.compile(model)
            compiled(tok)
            origami_nv.reset_dispatch_stats()
            with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU]) as prof:
                out = compiled(tok)
    torch._dynamo.reset()
    counts = _aten()
    aten_gemms = sum(1 for e in prof.events() if e.name in ("aten::mm", "aten::bmm", "aten::addmm"))
    routed = sum(r for r, _ in counts.values())
    routed_out = sum(counts[f"aten::{op}.out"][0] for op in ("mm", "bmm", "addmm"))
    assert routed == aten_gemms and all(f == 0 for _, f in counts.values()), (counts, aten_gemms)
    assert 0 < routed_out <= routed <= model.gemm_calls(), counts  # the out= forms among them
    torch.testing.assert_close(out, ref, **TOL[dtype])


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_dispatcher_path_out_forms_write_strided_outs(dtype):
    # Inductor allocates some bmm results permuted (the (heads, tokens, head_dim) result stored tokens-major): an out
    # whose rows are contiguous with 16-byte strides is written in place, any other computed beside it and copied in.
    # Routed either way, the op's own bits, and nothing outside the out view written.
    g = torch.Generator(device=DEV).manual_seed(11)

    def r(*shape):
        return torch.randn(*shape, device=DEV, dtype=dtype, generator=g)
    a3, b3, a, b, bias = r(12, 37, 64), r(12, 64, 40), r(100, 64), r(64, 72), r(72)
    sentinel = -7.0
    bases = {"perm": torch.full((37, 12, 40), sentinel, device=DEV, dtype=dtype),    # in place: rows 480 apart
             "ragged": torch.full((37, 12, 41), sentinel, device=DEV, dtype=dtype),  # rows 492 apart: copied in
             "slice": torch.full((100, 80), sentinel, device=DEV, dtype=dtype),      # in place, ldc 80
             "bias": torch.full((100, 80), sentinel, device=DEV, dtype=dtype),
             "cols": torch.full((72, 100), sentinel, device=DEV, dtype=dtype)}       # column-major: copied in
    outs = {"perm": bases["perm"].permute(1, 0, 2), "ragged": bases["ragged"][:, :, :40].permute(1, 0, 2),
            "slice": bases["slice"][:, :72], "bias": bases["bias"][:, :72], "cols": bases["cols"].t()}
    origami_nv.reset_dispatch_stats()
    with torch.no_grad(), _dispatcher():
        got = {"perm": torch.bmm(a3, b3, out=outs["perm"]), "ragged": torch.bmm(a3, b3, out=outs["ragged"]),
               "slice": torch.mm(a, b, out=outs["slice"]), "bias": torch.addmm(bias, a, b, out=outs["bias"]),
               "cols": torch.mm(a, b, out=outs["cols"])}
    torch.cuda.synchronize()
    assert _aten() == _counts(bmm_out=(2, 0), mm_out=(2, 0), addmm_out=(1, 0))
    want = {"perm": origami_nv.matmul(a3, b3), "ragged": origami_nv.matmul(a3, b3), "slice": origami_nv.matmul(a, b),
            "bias": origami_nv.matmul(a, b, bias=bias), "cols": origami_nv.matmul(a, b)}
    for k in outs:
        assert got[k].data_ptr() == outs[k].data_ptr(), k
        assert torch.equal(outs[k], want[k]), k
    assert (bases["ragged"][:, :, 40] == sentinel).all()
    assert (bases["slice"][:, 72:] == sentinel).all() and (bases["bias"][:, 72:] == sentinel).all()
