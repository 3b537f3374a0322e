"""The shared test helpers of tests/conftest.py that decide between a failure and a skip (no GPU needed)."""
import pytest


def test_require_compiled_skips_only_a_filtered_build(monkeypatch):
    # GPU tests that need a family's kernels fail on a full build without them and skip on a build made with
    # ORIGAMI_NV_KERNEL_FILTER (conftest.require_compiled), naming the filter.
    from conftest import require_compiled
    from origami_nv import _kernels
    require_compiled([1], "kernels")  # something compiled: nothing to say
    monkeypatch.setattr(_kernels, "_table", lambda: {"kernels": [], "filter": ""})
    with pytest.raises(AssertionError, match="no mma_sync kernels compiled"):
        require_compiled([], "mma_sync kernels")
    monkeypatch.setattr(_kernels, "_table", lambda: {"kernels": [], "filter": "origami_wgmma_64x"})
    with pytest.raises(pytest.skip.Exception, match="origami_wgmma_64x"):
        require_compiled([], "mma_sync kernels")
