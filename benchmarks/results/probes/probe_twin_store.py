# One-off probe (thirty-first session): the op's pick at sizes whose operand rows are off 128-byte lines, where the model
# launches B-sharing 2-CTA twins (`_c2`) over several waves: the twins storing C by their threads (as committed up to
# the thirtieth session) against the twins storing it by TMA while the next tile runs (the launcher change of this
# session). Run one process per build, alternated (device_session31b.sh): PYTHONPATH picks the build.
# Timing: probe_bench.bench (CUDA graphs over rotating cold inputs, median of 15 replays); every output checked.
import os
import sys
import torch
import origami_nv

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from probe_bench import bench, cold_sets  # noqa: E402
tag = sys.argv[1] if len(sys.argv) > 1 else "gpu"
# the odd suite's and multicast_twins.md's off-line sizes (decision: the twins were adopted on them), and held-out ones
shapes = [("dec", 3000, 3000, 3000, "nt"), ("dec", 4000, 4000, 4000, "nn"), ("dec", 6000, 2000, 3000, "nt"),
          ("dec", 2000, 5000, 3000, "nt"), ("dec", 7000, 7000, 1000, "nt"),
          ("val", 5000, 5000, 2000, "nn"), ("val", 3000, 6000, 1500, "nt"), ("val", 4500, 2500, 3500, "nt")]
for cls, M, N, K, layout in shapes:
    sets, ref = cold_sets(M, N, K, layout)  # > 120 MB of rotating inputs
    out = origami_nv.matmul(*sets[0])
    err = ((out.float() - ref).norm() / ref.norm()).item()
    assert err < 2e-3, (M, N, K, err)
    t = bench(origami_nv.matmul, sets)
    c = bench(torch.matmul, sets)
    sel = origami_nv.select(M, N, K, "float16", layout=layout)
    print(f"{tag} {cls} {M}x{N}x{K} {layout} pick {t * 1e6:.1f} cublas {c * 1e6:.1f} | pick {sel}", flush=True)
    del sets, ref, out
    torch.cuda.empty_cache()
