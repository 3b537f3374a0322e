"""The drop-in switch: torch's matmul family routed to origami_nv's op inside an unchanged model.

    with origami_nv.enabled():          # or origami_nv.enable() ... origami_nv.disable()
        logits = model(tokens)          # torch.matmul, @, mm, bmm, addmm, F.linear -> origami_nv.matmul

A ``torch.overrides.TorchFunctionMode`` sees every torch call on the thread. For the functions in
``_ROUTES`` it checks that the call is one the op computes with torch's meaning (the op's contract,
cpp/ops/matmul_shapes.hpp: the same product, fp32 accumulation, one rounding to the input dtype) and then
calls the op; anything else goes to torch unchanged, counted with the reason (``dispatch_stats()``). The
switch raises nothing of its own: a call torch would reject is passed to torch, which raises its error.

Routed: fp16/bf16/fp32 (the dtypes the op accepts, asked from the op itself; fp32 follows torch's float32 matmul
precision as the op reads it at each call: exact FFMA on the CUDA cores at "highest", the default; TF32 tensor
cores where torch allows TF32, if the device has origami_nv's TF32 kernels, else torch) strided tensors of plain type
(Tensor, Parameter) on one device of a routed type (default CUDA) where the op can launch;
2-D @ 2-D, 3-D @ 3-D with equal batch, N-D @ 2-D (leading dims folded into M, nn.Linear), N-D @ N-D
with equal leading dims (folded into the batch, as torch.matmul itself does); addmm with beta = alpha = 1
(a 1-D or (1, N) input is the fused bias; an (M, N), (M, 1) or scalar input is added after the op: one
more rounding than cuBLAS's beta*C epilogue); linear without bias or with a 1-D bias (fused). Under
autocast the operands are first cast as autocast would cast them.
Falls back: other dtypes (fp64, int), fp32 with TF32 allowed on a device without TF32 kernels (before sm_90), mixed dtypes, other devices, out=/out_dtype=, 1-D operands,
broadcast batch dims, addmm's alpha/beta != 1 or an input that does not broadcast to (M, N), tensor
subclasses, non-strided layouts, negative-bit views, functorch transforms (vmap/grad), forward-mode AD.

The dispatcher path (``enable(dispatcher=True)``, cpp/ops/aten_route.cpp): instead of the mode, torch's own
aten::mm, aten::bmm and aten::addmm kernels (CPU and CUDA keys) are replaced by ones that run the op where it computes
the call and torch's kernel otherwise, in C++: no Python per call, so eager mode costs what the op costs (the mode
runs Python for every torch call of its thread, matmul or not). It routes the same dtypes; addmm with alpha = beta =
1 and a row-vector bias (nn.Linear's); everything else (a full (M, N) addmm input, other dtypes, empty dimensions) to
torch's kernel, counted (dispatch_stats()["dispatcher"]). It sees the calls the mode does once torch has turned them
into mm/bmm/addmm (@, matmul, F.linear, nn.Linear), and also autograd's backward GEMMs and CUDA-graph captures.
Under torch.compile, the GEMMs Inductor leaves to torch reach it through their out= forms (aten::mm.out, bmm.out,
addmm.out: ``extern_kernels.mm(a, b, out=buf)`` in the generated code), written into Inductor's buffer where it is
contiguous, of the result's shape and dtype and apart from the operands (else torch's out= kernel, counted as a
fallback); GEMMs Inductor writes itself (its templates under max-autotune) stay its own. Process-wide (the
dispatcher has no thread state), not per thread.

torch.compile: Dynamo inlines the mode, so the compiled graph holds origami_nv::matmul (no graph break);
the routing decision is made once per call site while tracing, and counted then (a compiled graph does
not count again: the guards on dtype/device/rank keep the decision valid). CUDA graphs: the op is
capture-safe and the mode only runs Python at capture time.
"""
from __future__ import annotations

import collections
import contextlib
import threading
from typing import Iterable, Optional

import torch
import torch.nn.functional as F
from torch.overrides import TorchFunctionMode

from . import ops as _ops

_OPS = _ops.load_op()
_MATMUL = _OPS.matmul.default
_MATMUL_BIAS = _OPS.matmul_bias.default
_PLAIN_TYPES = (torch.Tensor, torch.nn.Parameter)
_INT32_MAX = 2**31 - 1  # the op's limit on M, N and K (cpp/ops/ops_cuda.cpp: run)


