# Device probe (issue 11, eighteenth session; run on the H100 in the nineteenth: probe_cta_sharing_h100.txt, and
# benchmarks/results/model_scan_hit_latency.md for what the model took from it): why a memory-bound wgmma launch over 65-132 CTAs runs
# slower than the model predicts (benchmarks/results/model_fit_session17_not_adopted.md; on the `unseen` suite the
# H200 picks 64x48 at 4096x64x4096, 128 CTAs, measured 18.5 us, where 64x64, 64 CTAs, runs 13.5: A/BF 0.73).
# Candidates: (a) the CTA count itself (past 66 CTAs two share a TPC: the block scheduler fills one SM per TPC first),
# (b) two CTAs reading the same A rows at once (two N tiles), (c) the mostly empty second N tile (16 of 48 rows).
# Each row holds the per-CTA work the same (a 64-row A slab of K = 4096 per CTA, nt layout, fp16) and varies one of
# them; the k-iteration time per CTA (launch time / k-blocks) says which one costs:
#   rows 1/2: 64 vs 128 CTAs, no sharing, full tiles (64x64 at N = 64, M = 4096 / 8192)   -> (a)
#   rows 3/4: 64 CTAs, 2 N tiles sharing A (M = 2048, N = 128) vs 128 CTAs (M = 4096, N = 128)  -> (b) at both counts
#   rows 5/6: 64x48 at N = 96 (two full tiles) and N = 64 (second tile 16 rows)           -> (c)
# Timing: probe_bench.py's harness (CUDA graph over rotating input sets, median of --reps replays); every launch
# checked against an fp32 torch reference first.
#   python benchmarks/results/probes/probe_cta_sharing.py [--reps 15] [--json PATH]
import argparse
import json
import os

import torch

import origami_nv

HERE = os.path.dirname(os.path.abspath(__file__))
exec(open(os.path.join(HERE, "probe_bench.py")).read())  # bench(fn, sets, reps), compiled_configs(dtype)

K = 4096
ROWS = [  # (label, M, N, BLOCK_M, BLOCK_N)
    ("64 CTAs, 1 N tile", 4096, 64, 64, 64),
    ("128 CTAs, 1 N tile", 8192, 64, 64, 64),
    ("64 CTAs, 2 N tiles share A", 2048, 128, 64, 64),
    ("128 CTAs, 2 N tiles share A", 4096, 128, 64, 64),
    ("128 CTAs, 64x48, 2 full N tiles", 4096, 96, 64, 48),
    ("128 CTAs, 64x48, N tile 2 of 16 rows", 4096, 64, 64, 48),
    ("32 CTAs, 128x64, 1 N tile", 4096, 64, 128, 64),
    ("64 CTAs, 128x64, 1 N tile", 8192, 64, 128, 64),
    ("132 CTAs, 64x64", 8448, 64, 64, 64),
]


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--reps", type=int, default=15)
    ap.add_argument("--json", default="")
    args = ap.parse_args()
    recs = compiled_configs("float16")
    name = torch.cuda.get_device_name()
    print(f"# {name}; fp16, nt (x @ w.t()), K = {K}; per-CTA k-iteration = time x clock / 64 k-blocks")
    out = []
    for label, M, N, bm, bn in ROWS:
        cfg = recs.get((bm, bn, 64, "wgmma"))
        if cfg is None:
            print(f"{label}: no compiled wgmma {bm}x{bn}x64"); continue
        cfg = dict(cfg, group_size_m=12, split_k=1)
        gen = torch.Generator(device="cuda").manual_seed(M + N)
        per_set = (M * K + N * K + M * N) * 2
        nset = max(2, min(8, int(2 * 60e6 // per_set) + 1))
        sets = [(torch.randn(M, K, device="cuda", generator=gen).half(),
                 torch.randn(N, K, device="cuda", generator=gen).half().t()) for _ in range(nset)]
        ref = sets[0][0].float() @ sets[0][1].float()
        got = origami_nv.matmul(*sets[0], config=cfg)
        err = ((got.float() - ref).norm() / ref.norm()).item()
        assert err < 2e-3, (label, err)
        t = bench(lambda a, b: origami_nv.matmul(a, b, config=cfg), sets, args.reps)
        ctas = -(-M // bm) * -(-N // bn)
        kiter = t * 1.98e9 / (K // 64)
        a_bytes = M * K * 2
        print(f"{label:40s} {M:5d}x{N:4d} {bm}x{bn}: {t * 1e6:7.2f} us, {ctas:4d} CTAs, {kiter:6.0f} cycles per "
              f"k-iteration (at 1980 MHz), A stream {a_bytes / t / 1e12:5.2f} TB/s")
        out.append({"label": label, "M": M, "N": N, "K": K, "block_m": bm, "block_n": bn, "ctas": ctas,
                    "time_s": t, "rel_err": err})
    dest = args.json or (os.path.join(os.environ["OUT"], "probe_cta_sharing.json") if os.environ.get("OUT") else "")
    if dest:
        with open(dest, "w") as f:
            json.dump({"device": name, "rows": out}, f, indent=1)


if __name__ == "__main__":
    main()
