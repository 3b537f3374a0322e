"""Shared pytest setup: GPU tests are marked `gpu` and skip with a reason when no GPU is visible."""
import os
import shutil
import subprocess
import sys

import pytest


REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def kernel_family(name: str):
    """(the kernel generator module, its family module `name`) from cpp/kernels, as the build imports them."""
    import importlib
    sys.path.insert(0, os.path.join(REPO, "cpp", "kernels"))
    try:
        return importlib.import_module("generate"), importlib.import_module(f"families.{name}")
    finally:
        sys.path.pop(0)


def fp32_operand(rows, cols, layout, batch=None, gen=None):
    """A (batch,) rows x cols fp32 CUDA operand (randn), row-major ('r') or a transposed view of column-major storage
    ('c'). GPU tests of the fp32 families (test_simt_gpu, test_tf32_gpu)."""
    import torch
    shape = (rows, cols) if layout == "r" else (cols, rows)
    if batch is not None:
        shape = (batch,) + shape
    t = torch.randn(shape, device="cuda", dtype=torch.float32, generator=gen)
    return t if layout == "r" else t.transpose(-1, -2)


def poison_fp32(numel):
    """Hand the caching allocator a NaN-filled fp32 block of `numel` first: the op's output reuses it, so an element
    the kernel fails to write shows up as NaN."""
    import torch
    t = torch.full((numel,), float("nan"), dtype=torch.float32, device="cuda")
    del t


def run_memcheck(script_text: str, tmp_path, done_marker: str, env: dict | None = None) -> None:
    """Run a Python script under compute-sanitizer memcheck (GPU tests): it must reach `done_marker` (printed
    at its end) with zero errors. Skips when compute-sanitizer is not on PATH. `env`: variables added to the
    script's environment."""
    exe = shutil.which("compute-sanitizer")
    if exe is None:
        pytest.skip("compute-sanitizer is not on PATH")
    script = tmp_path / "memcheck_script.py"
    script.write_text(script_text)
    proc = subprocess.run([exe, "--tool", "memcheck", "--error-exitcode", "9", sys.executable, str(script)],
                          capture_output=True, text=True, timeout=600, env={**os.environ, **(env or {})})
    out = proc.stdout + proc.stderr
    assert done_marker in out, out[-3000:]
    assert proc.returncode == 0 and "ERROR SUMMARY: 0 errors" in out, out[-3000:]


def requires_op():
    """A pytest mark: skip (with the reason) when the torch op library was not built, e.g. torch missing at build
    time. Loads the op once when it is there."""
    try:
        from origami_nv import ops
        ops.load_op()
        why = None
    except ImportError as e:
        why = str(e)
    return pytest.mark.skipif(why is not None, reason=f"torch op not built: {why}")


def require_compiled(items, what: str) -> None:
    """Assert a build compiled `what` (kernels of a family, tiles): a full build that lacks them is a defect. A build
    made with ORIGAMI_NV_KERNEL_FILTER (a device session's quick build of the kernels it measures) is skipped instead,
    naming its filter."""
    if items:
        return
    from origami_nv import _kernels
    flt = _kernels._table().get("filter", "")
    if flt:
        pytest.skip(f"{what}: none in this build (ORIGAMI_NV_KERNEL_FILTER={flt!r})")
    raise AssertionError(f"no {what} compiled")


@pytest.fixture
def default_hardware(monkeypatch):
    """The GPU table's hardware rows, not an ORIGAMI_NV_HW_PARAMS override file from the environment; the API's
    cached selectors dropped after the test (a test that sets the override must not leave its selectors behind).
    A module takes it for every test with `pytestmark = pytest.mark.usefixtures("default_hardware")`."""
    monkeypatch.delenv("ORIGAMI_NV_HW_PARAMS", raising=False)
    yield
    from origami_nv import _api
    _api.clear_caches()


@pytest.fixture
def needs_sm90():
    """Skip (with the reason) unless a CUDA GPU of compute capability 9.0 is visible: the wgmma kernels (sm_90a)."""
    import torch
    if not torch.cuda.is_available():
        pytest.skip("no CUDA GPU visible")
    if torch.cuda.get_device_capability() != (9, 0):
        pytest.skip("the wgmma kernels need sm_90")


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
