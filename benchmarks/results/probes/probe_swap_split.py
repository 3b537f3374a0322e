"""Split-K for the swapped-operand wgmma kernels (forty-first session): at the H200 sizes of gen-train, gen-valid,
gen-mid-train and gen-mid-valid where the model now picks a swapped kernel's split launch, that pick against the
previous model's pick and cuBLAS in the same process, in rotating order (3 rounds), with the harness's cold-input method
(CUDA graphs over rotated operands >= 2x L2, median of 15 replays), every launch checked against the fp32 reference
first.

    python benchmarks/results/probes/probe_swap_split.py [--rounds 3]
"""
import argparse
import statistics
import sys

import torch

import origami_nv

sys.path.insert(0, __file__.rsplit("/", 1)[0])
from probe_bench import bench, cold_sets  # noqa: E402


def cfg(bm, bn, gsm, stages, split=1, ab=False):
    return dict(block_m=bm, block_n=bn, block_k=64, group_size_m=gsm, stages=stages, warps=12, family="wgmma",
                split_k=split, swap_ab=ab)


# (M, N, K, layout, dtype, the previous model's pick: HEAD 77bbe84's reports/nvidia-h200/*.md)
SIZES = [
    (262, 25408, 4736, "nt", "bfloat16", cfg(160, 256, 4, 4, ab=True)),
    (159, 19008, 9792, "nn", "bfloat16", cfg(160, 256, 4, 4, ab=True)),
    (2560, 256, 7232, "nn", "bfloat16", cfg(128, 128, 12, 6, 3)),
    (960, 22656, 23744, "nn", "float16", cfg(128, 192, 12, 5, 6)),
    (640, 1280, 9472, "nt", "float16", cfg(128, 256, 12, 4, 5)),
    (896, 960, 20480, "nn", "bfloat16", cfg(128, 192, 12, 5, 7)),
    (1018, 1088, 5504, "nn", "float16", cfg(112, 128, 4, 7, ab=True)),
    (214, 2688, 26112, "nn", "float16", cfg(256, 128, 12, 4, 6)),
    (517, 8704, 11712, "nn", "bfloat16", cfg(128, 256, 12, 4, 3)),
    (528, 13952, 5504, "nt", "float16", cfg(192, 192, 12, 4)),
    (426, 13760, 10304, "nt", "float16", cfg(112, 256, 4, 4, ab=True)),
    (520, 20288, 11904, "nt", "bfloat16", cfg(192, 192, 12, 4, 2)),
    (156, 4160, 7424, "nn", "bfloat16", cfg(128, 192, 12, 5, 3)),
    (1088, 320, 14848, "nn", "bfloat16", cfg(128, 192, 12, 5, 7)),
]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    print(f"{torch.cuda.get_device_name()}; us, median over {args.rounds} rounds (each the median of 15 graph replays)")
    print("| size | layout | dtype | previous pick | us | new pick | us | cuBLAS us | new / previous (speed-up) | "
          "previous / cuBLAS | new / cuBLAS |")
    print("|---|---|---|---|---:|---|---:|---:|---:|---:|---:|")
    speedups, new_cu, old_cu = [], [], []
    for M, N, K, layout, dt, old in SIZES:
        dtype = getattr(torch, dt)
        new = origami_nv.select(M, N, K, dt, layout=layout)
        new_cfg = dict(block_m=new.block_m, block_n=new.block_n, block_k=new.block_k, group_size_m=new.group_size_m,
                       stages=new.stages, warps=new.warps, family=new.family, split_k=new.split_k, swap_ab=new.swap_ab)
        sets, ref = cold_sets(M, N, K, layout, dtype)
        fns = {"old": lambda a, b: origami_nv.matmul(a, b, config=old),
               "new": lambda a, b: origami_nv.matmul(a, b, config=new_cfg),
               "cublas": torch.matmul}
        for name, fn in fns.items():
            out = fn(*sets[0])
            err = ((out.float() - ref).norm() / ref.norm()).item()
            assert err < 1e-2, (M, N, K, name, err)
        times = {k: [] for k in fns}
        order = list(fns)
        for r in range(args.rounds):
            for k in order[r % 3:] + order[:r % 3]:  # a different kernel first each round
                times[k].append(bench(fns[k], sets))
        t = {k: statistics.median(v) * 1e6 for k, v in times.items()}
        sp = t["old"] / t["new"]
        speedups.append(sp); new_cu.append(t["cublas"] / t["new"]); old_cu.append(t["cublas"] / t["old"])
        name = lambda c: (f"{c['block_m']}x{c['block_n']} s{c['stages']}" + (f" sk{c['split_k']}" if c["split_k"] > 1 else "")
                          + (" ab" if c.get("swap_ab") else ""))
        print(f"| {M}x{N}x{K} | {layout} | {dt} | {name(old)} | {t['old']:.1f} | {name(new_cfg)} | {t['new']:.1f} | "
              f"{t['cublas']:.1f} | {sp:.3f} | {old_cu[-1]:.3f} | {new_cu[-1]:.3f} |")
    gm = lambda v: statistics.geometric_mean(v)
    print(f"geomean: new / previous {gm(speedups):.3f} (min {min(speedups):.3f}, max {max(speedups):.3f}); "
          f"speed vs cuBLAS previous {gm(old_cu):.3f} -> new {gm(new_cu):.3f}")


if __name__ == "__main__":
    main()
