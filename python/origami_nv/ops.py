"""The torch side of origami_nv: `matmul` through the `origami_nv` TORCH_LIBRARY op, and `kernels`.

`import origami_nv` never needs torch; calling `matmul` does (a clear ImportError otherwise). The
compiled op library `_C.so` is loaded on first use with torch.ops.load_library, which also registers
the op (autograd in C++: cpp/ops/ops_autograd.cpp); this module adds the fake (meta) implementation for
torch.compile.

Operators (torch.ops.origami_nv.*):
    matmul(Tensor a, Tensor b) -> Tensor                  the model-selected kernel
    matmul_bias(Tensor a, Tensor b, Tensor bias) -> Tensor    + bias[n] on every row, fused in the epilogue
    matmul_config(a, b, block_m, block_n, block_k, group_size_m, stages, warps, family, split_k=1,
                  Tensor? bias=None, bool swap_ab=False) -> Tensor
    select_config(int M, int N, int K, str dtype, int batch=1, str layout="nn", bool bias=False,
                  bool a_aligned=True, bool b_aligned=True) -> int[]
                                                          what matmul would launch here (9 ints: the 7 tile
                                                          fields of matmul_config, split_k, swap_ab); an operand
                                                          not aligned is one matmul copies first
    device_kernel_resources() -> str                      JSON: cudaFuncGetAttributes of every kernel
    set_programmatic_dependent_launch(bool) -> bool       switch PDL on sm_90+ (returns the old setting)
"""
from __future__ import annotations

import os
import threading

from . import _kernels

_LIB_PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_C.so")
_lock = threading.Lock()
_loaded = False
# The op overloads, resolved once (load_op): calling an OpOverload skips the packet's per-call overload
# resolution, a few microseconds of host time per matmul (benchmarks/op_overhead.py).
_MATMUL = _MATMUL_BIAS = _MATMUL_CONFIG = None

_FAMILIES = {"mma_sync": 0, "wgmma": 1, "simt": 2}


def _torch():
    try:
        import torch
    except ImportError as e:  # pragma: no cover - exercised only without torch
        raise ImportError(
            "origami_nv.matmul needs PyTorch, which is not installed. Install torch (a CUDA build to run "
            "the CUDA kernels), then rebuild origami_nv with --no-build-isolation so the op is compiled "
            "against it. The model side (select, rank, explain) works without torch.") from e
    return torch


def load_op():
    """Load _C.so (once, with its C++ autograd) and register the fake implementations. Returns torch.ops.origami_nv."""
    global _loaded
    torch = _torch()
    if _loaded:
        return torch.ops.origami_nv
    with _lock:
        if not _loaded:
            if not os.path.exists(_LIB_PATH):
                raise ImportError(
                    f"the origami_nv torch op was not built ({_LIB_PATH} is missing): torch was not importable "
                    "when origami_nv was built. Install torch and reinstall origami_nv with "
                    "`pip install --no-build-isolation .`")
            torch.ops.load_library(_LIB_PATH)
            _register_python_side(torch)
            global _MATMUL, _MATMUL_BIAS, _MATMUL_CONFIG
            ns = torch.ops.origami_nv
            _MATMUL, _MATMUL_BIAS, _MATMUL_CONFIG = ns.matmul.default, ns.matmul_bias.default, ns.matmul_config.default
            _loaded = True
    return torch.ops.origami_nv


