#!/usr/bin/env python3
"""Offline evaluation and fitting of the nv model against stored brute-force measurements.

No GPU: it reads the raw records of `bench run` (reports/<gpu>/raw/<suite>/<timing>/*.jsonl),
re-predicts every measured kernel with the INSTALLED model (the C++ Selector of origami_nv._core,
built from the kernels' real resources recorded in the raw data, so no compiled kernel list is
needed) and reports, per size and in summary:

  offline A/BF   measured time of the best kernel / measured time of the model's new pick (the same
                 compiled kernel; the brute force timed it at its recorded GROUP_SIZE_M, which may
                 differ from the one the new pick's phase 2 chooses)
  failures       sizes with A/BF < 0.8
  tau            Kendall tau-b between predicted cycles and measured time (origami_nv.bench.stats)
  error          measured / predicted time per kernel family (geomean and spread)

--fit NAME[,NAME...] fits those NvModelConstants by a direct (coordinate, log-grid) search that
maximises mean log(A/BF) + TAU_WEIGHT * mean tau on the --fit-on suite and reports the result on
every suite (fit on one, validate on the other; --both-directions does it both ways).

    python benchmarks/fit_model.py                       # evaluate the installed model, both suites
    python benchmarks/fit_model.py --fit wgmma_l2_bandwidth_factor,mma_sync_warp_load_bytes_per_cycle \
        --both-directions --write benchmarks/results/model_fit.md
    python benchmarks/fit_model.py --scan wgmma_tma_oob_fill_bytes_per_cycle=32,48,64,80,96,128 \
        --write benchmarks/results/model_scan_tma_oob.md     # one constant over data sets of both GPUs
    python benchmarks/fit_model.py --diagnose --write benchmarks/results/model_residuals.md   # where it is wrong
    python benchmarks/fit_model.py --discordance --sets nvidia-h100:gen-valid:H100_SXM   # where tau is lost
    python benchmarks/fit_model.py --reports reports/nvidia-h100 --suites gen-train,gen-valid --gpu H100_SXM \
        --fit split_k_slice_cycles,split_k_reduce_fixed_cycles --fit-on gen-train --objective rank \
        --validate-sets nvidia-h200:gen-valid:H200     # fit on one set, judge on the other and on the other GPU
"""
from __future__ import annotations

import argparse
import datetime as _dt
import math
import sys
from pathlib import Path

from origami_nv import _core
from origami_nv.bench import configs as C
from origami_nv.bench.repredict import every_kernel_options
from origami_nv.bench import stats
from origami_nv.bench.store import load_records

ROOT = Path(__file__).resolve().parents[1]
# The kernel table of the build the measurements were taken with (--kernel-table; default the committed
# reports/kernel_resources_sm90.json): the re-prediction then sees the kernels and operand layouts the op had.
KERNEL_TABLE: list = []
FAIL_BELOW = 0.8
TAU_WEIGHT = 0.1
# Physical limits the search may not cross (an efficiency is a fraction of the peak).
UPPER_BOUND = {"mma_sync_issue_efficiency": 1.0, "wgmma_issue_efficiency": 1.0, "overlap_efficiency": 1.0,
               # (shares of the epilogue hidden: above 1 the hidden time exceeds the epilogue)
               "wgmma_epilogue_overlap": 1.0, "wgmma_ping_pong_epilogue_overlap": 1.0}

# The two terms this script introduced, and their values that reproduce the model before them
# (the "before" column: per-thread-load L2 rate for every family, no per-warp load-issue term).
BEFORE = {"wgmma_l2_bandwidth_factor": 1.0, "mma_sync_warp_load_bytes_per_cycle": 0.0,
          "wgmma_tma_oob_fill_bytes_per_cycle": 0.0, "mma_sync_l2_bandwidth_factor": 1.0,
          "mma_sync_load_issue_warps_per_sm": 0.0, "mma_sync_warp_copy_throttled_bytes_per_cycle": 0.0}
# The model of commit f8a65b6 (fitted to the first mma.sync main loop: its k-iteration overhead and feed
# rates, no per-warp cp.async issue floor), for comparison after the pipelined main loop.
PREVIOUS = {"mma_sync_k_iter_overhead_cycles": 180.0, "mma_sync_warp_load_bytes_per_cycle": 2.5,
            "mma_sync_l2_bandwidth_factor": 1.36, "mma_sync_warp_copy_throttled_bytes_per_cycle": 0.0}


def kid(cfg: dict) -> tuple:
    """A timed launch: the kernel, and its split-K slices when split (measurements before split-K have none)."""
    c = C.normalize(cfg)
    # (a swapped-operand kernel is a family of its own here: "wgmma ab", TileConfig::swap_ab)
    k = (c["family"] + (" ab" if c.get("swap_ab") else ""), c["block_m"], c["block_n"], c["block_k"], c["stages"],
         c["warps"])
    split = int(cfg.get("split_k", 1) if isinstance(cfg, dict) else getattr(cfg, "split_k", 1) or 1)
    return k + (split,) if split > 1 else k


def kid_str(k: tuple) -> str:
    return f"{k[0]} {k[1]}x{k[2]}x{k[3]} s{k[4]} w{k[5]}" + (f" sk{k[6]}" if len(k) > 6 else "")


def kid_family(k: tuple) -> tuple:
    """(family, swap_ab) of a kid."""
    return k[0].split(" ")[0], k[0].endswith(" ab")


