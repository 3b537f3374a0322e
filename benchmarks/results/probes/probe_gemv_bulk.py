# One-off probe (fifty-sixth session, issue 13 "odd sizes"): the bulk-copy GEMV study kernels of gemv_bulk.cu against
# cuBLAS (torch.matmul) at the decode shapes of the first GEMV study (probe_gemv_study.py's list, gemv_study.md), whose
# register-streaming kernels reached 0.62-0.77 of cuBLAS at the misaligned ones. No origami_nv build needed.
#   python3 benchmarks/results/probes/probe_gemv_bulk.py TAG
# Timing: probe_bench.bench (CUDA graphs over rotating cold inputs totalling > 2x the L2, median of 15 replays); every
# variant's output is checked against an fp32 reference first (relative Frobenius error < 2e-3 fp16, 1e-2 bf16) and
# for the same bits on a second call (the split's slice-order sum must not depend on which CTA finishes last).
import os
import sys

import torch
from torch.utils.cpp_extension import load

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
sys.path.insert(0, HERE)
from probe_bench import bench, cold_sets  # noqa: E402

tag = sys.argv[1] if len(sys.argv) > 1 else "gpu"
ext = load(name="gemv_bulk_ext", sources=[os.path.join(HERE, "gemv_bulk.cu")],
           extra_include_paths=[os.path.join(ROOT, "cpp", "kernels")],
           extra_cuda_cflags=["-O3", "-gencode=arch=compute_90a,code=sm_90a"], verbose=False)
L2 = torch.cuda.get_device_properties(0).L2_cache_size
SMS = torch.cuda.get_device_properties(0).multi_processor_count
# (M, N, K, layout, dtype): probe_gemv_study.py's list
SHAPES = [(1, 4097, 4099, "nn", "float16"), (1, 4097, 4099, "nt", "float16"), (8, 4097, 4099, "nn", "float16"),
          (8, 4097, 4099, "nt", "float16"), (4, 11008, 4097, "nt", "bfloat16"), (1, 32001, 4096, "nn", "bfloat16"),
          (2, 4096, 14337, "nt", "float16"),
          (1, 4096, 4096, "nt", "float16"), (1, 14336, 4096, "nt", "bfloat16"), (1, 4096, 14336, "nt", "bfloat16"),
          (8, 4096, 4096, "nt", "float16"), (1, 128256, 4096, "nt", "bfloat16"), (1, 4096, 4096, "nn", "float16"),
          (4, 1024, 4096, "nt", "float16")]
if len(sys.argv) > 2:
    SHAPES = SHAPES[:int(sys.argv[2])]


def variants(M, N, K, layout):
    mr = 1 if M <= 1 else 2 if M <= 2 else 4 if M <= 4 else 8
    out = []
    if layout == "nn":
        for cb in (512, 1024, 2048):
            nblk = -(-N // cb)
            for target in (SMS, 2 * SMS, 4 * SMS):
                s = max(1, min(K // 8, round(target / nblk)))
                ks = -(-K // s)
                for st in (2, 4, 8):
                    if st * 4 * (2 * cb + 16) + mr * ks * 4 + 256 <= 227 * 1024:
                        out.append((cb, s, st))
    else:
        s_min = -(-K // 2048)
        for rb in (16, 32, 64, 128):
            for s in sorted({s_min, 2 * s_min}):
                ks = (-(-K // s) + 7) // 8 * 8
                for st in (2, 3, 4):
                    if 8 * (2 * ks + 16) * st + mr * ks * 4 + 256 <= 227 * 1024:
                        out.append((rb, s, st))
    return sorted(set(out))


for M, N, K, layout, dt in SHAPES:
    dtype = getattr(torch, dt)
    sets, ref = cold_sets(M, N, K, layout, dtype, total=2 * L2)
    tol = 2e-3 if dt == "float16" else 1e-2
    vs = variants(M, N, K, layout)
    ws = torch.empty(max(v[1] for v in vs) * 8 * N, device="cuda", dtype=torch.float32)
    counters = torch.zeros(N // 8 + 1, device="cuda", dtype=torch.int32)
    cells, best = [], None
    for p1, s, st in vs:
        fn = (lambda a, b, p1=p1, s=s, st=st: ext.gemv(a, b, p1, s, st, ws, counters))
        out = fn(*sets[0])
        err = ((out.float() - ref).norm() / ref.norm()).item()
        assert err < tol, (M, N, K, layout, p1, s, st, err)
        assert torch.equal(out, fn(*sets[0])), ("not deterministic", M, N, K, layout, p1, s, st)
        t = bench(fn, sets)
        name = f"{'cb' if layout == 'nn' else 'rb'}{p1}s{s}st{st}"
        cells.append(f"{name} {t * 1e6:.1f}")
        if best is None or t < best[1]:
            best = (name, t)
    assert int(counters.abs().sum()) == 0, "a split left its counter set"
    c = bench(torch.matmul, sets)
    gbs = lambda t: (N * K * 2) / t / 1e9  # the weight's bytes per second
    print(f"{tag} {M}x{N}x{K} {layout} {dt} cublas {c * 1e6:.1f} us ({gbs(c):.0f} GB/s) | best {best[0]} "
          f"{best[1] * 1e6:.1f} us ({gbs(best[1]):.0f} GB/s) cublas/best {c / best[1]:.3f} | " + " ".join(cells),
          flush=True)
    del sets, ref, ws
    torch.cuda.empty_cache()
