# One-off probe (thirty-first session): the op's pick against the same config launched explicitly
# (origami_nv.matmul(a, b, config=...)) at several GROUP_SIZE_M, one process, launches interleaved per round; the pick
# and the explicit 128x192 g12 launch of probe_large_twins.py differed by up to 9 % either way on a filtered build.
# Timing: probe_bench.bench (CUDA graphs over rotating cold inputs, median of 15 replays); every output checked.
import os
import sys
import torch
import origami_nv

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from probe_bench import bench, cold_sets  # noqa: E402
tag = sys.argv[1] if len(sys.argv) > 1 else "gpu"
for M, N, K in [(8192, 8192, 8192), (3072, 9216, 3072), (6144, 6144, 2048)]:
    sets, ref = cold_sets(M, N, K, "nt")  # > 120 MB of rotating inputs
    sel = origami_nv.select(M, N, K, "float16", layout="nt")
    base = sel.to_dict()
    print(tag, M, N, K, "select", sel, base, flush=True)
    fns = [("pick", lambda a, b: origami_nv.matmul(a, b))]
    for g in (1, 8, 12, 16):
        cfg = dict(base, group_size_m=g)
        fns.append((f"explicit_g{g}", lambda a, b, cfg=cfg: origami_nv.matmul(a, b, config=cfg)))
    for name, fn in fns:
        out = fn(*sets[0])
        assert ((out.float() - ref).norm() / ref.norm()).item() < 2e-3, name
    for rnd in range(3):
        cells = [f"{name} {bench(fn, sets) * 1e6:.1f}" for name, fn in (fns if rnd % 2 == 0 else fns[::-1])]
        cells.append(f"cublas {bench(torch.matmul, sets) * 1e6:.1f}")
        print(tag, f"{M}x{N}x{K} round {rnd}: " + " ".join(sorted(cells)), flush=True)
    del sets, ref
    torch.cuda.empty_cache()
