"""GPU tests of the 2-CTA multicast twins (marked gpu: skipped without a CUDA GPU).

The wgmma tiles of MULTICAST_TILES (cpp/kernels/families/wgmma.py) also have a `_c2` kernel (KernelEntry::multicast):
2-CTA clusters whose CTAs share the B tile by TMA multicast. The op launches a twin where the model's plan for the pick
says so (LatencyBreakdown::multicast_b, NvModelConstants::multicast_min_gain; rows off 128-byte lines), and every unsplit
launch of such a config with ORIGAMI_NV_MULTICAST=2 (a process of its own: the op reads the switch once). Checked: every
twin (dtype x operand layout) at edge sizes and batches against an fp32 reference and bit for bit against its 1-CTA
kernel (the same tile, the same K order); the op launches a twin exactly where explain says so; ORIGAMI_NV_MULTICAST=0
launches none.
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


def _twins():
    return [r for r in origami_nv.kernels() if r.get("multicast")]


def test_every_twin_has_its_one_cta_kernel():
    twins = _twins()
    assert len(twins) >= 16, len(twins)
    singles = {(r["name"]) for r in origami_nv.kernels() if not r.get("multicast")}
    for r in twins:
        assert r["name"].endswith("_c2") and r["name"][:-3] in singles, r["name"]
        assert r["spill_store_bytes"] == 0 and r["local_bytes"] == 0, r


# Run in a process with ORIGAMI_NV_MULTICAST=2: every twin, each dtype and layout, at sizes with an odd number of tile
# rows (a cluster's second CTA without a tile), N and K not multiples of the tile, N < BLOCK_N, a batch; compared
# with the 1-CTA kernel of a process without the switch (saved to a file).
_SCRIPT = r"""
import sys, torch, origami_nv
from origami_nv import Config
out = {}
twins = sorted({(r['config']['block_m'], r['config']['block_n'], r['config']['stages'], r['config']['warps'], r['dtype'],
                 r['a_k_contiguous'], r['b_k_contiguous']) for r in origami_nv.kernels() if r.get('multicast')})
shapes = [(1, 200, 136, 200), (1, 389, 1000, 520), (3, 130, 64, 96), (1, 1000, 3000, 1000)]
for bm, bn, st, w, dt, ak, bk in twins:
    cfg = Config(bm, bn, 64, group_size_m=8, stages=st, warps=w, family='wgmma')
    dtype = getattr(torch, dt)
    for bt, M, N, K in shapes:
        g = torch.Generator(device='cuda').manual_seed(M * 7 + N)
        a = torch.randn(bt, M, K, device='cuda', generator=g).to(dtype)
        b = torch.randn(bt, K, N, device='cuda', generator=g).to(dtype)
        if ak is False: a = a.transpose(1, 2).contiguous().transpose(1, 2)
        if bk is True: b = b.transpose(1, 2).contiguous().transpose(1, 2)
        if bt == 1: a, b = a[0], b[0]
        with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as p:
            c = origami_nv.matmul(a, b, config=cfg); torch.cuda.synchronize()
        names = [e.name for e in p.events() if e.device_type == torch.autograd.DeviceType.CUDA]
        ref = a.float() @ b.float()
        err = ((c.float() - ref).norm() / ref.norm()).item()
        key = f'{bm}x{bn} {dt} {int(ak)}{int(bk)} {bt}x{M}x{N}x{K}'
        out[key] = (c.cpu(), err, any(n.endswith('_c2') for n in names), any('origami_wgmma' in n for n in names))
torch.save(out, sys.argv[1])
print('MULTICAST-SCRIPT-DONE', len(out))
"""


def _run(mode, path):
    env = {**os.environ, "ORIGAMI_NV_MULTICAST": mode}
    proc = subprocess.run([sys.executable, "-c", _SCRIPT, str(path)], capture_output=True, text=True, timeout=600,
                          env=env)
    assert "MULTICAST-SCRIPT-DONE" in proc.stdout, proc.stdout[-2000:] + proc.stderr[-3000:]
    return torch.load(path)


def test_every_twin_exact_against_its_one_cta_kernel(tmp_path):
    forced = _run("2", tmp_path / "forced.pt")
    single = _run("0", tmp_path / "single.pt")
    assert len(forced) >= 16 * 4 and forced.keys() == single.keys()
    for key, (c, err, twin_ran, wgmma_ran) in forced.items():
        assert wgmma_ran and twin_ran, f"{key}: the twin did not run"
        assert err < 1e-2, f"{key}: relative error {err}"
        c1, err1, twin1, _ = single[key]
        assert not twin1, f"{key}: ORIGAMI_NV_MULTICAST=0 ran a twin"
        assert torch.equal(c, c1), f"{key}: twin and 1-CTA kernel differ"


def _picks_twin(M, N, K, layout):
    return "[Multicast]" in str(origami_nv.explain(M, N, K, "float16", layout=layout))


# Shapes with rows of 2000 or 6000 bytes where the model's plan takes a twin on both Hopper GPUs' rows (tables
# H100_SXM / H200; cpp/kernels/families/wgmma.py MULTICAST_TILES has the measurements).
CANDIDATES = [(5000, 1000, 3000, "nt"), (1000, 3000, 5000, "nt"), (6000, 2000, 3000, "nt"), (5000, 1000, 3000, "nn"),
              (1000, 3000, 5000, "nn")]


def test_the_op_launches_the_twin_where_the_model_says():
    taken = [s for s in CANDIDATES if _picks_twin(*s)]
    assert taken, f"the model takes a twin at none of {CANDIDATES}"
    for M, N, K, layout in taken[:2]:
        a = torch.randn(M, K, device="cuda").half()
        b = torch.randn(K, N, device="cuda").half() if layout == "nn" else torch.randn(N, K, device="cuda").half().t()
        with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as p:
            c = origami_nv.matmul(a, b)
            torch.cuda.synchronize()
        names = [e.name for e in p.events() if e.device_type == torch.autograd.DeviceType.CUDA]
        assert any(n.endswith("_c2") for n in names), (M, N, K, layout, names)
        ref = a.float() @ b.float()
        assert ((c.float() - ref).norm() / ref.norm()).item() < 2e-3
    # rows on lines: no twin (the model's plan keeps the 1-CTA kernel)
    a = torch.randn(3072, 3072, device="cuda").half()
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as p:
        origami_nv.matmul(a, a)
        torch.cuda.synchronize()
    assert not any(e.name.endswith("_c2") for e in p.events() if e.device_type == torch.autograd.DeviceType.CUDA)
