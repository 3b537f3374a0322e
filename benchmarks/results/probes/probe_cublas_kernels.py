"""Which kernels cuBLAS (torch.matmul) runs for the mid-M projections where the pick trails it (issue 13, point 3):
the kernel names (nvjet names carry the tile and cluster shape) and their GPU time, from torch.profiler.
    python3 benchmarks/results/probes/probe_cublas_kernels.py [OUT.txt] [MxNxK[:nn][:bf16|:tf32|:fp32] ...]
Shapes on the command line replace the list below (":nn" = a @ b with B row-major; default x @ w.t(); a dtype tag
after it: bf16, tf32 = float32 with torch.backends.cuda.matmul.allow_tf32, fp32 = float32 without; default fp16).
The twenty-second session probed the shapes where the best compiled kernel trails cuBLAS (ViT-B/16 batch 32,
odd and mid sizes): probe_cublas_kernels_weak_h100.txt."""
import sys

import torch
from torch.profiler import ProfilerActivity, profile

SHAPES = [  # (M, N, K), B = W.t() as an nn.Linear weight ("nt")
    (128, 8192, 8192), (128, 8192, 4096), (64, 4096, 4096), (128, 2048, 4096), (256, 2048, 4096),
    (512, 2048, 4096), (256, 1024, 3584), (512, 1024, 3584), (128, 3584, 3584), (256, 18944, 3584),
    (512, 3584, 18944), (256, 9216, 3072), (512, 3072, 8192), (512, 2048, 8192), (256, 256, 65536),
    (1, 4097, 4099), (1000, 1000, 1000),
]


def main():
    out = open(sys.argv[1], "w") if len(sys.argv) > 1 else sys.stdout
    dtypes = {"fp16": (torch.float16, False), "bf16": (torch.bfloat16, False), "tf32": (torch.float32, True),
              "fp32": (torch.float32, False)}
    shapes = []
    for arg in sys.argv[2:]:
        parts = arg.split(":")
        layout = next((p for p in parts[1:] if p in ("nn", "nt")), "nt")
        tag = next((p for p in parts[1:] if p in dtypes), "fp16")
        shapes.append((*map(int, parts[0].split("x")), layout, tag))
    print(torch.cuda.get_device_name(), torch.__version__, file=out)
    for M, N, K, layout, tag in shapes or [(*s, "nt", "fp16") for s in SHAPES]:
        dt, tf32 = dtypes[tag]
        torch.backends.cuda.matmul.allow_tf32 = tf32
        a = torch.randn(M, K, device="cuda", dtype=dt)
        w = torch.randn(N, K, device="cuda", dtype=dt)
        b = w.t() if layout == "nt" else w.reshape(K, N)
        for _ in range(3):
            torch.matmul(a, b)
        torch.cuda.synchronize()
        with profile(activities=[ProfilerActivity.CUDA]) as prof:
            for _ in range(5):
                torch.matmul(a, b)
            torch.cuda.synchronize()
        ks = {}
        for e in prof.events():
            if e.device_type == torch.autograd.DeviceType.CUDA:
                ks.setdefault(e.name, []).append(e.device_time)
        desc = "; ".join(f"{n[:110]} {sorted(v)[len(v) // 2]:.1f}us x{len(v) // 5}" for n, v in ks.items())
        print(f"{M}x{N}x{K} {layout} {tag}: {desc}", file=out, flush=True)


if __name__ == "__main__":
    main()
