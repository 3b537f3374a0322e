# One-off probe (thirtieth session, issue 13): 64x64 with a 13-stage ring ran 1.04x faster than with 8 through the op on
# the H200 (probe_small_m_deep_h200.txt) but its one cluster-split launch 5 % slower. Here: the 64x64 kernel of this
# build (its stages printed) unsplit and split 2 / 3 / 4 at small-M shapes; run once with ORIGAMI_NV_CLUSTER_SPLIT=0
# (workspace split) and once with the default (one-wave splits reduce in the cluster), in processes of their own.
# Timing: probe_bench.bench (CUDA graphs over rotating cold inputs, median of 15 replays); every output checked.
#   python3 benchmarks/results/probes/probe_split_deep64.py TAG
import os
import sys
import torch
import origami_nv

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from probe_bench import bench, cold_sets, compiled_configs  # noqa: E402

tag = sys.argv[1] if len(sys.argv) > 1 else "gpu"
cl = os.environ.get("ORIGAMI_NV_CLUSTER_SPLIT", "1")
base = compiled_configs()[(64, 64, 64, "wgmma")]
shapes = [(128, 2048, 3072), (128, 4096, 4608), (64, 4096, 4096), (16, 8192, 3072), (128, 1024, 4096),
          (256, 2048, 2048), (32, 4096, 8192), (96, 3072, 3072)]
for M, N, K in shapes:
    sets, ref = cold_sets(M, N, K, "nt")  # > 120 MB of rotating inputs
    cells = []
    for sk in (1, 2, 3, 4):
        cfg = dict(base, group_size_m=12, split_k=sk)
        out = origami_nv.matmul(*sets[0], config=cfg)
        assert ((out.float() - ref).norm() / ref.norm()).item() < 2e-3, (M, N, K, sk)
        cells.append(f"sk{sk} {bench(lambda a, b, cfg=cfg: origami_nv.matmul(a, b, config=cfg), sets) * 1e6:.2f}")
    cells.append(f"cublas {bench(torch.matmul, sets) * 1e6:.2f}")
    print(f"{tag} s{base['stages']} cluster_split={cl} {M}x{N}x{K} nt " + " ".join(cells), flush=True)
