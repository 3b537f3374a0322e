# One-off probe (session 9, issues 12/13): the wgmma 64xBN tiles with BN not a multiple of 64 (64x48 .. 64x160,
# K-major B) against the tiles the build had before, the model's pick before them (wgmma_bn_old_picks.json, the
# committed model with those tiles removed from the table) and after, and cuBLAS; y = x @ W.t() ("nt").
#   part A: one compute-bound size (4096x4096x8192), every 64-row tile unsplit: the tensor rate per BN;
#   part B: the vs_cublas sets mid (fp16), decode (fp16), small-lm (bf16).
# CUDA-graph time per GEMM over cold rotating inputs (probe_bench.bench), medians; every output checked against
# fp32 first. Writes $OUT/wgmma_bn.jsonl (one line per timed launch) and prints a summary per shape.
# Run from the repository root after `pip install --no-build-isolation .`:
#   python3 benchmarks/results/probes/probe_wgmma_bn.py [--parts A B] [--deadline SECONDS]
import argparse, json, os, sys, time
import torch, origami_nv
here = os.path.dirname(os.path.abspath(__file__))
exec(open(os.path.join(here, "probe_bench.py")).read())  # bench(fn, sets), compiled_configs()
sys.path.insert(0, os.path.join(here, "..", ".."))
import vs_cublas

ap = argparse.ArgumentParser()
ap.add_argument("--parts", nargs="+", default=["A", "B"])
ap.add_argument("--deadline", type=float, default=1e9)
ap.add_argument("--sets", nargs="+", default=["mid", "decode", "small-lm"])
args = ap.parse_args()
t_end = time.time() + args.deadline
gpu = "H200" if "H200" in torch.cuda.get_device_name() else "H100_SXM"
old_picks = json.load(open(os.path.join(here, "wgmma_bn_old_picks.json")))
out = open(os.path.join(os.environ.get("OUT", "."), "wgmma_bn.jsonl"), "a")
BNS = (48, 64, 80, 96, 112, 128, 144, 160, 256)
DTYPE = {"mid": "float16", "decode": "float16", "small-lm": "bfloat16"}


def cfg_dict(c):
    if isinstance(c, dict):
        return dict(c)
    d = {k: getattr(c, k) for k in ("block_m", "block_n", "block_k", "group_size_m", "stages", "warps", "split_k")}
    d["family"] = str(c.family).split(".")[-1].lower()
    return d


def tag(c):
    return f"{c['family']} {c['block_m']}x{c['block_n']}x{c['block_k']}" + (f" sk{c['split_k']}" if c.get("split_k", 1) > 1 else "")


def run_shape(set_name, label, M, N, K, dtype, candidates):
    dt = getattr(torch, dtype)
    nb = max(2, int(2 * 50e6 // ((M * K + N * K) * 2)) + 1)
    sets = [(torch.randn(M, K, device="cuda").to(dt), torch.randn(N, K, device="cuda").to(dt).t()) for _ in range(min(nb, 48))]
    ref = sets[0][0].float() @ sets[0][1].float()
    cub = bench(torch.matmul, sets)
    row = {"gpu": gpu, "set": set_name, "label": label, "M": M, "N": N, "K": K, "dtype": dtype, "layout": "nt",
           "cublas_us": cub * 1e6, "t": {}}
    for name, cfg in candidates:
        key = tag(cfg)
        if key in row["t"]:
            row.setdefault("same", {})[name] = key
            continue
        o = origami_nv.matmul(*sets[0], config=cfg)
        err = ((o.float() - ref).norm() / ref.norm()).item()
        assert err < 2e-3, (M, N, K, cfg, err)
        row["t"][key] = bench(lambda a, b: origami_nv.matmul(a, b, config=cfg), sets) * 1e6
        row.setdefault("role", {})[name] = key
        if name in ("old", "new"):
            row.setdefault("same", {})[name] = key
    out.write(json.dumps(row) + "\n"); out.flush()
    return row


recs = {dt: compiled_configs(dt) for dt in ("float16", "bfloat16")}


def tiles(dtype, bms=(64,)):
    return [(f"t{bm}x{bn}", dict(recs[dtype][(bm, bn, 64, "wgmma")], group_size_m=8, split_k=1))
            for bm in bms for bn in BNS if (bm, bn, 64, "wgmma") in recs[dtype]]


if "A" in args.parts:
    M, N, K = 4096, 4096, 8192
    cands = tiles("float16", (64, 128))
    r = run_shape("rate", "square", M, N, K, "float16", cands)
    print(f"A {M}x{N}x{K}: cuBLAS {2 * M * N * K / r['cublas_us'] / 1e6:.0f} TFLOP/s; " +
          "; ".join(f"{k} {2 * M * N * K / v / 1e6:.0f}" for k, v in r["t"].items()), flush=True)

if "B" in args.parts:
    sets = vs_cublas.shape_sets()
    for set_name in args.sets:
        dtype = DTYPE[set_name]
        for label, M, N, K, layout, *rest in sets[set_name]:
            if time.time() > t_end:
                print("deadline reached", flush=True); break
            new = cfg_dict(origami_nv.select(M, N, K, dtype, layout="nt"))
            old = old_picks[f"{gpu} {dtype} {M}x{N}x{K} nt"]
            cands = [("new", new), ("old", old)] + tiles(dtype, (64,))
            r = run_shape(set_name, label, M, N, K, dtype, cands)
            t = r["t"]; best = min(t, key=t.get)
            print(f"{set_name:8s} {M:5d}x{N:6d}x{K:6d} cuBLAS {r['cublas_us']:7.1f} | new {r['same']['new']:22s} "
                  f"{r['cublas_us'] / t[r['same']['new']]:.3f} | old {r['same']['old']:22s} {r['cublas_us'] / t[r['same']['old']]:.3f}"
                  f" | best {best} {r['cublas_us'] / t[best]:.3f}", flush=True)
