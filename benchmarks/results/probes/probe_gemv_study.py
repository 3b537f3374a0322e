# One-off probe (thirty-first session, issue 13 "odd sizes"): the decode GEMV study kernels of gemv_study.cu against
# cuBLAS (torch.matmul) at decode shapes whose weight rows are not 16-byte aligned (where the op copies the weight or
# reads it through the realigning mma.sync kernels: 1 x 4097 x 4099 at ~0.4 of cuBLAS, reports/nvidia-h100/odd.md)
# and at aligned ones (where the op runs wgmma at ~1.03-1.1x cuBLAS: reports/nvidia-h*/gen-valid.md, decode class).
# No origami_nv build needed: the study kernels are built here as a torch extension.
#   python3 benchmarks/results/probes/probe_gemv_study.py TAG
# Timing: probe_bench.bench (CUDA graphs over rotating cold inputs totalling > 2x the L2, median of 15 replays); every
# variant's output is checked against an fp32 reference first (relative Frobenius error < 2e-3 fp16, 1e-2 bf16).
import os
import sys

import torch
from torch.utils.cpp_extension import load

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
sys.path.insert(0, HERE)
from probe_bench import bench, cold_sets  # noqa: E402

tag = sys.argv[1] if len(sys.argv) > 1 else "gpu"
ext = load(name="gemv_study_ext", sources=[os.path.join(HERE, "gemv_study.cu")],
           extra_include_paths=[os.path.join(ROOT, "cpp", "kernels")],
           extra_cuda_cflags=["-O3", "-gencode=arch=compute_90a,code=sm_90a"], verbose=False)
L2 = torch.cuda.get_device_properties(0).L2_cache_size
# (M, N, K, layout, dtype); "nn": b is K x N row-major (its rows misaligned when N is odd); "nt": b = W.t(), W N x K
# (rows misaligned when K is odd)
SHAPES = [(1, 4097, 4099, "nn", "float16"), (1, 4097, 4099, "nt", "float16"), (8, 4097, 4099, "nn", "float16"),
          (8, 4097, 4099, "nt", "float16"), (4, 11008, 4097, "nt", "bfloat16"), (1, 32001, 4096, "nn", "bfloat16"),
          (2, 4096, 14337, "nt", "float16"),
          (1, 4096, 4096, "nt", "float16"), (1, 14336, 4096, "nt", "bfloat16"), (1, 4096, 14336, "nt", "bfloat16"),
          (8, 4096, 4096, "nt", "float16"), (1, 128256, 4096, "nt", "bfloat16"), (1, 4096, 4096, "nn", "float16"),
          (4, 1024, 4096, "nt", "float16")]
NT_VARIANTS = [(1, 4), (1, 8), (1, 16), (2, 4), (2, 8), (-1, 4), (-2, 2), (-2, 4), (-4, 1), (-4, 2)]  # nr < 0: staged A
NN_VARIANTS = [(u, s) for u in (2, 4, 8, 16) for s in (1, 4, 8, 16, 32)]
for M, N, K, layout, dt in SHAPES:
    dtype = getattr(torch, dt)
    sets, ref = cold_sets(M, N, K, layout, dtype, total=2 * L2)
    tol = 2e-3 if dt == "float16" else 1e-2
    ws = torch.empty(32 * M * N, device="cuda", dtype=torch.float32)
    cells, best = [], None
    variants = [("nt", nr, u, 1) for nr, u in NT_VARIANTS] if layout == "nt" else [("nn", 0, u, s) for u, s in NN_VARIANTS]
    for kind, nr, u, s in variants:
        fn = (lambda a, b, nr=nr, u=u, s=s, ws=ws: ext.gemv(a, b, nr, u, s, ws))
        out = fn(*sets[0])
        err = ((out.float() - ref).norm() / ref.norm()).item()
        assert err < tol, (M, N, K, layout, kind, nr, u, s, err)
        t = bench(fn, sets)
        name = (f"nr{nr}u{u}" if nr > 0 else f"st{-nr}u{u}") if kind == "nt" else f"u{u}s{s}"
        cells.append(f"{name} {t * 1e6:.1f}")
        if best is None or t < best[1]:
            best = (name, t)
    c = bench(torch.matmul, sets)
    gbs = lambda t: (N * K * 2) / t / 1e9  # the weight's bytes per second
    print(f"{tag} {M}x{N}x{K} {layout} {dt} cublas {c * 1e6:.1f} us ({gbs(c):.0f} GB/s) | best {best[0]} "
          f"{best[1] * 1e6:.1f} us ({gbs(best[1]):.0f} GB/s) cublas/best {c / best[1]:.3f} | " + " ".join(cells),
          flush=True)
    del sets, ref, ws
    torch.cuda.empty_cache()
