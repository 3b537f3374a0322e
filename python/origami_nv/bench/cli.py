"""`python -m origami_nv bench ...`: run a suite (resumable, sharded, time-budgeted), merge shards,
write the report.

  run     measure (shard of) a suite, then merge every shard present and write the report
  report  merge the raw shard files and (re)write the report; no GPU needed   (alias: merge)
  select  selection time per size (Python API cold/cached, C++ select/rank); no GPU needed
  list    the suites and their sizes

Layout under --out:  <gpu>/raw/<suite>/<mode>/shard-<i>-of-<n>-<run>.jsonl (raw, appended, resumable;
                     one file per run, so folders from several machines can be copied together)
                     <gpu>/<suite>[-<mode>].md / .csv / .json / *.png (regenerated)
Exit status of run: 0 complete, 3 stopped by the time budget (re-run to resume), 4 device error
(the config that broke the context is recorded and skipped on the re-run), 2 bad arguments,
1 cannot run here (no GPU, op not built).
"""
from __future__ import annotations

import argparse
import os
import re
import sys
from pathlib import Path

from . import report as R
from .suites import SUITES, get_suite, parse_shard, shard_sizes

EXIT_OK, EXIT_ENV, EXIT_USAGE, EXIT_INCOMPLETE, EXIT_DEVICE = 0, 1, 2, 3, 4


def gpu_slug(name: str) -> str:
    """'NVIDIA H100 80GB HBM3' -> 'nvidia-h100-80gb-hbm3' (the reports/<gpu-name>/ folder)."""
    s = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")
    return s or "unknown-gpu"


def _add_common(p):
    p.add_argument("--suite", default="seed", help=f"one of: {', '.join(SUITES)} (default seed)")
    p.add_argument("--out", default="reports", help="output folder (default ./reports)")
    p.add_argument("--timing", default="rotate", choices=("rotate", "flush", "warm"),
                   help="cold-cache method (default rotate; see benchmarks/METHOD.md)")


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="python -m origami_nv bench",
                                 description="A/BF benchmark harness: analytical pick vs brute force vs cuBLAS")
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run", help="measure a suite (or one shard of it), then write the report")
    _add_common(r)
    r.add_argument("--shard", default=None, help="i/n: run shard i (0-based) of n")
    r.add_argument("--resume-from", action="append", default=[], metavar="DIR",
                   help="another --out folder (e.g. reports/ carried from earlier GPU jobs): its results count "
                        "as done and are merged into this run's report (repeatable)")
    r.add_argument("--time-budget", type=float, default=None, metavar="SECONDS",
                   help="stop cleanly before this many seconds (resumable); the report is written after")
    r.add_argument("--cutoff", type=float, default=4.0,
                   help="configs slower than this x the best so far are timed once (default 4; 0 = off)")
    r.add_argument("--bf-limit", type=int, default=None,
                   help="time only the pick's kernel + this many best-predicted configs (partial BF)")
    r.add_argument("--repeats", type=int, default=7, help="timed samples per config (default 7)")
    r.add_argument("--target-sample-ms", type=float, default=1.0, help="length of one graph replay (default 1 ms)")
    r.add_argument("--rotate-l2-factor", type=float, default=2.0, help="rotating copies total this x L2 (default 2)")
    r.add_argument("--b-layout", default=None, choices=("row", "col"),
                   help="B row-major [K,N] (row) or W.t() of a row-major [N,K] weight (col); "
                        "default row, col for the llm suite")
    r.add_argument("--retime-split", action="store_true",
                   help="re-time split-K launches measured with an older reduction kernel (with --resume-from)")
    r.add_argument("--retime-stale", action="store_true",
                   help="re-time every launch a kernel change since its measurement altered (bench/configs.py "
                        "KERNEL_CHANGES), and the split launches of an older reduction (with --resume-from)")
    r.add_argument("--retime-noisy", action="store_true",
                   help="re-time every launch of ours whose samples spread wider than 10 %% (interquartile range "
                        "over median; bench/stats.py MAX_SPREAD) and was not measured again for it, and every pick "
                        "and config twin whose times differ by more than 5 %% (configs.TWIN_DISAGREEMENT; with "
                        "--resume-from)")
    r.add_argument("--retime-picks", action="store_true",
                   help="time every size's pick again with its best launch right after it, where the pick has no such "
                        "same-run reference (the report's A/BF is then a ratio of one run; with --resume-from)")
    r.add_argument("--no-seed", action="store_true", help="skip the seed's Triton system")
    r.add_argument("--no-origami", action="store_true", help="skip origami_nv (e.g. to time the seed alone)")
    r.add_argument("--no-cublas", action="store_true", help="skip the cuBLAS baseline")
    r.add_argument("--seed-precompile-workers", type=int, default=min(8, max(0, (os.cpu_count() or 1) - 2)),
                   help="processes compiling the seed's Triton kernels ahead of timing "
                        "(default min(8, CPUs - 2); 0 = off)")
    r.add_argument("--model-mode", default=None, help="origami_nv model mode for the pick (default: the op's)")
    r.add_argument("--gpu", default=None, help="gpus.json row for origami_nv (default: match the device)")
    r.add_argument("--seed-gpu", default=None, help="gpus.json row for the seed-mode model (default: match)")
    r.add_argument("--gpu-name", default=None, help="report folder name (default: from the device name)")
    r.add_argument("--item-timeout", type=float, default=120.0, metavar="SECONDS",
                   help="a config running longer is taken to hang: recorded as crashed, report written, "
                        "exit 4 (default 120; 0 = off)")
    r.add_argument("--no-probe", action="store_true",
                   help="skip the child-process check of the op (a crash in the op then ends the run)")
    r.add_argument("--no-report", action="store_true", help="only measure; write the report later")
    r.add_argument("--no-plots", action="store_true")
    for name in ("report", "merge"):
        m = sub.add_parser(name, help="merge the raw shard files and write the report (no GPU needed)")
        _add_common(m)
        m.add_argument("--gpu-name", default=None,
                       help="report folder under --out (default: every folder holding raw data of the suite)")
        m.add_argument("--no-plots", action="store_true")
        m.add_argument("--repredict", action="store_true",
                       help="recompute every origami config's predicted cycles and the pick with the installed "
                            "model (no GPU; the pick's time is the brute-force time of the same kernel)")
        m.add_argument("--repredict-gpu", default=None, help="GPU table row for --repredict (default: the run's)")
        m.add_argument("--kernel-table", default=None,
                       help="for --repredict: a build's data/kernel_resources.json (e.g. reports/kernel_resources_sm90.json), "
                            "so the model sees the kernels and operand layouts the op had (default: the installed "
                            "build's; a build without CUDA has none)")
    sel = sub.add_parser("select", help="selection time per size of a suite (no GPU needed)")
    sel.add_argument("--suite", default="seed")
    sel.add_argument("--mode", default="nv", help="model mode: nv (default) or seed")
    sel.add_argument("--gpu", default=None, help="gpus.json row (default: the visible GPU or the default row)")
    sel.add_argument("--repeats", type=int, default=200)
    sel.add_argument("--out", default=None, help="also write the markdown table to this file")
    sub.add_parser("list", help="list the suites and their sizes")
    return ap