class Suite:
    """The measured kernels of one suite: size -> {kernel id: (time_s, config, resources)}."""

    def __init__(self, name: str, raw_dir: Path, system: str = "origami"):
        self.name = name
        self.raw_dir = raw_dir
        recs = C.drop_superseded(load_records(raw_dir))
        # A size with a launch that a recent kernel change made stale (configs.EVALUATION_DROPS_STALE_FROM) is not
        # judged until re-timed: its best kernel and the pick's time are not known for the kernels as they are now.
        stale_sizes = {r.get("size") for r in recs if r.get("kind") == "config" and C.stale_for_evaluation(r)}
        self.stale_sizes = sorted(s for s in stale_sizes if s)
        recs = [r for r in recs if r.get("size") not in stale_sizes]
        if not recs and self.stale_sizes:
            raise FileNotFoundError(f"every size under {raw_dir} has launches stale since kernel change "
                                    f"{C.EVALUATION_DROPS_STALE_FROM}: re-time them (bench run --retime-stale)")
        if not recs:
            raise FileNotFoundError(f"no raw records under {raw_dir}")
        self.sizes: dict[str, dict] = {}
        # (dtype, compiled kernel) -> (t, config, resources) of its newest measurement: a kernel change can move
        # registers (848a8cb: mma.sync 16x256x32 s4 w4 146 -> 158), and the op selects with the kernels it has now
        self.newest_resources: dict[tuple, tuple] = {}
        self.recorded_pick: dict[str, tuple] = {}
        for r in recs:  # file order = run order: a later result of the same item wins
            if r.get("system") != system:
                continue
            size = r.get("size")
            info = r.get("size_info") or {}
            # A cut-off timed by one eager probe is a "slower than the cut-off" for the ranking, not a time of
            # the launch (before the harness fix of 2026-11-23 the probe included the kernel's lazy module
            # load): it cannot be the pick's time (evaluate()).
            probe_only = r.get("cut_off") and r.get("method") == "eager-probe"
            # (a launch of the brute force's second pass, the splits of the fastest unsplit kernels, has no resources
            # in its record: its kernel's are those of the same kernel's other records, or of KERNEL_TABLE)
            if r.get("kind") == "config" and r.get("status") == "ok" and r.get("time_s") and r.get("config"):
                s = self.sizes.setdefault(size, {"M": int(info["M"]), "N": int(info["N"]), "K": int(info["K"]),
                                                 "dtype": info.get("dtype", "float16"), "kernels": {},
                                                 "batch": int(info.get("batch", 1) or 1),
                                                 "layout": info.get("layout", "nn") or "nn"})
                s["kernels"][kid(r["config"])] = (float(r["time_s"]), C.normalize(r["config"]), r.get("resources"))
                rk = (s["dtype"],) + kid(r["config"])[:6]
                if r.get("resources") and (rk not in self.newest_resources or
                                           float(r.get("t") or 0) >= self.newest_resources[rk][0]):
                    self.newest_resources[rk] = (float(r.get("t") or 0), C.normalize(r["config"]), r.get("resources"))
                if probe_only:
                    s.setdefault("probe_only", set()).add(kid(r["config"]))
                else:
                    s.setdefault("probe_only", set()).discard(kid(r["config"]))
                if r.get("predicted_cycles") is not None:
                    s.setdefault("recorded_pred", {})[kid(r["config"])] = float(r["predicted_cycles"])
            elif r.get("kind") == "pick" and r.get("config"):
                self.recorded_pick[size] = kid(r["config"])
        # sizes in problem order (M, N, K)
        self.sizes = dict(sorted(self.sizes.items(), key=lambda kv: (kv[1]["M"], kv[1]["N"], kv[1]["K"])))
        from origami_nv.bench.suites import Size, size_class
        for s in self.sizes.values():
            s["class"] = size_class(Size(s["M"], s["N"], s["K"], s["dtype"], "", s["batch"], s["layout"]))
        # measurements with split-K launches (from 2026-11-23): the model ranks splits too
        self.has_split = any(len(k) > 6 for s in self.sizes.values() for k in s["kernels"])
        # runs whose harness used B = W.t() for every size (the llm suite) record it in the meta
        self.b_layout = C.run_b_layout(recs)

    def kernel_resources(self) -> dict[tuple, object]:
        """The kernels as the op saw them: from KERNEL_TABLE (a build's kernel table: worst resources over
        layout variants and the compiled layouts, so a layout a kernel lacks pays the operand copy) where
        set, else from the raw records (newest measurement of each; no layouts)."""
        if KERNEL_TABLE:
            from origami_nv.bench.repredict import _op_kernels
            return {(dt,) + kid(r.config.to_dict())[:6]: r for (dt, _), r in
                    _op_kernels(KERNEL_TABLE, {v["dtype"] for v in self.sizes.values()}).items()}
        out = {}
        for key, (_, cfg, res) in self.newest_resources.items():  # the compiled kernel: its splits are the same
            tc = _core.TileConfig(cfg["block_m"], cfg["block_n"], cfg["block_k"], group_size_m=1,
                                  stages=cfg["stages"], warps=cfg["warps"], family=cfg["family"],
                                  swap_ab=bool(cfg.get("swap_ab", False)))
            out[key] = _core.KernelResources(
                tc, dtype=key[0], threads=int(res["threads"]),
                registers_per_thread=int(res["registers_per_thread"]),
                spill_store_bytes=int(res.get("spill_store_bytes") or 0),
                spill_load_bytes=int(res.get("spill_load_bytes") or 0),
                local_bytes=int(res.get("local_bytes") or 0), smem_bytes=int(res["smem_bytes"]),
                arch=str(res.get("arch", "")), source="raw bench record")
        return out


