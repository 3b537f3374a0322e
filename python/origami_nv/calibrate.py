"""Hardware calibration: CUDA microbenchmarks -> the model's hardware parameters (issue 5).

    origami_nv.calibrate(quick=False) -> CalibrationResult   (.params, .table(), .to_json())
    python -m origami_nv calibrate [--out params.json] [--write-table] [--table PATH] [--quick]

The microbenchmarks live in cpp/calibrate (module origami_nv._calibrate) and return raw samples;
this module turns them into figures (mean, coefficient of variation over >= 3 repeats, datasheet
reference where one exists), fits the DRAM-bandwidth-against-active-SMs curve, applies Little's
law (seed 004) and writes the parameters in the ORIGAMI_NV_HW_PARAMS format:

    {"l2_perf_ratio": 3012.5, ..., "meta": {"device": ..., "date": ..., "cov": {...}, ...}}

--write-table updates this GPU's row of python/origami_nv/data/gpus.json (measured keys only).

Units follow seed 000 section 4: *_perf_ratio is aggregate bytes per SM-clock cycle at the
sustained clock measured during the same kernel; latencies are SM cycles (clock64).
"""
from __future__ import annotations

import argparse
import datetime as _dt
import json
import math
import os
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Dict, List, Optional, Sequence, Tuple

import numpy as np

# The keys this tool measures (exact names validated by cpp/model/hardware.cpp). Derived-tier keys
# such as n_sm or l2_bytes come from the live device and are never written here.
PARAM_KEYS: Tuple[str, ...] = (
    "l2_perf_ratio",
    "dram_perf_ratio",
    "dram_bw_coeff",
    "dram_bw_c0",
    "dram_bw_c1",
    "dram_bw_c2",
    "hbm_latency_penalty",
    "l2_latency_cycles",
    "mma_latency",
    "mma_sync_flops_per_cycle",
    "mma_sync_tf32_flops_per_cycle",
    "wgmma_flops_per_cycle",
    "wgmma_tf32_flops_per_cycle",
    "fp32_flops_per_cycle",
    "smem_bytes_per_cycle",
    "sustained_clock_mhz",
    "dram_bytes_in_flight_per_sm",
    "l2_bytes_in_flight_per_sm",
    "resident_clusters_2",
    "resident_clusters_3",
    "resident_clusters_4",
    "resident_clusters_5",
    "resident_clusters_6",
    "resident_clusters_7",
    "resident_clusters_8",
    "dsmem_bytes_per_cycle",
    "dsmem_latency_cycles",
    "dsmem_latency_per_slice_cycles",
)
# Keys whose sign is physical (the quadratic's coefficients); every other key must be positive.
SIGNED_KEYS = frozenset({"dram_bw_c0", "dram_bw_c1", "dram_bw_c2"})

COV_FLAG = 0.05  # a figure whose repeats scatter more than 5% is flagged, not hidden

# Datasheet tensor-core and FP32 rates per SM per cycle, by compute capability; used only as the
# reference column of the table and as upper bounds in the GPU tests.
#  - sm_90 (H100/H200 SXM): 989.4 dense FP16 TFLOP/s = 132 SMs x 4096 flop/cycle x 1830 MHz;
#    FP32 66.9 TFLOP/s = 132 x 256 x 1980 MHz (128 FP32 lanes, FMA = 2 flops).
#  - sm_80 (A100): 312 dense FP16 TFLOP/s = 108 x 2048 x 1410 MHz; FP32 19.5 TFLOP/s = 108 x 128 x 1410 MHz.
#  - sm_86/sm_89 (GeForce): FP32 128 lanes (x2); tensor FP16 with FP32 accumulate is half rate
#    on GeForce parts, 512 (sm_86) flop/cycle/SM dense.
DATASHEET_TENSOR_FLOPS_PER_CYCLE = {(9, 0): 4096.0, (8, 0): 2048.0, (8, 6): 512.0}
DATASHEET_FP32_FLOPS_PER_CYCLE = {(9, 0): 256.0, (8, 0): 128.0, (8, 6): 256.0, (8, 9): 256.0}
SMEM_BANK_BYTES_PER_CYCLE = 128.0  # 32 banks x 4 bytes per SM cycle (CUDA programming guide, sm_50+)


# ------------------------------------------------------------------------------------------
# statistics and fits (pure numpy: testable without a GPU)
# ------------------------------------------------------------------------------------------
def mean_cov(samples: Sequence[float]) -> Tuple[float, float]:
    """Mean and coefficient of variation (sample standard deviation / |mean|) of the repeats."""
    x = np.asarray(list(samples), dtype=float)
    if x.size == 0:
        raise ValueError("no samples")
    m = float(x.mean())
    if x.size < 2:
        return m, float("nan")
    sd = float(x.std(ddof=1))
    return m, (sd / abs(m) if m != 0 else float("inf"))


def capped_linear(coeff: float, n: np.ndarray) -> np.ndarray:
    """Seed 000's DRAM bandwidth fraction: min(1, coeff * active_SMs)."""
    return np.minimum(1.0, coeff * np.asarray(n, dtype=float))


def capped_quadratic(c: Sequence[float], n: np.ndarray) -> np.ndarray:
    """The source's quadratic fraction c0 n^2 + c1 n + c2 capped at 1, evaluated exactly as the
    model does (cpp/model/model.cpp dram_bw_fraction): a concave fit is held at its vertex, and
    the fraction is floored at 1e-6."""
    n = np.asarray(n, dtype=float)
    c0, c1, c2 = (float(x) for x in c)
    if c0 < 0:
        n = np.minimum(n, -c1 / (2.0 * c0))
    return np.minimum(1.0, np.maximum(c0 * n * n + c1 * n + c2, 1e-6))


