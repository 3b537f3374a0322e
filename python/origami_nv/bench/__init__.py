"""The A/BF benchmark harness (seed 000, section 7): the model's pick vs the brute force over every
runnable config vs cuBLAS, per GEMM size, with cold-cache timing (seed 003), ranking quality
(Kendall tau-b), selection time, and the seed's own Triton system as a baseline column.

    python -m origami_nv bench run --suite seed --out reports --time-budget 400
    python -m origami_nv bench report --suite seed --out reports
    pytest benchmarks/ --gpu-bench --suite seed [--shard i/n]

Nothing here imports torch or triton at import time: reports can be rebuilt on any machine.
See benchmarks/METHOD.md for the method.
"""
from .cli import main  # noqa: F401
from .stats import kendall_tau_b  # noqa: F401
from .suites import SUITES, Size, Suite, get_suite  # noqa: F401

__all__ = ["main", "kendall_tau_b", "SUITES", "Size", "Suite", "get_suite"]