def _probe_op_dtypes() -> frozenset:
    """The dtypes the op accepts, asked from the op's own checks (its fake implementation on meta tensors,
    which mirrors cpp/ops/matmul_shapes.hpp) so that this list cannot drift from the op's."""
    accepted = set()
    for dt in (torch.float16, torch.bfloat16, torch.float32, torch.float64):
        try:
            _MATMUL(torch.empty(1, 1, dtype=dt, device="meta"), torch.empty(1, 1, dtype=dt, device="meta"))
        except (TypeError, RuntimeError):
            continue
        accepted.add(dt)
    return frozenset(accepted)


_OP_DTYPES = _probe_op_dtypes()


# ---- counters ------------------------------------------------------------------------------------------
_stats_lock = threading.Lock()
_routed: collections.Counter = collections.Counter()
_fallback: collections.Counter = collections.Counter()


# Called for real at trace time under torch.compile (assume_constant_result: Dynamo runs it once and bakes
# in the constant), so a compiled call site is counted once per trace and no counter read becomes a guard.
@torch.compiler.assume_constant_result
def _count(kind: str, where: str) -> bool:
    with _stats_lock:
        (_routed if kind == "routed" else _fallback)[where] += 1
    return True


# the order of the op's aten_route_counts(); the out= forms are what torch.compile's generated code calls
_ATEN_OPS = ("aten::mm", "aten::bmm", "aten::addmm", "aten::mm.out", "aten::bmm.out", "aten::addmm.out")


def dispatch_stats() -> dict:
    """What the switch and origami_nv.nn.Linear did since the last reset, process-wide:

    ``{"routed": n, "fallback": n, "routed_calls": {"F.linear": n, ...},
    "fallback_calls": {"torch.matmul: dtype torch.float32": n, ...},
    "dispatcher": {"aten::mm": {"routed": n, "fallback": n}, "aten::bmm": ..., "aten::addmm": ...,
    "aten::mm.out": ..., "aten::bmm.out": ..., "aten::addmm.out": ...}}``

    "dispatcher" counts the calls of the dispatcher path (enable(dispatcher=True)) while it was on for the call's
    device, kept apart from the mode's: the same user call reaches it as aten::mm/bmm/addmm.

    Eager calls count each time; under torch.compile a call site counts once per trace (see the module
    doc). With Dynamo's "eager" backend, torch <= 2.13 runs the compiled graph with the mode still on the
    stack, so the fallback calls left in such a graph count again at run time (pytorch PR 196056)."""
    counts = list(_OPS.aten_route_counts(False))
    aten = {name: {"routed": counts[2 * i], "fallback": counts[2 * i + 1]} for i, name in enumerate(_ATEN_OPS)}
    with _stats_lock:
        return {"routed": sum(_routed.values()), "fallback": sum(_fallback.values()),
                "routed_calls": dict(_routed), "fallback_calls": dict(_fallback), "dispatcher": aten}


def reset_dispatch_stats() -> None:
    """Zero the counters of dispatch_stats()."""
    with _stats_lock:
        _routed.clear()
        _fallback.clear()
        _OPS.aten_route_counts(True)


# ---- where and in which dtype can the op run? ---------------------------------------------------------------
_placement_cache: dict = {}


def _probe_device(device: torch.device, dtype: torch.dtype, tf32: bool) -> str:
    if dtype not in _OP_DTYPES:
        return f"dtype {dtype}"
    if device.type == "cpu":
        return ""
    if device.type != "cuda":
        return f"the op has no {device.type} implementation"
    # Ask the op itself: select_config raises where no compiled kernel runs on the device (compute
    # capability < 8.0, too little shared memory, no TF32 kernel before sm_90) or where this build of origami_nv
    # has no CUDA kernels.
    math = "tfloat32" if tf32 and dtype == torch.float32 else str(dtype).replace("torch.", "")
    try:
        with torch.cuda.device(device):
            _OPS.select_config(64, 64, 64, math, 1, "nn")
    except Exception as e:  # noqa: BLE001 - the op's message is the reason
        return f"the op cannot run on {device}: " + str(e).split("\n")[0][:200]
    return ""