def _rms(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.sqrt(np.mean((np.asarray(a) - np.asarray(b)) ** 2)))


def fit_linear_fraction(n: Sequence[float], frac: Sequence[float]) -> Tuple[float, float]:
    """Least-squares coeff of frac ~ min(1, coeff*n). Returns (coeff, RMS error of the fraction).

    The objective is piecewise quadratic in coeff (the knee moves with it), so a dense
    logarithmic grid finds the basin and a golden-section search polishes it."""
    n = np.asarray(n, dtype=float)
    f = np.asarray(frac, dtype=float)
    if n.size < 2 or n.size != f.size:
        raise ValueError("fit_linear_fraction needs >= 2 (n, fraction) pairs of equal length")
    if np.any(n <= 0):
        raise ValueError("active SM counts must be positive")
    lo, hi = 0.1 / n.max(), 10.0 / n.min()
    grid = np.geomspace(lo, hi, 4001)
    err = ((np.minimum(1.0, grid[:, None] * n[None, :]) - f[None, :]) ** 2).mean(axis=1)
    i = int(np.argmin(err))
    a, b = grid[max(i - 1, 0)], grid[min(i + 1, grid.size - 1)]
    g = (math.sqrt(5) - 1) / 2
    obj = lambda c: float(((np.minimum(1.0, c * n) - f) ** 2).mean())  # noqa: E731
    x1, x2 = b - g * (b - a), a + g * (b - a)
    f1, f2 = obj(x1), obj(x2)
    for _ in range(100):
        if f1 < f2:
            b, x2, f2 = x2, x1, f1
            x1 = b - g * (b - a)
            f1 = obj(x1)
        else:
            a, x1, f1 = x1, x2, f2
            x2 = a + g * (b - a)
            f2 = obj(x2)
    c = (a + b) / 2
    if obj(grid[i]) < obj(c):
        c = float(grid[i])
    return float(c), _rms(capped_linear(c, n), f)


def fit_quadratic_fraction(n: Sequence[float], frac: Sequence[float]) -> Tuple[Tuple[float, float, float], float]:
    """Fit frac ~ min(1, c0 n^2 + c1 n + c2). Returns ((c0, c1, c2), RMS error of the fraction).

    The cap makes the points past saturation uninformative for the polynomial, so for every
    candidate knee (the first j points by n, j >= 3) the quadratic is least-squares fitted to the
    points up to the knee and the capped curve is scored on all points; the best score wins."""
    n = np.asarray(n, dtype=float)
    f = np.asarray(frac, dtype=float)
    if n.size < 3 or n.size != f.size:
        raise ValueError("fit_quadratic_fraction needs >= 3 (n, fraction) pairs of equal length")
    order = np.argsort(n)
    n, f = n[order], f[order]
    best: Optional[Tuple[float, Tuple[float, float, float]]] = None
    for j in range(3, n.size + 1):
        if np.unique(n[:j]).size < 3:
            continue
        c = np.polyfit(n[:j], f[:j], 2)
        err = _rms(capped_quadratic(c, n), f)
        if best is None or err < best[0] - 1e-15:
            best = (err, (float(c[0]), float(c[1]), float(c[2])))
    if best is None:
        raise ValueError("fit_quadratic_fraction needs >= 3 distinct SM counts")
    return best[1], best[0]


def bytes_in_flight_per_sm(latency_cycles: float, aggregate_bytes_per_cycle: float, n_sm: int) -> float:
    """Little's law (seed 004): the bytes one SM must keep in flight so that all `n_sm` SMs
    together sustain `aggregate_bytes_per_cycle` when every load takes `latency_cycles`:
    latency x (aggregate bandwidth / n_sm)."""
    if latency_cycles <= 0 or aggregate_bytes_per_cycle <= 0 or n_sm <= 0:
        raise ValueError("latency, bandwidth and SM count must be positive")
    return float(latency_cycles) * float(aggregate_bytes_per_cycle) / int(n_sm)


def littles_law(params: Dict[str, float], n_sm: int) -> Dict[str, float]:
    """Bytes in flight per SM needed to saturate DRAM and L2, from a parameter dict holding
    hbm_latency_penalty, dram_perf_ratio, l2_latency_cycles, l2_perf_ratio."""
    return {
        "dram_bytes_in_flight_per_sm": bytes_in_flight_per_sm(params["hbm_latency_penalty"], params["dram_perf_ratio"], n_sm),
        "l2_bytes_in_flight_per_sm": bytes_in_flight_per_sm(params["l2_latency_cycles"], params["l2_perf_ratio"], n_sm),
    }


def stages_to_cover_latency(stage_bytes: int, bytes_in_flight: float, blocks_per_sm: int = 1) -> int:
    """Pipeline depth that keeps `bytes_in_flight` (per SM) loading: while one stage is consumed
    the other stages - 1 are in flight, across `blocks_per_sm` resident blocks. At least 2."""
    if stage_bytes <= 0 or blocks_per_sm <= 0:
        raise ValueError("stage_bytes and blocks_per_sm must be positive")
    if bytes_in_flight < 0:
        raise ValueError("bytes_in_flight must be non-negative")
    return max(2, 1 + math.ceil(bytes_in_flight / (stage_bytes * blocks_per_sm)))


