#!/usr/bin/env python3
"""One-off probe (fifteenth session, issue 14): do our decode GEMMs cost more inside a model's kernel stream than
back to back? The A/BF and A/cuBLAS harness times a graph of the same GEMM repeated (with programmatic dependent
launch each launch's set-up overlaps the previous GEMM); in a decode step most GEMMs follow an element-wise kernel.

For each GEMM of a Llama-3.2-1B decode layer (batch 1 and 8: x @ W^T, W of 16 distinct layers, so weights stream
from DRAM as in the model) three CUDA graphs per system (cuBLAS = F.linear, ours = origami_nv.matmul(x, W.t()),
ours without PDL):
  b2b   16 GEMMs back to back
  ctx   16 x (an element-wise kernel writing the GEMM's input, then the GEMM)
  ew    the 16 element-wise kernels alone
and a whole synthetic decode step (16 layers: rmsnorm, q/k/v, a stand-in for attention, o, residual, rmsnorm,
gate/up, silu * up, down, residual; then the lm head). Replays alternate the systems in rounds; medians of the
per-round times. Each system's output is checked against cuBLAS's first.
    python benchmarks/results/probes/probe_decode_context.py [--rounds 15] [--batches 1,8] [--out F.json]
"""
import argparse
import json
import os
import statistics
import sys

import torch
import torch.nn.functional as Fn

import origami_nv

HIDDEN, INTER, KV, VOCAB, LAYERS = 2048, 8192, 512, 128256, 16
SHAPES = {"q/o": (HIDDEN, HIDDEN), "k/v": (KV, HIDDEN), "gate/up": (INTER, HIDDEN), "down": (HIDDEN, INTER)}


def lin_cublas(x, w):
    return Fn.linear(x, w)


def lin_ours(x, w):
    return origami_nv.matmul(x, w.t())


def graph_of(fn):
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        for _ in range(2):
            fn()
    torch.cuda.current_stream().wait_stream(s)
    torch.cuda.synchronize()
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        out = fn()
    return g, out