# Called for real at trace time under torch.compile (all arguments are constants there): the device probe
# and the cache stay out of the graph and out of the guards.
@torch.compiler.assume_constant_result
def _placement_reason(device: torch.device, dtype: torch.dtype, devices: frozenset, tf32: bool) -> str:
    """'' when the op runs `dtype` (TF32 math for float32 where `tf32`) on `device` and the switch routes its
    type, else why not (cached)."""
    key = (device, dtype, devices, tf32)
    reason = _placement_cache.get(key)
    if reason is None:
        reason = (f"device {device.type} not routed" if device.type not in devices
                  else _probe_device(device, dtype, tf32))
        _placement_cache[key] = reason
    return reason


# A constant under torch.compile: Dynamo's global-state guard covers cuBLAS's TF32 flag, so a compiled graph is
# re-traced when it changes.
@torch.compiler.assume_constant_result
def _tf32_allowed() -> bool:
    """torch's float32 matmul precision allows TF32 (set_float32_matmul_precision("high"/"medium"),
    torch.backends.cuda.matmul.allow_tf32 = True or fp32_precision = "tf32"), as the op reads it."""
    return _ops.tf32_allowed()


# ---- the checks every routed call makes -----------------------------------------------------------------
def _operands(tensors, devices):
    """(tensors as the op should see them, '') or (None, why the call falls back)."""
    for t in tensors:
        if type(t) not in _PLAIN_TYPES:
            return None, ("non-tensor operand" if not isinstance(t, torch.Tensor)
                          else f"tensor subclass {type(t).__name__}")
    device = tensors[0].device
    for t in tensors:
        if t.layout is not torch.strided:
            return None, f"layout {t.layout}"
        if t.device != device:
            return None, "operands on different devices"
    compiling = torch.compiler.is_compiling()
    if (compiling or torch._C._is_any_autocast_enabled()) and torch.is_autocast_enabled(device.type):
        # What autocast does to these ops (all on its lower-precision list): floating operands other than
        # float64 are cast to the autocast dtype; the op then sees what cuBLAS would have seen.
        target = torch.get_autocast_dtype(device.type)
        tensors = tuple(t.to(target) if t.is_floating_point() and t.dtype != torch.float64 and t.dtype != target
                        else t for t in tensors)
    dtype = tensors[0].dtype
    for t in tensors:
        if t.dtype != dtype:
            return None, "mixed dtypes"
    reason = _placement_reason(device, dtype, devices, dtype == torch.float32 and _tf32_allowed())
    if reason:
        return None, reason
    if not compiling:
        # Eager only: Dynamo cannot trace these queries (is_neg returns a bool it will not put in a graph),
        # and it handles functorch transforms itself.
        if torch._C._functorch.maybe_current_level() is not None:
            return None, "functorch transform"  # vmap/grad: the op has no batching rule
        for t in tensors:
            if t.is_neg():
                return None, "negative-bit view"  # the CUDA op reads the raw storage, not the sign bit
    if torch.autograd.forward_ad._current_level >= 0:
        return None, "forward-mode AD"  # the op has no forward derivative
    return tensors, ""


def _too_large(m, n, k) -> bool:
    return m > _INT32_MAX or n > _INT32_MAX or k > _INT32_MAX


def _matmul_bias(a, b, bias):
    """a @ b + bias[n] on every row: the one place the bias is applied (fused in the kernel's epilogue)."""
    return _MATMUL(a, b) if bias is None else _MATMUL_BIAS(a, b, bias)


# ---- routes: each returns the result, or a str saying why torch computes it -------------------------------
def _two_operands(devices, args, kwargs):
    """(a, b) of a call taking exactly two positional tensors and no keywords (matmul, mm, bmm), or why not."""
    if len(args) != 2:
        return "signature"
    if kwargs:
        return "keyword " + ", ".join(sorted(kwargs))
    ts, why = _operands(args, devices)
    return why if ts is None else ts


