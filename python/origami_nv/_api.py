"""The model side of origami_nv: select / rank / explain / hardware / gpus.

Everything here runs without a GPU and without torch. The work is done in C++
(`origami_nv._core`): hardware resolution (derived < table < override), the Origami model
(Algorithms 3-9) and the two-phase selector, which caches per shape. This module adds argument
checking, the choice of candidates per mode, and a Python-level cache so that a repeated
`select` is one dict lookup.

Modes
-----
``"nv"`` (default)
    Candidates are the compiled kernels with their real resources
    (``origami_nv._kernels.compiled_kernel_resources``): spilling kernels and kernels that cannot
    keep one block resident are never chosen, occupancy uses the real blocks per SM, compute uses
    the family's throughput, loads overlap compute by pipeline stages. If no compiled kernel list
    is available, the abstract config space is used with a shared-memory filter that counts the
    pipeline stages and estimated registers; ``explain`` says so.
``"seed"``
    The seed's model exactly (seed 000; Appendix A is a golden test): the abstract 5x5x6 space,
    the seed's one-stage shared-memory filter, stages=2, warps=8.
"""
from __future__ import annotations

import json
import operator
import os
import threading
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Tuple

from . import _core

__all__ = [
    "Config", "select", "rank", "explain", "hardware", "gpus", "gpu_table", "RankedConfig",
    "Hardware", "HardwareValue", "MODES", "DEFAULT_MODE", "clear_caches", "get_selector",
]

#: A tile configuration: block_m, block_n, block_k, group_size_m, stages, warps, family.
#: Hashable, comparable, picklable; ``Config(128, 128, 64, group_size_m=8, stages=4)``.
Config = _core.TileConfig

MODES: Tuple[str, ...] = ("nv", "seed")
DEFAULT_MODE = "nv"
_ENV_OVERRIDE = "ORIGAMI_NV_HW_PARAMS"
_KERNEL_ARCH = "sm_90"
_MAX_DIM = 2**31 - 1

# (M, N, K, dtype, gpu, mode, override path) -> Config. Only exact ints/strs are stored, so a
# hit needs no validation.
_picks: Dict[tuple, Any] = {}
# (gpu, mode, override path) -> _SelectorEntry
_selectors: Dict[tuple, "_SelectorEntry"] = {}
_lock = threading.Lock()
_environ = os.environ


# The pick cache's key holds ORIGAMI_NV_HW_PARAMS: _env_get(_env_override_key). os.environ.get of an unset variable
# raises and catches a KeyError inside (~0.5 us, most of a cached select()); CPython's os.environ keeps its values in
# a dict keyed by the encoded names, read directly where it has one (~0.05 us; the value encoded, None when unset).
_env_get, _env_override_key = _environ.get, _ENV_OVERRIDE
if isinstance(getattr(_environ, "_data", None), dict) and hasattr(_environ, "encodekey"):
    _env_get, _env_override_key = _environ._data.get, _environ.encodekey(_ENV_OVERRIDE)  # type: ignore[attr-defined]


@dataclass
class _SelectorEntry:
    selector: Any                 # _core.Selector
    hardware: Any                 # _core.HardwareParams
    mode: str
    candidates_note: str          # where the candidates come from (shown by explain)
    live_device: Optional[str]    # name of the visible GPU used for the derived tier, if any


def clear_caches() -> None:
    """Forget every cached selector and pick (e.g. after editing an ORIGAMI_NV_HW_PARAMS file)."""
    with _lock:
        _picks.clear()
        _selectors.clear()
    clear = getattr(_live_device, "cache_clear", None)  # absent when a test replaced the probe
    if clear is not None:
        clear()


# ---- argument checking --------------------------------------------------------------------------
def _check_dim(name: str, v: Any) -> int:
    if isinstance(v, bool):
        raise ValueError(f"{name} must be a positive integer, got {v!r}")
    try:
        i = operator.index(v)
    except TypeError:
        raise ValueError(f"{name} must be a positive integer, got {v!r} ({type(v).__name__})") from None
    if i <= 0:
        raise ValueError(f"{name} must be a positive integer, got {i}")
    if i > _MAX_DIM:
        raise ValueError(f"{name} must be <= {_MAX_DIM}, got {i}")
    return i


def _check_dtype(dtype: Any) -> str:
    s = dtype if isinstance(dtype, str) else str(dtype)  # torch.float16 -> "torch.float16"
    try:
        return _core.parse_dtype(s)
    except ValueError:
        raise ValueError(f"unknown dtype {dtype!r} (supported: {_core.supported_dtypes()})") from None


