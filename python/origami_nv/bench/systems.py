"""The systems compared per size: origami_nv (model + compiled kernels) and the seed's own system
(the seed-mode model + the seed's Triton kernel). A system lists its runnable configs with
predicted cycles, makes its pick through its selection path, and builds callables (a, b) -> c.

Only duck typing is expected by the runner; tests use fake systems with the same methods.
"""
from __future__ import annotations

import functools
import statistics
import time
from dataclasses import dataclass, field

from . import configs as C


@dataclass
class Candidate:
    config: dict                       # normalised (configs.normalize)
    predicted_cycles: float | None     # None: the model does not rank it (filtered out)
    resources: dict | None = None      # registers, spills, smem of the compiled kernel
    admissible: bool = True            # False: the model's filters exclude it (still timed: BF is over all runnable)


@dataclass
class Pick:
    config: dict
    predicted_cycles: float | None
    via: str = ""                      # how the pick is launched (e.g. "origami_nv.matmul(a, b)")
    extra: dict = field(default_factory=dict)


def _get(obj, *names, default=None):
    """First present attribute or key among names."""
    for n in names:
        if isinstance(obj, dict) and n in obj:
            return obj[n]
        if hasattr(obj, n):
            return getattr(obj, n)
    return default


def _timed(fn, repeats: int = 200) -> tuple[float, float]:
    """(first call seconds, median of the next `repeats` calls)."""
    t0 = time.perf_counter()
    fn()
    cold = time.perf_counter() - t0
    samples = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - t0)
    return cold, statistics.median(samples)


def _clock_hz_from_hardware(hw) -> tuple[float | None, str]:
    """The sustained SM clock the model's cycles elapse at (origami_nv.hardware(): a Hardware with
    .values[key].value; the same key rank()'s predicted_us uses)."""
    values = getattr(hw, "values", None)
    if values is None and isinstance(hw, dict):
        values = hw.get("values", hw)
    for key in ("sustained_clock_mhz", "sm_clock_mhz"):
        try:
            v = values[key]
        except Exception:  # noqa: BLE001
            continue
        v = _get(v, "value", default=v)
        if isinstance(v, (int, float)) and v > 0:
            return float(v) * 1e6, key
    return None, "unknown"


def _cpp_rank_s(mode: str, gpu: str | None, size, repeats: int = 20) -> float | None:
    """Median seconds of one uncached phase-1 ranking, timed inside C++ (no Python overhead)."""
    try:
        from origami_nv import _api
        sel = _api.get_selector(gpu, mode).selector
        us = sel.time_rank_us(size.M, size.N, size.K, size.dtype, repeats)
        return float(statistics.median(us)) * 1e-6
    except Exception:  # noqa: BLE001 - an optional extra column
        return None


def _normalize_ranked(entries) -> list[tuple[dict, float | None]]:
    out = []
    for e in entries or []:
        cfg = C.normalize(_get(e, "config", default=e))
        pc = _get(e, "predicted_cycles", "total_cycles", "cycles", "latency_cycles")
        if pc is None:
            bd = _get(e, "breakdown")
            pc = _get(bd, "total_cycles", "total_latency_cycles", "total") if bd is not None else None
        out.append((cfg, float(pc) if pc is not None else None))
    return out


# Run in a child process before the benchmark touches the op: a crash inside the compiled op
# (a segfault in load_library, the selector or a kernel) then costs the origami column only, with
# the step it died in, instead of killing the whole run (seed and cuBLAS columns included).
_PROBE = r"""
import sys
def step(name):
    print("step:" + name, file=sys.stderr, flush=True)
step("import")
import torch, origami_nv as on
from origami_nv.ops import load_op
step("load_op")
ops = load_op()
step("kernels")
n = len(on.kernels())
if n == 0:
    print("error: origami_nv.kernels() is empty: the build compiled no CUDA kernels", file=sys.stderr)
    sys.exit(3)
step("select")
on.select(256, 256, 256, dtype="float16")
step("select_config")
cfg = list(ops.select_config(256, 256, 256, "float16"))
step("matmul")
a = torch.randn(256, 256, device="cuda", dtype=torch.float16)
b = torch.randn(256, 256, device="cuda", dtype=torch.float16)
c = on.matmul(a, b)
torch.cuda.synchronize()
err = float((c.float() - a.float() @ b.float()).norm() / (a.float() @ b.float()).norm())
step("done")
print(f"ok: {n} kernels, pick {cfg}, rel. error {err:.2e}", flush=True)
"""


