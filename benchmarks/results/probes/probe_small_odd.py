# One-off probe (twenty-ninth session, issue 13): small GEMMs whose rows are off 128-byte lines (1000^3 runs at
# 0.72-0.81 of cuBLAS on both GPUs, vs_cublas_odd_h100.md / vs_cublas_h200_session13.md; cuBLAS runs a 64x128 tile in
# 2x1 clusters there, probe_cublas_kernels_h100.txt). Times the op's pick, the 64-row and 128-row tiles reading in
# place (explicit configs) and, with ORIGAMI_NV_MULTICAST=2 (a process of its own), their 2-CTA multicast twins where
# the build has them; cuBLAS in the same process. Timing: probe_bench.bench (CUDA graphs over rotating cold inputs,
# median of 15 replays); every output checked against fp32.
#   for v in 1 2 1 2; do ORIGAMI_NV_MULTICAST=$v python3 benchmarks/results/probes/probe_small_odd.py TAG; done
#   ncu ... python3 benchmarks/results/probes/probe_small_odd.py TAG once   (one launch of the pick and of cuBLAS)
import os
import sys
import torch
import origami_nv

exec(open(__file__.replace("probe_small_odd.py", "probe_bench.py")).read())  # bench, compiled_configs
tag = sys.argv[1] if len(sys.argv) > 1 else "gpu"
once = len(sys.argv) > 2 and sys.argv[2] == "once"
mode = os.environ.get("ORIGAMI_NV_MULTICAST", "1")
recs = compiled_configs()
shapes = [(1000, 1000, 1000, "nn"), (1000, 1000, 1000, "nt"), (1500, 1500, 1500, "nn"), (600, 1000, 2000, "nn"),
          (1000, 3000, 1000, "nn"), (2000, 1000, 3000, "nt"), (1000, 1000, 4000, "nn"), (1024, 1024, 1024, "nn")]
tiles = ((64, 128), (128, 64), (128, 128), (128, 192))
for M, N, K, lay in shapes[:1] if once else shapes:
    nb = 1 if once else max(2, int(2 * 50e6 // ((M * K + N * K + M * N) * 2)) + 1)
    sets = []
    for _ in range(min(nb, 48)):
        a = torch.randn(M, K, device="cuda").half()
        b = torch.randn(K, N, device="cuda").half() if lay == "nn" else torch.randn(N, K, device="cuda").half().t()
        sets.append((a, b))
    if once:
        for _ in range(2):
            origami_nv.matmul(*sets[0])
            torch.matmul(*sets[0])
        torch.cuda.synchronize()
        break
    ref = sets[0][0].float() @ sets[0][1].float()
    cells = []
    fns = [("pick", None)] if mode == "1" else []
    fns += [(f"{bm}x{bn}", (bm, bn)) for bm, bn in tiles]
    for name, key in fns:
        cfg = None if key is None else dict(recs[(key[0], key[1], 64, "wgmma")], group_size_m=12, split_k=1)
        fn = (lambda a, b: origami_nv.matmul(a, b)) if cfg is None else \
             (lambda a, b, cfg=cfg: origami_nv.matmul(a, b, config=cfg))
        out = fn(*sets[0])
        assert ((out.float() - ref).norm() / ref.norm()).item() < 2e-3, (M, N, K, name)
        label = name if mode == "1" or key is None else name + "_c2"
        cells.append(f"{label} {bench(fn, sets) * 1e6:.1f}")
    cells.append(f"cublas {bench(torch.matmul, sets) * 1e6:.1f}")
    print(f"{tag} multicast={mode} {M}x{N}x{K} {lay} " + " ".join(cells) +
          f" pick {origami_nv.select(M, N, K, 'float16', layout=lay)}", flush=True)
