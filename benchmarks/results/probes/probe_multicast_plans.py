# One-off probe (twenty-third session, issue 13): at shapes with rows off 128-byte lines, what each launch plan the
# model weighs costs through the op: the op's pick (its copies and twin decision), the 1-CTA kernels reading in place
# (an explicit config: no copy, no twin) and, with ORIGAMI_NV_MULTICAST=2 (a process of its own), the twins in place.
# Run from the repository root after the package build, the two modes in alternating processes:
#   for v in 1 2 1 2; do ORIGAMI_NV_MULTICAST=$v python3 benchmarks/results/probes/probe_multicast_plans.py TAG; done
# Timing: probe_bench.bench (CUDA graphs over rotating cold inputs, median of 15 replays); every output checked.
import os
import sys
import torch
import origami_nv

exec(open(__file__.replace("probe_multicast_plans.py", "probe_bench.py")).read())  # bench, compiled_configs
tag = sys.argv[1] if len(sys.argv) > 1 else "gpu"
mode = os.environ.get("ORIGAMI_NV_MULTICAST", "1")
recs = compiled_configs()
shapes = [(3000, 3000, 3000, "nt"), (2000, 5000, 3000, "nt"), (7000, 7000, 1000, "nt"), (6000, 2000, 3000, "nt"),
          (3000, 7000, 1000, "nt"), (1200, 4000, 3000, "nt"), (5000, 1000, 3000, "nn"), (3000, 3000, 3000, "nn")]
for M, N, K, lay in shapes:
    nb = max(2, int(2 * 50e6 // ((M * K + N * K + M * N) * 2)) + 1)
    sets = []
    for _ in range(min(nb, 48)):
        a = torch.randn(M, K, device="cuda").half()
        b = torch.randn(K, N, device="cuda").half() if lay == "nn" else torch.randn(N, K, device="cuda").half().t()
        sets.append((a, b))
    ref = sets[0][0].float() @ sets[0][1].float()
    cells = []
    fns = [("pick", None)] if mode == "1" else []
    fns += [(f"{bm}x{bn}", (bm, bn)) for bm, bn in ((192, 192), (128, 192), (128, 256))
            if mode == "1" or (bm, bn) != (192, 192)]
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
