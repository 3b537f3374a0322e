# One-off probe (thirty-first session, issue 13 item 5 / README "large aligned GEMMs at the H100's 700 W limit"):
# B-sharing 2-CTA twins (`_c2`: the two CTAs of a cluster on tile rows 2u, 2u + 1 of one tile column, each loading
# half of the B tile and TMA-multicasting it into both) at large aligned sizes, on a build where the twins store C by
# TMA as the 1-CTA kernels do (the launcher's `kCluster == 1` condition on the C map dropped: device_session31b.sh
# builds that copy; measured and not adopted, cpp/kernels/wgmma/NOTES.md session 31). The twins halve
# B's L2 -> SM traffic; the question is whether that buys time (or clock, under the power cap) on full waves.
# Times the op's pick and the 1-CTA kernels (ORIGAMI_NV_MULTICAST=0) or the same configs' twins
# (ORIGAMI_NV_MULTICAST=2: the plan launches the twin wherever one is compiled, the pick's too: "pick_c2" is the pick's
# config as a twin where it has one, else the same launch), cuBLAS in every process; alternate
# the processes:  for v in 0 2 0 2; do ORIGAMI_NV_MULTICAST=$v python3 probe_large_twins.py TAG; done
# Timing: probe_bench.bench (CUDA graphs over rotating cold inputs, median of 15 replays); every output checked.
import os
import sys
import torch
import origami_nv

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from probe_bench import bench, cold_sets, compiled_configs  # noqa: E402
tag = sys.argv[1] if len(sys.argv) > 1 else "gpu"
mode = os.environ.get("ORIGAMI_NV_MULTICAST", "1")
recs = compiled_configs()
# (class, M, N, K, layout): "dec" = sizes of the training sets (seed / gen-train classes) the decision may use;
# "val" = held-out (prefill of the end-to-end 8B model and other families, no set holds them).
shapes = [("dec", 4096, 4096, 4096, "nt"), ("dec", 8192, 8192, 8192, "nt"), ("dec", 4096, 4096, 4096, "nn"),
          ("dec", 4096, 18944, 3584, "nt"), ("dec", 4096, 3584, 18944, "nt"), ("dec", 6144, 6144, 2048, "nt"),
          ("val", 4096, 14336, 4096, "nt"), ("val", 4096, 4096, 14336, "nt"), ("val", 16384, 4096, 4096, "nt"),
          ("val", 2048, 6144, 4096, "nt"), ("val", 8192, 2048, 8192, "nn"), ("val", 3072, 9216, 3072, "nt")]
tiles = ((128, 256), (128, 192), (128, 128))
GROUP = int(os.environ.get("PROBE_GROUP_SIZE_M", "12"))  # the explicit launches' GROUP_SIZE_M (tile rows; the twins
# walk GROUP / 2 cluster rows, the same footprint); the pick takes its own phase-2 value
for cls, M, N, K, layout in shapes:
    sets, ref = cold_sets(M, N, K, layout)  # > 120 MB of rotating inputs
    fns = [("pick", None)] + [(f"{bm}x{bn}", (bm, bn)) for bm, bn in tiles]
    cells = []
    for name, key in fns:
        if key is not None and (key[0], key[1], 64, "wgmma") not in recs:
            continue
        cfg = None if key is None else dict(recs[(key[0], key[1], 64, "wgmma")], group_size_m=GROUP, split_k=1)
        fn = (lambda a, b: origami_nv.matmul(a, b)) if cfg is None else \
             (lambda a, b, cfg=cfg: origami_nv.matmul(a, b, config=cfg))
        out = fn(*sets[0])
        err = ((out.float() - ref).norm() / ref.norm()).item()
        assert err < 2e-3, (M, N, K, name, err)
        label = name if mode == "0" else name + "_c2"
        cells.append(f"{label} {bench(fn, sets) * 1e6:.1f}")
    cells.append(f"cublas {bench(torch.matmul, sets) * 1e6:.1f}")
    sel = origami_nv.select(M, N, K, "float16", layout=layout)
    print(f"{tag} {cls} multicast={mode} {M}x{N}x{K} {layout} " + " ".join(cells) + (f" | pick {sel}" if sel else ""),
          flush=True)
    del sets, ref
    torch.cuda.empty_cache()