def time_graph(g, reps=20):
    a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    g.replay()
    a.record()
    for _ in range(reps):
        g.replay()
    b.record()
    b.synchronize()
    return a.elapsed_time(b) / reps * 1e3  # us per replay


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=15)
    ap.add_argument("--batches", default="1,8")
    ap.add_argument("--out", default="")
    ap.add_argument("--systems", default="cublas,ours,ours_nopdl")
    args = ap.parse_args()
    torch.manual_seed(0)
    dev = "cuda"
    dt = torch.bfloat16
    result = {"device": torch.cuda.get_device_name(), "rows": []}
    systems = {"cublas": (lin_cublas, True), "ours": (lin_ours, True), "ours_nopdl": (lin_ours, False)}
    systems = {k: v for k, v in systems.items() if k in args.systems.split(",") or k == "cublas"}

    for batch in [int(b) for b in args.batches.split(",")]:
        graphs = {}
        keep = []
        for name, (n_out, n_in) in SHAPES.items():
            ws = [torch.randn(n_out, n_in, device=dev, dtype=dt) / n_in ** 0.5 for _ in range(LAYERS)]
            xs = [torch.randn(batch, n_in, device=dev, dtype=dt) for _ in range(LAYERS)]
            src = torch.randn(batch, n_in, device=dev, dtype=dt)
            keep.append((ws, xs, src))  # a graph does not keep its inputs alive
            for sysname, (lin, pdl) in systems.items():
                with origami_nv.programmatic_dependent_launch(pdl):
                    def b2b(lin=lin, ws=ws, xs=xs):
                        return [lin(xs[i], ws[i]) for i in range(LAYERS)]

                    def ctx(lin=lin, ws=ws, xs=xs):
                        outs = []
                        for i in range(LAYERS):
                            torch.mul(src, 1.0 + i, out=xs[i])  # the GEMM's input, written just before it
                            outs.append(lin(xs[i], ws[i]))
                        return outs

                    def ew(ws=ws, xs=xs):
                        for i in range(LAYERS):
                            torch.mul(src, 1.0 + i, out=xs[i])
                        return xs
                    for kind, fn in (("b2b", b2b), ("ctx", ctx), ("ew", ew)):
                        if kind == "ew" and sysname != "cublas":
                            continue
                        g, out = graph_of(fn)
                        graphs[(name, sysname, kind)] = (g, out)
            # correctness: ours vs cuBLAS on the ctx outputs
            graphs[(name, "cublas", "ctx")][0].replay()
            torch.cuda.synchronize()
            ref = [o.float().clone() for o in graphs[(name, "cublas", "ctx")][1]]
            for sysname in [s for s in systems if s != "cublas"]:
                graphs[(name, sysname, "ctx")][0].replay()
                torch.cuda.synchronize()
                err = max(((o.float() - r).abs().max() / r.abs().max()).item()
                          for o, r in zip(graphs[(name, sysname, "ctx")][1], ref))
                if err > 1e-2:  # relative to the output's largest magnitude (bf16 rounding, fp32 accumulation)
                    raise SystemExit(f"{name} batch {batch} {sysname}: max abs diff {err:.3g} of the largest |output| vs cuBLAS")
        # the whole synthetic step
        W = {n: [torch.randn(o, i, device=dev, dtype=dt) / i ** 0.5 for _ in range(LAYERS)]
             for n, (o, i) in (("q", (HIDDEN, HIDDEN)), ("k", (KV, HIDDEN)), ("v", (KV, HIDDEN)), ("o", (HIDDEN, HIDDEN)),
                               ("g", (INTER, HIDDEN)), ("u", (INTER, HIDDEN)), ("d", (HIDDEN, INTER)))}
        lm = torch.randn(VOCAB, HIDDEN, device=dev, dtype=dt) / HIDDEN ** 0.5
        x0 = torch.randn(batch, HIDDEN, device=dev, dtype=dt)

        def rms(x):
            xf = x.float()
            return (xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + 1e-5)).to(dt)

        def step(lin):
            x = x0
            for i in range(LAYERS):
                h = rms(x)
                q, k, v = lin(h, W["q"][i]), lin(h, W["k"][i]), lin(h, W["v"][i])
                a = q * torch.sigmoid(q) + (k.sum(-1, keepdim=True) + v.sum(-1, keepdim=True)) * 1e-3
                x = x + lin(a, W["o"][i])
                h = rms(x)
                m = Fn.silu(lin(h, W["g"][i])) * lin(h, W["u"][i])
                x = x + lin(m, W["d"][i])
            return lin(rms(x), lm)
        for sysname, (lin, pdl) in systems.items():
            with origami_nv.programmatic_dependent_launch(pdl):
                graphs[("step", sysname, "step")] = graph_of(lambda lin=lin: step(lin))
        graphs[("step", "cublas", "step")][0].replay()
        torch.cuda.synchronize()
        sref = graphs[("step", "cublas", "step")][1].float().clone()
        for sysname in [s for s in systems if s != "cublas"]:
            graphs[("step", sysname, "step")][0].replay()
            torch.cuda.synchronize()
            err = (graphs[("step", sysname, "step")][1].float() - sref).abs().max().item()
            print(f"batch {batch} step {sysname}: max |logits - cuBLAS| = {err:.3g}")

        for k in graphs:  # each graph alone first: a fault names its graph
            graphs[k][0].replay()
            try:
                torch.cuda.synchronize()
            except Exception as e:
                raise SystemExit(f"batch {batch}: replaying graph {k} failed: {e}")
            print("ok", k, flush=True)
        times = {k: [] for k in graphs}
        keys = list(graphs)
        for r in range(args.rounds):
            for k in (keys if r % 2 == 0 else keys[::-1]):
                times[k].append(time_graph(graphs[k][0]))
        med = {k: statistics.median(v) for k, v in times.items()}
        print(f"\n== batch {batch} ({result['device']}), us per graph (16 launches each; step = one decode step)")
        print(f"{'GEMM':8s} {'system':11s} {'b2b/GEMM':>9s} {'ctx/GEMM':>9s} {'ctx-ew/GEMM':>11s} {'vs cuBLAS b2b':>13s} {'vs cuBLAS ctx-ew':>16s}")
        for name in SHAPES:
            ew = med[(name, "cublas", "ew")] / LAYERS
            cb_b2b = med[(name, "cublas", "b2b")] / LAYERS
            cb_ctx = med[(name, "cublas", "ctx")] / LAYERS - ew
            for sysname in systems:
                b2b = med[(name, sysname, "b2b")] / LAYERS
                ctx = med[(name, sysname, "ctx")] / LAYERS
                print(f"{name:8s} {sysname:11s} {b2b:9.2f} {ctx:9.2f} {ctx - ew:11.2f} {cb_b2b / b2b:13.3f} {cb_ctx / (ctx - ew):16.3f}")
                result["rows"].append(dict(batch=batch, gemm=name, system=sysname, b2b_us=b2b, ctx_us=ctx, ew_us=ew))
        for sysname in systems:
            t = med[("step", sysname, "step")]
            print(f"step     {sysname:11s} {t:9.1f} us   cuBLAS/this {med[('step', 'cublas', 'step')] / t:.3f}")
            result["rows"].append(dict(batch=batch, gemm="step", system=sysname, step_us=t))
    out = args.out or (os.path.join(os.environ["OUT"], "probe_decode_context.json") if os.environ.get("OUT") else "")
    if out:
        with open(out, "w") as f:
            json.dump(result, f, indent=1)


if __name__ == "__main__":
    sys.exit(main())