# ------------------------------------------------------------------------------------------
# result
# ------------------------------------------------------------------------------------------
@dataclass
class Figure:
    name: str                 # what was measured
    value: float
    unit: str
    cov: float                # coefficient of variation over the repeats (nan when not repeated)
    samples: List[float]
    key: Optional[str] = None      # model parameter it sets, if any
    reference: str = ""            # datasheet / expectation, where one exists
    note: str = ""

    @property
    def flagged(self) -> bool:
        return not (self.cov <= COV_FLAG)  # nan (unrepeated) is flagged too

    def to_dict(self) -> dict:
        return {"value": self.value, "unit": self.unit, "cov": None if math.isnan(self.cov) else self.cov,
                "samples": self.samples, "key": self.key, "reference": self.reference, "note": self.note,
                "flagged": self.flagged}


@dataclass
class CalibrationResult:
    params: Dict[str, float]
    meta: dict
    figures: List[Figure] = field(default_factory=list)

    def figure(self, name: str) -> Figure:
        for f in self.figures:
            if f.name == name:
                return f
        raise KeyError(name)

    def to_dict(self) -> dict:
        out = {k: float(self.params[k]) for k in PARAM_KEYS if k in self.params}
        out["meta"] = self.meta
        return out

    def to_json(self) -> str:
        """The ORIGAMI_NV_HW_PARAMS format: flat {key: number} plus a free-form "meta" object."""
        return json.dumps(self.to_dict(), indent=2, sort_keys=True) + "\n"

    def write_json(self, path) -> None:
        _atomic_write(Path(path), self.to_json())

    @classmethod
    def from_json(cls, text_or_path) -> "CalibrationResult":
        """Reads a file (or JSON text) written by to_json(); validates it (see validate_params)."""
        p = Path(text_or_path) if not str(text_or_path).lstrip().startswith("{") else None
        data = json.loads(p.read_text() if p is not None else text_or_path)
        params, meta = validate_params(data, where=str(p) if p else "calibration JSON")
        figs = []
        for name, d in (meta.get("figures") or {}).items():
            figs.append(Figure(name, d["value"], d["unit"], float("nan") if d.get("cov") is None else d["cov"],
                               list(d.get("samples", [])), d.get("key"), d.get("reference", ""), d.get("note", "")))
        return cls(params=params, meta=meta, figures=figs)

    def table(self) -> str:
        rows = [("figure", "model key", "value", "unit", "CoV", "reference")]
        for f in self.figures:
            cov = "-" if math.isnan(f.cov) else f"{100 * f.cov:.2f}%" + (" !" if f.flagged else "")
            rows.append((f.name, f.key or "", _fmt(f.value), f.unit, cov, f.reference))
        w = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
        lines = []
        for i, r in enumerate(rows):
            lines.append("  ".join(c.ljust(w[j]) if j != 2 else c.rjust(w[j]) for j, c in enumerate(r)).rstrip())
            if i == 0:
                lines.append("  ".join("-" * x for x in w))
        flagged = [f.name for f in self.figures if f.flagged and f.samples and len(f.samples) > 1]
        head = f"{self.meta.get('device', '?')}  (cc {self.meta.get('compute_capability', '?')}, " \
               f"{self.meta.get('n_sm', '?')} SMs, driver {self.meta.get('driver_version', '?')}, {self.meta.get('date', '')})"
        tail = f"CoV > {100 * COV_FLAG:.0f}% (marked !): " + (", ".join(flagged) if flagged else "none")
        return "\n".join([head] + lines + [tail])


def _fmt(v: float) -> str:
    if v == 0 or not math.isfinite(v):
        return str(v)
    a = abs(v)
    if a >= 1e5 or a < 1e-3:
        return f"{v:.4g}"
    if a >= 100:
        return f"{v:.1f}"
    return f"{v:.4g}"


def validate_params(data: dict, where: str = "parameters") -> Tuple[Dict[str, float], dict]:
    """Checks a {key: number, "meta": {...}} object: known keys only, numbers, positive except the
    quadratic's signed coefficients. Returns (params, meta). Raises ValueError naming the problem."""
    if not isinstance(data, dict):
        raise ValueError(f"{where}: must be a JSON object {{key: number}}")
    params: Dict[str, float] = {}
    meta = data.get("meta", {})
    if not isinstance(meta, dict):
        raise ValueError(f"{where}: 'meta' must be an object")
    for k, v in data.items():
        if k == "meta":
            continue
        if k not in PARAM_KEYS:
            raise ValueError(f"{where}: unknown key '{k}' (calibration writes: {', '.join(PARAM_KEYS)})")
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
            raise ValueError(f"{where}: '{k}' must be a finite number, got {v!r}")
        if k not in SIGNED_KEYS and v <= 0:
            raise ValueError(f"{where}: '{k}' must be positive, got {v}")
        params[k] = float(v)
    return params, meta


def _wgmma_cluster_slots() -> List[int]:
    """Resident clusters of 2..8 CTAs on the current device, the smallest answer over the compiled wgmma kernels
    (the op's device_kernel_resources: cudaOccupancyMaxActiveClusters at each kernel's shared memory)."""
    from .ops import load_op
    rows = [r["cluster_slots"] for r in json.loads(load_op().device_kernel_resources())["kernels"]
            if r.get("family") == "wgmma" and not r.get("error") and r.get("cluster_slots")]
    if not rows:
        raise RuntimeError("no compiled wgmma kernel answered (the op was built without the wgmma family)")
    return [min(r[i] for r in rows) for i in range(7)]


def _atomic_write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=path.name + ".", dir=str(path.parent))
    try:
        with os.fdopen(fd, "w") as fh:
            fh.write(text)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


# ------------------------------------------------------------------------------------------
# gpus.json row update
# ------------------------------------------------------------------------------------------
def match_row(rows: dict, device_name: str) -> Optional[str]:
    """The table row whose "match" list has the longest substring of the device name (the rule
    cpp/model/hardware.cpp applies), or None."""
    best, best_len = None, 0
    for name, row in rows.items():
        for m in row.get("match", []):
            if m and m in device_name and len(m) > best_len:
                best, best_len = name, len(m)
    return best


