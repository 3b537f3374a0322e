#!/usr/bin/env python3
"""Small, launch-bound GEMMs: origami_nv's best kernels with programmatic dependent launch (PDL) on and off,
the seed's Triton brute-force winners and cuBLAS, timed in one process.

    python benchmarks/small_gemm.py [--sizes 64,64,64 128,128,128 ...] [--rounds 3] [--per-family 6]
                                    [--triton 4] [--out benchmarks/results/small_gemm_h200]

Why. Up to 512^3 a GEMM on an H200 costs 2-5 us per launch, most of it fixed: the grid launch, the first
DRAM round trip of cold operands, the drain of the stores. The A/BF harness times CUDA-graph replays of
back-to-back GEMMs on rotated (cold) inputs; there cuBLAS, Triton and our kernels all sit at ~2.3 us for
64^3 (reports/nvidia-h200/seed.md). PDL (cpp/kernels/pdl.hpp) lets the next kernel launch and do its set-up
while the previous one runs; this script measures what that is worth and where our kernels stand against
the seed's Triton brute force when both are timed in the same process with the same method.

Candidates per size: the `--per-family` fastest configs of each origami family and the `--triton` fastest
seed (Triton) configs in the committed brute-force data (reports/<gpu>/raw/seed/rotate), plus the model's
pick. Each round times every candidate with the A/BF harness (cold inputs, CUDA-graph replays, median of 7;
every function is checked against an fp32 reference before and after timing), origami configs once with
PDL off and once on, in an order that alternates between rounds. Reported per candidate: the median over
rounds; per size: the best of each group, and the seed's Triton brute-force figure of ANCHORS.md section 2
(measured by the seed's own harness, not this one: given for reference only).
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

# ../shared/ANCHORS.md section 2 (H200, fp16, cold inputs, the seed's CUDA-graph timing): Triton BF TFLOP/s.
ANCHORS_TRITON_BF = {(64, 64, 64): 0.3, (128, 128, 128): 2.0, (256, 256, 256): 12.3, (512, 512, 512): 57.9,
                     (1024, 1024, 1024): 214.0, (128, 4096, 4096): 158.1, (64, 16384, 4096): 202.7}
DEFAULT_SIZES = [(64, 64, 64), (128, 128, 128), (256, 256, 256), (512, 512, 512), (1024, 1024, 1024),
                 (128, 4096, 4096), (1, 4096, 4096), (16, 4096, 4096)]


def _parse_size(text: str):
    parts = [int(v) for v in text.split(",")]
    if len(parts) != 3 or min(parts) < 1:
        raise argparse.ArgumentTypeError(f"size {text!r}: expected M,N,K with positive integers")
    return tuple(parts)


def _stored_best(raw_dir: Path, M: int, N: int, K: int, dtype: str, per_family: int, triton: int) -> list[dict]:
    """The fastest configs per family at this size in the committed brute-force records."""
    key = f"{M}x{N}x{K}-{dtype}"
    best: dict[str, dict] = {}
    from origami_nv.bench.store import open_shard
    for f in sorted(raw_dir.glob("*.jsonl*")):
        with open_shard(f) as fh:
            for line in fh:
                r = json.loads(line)
                if r.get("kind") != "config" or r.get("size") != key or r.get("status") != "ok":
                    continue
                cfg = r["config"]
                cid = r["config_id"]
                if cid not in best or r["time_s"] < best[cid]["time_s"]:
                    best[cid] = {"config": cfg, "time_s": r["time_s"]}
    out = []
    for fam, n in (("mma_sync", per_family), ("wgmma", per_family), ("triton", triton)):
        rows = sorted((v for v in best.values() if v["config"].get("family") == fam), key=lambda v: v["time_s"])
        out += [v["config"] for v in rows[:n]]
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", nargs="+", type=_parse_size, default=DEFAULT_SIZES)
    ap.add_argument("--dtype", default="float16", choices=["float16", "bfloat16"])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--per-family", type=int, default=6)
    ap.add_argument("--triton", type=int, default=4, help="seed Triton configs per size (0 = none)")
    ap.add_argument("--raw", default=None, help="brute-force records (default reports/nvidia-h200/raw/seed/rotate, "
                                                "then reports/nvidia-h200/raw/llm/rotate)")
    ap.add_argument("--out", default=None, help="write OUT.json and OUT.md")
    args = ap.parse_args(argv)

    import torch

    import origami_nv
    from origami_nv.bench import configs as C
    from origami_nv.bench.suites import Size
    from origami_nv.bench.timing import CudaHarness, HarnessOptions

    repo = Path(__file__).resolve().parent.parent
    raw_dirs = [Path(args.raw)] if args.raw else [repo / "reports/nvidia-h200/raw/seed/rotate",
                                                  repo / "reports/nvidia-h200/raw/llm/rotate"]
    ops = origami_nv.ops.load_op()
    h = CudaHarness(HarnessOptions())
    dev = h.device_info()
    seed_triton = None
    if args.triton > 0:
        try:
            from origami_nv.bench import seed_triton
        except Exception as e:  # noqa: BLE001
            print(f"[small_gemm] no Triton ({type(e).__name__}: {e}); timing without it", file=sys.stderr)

    rows = []
    for (M, N, K) in args.sizes:
        size = Size(M, N, K, args.dtype)
        cfgs = []
        for d in raw_dirs:
            if d.is_dir():
                cfgs = _stored_best(d, M, N, K, args.dtype, args.per_family, args.triton if seed_triton else 0)
                if cfgs:
                    break
        pick = C.normalize(list(ops.select_config(M, N, K, args.dtype)))
        if all(C.config_id(c) != C.config_id(pick) for c in cfgs):
            cfgs.append(pick)
        tri = [c for c in cfgs if c["family"] == "triton"]
        if tri and seed_triton is not None:
            seed_triton.precompile(tri, M, N, K, args.dtype, workers=min(8, len(tri)))

        ctx = h.prepare(size)
        # (name, fn, pdl or None)
        items = [("cublas", h.cublas_fn(), None)]
        for c in cfgs:
            if c["family"] == "triton":
                items.append((C.config_id(c), seed_triton.make_fn(c), None))
            else:
                fn = (lambda a, b, _c=c: origami_nv.matmul(a, b, config=_c))
                items += [(C.config_id(c) + " pdl-off", fn, False), (C.config_id(c) + " pdl-on", fn, True)]
        for name, fn, pdl in items:
            with origami_nv.programmatic_dependent_launch(pdl if pdl is not None else True):
                err = h.check(ctx, fn)
            if not err <= ctx.tolerance:
                raise SystemExit(f"{name} {size.key}: relative error {err:.3g} > {ctx.tolerance}")
        times: dict[str, list[float]] = {name: [] for name, _, _ in items}
        for r in range(args.rounds):
            order = items if r % 2 == 0 else list(reversed(items))
            for name, fn, pdl in order:
                with origami_nv.programmatic_dependent_launch(pdl if pdl is not None else True):
                    tm = h.time(ctx, fn)
                if tm.post_rel_err is not None and not tm.post_rel_err <= ctx.tolerance:
                    raise SystemExit(f"{name} {size.key}: timed graph output wrong ({tm.post_rel_err:.3g})")
                times[name].append(tm.time_s)
        h.release(ctx)
        torch.cuda.empty_cache()

        med = {name: statistics.median(ts) for name, ts in times.items()}
        tf = lambda s: size.flops / s / 1e12  # noqa: E731

        def best(pred):
            cand = [(t, n) for n, t in med.items() if pred(n)]
            return min(cand) if cand else (None, None)

        groups = {
            "cublas": best(lambda n: n == "cublas"),
            "triton": best(lambda n: n.startswith("triton")),
            "mma_sync pdl-off": best(lambda n: n.startswith("mma_sync") and n.endswith("pdl-off")),
            "mma_sync pdl-on": best(lambda n: n.startswith("mma_sync") and n.endswith("pdl-on")),
            "wgmma pdl-off": best(lambda n: n.startswith("wgmma") and n.endswith("pdl-off")),
            "wgmma pdl-on": best(lambda n: n.startswith("wgmma") and n.endswith("pdl-on")),
            "pick pdl-off": (med[C.config_id(pick) + " pdl-off"], C.config_id(pick)),
            "pick pdl-on": (med[C.config_id(pick) + " pdl-on"], C.config_id(pick)),
        }
        row = {"M": M, "N": N, "K": K, "dtype": args.dtype, "pick": pick,
               "anchors_triton_bf_tflops": ANCHORS_TRITON_BF.get((M, N, K)) if args.dtype == "float16" else None,
               "candidates": {n: {"time_s": med[n], "tflops": tf(med[n]), "rounds_s": times[n]} for n in med},
               "best": {g: (None if t is None else {"time_s": t, "tflops": tf(t), "config": n})
                        for g, (t, n) in groups.items()}}
        rows.append(row)
        line = " ".join(f"{g}={tf(t) if t else float('nan'):.2f}" for g, (t, _) in groups.items())
        print(f"{M}x{N}x{K} {args.dtype}: {line}", flush=True)

    if seed_triton is not None:
        seed_triton.shutdown_pool()
    if args.out:
        out = Path(args.out)
        out.parent.mkdir(parents=True, exist_ok=True)
        meta = {"device": dev, "rounds": args.rounds, "timing": h.timing_description(),
                "date_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                "command": "python benchmarks/small_gemm.py " + " ".join(argv if argv is not None else sys.argv[1:])}
        out.with_suffix(".json").write_text(json.dumps({"meta": meta, "rows": rows}, indent=1))
        fmt = lambda b: "-" if b is None else f"{b['tflops']:.2f} ({b['time_s'] * 1e6:.2f} us)"  # noqa: E731
        lines = [
            "# Small GEMMs: programmatic dependent launch, Triton brute force, cuBLAS (one process)", "",
            f"Device: {dev.get('device_name', '?')}; {meta['date_utc']}; `{meta['command']}`. Method: "
            "benchmarks/small_gemm.py docstring. TFLOP/s (time per GEMM), median over rounds; best of each "
            "group's candidates. ANCHORS = the seed's Triton brute force as ANCHORS.md section 2 measured it "
            "with its own harness (reference only).", "",
            "| M | N | K | cuBLAS | Triton BF (seed) | ANCHORS Triton BF | best mma_sync PDL off / on | "
            "best wgmma PDL off / on | pick PDL off / on | pick |",
            "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|",
        ]
        for r in rows:
            b = r["best"]
            anc = r["anchors_triton_bf_tflops"]
            lines.append(
                f"| {r['M']} | {r['N']} | {r['K']} | {fmt(b['cublas'])} | {fmt(b['triton'])} | "
                f"{'-' if anc is None else anc} | {fmt(b['mma_sync pdl-off'])} / {fmt(b['mma_sync pdl-on'])} | "
                f"{fmt(b['wgmma pdl-off'])} / {fmt(b['wgmma pdl-on'])} | {fmt(b['pick pdl-off'])} / "
                f"{fmt(b['pick pdl-on'])} | {C.config_id(r['pick'])} |")
        lines += ["", "Best config of each group:", ""]
        for r in rows:
            b = r["best"]
            lines.append(f"- {r['M']}x{r['N']}x{r['K']}: " + "; ".join(
                f"{g}: {v['config']}" for g, v in b.items() if v is not None and g not in ("cublas",)))
        out.with_suffix(".md").write_text("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
