# One-off probe (fifty-ninth session, issue 13 "odd sizes"): the row-class GEMV study kernel of gemv_rowclass.cu (no
# realign in the loop: each warp reads the rows of one class k mod 8, which share their 16-byte offset) against cuBLAS
# (torch.matmul) and, where origami_nv is installed, the op's own path, at decode `a @ b` shapes whose b rows are off
# the 16-byte grid (N odd: the op copies b or reads it through the realigning mma.sync kernels) and at aligned ones.
#   python3 benchmarks/results/probes/probe_gemv_rowclass.py TAG [N_SHAPES]
# Timing: probe_bench.bench (CUDA graphs over rotating cold inputs totalling > 2x the L2, median of 15 replays); every
# variant's output is checked against an fp32 reference first (relative Frobenius error < 2e-3 fp16, 1e-2 bf16) and
# for the same bits on a second call; every split counter is checked back at zero after a shape's runs. A variant
# "nb{NB}u{UNROLL}s{S}" is the kernel's template and split; a trailing "p" its pipelined form (PIPE).
import os
import sys

import torch
from torch.utils.cpp_extension import load

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from probe_bench import bench, cold_sets  # noqa: E402

tag = sys.argv[1] if len(sys.argv) > 1 else "gpu"
ext = load(name="gemv_rowclass_ext", sources=[os.path.join(HERE, "gemv_rowclass.cu")],
           extra_cuda_cflags=["-O3", "-gencode=arch=compute_90a,code=sm_90a"], verbose=False)
try:
    import origami_nv
except ImportError:
    origami_nv = None
L2 = torch.cuda.get_device_properties(0).L2_cache_size
SMS = torch.cuda.get_device_properties(0).multi_processor_count
# (M, N, K, dtype), all "nn" (b K x N row-major): N odd puts b's rows off the 16-byte grid
SHAPES = [(1, 4097, 4099, "float16"), (1, 4096, 4096, "float16"), (2, 4097, 4099, "float16"),
          (4, 4097, 4099, "float16"), (8, 4097, 4099, "float16"), (1, 32001, 4096, "bfloat16"),
          (1, 14337, 4099, "bfloat16"), (1, 4099, 14337, "float16"), (4, 12289, 4097, "bfloat16"),
          (1, 14336, 4096, "bfloat16"), (1, 4096, 14336, "bfloat16")]
if len(sys.argv) > 2:
    SHAPES = SHAPES[:int(sys.argv[2])]


def variants(M, N, K):
    out = set()
    for nb in (1, 2):
        nblk = -(-N // (256 * nb - 8))
        for target in (2 * SMS, 4 * SMS, 8 * SMS):
            s = max(1, min(K // 64, round(target / nblk)))
            for u in (2, 4):
                for pipe in (False, True):
                    out.add((nb, u, s, pipe))
    return sorted(out)


for M, N, K, dt in SHAPES:
    dtype = getattr(torch, dt)
    sets, ref = cold_sets(M, N, K, "nn", dtype, total=2 * L2)
    tol = 2e-3 if dt == "float16" else 1e-2
    vs = variants(M, N, K)
    ws = torch.empty(max(v[2] for v in vs) * M * N, device="cuda", dtype=torch.float32)
    counters = torch.zeros(N // 248 + 1, device="cuda", dtype=torch.int32)
    cells, best = [], None
    for nb, u, s, pipe in vs:
        fn = (lambda a, b, nb=nb, u=u, s=s, pipe=pipe, ws=ws, counters=counters:
              ext.gemv(a, b, nb, u, s, ws, counters, pipe))
        out = fn(*sets[0])
        err = ((out.float() - ref).norm() / ref.norm()).item()
        assert err < tol, (M, N, K, nb, u, s, pipe, err)
        assert torch.equal(out, fn(*sets[0])), ("not deterministic", M, N, K, nb, u, s, pipe)
        t = bench(fn, sets)
        name = f"nb{nb}u{u}s{s}{'p' if pipe else ''}"
        cells.append(f"{name} {t * 1e6:.1f}")
        if best is None or t < best[1]:
            best = (name, t)
    assert int(counters.abs().sum()) == 0, "a split left its counter set"
    c = bench(torch.matmul, sets)
    op = ""
    if origami_nv is not None:
        out = origami_nv.matmul(*sets[0])
        err = ((out.float() - ref).norm() / ref.norm()).item()
        assert err < tol, ("op", M, N, K, err)
        t_op = bench(origami_nv.matmul, sets)
        op = f" | op {t_op * 1e6:.1f} us cublas/op {c / t_op:.3f}"
    gbs = lambda t: (N * K * 2) / t / 1e9  # the weight's bytes per second
    print(f"{tag} {M}x{N}x{K} nn {dt} cublas {c * 1e6:.1f} us ({gbs(c):.0f} GB/s) | best {best[0]} "
          f"{best[1] * 1e6:.1f} us ({gbs(best[1]):.0f} GB/s) cublas/best {c / best[1]:.3f}{op} | " + " ".join(cells),
          flush=True)
    del sets, ref, ws
    torch.cuda.empty_cache()
