#!/usr/bin/env python3
"""The model's pick through origami_nv.matmul against torch.matmul (cuBLAS), over named shape sets.

    python benchmarks/vs_cublas.py [--sets decode mid longk odd shortk seed squares] [--dtypes float16 float32] [--rounds 4]
                                   [--out benchmarks/results/vs_cublas_h100]

Sets (issues 12 and 13; the projection shapes are y = x @ W.t(), W of shape (N, K): layout "nt"):
  decode  M = 1, 4, 16 on the q, kv, o, gate/up, down projections of four public model families
  mid     M = 32, 64, 128, 256, 512 on the same projections
  longk   long K with few output tiles: 768x768x65536, 1024x1024x32768, 128x4096x14336, 256x256x65536
  odd     the `odd` suite (sizes that are not multiples of 16 or 128), both operands row-major
  shortk  short K, large M and N: 16384x16384x256, 8192x8192x128, 4096x16384x512
  seed    the 23 sizes of seed 000 table 7.2, both operands row-major
  squares 4096^3 and 8192^3 (issue 15's fp32 targets: --dtypes float32 against exact cuBLAS SGEMM, TF32 off;
          --dtypes tfloat32: float32 tensors with TF32 allowed, against cuBLAS's TF32 path)
  squares-nt the same in the nn.Linear layout x @ w.t() (what the wgmma tf32 kernels read without a copy)
  batched the `batched` suite: torch.bmm as models run it, eager attention (Q K^T and P V per head at prefill and
          decode) and MoE expert GEMMs with equal tokens per expert
  unseen  shape classes no suite of the project holds and no fit has read (issue 11's "work we have not seen"):
          LoRA adapters (rank 16 / 64 on a 4096 hidden: N = r and K = r), MoE routers (N = 8..256 experts), ViT
          encoders (odd token counts 197 / 577 / 6304), the backward GEMMs of a Llama-3-8B layer at 2048 tokens
          (weight gradients dY^T X: "tn"; input gradients dY W: "nn"), K <= 64 and N <= 2 heads
  small-lm the `small-lm` suite: Llama-3.2-1B, Qwen2.5-0.5B/1.5B projections and lm_head at M = 1, 8 (use
          --dtypes bfloat16, the dtype those models run in)
  gen-test the `gen-test` suite (issue 11's third set, drawn after every fit: families, token counts and a seed no
          other set has), each shape in its own dtype and layout (--dtypes does not apply)
  gen-holdout the `gen-holdout` suite (a fourth set, drawn 2026-11-29 after every fit, scan and kernel probe), the
          same way; so are the other 16-bit generalisation sets (gen-train, gen-mid-train, gen-valid, gen-mid-valid)

--top N also times the model's N best-ranked launches (origami_nv.rank, split-K variants included; each checked,
timed once after the head-to-head rounds) and reports the best of them and the pick against cuBLAS: where the best
of the ranking is far ahead of the pick the selection lost time, where it is behind cuBLAS too the kernels did.

Method (benchmarks/METHOD.md): the A/BF harness's cold inputs (CUDA-graph replays over rotated copies of
the operands, >= 2x L2) and medians; every function checked against an fp32 reference before it is timed
and the output of the timed graph again after; `rounds` rounds with the order of the two alternated
(cuBLAS first in even rounds), the ratio of a shape = the median over rounds of cuBLAS time / ours. The
pick is what the op would launch for these tensors (torch.ops.origami_nv.select_config with the batch, layout and
the operands' alignment: configs.operand_alignment), the split-K slices included.
"""
from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
import time
from pathlib import Path

