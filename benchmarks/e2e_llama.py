#!/usr/bin/env python3
"""End-to-end: a Llama-architecture model on cuBLAS (torch as is) vs origami_nv (the drop-in switch), same run.

    python benchmarks/e2e_llama.py --out benchmarks/results/e2e_llama_h100 \\
        [--presets llama-3.2-1b,llama-3.2-3b,llama-3-8b] [--batches 1,8] [--prefill 512,2048] [--decode 128] \\
        [--modes eager,compile] [--variants cublas,switch] [--dtype bfloat16] [--reps 3] [--budget-s 480]

The model is transformers' LlamaForCausalLM built from a preset config (the published config.json of the
named model; random weights, std = config.initializer_range; nothing is downloaded), SDPA attention, a
StaticCache of prefill + decode tokens. Per configuration (preset, dtype, batch, prefill length, mode):

  time to first token (TTFT)  one prefill forward of `prefill` tokens per sequence through the LM head of the
                              last position (logits_to_keep=1), wall time with the GPU synchronised;
  decode tokens/s             `decode` single-token steps with the KV cache, batch * decode / wall time;
  max |logits diff|           origami vs cuBLAS over the prefill's last position and every decode step,
                              with max |logits| and the top-1 agreement beside it. Decode feeds a fixed
                              random token sequence (the same for both backends) rather than each backend's
                              own argmax, so the logits compare position by position;
  routed / fallback calls     origami_nv.dispatch_stats(), with reasons: eager, over one timed rep (prefill
                              and every decode step); compile and graph, over the warm-up (each call site
                              once per trace or capture; replays run no Python).

Variants: "cublas" (torch unchanged), "switch" (``with origami_nv.enabled():``), "nn"
(``origami_nv.nn.convert(model)``: only the Linear layers, no TorchFunctionMode on the stack), "dispatcher"
(``with origami_nv.enabled(dispatcher=True):``: torch's aten::mm/bmm/addmm kernels replaced, no Python per call; its
routed / fallback counts are the dispatcher's, per aten op, without reasons; under --modes compile it routes the
GEMMs Inductor's generated code leaves to torch's out= kernels: aten::mm.out, bmm.out, addmm.out).
Modes: "eager"; "compile" (torch.compile of the whole model, --compile-mode, static shapes: one graph for the
prefill and one for the decode step per variant; compiling a layer at a time does not share the code across
layers, as each layer's index into the KV cache is a constant of its graph); "graph" (eager prefill, decode
steps replayed from a CUDA graph captured once per variant: the GPU-bound decode; the record keeps cuBLAS's
replayed logits against an eager cuBLAS pass, which must agree, as cublas_graph_vs_eager_max_abs_diff).
The variants run in alternating order (rep 0: cublas first, rep 1: origami first, ...) and each number is
the median over `reps`. Writes e2e_llama.json, e2e_llama.md and, where matplotlib is installed,
e2e_llama.png under --out; the JSON is rewritten after every configuration, so a run cut short keeps
what it measured. `transformers` is needed (the GPU machine has it); nothing else of this script is
needed by the package or its tests.
"""
from __future__ import annotations

import argparse
import json
import math
import platform
import statistics
import sys
import time
from pathlib import Path

# Published configs (config.json of each model on the Hugging Face hub; only what shapes the compute).
PRESETS = {
    "llama-3.2-1b": dict(hidden_size=2048, intermediate_size=8192, num_hidden_layers=16, num_attention_heads=32,
                         num_key_value_heads=8, head_dim=64, vocab_size=128256, max_position_embeddings=131072,
                         rope_theta=500000.0, tie_word_embeddings=True, rms_norm_eps=1e-5,
                         rope_scaling=dict(rope_type="llama3", factor=32.0, low_freq_factor=1.0,
                                           high_freq_factor=4.0, original_max_position_embeddings=8192)),
    "llama-3.2-3b": dict(hidden_size=3072, intermediate_size=8192, num_hidden_layers=28, num_attention_heads=24,
                         num_key_value_heads=8, head_dim=128, vocab_size=128256, max_position_embeddings=131072,
                         rope_theta=500000.0, tie_word_embeddings=True, rms_norm_eps=1e-5,
                         rope_scaling=dict(rope_type="llama3", factor=32.0, low_freq_factor=1.0,
                                           high_freq_factor=4.0, original_max_position_embeddings=8192)),
    "llama-3-8b": dict(hidden_size=4096, intermediate_size=14336, num_hidden_layers=32, num_attention_heads=32,
                       num_key_value_heads=8, head_dim=128, vocab_size=128256, max_position_embeddings=8192,
                       rope_theta=500000.0, tie_word_embeddings=False, rms_norm_eps=1e-5),
    # For a smoke run of this script (CPU or GPU): the 1B shapes scaled down. Not a published model.
    "tiny": dict(hidden_size=128, intermediate_size=256, num_hidden_layers=2, num_attention_heads=4,
                 num_key_value_heads=2, head_dim=32, vocab_size=512, max_position_embeddings=4096,
                 rope_theta=500000.0, tie_word_embeddings=True, rms_norm_eps=1e-5),
}
MODES = ("eager", "compile", "graph")
VARIANTS = ("cublas", "switch", "nn", "dispatcher")