def _check_mode(mode: Any) -> str:
    if mode not in MODES:
        raise ValueError(f"unknown mode {mode!r} (supported: {', '.join(MODES)})")
    return mode


LAYOUTS: Tuple[str, ...] = ("nn", "nt", "tn", "tt")


def _check_ld(name: str, v: Any) -> int:
    """A leading dimension in elements (None or 0: a contiguous operand, else _check_dim's positive integer); the
    C++ side checks it against the shape and layout."""
    return 0 if v is None or (type(v) is int and v == 0) else _check_dim(name, v)


def _check_problem_extras(batch: Any, layout: Any, a_aligned: Any, b_aligned: Any) -> Tuple[int, str, bool, bool]:
    """batch (positive int), layout (BLAS letters, cpp/model/types.hpp: layout_name), alignment flags."""
    if isinstance(batch, bool):
        raise ValueError(f"batch must be a positive integer, got {batch!r}")
    try:
        b = operator.index(batch)
    except TypeError:
        raise ValueError(f"batch must be a positive integer, got {batch!r} ({type(batch).__name__})") from None
    if b <= 0 or b > _MAX_DIM:
        raise ValueError(f"batch must be a positive integer <= {_MAX_DIM}, got {b}")
    lay = layout.lower() if isinstance(layout, str) else layout
    if lay not in LAYOUTS:
        raise ValueError(f"layout must be one of {', '.join(LAYOUTS)} ('n' = row-major, 't' = a transposed view: "
                         f"'nt' is x @ w.t()), got {layout!r}")
    for name, v in (("a_aligned", a_aligned), ("b_aligned", b_aligned)):
        if not isinstance(v, bool):
            raise ValueError(f"{name} must be True or False, got {v!r}")
    return b, lay, a_aligned, b_aligned


def _check_bias(bias: Any) -> bool:
    if not isinstance(bias, bool):
        raise ValueError(f"bias must be True or False (whether a fused bias is added), got {bias!r}")
    return bias


def _check_gpu(gpu: Any) -> Optional[str]:
    if gpu is None:
        return None
    if not isinstance(gpu, str) or not gpu:
        raise ValueError(f"gpu must be a table row name or None, got {gpu!r} (known: {', '.join(gpus())})")
    return gpu


# ---- the live device ------------------------------------------------------------------------------
def _blocks_per_sm_limit(major: int, minor: int) -> int:
    # CUDA C programming guide, "Technical Specifications per Compute Capability".
    cc = major * 10 + minor
    return {80: 32, 86: 16, 87: 16, 89: 24, 90: 32}.get(cc, 32 if cc >= 90 else 16)


def _gpu_may_be_present() -> bool:
    # Importing torch costs a second or two; only do it where a GPU can exist.
    return os.path.exists("/dev/nvidia0") or os.path.exists("/dev/nvidiactl") or "torch" in __import__("sys").modules


class _Cached:
    """A tiny cache for the zero-argument device probe (functools.cache lacks cache_clear typing)."""

    def __init__(self, fn):
        self.fn, self.done, self.value = fn, False, None

    def __call__(self):
        if not self.done:
            self.value, self.done = self.fn(), True
        return self.value

    def cache_clear(self):
        self.done, self.value = False, None


@_Cached
def _live_device() -> Optional[Any]:
    """DeviceProperties of the current CUDA device via torch, or None (no GPU / no CUDA torch).
    Set ORIGAMI_NV_NO_DEVICE=1 to ignore a visible GPU."""
    if _environ.get("ORIGAMI_NV_NO_DEVICE") or not _gpu_may_be_present():
        return None
    try:
        import torch
    except ImportError:
        return None
    try:
        if torch.version.cuda is None or not torch.cuda.is_available():
            return None
        idx = torch.cuda.current_device()
        p = torch.cuda.get_device_properties(idx)
    except Exception:  # a broken driver must not break the model
        return None
    d = _core.DeviceProperties()
    d.name = p.name
    d.cc_major, d.cc_minor = p.major, p.minor
    d.sm_count = p.multi_processor_count
    d.l2_bytes = int(getattr(p, "L2_cache_size", 0))
    d.smem_per_block_optin_bytes = int(getattr(p, "shared_memory_per_block_optin", 0))
    d.smem_per_sm_bytes = int(getattr(p, "shared_memory_per_multiprocessor", 0))
    d.regs_per_sm = int(getattr(p, "regs_per_multiprocessor", 0))
    d.max_threads_per_sm = int(getattr(p, "max_threads_per_multi_processor", 0))
    d.max_blocks_per_sm = _blocks_per_sm_limit(p.major, p.minor)
    d.sm_clock_khz = int(getattr(p, "clock_rate", 0))
    d.mem_clock_khz = int(getattr(p, "memory_clock_rate", 0))
    d.mem_bus_width_bits = int(getattr(p, "memory_bus_width", 0))
    return d