# Projection shapes (N, K) of public model families, from their published config.json (hidden_size,
# num_attention_heads x head_dim, num_key_value_heads, intermediate_size); kv = the fused k and v
# projections (2 x kv_heads x head_dim), gate/up one of the two MLP input projections.
FAMILIES = {
    # meta-llama/Meta-Llama-3-8B: hidden 4096, 32 x 128 heads, 8 kv heads, intermediate 14336
    "llama3-8b": {"q,o": (4096, 4096), "kv": (2048, 4096), "gate/up": (14336, 4096), "down": (4096, 14336)},
    # Qwen/Qwen2.5-7B: hidden 3584, 28 x 128 heads, 4 kv heads, intermediate 18944
    "qwen2.5-7b": {"q,o": (3584, 3584), "kv": (1024, 3584), "gate/up": (18944, 3584), "down": (3584, 18944)},
    # microsoft/Phi-3-mini-4k-instruct: hidden 3072, 32 x 96 heads, 32 kv heads (fused qkv 9216),
    # intermediate 8192 (fused gate_up 16384)
    "phi3-mini": {"qkv": (9216, 3072), "o": (3072, 3072), "gate_up": (16384, 3072), "down": (3072, 8192)},
    # meta-llama/Meta-Llama-3-70B: hidden 8192, 64 x 128 heads, 8 kv heads, intermediate 28672
    "llama3-70b": {"q,o": (8192, 8192), "kv": (2048, 8192), "gate/up": (28672, 8192), "down": (8192, 28672)},
}

def _projections():
    for fam, shapes in FAMILIES.items():
        for proj, (n, k) in shapes.items():
            yield f"{fam} {proj}", n, k


def shape_sets() -> dict:
    """name -> [(label, M, N, K, layout, batch)]."""
    from origami_nv.bench.configs import _operand_copied
    from origami_nv.bench.suites import BATCHED_SIZES, ODD_SIZES, SEED_SIZES, SMALL_LM_SIZES, SUITES, UNSEEN_SIZES
    sets = {
        "seed": [("seed", m, n, k, "nn") for m, n, k in SEED_SIZES],
        "squares": [("square", n, n, n, "nn") for n in (4096, 8192)],
        "squares-nt": [("square", n, n, n, "nt") for n in (4096, 8192)],
        "decode": [(lab, m, n, k, "nt") for lab, n, k in _projections() for m in (1, 4, 16)],
        "mid": [(lab, m, n, k, "nt") for lab, n, k in _projections() for m in (32, 64, 128, 256, 512)],
        # prefill of 512 tokens at batch 1 and 8 (benchmarks/e2e_llama.py's TTFT configurations)
        "prefill": [(lab, m, n, k, "nt") for lab, n, k in _projections() for m in (512, 4096)],
        # the other two TTFT configurations there: prefill of 2048 tokens at batch 1 and 8
        "prefill-long": [(lab, m, n, k, "nt") for lab, n, k in _projections() for m in (2048, 16384)],
        "longk": [("long K", m, n, k, "nn") for m, n, k in
                  ((768, 768, 65536), (1024, 1024, 32768), (128, 4096, 14336), (256, 256, 65536))],
        "odd": [("odd", m, n, k, "nn") for m, n, k in ODD_SIZES],
        "shortk": [("short K", m, n, k, "nn") for m, n, k in ((16384, 16384, 256), (8192, 8192, 128), (4096, 16384, 512))],
        "batched": [(lab, m, n, k, lay, b) for lab, b, m, n, k, lay in BATCHED_SIZES],
        "small-lm": [(lab, m, n, k, "nt") for lab, m, n, k in SMALL_LM_SIZES],
        "unseen": [(lab, m, n, k, lay) for lab, m, n, k, lay in UNSEEN_SIZES],
        # every generalisation set (gen-train, gen-mid-train, gen-valid, gen-test, gen-holdout, ...), each shape in
        # its own dtype and layout
        **{name: [(s.label, s.M, s.N, s.K, s.layout, s.batch, s.dtype) for s in suite.sizes]
           for name, suite in SUITES.items() if name.startswith("gen-") and "fp32" not in name},
        # the 16-bit generalisation sets' shapes with an operand the op copies (rows off the 16-byte rule), once each
        "misaligned": sorted({(s.label, s.M, s.N, s.K, s.layout, s.batch, s.dtype)
                              for name, suite in SUITES.items() if name.startswith("gen-") and "fp32" not in name
                              for s in suite.sizes
                              if _operand_copied(dict(M=s.M, N=s.N, K=s.K, dtype=s.dtype, layout=s.layout,
                                                      batch=s.batch), {})}, key=lambda t: t[1:4]),
    }
    # (label, M, N, K, layout, batch, dtype or None: the --dtypes)
    return {name: [t + (1, None)[len(t) - 5:] for t in shapes] for name, shapes in sets.items()}