# ---- fake (meta) implementation ------------------------------------------------------------------------
def _out_shape(a, b):
    """Output shape, with the same checks and messages as the C++ op (cpp/ops/matmul_shapes.hpp)."""
    torch = _torch()
    if a.dtype != b.dtype:
        raise TypeError(f"origami_nv.matmul: dtype mismatch: a is {a.dtype} and b is {b.dtype}")
    if a.dtype not in (torch.float16, torch.bfloat16, torch.float32):
        raise TypeError(f"origami_nv.matmul: unsupported dtype {a.dtype}; supported: torch.float16, torch.bfloat16, "
                        "torch.float32")
    if a.device != b.device:
        raise RuntimeError(f"origami_nv.matmul: a and b must be on the same device, got {a.device} and {b.device}")
    if a.dim() == 2 and b.dim() == 2:
        if a.shape[1] != b.shape[0]:
            raise RuntimeError(f"origami_nv.matmul: inner dimensions do not match: {tuple(a.shape)} @ {tuple(b.shape)}")
        return (a.shape[0], b.shape[1])
    if a.dim() == 3 and b.dim() == 3:
        if a.shape[0] != b.shape[0] or a.shape[2] != b.shape[1]:
            raise RuntimeError(f"origami_nv.matmul: shapes do not match: {tuple(a.shape)} @ {tuple(b.shape)}")
        return (a.shape[0], a.shape[1], b.shape[2])
    if a.dim() >= 3 and b.dim() == 2:
        if a.shape[-1] != b.shape[0]:
            raise RuntimeError(f"origami_nv.matmul: inner dimensions do not match: {tuple(a.shape)} @ {tuple(b.shape)}")
        return tuple(a.shape[:-1]) + (b.shape[1],)
    raise RuntimeError(f"origami_nv.matmul: unsupported ranks a.dim()={a.dim()}, b.dim()={b.dim()}")


def _check_bias(bias, a, n):
    """The C++ op's bias checks (cpp/ops/matmul_shapes.hpp: check_bias), for the fake implementation."""
    if bias.dim() != 1 or bias.shape[0] != n:
        raise RuntimeError(f"origami_nv.matmul_bias: bias must be 1-D with N = {n} elements (added to every row), "
                           f"got shape {list(bias.shape)}")
    if bias.dtype != a.dtype:
        raise TypeError(f"origami_nv.matmul_bias: bias dtype {bias.dtype} differs from the operands' {a.dtype}")
    if bias.device != a.device:
        raise RuntimeError(f"origami_nv.matmul_bias: bias must be on {a.device}, got {bias.device}")


def _register_python_side(torch):
    @torch.library.register_fake("origami_nv::matmul")
    def _matmul_fake(a, b):
        return a.new_empty(_out_shape(a, b))

    @torch.library.register_fake("origami_nv::matmul_bias")
    def _matmul_bias_fake(a, b, bias):
        shape = _out_shape(a, b)
        _check_bias(bias, a, shape[-1])
        return a.new_empty(shape)

    @torch.library.register_fake("origami_nv::matmul_config")
    def _matmul_config_fake(a, b, block_m, block_n, block_k, group_size_m, stages, warps, family, split_k=1,
                            bias=None, swap_ab=False):
        shape = _out_shape(a, b)
        if bias is not None:
            _check_bias(bias, a, shape[-1])
        return a.new_empty(shape)

    # Autograd is registered in C++ (cpp/ops/ops_autograd.cpp): a Python autograd kernel would run on every
    # call of the op, requiring grad or not.


# ---- public API ----------------------------------------------------------------------------------------
def _config_fields(config):
    """(block_m, block_n, block_k, group_size_m, stages, warps, family, split_k, swap_ab) from an origami_nv.Config,
    the pybind TileConfig, a dict, or a 7- to 9-sequence in select_config's order (split_k, default 1, then swap_ab,
    default False)."""
    if isinstance(config, (list, tuple)):
        if len(config) not in (7, 8, 9):
            raise ValueError("config as a sequence must be [block_m, block_n, block_k, group_size_m, stages, "
                             f"warps, family(, split_k(, swap_ab))], got {config!r}")
        vals = tuple(int(v) for v in config[:8]) + ((1,) if len(config) == 7 else ())
        return vals + (bool(config[8]) if len(config) == 9 else False,)
    get = (lambda k, d=None: config.get(k, d)) if isinstance(config, dict) else \
        (lambda k, d=None: getattr(config, k, d))
    try:
        bm, bn, bk = int(get("block_m")), int(get("block_n")), int(get("block_k"))
    except TypeError:
        raise TypeError(f"config must be an origami_nv.Config / TileConfig (with block_m, block_n, block_k, "
                        f"group_size_m, stages, warps, family) or None, got {type(config).__name__}") from None
    gsm = int(get("group_size_m", 1) or 1)
    split_k = int(get("split_k", 1) or 1)
    stages = int(get("stages"))
    warps = int(get("warps"))
    fam = get("family", "mma_sync")
    if isinstance(fam, str):
        if fam not in _FAMILIES:
            raise ValueError(f"unknown kernel family {fam!r}; known: {', '.join(_FAMILIES)}")
        fam = _FAMILIES[fam]
    elif hasattr(fam, "value"):
        fam = int(fam.value)
    elif hasattr(fam, "name") and fam.name in _FAMILIES:
        fam = _FAMILIES[fam.name]
    else:
        fam = int(fam)
    return bm, bn, bk, gsm, stages, warps, fam, split_k, bool(get("swap_ab", False))