# ---- candidates -----------------------------------------------------------------------------------
def _kernel_resources() -> Tuple[List[Any], str]:
    """The compiled kernels' resources for both dtypes, or ([], why not)."""
    try:
        from . import _kernels  # written by the kernel side; absent in model-only builds
    except ImportError as e:
        return [], f"origami_nv._kernels is not available ({e})"
    fn = getattr(_kernels, "compiled_kernel_resources", None)
    if fn is None:
        return [], "origami_nv._kernels has no compiled_kernel_resources()"

    def every_dtype(source) -> Tuple[List[Any], str]:
        out: List[Any] = []
        counts = []
        for dtype in ("float16", "bfloat16", "float32", "tfloat32"):
            rows = source(dtype, arch=_KERNEL_ARCH) or []
            counts.append(f"{len(rows)} {dtype}")
            out.extend(_resources_from_dict(r) for r in rows)
        return out, ", ".join(counts)

    out, counts = every_dtype(fn)
    if out:
        return out, f"compiled kernels ({counts}; {_KERNEL_ARCH}) with their real resources"
    # A build without CUDA: the kernels of the reference sm_90 build (what a CUDA build's op selects among).
    ref = getattr(_kernels, "reference_kernel_resources", None)
    out, counts = every_dtype(ref) if ref is not None else ([], "")
    if out:
        return out, (f"this build compiled no kernel (no CUDA compiler): the kernels of the reference {_KERNEL_ARCH} "
                     f"build instead ({counts}; reports/kernel_resources_sm90.json, installed as "
                     "data/kernel_resources_reference_sm90.json) with their ptxas resources, what a CUDA build's op "
                     "selects among")
    return [], f"origami_nv._kernels.compiled_kernel_resources(arch={_KERNEL_ARCH!r}) returned no kernels"


def _resources_from_dict(r: Dict[str, Any]) -> Any:
    c = r["config"]
    cfg = Config(int(c["block_m"]), int(c["block_n"]), int(c["block_k"]), group_size_m=int(c.get("group_size_m", 1) or 1),
                 stages=int(c["stages"]), warps=int(c["warps"]), family=str(c["family"]),
                 swap_ab=bool(c.get("swap_ab", False)))
    return _core.KernelResources(
        cfg, dtype=str(r["dtype"]), threads=int(r["threads"]), registers_per_thread=int(r["registers_per_thread"]),
        spill_store_bytes=int(r.get("spill_store_bytes", 0)), spill_load_bytes=int(r.get("spill_load_bytes", 0)),
        local_bytes=int(r.get("local_bytes", 0)), smem_bytes=int(r["smem_bytes"]), arch=str(r.get("arch", "")),
        source=str(r.get("source", "")), layouts=int(r.get("layouts", 0xF)),
        realign_layouts=int(r.get("realign_layouts", 0)), multicast_layouts=int(r.get("multicast_layouts", 0)),
        ping_pong_layouts=int(r.get("ping_pong_layouts", 0)))


def _resolve(gpu: Optional[str], override: Optional[str]) -> Tuple[Any, Optional[str]]:
    live = None if gpu is not None else _live_device()
    # "" = no override file; the environment variable is passed explicitly so the cache key matches.
    hw = _core.resolve_hardware(live, gpu or "", override or "")
    return hw, (live.name if live is not None else None)


def get_selector(gpu: Optional[str] = None, mode: str = DEFAULT_MODE) -> _SelectorEntry:
    """The (cached) selector for a GPU table row (None: the visible GPU or the default row) and mode."""
    gpu = _check_gpu(gpu)
    mode = _check_mode(mode)
    override = _environ.get(_ENV_OVERRIDE) or None
    key = (gpu, mode, override)
    entry = _selectors.get(key)
    if entry is not None:
        return entry
    with _lock:
        entry = _selectors.get(key)
        if entry is not None:
            return entry
        hw, live_name = _resolve(gpu, override)
        if mode == "seed":
            kernels: List[Any] = []
            note = ("abstract config space (config_space.def), the seed's shared-memory filter "
                    "(BM*BK + BK*BN) * bytes <= smem per block (one stage), stages=2, warps=8")
        else:
            kernels, why = _kernel_resources()
            if kernels:
                note = why
            else:
                note = (f"no compiled kernel list: {why}; using the abstract config space with the shared-memory "
                        f"filter counting {_core.ModelOptions().abstract_stages} stages and estimated registers "
                        "(accumulators + overhead)")
        opts = _core.ModelOptions(mode)
        entry = _SelectorEntry(_core.Selector(hw, kernels, opts), hw, mode, note, live_name)
        _selectors[key] = entry
        return entry


