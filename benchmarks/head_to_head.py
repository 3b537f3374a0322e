#!/usr/bin/env python3
"""Head-to-head: origami_nv.matmul (the model's pick) against torch.matmul (cuBLAS), fairly ordered.

    python benchmarks/head_to_head.py [--sizes 4096,4096,4096 8192,8192,8192] [--dtypes float16 bfloat16]
                                      [--rounds 8] [--steady-s 3] [--out benchmarks/results/head_to_head]

Why this exists. At 8192^3 an H200 runs at its 700 W power limit and the SM clock moves between ~1.4 and
~1.9 GHz depending on what ran in the last tens of milliseconds. The A/BF runner times cuBLAS first and then
the configs, so a single "A/cuBLAS" ratio at large sizes carries the ordering: whichever kernel runs on the
cooler GPU wins by up to 10 % (wgmma/NOTES.md, v4). Two measurements remove that bias:

  interleaved  `rounds` rounds; in each, both functions are timed with the A/BF harness's cold-input method
               (CUDA-graph replays over rotated copies >= 2x L2, 20 ms warm-up, median of 7 samples),
               in alternating order (cuBLAS first in even rounds, origami first in odd ones). Reported:
               the median over rounds of the per-round ratio, and its range.
  steady       each function run back to back for `steady_s` seconds (the warm-up) and then timed (median
               of 20 samples), i.e. at the clock the power limit settles at for that kernel; twice each, in
               the order cuBLAS, origami, origami, cuBLAS, averaged; nvidia-smi's SM clock and board power
               are sampled during each run and reported with it.

Every function is checked against an fp32 reference before it is timed, and the output of the timed graph
again after (the harness's check()/time()). Clocks and GPU settings are only read, never changed.
"""
from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path


def _parse_size(text: str):
    parts = [int(v) for v in text.split(",")]
    if len(parts) != 3 or min(parts) < 1:
        raise argparse.ArgumentTypeError(f"size {text!r}: expected M,N,K with positive integers")
    return tuple(parts)


