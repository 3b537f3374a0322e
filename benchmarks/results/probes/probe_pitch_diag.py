# One-off diagnostic (twenty-first session): what the op launches for a shape with ORIGAMI_NV_PITCH_COPY on / off
# (the op's select_config and the CUDA kernels a call runs, torch.profiler). Run twice, once per switch value.
import os, sys, torch, origami_nv
from origami_nv.ops import load_op
op = load_op()
for bt, M, N, K, lay in [(30, 608, 592, 224, "nn"), (8, 2480, 912, 224, "nn"), (1, 3000, 3000, 3000, "nn")]:
    a = torch.randn(bt, M, K, device="cuda").half()
    b = torch.randn(bt, K, N, device="cuda").half()
    if bt == 1:
        a, b = a[0], b[0]
    cfg = op.select_config(M, N, K, "float16", bt, lay)
    origami_nv.matmul(a, b); torch.cuda.synchronize()
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as p:
        origami_nv.matmul(a, b); torch.cuda.synchronize()
    ks = [(e.name[:60], round(e.time_range.elapsed_us(), 1)) for e in p.events() if e.device_type == torch.autograd.DeviceType.CUDA]
    print(f"pitch_copy={os.environ.get('ORIGAMI_NV_PITCH_COPY', '1')} {bt}x{M}x{N}x{K}: select_config {list(cfg)} kernels {ks}", flush=True)