# ---- select / rank ----------------------------------------------------------------------------
def select(M: int, N: int, K: int, dtype: Any = "float16", gpu: Optional[str] = None,
           mode: str = DEFAULT_MODE, *, batch: int = 1, layout: str = "nn", a_aligned: bool = True,
           b_aligned: bool = True, bias: bool = False, a_ld: Optional[int] = None,
           b_ld: Optional[int] = None) -> Config:
    """The tile configuration the model picks for C[b] (M x N) = A[b] (M x K) @ B[b] (K x N), b < batch.

    Args:
        M, N, K: positive problem sizes.
        batch: independent GEMMs of this shape in one launch (torch.bmm / batched matmul).
        layout: the operands' layouts in BLAS letters: 'n' row-major, 't' a transposed view; "nn" is a
            plain a @ b, "nt" nn.Linear's x @ w.t(), "tn" the weight gradient x.t() @ dy, "tt" both
            transposed (the mma_sync family has no "tt" kernel: the op copies the smaller operand).
        a_aligned, b_aligned: False when an operand cannot be read in place by the aligned kernels (base not 16-byte
            aligned, or a leading dimension / batch stride not a multiple of 8 elements): the op copies it first,
            unless the config has a realigning kernel (the mma_sync `_ra` kernels), which reads it in place.
        bias: True when a bias vector (N elements) is added in the epilogue (nn.Linear, addmm with a 1-D input).
        a_ld, b_ld: the operands' leading dimensions in elements (the stride between rows of the layout: A's rows
            of K for 'n', its K rows of M for 't'; B's K rows of N for 'n', its rows of K for 't'); None = a contiguous
            operand of this shape. The model's pick weighs rows that do not start on 128-byte lines (a pitch not
            a multiple of 128 bytes) and the padded copy the op then makes (``explain`` shows the decision).
        dtype: "float16", "bfloat16", "float32" or "tfloat32" (aliases fp16/half/bf16/fp32 and torch dtypes accepted).
            float32 is modelled on the CUDA cores (the simt family, seed 002's roof; nv mode only);
            "tfloat32" (alias "tf32") is float32 storage on the TF32 tensor cores (the wgmma tf32 kernels), what
            the op runs for float32 where torch allows TF32 (nv mode only).
        gpu: a row of the calibrated table (see :func:`gpus`); None = the visible GPU, or the
            default row (H100_SXM) when no GPU is visible.
        mode: "nv" (compiled kernels, default) or "seed" (the seed's model exactly).

    Returns:
        The chosen :class:`Config`, with its phase-2 GROUP_SIZE_M. Cached per
        (M, N, K, dtype, gpu, mode, ORIGAMI_NV_HW_PARAMS).
    """
    key = (M, N, K, dtype, gpu, mode, _env_get(_env_override_key), batch, layout, a_aligned, b_aligned, bias, a_ld, b_ld)
    try:
        hit = _picks.get(key)
    except TypeError:  # an unhashable argument: the checks below say what is wrong with it
        hit = None
    if hit is not None and type(M) is int and type(N) is int and type(K) is int and type(batch) is int:
        return hit
    M, N, K = _check_dim("M", M), _check_dim("N", N), _check_dim("K", K)
    batch, layout, a_aligned, b_aligned = _check_problem_extras(batch, layout, a_aligned, b_aligned)
    bias = _check_bias(bias)
    a_ld, b_ld = _check_ld("a_ld", a_ld), _check_ld("b_ld", b_ld)
    dt = _check_dtype(dtype)
    entry = get_selector(gpu, mode)
    cfg = entry.selector.select_config(M, N, K, dt, batch=batch, layout=layout, a_aligned=a_aligned,
                                       b_aligned=b_aligned, bias=bias, a_ld=a_ld, b_ld=b_ld)
    if type(dtype) is str and (gpu is None or type(gpu) is str):
        _picks[key] = cfg
        _picks[(M, N, K, dt, gpu, mode, key[6], batch, layout, a_aligned, b_aligned, bias, a_ld or None,
                b_ld or None)] = cfg
    return cfg


