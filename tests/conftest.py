"""Shared pytest setup: GPU tests are marked `gpu` and skip with a reason when no GPU is visible."""
import pytest


def _gpu_reason():
    try:
        import torch
    except ImportError:
        return "torch is not installed"
    if torch.version.cuda is None:
        return "torch is a CPU-only build"
    if not torch.cuda.is_available():
        return "no CUDA GPU is visible"
    return None


def pytest_collection_modifyitems(config, items):
    reason = _gpu_reason()
    if reason is None:
        return
    skip = pytest.mark.skip(reason=f"GPU test: {reason}")
    for item in items:
        if "gpu" in item.keywords:
            item.add_marker(skip)
