# One-off probe (twenty-first session, issue 13): a launch whose last wave is partial, run as two launches instead:
# the whole waves with the tile T1 on the first M1 rows (or N1 columns), and the rest of C with the tile the model
# picks for that smaller problem (a wave of smaller tiles instead of a partial wave of large ones). No kernel change:
# two origami_nv.matmul calls on row (column) slices of A (B), in one CUDA graph. Compared with the best single launch
# of the same run (the model's pick, every tile of the list unsplit and the model's split candidates) and cuBLAS.
# Run from the repository root after `pip install --no-build-isolation .`:
#   python3 benchmarks/results/probes/probe_wave_fill.py TAG > out.txt
# Timing: probe_bench.bench (CUDA graph over rotating cold inputs > 2x L2, median of 15 replays), two rounds in
# alternating order, the mean of the two medians; every output checked against fp32 first.
import sys
import torch
import origami_nv

exec(open(__file__.replace("probe_wave_fill.py", "probe_bench.py")).read())  # bench(fn, sets), compiled_configs()
tag = sys.argv[1] if len(sys.argv) > 1 else "gpu"
SMS = torch.cuda.get_device_properties(0).multi_processor_count
recs = compiled_configs("float16")
# (M, N, K, layout): shapes of the reports whose best compiled kernel trails cuBLAS, plus partial-wave projections
shapes = [(6304, 768, 768, "nt"), (6304, 768, 3072, "nt"), (6304, 2304, 768, "nt"), (577, 4096, 1024, "nt"),
          (577, 1024, 4096, "nt"), (795, 722, 300, "nn"), (1455, 814, 204, "nn"), (262, 25408, 4736, "nt"),
          (159, 19008, 9792, "nn"), (1024, 1024, 4096, "nt"), (2560, 256, 7232, "nn"), (1216, 1216, 3136, "nn"),
          (5056, 320, 1856, "nt"), (2048, 5120, 5120, "nt"), (3000, 3000, 3000, "nn"), (1024, 5120, 5120, "nt"),
          (512, 4096, 14336, "nt"), (2000, 7168, 2048, "nt")]
FIRST = [(128, 256), (256, 128), (128, 192), (128, 128), (128, 96), (128, 112), (128, 144), (64, 256)]


def cfg_of(sel):
    d = {k: getattr(sel, k) for k in ("block_m", "block_n", "block_k", "group_size_m", "stages", "warps", "family",
                                      "split_k")}
    return d


def name(d):
    return f"{d['family'][:2]} {d['block_m']}x{d['block_n']}" + (f" sk{d['split_k']}" if d.get("split_k", 1) > 1 else "")


def rel_err(out, ref):
    return ((out.float() - ref).norm() / ref.norm()).item()


for M, N, K, layout in shapes:
    nb = max(2, int(2 * 50e6 // ((M * K + N * K + M * N) * 2)) + 1)
    if layout == "nt":
        sets = [(torch.randn(M, K, device="cuda").half(), torch.randn(N, K, device="cuda").half().t())
                for _ in range(min(nb, 48))]
    else:
        sets = [(torch.randn(M, K, device="cuda").half(), torch.randn(K, N, device="cuda").half())
                for _ in range(min(nb, 48))]
    a0, b0 = sets[0]
    ref = a0.float() @ b0.float()
    fns = {"cublas": (torch.matmul, None)}
    pick = cfg_of(origami_nv.select(M, N, K, "float16", layout=layout))
    fns["pick " + name(pick)] = (None, pick)
    for bm, bn in FIRST:
        key = (bm, bn, 64, "wgmma")
        if key not in recs:
            continue
        c1 = dict(recs[key], group_size_m=8, split_k=1)
        fns["single " + name(c1)] = (None, c1)
        tm, tn = -(-M // bm), -(-N // bn)
        waves = (tm * tn) // SMS
        if waves < 1 or (tm * tn) % SMS == 0:
            continue
        # rows: whole tile rows that fit the whole waves; columns: whole tile columns
        for axis in ("m", "n"):
            if axis == "m":
                r1 = (waves * SMS // tn) * bm
                if r1 <= 0 or r1 >= M:
                    continue
                tail = cfg_of(origami_nv.select(M - r1, N, K, "float16", layout=layout))
                fns[f"fill-m {name(c1)} {r1} + {name(tail)}"] = ("m", r1, c1, tail)
            else:
                c1n = (waves * SMS // tm) * bn
                if c1n <= 0 or c1n >= N:
                    continue
                tail = cfg_of(origami_nv.select(M, N - c1n, K, "float16", layout=layout))
                fns[f"fill-n {name(c1)} {c1n} + {name(tail)}"] = ("n", c1n, c1, tail)

    def make(v):
        if v[0] is torch.matmul:
            return torch.matmul
        if v[0] is None:
            cfg = v[1]
            return lambda a, b: origami_nv.matmul(a, b, config=cfg)
        axis, cut, c1, c2 = v
        if axis == "m":
            return lambda a, b: (origami_nv.matmul(a[:cut], b, config=c1), origami_nv.matmul(a[cut:], b, config=c2))
        return lambda a, b: (origami_nv.matmul(a, b[:, :cut], config=c1), origami_nv.matmul(a, b[:, cut:], config=c2))

    ok = {}
    for k, v in fns.items():
        f = make(v)
        try:
            out = f(a0, b0)
        except RuntimeError as e:  # a tile without this layout's kernel, etc.
            print(f"{tag} {M}x{N}x{K} {layout} {k}: skipped ({str(e)[:80]})")
            continue
        if isinstance(out, tuple):
            out = torch.cat(out, dim=0 if v[0] == "m" else 1)
        assert rel_err(out, ref) < 2e-3, (M, N, K, k, rel_err(out, ref))
        ok[k] = f
    times = {k: [] for k in ok}
    order = list(ok)
    for rnd in range(2):
        for k in (order if rnd == 0 else order[::-1]):
            times[k].append(bench(ok[k], sets) * 1e6)
    med = {k: sum(v) / len(v) for k, v in times.items()}
    cub = med.pop("cublas")
    singles = {k: v for k, v in med.items() if not k.startswith("fill")}
    fills = {k: v for k, v in med.items() if k.startswith("fill")}
    bs = min(singles.items(), key=lambda kv: kv[1])
    bf = min(fills.items(), key=lambda kv: kv[1]) if fills else ("-", float("inf"))
    print(f"{tag} {M}x{N}x{K} {layout} cublas {cub:.2f} | best single {bs[0]} {bs[1]:.2f} ({cub / bs[1]:.3f}x) | "
          f"best fill {bf[0]} {bf[1]:.2f} ({cub / bf[1]:.3f}x, {bs[1] / bf[1]:.3f} of single)", flush=True)
    for k in sorted(med, key=med.get):
        print(f"{tag}   {M}x{N}x{K} {k} {med[k]:.2f}", flush=True)