def _import_transformers():
    try:
        import transformers
        from transformers import LlamaConfig, LlamaForCausalLM, StaticCache
    except ImportError as e:
        raise SystemExit("benchmarks/e2e_llama.py needs the `transformers` package (pip install transformers; the "
                         f"GPU machine has it). Import failed: {e}") from None
    return transformers, LlamaConfig, LlamaForCausalLM, StaticCache


def _csv(text, cast=str):
    return [cast(t) for t in str(text).split(",") if t.strip()]


class Runner:
    """One model (preset, dtype) on one device, and the timed passes over it."""

    def __init__(self, preset, dtype, device, layers=None, attn="sdpa"):
        import torch
        _, LlamaConfig, LlamaForCausalLM, self.StaticCache = _import_transformers()
        self.torch, self.device, self.dtype = torch, torch.device(device), dtype
        cfg = dict(PRESETS[preset])
        if layers:
            cfg["num_hidden_layers"] = layers
        self.config = LlamaConfig(**cfg)
        self.config._attn_implementation = attn
        torch.manual_seed(0)
        default = torch.get_default_dtype()
        torch.set_default_dtype(dtype)  # build the weights in the benchmark dtype, on the device: no fp32 copy
        try:
            with torch.device(self.device):
                self.model = LlamaForCausalLM(self.config)
        finally:
            torch.set_default_dtype(default)
        self.model.to(dtype).eval()
        self.params = sum(p.numel() for p in self.model.parameters())
        self.cache = None
        self.call = self.model

    def sync(self):
        if self.device.type == "cuda":
            self.torch.cuda.synchronize()

    def new_cache(self, batch, length):
        self.cache = self.StaticCache(config=self.config, max_cache_len=length)
        self.cache_batch = batch

    def set_compiled(self, on, compile_mode="default"):
        """Run the forward through torch.compile of the whole model (one graph per input shape: prefill, decode),
        or eagerly."""
        self.call = self.torch.compile(self.model, mode=compile_mode, dynamic=False) if on else self.model

    def forward(self, ids, pos, keep=1):
        out = self.call(input_ids=ids, past_key_values=self.cache, cache_position=pos, use_cache=True,
                        logits_to_keep=keep)
        return out.logits[:, -1, :]

    def prefill(self, ids):
        self.cache.reset()
        pos = self.torch.arange(ids.shape[1], device=self.device)
        return self.forward(ids, pos)

    def decode_eager(self, tokens, start):
        """Each step's logits (batch, vocab), in order; tokens: (batch, steps) fed one column per step."""
        out = []
        for i in range(tokens.shape[1]):
            pos = self.torch.tensor([start + i], device=self.device)
            out.append(self.forward(tokens[:, i:i + 1], pos))
        return out


def _timed(fn, runner):
    runner.sync()
    t0 = time.perf_counter()
    res = fn()
    runner.sync()
    return time.perf_counter() - t0, res


class GraphDecoder:
    """The decode step captured in a CUDA graph (static token and position inputs, the StaticCache's tensors),
    replayed once per token."""

    def __init__(self, runner, batch, start):
        torch = runner.torch
        self.runner = runner
        self.ids = torch.zeros(batch, 1, dtype=torch.long, device=runner.device)
        self.pos = torch.tensor([start], device=runner.device)
        stream = torch.cuda.Stream()
        stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(stream):
            for _ in range(2):  # warm up outside the capture (allocations, lazy module loads)
                runner.forward(self.ids, self.pos)
        torch.cuda.current_stream().wait_stream(stream)
        self.graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(self.graph):
            self.logits = runner.forward(self.ids, self.pos)

    def run(self, tokens, start):
        out = []
        for i in range(tokens.shape[1]):
            self.ids.copy_(tokens[:, i:i + 1])
            self.pos.fill_(start + i)
            self.graph.replay()
            out.append(self.logits.clone())
        return out


