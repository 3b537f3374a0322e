# One-off probe (fifty-ninth session): gemv_rowclass.cu's K split swept finer than probe_gemv_rowclass.py's three
# targets, both forms (a trailing "p": PIPE), at fp16 decode sizes (M = 1) where its best trailed cuBLAS; builds the
# kernel for fp16 and M = 1 only (GEMV_RC_FP16_M1: a quick build).
#   python3 benchmarks/results/probes/probe_gemv_rowclass_sweep.py TAG
import os
import sys

import torch
from torch.utils.cpp_extension import load

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from probe_bench import bench, cold_sets  # noqa: E402

tag = sys.argv[1] if len(sys.argv) > 1 else "gpu"
ext = load(name="gemv_rowclass_m1_ext", sources=[os.path.join(HERE, "gemv_rowclass.cu")],
           extra_cuda_cflags=["-O3", "-gencode=arch=compute_90a,code=sm_90a", "-DGEMV_RC_FP16_M1"], verbose=False)
L2 = torch.cuda.get_device_properties(0).L2_cache_size
for M, N, K in [(1, 4097, 4099), (1, 4096, 4096), (1, 14336, 4096)]:
    sets, ref = cold_sets(M, N, K, "nn", torch.float16, total=2 * L2)
    ws = torch.empty(64 * M * N, device="cuda", dtype=torch.float32)
    counters = torch.zeros(N // 248 + 1, device="cuda", dtype=torch.int32)
    cells = []
    for nb in (1, 2):
        for u in (2, 4):
            for s in (2, 4, 6, 8, 10, 12, 16, 24):
                for pipe in (False, True):
                    fn = (lambda a, b, nb=nb, u=u, s=s, pipe=pipe, ws=ws, counters=counters:
                          ext.gemv(a, b, nb, u, s, ws, counters, pipe))
                    out = fn(*sets[0])
                    assert ((out.float() - ref).norm() / ref.norm()).item() < 2e-3
                    cells.append((bench(fn, sets), f"nb{nb}u{u}s{s}{'p' if pipe else ''}"))
    c = bench(torch.matmul, sets)
    cells.sort()
    print(f"{tag} {M}x{N}x{K} cublas {c * 1e6:.1f} | " + " ".join(f"{n} {t * 1e6:.1f}" for t, n in cells), flush=True)