_PROBE_SEED = r"""
import sys
def step(name):
    print("step:" + name, file=sys.stderr, flush=True)
step("import")
import torch, triton, origami_nv as on
from origami_nv.bench import seed_triton
step("select_seed_mode")
cfg = on.select(256, 256, 256, dtype="float16", mode="seed")
step("rank_seed_mode")
n = len(on.rank(256, 256, 256, dtype="float16", mode="seed", top=None))
step("hardware")
on.hardware()
step("space")
tiles = len(seed_triton.seed_tile_space())
step("triton_matmul")
a = torch.randn(256, 256, device="cuda", dtype=torch.float16)
b = torch.randn(256, 256, device="cuda", dtype=torch.float16)
c = seed_triton.matmul(a, b, seed_triton.as_seed_config({"block_m": 64, "block_n": 64, "block_k": 32, "group_size_m": 4}))
torch.cuda.synchronize()
err = float((c.float() - a.float() @ b.float()).norm() / (a.float() @ b.float()).norm())
step("done")
print(f"ok: seed pick {cfg}, {n} ranked, {tiles} tiles, Triton rel. error {err:.2e}", flush=True)
"""


def probe_seed(timeout_s: float = 180.0) -> tuple[bool, str]:
    """(usable, detail): the seed-mode model on this device and one seed Triton GEMM, in a child process."""
    return _run_probe(_PROBE_SEED, timeout_s)


def probe_origami(timeout_s: float = 180.0) -> tuple[bool, str]:
    """(usable, detail): run the op end to end once in a child process."""
    return _run_probe(_PROBE, timeout_s)


def _run_probe(code: str, timeout_s: float) -> tuple[bool, str]:
    import signal
    import subprocess
    import sys
    try:
        p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=timeout_s)
    except subprocess.TimeoutExpired:
        return False, f"probe timed out after {timeout_s:.0f} s"
    steps = [ln[5:] for ln in p.stderr.splitlines() if ln.startswith("step:")]
    last = steps[-1] if steps else "start"
    if p.returncode == 0 and last == "done":
        return True, p.stdout.strip()
    if p.returncode < 0:
        try:
            sig = signal.Signals(-p.returncode).name
        except ValueError:
            sig = f"signal {-p.returncode}"
        why = f"the probe process died with {sig} in step '{last}'"
    else:
        why = f"the probe failed (exit {p.returncode}) in step '{last}'"
    tail = " | ".join(ln for ln in p.stderr.strip().splitlines()[-6:] if not ln.startswith("step:"))
    return False, why + (f": {tail[-600:]}" if tail else "")