@dataclass(frozen=True)
class RankedConfig:
    """One ranked candidate: its config (phase-1 GROUP_SIZE_M), predicted cycles and time."""
    rank: int
    config: Config
    predicted_cycles: float
    predicted_us: float
    breakdown: Dict[str, Any] = field(repr=False, compare=False)

    def to_dict(self) -> Dict[str, Any]:
        return {"rank": self.rank, "config": self.config.to_dict(), "predicted_cycles": self.predicted_cycles,
                "predicted_us": self.predicted_us, "breakdown": dict(self.breakdown)}


def _cycles_to_us(hw: Any, cycles: float) -> float:
    return cycles / hw.get("sustained_clock_mhz")


def rank(M: int, N: int, K: int, top: Optional[int] = 10, dtype: Any = "float16", gpu: Optional[str] = None,
         mode: str = DEFAULT_MODE, *, batch: int = 1, layout: str = "nn", a_aligned: bool = True,
         b_aligned: bool = True, bias: bool = False, a_ld: Optional[int] = None,
         b_ld: Optional[int] = None) -> List[RankedConfig]:
    """Candidates ranked by predicted cycles, best first (phase 1; the pick's GROUP_SIZE_M is
    chosen afterwards by :func:`select`). ``top=None`` returns every admissible candidate, with the
    split-K variants the model considers (``config.split_k > 1``). batch, layout, a_aligned, b_aligned, bias, a_ld,
    b_ld: as for :func:`select` (the ranking reads every operand in place; the pick's copies are :func:`select`'s)."""
    M, N, K = _check_dim("M", M), _check_dim("N", N), _check_dim("K", K)
    batch, layout, a_aligned, b_aligned = _check_problem_extras(batch, layout, a_aligned, b_aligned)
    bias = _check_bias(bias)
    a_ld, b_ld = _check_ld("a_ld", a_ld), _check_ld("b_ld", b_ld)
    if top is not None:
        top = operator.index(top)
        if top < 0:
            raise ValueError(f"top must be >= 0 or None, got {top}")
    dt = _check_dtype(dtype)
    entry = get_selector(gpu, mode)
    sel = entry.selector.selection(M, N, K, dt, top, batch=batch, layout=layout, a_aligned=a_aligned,
                                   b_aligned=b_aligned, bias=bias, a_ld=a_ld, b_ld=b_ld)
    out = []
    for i, (cfg, bd) in enumerate(sel["ranking"]):
        out.append(RankedConfig(i + 1, cfg, bd["total_cycles"], _cycles_to_us(entry.hardware, bd["total_cycles"]), bd))
    return out


def explain(M: int, N: int, K: int, dtype: Any = "float16", gpu: Optional[str] = None, mode: str = DEFAULT_MODE,
            top: int = 10, *, batch: int = 1, layout: str = "nn", a_aligned: bool = True, b_aligned: bool = True,
            bias: bool = False, a_ld: Optional[int] = None, b_ld: Optional[int] = None):
    """Why the model picks what it picks: the Appendix A walk-through of every term (value and
    unit) for the chosen config, the tier and source of each hardware value, the top-k table, the
    phase-2 GROUP_SIZE_M costs and the excluded candidates with their reasons. For a batched,
    transposed, misaligned or split-K problem it also shows the split schedule, the copy and reduction
    terms, and the pick of the plain problem (batch 1, "nn", aligned) and why the two differ.

    Returns an :class:`origami_nv._explain.Explanation` (``str()`` for text, ``_repr_html_`` in
    notebooks, ``to_dict()`` for JSON). a_ld, b_ld: as for :func:`select` (rows off 128-byte lines and the copies of
    the pick are shown after phase 2)."""
    from ._explain import Explanation

    M, N, K = _check_dim("M", M), _check_dim("N", N), _check_dim("K", K)
    batch, layout, a_aligned, b_aligned = _check_problem_extras(batch, layout, a_aligned, b_aligned)
    bias = _check_bias(bias)
    a_ld, b_ld = _check_ld("a_ld", a_ld), _check_ld("b_ld", b_ld)
    top = operator.index(top)
    if top < 1:
        raise ValueError(f"top must be >= 1, got {top}")
    dt = _check_dtype(dtype)
    entry = get_selector(gpu, mode)
    extras = dict(batch=batch, layout=layout, a_aligned=a_aligned, b_aligned=b_aligned, bias=bias)
    if a_ld or b_ld:
        extras.update(a_ld=a_ld, b_ld=b_ld)
    sel = entry.selector.selection(M, N, K, dt, None, **extras)
    plain = None
    if (batch, layout, a_aligned, b_aligned, bias) != (1, "nn", True, True, False) and mode == "nv":
        # The plain 2-D row-major problem's pick, and both picks' predictions for the real problem.
        plain_cfg = entry.selector.select_config(M, N, K, dt)
        resources = None
        for kr in (_kernel_resources()[0] if not entry.selector.abstract_space else []):
            if kr.dtype == dt and kr.config.same_kernel(plain_cfg):
                resources = kr
                break
        plain = dict(config=plain_cfg,
                     breakdown_real=_core.predict(M, N, K, dt, plain_cfg, entry.hardware, entry.selector.options,
                                                  resources, **extras))
    count = entry.selector.candidate_count(dt, K)
    return Explanation(problem=(M, N, K), dtype=dt, mode=mode, selection=sel, hardware=hardware_of(entry),
                       candidates_note=entry.candidates_note, top=top, candidate_count=count, extras=extras,
                       plain=plain, short_k_candidates=count - entry.selector.candidate_count(dt))