def _raw_dir(out: Path, gpu: str, suite: str, mode: str) -> Path:
    return out / gpu / "raw" / suite / mode


def _write_report(out: Path, gpu: str, suite_name: str, mode: str, plots: bool, extra=(), repredict: bool = False,
                  repredict_gpu: str | None = None, kernel_table: str | None = None) -> dict:
    suite = SUITES.get(suite_name)
    table = None
    if kernel_table:
        from .repredict import load_kernel_table
        table = load_kernel_table(kernel_table)
    an = R.write_report(_raw_dir(out, gpu, suite_name, mode), out / gpu, suite, suite_name, mode, plots=plots,
                        extra_raw_dirs=extra, repredict=repredict, repredict_gpu=repredict_gpu, kernel_table=table)
    print(f"[bench] report: {out / gpu / (an['stem'] + '.md')}", file=sys.stderr)
    return an


def cmd_list() -> int:
    for s in SUITES.values():
        print(f"{s.name}: {s.description} ({len(s.sizes)} sizes)")
        for z in s.sizes:
            print(f"    {z.M:>6} {z.N:>6} {z.K:>6} {z.dtype:<9} {z.label}")
    return EXIT_OK


def cmd_report(args) -> int:
    out = Path(args.out)
    gpus = [args.gpu_name] if args.gpu_name else sorted(
        p.name for p in out.glob("*") if _raw_dir(out, p.name, args.suite, args.timing).is_dir())
    if not gpus:
        print(f"no raw data for suite {args.suite!r} (mode {args.timing}) under {out}", file=sys.stderr)
        return EXIT_USAGE
    for g in gpus:
        an = _write_report(out, g, args.suite, args.timing, not args.no_plots,
                           repredict=getattr(args, "repredict", False), repredict_gpu=getattr(args, "repredict_gpu", None),
                           kernel_table=getattr(args, "kernel_table", None))
        print(f"== {g}")
        print(R.summary_table(an))
    return EXIT_OK