def _geomean(v):
    v = [x for x in v if x and x > 0 and math.isfinite(x)]
    return math.exp(sum(math.log(x) for x in v) / len(v)) if v else math.nan


def _cfg_str(c: dict) -> str:
    sk = f" sk{c['split_k']}" if c.get("split_k", 1) > 1 else ""
    return f"{c['family']} {c['block_m']}x{c['block_n']}x{c['block_k']}{sk}" + (" ab" if c.get("swap_ab") else "")


def _time_ranking(h, ctx, size, top: int) -> list[dict]:
    """The model's `top` best-ranked launches of this problem through origami_nv.matmul(config=...), each checked
    against the fp32 reference and timed once (the harness's median of repeats)."""
    import origami_nv
    from origami_nv.bench.configs import operand_alignment
    out = []
    al = operand_alignment(size.M, size.N, size.K, size.layout, size.dtype, size.batch)  # what the op copies first
    for rc in origami_nv.rank(size.M, size.N, size.K, top=top, dtype=size.dtype, batch=size.batch,
                              layout=size.layout, **al):
        c = rc.config.to_dict()

        def fn(a, b, _cfg=rc.config):
            return origami_nv.matmul(a, b, config=_cfg)
        err = h.check(ctx, fn)
        if not err <= ctx.tolerance:
            raise SystemExit(f"{_cfg_str(c)} {size.key}: relative error {err:.3g} > {ctx.tolerance}")
        out.append({"config": _cfg_str(c), "rank": rc.rank, "predicted_us": rc.predicted_us,
                    "us": h.time(ctx, fn).time_s * 1e6})
    return out


def _summary(rows: list[dict]) -> dict:
    summary = {}
    groups = list(dict.fromkeys((r["set"], r["dtype"]) for r in rows))
    if len(groups) > 1:
        groups.append(("all", "all"))
    for key in groups:
        sel = [r for r in rows if (r["set"], r["dtype"]) == key or key == ("all", "all")]
        rs = [r["ratio"] for r in sel]
        st = {"shapes": len(rs), "geomean": _geomean(rs), "min": min(rs),
              "below_0.85": sum(1 for x in rs if x < 0.85), "below_0.95": sum(1 for x in rs if x < 0.95)}
        tops = [r["best_of_top"] for r in sel if "best_of_top" in r]
        if tops:
            st["best_of_top_geomean"] = _geomean([t["cublas_over_best"] for t in tops])
            st["pick_over_best_geomean"] = _geomean([t["pick_over_best"] for t in tops])
        summary[" ".join(key)] = st
    return summary


