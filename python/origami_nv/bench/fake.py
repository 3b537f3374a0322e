"""Synthetic harness and systems with the interfaces of timing.CudaHarness and systems.*System.

They drive the real run loop, store, merge and report code without a GPU (the CI tests), with
every time, error and failure chosen by the caller, so the maths can be checked exactly.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from . import configs as C
from .systems import Candidate, Pick
from .timing import TOLERANCE, LaunchError, Timing


@dataclass
class FakeFn:
    item: str                      # config id, or "cublas"

    def __call__(self, a, b):      # never called by FakeHarness; present so it is a callable
        raise RuntimeError("FakeFn is measured by FakeHarness, not run")


@dataclass
class FakeContext:
    size: object
    tolerance: float
    extra: dict = field(default_factory=dict)


class FakeHarness:
    """times[(size_key, item)] or times[item] -> seconds, or a list of them: the n-th timing of the item takes the
    n-th (the last repeats); errors likewise -> relative error; launch_errors: items whose check raises; clock:
    optional callable(seconds) advanced per timing."""

    def __init__(self, times: dict, errors: dict | None = None, launch_errors: set | None = None,
                 advance=None, mode: str = "rotate"):
        self.times = times
        self.errors = errors or {}
        self.launch_errors = launch_errors or set()
        self.advance = advance
        self.mode = mode
        self.timed: list[tuple[str, str, float | None]] = []   # (size, item, cutoff_s)
        self.checked: list[tuple[str, str]] = []

    def _lookup(self, table, size, item, default=None):
        if (size.key, item) in table:
            return table[(size.key, item)]
        if item in table:
            return table[item]
        if item.startswith("pick "):      # the pick runs its config unless told otherwise
            return self._lookup(table, size, item[5:], default)
        return default

    def device_info(self) -> dict:
        return {"device_name": "Fake GPU", "compute_capability": "9.0", "sm_count": 132, "l2_bytes": 50 * 2**20,
                "driver": "0.0", "torch": "fake", "torch_cuda": "fake", "triton": None,
                "nvidia_smi": {"clocks.sm": "1980 MHz", "clocks.max.sm": "1980 MHz"}}

    def timing_description(self) -> dict:
        return {"mode": self.mode, "repeats": 7, "rotate_l2_factor": 2.0, "max_rotations": 4096,
                "flush_l2_factor": 2.0}

    def prepare(self, size):
        return FakeContext(size=size, tolerance=TOLERANCE[size.dtype], extra={"rotated_l2_ratio": 2.0})

    def release(self, ctx):
        pass

    def healthy(self) -> bool:
        return True

    def cublas_fn(self):
        return FakeFn("cublas")

    def check(self, ctx, fn) -> float:
        self.checked.append((ctx.size.key, fn.item))
        if fn.item in self.launch_errors or (fn.item.startswith("pick ") and "pick" in self.launch_errors):
            raise LaunchError(f"fake launch failure of {fn.item}")
        return float(self._lookup(self.errors, ctx.size, fn.item, 1e-4))

    def time(self, ctx, fn, cutoff_s=None) -> Timing:
        t = self._lookup(self.times, ctx.size, fn.item)
        if isinstance(t, (list, tuple)):
            n = sum(1 for k, i, _ in self.timed if k == ctx.size.key and i == fn.item)
            t = t[min(n, len(t) - 1)]
        t = float(t)
        self.timed.append((ctx.size.key, fn.item, cutoff_s))
        if self.advance:
            self.advance(t)
        if cutoff_s is not None and t > cutoff_s:
            return Timing(t, t, t, t, t, 1, 1, 2, "fake", cut_off=True, post_rel_err=None)
        return Timing(t, t * 0.99, t * 1.01, t * 0.98, t * 1.02, 7, 100, 2, "fake", post_rel_err=None)


class FakeSystem:
    """configs: [(config dict, predicted_cycles or None)], pick: config dict."""

    kernel_version = C.KERNEL_VERSION  # as OrigamiSystem: its records carry the kernel sources' version
    compiled_kernel_list = True        # as OrigamiSystem: its candidates are compiled kernels

    def __init__(self, name: str, configs: list, pick: dict, clock_hz: float = 1e9,
                 build_errors: set | None = None, selection_s: tuple = (50e-6, 2e-6)):
        self.name = name
        self._configs = [(C.normalize(c), p) for c, p in configs]
        self._pick = C.normalize(pick)
        self.clock_hz = clock_hz
        self.build_errors = build_errors or set()
        self.selection_s = selection_s
        self.built: list[str] = []

    def describe(self) -> dict:
        return {"label": f"fake {self.name}", "mode": "fake", "gpu": None, "clock_hz": self.clock_hz,
                "clock_key": "fake"}

    def selection_times(self, size) -> dict:
        return {"api_cold_s": self.selection_s[0], "api_cached_s": self.selection_s[1]}

    def pick(self, size) -> Pick:
        pc = next((p for c, p in self._configs if C.config_id(c) == C.config_id(self._pick)), None)
        return Pick(self._pick, pc, "fake auto path")

    def pick_fn(self, size, pick):
        return FakeFn("pick " + C.config_id(pick.config))

    def candidates(self, size) -> list:
        return [Candidate(c, p, {"registers_per_thread": 128, "spill_store_bytes": 0}, p is not None)
                for c, p in self._configs]

    def config_fn(self, size, cfg):
        cid = C.config_id(cfg)
        self.built.append(cid)
        if cid in self.build_errors:
            raise RuntimeError(f"no compiled kernel for {cid}")
        return FakeFn(cid)