def matmul(a, b, *, bias=None, config=None):
    """a @ b (+ bias) through origami_nv's kernels, output in the input dtype: fp16/bf16 on the tensor cores
    (fp32 accumulation, one rounding); float32 as torch's float32 matmul precision says, read at each call as
    cuBLAS reads it (tf32_allowed()):
      "highest" (torch's default): exact fp32 on the CUDA cores (the simt family: FFMA);
      "high"/"medium", torch.backends.cuda.matmul.allow_tf32 = True or fp32_precision = "tf32": TF32 tensor
      cores (the wgmma tf32 kernels on sm_90, the mma.sync tf32 kernels from sm_80 on: operands rounded to 10
      mantissa bits, fp32 accumulation, fp32 out), as cuBLAS does; on a GPU without them (before sm_80, or a build
      that filtered them out) exact fp32 on the CUDA cores, which TF32 permits.
      Those kernels read x @ w.t() (A and B K-major) and, on the tiles that have a swapped kernel (C^T = B^T A^T
      with B^T from registers), a @ b (B row-major) in place; other layouts are copied into one of those first.
    CPU tensors are computed exactly in either case (as torch's CPU matmul is).

    Shapes: 2-D @ 2-D; batched 3-D @ 3-D (equal batch sizes); N-D @ 2-D with the leading dims of `a`
    folded into M (nn.Linear, including ``x @ w.t()``). Row-major and column-major (transposed-view)
    operands are read in place where the chosen kernel compiles that layout: A and B both column-major
    (``x.t() @ w.t()``) has no mma.sync kernel, and the wgmma 64xBN and 128xBN tiles with BN not a multiple of 64
    read only a K-major B (``x @ w.t()``); otherwise the model charges, and the op makes, the cheapest
    operand copies to a compiled layout. Operands with other strides, or whose data pointer /
    leading dimension is not 16-byte aligned (e.g. a row-major K = 7), are first copied into an aligned
    buffer, except where the config has a realigning kernel (fp16/bf16, the small mma.sync tiles: the `_ra`
    entries of kernels(), cpp/kernels/families/mma_sync.py), which reads such an operand in place (any
    element-aligned pointer, leading dimension and batch stride); the model weighs that against the copy, and the
    op runs it only where the aligned kernel would copy. ``ORIGAMI_NV_REALIGN=0`` in the environment (read once,
    when the op first plans) leaves the realigning kernels out of the op and the model: every misaligned operand
    is copied, as before them (for measuring the two paths against each other). An operand whose rows are 16-byte
    but not 128-byte aligned (e.g. a leading dimension of 3000 fp16 elements) is copied into padded rows where the
    model predicts the launch at least 1.05x faster for it (the wgmma kernels' TMA reads such rows at about half
    speed; ``explain`` shows the decision; ``ORIGAMI_NV_PITCH_COPY=0`` in the environment, read once, turns it off).
    K = 0 gives zeros, other zero-size dimensions an empty result.

    config: None (the Origami model picks the tile, and whether to split K, for this shape, layout and
        device), or an explicit configuration: an origami_nv.Config, the pybind TileConfig, a dict with
        block_m, block_n, block_k, group_size_m, stages, warps, family and optionally split_k; its tile
        must be a compiled kernel (see kernels()), else a RuntimeError lists the closest compiled ones.
        split_k = S > 1 runs S K-slices per output tile into an fp32 workspace (from the caching
        allocator, on the current stream) and sums them in slice order in a second kernel: the same bits
        every run. S is capped where slices would be empty (cpp/model/types.hpp: effective_split_k).
        swap_ab=True (wgmma only) runs the config's swapped-operand kernel: C^T = B^T A^T with the problem's M
        on wgmma's N side (the `_ab` entries of kernels(); block_m / block_n are C's tile as always); with split_k
        its slices reduce through the workspace.

    bias: None, or a 1-D tensor of N elements (the operands' dtype and device) added to every row of the
        result inside the kernel's epilogue, in fp32 before the one rounding to the output dtype (nn.Linear's
        x @ w.t() + b, addmm with a 1-D bias); with split-K the reduction kernel adds it.

    On CPU tensors the result is computed in fp32 with torch and rounded to the input dtype (the same
    contract, untuned). Differentiable (backward runs the same op on transposed views; d(bias) is dC summed
    over the rows) and usable under torch.compile.
    """
    if _MATMUL is None:
        load_op()
    if config is None:
        return _MATMUL(a, b) if bias is None else _MATMUL_BIAS(a, b, bias)
    *fields, swap_ab = _config_fields(config)
    return _MATMUL_CONFIG(a, b, *fields, bias, swap_ab)


