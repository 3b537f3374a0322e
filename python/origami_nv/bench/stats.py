"""Statistics of the A/BF comparison (seed 000, section 7): rank correlation, ranks, ratios.

Pure numpy, no torch: the report is rebuilt from raw JSONL files on any machine.
"""
from __future__ import annotations

import math
from typing import Iterable, Sequence

import numpy as np


def kendall_tau_b(x: Sequence[float], y: Sequence[float]) -> float:
    """Kendall's tau-b between two paired samples, handling ties in either variable.

    tau_b = (n_c - n_d) / sqrt((n0 - n1) * (n0 - n2)), n0 = n(n-1)/2 pairs, n1 / n2 = pairs tied
    in x / in y. Pairs tied in both count in n1 and n2 but not in n_c - n_d (Kendall 1945, the
    definition scipy.stats.kendalltau(variant="b") uses). O(n^2) pairwise signs: n is the number
    of runnable configs (a few hundred), so the n x n sign matrix is at most a few MB.

    Returns nan when it is undefined (fewer than 2 pairs, or one variable constant).
    """
    xa = np.asarray(x, dtype=np.float64)
    ya = np.asarray(y, dtype=np.float64)
    if xa.ndim != 1 or ya.ndim != 1:
        raise ValueError(f"kendall_tau_b needs 1-D samples, got shapes {xa.shape} and {ya.shape}")
    if xa.shape != ya.shape:
        raise ValueError(f"kendall_tau_b needs paired samples of equal length, got {xa.size} and {ya.size}")
    if not (np.all(np.isfinite(xa)) and np.all(np.isfinite(ya))):
        raise ValueError("kendall_tau_b: samples contain nan or inf")
    n = xa.size
    if n < 2:
        return math.nan
    iu = np.triu_indices(n, k=1)
    dx = np.sign(xa[:, None] - xa[None, :])[iu]
    dy = np.sign(ya[:, None] - ya[None, :])[iu]
    s = float(np.sum(dx * dy))          # concordant minus discordant
    n0 = dx.size
    n1 = float(np.count_nonzero(dx == 0))
    n2 = float(np.count_nonzero(dy == 0))
    denom = math.sqrt((n0 - n1) * (n0 - n2))
    if denom == 0.0:
        return math.nan
    return s / denom


def rank_of(value: float, population: Iterable[float]) -> int:
    """1-based rank of `value` in ascending order of `population` (1 = smallest).

    Ties share the best rank (competition ranking: 1 + number of strictly smaller values).
    """
    return 1 + sum(1 for p in population if p < value)


def tflops(M: int, N: int, K: int, seconds: float) -> float:
    """Throughput of one M x N x K GEMM (2*M*N*K flops) in TFLOP/s; 0 for a missing time."""
    if seconds is None or not (seconds > 0) or not math.isfinite(seconds):
        return 0.0
    return 2.0 * M * N * K / seconds / 1e12


def ratio(num: float | None, den: float | None) -> float:
    """num/den, nan when either is missing or den is not positive."""
    if num is None or den is None or not (den > 0):
        return math.nan
    return num / den


def finite(values: Iterable[float | None]) -> list[float]:
    return [float(v) for v in values if v is not None and math.isfinite(float(v))]


def median(values: Iterable[float | None]) -> float:
    v = finite(values)
    return float(np.median(v)) if v else math.nan


def geomean(values: Iterable[float | None]) -> float:
    """Geometric mean of the positive finite values (zeros, e.g. a pick that cannot launch, are
    excluded: they are counted as failures instead)."""
    v = [x for x in finite(values) if x > 0]
    return float(math.exp(np.mean(np.log(v)))) if v else math.nan


def quartiles(samples: Sequence[float]) -> tuple[float, float, float]:
    """(q1, median, q3) of timing samples (linear interpolation, numpy's default)."""
    a = np.asarray(samples, dtype=np.float64)
    if a.size == 0:
        raise ValueError("quartiles of an empty sample")
    q1, q2, q3 = np.percentile(a, [25.0, 50.0, 75.0])
    return float(q1), float(q2), float(q3)


def relative_error(predicted: float, measured: float) -> float:
    """(predicted - measured) / measured: +0.5 = predicted 50% slower than measured."""
    if predicted is None or measured is None or not (measured > 0):
        return math.nan
    return (predicted - measured) / measured


# Interquartile range over median above which a rotate-mode measurement is taken again (CudaHarness._time_rotate).
# Over the 87,129 seven-sample records of the H100 brute force (reports/nvidia-h100/raw, 2026-11-25) the spread is
# 0.23 % at the median, 0.77 % at the 90th percentile, 4.6 % at the 99th; 173 records (0.2 %) exceed 10 %.
MAX_SPREAD = 0.10


def spread(samples: list) -> float:
    q1, med, q3 = quartiles(samples)
    return (q3 - q1) / med if med > 0 else 0.0
