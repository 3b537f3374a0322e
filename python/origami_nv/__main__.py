"""Command line: ``python -m origami_nv {explain,gpus,hardware,calibrate,bench} ...`` (also ``origami-nv``).

    python -m origami_nv explain 4096 4096 4096 [--dtype float16] [--gpu H100_SXM] [--top 10] [--json] [--mode nv|seed]
                                                [--batch B] [--layout nn|nt|tn|tt] [--misaligned a|b|ab]
    python -m origami_nv gpus [--json]
    python -m origami_nv hardware [--gpu NAME] [--json]
    python -m origami_nv calibrate ...     (forwards to origami_nv.calibrate.main)
    python -m origami_nv bench ...         (forwards to origami_nv.bench.main)
"""
from __future__ import annotations

import argparse
import json
import sys
from typing import List, Optional


def _dim(s: str) -> int:
    try:
        v = int(s)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a positive integer, got {s!r}") from None
    if v <= 0:
        raise argparse.ArgumentTypeError(f"must be a positive integer, got {v}")
    return v


def _parser() -> argparse.ArgumentParser:
    from ._api import DEFAULT_MODE, MODES

    p = argparse.ArgumentParser(prog="python -m origami_nv",
                                description="Analytical GEMM tile selection (the Origami model, ported to NVIDIA).")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")
    e = sub.add_parser("explain", help="why the model picks a tile configuration for M N K")
    e.add_argument("M", type=_dim)
    e.add_argument("N", type=_dim)
    e.add_argument("K", type=_dim)
    e.add_argument("--dtype", default="float16", help="float16, bfloat16, float32 or tfloat32 (float32 on the TF32 tensor cores; default float16)")
    e.add_argument("--gpu", default=None, help="a table row (see `gpus`); default: the visible GPU or H100_SXM")
    e.add_argument("--top", type=_dim, default=10, help="rows of the ranking table (default 10)")
    e.add_argument("--mode", choices=MODES, default=DEFAULT_MODE, help=f"model mode (default {DEFAULT_MODE})")
    e.add_argument("--json", action="store_true", help="print JSON instead of text")
    e.add_argument("--batch", type=_dim, default=1, help="independent GEMMs of this shape (batched matmul; default 1)")
    e.add_argument("--layout", choices=("nn", "nt", "tn", "tt"), default="nn",
                   help="operand layouts: n = row-major, t = transposed view; nt = x @ w.t() (default nn)")
    e.add_argument("--bias", action="store_true", help="a fused bias (nn.Linear's b) is added in the epilogue")
    e.add_argument("--misaligned", choices=("a", "b", "ab"), default=None,
                   help="operands the op must copy first (not 16-byte aligned / leading dimension not a multiple of 8)")
    g = sub.add_parser("gpus", help="the calibrated GPU table rows")
    g.add_argument("--json", action="store_true", help="print the table as JSON")
    h = sub.add_parser("hardware", help="resolved hardware parameters with their tiers")
    h.add_argument("--gpu", default=None)
    h.add_argument("--json", action="store_true")
    sub.add_parser("calibrate", help="measure hardware parameters on the visible GPU (origami_nv.calibrate)",
                   add_help=False)
    sub.add_parser("bench", help="A/BF benchmarks (origami_nv.bench)", add_help=False)
    return p


def _gpus(as_json: bool) -> int:
    from ._api import gpu_table

    t = gpu_table()
    if as_json:
        print(json.dumps(t, indent=2, sort_keys=True))
        return 0
    keys = ["n_sm", "l2_bytes", "smem_per_block_bytes", "sustained_clock_mhz", "l2_perf_ratio", "dram_perf_ratio",
            "mma_sync_flops_per_cycle", "wgmma_flops_per_cycle"]
    print(f"{'row':<10} {'default':<7} " + " ".join(f"{k:>24}" for k in keys) + "  match / description")
    for name, row in sorted(t["rows"].items()):
        vals = " ".join(f"{row['params'].get(k, ''):>24}" for k in keys)
        mark = "*" if name == t["default"] else ""
        desc = row.get("meta", {}).get("description", "")
        print(f"{name:<10} {mark:<7} {vals}  {row.get('match')} {desc}")
    return 0


def main(argv: Optional[List[str]] = None) -> int:
    """Entry point of ``python -m origami_nv`` and the ``origami-nv`` console script."""
    argv = list(sys.argv[1:] if argv is None else argv)
    # calibrate / bench own their arguments: forward everything after the subcommand.
    if argv and argv[0] in ("calibrate", "bench"):
        import importlib

        # import_module, not `from . import calibrate`: the package attribute `calibrate` is the
        # calibrate() function (re-exported by __init__), not the module.
        mod = importlib.import_module(f"origami_nv.{argv[0]}")
        rc = mod.main(argv[1:])
        return int(rc or 0)
    p = _parser()
    args = p.parse_args(argv)
    try:
        if args.command == "explain":
            from ._api import explain

            mis = args.misaligned or ""
            e = explain(args.M, args.N, args.K, dtype=args.dtype, gpu=args.gpu, mode=args.mode, top=args.top,
                        batch=args.batch, layout=args.layout, a_aligned="a" not in mis, b_aligned="b" not in mis,
                        bias=args.bias)
            print(json.dumps(e.to_dict(), indent=2) if args.json else str(e))
            return 0
        if args.command == "gpus":
            return _gpus(args.json)
        if args.command == "hardware":
            from ._api import hardware

            hw = hardware(args.gpu)
            print(json.dumps(hw.to_dict(), indent=2) if args.json else str(hw))
            return 0
    except ValueError as ex:  # bad dtype, gpu, override file: a message, not a traceback
        print(f"error: {ex}", file=sys.stderr)
        return 2
    p.print_help()
    return 1


if __name__ == "__main__":
    sys.exit(main())