class programmatic_dependent_launch:
    """Turn programmatic dependent launch (PDL) of the CUDA kernels on or off, process-wide.

    On by default on sm_90+ (``ORIGAMI_NV_PDL=0`` in the environment turns the default off). With PDL
    a kernel launches while the previous kernel of the stream is still running and does its set-up,
    then waits (``griddepcontrol.wait``) before touching global memory, so it is safe after any kernel;
    it saves part of the ~2 us fixed cost of a small GEMM in back-to-back launches (cpp/kernels/pdl.hpp,
    benchmarks/METHOD.md). While a CUDA graph is captured a GEMM asks for the overlap only after a kernel of this
    library (after torch's kernels the programmatic edge costs more than it saves: cpp/kernels/registry.hpp,
    follows_library_kernels). Use as a call, ``programmatic_dependent_launch(False)``, or as a context
    manager that restores the previous setting: ``with programmatic_dependent_launch(False): ...``.
    """

    def __init__(self, enabled: bool):
        self._previous = bool(load_op().set_programmatic_dependent_launch(bool(enabled)))

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        load_op().set_programmatic_dependent_launch(self._previous)
        return False


def tf32_allowed() -> bool:
    """Whether the op runs float32 CUDA GEMMs on the TF32 tensor cores now: torch's float32 matmul precision
    as the op itself reads it (cpp/ops/ops.cpp tf32_allowed, the rule cuBLAS follows)."""
    return bool(load_op().tf32_allowed())


def kernels(dtype=None, device: bool = False) -> list[dict]:
    """The compiled kernels with their resources, one record per (config, dtype, operand layout, arch)
    as the build's ptxas report gave them (data/kernel_resources.json): name, family, config, dtype,
    a_k_contiguous, b_k_contiguous, realign (a realigning `_ra` kernel: reads operands whose rows are only
    element-aligned in place; alignment_elems 1), threads, registers_per_thread, spill/local bytes, smem_bytes,
    arch.

    dtype: keep only this dtype ("float16"/"bfloat16"). device=True adds the CUDA driver's view on the
    current GPU (cudaFuncGetAttributes + occupancy) under the key "device" (needs torch with CUDA).
    """
    recs = _kernels.kernel_records()
    if dtype is not None:
        dt = _kernels._canonical_dtype(dtype)
        recs = [r for r in recs if r["dtype"] == dt]
    if device:
        import json
        dev = {r["name"]: r for r in json.loads(load_op().device_kernel_resources())["kernels"]}
        for r in recs:
            r["device"] = dev.get(r["name"])
    return recs