class OrigamiSystem:
    """origami_nv: the model's pick through the op (origami_nv.matmul(a, b)) and every compiled
    kernel of the dtype through origami_nv.matmul(a, b, config=...)."""

    name = "origami"
    # The kernel sources' version its records carry (configs.KERNEL_CHANGES: which launches a later change alters).
    kernel_version = C.KERNEL_VERSION
    # Its candidates are a list of compiled kernels: a kernel added to the build makes a finished size incomplete
    # (runner.Runner._untimed_kernels).
    compiled_kernel_list = True

    def __init__(self, mode: str | None = None, gpu: str | None = None, b_layout: str = "row"):
        self.mode = mode      # None: the model mode the op uses (the API default, "nv")
        self.gpu = gpu
        self.b_layout = b_layout
        import torch

        import origami_nv as on
        from origami_nv.ops import load_op
        self.on = on
        self.torch = torch
        self.ops = load_op()   # raises ImportError with the reason when the op was not built
        if not on.kernels():
            raise RuntimeError("origami_nv.kernels() is empty: the build compiled no kernels")
        major, minor = torch.cuda.get_device_capability()
        self.arch = f"sm_{major}{minor}"
        self._kw = {}
        if mode is not None:
            self._kw["mode"] = mode
        if gpu is not None:
            self._kw["gpu"] = gpu
        # Build the selector (hardware resolution, kernel registry) outside any timed selection:
        # a shape's "cold" time is its first query, not the first query of the process.
        on.select(17, 19, 23, dtype="float16", **self._kw)
        self.ops.select_config(17, 19, 23, "float16")
        hw = on.hardware(**({"gpu": gpu} if gpu else {}))
        self._clock_hz, self._clock_key = _clock_hz_from_hardware(hw)
        self._hw_name = getattr(hw, "name", None)

    def describe(self) -> dict:
        return {"label": "origami_nv (model pick through torch.ops.origami_nv)", "mode": self.mode or "default",
                "gpu": self.gpu or self._hw_name, "clock_hz": self._clock_hz, "clock_key": self._clock_key, "arch": self.arch,
                "b_layout": self.b_layout, "kernels": len(self.on.kernels()),
                "version": getattr(self.on, "__version__", ""),
                "programmatic_dependent_launch": self._pdl_setting()}

    def _pdl_setting(self) -> bool:
        # The op has a setter that returns the previous value; put it straight back.
        prev = bool(self.ops.set_programmatic_dependent_launch(True))
        self.ops.set_programmatic_dependent_launch(prev)
        return prev

    def _problem(self, size) -> dict:
        """batch, layout and operand alignment of a size as the op will see its tensors
        (timing.CudaHarness.layout_of; configs.operand_alignment)."""
        lay = C.launched_layout(getattr(size, "layout", None), self.b_layout)
        batch = getattr(size, "batch", 1)
        return {"batch": batch, "layout": lay, **C.operand_alignment(size.M, size.N, size.K, lay, size.dtype, batch)}

    def _rank(self, size):
        return _normalize_ranked(self.on.rank(size.M, size.N, size.K, dtype=size.dtype, top=None, **self._kw,
                                              **self._problem(size)))

    def selection_times(self, size) -> dict:
        M, N, K, dt = size.M, size.N, size.K, size.dtype
        pb = self._problem(size)
        api_cold, api_cached = _timed(lambda: self.on.select(M, N, K, dtype=dt, **self._kw, **pb))
        op_cold, op_cached = _timed(lambda: self.ops.select_config(M, N, K, dt, pb["batch"], pb["layout"], False,
                                                                   pb["a_aligned"], pb["b_aligned"]))
        return {"api_cold_s": api_cold, "api_cached_s": api_cached, "op_cold_s": op_cold,
                "op_cached_s": op_cached, "rank_cpp_s": _cpp_rank_s(self.mode or "nv", self.gpu, size)}

    def pick(self, size) -> Pick:
        if self.mode is None and self.gpu is None:
            # exactly what origami_nv.matmul(a, b) launches on this device
            pb = self._problem(size)
            cfg = C.normalize(list(self.ops.select_config(size.M, size.N, size.K, size.dtype, pb["batch"],
                                                          pb["layout"], False, pb["a_aligned"], pb["b_aligned"])))
            via = "origami_nv.matmul(a, b)"
        else:
            cfg = C.normalize(self.on.select(size.M, size.N, size.K, dtype=size.dtype, **self._kw,
                                             **self._problem(size)))
            via = "origami_nv.select + origami_nv.matmul(a, b, config=pick)"
        pc = None
        for rc, p in self._rank(size):
            if C.kernel_id(rc) == C.kernel_id(cfg):
                pc = p
                break
        return Pick(cfg, pc, via)

    def pick_fn(self, size, pick: Pick):
        if pick.via == "origami_nv.matmul(a, b)":
            return self.on.matmul
        return functools.partial(self.on.matmul, config=dict(pick.config))

    def _kernel_entries(self, dtype: str) -> list[tuple[dict, dict]]:
        """One entry per compiled kernel config of dtype: the record of the operand layout and
        architecture this run launches (A row-major; B per b_layout), for its resources."""
        want_b_k = self.b_layout == "col"
        recs = list(self.on.kernels(dtype=dtype))
        arch_ok = [r for r in recs if r.get("arch") in (self.arch, self.arch + "a")] or recs
        by_kid: dict[str, tuple[int, dict, dict]] = {}
        for r in arch_ok:
            cfg = C.normalize(r.get("config", r))
            score = int(r.get("a_k_contiguous", True) is True) + int(r.get("b_k_contiguous", want_b_k) == want_b_k)
            res = {k: r.get(k) for k in ("registers_per_thread", "spill_store_bytes", "spill_load_bytes",
                                         "local_bytes", "smem_bytes", "threads", "arch", "name") if k in r}
            kid = C.kernel_id(cfg)
            if kid not in by_kid or score > by_kid[kid][0]:
                by_kid[kid] = (score, cfg, res)
        return [(cfg, res) for _, cfg, res in by_kid.values()]

    def candidates(self, size) -> list[Candidate]:
        """Every compiled kernel unsplit, and every split-K launch the model ranks (selector.cpp: the splits of
        the kernels a split can help)."""
        ranked = self._rank(size)
        by_kernel: dict[str, tuple[dict, float | None]] = {}
        for cfg, pc in ranked:
            by_kernel.setdefault(C.kernel_id(cfg), (cfg, pc))
        # GROUP_SIZE_M for kernels the model does not rank: the phase-1 value of the ranked ones
        gsm_default = ranked[0][0]["group_size_m"] if ranked else 8
        out = []
        resources = {}
        for cfg, res in self._kernel_entries(size.dtype):
            kid = C.kernel_id(cfg)
            resources[kid] = res
            if kid in by_kernel:
                rc, pc = by_kernel[kid]
                out.append(Candidate(rc, pc, res, True))
            else:
                out.append(Candidate(dict(cfg, group_size_m=gsm_default), None, res, False))
        for kid, (rc, pc) in by_kernel.items():
            if rc.get("split_k", 1) > 1:
                out.append(Candidate(rc, pc, resources.get(C.compiled_kernel_id(rc)), True))
        return out

    # The brute force over split-K: the model ranks splits for the kernels it expects a split to help, which
    # is the model's view; so the runner also times the fastest unsplit kernels of the brute force at every
    # split the selector would consider for them (config_space.def's small splits and the wave-filling ones),
    # whatever the model thinks. BF = the fastest of all of it.
    SPLIT_BF_KERNELS = 8

    def extra_candidates(self, size, measured: dict) -> list[Candidate]:
        """measured: config id -> (seconds, config) of this size's timed launches."""
        from origami_nv import _core
        unsplit = sorted(((t, cfg) for t, cfg in measured.values() if cfg.get("split_k", 1) == 1),
                         key=lambda tc: tc[0])
        done = {C.kernel_id(cfg) for _, cfg in measured.values()}
        ranked = {C.kernel_id(cfg): pc for cfg, pc in self._rank(size)}
        slots_of = {}
        for rc, _ in self._rank_breakdowns(size):
            slots_of.setdefault(C.compiled_kernel_id(rc[0]), rc[1])
        small = list(_core.space().get("split_k", [2, 3, 4]))
        pb = self._problem(size)
        out = []
        for _, cfg in unsplit[: self.SPLIT_BF_KERNELS]:
            slots = slots_of.get(C.compiled_kernel_id(cfg))
            if not slots:
                continue
            k_tiles = -(-size.K // cfg["block_k"])
            tiles = -(-size.M // cfg["block_m"]) * -(-size.N // cfg["block_n"]) * pb["batch"]
            tail = tiles % slots if tiles >= slots else tiles
            if tail == 0:
                continue
            seen = set()
            for s in small + [w * slots // tail for w in (1, 2, 3)]:
                if s < 2 or s > k_tiles // 2:
                    continue
                sp = _core.split_plan(size.M, size.N, size.K, pb["batch"], cfg["block_m"], cfg["block_n"],
                                      cfg["block_k"], s, slots, cfg["family"])
                if sp["slices"] < 2 or (sp["slices"], sp["dp_tiles"]) in seen:
                    continue
                seen.add((sp["slices"], sp["dp_tiles"]))
                c = dict(cfg, split_k=sp["slices"])
                if C.kernel_id(c) in done:
                    continue
                out.append(Candidate(c, ranked.get(C.kernel_id(c)), None, True))
        return out

    def _rank_breakdowns(self, size):
        """[((config dict, resident slots), cycles)] of the model's ranking (the slots of each kernel)."""
        out = []
        for r in self.on.rank(size.M, size.N, size.K, dtype=size.dtype, top=None, **self._kw, **self._problem(size)):
            out.append(((C.normalize(r.config), int(r.breakdown.get("resident_slots", 0))), r.predicted_cycles))
        return out

    def config_fn(self, size, cfg: dict):
        return functools.partial(self.on.matmul, config=dict(cfg))


class SeedSystem:
    """The seed's own system: the seed-mode model's pick (origami_nv.select(..., mode="seed")) run
    by the seed's Triton kernel (num_stages=2, num_warps=8, GROUP_SIZE_M raster), and the brute
    force over the seed's 5x5x6 tile space with that kernel."""

    name = "seed"

    def __init__(self, gpu: str | None = None, b_layout: str = "row", precompile_workers: int = 8, log=None):
        self.b_layout = b_layout
        self.precompile_workers = precompile_workers
        self.log = log or (lambda msg: None)
        try:
            import triton  # noqa: F401 - benchmark-only dependency
        except Exception as e:  # noqa: BLE001
            from .runner import SystemUnavailable
            raise SystemUnavailable(f"triton is not importable ({type(e).__name__}: {e})") from e
        import origami_nv as on
        from . import seed_triton
        self.on = on
        self.kernel = seed_triton
        self.gpu = gpu
        self._kw = {"mode": "seed"}
        if gpu is not None:
            self._kw["gpu"] = gpu
        on.select(17, 19, 23, dtype="float16", **self._kw)
        hw = on.hardware(**({"gpu": gpu} if gpu else {}))
        self._clock_hz, self._clock_key = _clock_hz_from_hardware(hw)
        self._hw_name = getattr(hw, "name", None)
        self._space = seed_triton.seed_tile_space()

    def describe(self) -> dict:
        import triton
        return {"label": "seed (Triton, seed-mode model)", "mode": "seed", "gpu": self.gpu or self._hw_name,
                "clock_hz": self._clock_hz, "clock_key": self._clock_key, "triton": triton.__version__,
                "num_stages": self.kernel.NUM_STAGES, "num_warps": self.kernel.NUM_WARPS,
                "tiles": len(self._space)}

    def _rank(self, size):
        return _normalize_ranked(self.on.rank(size.M, size.N, size.K, dtype=size.dtype, top=None, **self._kw))

    def selection_times(self, size) -> dict:
        M, N, K, dt = size.M, size.N, size.K, size.dtype
        cold, cached = _timed(lambda: self.on.select(M, N, K, dtype=dt, **self._kw))
        return {"api_cold_s": cold, "api_cached_s": cached, "rank_cpp_s": _cpp_rank_s("seed", self.gpu, size)}

    def pick(self, size) -> Pick:
        cfg = self.kernel.as_seed_config(C.normalize(self.on.select(size.M, size.N, size.K, dtype=size.dtype,
                                                                     **self._kw)))
        pc = None
        for rc, p in self._rank(size):
            if (rc["block_m"], rc["block_n"], rc["block_k"]) == (cfg["block_m"], cfg["block_n"], cfg["block_k"]):
                pc = p
                if rc["group_size_m"] == cfg["group_size_m"]:
                    break
        return Pick(cfg, pc, "origami_nv.select(mode='seed') + seed Triton kernel")

    def pick_fn(self, size, pick: Pick):
        return self.kernel.make_fn(pick.config)

    def candidates(self, size) -> list[Candidate]:
        ranked = {}
        for cfg, pc in self._rank(size):
            ranked.setdefault((cfg["block_m"], cfg["block_n"], cfg["block_k"]), (cfg, pc))
        gsm_default = next(iter(ranked.values()))[0]["group_size_m"] if ranked else 8
        out = []
        for bm, bn, bk in self._space:
            if (bm, bn, bk) in ranked:
                cfg, pc = ranked[(bm, bn, bk)]
                out.append(Candidate(self.kernel.as_seed_config(cfg), pc, None, True))
            else:
                cfg = {"block_m": bm, "block_n": bn, "block_k": bk, "group_size_m": gsm_default}
                out.append(Candidate(self.kernel.as_seed_config(cfg), None, None, False))
        return out

    def prepare_candidates(self, size, cands: list) -> None:
        """Called by the runner with the configs about to be timed: compile them in parallel."""
        if self.precompile_workers <= 0 or not cands:
            return
        t0 = time.perf_counter()
        try:
            n = self.kernel.precompile([c.config for c in cands], size.M, size.N, size.K, size.dtype,
                                       self.b_layout, self.precompile_workers)
            self.log(f"[bench] seed: {n}/{len(cands)} Triton kernels compiled or cached in "
                     f"{time.perf_counter() - t0:.1f} s ({self.precompile_workers} processes)")
        except Exception as e:  # noqa: BLE001 - best effort: the timing path compiles what is missing
            self.log(f"[bench] seed: parallel precompile failed ({type(e).__name__}: {e}); compiling serially")
            self.precompile_workers = 0

    def config_fn(self, size, cfg: dict):
        return self.kernel.make_fn(cfg)
