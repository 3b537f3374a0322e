"""Thirty-second session (issue 15, TF32 before sm_90): the mma.sync tf32 kernels (cpp/kernels/families/mma_sync.py
TF32_TILES) against the op's pick (the wgmma tf32 kernels on sm_90) and cuBLAS TF32, x @ w.t() (A and B K-contiguous,
the layout they read in place). CUDA graphs over rotating cold inputs (probe_bench), medians, every output checked
against an exact fp32 reference. On a Hopper GPU this is the mma.sync path's speed there, not an sm_80 figure."""
import sys

import torch

sys.path.insert(0, "benchmarks/results/probes")
from probe_bench import bench, cold_sets  # noqa: E402

import origami_nv  # noqa: E402

gpu = sys.argv[1] if len(sys.argv) > 1 else "?"
recs = sorted({(r["config"]["block_m"], r["config"]["block_n"], r["config"]["block_k"], r["config"]["stages"],
                r["config"]["warps"]) for r in origami_nv.kernels("tfloat32") if r["family"] == "mma_sync"})
print(gpu, torch.cuda.get_device_name(), "mma_sync tf32 tiles:", recs)
sizes = [(4096, 4096, 4096), (8192, 8192, 8192), (2048, 2048, 2048), (1024, 4096, 4096), (128, 4096, 4096),
         (4096, 14336, 4096), (512, 1024, 8192)]
print("| M | N | K | cuBLAS us | pick | pick us | best mma_sync tf32 | us | mma_sync / cuBLAS | pick / cuBLAS |")
print("|---:|---:|---:|---:|---|---:|---|---:|---:|---:|")
for M, N, K in sizes:
    torch.backends.cuda.matmul.allow_tf32 = False
    sets, ref = cold_sets(M, N, K, "nt", torch.float32, total=240e6, cap=16)
    torch.backends.cuda.matmul.allow_tf32 = True
    refn = ref.norm().item()

    def err(out):
        return ((out - ref).norm() / refn).item()
    t_cu = bench(lambda a, b: torch.matmul(a, b), sets)
    e_cu = err(torch.matmul(*sets[0]))
    pick = origami_nv.select(M, N, K, dtype="tfloat32", layout="nt")
    t_pick = bench(lambda a, b: origami_nv.matmul(a, b), sets)
    e_pick = err(origami_nv.matmul(*sets[0]))
    best = None
    cells = []
    for c in recs:
        cfg = dict(block_m=c[0], block_n=c[1], block_k=c[2], stages=c[3], warps=c[4], group_size_m=8,
                   family="mma_sync")
        e = err(origami_nv.matmul(*sets[0], config=cfg))
        assert e <= 1.5 * e_cu + 1e-6, (M, N, K, c, e, e_cu)
        t = bench(lambda a, b: origami_nv.matmul(a, b, config=cfg), sets)
        cells.append(f"{c[0]}x{c[1]} {t * 1e6:.1f}")
        if best is None or t < best[1]:
            best = (c, t)
    assert e_pick <= 1.5 * e_cu + 1e-6, (M, N, K, e_pick, e_cu)
    print(f"| {M} | {N} | {K} | {t_cu * 1e6:.1f} | {pick.family} {pick.block_m}x{pick.block_n} | {t_pick * 1e6:.1f} | "
          f"{best[0][0]}x{best[0][1]} | {best[1] * 1e6:.1f} | {t_cu / best[1]:.3f} | {t_cu / t_pick:.3f} |")
    print("   every tile:", "; ".join(cells), f"(rel err cuBLAS {e_cu:.2e}, pick {e_pick:.2e})")
    del sets, ref
    torch.cuda.empty_cache()