# ---- hardware -------------------------------------------------------------------------------------
@dataclass(frozen=True)
class HardwareValue:
    """One hardware parameter with its provenance."""
    name: str
    value: float
    unit: str
    tier: str          # "default", "derived", "table", "override"
    source: str
    description: str


@dataclass(frozen=True)
class Hardware:
    """Resolved hardware parameters (``hw["n_sm"].value``); ``str()`` prints a table."""
    name: str
    values: Dict[str, HardwareValue]
    live_device: Optional[str] = None

    def __getitem__(self, key: str) -> HardwareValue:
        try:
            return self.values[key]
        except KeyError:
            raise KeyError(f"unknown hardware parameter {key!r} (known: {', '.join(self.values)})") from None

    def value(self, key: str) -> float:
        return self[key].value

    def to_dict(self) -> Dict[str, Any]:
        return {"name": self.name, "live_device": self.live_device,
                "values": {k: {"value": v.value, "unit": v.unit, "tier": v.tier, "source": v.source}
                           for k, v in self.values.items()}}

    def __str__(self) -> str:
        lines = [f"hardware: {self.name}" + (f" (visible device: {self.live_device})" if self.live_device else "")]
        w = max(len(k) for k in self.values)
        for k, v in self.values.items():
            lines.append(f"  {k:<{w}}  {_fmt_num(v.value):>14} {v.unit:<15} {v.tier:<8} {v.source}")
        return "\n".join(lines)


def _fmt_num(v: float) -> str:
    if v == int(v) and abs(v) < 1e15:
        return f"{int(v):,}"
    return f"{v:.6g}"


def _hardware_from_params(hw: Any, live: Optional[str]) -> Hardware:
    info = {k["name"]: k for k in _core.hardware_key_info()}
    d = hw.to_dict()
    vals = {}
    for k in info:  # the key order of hardware.cpp
        e = d["values"][k]
        vals[k] = HardwareValue(k, e["value"], info[k]["unit"], e["tier"], e["source"], info[k]["description"])
    return Hardware(d["name"], vals, live)


def hardware_of(entry: _SelectorEntry) -> Hardware:
    return _hardware_from_params(entry.hardware, entry.live_device)


def hardware(gpu: Optional[str] = None, device: Any = None) -> Hardware:
    """The hardware parameters the model uses, each with its tier and source.

    Args:
        gpu: a table row (see :func:`gpus`); None = the visible GPU, else the default row.
        device: an explicit ``origami_nv._core.DeviceProperties`` to derive from (tests, or a
            device described by hand); the table row is matched by its name unless ``gpu`` names one.
    """
    gpu = _check_gpu(gpu)
    override = _environ.get(_ENV_OVERRIDE) or ""
    if device is not None:
        return _hardware_from_params(_core.resolve_hardware(device, gpu or "", override), device.name)
    hw, live = _resolve(gpu, override or None)
    return _hardware_from_params(hw, live)


def gpus() -> List[str]:
    """Names of the calibrated table rows (python/origami_nv/data/gpus.json, embedded in the library)."""
    return list(_core.table_gpu_names())


def gpu_table() -> Dict[str, Any]:
    """The embedded gpus.json (the same table the C++ op uses)."""
    return json.loads(_core.embedded_gpu_table_json())
