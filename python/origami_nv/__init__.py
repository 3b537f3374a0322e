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

Drop-in use in a model (needs torch; loaded on first use):
    with enabled(): ...  /  enable(), disable()  -> torch.matmul, @, mm, bmm, addmm, F.linear on CUDA
                                                    fp16/bf16 routed to matmul, the rest to torch
    disabled(), is_enabled()                     -> routing off inside a block / the thread's state
    dispatch_stats(), reset_dispatch_stats()     -> routed and fallen-back calls, with the reasons
    nn.Linear, nn.convert(model), nn.revert()    -> a drop-in nn.Linear; swap every nn.Linear in place

Calibration (needs a GPU):
    calibrate()                                  -> measured hardware parameters
"""
from ._api import Config, explain, gpus, hardware, rank, select  # noqa: F401
from .ops import kernels, matmul, programmatic_dependent_launch, tf32_allowed  # noqa: F401
from .calibrate import calibrate  # noqa: F401

__version__ = "0.1.0"

__all__ = ["Config", "select", "rank", "explain", "hardware", "gpus", "matmul", "kernels",
           "programmatic_dependent_launch", "tf32_allowed", "calibrate", "enabled", "disabled", "enable", "disable", "is_enabled",
           "dispatch_stats", "reset_dispatch_stats", "nn"]

# The switch imports torch (and loads the op) when first used, so `import origami_nv` still needs no torch.
_DISPATCH_NAMES = ("enabled", "disabled", "enable", "disable", "is_enabled", "dispatch_stats",
                   "reset_dispatch_stats")


def __getattr__(name):
    import importlib
    if name in _DISPATCH_NAMES:
        return getattr(importlib.import_module(__name__ + "._dispatch"), name)
    if name == "nn":
        return importlib.import_module(__name__ + ".nn")
    raise AttributeError(f"module 'origami_nv' has no attribute {name!r}")
