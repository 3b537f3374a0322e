"""GPU tests of the copy that puts an operand's rows on 128-byte lines (marked gpu: skipped without a CUDA GPU).

The wgmma kernels read rows that do not start on 128-byte lines (a leading dimension of 3000 fp16 elements) slowly;
where the model predicts the launch faster with a padded copy of such an operand (LatencyBreakdown::pitch_copy_a/b,
NvModelConstants::wgmma_tma_off_line_row_cost, pitch_copy_min_gain) the op makes it (ops_cuda.cpp make_plan) through
the realigning row copy. Checked: the copy runs where the model's pick says so and not for an aligned pitch, the result
matches an fp32 reference and is the same bits as the kernel reading in place with the same config (the copy moves
bytes, not values), and ORIGAMI_NV_PITCH_COPY=0 (a separate process) turns the copies off.
"""
import os
import subprocess
import sys

import pytest

torch = pytest.importorskip("torch")
import origami_nv  # noqa: E402

pytestmark = pytest.mark.gpu


@pytest.fixture(autouse=True)
def _sm90(needs_sm90):
    """Every test here runs the wgmma kernels (conftest.needs_sm90)."""


def _kernels_run(fn):
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as prof:
        out = fn()
        torch.cuda.synchronize()
    return out, [e.name for e in prof.events() if e.device_type == torch.autograd.DeviceType.CUDA]


def _pick_copies(M, N, K, layout):
    sel = origami_nv.select(M, N, K, "float16", layout=layout)
    return sel, str(origami_nv.explain(M, N, K, "float16", layout=layout))


# Shapes whose operands have rows of 2000 or 6000 bytes (7/8 of them off 128-byte lines, half inside 32-byte sectors)
# where the model's pick copies one (benchmarks/results/pitch_copy.md: 1.13-1.28x faster with the copy on the H100).
COPIED = {"nn": [(5000, 1000, 3000), (7000, 7000, 1000)], "nt": [(3000, 7000, 1000), (1200, 4000, 3000)]}


@pytest.mark.parametrize("layout", ["nn", "nt"])
def test_rows_off_lines_are_copied_and_exact(layout):
    shapes = [s for s in COPIED[layout] if "copied into padded rows" in _pick_copies(*s, layout)[1]]
    assert shapes, f"the model copies at none of {COPIED[layout]} ({layout})"
    M, N, K = shapes[0]
    gen = torch.Generator(device="cuda").manual_seed(0)
    a = torch.randn(M, K, device="cuda", generator=gen).half()
    b = torch.randn(K, N, device="cuda", generator=gen).half() if layout == "nn" else \
        torch.randn(N, K, device="cuda", generator=gen).half().t()
    out, kernels = _kernels_run(lambda: origami_nv.matmul(a, b))
    assert any("row_copy" in k for k in kernels), kernels
    ref = a.float() @ b.float()
    assert ((out.float() - ref).norm() / ref.norm()).item() < 2e-3
    # the same config reading in place (an explicit config: no pitch copy) gives the same bits
    sel = origami_nv.select(M, N, K, "float16", layout=layout)
    in_place, kernels2 = _kernels_run(lambda: origami_nv.matmul(a, b, config=sel))
    assert not any("row_copy" in k for k in kernels2), kernels2
    assert torch.equal(out, in_place)


def test_aligned_rows_are_not_copied():
    M, N, K = 3072, 3072, 3072
    a = torch.randn(M, K, device="cuda").half()
    b = torch.randn(K, N, device="cuda").half()
    _, kernels = _kernels_run(lambda: origami_nv.matmul(a, b))
    assert not any("row_copy" in k for k in kernels), kernels
    # a padded view of the 3000 problem: rows on lines, read in place
    ap = torch.randn(3000, 3008, device="cuda").half()[:, :3000]
    bp = torch.randn(3000, 3008, device="cuda").half()[:, :3000]
    out, kernels = _kernels_run(lambda: origami_nv.matmul(ap, bp))
    assert not any("row_copy" in k for k in kernels), kernels
    ref = ap.float() @ bp.float()
    assert ((out.float() - ref).norm() / ref.norm()).item() < 2e-3


def test_switch_off_reads_in_place():
    M, N, K = COPIED["nn"][0]  # copied by default (test_rows_off_lines_are_copied_and_exact)
    script = (
        "import torch, origami_nv\n"
        f"a = torch.randn({M}, {K}, device='cuda').half(); b = torch.randn({K}, {N}, device='cuda').half()\n"
        "with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as p:\n"
        "    out = origami_nv.matmul(a, b); torch.cuda.synchronize()\n"
        "names = [e.name for e in p.events() if e.device_type == torch.autograd.DeviceType.CUDA]\n"
        "assert not any('row_copy' in n for n in names), names\n"
        "ref = a.float() @ b.float()\n"
        "assert ((out.float() - ref).norm() / ref.norm()).item() < 2e-3\n"
        "print('PITCH-OFF-DONE')\n")
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300,
                          env={**os.environ, "ORIGAMI_NV_PITCH_COPY": "0"})
    assert "PITCH-OFF-DONE" in proc.stdout, proc.stdout[-2000:] + proc.stderr[-2000:]
