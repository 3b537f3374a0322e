"""origami_nv: analytical GEMM tile selection (the Origami model of tritonBLAS, ported to
NVIDIA) with hand-written CUDA kernels specialised per tile.

Model side (no GPU, no torch needed):
    select(M, N, K, dtype="float16", gpu=None)  -> the chosen tile configuration
    rank(M, N, K, top=10, ...)                   -> configurations ranked by predicted cycles
    explain(M, N, K, ...)                        -> the full walk-through (text, HTML, dict)
    hardware(gpu=None)                           -> hardware parameters and the tier of each
    gpus()                                       -> names of the calibrated table rows

Torch side (needs torch; CUDA kernels need a CUDA build of torch and a GPU):
    matmul(a, b, *, config=None)                 -> a @ b through the selected kernel
    kernels()                                    -> compiled kernels and their resources

Calibration (needs a GPU):
    calibrate()                                  -> measured hardware parameters
"""
from ._api import Config, explain, gpus, hardware, rank, select  # noqa: F401
from .ops import kernels, matmul, programmatic_dependent_launch  # noqa: F401
from .calibrate import calibrate  # noqa: F401

__version__ = "0.1.0"

__all__ = ["Config", "select", "rank", "explain", "hardware", "gpus", "matmul", "kernels",
           "programmatic_dependent_launch", "calibrate"]