def load_set(item: str, timing: str) -> tuple:
    """GPUDIR:SUITE:ROW (e.g. nvidia-h100:gen-train:H100_SXM) -> (label, Suite, hardware row, kernels)."""
    gpu_dir, suite, row = item.split(":")
    s = Suite(suite, ROOT / "reports" / gpu_dir / "raw" / suite / timing)
    return f"{gpu_dir} {suite}", s, _core.resolve_hardware(None, row, ""), list(s.kernel_resources().values())


def predicted_cycles(sel, suite: Suite, sz: dict, sel_all=None) -> tuple[list, dict]:
    """The selector's phase-1 ranking of one size (the problem its kernels ran: batch, launched layout) and each
    timed launch's predicted cycles (its first, best-ranked entry), taken from sel_all (every compiled kernel a
    candidate) when given."""
    layout = C.launched_layout(sz["layout"], suite.b_layout)
    args = (sz["M"], sz["N"], sz["K"], sz["dtype"])
    al = C.operand_alignment(sz["M"], sz["N"], sz["K"], layout, sz["dtype"], sz["batch"])  # what the op copies
    ranked = sel.rank(*args, batch=sz["batch"], layout=layout, **al)
    pred = {}
    for cfg, cycles in (sel_all.rank(*args, batch=sz["batch"], layout=layout, **al) if sel_all is not None else ranked):
        pred.setdefault(kid(cfg), float(cycles))
    return ranked, pred


def make_options(constants: dict | None, split_k: bool = False, every_kernel: bool = False) -> object:
    """The nv model with these constants. split_k=False (the default here): the committed raw data has no
    split-K timings, so the ranking is judged over unsplit launches (ModelOptions.split_k). every_kernel: every
    compiled kernel a candidate (ModelOptions.mma_sync_dominated_by_wgmma off), for the metrics over every timed
    launch (tau, log error): the rule changes which kernels the pick is chosen among, not their predictions."""
    if every_kernel:
        o = every_kernel_options(split_k)
    else:
        o = _core.ModelOptions("nv")
        o.split_k = split_k
    for k, v in (constants or {}).items():
        if not hasattr(o.nv, k):
            raise ValueError(f"NvModelConstants has no field {k!r}")
        nv = o.nv
        setattr(nv, k, int(float(v)) if isinstance(getattr(nv, k), int) else float(v))
        o.nv = nv
    return o


