"""Smoke test of the op's CUDA paths, run under gdb (or faulthandler) by gpu_run.sh so a crash shows
where it happens. Prints one line per step."""
import faulthandler
import json
import sys

faulthandler.enable()
import torch  # noqa: E402

import origami_nv  # noqa: E402
from origami_nv import _kernels  # noqa: E402

ops = origami_nv.ops.load_op()
steps = sys.argv[1:] or ["small", "copy", "select", "pick", "error", "resources"]
a = torch.randn(35, 56, device="cuda").half()
b = torch.randn(56, 37, device="cuda").half()
ref = a.float() @ b.float()


def err(c):
    return ((c.float() - ref).norm() / ref.norm()).item()


for step in steps:
    print("step", step, flush=True)
    if step == "small":
        c = origami_nv.matmul(a, b[:, :32], config=dict(block_m=16, block_n=16, block_k=16, stages=6, warps=1))
        torch.cuda.synchronize()
        print("  small ok", ((c.float() - ref[:, :32]).norm() / ref[:, :32].norm()).item(), flush=True)
    elif step == "copy":
        c = origami_nv.matmul(a, b, config=dict(block_m=16, block_n=16, block_k=16, stages=6, warps=1))
        torch.cuda.synchronize()
        print("  copy ok", err(c), flush=True)
    elif step == "select":
        print("  select", ops.select_config(35, 37, 56, "float16"), flush=True)
    elif step == "pick":
        c = origami_nv.matmul(a, b)
        torch.cuda.synchronize()
        print("  pick ok", err(c), flush=True)
    elif step == "error":
        try:
            origami_nv.matmul(a, b, config=dict(block_m=96, block_n=16, block_k=16, stages=6, warps=1))
        except RuntimeError as e:
            print("  error ok:", str(e).splitlines()[0][:300], flush=True)
    elif step == "resources":
        d = json.loads(ops.device_kernel_resources())
        print("  resources", len(d["kernels"]), d["kernels"][0], flush=True)
print("DIAG-DONE", flush=True)