def _route_matmul(devices, args, kwargs):
    ts = _two_operands(devices, args, kwargs)
    if isinstance(ts, str):
        return ts
    a, b = ts
    da, db = a.dim(), b.dim()
    if da < 2 or db < 2:
        return "1-D operand"
    k = a.shape[-1]
    if b.shape[-2] != k:
        return "inner dimensions differ"
    if db == 2:  # 2-D @ 2-D, N-D @ 2-D (leading dims of a folded into M)
        m = 1
        for d in a.shape[:-1]:
            m *= d
        if _too_large(m, b.shape[1], k):
            return "dimension >= 2^31"
        return _MATMUL(a, b)
    if da != db or a.shape[:-2] != b.shape[:-2]:
        return "broadcast batch dims"
    if _too_large(a.shape[-2], b.shape[-1], k):
        return "dimension >= 2^31"
    if da == 3:
        return _MATMUL(a, b)
    lead = a.shape[:-2]  # N-D @ N-D, equal leading dims: one batch, as torch.matmul folds it
    c = _MATMUL(a.reshape(-1, a.shape[-2], k), b.reshape(-1, k, b.shape[-1]))
    return c.view(*lead, c.shape[-2], c.shape[-1])


def _route_rmatmul(devices, args, kwargs):
    return _route_matmul(devices, args[::-1], kwargs)  # other.__rmatmul__(x) is x @ other


def _route_mm(devices, args, kwargs):
    ts = _two_operands(devices, args, kwargs)
    if isinstance(ts, str):
        return ts
    a, b = ts
    if a.dim() != 2 or b.dim() != 2 or a.shape[1] != b.shape[0]:
        return "shapes"
    if _too_large(a.shape[0], b.shape[1], a.shape[1]):
        return "dimension >= 2^31"
    return _MATMUL(a, b)


def _route_bmm(devices, args, kwargs):
    ts = _two_operands(devices, args, kwargs)
    if isinstance(ts, str):
        return ts
    a, b = ts
    if a.dim() != 3 or b.dim() != 3 or a.shape[0] != b.shape[0] or a.shape[2] != b.shape[1]:
        return "shapes"
    if _too_large(a.shape[1], b.shape[2], a.shape[2]):
        return "dimension >= 2^31"
    return _MATMUL(a, b)


def _is_one(v) -> bool:
    return type(v) in (int, float) and v == 1


def _route_addmm(devices, args, kwargs):
    # addmm(input, mat1, mat2, *, beta=1, alpha=1, out=None) = beta * input + alpha * (mat1 @ mat2)
    if len(args) != 3:
        return "signature"
    for key in kwargs:
        if key not in ("beta", "alpha"):
            return "keyword " + key
    if not (_is_one(kwargs.get("beta", 1)) and _is_one(kwargs.get("alpha", 1))):
        return "alpha/beta != 1"
    ts, why = _operands(args, devices)
    if ts is None:
        return why
    c, a, b = ts
    if a.dim() != 2 or b.dim() != 2 or a.shape[1] != b.shape[0]:
        return "shapes"
    m, n = a.shape[0], b.shape[1]
    if _too_large(m, n, a.shape[1]):
        return "dimension >= 2^31"
    if c.dim() == 1 and c.shape[0] == n:
        return _matmul_bias(a, b, c)
    if c.dim() == 2 and c.shape[0] == 1 and c.shape[1] == n:
        return _matmul_bias(a, b, c.reshape(n))
    if c.dim() > 2 or (c.dim() >= 1 and c.shape[-1] not in (1, n)) or (c.dim() == 2 and c.shape[0] not in (1, m)):
        return "input does not broadcast to (M, N)"
    # A full (M, N) input (or a column / scalar): the kernels fuse only a row vector, so this is
    # origami's C rounded to the dtype, plus the input (cuBLAS rounds once; the difference is one rounding).
    return _MATMUL(a, b) + c


def _route_linear(devices, args, kwargs):
    # linear(input, weight, bias=None) = input @ weight.T + bias
    if not 2 <= len(args) + len(kwargs) <= 3 or len(args) < 1:
        return "signature"
    x = args[0]
    w = args[1] if len(args) > 1 else kwargs.get("weight")
    bias = args[2] if len(args) > 2 else kwargs.get("bias")
    for key in kwargs:
        if key not in ("weight", "bias"):
            return "keyword " + key
    return linear_route(devices, x, w, bias)