def cmd_run(args) -> int:
    from .runner import RunOptions, SystemUnavailable, run_suite
    from .timing import CudaHarness, HarnessOptions

    suite = get_suite(args.suite)
    shard = parse_shard(args.shard)
    b_layout = args.b_layout or ("col" if suite.name == "llm" else "row")
    try:
        harness = CudaHarness(HarnessOptions(mode=args.timing, repeats=args.repeats,
                                             target_sample_s=args.target_sample_ms * 1e-3,
                                             rotate_l2_factor=args.rotate_l2_factor, b_layout=b_layout))
    except (RuntimeError, ImportError) as e:
        print(f"error: {e}", file=sys.stderr)
        return EXIT_ENV
    gpu = args.gpu_name or gpu_slug(harness.props.name)
    systems = []
    unavailable = {}
    if not args.no_origami:
        from .systems import OrigamiSystem, probe_origami
        ok, detail = (True, "not probed") if args.no_probe else probe_origami()
        print(f"[bench] origami_nv probe: {detail}", file=sys.stderr, flush=True)
        if ok:
            try:
                systems.append(OrigamiSystem(mode=args.model_mode, gpu=args.gpu, b_layout=b_layout))
            except Exception as e:  # noqa: BLE001 - reported in the header; the other columns still run
                ok, detail = False, f"{type(e).__name__}: {e}"
        if not ok:
            unavailable["origami"] = detail
            print(f"error: origami_nv cannot be benchmarked here: {detail}; measuring the other columns",
                  file=sys.stderr, flush=True)
    if not args.no_seed:
        from .systems import SeedSystem, probe_seed
        try:
            try:
                import triton  # noqa: F401 - benchmark-only dependency
            except Exception as e:  # noqa: BLE001
                raise SystemUnavailable(f"triton is not importable ({type(e).__name__}: {e})") from e
            ok, detail = (True, "not probed") if args.no_probe else probe_seed()
            print(f"[bench] seed probe: {detail}", file=sys.stderr, flush=True)
            if not ok:
                raise SystemUnavailable(detail)
            systems.append(SeedSystem(gpu=args.seed_gpu, b_layout=b_layout,
                                      precompile_workers=args.seed_precompile_workers,
                                      log=lambda m: print(m, file=sys.stderr, flush=True)))
        except Exception as e:  # noqa: BLE001 - SystemUnavailable (no triton, probe failed) or a selector error
            why = str(e) if isinstance(e, SystemUnavailable) else f"{type(e).__name__}: {e}"
            unavailable["seed"] = why
            print(f"[bench] seed system skipped: {why}", file=sys.stderr, flush=True)
    out = Path(args.out)
    raw = _raw_dir(out, gpu, suite.name, args.timing)
    resume = [_raw_dir(Path(d), gpu, suite.name, args.timing) for d in (args.resume_from or [])]
    n_sizes = len(shard_sizes(suite.sizes, shard))
    print(f"[bench] suite {suite.name}, shard {shard[0]}/{shard[1]} ({n_sizes} sizes), mode {args.timing}, "
          f"systems {[s.name for s in systems] + ([] if args.no_cublas else ['cublas'])}, raw {raw}", file=sys.stderr)
    def on_hang():
        if not args.no_report:
            an = _write_report(out, gpu, suite.name, args.timing, not args.no_plots, resume)
            print(R.summary_table(an), flush=True)

    from .runner import interrupt_on_signals
    restore_signals = interrupt_on_signals()
    outcome = run_suite(suite, raw, harness, systems,
                        RunOptions(shard=shard, time_budget_s=args.time_budget, cutoff_factor=args.cutoff,
                                   bf_limit=args.bf_limit, cublas=not args.no_cublas, argv=list(sys.argv),
                                   item_timeout_s=args.item_timeout if args.item_timeout > 0 else None,
                                   on_hang=on_hang, resume_dirs=resume, unavailable=unavailable,
                                   retime_split=args.retime_split,
                                   retime_stale=args.retime_stale, retime_noisy=args.retime_noisy,
                                   retime_picks=args.retime_picks))
    restore_signals()
    if "origami_nv.bench.seed_triton" in sys.modules:
        sys.modules["origami_nv.bench.seed_triton"].shutdown_pool()
    status = "complete" if outcome.complete else f"INCOMPLETE ({outcome.reason}): re-run the same command to resume"
    print(f"[bench] shard {shard[0]}/{shard[1]}: {outcome.sizes_done if not outcome.complete else outcome.sizes_total}"
          f"/{outcome.sizes_total} sizes done, {outcome.items_measured} items measured this run; {status}")
    if not args.no_report:
        an = _write_report(out, gpu, suite.name, args.timing, not args.no_plots, resume)
        print(R.summary_table(an))
    if outcome.device_error:
        return EXIT_DEVICE
    if "origami" in unavailable:
        return EXIT_ENV
    return EXIT_OK if outcome.complete else EXIT_INCOMPLETE


def main(argv=None) -> int:
    ap = build_parser()
    args = ap.parse_args(argv)
    try:
        if args.cmd == "list":
            return cmd_list()
        if args.cmd == "select":
            from . import selection
            return selection.main(args)
        if args.cmd in ("report", "merge"):
            return cmd_report(args)
        if args.cmd == "run":
            return cmd_run(args)
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return EXIT_USAGE
    ap.error(f"unknown command {args.cmd}")
    return EXIT_USAGE