def measure_config(runner, variants, batch, prefill, decode, mode, reps, seed, route_devices, compile_mode):
    """Time every variant on the same inputs; returns the configuration's record."""
    import origami_nv
    torch = runner.torch
    gen = torch.Generator(device="cpu").manual_seed(seed)
    vocab = runner.config.vocab_size
    ids = torch.randint(0, vocab, (batch, prefill), generator=gen).to(runner.device)
    dec_tokens = torch.randint(0, vocab, (batch, decode), generator=gen).to(runner.device)
    runner.new_cache(batch, prefill + decode)
    with torch.inference_mode():
        runner.set_compiled(False)
        runner.prefill(ids)  # allocates the StaticCache's tensors (a compiled graph would guard on their absence)
    runner.torch._dynamo.reset()  # a fresh compile cache per configuration (shapes differ anyway)
    runner.set_compiled(mode == "compile", compile_mode)

    def scope(variant):
        """Put the model in the variant's state (Linear classes) and return the block to run it in."""
        if variant == "nn":
            origami_nv.nn.convert(runner.model, devices=route_devices)
        else:
            origami_nv.nn.revert(runner.model)
        if variant == "dispatcher":
            return origami_nv.enabled(devices=route_devices, dispatcher=True)
        return origami_nv.enabled(devices=route_devices) if variant == "switch" else origami_nv.disabled()

    def stats(variant):
        """dispatch_stats() in the shape the records use; the dispatcher path's counts for its variant."""
        st = origami_nv.dispatch_stats()
        if variant != "dispatcher":
            return st
        aten = st["dispatcher"]
        return {"routed": sum(c["routed"] for c in aten.values()), "fallback": sum(c["fallback"] for c in aten.values()),
                "routed_calls": {k: c["routed"] for k, c in aten.items() if c["routed"]},
                "fallback_calls": {k: c["fallback"] for k, c in aten.items() if c["fallback"]}}

    rec = {"batch": batch, "prefill": prefill, "decode": decode, "mode": mode, "variants": {}}
    logits = {}
    graphs = {}
    for v in variants:
        rec["variants"][v] = {"ttft_s": [], "decode_s": []}
    t_warm = time.perf_counter()
    for v in variants:  # warm-up: compilation, graph capture, first-launch costs; dispatch counted here
        origami_nv.reset_dispatch_stats()
        with torch.inference_mode(), scope(v):
            runner.prefill(ids)
            if mode == "graph":
                try:
                    graphs[v] = GraphDecoder(runner, batch, prefill)
                except Exception as e:  # noqa: BLE001 - recorded: e.g. a model step that cannot be captured
                    rec["variants"][v]["error"] = f"CUDA graph capture failed: {type(e).__name__}: {e}"[:500]
            else:
                runner.decode_eager(dec_tokens[:, :8], prefill)
        rec["variants"][v]["dispatch_warmup"] = stats(v)
    rec["warmup_s"] = time.perf_counter() - t_warm
    if any("error" in rec["variants"][v] for v in variants):
        return rec
    for rep in range(reps):
        order = variants if rep % 2 == 0 else variants[::-1]
        for v in order:
            origami_nv.reset_dispatch_stats()
            with torch.inference_mode(), scope(v):
                t_pre, last = _timed(lambda: runner.prefill(ids), runner)
                if mode == "graph":
                    t_dec, steps = _timed(lambda: graphs[v].run(dec_tokens, prefill), runner)
                else:
                    t_dec, steps = _timed(lambda: runner.decode_eager(dec_tokens, prefill), runner)
            r = rec["variants"][v]
            r["ttft_s"].append(t_pre)
            r["decode_s"].append(t_dec)
            # Eager: what one timed rep routed. Compiled code and graph replays run no Python per call, so
            # for those modes the counts are the warm-up's (the traced / captured call sites).
            r["dispatch"] = stats(v) if mode == "eager" else r["dispatch_warmup"]
            if rep == 0:
                logits[v] = torch.stack([last] + steps).float()  # (1 + decode, batch, vocab)
    origami_nv.nn.revert(runner.model)
    if mode == "graph":
        # The replayed decode must be the eager decode: cuBLAS's graph logits against an eager cuBLAS pass.
        with torch.inference_mode(), origami_nv.disabled():
            eager = torch.stack([runner.prefill(ids)] + runner.decode_eager(dec_tokens, prefill)).float()
        rec["cublas_graph_vs_eager_max_abs_diff"] = float((logits["cublas"] - eager).abs().max())
    for v in variants:
        r = rec["variants"][v]
        r["ttft_ms"] = statistics.median(r["ttft_s"]) * 1e3
        r["decode_tok_s"] = batch * decode / statistics.median(r["decode_s"])
        d = r["dispatch"]
        # fp32 GEMMs are not the model's fp16/bf16 GEMMs: Llama's rotary embedding multiplies inv_freq by the
        # positions in fp32 on purpose (autocast disabled); the op computes it too (the simt family, or TF32 where
        # torch allows it) unless it falls back, and a fallback there is not a missing bf16 kernel.
        r["fallback_low_precision"] = sum(n for k, n in d["fallback_calls"].items() if "dtype torch.float32" not in k)
    if "cublas" in logits:
        ref = logits["cublas"]
        for v, lg in logits.items():
            if v == "cublas":
                continue
            diff = (lg - ref).abs()
            rec["variants"][v]["max_abs_logits_diff"] = float(diff.max())
            rec["variants"][v]["max_abs_logits"] = float(ref.abs().max())
            rec["variants"][v]["top1_agreement"] = float((lg.argmax(-1) == ref.argmax(-1)).float().mean())
            rec["variants"][v]["ttft_speedup"] = rec["variants"]["cublas"]["ttft_ms"] / rec["variants"][v]["ttft_ms"]
            rec["variants"][v]["decode_speedup"] = (rec["variants"][v]["decode_tok_s"] /
                                                    rec["variants"]["cublas"]["decode_tok_s"])
    return rec