def _write(args, argv, dev, harness, rows: list[dict], meta: dict | None = None) -> None:
    summary = _summary(rows)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    if meta is None:
        meta = {"device": dev, "rounds": args.rounds, "repeats": args.repeats, "top": args.top,
                "timing": harness.timing_description(),
                "date_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                "command": "python benchmarks/vs_cublas.py " + " ".join(argv if argv is not None else sys.argv[1:])}
    out.with_suffix(".json").write_text(json.dumps({"meta": meta, "summary": summary, "rows": rows}, indent=1))
    top = args.top > 0
    lines = ["# origami_nv.matmul (the model's pick) vs torch.matmul (cuBLAS)", "",
             f"Device: {dev.get('device_name', '?')}; {meta['date_utc']}; `{meta['command']}`. Method: the "
             "docstring of benchmarks/vs_cublas.py (cold inputs, CUDA graphs, order alternated, medians; "
             "ratio = cuBLAS time / ours, > 1 is faster than cuBLAS)."
             + (f" best = the fastest of the model's {args.top} best-ranked launches, each timed once." if top else ""),
             "", "| set | dtype | shapes | geomean | min | below 0.85 | below 0.95 |"
             + (" best / cuBLAS | pick / best |" if top else ""),
             "|---|---|---:|---:|---:|---:|---:|" + ("---:|---:|" if top else "")]
    for k, st in summary.items():
        name, dtype = k.split(" ")
        lines.append(f"| {name} | {dtype} | {st['shapes']} | {st['geomean']:.3f} | {st['min']:.3f} | "
                     f"{st['below_0.85']} | {st['below_0.95']} |"
                     + (f" {st.get('best_of_top_geomean', math.nan):.3f} | "
                        f"{st.get('pick_over_best_geomean', math.nan):.3f} |" if top else ""))
    lines += ["", "| set | shape | batch | M | N | K | layout | dtype | pick | cuBLAS us | origami us | ratio |"
              + (" best | best us | pick / best |" if top else ""),
              "|---|---|---:|---:|---:|---:|---|---|---|---:|---:|---:|" + ("---|---:|---:|" if top else "")]
    for r in rows:
        b = r.get("best_of_top")
        lines.append(f"| {r['set']} | {r['label']} | {r['batch']} | {r['M']} | {r['N']} | {r['K']} | {r['layout']} "
                     f"| {r['dtype']} | {_cfg_str(r['pick'])} | {r['cublas_us']:.1f} | {r['origami_us']:.1f} | "
                     f"{r['ratio']:.3f} |"
                     + ((f" {b['config']} | {b['us']:.1f} | {b['pick_over_best']:.3f} |" if b else " | | |")
                        if top else ""))
    out.with_suffix(".md").write_text("\n".join(lines) + "\n")


def _merge(args, argv) -> int:
    """The shards' rows in one table (each shard's rows as measured: nothing is re-timed); the meta of the first,
    its command naming the shards merged. Shards of different devices or options are refused."""
    docs = [json.loads(Path(f).read_text()) for f in args.merge]
    keys = ("rounds", "repeats", "top")
    first = docs[0]["meta"]
    for f, d in zip(args.merge, docs):
        m = d["meta"]
        if m["device"].get("device_name") != first["device"].get("device_name") or any(m[k] != first[k] for k in keys):
            raise SystemExit(f"{f}: another device or other options than {args.merge[0]}; not merged")
    meta = dict(first, command=" + ".join(d["meta"]["command"] for d in docs) + " (shards merged)")
    args.rounds, args.repeats, args.top = (first[k] for k in keys)
    rows = [r for d in docs for r in d["rows"]]
    _write(args, argv, first["device"], None, rows, meta)
    for k, st in _summary(rows).items():
        print(f"{k:20s} {st['shapes']:3d} shapes  geomean {st['geomean']:.3f}  min {st['min']:.3f}")
    return 0


def main(argv=None) -> int:
    sets = shape_sets()
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sets", nargs="+", default=["decode", "mid", "longk"], choices=sorted(sets))
    ap.add_argument("--dtypes", nargs="+", default=["float16"], choices=["float16", "bfloat16", "float32", "tfloat32"],
                    help="tfloat32: float32 tensors with torch's TF32 switch on (both sides), issue 15")
    ap.add_argument("--rounds", type=int, default=4)
    ap.add_argument("--repeats", type=int, default=5, help="timed samples per function and round")
    ap.add_argument("--out", default=None, help="write OUT.json and OUT.md (rewritten after every shape)")
    ap.add_argument("--top", type=int, default=0, help="also time the model's N best-ranked launches")
    ap.add_argument("--shard", default=None, help="i/n: every n-th shape of the sets from the i-th (0-based)")
    ap.add_argument("--merge", nargs="+", default=None, metavar="JSON",
                    help="no GPU: merge the OUT.json files of shards of one run (same device and options) into --out")
    args = ap.parse_args(argv)
    if args.merge:
        if not args.out:
            ap.error("--merge needs --out")
        return _merge(args, argv)
    if args.rounds < 2:
        ap.error("--rounds must be >= 2 (the order alternates between rounds)")

    import torch

    import origami_nv
    from origami_nv.bench.configs import normalize, operand_alignment
    from origami_nv.bench.suites import Size
    from origami_nv.bench.timing import CudaHarness, HarnessOptions, checked_and_interleaved

    # One harness: each size carries its own layout (nn, nt, tn, tt), which the harness builds its operands in.
    harness = CudaHarness(HarnessOptions(repeats=args.repeats))
    ops = origami_nv.ops.load_op()
    dev = harness.device_info()
    rows = []
    t_start = time.time()
    from origami_nv.bench.suites import parse_shard
    shard_i, shard_n = parse_shard(args.shard)
    todo = [(name, t) for name in args.sets for t in sets[name]][shard_i::shard_n]
    for set_name in args.sets:
        for label, M, N, K, layout, batch, own_dtype in [t for name, t in todo if name == set_name]:
            for dtype in ([own_dtype] if own_dtype else args.dtypes):
                h = harness
                size = Size(M, N, K, dtype, label, batch, layout)
                ctx = h.prepare(size)
                # (with the operands' alignment, as matmul selects: 127x129x130 nn reads both misaligned operands
                # in place with a 16x16 realigning mma.sync kernel, labelled wgmma 64x64 without it)
                al = operand_alignment(M, N, K, layout, dtype, batch)
                pick = normalize(list(ops.select_config(M, N, K, dtype, batch, layout, False, al["a_aligned"],
                                                        al["b_aligned"])))
                fns = {"cublas": h.cublas_fn(), "origami": origami_nv.matmul}
                rounds = checked_and_interleaved(h, ctx, fns, args.rounds)
                top = _time_ranking(h, ctx, size, args.top) if args.top > 0 else []
                h.release(ctx)
                cub = statistics.median(x["cublas_s"] for x in rounds)
                ori = statistics.median(x["origami_s"] for x in rounds)
                ratio = statistics.median(x["ratio"] for x in rounds)
                row = {"set": set_name, "label": label, "batch": batch, "M": M, "N": N, "K": K, "layout": layout,
                       "dtype": dtype,
                       "pick": pick, "cublas_us": cub * 1e6, "origami_us": ori * 1e6,
                       "cublas_tflops": size.flops / cub / 1e12, "origami_tflops": size.flops / ori / 1e12,
                       "ratio": ratio, "rounds": rounds,
                       # relative Frobenius error vs the fp32 (fp64 for float32 storage) reference, each side
                       "rel_err": {n: rounds[0][f"{n}_rel_err"] for n in ("cublas", "origami")}}
                if top:
                    best = min(top, key=lambda t: t["us"])
                    row["top"] = top
                    row["best_of_top"] = {"config": best["config"], "us": best["us"],
                                          "cublas_over_best": cub * 1e6 / best["us"],
                                          "pick_over_best": min(1.0, best["us"] / (ori * 1e6))}
                rows.append(row)
                bs = f"{batch}x " if batch > 1 else ""
                print(f"{set_name:7s} {label:20s} {bs}{M:>6}x{N:>6}x{K:>6} {layout} {dtype:8s} cuBLAS {cub * 1e6:9.1f} us"
                      f"  origami {ori * 1e6:9.1f} us  ratio {ratio:.3f}  pick {_cfg_str(pick)}"
                      f"  rel err {row['rel_err']['origami']:.2e} (cuBLAS {row['rel_err']['cublas']:.2e})", flush=True)
                if top:
                    b = row["best_of_top"]
                    print(f"        best of the top {len(top)}: {b['config']} {b['us']:.1f} us  cuBLAS/best "
                          f"{b['cublas_over_best']:.3f}  best/pick {b['pick_over_best']:.3f}", flush=True)
                if args.out:
                    _write(args, argv, dev, harness, rows)
            torch.cuda.empty_cache()

    summary = _summary(rows)
    for k, st in summary.items():
        print(f"{k:20s} {st['shapes']:3d} shapes  geomean {st['geomean']:.3f}  min {st['min']:.3f}  "
              f"below 0.85: {st['below_0.85']}  below 0.95: {st['below_0.95']}", flush=True)
    print(f"total {time.time() - t_start:.0f} s")
    if args.out:
        _write(args, argv, dev, harness, rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