class SmiSampler:
    """nvidia-smi SM clock (MHz) and board power (W) every 200 ms while the `with` block runs."""

    def __init__(self):
        self.proc = None
        self.lines: list[str] = []

    def __enter__(self):
        try:
            self.proc = subprocess.Popen(
                ["nvidia-smi", "--query-gpu=clocks.sm,power.draw", "--format=csv,noheader,nounits", "-lms", "200"],
                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        except OSError:
            self.proc = None
        return self

    def __exit__(self, *exc):
        if self.proc is not None:
            self.proc.terminate()
            out, _ = self.proc.communicate(timeout=10)
            self.lines = out.strip().splitlines()
        return False

    def summary(self) -> dict:
        clocks, power = [], []
        for line in self.lines[2:]:  # the first samples predate the steady state
            try:
                c, p = (float(v) for v in line.split(","))
            except ValueError:
                continue
            clocks.append(c)
            power.append(p)
        if not clocks:
            return {}
        return {"sm_clock_mhz": statistics.mean(clocks), "power_w": statistics.mean(power), "samples": len(clocks)}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", nargs="+", type=_parse_size,
                    default=[(4096, 4096, 4096), (8192, 8192, 8192)])
    ap.add_argument("--dtypes", nargs="+", default=["float16", "bfloat16"], choices=["float16", "bfloat16"])
    ap.add_argument("--rounds", type=int, default=8)
    ap.add_argument("--steady-s", type=float, default=3.0)
    ap.add_argument("--out", default=None, help="write OUT.json and OUT.md")
    args = ap.parse_args(argv)
    if args.rounds < 2:
        ap.error("--rounds must be >= 2 (the order alternates between rounds)")

    import torch

    import origami_nv
    from origami_nv.bench import configs as C
    from origami_nv.bench.suites import Size
    from origami_nv.bench.timing import CudaHarness, HarnessOptions, checked_and_interleaved

    h = CudaHarness(HarnessOptions())
    h_steady = CudaHarness(HarnessOptions(repeats=20, warmup_s=args.steady_s))
    dev = h.device_info()
    rows = []
    for (M, N, K) in args.sizes:
        for dtype in args.dtypes:
            size = Size(M, N, K, dtype)
            ctx = h.prepare(size)
            pick = C.normalize(list(origami_nv.ops.load_op().select_config(M, N, K, dtype)))
            fns = {"cublas": h.cublas_fn(), "origami": origami_nv.matmul}
            errs = {name: h.check(ctx, fn) for name, fn in fns.items()}
            rounds = checked_and_interleaved(h, ctx, fns, args.rounds)
            # Steady state twice, in the order c, o, o, c: a slow drift (board temperature) favours
            # neither side; each function's figure is the mean of its two runs.
            runs = {"cublas": [], "origami": []}
            for name in ("cublas", "origami", "origami", "cublas"):
                with SmiSampler() as smi:
                    tm = h_steady.time(ctx, fns[name])
                runs[name].append({"time_s": tm.time_s, **smi.summary()})
            steady = {}
            for name, rs in runs.items():
                mean = lambda k: statistics.mean(r[k] for r in rs) if all(k in r for r in rs) else None  # noqa: E731
                t_s = mean("time_s")
                steady[name] = {"time_s": t_s, "tflops": size.flops / t_s / 1e12, "runs": rs}
                for k in ("sm_clock_mhz", "power_w"):
                    if mean(k) is not None:
                        steady[name][k] = mean(k)
            h.release(ctx)
            torch.cuda.empty_cache()
            ratios = [x["ratio"] for x in rounds]
            tf = lambda s: size.flops / s / 1e12  # noqa: E731
            row = {
                "M": M, "N": N, "K": K, "dtype": dtype, "pick": pick, "rel_err": errs, "rounds": rounds,
                "interleaved": {
                    "cublas_tflops": tf(statistics.median(x["cublas_s"] for x in rounds)),
                    "origami_tflops": tf(statistics.median(x["origami_s"] for x in rounds)),
                    "ratio_median": statistics.median(ratios), "ratio_min": min(ratios), "ratio_max": max(ratios),
                    "ratio_cublas_first": statistics.median(x["ratio"] for x in rounds if x["first"] == "cublas"),
                    "ratio_origami_first": statistics.median(x["ratio"] for x in rounds if x["first"] == "origami"),
                },
                "steady": {**steady, "ratio": steady["origami"]["tflops"] / steady["cublas"]["tflops"]},
            }
            rows.append(row)
            il, st = row["interleaved"], row["steady"]
            print(f"{M}x{N}x{K} {dtype:8s} interleaved origami/cuBLAS {il['origami_tflops']:6.1f}/"
                  f"{il['cublas_tflops']:6.1f} TF ratio {il['ratio_median']:.3f} [{il['ratio_min']:.3f}, "
                  f"{il['ratio_max']:.3f}] (cuBLAS first {il['ratio_cublas_first']:.3f}, origami first "
                  f"{il['ratio_origami_first']:.3f}); steady {st['origami']['tflops']:6.1f}/"
                  f"{st['cublas']['tflops']:6.1f} TF ratio {st['ratio']:.3f}", flush=True)

    if args.out:
        out = Path(args.out)
        out.parent.mkdir(parents=True, exist_ok=True)
        meta = {"device": dev, "rounds": args.rounds, "steady_s": args.steady_s,
                "timing": h.timing_description(), "date_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                "command": "python benchmarks/head_to_head.py " + " ".join(argv if argv is not None else sys.argv[1:])}
        out.with_suffix(".json").write_text(json.dumps({"meta": meta, "rows": rows}, indent=1))
        lines = [
            "# Head-to-head: origami_nv.matmul (pick) vs torch.matmul (cuBLAS)", "",
            f"Device: {dev.get('device_name', '?')}; {meta['date_utc']}; `{meta['command']}`. Method: "
            "benchmarks/head_to_head.py docstring (cold inputs, alternating order, steady state at the power limit).", "",
            "| M | N | K | dtype | pick | interleaved origami / cuBLAS TFLOP/s | ratio median [min, max] "
            "| cuBLAS first / origami first | steady origami / cuBLAS TFLOP/s | steady ratio | steady SM MHz / W (origami, cuBLAS) |",
            "|---:|---:|---:|---|---|---:|---:|---:|---:|---:|---|",
        ]
        for r in rows:
            il, st = r["interleaved"], r["steady"]
            p = r["pick"]
            cfg = f"{p.get('family', '?')} {p['block_m']}x{p['block_n']}x{p['block_k']} g{p.get('group_size_m', '?')}"
            so, sc = st["origami"], st["cublas"]
            lines.append(
                f"| {r['M']} | {r['N']} | {r['K']} | {r['dtype']} | {cfg} | {il['origami_tflops']:.1f} / "
                f"{il['cublas_tflops']:.1f} | {il['ratio_median']:.3f} [{il['ratio_min']:.3f}, {il['ratio_max']:.3f}] | "
                f"{il['ratio_cublas_first']:.3f} / {il['ratio_origami_first']:.3f} | {so['tflops']:.1f} / "
                f"{sc['tflops']:.1f} | {st['ratio']:.3f} | {so.get('sm_clock_mhz', 0):.0f} / {so.get('power_w', 0):.0f}, "
                f"{sc.get('sm_clock_mhz', 0):.0f} / {sc.get('power_w', 0):.0f} |")
        out.with_suffix(".md").write_text("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