def evaluate(suite: Suite, hw, kernels: list, constants: dict | None, recorded: bool = False) -> dict:
    """Per-size rows and a summary for one set of constants (None: the installed defaults), or
    (recorded=True) for the predictions stored in the raw records (the model at measurement time;
    its pick = the measured kernel with the fewest recorded cycles)."""
    sel = None if recorded else _core.Selector(hw, kernels, make_options(constants, split_k=suite.has_split))
    sel_all = None if recorded else _core.Selector(hw, kernels, make_options(constants, split_k=suite.has_split,
                                                                             every_kernel=True))
    clock_hz = hw.get("sustained_clock_mhz") * 1e6
    rows = []
    ratios = {"mma_sync": [], "wgmma": [], "simt": []}
    for size, s in suite.sizes.items():
        if recorded:
            ranked = sorted(((dict(zip(("family", "block_m", "block_n", "block_k", "stages", "warps"), k),
                                   family=kid_family(k)[0], swap_ab=kid_family(k)[1]), c)
                             for k, c in s.get("recorded_pred", {}).items()), key=lambda kc: kc[1])
            pred = {}
            for cfg, cycles in ranked:
                pred.setdefault(kid(cfg), float(cycles))
        else:
            ranked, pred = predicted_cycles(sel, suite, s, sel_all)
        measured = s["kernels"]
        best_k = min(measured, key=lambda k: measured[k][0])
        best_t = measured[best_k][0]
        # The pick: the model's first choice; a launch the brute force did not time (a split the model of the
        # run did not rank, or a cut-off probe) falls back to the best-predicted launch that was timed, and is
        # counted.
        pick_k = kid(ranked[0][0]) if ranked else None
        timed = lambda k: k in measured and k not in s.get("probe_only", ())  # noqa: E731
        if pick_k is not None and not timed(pick_k):
            pick_k = next((kid(c) for c, _ in ranked if timed(kid(c))), pick_k)
            untimed_split_picks = 1
        else:
            untimed_split_picks = 0
        pick_t = measured.get(pick_k, (None,))[0] if pick_k else None
        both = [k for k in measured if k in pred]
        tau = stats.kendall_tau_b([pred[k] for k in both], [measured[k][0] for k in both]) if len(both) > 2 else math.nan
        timed_both = [k for k in both if timed(k)]
        log_err_var, soft = rank_terms([pred[k] for k in timed_both], [measured[k][0] for k in timed_both], best_t)
        for k in both:
            ratios[kid_family(k)[0]].append(measured[k][0] / (pred[k] / clock_hz))
        rows.append({"size": size, "M": s["M"], "N": s["N"], "K": s["K"], "best": best_k, "best_s": best_t,
                     "untimed_split_pick": untimed_split_picks, "class": s.get("class"),
                     "pick": pick_k, "pick_s": pick_t, "a_bf": (best_t / pick_t) if pick_t else math.nan,
                     "pick_pred_s": pred.get(pick_k, math.nan) / clock_hz if pick_k else math.nan,
                     "tau": tau, "n": len(both), "log_err_var": log_err_var, "soft_regret": soft})
    abf = [r["a_bf"] for r in rows if not math.isnan(r["a_bf"])]
    taus = [r["tau"] for r in rows if not math.isnan(r["tau"])]

    def spread(v):
        if not v:
            return (math.nan, math.nan, 0)
        logs = sorted(math.log(x) for x in v)
        gm = math.exp(sum(logs) / len(logs))
        mad = sorted(abs(x - math.log(gm)) for x in logs)[len(logs) // 2]
        return (gm, math.exp(mad), len(v))

    summary = {
        "sizes": len(rows), "unmeasured_picks": sum(1 for r in rows if math.isnan(r["a_bf"])),
        "untimed_split_picks": sum(r["untimed_split_pick"] for r in rows),
        "a_bf_median": stats.median(abf), "a_bf_geomean": stats.geomean(abf), "a_bf_min": min(abf) if abf else math.nan,
        "failures": sum(1 for x in abf if x < FAIL_BELOW), "tau_mean": sum(taus) / len(taus) if taus else math.nan,
        "mean_log_abf": sum(math.log(x) for x in abf) / len(abf) if abf else -math.inf,
        "log_err_var": _mean([r["log_err_var"] for r in rows]), "soft_regret": _mean([r["soft_regret"] for r in rows]),
        "err": {f: spread(v) for f, v in ratios.items()},
    }
    return {"rows": rows, "summary": summary}


def _mean(v: list) -> float:
    v = [x for x in v if not math.isnan(x)]
    return sum(v) / len(v) if v else math.nan


# Temperature of the soft pick (rank_terms), in log time: launches predicted within ~5% of the fastest share the pick.
SOFT_PICK_TEMPERATURE = 0.05


def rank_terms(pred: list, meas: list, best: float) -> tuple[float, float]:
    """Two smooth measures of one size's ranking (lower is better):
    log_err_var  the variance of log(measured / predicted) over the timed launches: how far the model is from
                 right up to one factor per size (the ranking only needs relative times);
    soft_regret  log(measured / best) averaged over the launches with weights exp(-log(pred / fastest pred) / T):
                 a pick that is not a hard argmin, so an objective built on it moves smoothly with the constants
                 and does not reward one lucky near-tie (the hard A/BF of ~120 sizes does)."""
    if len(pred) < 2:
        return math.nan, math.nan
    r = [math.log(m / p) for p, m in zip(pred, meas)]
    mu = sum(r) / len(r)
    var = sum((x - mu) ** 2 for x in r) / len(r)
    lp0 = min(math.log(p) for p in pred)
    w = [math.exp(-(math.log(p) - lp0) / SOFT_PICK_TEMPERATURE) for p in pred]
    soft = sum(wi * math.log(m / best) for wi, m in zip(w, meas)) / sum(w)
    return var, soft


OBJECTIVES = {
    # the first one: the hard pick and tau (maximised); it overfits ~120 sizes' near-ties
    "abf": lambda s: s["mean_log_abf"] + TAU_WEIGHT * (0.0 if math.isnan(s["tau_mean"]) else s["tau_mean"]),
    # accuracy over every timed launch, the soft pick and tau (2026-11-25): fits that only lowered the error let a
    # few fast-predicted launches take the picks, fits on the hard pick drifted to unphysical constants
    "rank": lambda s: -(s["log_err_var"] + s["soft_regret"]) + 0.05 * (0.0 if math.isnan(s["tau_mean"]) else s["tau_mean"]),
}
OBJECTIVE = "abf"


def objective(ev: dict) -> float:
    """Maximised by fit(): OBJECTIVES[OBJECTIVE] of the summary."""
    return OBJECTIVES[OBJECTIVE](ev["summary"])


def fit(suite: Suite, hw, kernels: list, names: list[str], start: dict, rounds: int = 3,
        also: list | None = None) -> tuple[dict, float]:
    """Coordinate search on a multiplicative grid (each constant is a positive rate or factor). `also`: more
    training sets, (Suite, hardware row, kernels) of other GPUs; the objective is the mean over all of them."""
    sets = [(suite, hw, kernels)] + list(also or [])

    def obj(consts: dict) -> float:
        return sum(objective(evaluate(s, h, k, consts)) for s, h, k in sets) / len(sets)

    cur = dict(start)
    best = obj(cur)
    factors = [0.5, 0.7, 0.85, 0.93, 1.07, 1.18, 1.4, 2.0]
    for _ in range(rounds):
        improved = False
        for n in names:
            base = cur[n]
            for f in factors:
                v_new = base * f
                if n in UPPER_BOUND and v_new > UPPER_BOUND[n]:
                    continue
                trial = dict(cur, **{n: v_new})
                v = obj(trial)
                if v > best + 1e-9:
                    best, cur = v, trial
                    improved = True
        if not improved:
            break
    return cur, best


def _f(v, fmt="{:.2f}"):
    return "-" if v is None or (isinstance(v, float) and math.isnan(v)) else fmt.format(v)


def summary_line(label: str, ev: dict) -> str:
    s = ev["summary"]
    e = s["err"]
    return (f"| {label} | {_f(s['a_bf_median'], '{:.3f}')} | {_f(s['a_bf_geomean'], '{:.3f}')} | {_f(s['a_bf_min'])} | "
            f"{s['failures']} | {_f(s['tau_mean'], '{:.3f}')} | {_f(s['log_err_var'], '{:.4f}')} | "
            f"{_f(e['mma_sync'][0])} (x{_f(e['mma_sync'][1])}) | "
            f"{_f(e['wgmma'][0])} (x{_f(e['wgmma'][1])}) | {_f(e['simt'][0])} (x{_f(e['simt'][1])}) | "
            f"{s['unmeasured_picks']} |")


SUMMARY_HEAD = ["| model | A/BF median | A/BF geomean | A/BF min | failures (< 0.8) | mean tau | log error variance | meas/pred mma_sync (spread) | meas/pred wgmma (spread) | meas/pred simt (spread) | picks not measured |",
                "|---|---|---|---|---|---|---|---|---|---|---|"]


def size_table(ev_before: dict, ev_after: dict, labels: tuple = ("previous", "installed")) -> list[str]:
    out = [f"| size | best kernel | best us | {labels[0]}: pick | A/BF | tau | {labels[1]}: pick | A/BF | tau | pred/meas |",
           "|---|---|---|---|---|---|---|---|---|---|"]
    for a, b in zip(ev_before["rows"], ev_after["rows"]):
        pm = b["pick_pred_s"] / b["pick_s"] if b["pick_s"] else math.nan
        out.append(f"| {a['M']}x{a['N']}x{a['K']} | {kid_str(a['best'])} | {a['best_s'] * 1e6:.1f} | "
                   f"{kid_str(a['pick']) if a['pick'] else '-'} | {_f(a['a_bf'])} | {_f(a['tau'])} | "
                   f"{kid_str(b['pick']) if b['pick'] else '-'} | {_f(b['a_bf'])} | {_f(b['tau'])} | {_f(pm)} |")
    return out


def _split_bucket(sk: int) -> str:
    return "unsplit" if sk <= 1 else "split 2-3" if sk < 4 else "split 4-6" if sk < 7 else "split 7-12" if sk < 13 else \
        "split 13+"


def _wave_bucket(tiles: int, n_sm: int) -> str:
    """An unsplit launch by its waves of one CTA per SM (the wgmma and most tensor-core launches): one wave that
    fills less or more than a third of the SMs, or how many waves."""
    w = tiles / n_sm
    if w <= 1:
        return "1 wave, < 1/3 of the SMs" if w < 1 / 3 else "1 wave, >= 1/3 of the SMs"
    return "1-2 waves" if w <= 2 else "2-4 waves" if w <= 4 else "> 4 waves"


def _table(title: str, cells: dict, cols: list[str]) -> list[str]:
    lines = [f"### {title}", "", "| launches | " + " | ".join(cols) + " |", "|---|" + "---:|" * len(cols)]
    for row in sorted({r for r, _ in cells}):
        out = []
        for c in cols:
            v = cells.get((row, c), [])
            out.append(f"{sum(v) / len(v):+.3f} ({len(v)})" if v else "")
        lines.append(f"| {row} | " + " | ".join(out) + " |")
    return lines + [""]


def _emit(lines: list[str], write: str, echo: bool = True) -> int:
    """A markdown report of --diagnose / --discordance / --scan: printed (unless its rows were, as they came), and
    written to `write` when given."""
    text = "\n".join(lines)
    if echo:
        print(text)
    if write:
        Path(write).parent.mkdir(parents=True, exist_ok=True)
        Path(write).write_text(text + "\n", encoding="utf-8")
        print(f"wrote {write}", file=sys.stderr)
    return 0


def diagnose(sets: list[str], timing: str, write: str, near: float = 2.0, constants: dict | None = None) -> int:
    """--diagnose: where the installed model is wrong, as tables per data set. For every timed launch within
    `near` x the best of its size, the log error log(measured / predicted) minus the median log error of the
    size's launches (the ranking only needs relative times), averaged over a class of launches: by kernel family,
    split or whole launch, and the size's best time; by the size's class (suites.size_class) and the split count;
    by the waves of an unsplit launch. A term the model lacks shows as a row that is off zero on every data set
    (both GPUs, training and validation alike)."""
    edges = [0, 4, 8, 16, 32, 64, math.inf]
    bins = [f"{lo:g}-{hi:g} us" if hi != math.inf else f">{lo:g} us" for lo, hi in zip(edges, edges[1:])]
    with_text = ", ".join(f"{k}={v:g}" for k, v in (constants or {}).items())
    with_arg = f" --with {with_text.replace(', ', ',')}" if constants else ""
    lines = ["# Where the installed model is wrong: centred log error by launch class" +
             (f" (with {with_text})" if constants else ""), "",
             f"Generated by `benchmarks/fit_model.py --diagnose{with_arg} --sets {','.join(sets)}` on "
             f"{_dt.datetime.now(_dt.timezone.utc):%Y-%m-%d %H:%M} UTC (offline). Cell: mean over the timed launches "
             f"within {near:g}x the best of their size of log(measured / predicted) - the size's median of it, and the "
             "launches averaged; > 0: the class runs slower than the model says relative to the other launches of its "
             "size.", ""]
    splits = ["unsplit", "split 2-3", "split 4-6", "split 7-12", "split 13+"]
    for item in sets:
        label, s, hw, kernels = load_set(item, timing)
        sel = _core.Selector(hw, kernels, make_options(constants, split_k=s.has_split, every_kernel=True))
        by_time: dict = {}
        by_class: dict = {}
        by_waves: dict = {}
        for size, sz in s.sizes.items():
            _, pred = predicted_cycles(sel, s, sz)
            meas = {k: v[0] for k, v in sz["kernels"].items() if k in pred and k not in sz.get("probe_only", ())}
            if len(meas) < 3:
                continue
            best = min(meas.values())
            near_k = [k for k in meas if meas[k] < near * best]
            errs = {k: math.log(meas[k] / pred[k]) for k in near_k}
            mid = sorted(errs.values())[len(errs) // 2]
            col = next(i for i, hi in enumerate(edges[1:]) if best * 1e6 <= hi)
            for k, e in errs.items():
                sk = k[6] if len(k) > 6 else 1
                by_time.setdefault((f"{k[0]} {'split' if sk > 1 else 'whole'}", bins[col]), []).append(e - mid)
                by_class.setdefault((f"{sz['class']}, {k[0]}", _split_bucket(sk)), []).append(e - mid)
                if sk <= 1:
                    tiles = math.ceil(sz["M"] / k[1]) * math.ceil(sz["N"] / k[2]) * sz["batch"]
                    by_waves.setdefault((k[0], _wave_bucket(tiles, int(hw.get("n_sm")))), []).append(e - mid)
        waves = ["1 wave, < 1/3 of the SMs", "1 wave, >= 1/3 of the SMs", "1-2 waves", "2-4 waves", "> 4 waves"]
        lines += [f"## {label}", ""]
        lines += _table("By family, split or whole, and the size's best time", by_time, bins)
        lines += _table("By the size's class and family, and the launch's split count", by_class, splits)
        lines += _table("Unsplit launches by their waves (tiles / SMs)", by_waves, waves)
    return _emit(lines, write)


def discordant_pairs(pred: list, meas: list, labels: list) -> tuple[dict, dict]:
    """Kendall's pairs of one size by the classes of their two launches: ({class pair: discordant pairs},
    {class pair: pairs}), a class pair being the two labels sorted. Pairs tied in either order (equal predictions or
    equal times) are neither: tau-b leaves them out of its numerator too."""
    disc: dict = {}
    total: dict = {}
    n = len(pred)
    for i in range(n):
        for j in range(i + 1, n):
            dp, dm = pred[i] - pred[j], meas[i] - meas[j]
            if dp == 0 or dm == 0:
                continue
            key = tuple(sorted((labels[i], labels[j])))
            total[key] = total.get(key, 0) + 1
            if (dp > 0) != (dm > 0):
                disc[key] = disc.get(key, 0) + 1
    return disc, total


def _launch_class(k: tuple) -> str:
    """A timed launch's class for --discordance: its family (the swapped kernels apart) and split or whole."""
    return f"{k[0]} {'split' if len(k) > 6 else 'whole'}"


def discordance(sets: list[str], timing: str, write: str, top: int = 12) -> int:
    """--discordance: where the ranking loses its Kendall tau, per data set. Every pair of timed launches of a size
    (predicted by the every-kernel selector, as tau is) that the model orders against the measurement is counted under
    the classes of its two launches (_launch_class); the table lists the class pairs holding the most discordant pairs:
    their share of all discordant pairs, and the discordant fraction of the class pair's own pairs. A class pair with a
    large share and fraction is where a term would raise tau; one with a large share at a fraction near the others'
    is only many pairs."""
    lines = ["# Where the ranking loses tau: discordant pairs by the classes of the two launches", "",
             f"Generated by `benchmarks/fit_model.py --discordance --sets {','.join(sets)}` on "
             f"{_dt.datetime.now(_dt.timezone.utc):%Y-%m-%d %H:%M} UTC (offline, the installed model). A pair is "
             "discordant when the model orders its two launches against their measured times.", ""]
    for item in sets:
        label, s, hw, kernels = load_set(item, timing)
        sel = _core.Selector(hw, kernels, make_options(None, split_k=s.has_split, every_kernel=True))
        disc: dict = {}
        total: dict = {}
        for sz in s.sizes.values():
            _, pred = predicted_cycles(sel, s, sz)
            ks = [k for k in sz["kernels"] if k in pred]
            d, t = discordant_pairs([pred[k] for k in ks], [sz["kernels"][k][0] for k in ks],
                                    [_launch_class(k) for k in ks])
            for key, v in d.items():
                disc[key] = disc.get(key, 0) + v
            for key, v in t.items():
                total[key] = total.get(key, 0) + v
        n_disc, n_all = sum(disc.values()), sum(total.values())
        lines += [f"## {label}", "", f"{n_disc} of {n_all} ordered pairs discordant ({n_disc / max(n_all, 1):.3f}).", "",
                  "| launch classes | discordant pairs | share of all discordant | discordant fraction |",
                  "|---|---:|---:|---:|"]
        for key, v in sorted(disc.items(), key=lambda kv: -kv[1])[:top]:
            lines.append(f"| {' / '.join(key)} | {v} | {v / n_disc:.2f} | {v / total[key]:.2f} |")
        lines.append("")
    return _emit(lines, write)


def scan(spec: str, sets: list[str], timing: str, write: str, fixed: dict | None = None) -> int:
    """--scan NAME=v1,v2,...: every value of one NvModelConstants field judged on several data sets, possibly of
    several GPUs (--sets GPUDIR:SUITE:ROW,...; e.g. nvidia-h100:gen-train:H100_SXM), one table row per value;
    `fixed` (--with NAME=V,...) holds other constants at a fitted point while this one moves.
    For choosing a constant on a training set under constraints read off other sets, with the validation sets
    in the same table (the caller says which is which)."""
    name, _, vals = spec.partition("=")
    values = [float(v) for v in vals.split(",") if v]
    if not name or not values:
        raise SystemExit("--scan needs NAME=v1,v2,...")
    loaded = [load_set(item, timing) for item in sets]
    installed = getattr(_core.ModelOptions("nv").nv, name)
    fixed = dict(fixed or {})
    with_text = (" with " + ", ".join(f"`{k}` = {v:g}" for k, v in fixed.items())) if fixed else ""
    head = ["| " + name + " | " + " | ".join(label for label, *_ in loaded) + " |",
            "|---|" + "---|" * len(loaded)]
    with_arg = (" --with " + ",".join(f"{k}={v:g}" for k, v in fixed.items())) if fixed else ""
    lines = [f"# Scan of `{name}` (installed: {installed:g}){with_text}", "",
             f"Generated by `benchmarks/fit_model.py --scan {spec}{with_arg} --sets {','.join(sets)}` on "
             f"{_dt.datetime.now(_dt.timezone.utc):%Y-%m-%d %H:%M} UTC (offline: every stored measurement re-predicted "
             "with the installed model and this value). Cells: A/BF geomean / A/BF min / mean tau; an untimed split "
             "pick falls back to the best-predicted timed launch (evaluate()).", ""] + head
    for v in values:
        cells = []
        for _, s, hw, ks in loaded:
            m = evaluate(s, hw, ks, dict(fixed, **{name: v}))["summary"]
            cells.append(f"{_f(m['a_bf_geomean'], '{:.3f}')} / {_f(m['a_bf_min'])} / {_f(m['tau_mean'], '{:.3f}')}")
        lines.append(f"| {v:g} | " + " | ".join(cells) + " |")
        print(lines[-1], flush=True)
    return _emit(lines, write, echo=False)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--reports", default=str(ROOT / "reports" / "nvidia-h200"), help="reports/<gpu> folder")
    ap.add_argument("--suites", default="seed,llm")
    ap.add_argument("--timing", default="rotate", help="raw/<suite>/<timing>")
    ap.add_argument("--gpu", default="H200", help="GPU table row of the model")
    ap.add_argument("--fit", default="", help="comma-separated NvModelConstants to fit")
    ap.add_argument("--fit-on", default="seed", help="suite the fit maximises")
    ap.add_argument("--fit-also", default="",
                    help="GPUDIR:SUITE:ROW,...: training sets of other GPUs the fit also maximises (the mean "
                         "objective; e.g. the other GPU's gen-train)")
    ap.add_argument("--both-directions", action="store_true", help="also fit on the other suite")
    ap.add_argument("--objective", default="abf", choices=sorted(OBJECTIVES),
                    help="what --fit maximises: abf = mean log(A/BF) + 0.1 tau; rank = -(variance of the log error over "
                         "every timed launch + soft-pick regret) + 0.05 tau (rank_terms)")
    ap.add_argument("--write", default="", help="write the markdown report here")
    ap.add_argument("--diagnose", action="store_true", help="the installed model's centred log error by launch class "
                    "on --sets (diagnose())")
    ap.add_argument("--scan", default="", help="NAME=v1,v2,...: judge each value on --sets (see scan())")
    ap.add_argument("--discordance", action="store_true", help="where the ranking loses tau on --sets: discordant "
                    "pairs by the classes of their two launches (discordance())")
    ap.add_argument("--kernel-table", default=str(ROOT / "reports" / "kernel_resources_sm90.json"),
                    help="a build's data/kernel_resources.json ('' = the resources of the raw records, no layouts)")
    ap.add_argument("--compare", default="", help="NAME=V,...: one more row, the installed model with these values "
                    "(e.g. the constants before a change)")
    ap.add_argument("--start", default="", help="NAME=V,...: where --fit starts (default: the installed values; "
                    "a term that is off, 0, starts at 1 otherwise)")
    ap.add_argument("--validate-sets", default="",
                    help="GPUDIR:SUITE:ROW,...: data sets of other GPUs the fit is also judged on (cross-device)")
    ap.add_argument("--with", dest="with_", default="", help="NAME=V,...: other constants held at these values in --scan")
    ap.add_argument("--sets", default="nvidia-h100:gen-train:H100_SXM,nvidia-h100:gen-valid:H100_SXM,"
                    "nvidia-h200:gen-valid:H200,nvidia-h200:seed:H200,nvidia-h200:llm:H200,"
                    "nvidia-h100:unseen:H100_SXM,nvidia-h200:unseen:H200",
                    help="GPUDIR:SUITE:ROW,... for --scan (the `unseen` sets: shape classes no other suite holds)")
    args = ap.parse_args(argv)
    global KERNEL_TABLE, OBJECTIVE
    OBJECTIVE = args.objective
    if args.kernel_table:
        from origami_nv.bench.repredict import load_kernel_table
        KERNEL_TABLE = load_kernel_table(args.kernel_table)
    if args.diagnose:
        fixed = {k: float(v) for k, _, v in (x.partition("=") for x in args.with_.split(",") if x)}
        return diagnose([x for x in args.sets.split(",") if x], args.timing, args.write, constants=fixed)
    if args.discordance:
        return discordance([x for x in args.sets.split(",") if x], args.timing, args.write)
    if args.scan:
        fixed = {k: float(v) for k, _, v in (x.partition("=") for x in args.with_.split(",") if x)}
        return scan(args.scan, [x for x in args.sets.split(",") if x], args.timing, args.write, fixed)

    hw = _core.resolve_hardware(None, args.gpu, "")
    names = [s for s in args.suites.split(",") if s]
    suites = {n: Suite(n, Path(args.reports) / "raw" / n / args.timing) for n in names}
    res = {}
    for s in suites.values():
        res.update(s.kernel_resources())
    kernels = list(res.values())
    defaults = {k: getattr(_core.ModelOptions("nv").nv, k) for k in dir(_core.ModelOptions("nv").nv)
                if not k.startswith("_") and isinstance(getattr(_core.ModelOptions("nv").nv, k), float)}

    compare = {k: float(v) for k, _, v in (x.partition("=") for x in args.compare.split(",") if x)}
    compare_label = "compare (" + ", ".join(f"{k}={v:g}" for k, v in compare.items()) + ")"
    evals = {}
    for n, s in suites.items():
        evals[(n, "at measurement")] = evaluate(s, hw, kernels, None, recorded=True)
        evals[(n, "before")] = evaluate(s, hw, kernels, BEFORE)
        evals[(n, "previous (f8a65b6)")] = evaluate(s, hw, kernels, PREVIOUS)
        if compare:
            evals[(n, compare_label)] = evaluate(s, hw, kernels, compare)
        evals[(n, "installed")] = evaluate(s, hw, kernels, None)

    fits = []
    fit_names = [x for x in args.fit.split(",") if x]
    if fit_names:
        on = [args.fit_on] + ([n for n in names if n != args.fit_on] if args.both_directions else [])
        for src in on:
            start = {k: defaults[k] for k in fit_names}
            start.update({k: float(v) for k, _, v in (x.partition("=") for x in args.start.split(",") if x)})
            for k in fit_names:
                if start[k] <= 0:
                    start[k] = 1.0
            also_items = [x for x in args.fit_also.split(",") if x]
            also = [load_set(item, args.timing) for item in also_items]  # (label, Suite, hardware row, kernels)
            got, val = fit(suites[src], hw, kernels, fit_names, start, also=[a[1:] for a in also])
            src += "".join(f" + {label}" for label, *_ in also)
            fits.append((src, got, val))
            for n, s in suites.items():
                evals[(n, f"fit on {src}")] = evaluate(s, hw, kernels, got)
    # Data sets of other GPUs (each with its own hardware row and kernels): the installed model and every fit.
    for item in [x for x in args.validate_sets.split(",") if x]:
        name, s, ohw, oks = load_set(item, args.timing)
        names.append(name)
        suites[name] = s
        if compare:
            evals[(name, compare_label)] = evaluate(s, ohw, oks, compare)
        evals[(name, "installed")] = evaluate(s, ohw, oks, None)
        for src, got, _ in fits:
            evals[(name, f"fit on {src}")] = evaluate(s, ohw, oks, got)

    lines = [f"# nv model fit ({Path(args.reports).name}, {args.timing} timing)", "",
             f"Generated by `benchmarks/fit_model.py` on {_dt.datetime.now(_dt.timezone.utc):%Y-%m-%d %H:%M} UTC "
             f"(no GPU: offline re-prediction of every stored measurement with the installed model, GPU row "
             f"`{args.gpu}`, clock {hw.get('sustained_clock_mhz'):.0f} MHz).", "",
             "- offline A/BF = best measured kernel time / measured time of the model's pick (same compiled kernel; "
             "the brute force timed it at its recorded GROUP_SIZE_M).",
             f"- failures = sizes with A/BF < {FAIL_BELOW}; tau = mean Kendall tau-b (predicted cycles vs measured time).",
             "- meas/pred = geomean of measured / predicted time per family (spread = exp(median |log deviation|)).",
             "- at measurement = the predicted cycles stored in the raw records (the model the suite was run with; "
             "its pick = the measured kernel it predicted fastest).",
             f"- before = the installed model with {', '.join(f'{k}={v}' for k, v in BEFORE.items())} (the per-family feed "
             "terms off; the real-rows fix for M << BLOCK_M stays on); previous (f8a65b6) = the installed model with "
             f"{', '.join(f'{k}={v}' for k, v in PREVIOUS.items())} (the model fitted to the first mma.sync main loop, "
             "before the pipelined one and the per-warp cp.async issue floor); installed = the defaults in NvModelConstants.", ""]
    for n in names:
        left_out = (f"; {len(suites[n].stale_sizes)} more left out, with launches stale since kernel change "
                    f"{C.EVALUATION_DROPS_STALE_FROM}" if suites[n].stale_sizes else "")
        lines += [f"## {n} suite ({len(suites[n].sizes)} sizes{left_out})", ""] + SUMMARY_HEAD
        for (sn, label), ev in evals.items():
            if sn == n:
                lines.append(summary_line(label, ev))
        lines.append("")
    if fits:
        goal = (f"mean log(A/BF) + {TAU_WEIGHT} x mean tau" if OBJECTIVE == "abf" else
                "-(variance of log(measured / predicted) over every timed launch + soft-pick regret) + 0.05 x mean tau"
                " (rank_terms)")
        lines += ["## Fits", "", f"Objective (`--objective {OBJECTIVE}`): {goal}, maximised by a coordinate search on a "
                  "multiplicative grid, starting from the installed values.", ""]
        for src, got, val in fits:
            lines.append(f"- fit on **{src}** (objective {val:.4f}): " + ", ".join(f"`{k}` = {v:.4g}" for k, v in got.items()))
        lines.append("")
    for n in names:
        if compare:  # what the installed model changes against the compared values
            lines += [f"## {n}: per size (compare -> installed)", ""] + \
                size_table(evals[(n, compare_label)], evals[(n, "installed")], ("compare", "installed")) + [""]
        elif fits:  # what the (first) fit changes
            label = f"fit on {fits[0][0]}"
            lines += [f"## {n}: per size (installed -> {label})", ""] + \
                size_table(evals[(n, "installed")], evals[(n, label)], ("installed", label)) + [""]
        elif (n, "previous (f8a65b6)") in evals:
            lines += [f"## {n}: per size (previous (f8a65b6) -> installed)", ""] + \
                size_table(evals[(n, "previous (f8a65b6)")], evals[(n, "installed")]) + [""]
    text = "\n".join(lines)
    print(text)
    if args.write:
        Path(args.write).parent.mkdir(parents=True, exist_ok=True)
        Path(args.write).write_text(text + "\n", encoding="utf-8")
        print(f"\nwrote {args.write}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