def linear_route(devices, x, w, bias):
    """F.linear(x, w, bias) through the op, or why not (str). Shared by the switch and origami_nv.nn.Linear."""
    ts, why = _operands((x, w) if bias is None else (x, w, bias), devices)
    if ts is None:
        return why
    x, w = ts[0], ts[1]
    if x.dim() < 2:
        return "1-D operand"
    if w.dim() != 2 or x.shape[-1] != w.shape[1]:
        return "shapes"
    n = w.shape[0]
    if bias is not None:
        bias = ts[2]
        if bias.dim() != 1 or bias.shape[0] != n:
            return "bias shape"
    m = 1
    for d in x.shape[:-1]:
        m *= d
    if _too_large(m, n, w.shape[1]):
        return "dimension >= 2^31"
    return _matmul_bias(x, w.t(), bias)


# func -> (name in the counters, route). Tensor methods are listed where they reach __torch_function__ as
# themselves (x @ w arrives as Tensor.matmul on torch 2.13; __matmul__ is listed for versions that pass it).
_ROUTES = {
    torch.matmul: ("torch.matmul", _route_matmul),
    torch.Tensor.matmul: ("Tensor.matmul", _route_matmul),
    torch.Tensor.__matmul__: ("Tensor.__matmul__", _route_matmul),
    torch.Tensor.__rmatmul__: ("Tensor.__rmatmul__", _route_rmatmul),
    torch.mm: ("torch.mm", _route_mm),
    torch.Tensor.mm: ("Tensor.mm", _route_mm),
    torch.bmm: ("torch.bmm", _route_bmm),
    torch.Tensor.bmm: ("Tensor.bmm", _route_bmm),
    torch.addmm: ("torch.addmm", _route_addmm),
    torch.Tensor.addmm: ("Tensor.addmm", _route_addmm),
    F.linear: ("F.linear", _route_linear),
}


def route_call(name, route, devices, args, kwargs):
    """Run route; count the outcome; return (result, True) or (None, False) when torch must compute it."""
    out = route(devices, args, kwargs)
    if isinstance(out, str):
        _count("fallback", name + ": " + out)
        return None, False
    _count("routed", name)
    return out, True


# ---- the mode and its switches ----------------------------------------------------------------------------
_DEFAULT_DEVICES = ("cuda",)


def _device_set(devices) -> frozenset:
    if isinstance(devices, str):
        devices = (devices,)
    out = frozenset(str(d) for d in devices)
    for d in out:
        if d != torch.device(d).type:
            raise ValueError(f"origami_nv switch: devices must be device types such as 'cuda' or 'cpu' "
                             f"(no index), got {d!r}")
    return out


class _Switch(TorchFunctionMode):
    """The one origami_nv mode of a thread. `devices` is the current setting (empty: route nothing);
    `saved` holds the settings that enclosing `with enabled()/disabled()` blocks restore on exit."""

    def __init__(self, devices: frozenset, pushed_by_enable: bool):
        super().__init__()
        self.devices = devices
        self.saved: list = []
        self.pushed_by_enable = pushed_by_enable

    def __torch_function__(self, func, types, args=(), kwargs=None):
        if kwargs is None:
            kwargs = {}
        entry = _ROUTES.get(func)
        if entry is not None and self.devices:
            out, done = route_call(entry[0], entry[1], self.devices, args, kwargs)
            if done:
                return out
        return func(*args, **kwargs)


_tls = threading.local()


def _current() -> Optional[_Switch]:
    return getattr(_tls, "switch", None)


def _push(devices: frozenset, pushed_by_enable: bool) -> _Switch:
    sw = _Switch(devices, pushed_by_enable)
    sw.__enter__()
    _tls.switch = sw
    return sw


def _pop(sw: _Switch) -> None:
    n = torch._C._len_torch_function_stack()
    if n == 0 or torch._C._get_function_stack_at(n - 1) is not sw:
        raise RuntimeError("origami_nv switch: another torch function mode entered after the switch is still "
                           "active; leave it before leaving or disabling the switch")
    sw.__exit__(None, None, None)
    _tls.switch = None


_DEVICE_BITS = {"cpu": 1, "cuda": 2}  # cpp/ops/aten_route.cpp, set_aten_route


def _dispatcher_mask(devices: frozenset) -> int:
    mask = 0
    for d in devices:
        if d not in _DEVICE_BITS:
            raise ValueError(f"origami_nv switch: the dispatcher path routes 'cpu' and 'cuda' tensors, got {d!r}")
        mask |= _DEVICE_BITS[d]
    return mask


def _dispatcher_devices() -> frozenset:
    mask = int(_OPS.aten_route_devices())
    return frozenset(d for d, bit in _DEVICE_BITS.items() if mask & bit)