def _new_row_name(device_name: str) -> str:
    s = device_name.replace("NVIDIA ", "").strip()
    return "".join(ch if ch.isalnum() else "_" for ch in s).strip("_") or "GPU"


def source_tree_table() -> Path:
    """python/origami_nv/data/gpus.json of the source tree: next to this file when running from a
    checkout (or an editable install), else under the current directory."""
    here = Path(__file__).resolve().parent
    cands = []
    if (here.parents[1] / "pyproject.toml").exists():
        cands.append(here / "data" / "gpus.json")
    cands.append(Path.cwd() / "python" / "origami_nv" / "data" / "gpus.json")
    for c in cands:
        if c.exists():
            return c
    raise FileNotFoundError("cannot find the source tree's python/origami_nv/data/gpus.json "
                            "(run from the repository root or pass --table PATH)")


def update_table(table_path, result: "CalibrationResult") -> str:
    """Writes the measured keys of `result` into the matching row of gpus.json (a new row when no
    row matches the device name): params and sources of the measured keys and the row's
    meta["calibration"]; every other key, row and field is left as it was. Pretty JSON, 2-space
    indent, sorted keys. Returns the row name."""
    path = Path(table_path)
    try:
        data = json.loads(path.read_text())
    except FileNotFoundError:
        raise FileNotFoundError(f"{path}: no such table") from None
    except json.JSONDecodeError as e:
        raise ValueError(f"{path}: not valid JSON ({e})") from None
    if not isinstance(data, dict) or not isinstance(data.get("rows"), dict):
        raise ValueError(f"{path}: expected {{\"default\": ..., \"rows\": {{NAME: row}}}}")
    device = result.meta.get("device")
    if not device:
        raise ValueError("calibration result has no meta.device: cannot choose the table row")
    rows = data["rows"]
    name = match_row(rows, device)
    if name is None:
        name = _new_row_name(device)
        while name in rows:
            name += "_"
        rows[name] = {"match": [device], "meta": {"description": f"{device} (added by calibration)"},
                      "params": {}, "sources": {}}
    row = rows[name]
    row.setdefault("params", {})
    row.setdefault("sources", {})
    row.setdefault("meta", {})
    date = result.meta.get("date", "")[:10]
    covs = result.meta.get("cov", {})
    for k in PARAM_KEYS:
        if k not in result.params:
            continue
        row["params"][k] = result.params[k]
        c = covs.get(k)
        cov_txt = "CoV n/a" if c is None else f"CoV {100 * c:.1f}%"
        row["sources"][k] = f"calibrated {date} on {device}, {cov_txt}"
    measured = sorted(k for k in PARAM_KEYS if k in result.params)
    row["meta"]["status"] = (f"{len(measured)} parameters calibrated {date} on {device} by origami_nv.calibrate; "
                             "the rest as their sources say")
    row["meta"]["calibration"] = {
        k: result.meta[k] for k in ("date", "device", "compute_capability", "driver_version", "runtime_version",
                                    "sm_clock_max_mhz", "quick", "tool", "flagged") if k in result.meta}
    _atomic_write(path, json.dumps(data, indent=2, sort_keys=True) + "\n")
    return name


# ------------------------------------------------------------------------------------------
# the measurement
# ------------------------------------------------------------------------------------------
def _ext():
    try:
        from . import _calibrate  # type: ignore
    except ImportError as e:
        raise RuntimeError(
            "origami_nv was built without its calibration microbenchmarks (origami_nv._calibrate needs nvcc at "
            f"build time and ORIGAMI_NV_CALIBRATE=ON): {e}") from None
    return _calibrate


def sm_counts_for(n_sm: int, quick: bool) -> List[int]:
    """Every SM count in full mode; in quick mode every count up to 16, then every 4th, then n_sm."""
    if not quick:
        return list(range(1, n_sm + 1))
    ks = list(range(1, min(16, n_sm) + 1)) + list(range(20, n_sm, 4)) + [n_sm]
    return sorted(set(k for k in ks if 1 <= k <= n_sm))