def _geomean(xs):
    xs = [x for x in xs if x and x > 0]
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")


def summarise(records, variants):
    out = {}
    for v in variants:
        if v == "cublas":
            continue
        for mode in MODES:
            rs = [r["variants"][v] for r in records if r["mode"] == mode and "ttft_speedup" in r["variants"].get(v, {})]
            if rs:
                out[f"{v}/{mode}"] = {"configs": len(rs),
                                      "ttft_speedup_geomean": _geomean([r["ttft_speedup"] for r in rs]),
                                      "decode_speedup_geomean": _geomean([r["decode_speedup"] for r in rs]),
                                      "max_abs_logits_diff": max(r["max_abs_logits_diff"] for r in rs),
                                      "min_top1_agreement": min(r["top1_agreement"] for r in rs),
                                      "fallback_low_precision": sum(r["fallback_low_precision"] for r in rs)}
    return out


def write_markdown(path, result):
    env, recs = result["environment"], result["records"]
    lines = [f"# End-to-end Llama: cuBLAS vs origami_nv ({env['gpu']})", "",
             f"torch {env['torch']}, transformers {env['transformers']}, origami_nv {env['origami_nv']}, "
             f"{env['dtype']}, SDPA attention, StaticCache; medians of {result['args']['reps']} alternated reps. "
             "Generated by benchmarks/e2e_llama.py (" + " ".join(result["argv"]) + ").", "",
             "speedup = cuBLAS time / origami time (TTFT) and origami tokens/s / cuBLAS tokens/s (decode); "
             "> 1 is origami faster. routed / fallback: calls the switch (or the converted Linear) sent to the op / "
             "left to torch, over one timed rep in eager mode and over the warm-up (traced or captured call sites) in "
             "compile and graph modes; in brackets the fp16/bf16 fallbacks (the fp32 rotary-embedding product of "
             "every forward is the other kind).", ""]
    summary = result["summary"]
    if summary:
        lines += ["| variant/mode | configs | TTFT speedup (geomean) | decode speedup (geomean) | max abs logits diff | "
                  "min top-1 agreement | fp16/bf16 fallbacks |", "|---|---:|---:|---:|---:|---:|---:|"]
        for k, s in summary.items():
            lines.append(f"| {k} | {s['configs']} | {s['ttft_speedup_geomean']:.3f} | "
                         f"{s['decode_speedup_geomean']:.3f} | {s['max_abs_logits_diff']:.3g} | "
                         f"{s['min_top1_agreement']:.3f} | {s['fallback_low_precision']} |")
        lines.append("")
    lines += ["| preset | mode | batch | prefill | variant | TTFT ms | decode tok/s | TTFT x | decode x | "
              "max abs diff (max abs logit) | top-1 agree | routed | fallback (fp16/bf16) |",
              "|---|---|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in recs:
        for v, d in r["variants"].items():
            if "error" in d:
                lines.append(f"| {r['preset']} | {r['mode']} | {r['batch']} | {r['prefill']} | {v} | "
                             f"{d['error'][:80]} | | | | | | | |")
                continue
            st = d.get("dispatch", {"routed": 0, "fallback": 0})
            lines.append(
                f"| {r['preset']} | {r['mode']} | {r['batch']} | {r['prefill']} | {v} | {d['ttft_ms']:.2f} | "
                f"{d['decode_tok_s']:.1f} | {d.get('ttft_speedup', 1.0):.3f} | {d.get('decode_speedup', 1.0):.3f} | "
                + (f"{d['max_abs_logits_diff']:.3g} ({d['max_abs_logits']:.3g}) | {d['top1_agreement']:.3f}"
                   if "max_abs_logits_diff" in d else "- | -")
                + f" | {st['routed']} | {st['fallback']} ({d['fallback_low_precision']}) |")
    reasons = {}
    for r in recs:
        for v, d in r["variants"].items():
            for k, n in d.get("dispatch", {}).get("fallback_calls", {}).items():
                reasons[f"{v}: {k}"] = reasons.get(f"{v}: {k}", 0) + n
    if reasons:
        lines += ["", "Fallback reasons, summed over the configurations (as counted above: one rep in eager mode, the "
                  "warm-up in compile and graph modes):", ""]
        lines += [f"- {k}: {n}" for k, n in sorted(reasons.items())]
    checks = [f"{r['preset']} b{r['batch']} p{r['prefill']}: {r['cublas_graph_vs_eager_max_abs_diff']:.3g}"
              for r in recs if "cublas_graph_vs_eager_max_abs_diff" in r]
    if checks:
        lines += ["", "Graph mode check, max |cuBLAS replayed logits - cuBLAS eager logits|: " + "; ".join(checks)]
    if result.get("skipped"):
        lines += ["", "Not measured (time budget): " + ", ".join(result["skipped"])]
    Path(path).write_text("\n".join(lines) + "\n")


def write_plot(path, result):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    rows = [(r, v, d) for r in result["records"] for v, d in r["variants"].items() if "ttft_speedup" in d]
    if not rows:
        return False
    labels = [f"{r['preset']}\n{r['mode']} b{r['batch']} p{r['prefill']}" + ("" if v == "switch" else f"\n{v}")
              for r, v, d in rows]
    fig, ax = plt.subplots(figsize=(max(6, 0.9 * len(rows)), 4.5))
    xs = range(len(rows))
    ax.bar([x - 0.2 for x in xs], [d["ttft_speedup"] for _, _, d in rows], 0.4, label="prefill (TTFT)")
    ax.bar([x + 0.2 for x in xs], [d["decode_speedup"] for _, _, d in rows], 0.4, label="decode tokens/s")
    ax.axhline(1.0, color="black", lw=0.8)
    ax.set_xticks(list(xs))
    ax.set_xticklabels(labels, fontsize=7)
    ax.set_ylabel("origami_nv / cuBLAS (higher is faster)")
    ax.set_title(f"End-to-end Llama, {result['environment']['gpu']}, {result['environment']['dtype']}")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return True


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--presets", default="llama-3.2-1b,llama-3.2-3b,llama-3-8b",
                    help=f"comma-separated, from {', '.join(PRESETS)}")
    ap.add_argument("--batches", default="1,8")
    ap.add_argument("--prefill", default="512,2048")
    ap.add_argument("--decode", type=int, default=128)
    ap.add_argument("--modes", default="eager,compile", help=f"comma-separated, from {', '.join(MODES)}")
    ap.add_argument("--variants", default="cublas,switch", help=f"comma-separated, from {', '.join(VARIANTS)}")
    ap.add_argument("--dtype", default="bfloat16", choices=("float16", "bfloat16"))
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--layers", type=int, default=None, help="truncate every preset to this many layers")
    ap.add_argument("--attn", default="sdpa", choices=("sdpa", "eager"),
                    help="attention implementation; 'eager' writes attention as 4-D matmuls (routed too)")
    ap.add_argument("--compile-mode", default="default",
                    help="torch.compile mode for --modes compile (default, reduce-overhead, max-autotune-no-cudagraphs)")
    ap.add_argument("--device", default="cuda", help="'cpu' only for a smoke run of this script")
    ap.add_argument("--budget-s", type=float, default=480.0,
                    help="skip the configurations left once this much wall time has passed")
    ap.add_argument("--out", required=True)
    args = ap.parse_args(argv)

    presets, modes, variants = _csv(args.presets), _csv(args.modes), _csv(args.variants)
    for name, vals, known in (("preset", presets, PRESETS), ("mode", modes, MODES), ("variant", variants, VARIANTS)):
        bad = [x for x in vals if x not in known]
        if bad:
            ap.error(f"unknown {name} {bad}; known: {', '.join(known)}")
    if "cublas" not in variants:
        variants = ["cublas"] + variants  # the reference every ratio and logits difference is taken against
    transformers = _import_transformers()[0]
    import torch

    import origami_nv
    if args.device == "cuda" and not torch.cuda.is_available():
        raise SystemExit("no CUDA GPU is visible (use --device cpu --presets tiny for a smoke run)")
    if "graph" in modes and args.device != "cuda":
        ap.error("mode 'graph' needs --device cuda")
    dtype = getattr(torch, args.dtype)
    # Each variant is its own set of graphs (the switch's mode and the converted Linear class are guarded):
    # (prefill + decode) x 3 variants must stay compiled side by side.
    for knob in ("recompile_limit", "cache_size_limit"):
        if hasattr(torch._dynamo.config, knob):
            setattr(torch._dynamo.config, knob, 64)
    route_devices = (torch.device(args.device).type,)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    result = {
        "argv": sys.argv[1:] if argv is None else list(argv), "args": vars(args),
        "environment": {"gpu": torch.cuda.get_device_name() if args.device == "cuda" else platform.processor() or "cpu",
                        "torch": torch.__version__, "transformers": transformers.__version__,
                        "origami_nv": origami_nv.__version__, "dtype": args.dtype, "python": platform.python_version()},
        "records": [], "summary": {}, "skipped": []}
    t_start = time.perf_counter()
    for preset in presets:
        configs = [(mode, b, p) for mode in modes for b in _csv(args.batches, int) for p in _csv(args.prefill, int)]
        if time.perf_counter() - t_start > args.budget_s:
            result["skipped"] += [f"{preset} {m} b{b} p{p}" for m, b, p in configs]
            continue
        t0 = time.perf_counter()
        runner = Runner(preset, dtype, args.device, layers=args.layers, attn=args.attn)
        print(f"{preset}: {runner.params / 1e9:.2f} B parameters, built in {time.perf_counter() - t0:.1f} s",
              flush=True)
        for mode, batch, prefill in configs:
            tag = f"{preset} {mode} b{batch} p{prefill}"
            if time.perf_counter() - t_start > args.budget_s:
                result["skipped"].append(tag)
                continue
            rec = measure_config(runner, variants, batch, prefill, args.decode, mode, args.reps, seed=len(
                result["records"]), route_devices=route_devices,
                                 compile_mode=args.compile_mode)
            rec["preset"] = preset
            rec["params"] = runner.params
            result["records"].append(rec)
            result["summary"] = summarise(result["records"], variants)
            for v, d in rec["variants"].items():
                if "error" in d:
                    print(f"  {tag} {v}: {d['error']}", flush=True)
                    continue
                st = d["dispatch"]
                extra = (f", x{d['ttft_speedup']:.3f} / x{d['decode_speedup']:.3f}, max|dlogits| "
                         f"{d['max_abs_logits_diff']:.3g}, top-1 {d['top1_agreement']:.3f}"
                         if "ttft_speedup" in d else "")
                print(f"  {tag} {v}: TTFT {d['ttft_ms']:.2f} ms, decode {d['decode_tok_s']:.1f} tok/s{extra}, "
                      f"routed {st['routed']}, fallback {st['fallback']} ({d['fallback_low_precision']} fp16/bf16)",
                      flush=True)
            (out / "e2e_llama.json").write_text(json.dumps(result, indent=1))
        del runner
        if args.device == "cuda":
            torch.cuda.empty_cache()
    (out / "e2e_llama.json").write_text(json.dumps(result, indent=1))
    write_markdown(out / "e2e_llama.md", result)
    plotted = write_plot(out / "e2e_llama.png", result)
    print(f"wrote {out / 'e2e_llama.json'}, {out / 'e2e_llama.md'}" + (", e2e_llama.png" if plotted else ""))
    for k, s in result["summary"].items():
        print(f"{k}: TTFT x{s['ttft_speedup_geomean']:.3f}, decode x{s['decode_speedup_geomean']:.3f} (geomean of "
              f"{s['configs']}), max|dlogits| {s['max_abs_logits_diff']:.3g}, fp16/bf16 fallbacks "
              f"{s['fallback_low_precision']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