def enable(devices: Iterable[str] = _DEFAULT_DEVICES, *, dispatcher: bool = False) -> None:
    """Route torch's matmul family to origami_nv on the calling thread from now on (until disable()).

    dispatcher=True: through torch's dispatcher instead of a torch function mode (see the module doc): no Python
    per call, process-wide, torch's aten::mm/bmm/addmm kernels on `devices` ("cpu", "cuda") replaced until
    disable(); the thread's mode, if any, is left as it is.

    devices: the device types whose tensors are routed ("cuda" by default; "cpu" routes to the op's CPU
    implementation, which computes in fp32 and rounds once: for tests, not speed). Calling it again
    changes the setting. Inside a ``with enabled()/disabled()`` block it sets the block's state, which the
    block's exit then replaces by the state from before the block (as torch.set_grad_enabled inside
    torch.no_grad). Thread-local, as every torch function mode is: other threads, including those started
    later from this one, are not affected; call enable() in each thread that should route."""
    devs = _device_set(devices)
    if dispatcher:
        _OPS.set_aten_route(_dispatcher_mask(devs))
        return
    sw = _current()
    if sw is None:
        _push(devs, pushed_by_enable=True)
    else:
        sw.devices = devs


def disable() -> None:
    """Stop routing on the calling thread (see enable()), and the dispatcher path (process-wide). When the switch
    was pushed by enable() and no `with` block is open on it, its mode is removed from the torch function mode
    stack, so torch calls no longer pass through Python at all."""
    _OPS.set_aten_route(0)
    sw = _current()
    if sw is None:
        return
    sw.devices = frozenset()
    if sw.pushed_by_enable and not sw.saved:
        _pop(sw)


def is_enabled(device_type: str = "cuda") -> bool:
    """Whether tensors of this device type are routed on the calling thread now (by the mode or the dispatcher
    path)."""
    sw = _current()
    return (sw is not None and device_type in sw.devices) or device_type in _dispatcher_devices()


@contextlib.contextmanager
def _scoped(devices: frozenset):
    sw = _current()
    if sw is None:
        sw = _push(devices, pushed_by_enable=False)
        try:
            yield
        finally:
            _pop(sw)
        return
    sw.saved.append(sw.devices)
    sw.devices = devices
    try:
        yield
    finally:
        sw.devices = sw.saved.pop()


@contextlib.contextmanager
def _dispatcher_scoped(mask: int):
    previous = _OPS.set_aten_route(mask)
    try:
        yield
    finally:
        _OPS.set_aten_route(previous)


def enabled(devices: Iterable[str] = _DEFAULT_DEVICES, *, dispatcher: bool = False):
    """Context manager: route torch.matmul, @, torch.mm, torch.bmm, torch.addmm and F.linear (and the
    Tensor-method spellings) on tensors of `devices` ("cuda" by default) to origami_nv inside the block,
    on the calling thread; everything the op does not compute goes to torch unchanged (counted with the
    reason: dispatch_stats()).

    Nesting: the innermost block's setting applies, and each block restores the previous state on exit
    (``with disabled():`` turns routing off inside). A thread has one origami mode on the torch function
    mode stack however deeply blocks nest, so a call is decided once. Thread-local (see enable()).
    torch.compile: enter the block outside the compiled function; Dynamo traces the mode into the graph,
    and leaving/changing the switch makes the compiled code recompile (its guards see the mode).
    dispatcher=True: the dispatcher path on `devices` inside the block (see enable()), its previous setting back on
    exit; process-wide while the block runs."""
    if dispatcher:
        return _dispatcher_scoped(_dispatcher_mask(_device_set(devices)))
    return _scoped(_device_set(devices))


def disabled():
    """Context manager: no routing inside the block, by the mode or the dispatcher path (the previous state returns
    on exit; the dispatcher path's process-wide). Where the switch is off already it does nothing: no mode is pushed,
    so torch calls do not pass through Python."""
    return _disabled()


@contextlib.contextmanager
def _disabled():
    with contextlib.ExitStack() as stack:  # decided on entering the block, as the blocks above are
        if _dispatcher_devices():
            stack.enter_context(_dispatcher_scoped(0))
        if _current() is not None:
            stack.enter_context(_scoped(frozenset()))
        yield
