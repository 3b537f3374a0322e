"""Thirty-second session: the cost of rounding fp32 operands to TF32 in the mma.sync tf32 kernels. Run on the H100
with to_tf32 (cpp/kernels/mma_sync/gemm_mma_sync.cuh) replaced in turn by: 0 cvt.rna.tf32.f32 (kept), 1 integer
rounding (x + 0x1000, low 13 bits cleared, Inf/NaN untouched), 2 the same without the clear, 3 none (truncation by
the tensor core); a filtered build of the 5 tf32 kernels per form (device_lib.sh device_build_filtered), then this
script with the form's number. Explicit configs, CUDA graphs over rotating cold inputs, the error against an exact
fp32 reference as a multiple of cuBLAS TF32's. Output: probe_tf32_round_modes_h100.txt."""
import sys, torch
sys.path.insert(0, "benchmarks/results/probes")
from probe_bench import bench, cold_sets
import origami_nv
mode = sys.argv[1]
recs = sorted({(r["config"]["block_m"], r["config"]["block_n"], r["config"]["block_k"], r["config"]["stages"],
                r["config"]["warps"]) for r in origami_nv.kernels("tfloat32") if r["family"] == "mma_sync"})
for M, N, K in [(4096, 4096, 4096), (2048, 2048, 2048), (128, 4096, 4096)]:
    torch.backends.cuda.matmul.allow_tf32 = False
    sets, ref = cold_sets(M, N, K, "nt", torch.float32, total=240e6, cap=16)
    torch.backends.cuda.matmul.allow_tf32 = True
    e_cu = ((torch.matmul(*sets[0]) - ref).norm() / ref.norm()).item()
    cells = []
    for c in recs:
        cfg = dict(block_m=c[0], block_n=c[1], block_k=c[2], stages=c[3], warps=c[4], group_size_m=8, family="mma_sync")
        e = ((origami_nv.matmul(*sets[0], config=cfg) - ref).norm() / ref.norm()).item()
        t = bench(lambda a, b: origami_nv.matmul(a, b, config=cfg), sets)
        cells.append(f"{c[0]}x{c[1]} {t*1e6:.1f}us err {e/e_cu:.2f}x")
    print(f"mode {mode} {M}x{N}x{K}: " + "; ".join(cells), flush=True)
    del sets, ref
