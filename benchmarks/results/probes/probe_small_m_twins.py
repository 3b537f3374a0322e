# One-off probe (thirtieth session, issue 13): small-M projections (M = 96..256 against N, K in the thousands), where
# the H200 runs the best compiled kernel at 0.89-0.91 of cuBLAS (gen-valid: 128x5120x5120, 128x2048x3072, 128x4608x4096)
# and cuBLAS runs 1x2 / 2x1 clusters (probe_cublas_kernels_h100.txt). With M <= 2 x BLOCK_M a B-sharing twin (`_c2`,
# the two CTAs of a cluster on two tile rows of one tile column) halves the L2 -> SM traffic of the cluster's B tile;
# the model weighs twins only where B's rows are off 128-byte lines (model.cpp), so these aligned shapes never get one.
# Times the op's pick, 1-CTA kernels of the 64- and 128-row tiles (explicit configs, GROUP_SIZE_M 12, unsplit) and,
# with ORIGAMI_NV_MULTICAST=2 (a process of its own), their twins; cuBLAS in the same process. Timing: probe_bench.bench
# (CUDA graphs over rotating cold inputs, median of 15 replays); every output checked against fp32.
#   for v in 1 2 1 2; do ORIGAMI_NV_MULTICAST=$v python3 benchmarks/results/probes/probe_small_m_twins.py TAG; done
#   ncu ... python3 benchmarks/results/probes/probe_small_m_twins.py TAG once M,N,K ...   (the pick and cuBLAS, once each;
#   ONCE_TILES=64x128,64x80 adds those tiles' explicit launches, their twins under ORIGAMI_NV_MULTICAST=2)
import os
import sys
import torch
import origami_nv

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from probe_bench import bench, compiled_configs  # noqa: E402
tag = sys.argv[1] if len(sys.argv) > 1 else "gpu"
mode = os.environ.get("ORIGAMI_NV_MULTICAST", "1")
recs = compiled_configs()
# decision: gen-valid's M = 128 rows below 0.92 of cuBLAS on the H200; held-out: shapes no set holds
shapes = [("dec", 128, 5120, 5120), ("dec", 128, 2048, 3072), ("dec", 128, 8192, 3072), ("dec", 128, 4608, 4096),
          ("val", 128, 4096, 14336), ("val", 128, 6144, 4096), ("val", 96, 3584, 3584), ("val", 112, 11008, 4096),
          ("val", 192, 4096, 4096), ("val", 256, 3072, 8192), ("val", 160, 2560, 6912), ("val", 240, 5120, 1536)]
tiles = ((64, 128), (128, 64), (128, 128))
extra = ((64, 80), (64, 96), (64, 64))  # 1-CTA only (no twin compiled)
if len(sys.argv) > 2 and sys.argv[2] == "once":
    for spec in sys.argv[3:]:
        M, N, K = (int(v) for v in spec.split(","))
        a, b = torch.randn(M, K, device="cuda").half(), torch.randn(N, K, device="cuda").half().t()
        once_tiles = [t.split("x") for t in os.environ.get("ONCE_TILES", "").split(",") if t]
        cfgs = [dict(recs[(int(bm), int(bn), 64, "wgmma")], group_size_m=12, split_k=1) for bm, bn in once_tiles]
        for _ in range(2):
            origami_nv.matmul(a, b)
            torch.matmul(a, b)
            for cfg in cfgs:
                origami_nv.matmul(a, b, config=cfg)
        torch.cuda.synchronize()
    sys.exit(0)
for cls, M, N, K in shapes:
    nb = max(2, int(2 * 60e6 // ((M * K + N * K + M * N) * 2)) + 1)
    sets = [(torch.randn(M, K, device="cuda").half(), torch.randn(N, K, device="cuda").half().t())
            for _ in range(min(nb, 64))]
    ref = sets[0][0].float() @ sets[0][1].float()
    fns = [("pick", None)] if mode == "1" else []
    fns += [(f"{bm}x{bn}", (bm, bn)) for bm, bn in tiles]
    if mode == "1":
        fns += [(f"{bm}x{bn}", (bm, bn)) for bm, bn in extra]
    cells = []
    for name, key in fns:
        if key is not None and (key[0], key[1], 64, "wgmma") not in recs:
            continue
        cfg = None if key is None else dict(recs[(key[0], key[1], 64, "wgmma")], group_size_m=12, split_k=1)
        fn = (lambda a, b: origami_nv.matmul(a, b)) if cfg is None else \
             (lambda a, b, cfg=cfg: origami_nv.matmul(a, b, config=cfg))
        out = fn(*sets[0])
        err = ((out.float() - ref).norm() / ref.norm()).item()
        assert err < 2e-3, (M, N, K, name, err)
        label = name if mode == "1" or key is None else name + "_c2"
        cells.append(f"{label} {bench(fn, sets) * 1e6:.2f}")
    cells.append(f"cublas {bench(torch.matmul, sets) * 1e6:.2f}")
    sel = origami_nv.select(M, N, K, "float16", layout="nt") if mode == "1" else ""
    print(f"{tag} {cls} multicast={mode} {M}x{N}x{K} nt " + " ".join(cells) + (f" | pick {sel}" if sel else ""),
          flush=True)