def calibrate(quick: bool = False, progress: Optional[Callable[[str], None]] = print) -> CalibrationResult:
    """Runs every microbenchmark on the current CUDA device and returns the figures and the model's
    parameters. quick=True: 3 repeats and shorter runs (GPU tests); otherwise 5 repeats.

    Raises RuntimeError("no CUDA device: ...") without a GPU. A benchmark that fails on a device
    (an unsupported instruction, a failed result check) does not stop the others: its error is
    kept in meta["errors"] and the keys that depend on it are left out of params."""
    ext = _ext()
    say = progress or (lambda s: None)
    t_start = time.perf_counter()
    dev = ext.device_info()
    info = dev["info"]
    name = dev["notes"]["name"]
    n_sm = int(info["sm_count"])
    l2 = int(info["l2_bytes"])
    cc = (int(info["cc_major"]), int(info["cc_minor"]))
    reps = 3 if quick else 5
    figs: List[Figure] = []
    methods: Dict[str, str] = {}
    errors: Dict[str, str] = {}
    ctx: dict = {}  # results later sections depend on

    def run(label: str, fn, *args):
        t0 = time.perf_counter()
        say(f"[calibrate] {label} ...")
        out = fn(*args)
        methods[label] = out.get("notes", {}).get("method", "")
        say(f"[calibrate] {label}: {time.perf_counter() - t0:.1f}s")
        return out

    def section(label: str, body: Callable[[], None]) -> None:
        try:
            body()
        except Exception as e:  # noqa: BLE001 - recorded, reported, and the other sections still run
            errors[label] = f"{type(e).__name__}: {e}"
            say(f"[calibrate] {label}: FAILED: {errors[label]}")

    def add(name_, samples, unit, key=None, reference="", note=""):
        m, c = mean_cov(samples)
        f = Figure(name_, m, unit, c, [float(x) for x in samples], key, reference, note)
        figs.append(f)
        return f

    say(f"[calibrate] {name}: cc {cc[0]}.{cc[1]}, {n_sm} SMs, L2 {l2 / 2**20:.0f} MiB, "
        f"max SM clock {info['sm_clock_max_mhz']:.0f} MHz, {'quick' if quick else 'full'} mode, {reps} repeats")
    max_mhz = float(info["sm_clock_max_mhz"])
    peak = float(info["dram_peak_bytes_per_s"])

    # 6. sustained clock: under a tensor-core load (what a GEMM runs at: the model turns cycles into
    #    seconds with it) and, for reference, under an FP32 load
    def clocks():
        r = run("sustained SM clock, mma.sync load", ext.sustained_clock, 100.0 if quick else 300.0, reps, "mma")
        ctx["clock"] = add("sustained SM clock (mma.sync load)", r["samples"]["clock_mhz"], "MHz",
                           "sustained_clock_mhz", f"max {max_mhz:.0f} MHz (cudaDevAttrClockRate)")
        r = run("sustained SM clock, FFMA load", ext.sustained_clock, 50.0 if quick else 150.0, reps, "ffma")
        add("sustained SM clock (FFMA load)", r["samples"]["clock_mhz"], "MHz", None, f"max {max_mhz:.0f} MHz")
    section("sustained clock", clocks)
    # cycles of the sustained clock: perf ratios are bytes per cycle of the clock the model converts with
    clock_mhz = ctx["clock"].value if "clock" in ctx else max_mhz
    clock_ref = "sustained clock" if "clock" in ctx else "maximum clock (sustained clock not measured)"

    # 1. L2 and DRAM bandwidth
    dram_ws = max(8 * l2, 256 << 20) // 16 * 16

    def bandwidth(label, ws, passes, key, ref, ref_cycle):
        r = run(f"{label} bandwidth", ext.read_bandwidth, ws, passes, reps)
        bps = r["samples"]["bytes_per_s"]
        add(f"{label} read bandwidth ({ws / 2**20:.0f} MiB working set)", [b / 1e12 for b in bps], "TB/s", None, ref)
        add(f"{label} SM clock during the bandwidth kernel", r["samples"]["clock_mhz"], "MHz")
        ctx[key] = add(f"{label} bytes per SM-cycle (aggregate, {clock_ref})", [b / (clock_mhz * 1e6) for b in bps],
                       "B/cycle", key, ref_cycle)
    l2_ws = (l2 // 4) // 16 * 16
    section("L2 bandwidth", lambda: bandwidth("L2", l2_ws, max(8, int((2e9 if quick else 4e9) // l2_ws)),
                                              "l2_perf_ratio", "no datasheet figure", ""))
    section("DRAM bandwidth", lambda: bandwidth(
        "DRAM", dram_ws, 2, "dram_perf_ratio", f"datasheet {peak / 1e12:.2f} TB/s (2 x mem clock x bus width)",
        f"datasheet {peak / (clock_mhz * 1e6):.0f}"))

    # 2. DRAM bandwidth against active SMs
    ks = sm_counts_for(n_sm, quick)

    def sweep():
        r = run(f"DRAM bandwidth vs active SMs ({len(ks)} counts)", ext.dram_bandwidth_vs_sms, dram_ws, ks, reps)
        bw_k = np.array([r["samples"][f"bytes_per_s@{k}"] for k in ks])  # [k, repeat]
        frac_mean = bw_k.mean(axis=1) / bw_k[-1].mean()  # relative to the same kernel on every SM (ks ends at n_sm)
        coeff, rms_lin = fit_linear_fraction(ks, frac_mean)
        quad, rms_quad = fit_quadratic_fraction(ks, frac_mean)
        per_lin, per_quad = [], []
        for i in range(bw_k.shape[1]):  # per-repeat fits give the coefficients' CoV
            fr = bw_k[:, i] / bw_k[-1, i]
            per_lin.append(fit_linear_fraction(ks, fr)[0])
            per_quad.append(fit_quadratic_fraction(ks, fr)[0])
        f = add("DRAM BW fraction: linear min(1, coeff*n)", per_lin, "1/SM", "dram_bw_coeff",
                f"fit RMS {rms_lin:.4f}; saturates at {1 / coeff:.1f} SMs", "value: fit to the mean curve")
        f.value = coeff
        for i, k in enumerate(("dram_bw_c0", "dram_bw_c1", "dram_bw_c2")):
            f = add(f"DRAM BW fraction: quadratic c{i}", [q[i] for q in per_quad], ("1/SM^2", "1/SM", "1")[i], k,
                    f"fit RMS {rms_quad:.4f}" if i == 0 else "", "value: fit to the mean curve")
            f.value = quad[i]
        ctx["one_sm"] = add("DRAM bandwidth of one SM alone", [b / 1e9 for b in bw_k[0]], "GB/s", None,
                            "k = 1 block of 1024 threads")
        ctx["sweep"] = {"linear": {"coeff": coeff, "rms": rms_lin},
                        "quadratic": {"c0": quad[0], "c1": quad[1], "c2": quad[2], "rms": rms_quad},
                        "sweep": {int(k): {"fraction": float(fr), "bytes_per_s": float(b)}
                                  for k, fr, b in zip(ks, frac_mean, bw_k.mean(axis=1))}}
    section("DRAM bandwidth vs active SMs", sweep)

    # 2b. TMA streaming against active SMs (sm_90): one CTA per SM loading tensor boxes into a ring of stages, as the
    #     wgmma kernels' producer does. Reported, not a parameter yet: where it stands against the load kernel's
    #     curve above, and why the model does not use it, is benchmarks/results/tma_streaming.md.
    def tma():
        ws = max(dram_ws, n_sm * (8 << 20))  # every SM at least one 4 MiB band of the 32 KiB-stage walk, twice over
        counts = [n_sm] if quick else sorted({max(1, n_sm // 4), max(1, n_sm // 2), n_sm})
        ldg = ctx.get("sweep", {}).get("sweep", {}).get(n_sm, {}).get("bytes_per_s")
        for stage, stages, rows in ((32768, 6, 256), (8192, 8, 64)):
            label = f"TMA streaming, {stage // 1024} KiB stages x {stages}"
            r = run(f"{label} vs active SMs", ext.tma_stream_vs_sms, ws, counts, stage, stages, rows, "k_major", reps)
            for k in counts:
                add(f"{label}, {k} SMs", [b / 1e12 for b in r["samples"][f"bytes_per_s@{k}"]], "TB/s", None,
                    "one CTA per SM, boxes of 128-byte rows")
            if ldg:
                add(f"{label}, every SM, / the load kernel's rate there", [b / ldg for b in
                    r["samples"][f"bytes_per_s@{n_sm}"]], "1", None, "dram_bandwidth_vs_sms at the same SM count")
    if cc == (9, 0) and ext.tma_stream_compiled():
        section("TMA streaming vs active SMs", tma)

    # 3. latency (pointer chase), SM cycles
    def latency_l2():
        stride = 512
        nodes = max(64, (l2 // 4) // stride)
        r = run("L2 latency (pointer chase)", ext.pointer_chase, stride, nodes, min(nodes, 8192), False, reps)
        ctx["l2_latency_cycles"] = add("L2 hit latency (ld.global.cg chase)", r["samples"]["cycles_per_load"], "cycles",
                                       "l2_latency_cycles", f"{nodes * stride / 2**20:.0f} MiB working set, 512 B stride")
    section("L2 latency", latency_l2)

    def latency_dram():
        stride = 64 << 10  # beyond the 4 KiB and 64 KiB page sizes: every hop a new page, in random order
        nodes = -(-max(8 * l2, 256 << 20) // stride)
        r = run("DRAM latency (pointer chase)", ext.pointer_chase, stride, nodes, min(nodes, 2048 if quick else 4096),
                True, reps)
        ctx["hbm_latency_penalty"] = add("DRAM latency (ld.global.cg chase, L2 flushed)", r["samples"]["cycles_per_load"],
                                         "cycles", "hbm_latency_penalty",
                                         f"{nodes * stride / 2**20:.0f} MiB working set, 64 KiB stride")
    section("DRAM latency", latency_dram)

    # 4. shared memory
    def shared():
        strides = [0, 1, 2, 4, 8, 16, 32] if not quick else [1, 2, 32]
        r = run("shared memory", ext.shared_memory, strides, reps)
        for st in strides:
            what = "broadcast" if st == 0 else ("no conflict" if st == 1 else f"{st}-way conflict")
            add(f"smem ld.shared.u32 latency, {what}", r["samples"][f"latency_cycles@{st}"], "cycles")
            # the conflict-free rate is the model's smem_bytes_per_cycle (the mma.sync shared-memory term)
            add(f"smem ld.shared.u32 throughput, {what}", r["samples"][f"bytes_per_cycle_per_sm@{st}"], "B/cycle/SM",
                "smem_bytes_per_cycle" if st == 1 else None,
                f"ideal {SMEM_BANK_BYTES_PER_CYCLE / max(st, 1):g} (32 banks x 4 B / {max(st, 1)})")
    section("shared memory", shared)

    # 5. tensor cores and FP32
    tensor_ref = DATASHEET_TENSOR_FLOPS_PER_CYCLE.get(cc)
    tref = f"datasheet peak {tensor_ref:.0f}" if tensor_ref else ""

    mma_keys = {"float16": "mma_sync_flops_per_cycle", "tfloat32": "mma_sync_tf32_flops_per_cycle"}

    def mma(dt):
        shape = "m16n8k8" if dt == "tfloat32" else "m16n8k16"
        ref = tref if dt != "tfloat32" or not tensor_ref else f"datasheet peak {tensor_ref / 2:.0f} (sm_80: half fp16)"
        r = run(f"mma.sync {shape} {dt}", ext.mma_sync, dt, 16, 8, reps)
        add(f"mma.sync {dt} latency (dependent chain)", r["samples"]["latency_cycles"], "cycles",
            "mma_latency" if dt == "float16" else None)
        add(f"mma.sync {dt} throughput", r["samples"]["flops_per_cycle_per_sm"], "flop/cycle/SM",
            mma_keys.get(dt), ref)
        add(f"mma.sync {dt} SM clock", r["samples"]["clock_mhz"], "MHz")
    for dt in ("float16", "bfloat16", "tfloat32"):
        section(f"mma.sync {dt}", lambda dt=dt: mma(dt))

    if cc == (9, 0) and ext.wgmma_compiled():
        keys = {("float16", 256): "wgmma_flops_per_cycle", ("tfloat32", 256): "wgmma_tf32_flops_per_cycle"}

        def wg(dt, n):
            k = 8 if dt == "tfloat32" else 16
            ref = tref if dt != "tfloat32" or not tensor_ref else f"datasheet peak {tensor_ref / 2:.0f}"
            r = run(f"wgmma m64n{n}k{k} {dt}", ext.wgmma, dt, n, reps)
            add(f"wgmma m64n{n}k{k} {dt} latency", r["samples"][f"latency_cycles@n{n}"], "cycles")
            add(f"wgmma m64n{n}k{k} {dt} throughput", r["samples"][f"flops_per_cycle_per_sm@n{n}"], "flop/cycle/SM",
                keys.get((dt, n)), ref)
        shapes = ([("float16", 256), ("tfloat32", 256)] if quick else
                  [("float16", 64), ("float16", 128), ("float16", 256), ("bfloat16", 256), ("tfloat32", 256)])
        for dt, n in shapes:
            section(f"wgmma m64n{n}k{8 if dt == 'tfloat32' else 16} {dt}", lambda dt=dt, n=n: wg(dt, n))
    else:
        say(f"[calibrate] wgmma skipped: needs a cc 9.0 device and an sm_90a build (device cc {cc[0]}.{cc[1]}, "
            f"built: {ext.wgmma_compiled()})")

    # Thread-block clusters of 2..8 CTAs resident at once at one CTA per SM (the split-K reduction in a cluster,
    # make_split_plan): what cudaOccupancyMaxActiveClusters answers for the compiled wgmma kernels (the smallest
    # answer over the kernels; _wgmma_cluster_slots).
    def clusters():
        answers = [_wgmma_cluster_slots() for _ in range(2)]  # the driver's answer, asked twice (the CoV column)
        for i, size in enumerate(range(2, 9)):
            add(f"resident clusters of {size} CTAs (one CTA per SM)", [a[i] for a in answers], "clusters",
                f"resident_clusters_{size}", "", "cudaOccupancyMaxActiveClusters over the wgmma kernels")
    if cc == (9, 0):
        section("thread-block clusters", clusters)

    # 5e. Distributed shared memory: a CTA reading its cluster's shared memory with the pattern of the wgmma kernels'
    #     cluster split-K reduction (a 128x128 fp32 partial tile, one 16-byte group's S loads in flight per thread),
    #     clusters of 2 and 4. The model's three parameters: the rate with many loads in flight (384 threads: three
    #     consumer warpgroups' worth, clusters of 2), and by Little's law from runs with few in flight (128 threads: one
    #     warpgroup) the latency of a thread's group of loads at S = 2 (128 x 2 x 16 bytes in flight) and what each
    #     further CTA adds (S = 4 against S = 2, halved); its cluster-form price takes the smaller of the rate and a
    #     kernel's bytes in flight over that latency (cpp/model/model.cpp split_terms).
    def dsmem():
        passes = 16 if quick else 64
        rate = {}
        for threads in (128, 256, 384):
            r = run(f"distributed shared memory, clusters of 2, {threads} threads", ext.dsmem_read, 2, 128, 128, threads,
                    passes, reps)
            rate[threads] = add(f"DSMEM read, clusters of 2, {threads} threads", r["samples"]["bytes_per_cycle_per_sm"],
                                "B/cycle/SM", "dsmem_bytes_per_cycle" if threads == 384 else None,
                                "ld.shared::cluster.v4.f32, the cluster reduction's pattern (own tile included)")
        r = run("distributed shared memory, clusters of 4, 128 threads", ext.dsmem_read, 4, 128, 128, 128, passes, reps)
        four = add("DSMEM read, clusters of 4, 128 threads", r["samples"]["bytes_per_cycle_per_sm"], "B/cycle/SM")
        lat2 = [128 * 2 * 16 / x for x in rate[128].samples]
        lat4 = [128 * 4 * 16 / x for x in four.samples]
        add("DSMEM latency of a thread's 2 loads under load (Little's law, 128 threads)", lat2, "cycles",
            "dsmem_latency_cycles", "4096 bytes in flight / the 128-thread rate, clusters of 2")
        add("DSMEM latency per further CTA (Little's law, 128 threads, clusters of 4 against 2)",
            [max((b - a) / 2, 1e-3) for a, b in zip(lat2, lat4)], "cycles", "dsmem_latency_per_slice_cycles",
            "(8192 / the S = 4 rate - 4096 / the S = 2 rate) / 2")
        if not quick:
            r = run("distributed shared memory, clusters of 4, 256 threads", ext.dsmem_read, 4, 128, 128, 256, passes,
                    reps)
            add("DSMEM read, clusters of 4, 256 threads", r["samples"]["bytes_per_cycle_per_sm"], "B/cycle/SM", None,
                "every load (own tile included)")
    if cc == (9, 0) and ext.dsmem_compiled():
        section("distributed shared memory", dsmem)

    fp32_ref = DATASHEET_FP32_FLOPS_PER_CYCLE.get(cc)
    combos = [(32, 8), (16, 8), (32, 0)] if quick else [(32, 8), (32, 4), (32, 0), (24, 8), (16, 8), (8, 8)]
    c_fp32: List[float] = []

    def fp32(lanes, fma):
        r = run(f"FP32 theta={lanes}/32 m_FMA={fma}/8", ext.fp32_throughput, lanes, fma, reps)
        phi = r["samples"]["flops_per_cycle_per_sm"]
        theta, m = lanes / 32, fma / 8
        expect = f"seed 002: theta*C*(1+m) = {theta * fp32_ref / 2 * (1 + m):.0f}" if fp32_ref else ""
        add(f"FP32 flops/cycle, theta={theta:.2f} m_FMA={m:.2f}", phi, "flop/cycle/SM",
            "fp32_flops_per_cycle" if (lanes, fma) == (32, 8) else None, expect)
        c_fp32.extend(p / (theta * (1 + m)) for p in phi)
    for lanes, fma in combos:
        section(f"FP32 theta={lanes}/32 m_FMA={fma}/8", lambda lanes=lanes, fma=fma: fp32(lanes, fma))
    if c_fp32:
        add("C_fp32 = Phi / (theta (1 + m_FMA)), all mixes", c_fp32, "lanes/SM", None,
            f"datasheet {fp32_ref / 2:.0f} lanes" if fp32_ref else "", "one value per (mix, repeat): seed 002's model")

    # 7. Little's law (seed 004): bytes each SM keeps in flight to saturate DRAM / L2 with all SMs busy
    for level, lat_key, bw_key, out_key in (("DRAM", "hbm_latency_penalty", "dram_perf_ratio", "dram_bytes_in_flight_per_sm"),
                                            ("L2", "l2_latency_cycles", "l2_perf_ratio", "l2_bytes_in_flight_per_sm")):
        if lat_key in ctx and bw_key in ctx:
            lat, bw = ctx[lat_key], ctx[bw_key]
            v = bytes_in_flight_per_sm(lat.value, bw.value, n_sm)
            # relative error of a product of independent figures: root of the summed squares
            figs.append(Figure(f"Little's law: {level} bytes in flight per SM", v, "bytes",
                               math.sqrt(lat.cov ** 2 + bw.cov ** 2), [], out_key,
                               f"{lat_key} x {bw_key} / n_sm"))
    if "hbm_latency_penalty" in ctx and "one_sm" in ctx:
        figs.append(Figure("Little's law: DRAM bytes in flight, one SM alone at its peak",
                           ctx["hbm_latency_penalty"].value * ctx["one_sm"].value * 1e9 / (clock_mhz * 1e6), "bytes",
                           float("nan"), [], None, "hbm_latency x one-SM bandwidth"))

    params = {f.key: f.value for f in figs if f.key}
    for k in PARAM_KEYS:
        if k not in params:
            say(f"[calibrate] {k}: not measured on this device")
    meta = {
        "tool": "origami_nv.calibrate" + (" --quick" if quick else ""),
        "date": _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "device": name,
        "compute_capability": f"{cc[0]}.{cc[1]}",
        "n_sm": n_sm,
        "l2_bytes": l2,
        "driver_version": int(info["driver_version"]),
        "runtime_version": int(info["runtime_version"]),
        "sm_clock_max_mhz": max_mhz,
        "mem_clock_mhz": info["mem_clock_mhz"],
        "mem_bus_width_bits": int(info["mem_bus_width_bits"]),
        "dram_peak_bytes_per_s": peak,
        "quick": quick,
        "repeats": reps,
        "duration_s": round(time.perf_counter() - t_start, 2),
        "cov": {f.key: (None if math.isnan(f.cov) else f.cov) for f in figs if f.key},
        "flagged": sorted(f.key or f.name for f in figs if f.flagged and len(f.samples) > 1),
        "errors": errors,
        "figures": {f.name: f.to_dict() for f in figs},
        "methods": methods,
    }
    if "sweep" in ctx:
        meta["dram_bw_fit"] = ctx["sweep"]
    say(f"[calibrate] finished in {meta['duration_s']:.1f}s" + (f", {len(errors)} benchmark(s) FAILED" if errors else ""))
    return CalibrationResult(params=params, meta=meta, figures=figs)


# ------------------------------------------------------------------------------------------
# CLI
# ------------------------------------------------------------------------------------------
def main(argv: Optional[Sequence[str]] = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m origami_nv calibrate",
        description="Measure the model's hardware parameters on this GPU with CUDA microbenchmarks.")
    ap.add_argument("--out", metavar="PATH", help="write the parameters as JSON (ORIGAMI_NV_HW_PARAMS format)")
    ap.add_argument("--write-table", action="store_true",
                    help="update this GPU's row of python/origami_nv/data/gpus.json (measured keys only)")
    ap.add_argument("--table", metavar="PATH", help="the gpus.json to update (default: the source tree's)")
    ap.add_argument("--quick", action="store_true", help="3 repeats, shorter runs")
    ap.add_argument("--from-json", metavar="PATH",
                    help="do not measure: load a result written by --out (e.g. on a machine without a GPU)")
    ap.add_argument("--quiet", action="store_true", help="no progress lines")
    args = ap.parse_args(list(argv) if argv is not None else None)
    try:
        if args.from_json:
            result = CalibrationResult.from_json(Path(args.from_json))
        else:
            result = calibrate(quick=args.quick, progress=None if args.quiet else
                               (lambda s: print(s, file=sys.stderr, flush=True)))
    except (RuntimeError, ValueError, FileNotFoundError) as e:
        print(f"calibrate: {e}", file=sys.stderr)
        return 2
    print(result.table())
    for label, err in result.meta.get("errors", {}).items():
        print(f"FAILED {label}: {err}")
    if args.out:
        result.write_json(args.out)
        print(f"wrote {args.out}")
    if args.write_table:
        try:
            table = Path(args.table) if args.table else source_tree_table()
            row = update_table(table, result)
        except (ValueError, FileNotFoundError) as e:
            print(f"calibrate: {e}", file=sys.stderr)
            return 2
        print(f"updated row {row} of {table}")
    return 1 if result.meta.get("errors") else 0


# `from .calibrate import calibrate` in the package makes `origami_nv.calibrate` this function;
# give it the module's CLI entry too, so `origami_nv.calibrate.main(argv)` works either way.
calibrate.main = main  # type: ignore[attr-defined]

if __name__ == "__main__":
    sys.exit(main())
