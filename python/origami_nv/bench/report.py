"""Merge raw shard files into one report: the seed's tables 7.2 (per size), 7.3 (summary) and 7.4
(ranking quality), CSV + JSON of every measured config, and PNG plots.

Reports are regenerated from raw/ by this module, never edited by hand.
"""
from __future__ import annotations

import csv
import datetime as _dt
import json
import math
from dataclasses import dataclass, field
from pathlib import Path

from . import configs as C
from . import stats
from .store import RESULT_KINDS, _clean, load_records
from .suites import GEN_CLASSES, Size, Suite, size_class

# A pick counts as a failure when it cannot run (error, wrong, crashed) or reaches less than
# half of the brute force (the seed's register-spill failures sit at 0.12 A/BF; its worst
# non-spilling size at 0.67).
FAILURE_A_BF = 0.5
SYSTEM_ORDER = ("origami", "seed")


@dataclass
class SystemRow:
    name: str
    pick: dict | None = None
    a_tflops: float = math.nan
    bf: dict | None = None
    bf_tflops: float = math.nan
    a_bf: float = math.nan
    a_cublas: float = math.nan
    bf_cublas: float = math.nan
    failed: bool = False
    failure: str = ""
    unmeasured: bool = False  # a re-predicted pick that no run timed (bench/repredict.py): no A figure, no failure
    # Where A and BF were timed: "one run" (the pick and the best launch in one shard file, or the pick with its
    # same-run reference, store.py "reference"), "across runs" (other runs, perhaps other machines), "" (no A/BF).
    a_bf_runs: str = ""
    tau: float = math.nan
    n_tau: int = 0
    n_configs: int = 0
    n_ok: int = 0
    n_wrong: int = 0
    n_error: int = 0
    n_cut: int = 0
    pred_rank_of_best: int | None = None
    meas_rank_of_pick: int | None = None
    n_ranked: int = 0
    pick_pred_s: float = math.nan
    pick_meas_s: float = math.nan
    pick_pred_err: float = math.nan
    median_abs_pred_err: float = math.nan
    selection: dict = field(default_factory=dict)
    complete: bool = False
    pick_resources: dict | None = None


@dataclass
class SizeRow:
    size: Size
    cublas: dict | None = None
    cublas_tflops: float = math.nan
    systems: dict = field(default_factory=dict)


def _latest(records: list[dict]) -> dict[tuple, dict]:
    out = {}
    for r in records:
        if r.get("kind") in RESULT_KINDS:
            out[(r.get("size"), r.get("system"), r.get("item"))] = r
    return out


def _size_of(key: str, recs: list[dict]) -> Size:
    for r in recs:
        if r.get("size") == key and r.get("size_info"):
            return Size.from_dict(r["size_info"])
    dims, dtype, *rest = key.split("-")  # Size.key: MxNxK-dtype[-bBATCH][-LAYOUT]
    m, n, k = (int(x) for x in dims.split("x"))
    batch = next((int(x[1:]) for x in rest if x.startswith("b")), 1)
    layout = next((x for x in rest if not x.startswith("b")), "nn")
    return Size(m, n, k, dtype, "", batch, layout)


def _tflops(size: Size, time_s: float | None) -> float:
    """TFLOP/s of one launch of a size (all of its batch)."""
    return stats.tflops(size.M, size.N, size.K, time_s) * getattr(size, "batch", 1)


def _ok(r: dict | None) -> bool:
    return bool(r) and r.get("status") == "ok" and bool(r.get("time_s"))


def analyze_system(name: str, size: Size, results: dict, cublas_tf: float, clock_hz: float | None,
                   done: bool) -> SystemRow:
    row = SystemRow(name=name, complete=done)
    configs = [r for (s, sy, it), r in results.items()
               if s == size.key and sy == name and r.get("kind") == "config" and it != "(candidates)"]
    row.n_configs = len(configs)
    row.n_ok = sum(1 for r in configs if _ok(r))
    row.n_wrong = sum(1 for r in configs if r.get("status") == "wrong")
    row.n_error = sum(1 for r in configs if r.get("status") in ("error", "crashed"))
    row.n_cut = sum(1 for r in configs if _ok(r) and r.get("cut_off"))
    ok = [r for r in configs if _ok(r)]
    if ok:
        row.bf = min(ok, key=lambda r: r["time_s"])
        row.bf_tflops = _tflops(size, row.bf["time_s"])
    pick = results.get((size.key, name, "pick"))
    row.pick = pick
    if pick is not None:
        row.selection = pick.get("selection") or {}
        if _ok(pick):
            row.a_tflops = _tflops(size, pick["time_s"])
            row.pick_meas_s = pick["time_s"]
        elif pick.get("status") == "unmeasured":
            # The installed model picks a launch the data set never timed (after a model change): its A is not
            # known, which is neither a failure of the pick nor an A/BF of 0; the summary counts such sizes.
            row.unmeasured = True
            row.failure = str(pick.get("error", ""))[:160]
        else:
            row.a_tflops = 0.0
            row.failed = True
            row.failure = f"pick {pick.get('status')}: {pick.get('error', '')}"[:160]
    row.a_bf = stats.ratio(row.a_tflops, row.bf_tflops)
    if _ok(pick) and row.bf is not None:
        # A/BF of one run where the data has it: the same launch moved by up to 20 % between runs at decode (H100
        # gen-valid 1x2048x3072 64x96 split 3: 8.80, 8.99, 10.76 us), more than the picks' differences there.
        ref = results.get((size.key, name, "reference"))
        if pick.get("_file") and pick.get("_file") == row.bf.get("_file"):
            row.a_bf_runs = "one run"
        elif _ok(ref) and ref.get("pick_t") == pick.get("t") and ref.get("config_id") == row.bf.get("config_id"):
            row.a_bf = ref["time_s"] / pick["time_s"]
            row.a_bf_runs = "one run"
        else:
            row.a_bf_runs = "across runs"
    row.a_cublas = stats.ratio(row.a_tflops, cublas_tf)
    row.bf_cublas = stats.ratio(row.bf_tflops, cublas_tf)
    if not row.failed and math.isfinite(row.a_bf) and row.a_bf < FAILURE_A_BF:
        row.failed = True
        row.failure = f"A/BF {row.a_bf:.2f} < {FAILURE_A_BF}"
    # ranking quality over the configs that are both predicted and measured
    ranked = [r for r in ok if r.get("predicted_cycles") is not None]
    row.n_ranked = len(ranked)
    if len(ranked) >= 2:
        pred = [r["predicted_cycles"] for r in ranked]
        meas = [r["time_s"] for r in ranked]
        row.tau = stats.kendall_tau_b(pred, meas)
        row.n_tau = len(ranked)
        best = min(ranked, key=lambda r: r["time_s"])
        row.pred_rank_of_best = stats.rank_of(best["predicted_cycles"], pred)
        if clock_hz:
            errs = [abs(stats.relative_error(r["predicted_cycles"] / clock_hz, r["time_s"])) for r in ranked]
            row.median_abs_pred_err = stats.median(errs)
    if pick is not None and pick.get("config") and ok:
        times = [r["time_s"] for r in ok]
        same = [r for r in ok if r.get("config_id") == pick.get("config_id")]
        same = same or [r for r in ok if r.get("config") and C.kernel_id(r["config"]) == C.kernel_id(pick["config"])]
        t = same[0]["time_s"] if same else (pick.get("time_s") if _ok(pick) else None)
        if t is not None:
            row.meas_rank_of_pick = stats.rank_of(t, times)
        if same:
            row.pick_resources = same[0].get("resources")
    if pick is not None and clock_hz and pick.get("predicted_cycles") is not None:
        row.pick_pred_s = pick["predicted_cycles"] / clock_hz
        if _ok(pick):
            row.pick_pred_err = stats.relative_error(row.pick_pred_s, pick["time_s"])
    return row


def analyze(records: list[dict], suite: Suite | None = None) -> dict:
    results = _latest(records)
    metas = [r for r in records if r.get("kind") == "meta"]
    done = {(r.get("size"), r.get("system")) for r in records if r.get("kind") == "size_done"}
    clock = {}
    for m in metas:
        for name, d in (m.get("systems") or {}).items():
            if d and d.get("clock_hz"):
                clock[name] = d["clock_hz"]
    seen_keys = []
    for (s, _, _) in results:
        if s and s not in seen_keys:
            seen_keys.append(s)
    if suite is not None:
        order = [sz.key for sz in suite.sizes]
        keys = [k for k in order if k in seen_keys] + [k for k in seen_keys if k not in order]
        size_objs = {sz.key: sz for sz in suite.sizes}
    else:
        keys, size_objs = seen_keys, {}
    systems = sorted({sy for (_, sy, _) in results if sy and sy != "cublas"},
                     key=lambda n: (SYSTEM_ORDER.index(n) if n in SYSTEM_ORDER else len(SYSTEM_ORDER), n))
    rows = []
    for k in keys:
        size = size_objs.get(k) or _size_of(k, records)
        row = SizeRow(size=size)
        cb = results.get((k, "cublas", "cublas"))
        row.cublas = cb
        row.cublas_tflops = _tflops(size, cb["time_s"]) if _ok(cb) else math.nan
        for name in systems:
            row.systems[name] = analyze_system(name, size, results, row.cublas_tflops, clock.get(name),
                                               (k, name) in done)
        rows.append(row)
    summary = {name: summarize([r.systems[name] for r in rows], rows) for name in systems}
    # Per size class (suites.size_class: decode, small M, large, long K, odd, batched), where a suite has
    # more than one: A/BF and the ranking quality of each class of work (issue 11).
    classes = {}
    by_class: dict[str, list] = {}
    for r in rows:
        by_class.setdefault(size_class(r.size), []).append(r)
    if len(by_class) > 1:
        for cls in sorted(by_class, key=lambda c: GEN_CLASSES.index(c) if c in GEN_CLASSES else len(GEN_CLASSES)):
            crow = by_class[cls]
            classes[cls] = {name: summarize([r.systems[name] for r in crow if name in r.systems],
                                            [r for r in crow if name in r.systems]) for name in systems}
    return {"rows": rows, "systems": systems, "summary": summary, "classes": classes, "metas": metas, "results": results,
            "sizes_total": len(suite.sizes) if suite is not None else len(rows),
            "sizes_measured": sum(1 for r in rows if r.systems and all(s.complete for s in r.systems.values()))}


def summarize(srows: list[SystemRow], rows: list[SizeRow]) -> dict:
    a_bf = [r.a_bf for r in srows]
    measured = [r for r in srows if r.pick is not None]
    cold = [r.selection.get("api_cold_s") for r in srows if r.selection]
    cached = [r.selection.get("api_cached_s") for r in srows if r.selection]
    op_cached = [r.selection.get("op_cached_s") for r in srows if r.selection]
    rank_cpp = [r.selection.get("rank_cpp_s") for r in srows if r.selection]
    return {
        "sizes": len(measured),
        "a_bf_median": stats.median(a_bf),
        "a_bf_min": min(stats.finite(a_bf)) if stats.finite(a_bf) else math.nan,
        "a_bf_geomean": stats.geomean(a_bf),
        "a_bf_ge_0_9": sum(1 for v in stats.finite(a_bf) if v >= 0.9),
        "a_bf_one_run": sum(1 for r in srows if r.a_bf_runs == "one run"),
        "failures": sum(1 for r in measured if r.failed),
        "picks_unmeasured": sum(1 for r in srows if r.unmeasured),
        "unmeasured_list": [(rw.size.key, r.failure) for rw, r in zip(rows, srows) if r.unmeasured],
        "failure_list": [(rw.size.key, r.failure) for rw, r in zip(rows, srows) if r.failed],
        "tau_mean": float(sum(stats.finite(r.tau for r in srows)) / len(stats.finite(r.tau for r in srows)))
        if stats.finite(r.tau for r in srows) else math.nan,
        "a_cublas_median": stats.median(r.a_cublas for r in srows),
        "a_cublas_geomean": stats.geomean(r.a_cublas for r in srows),
        "bf_cublas_geomean": stats.geomean(r.bf_cublas for r in srows),
        "selection_cold_median_s": stats.median(cold),
        "selection_cached_median_s": stats.median(cached),
        "selection_op_cached_median_s": stats.median(op_cached),
        "rank_cpp_median_s": stats.median(rank_cpp),
        "pick_pred_err_median_abs": stats.median(abs(r.pick_pred_err) for r in srows
                                                 if math.isfinite(r.pick_pred_err)),
    }


# ---- rendering ---------------------------------------------------------------------------------

def _f(v, fmt="{:.1f}", none="-"):
    if v is None or (isinstance(v, float) and not math.isfinite(v)):
        return none
    return fmt.format(v)


def _pct(v):
    return _f(v, "{:.1%}")


def _us(v):
    return _f(None if v is None else v * 1e6, "{:.1f} us")


def _header(an: dict, suite_name: str, mode: str) -> list[str]:
    metas = an["metas"]
    m = metas[-1] if metas else {}
    dev = m.get("device", {})
    smi = dev.get("nvidia_smi") or {}
    tm = m.get("timing", {})
    dates = sorted(x.get("t") for x in metas if x.get("t"))
    fmt = lambda t: _dt.datetime.fromtimestamp(t, _dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    files = sorted({x.get("_file") for x in metas if x.get("_file")})
    lines = [
        f"# A/BF report: suite `{suite_name}` on {dev.get('device_name', '?')}",
        "",
        "Generated by `python -m origami_nv bench report` from the raw shard files; do not edit.",
        "",
        "| | |", "|---|---|",
        f"| device | {dev.get('device_name', '?')} (cc {dev.get('compute_capability', '?')}, "
        f"{dev.get('sm_count', '?')} SMs, L2 {_f(dev.get('l2_bytes'), '{:,}')} B) |",
        f"| driver | {dev.get('driver') or '?'} |",
        f"| clocks (nvidia-smi at run start) | SM {smi.get('clocks.sm', '?')} (max {smi.get('clocks.max.sm', '?')}), "
        f"memory {smi.get('clocks.mem', '?')} (max {smi.get('clocks.max.mem', '?')}) |",
        f"| software | torch {dev.get('torch', '?')} (CUDA {dev.get('torch_cuda', '?')}), triton {dev.get('triton') or '-'} |",
        f"| timing mode | **{mode}**: " + _mode_text(tm) + " |",
        f"| cut-off | configs slower than {m.get('cutoff_factor', '?')}x the best so far are timed once (marked) |",
        f"| run dates | {fmt(dates[0]) if dates else '?'} .. {fmt(dates[-1]) if dates else '?'}; "
        f"report {_dt.datetime.now(_dt.timezone.utc).strftime('%Y-%m-%d %H:%M UTC')} |",
        f"| shards merged | {', '.join(files) or '-'} |",
        f"| completeness | {an['sizes_measured']} of {an['sizes_total']} sizes complete |",
    ]
    bf_limits = {x.get("bf_limit") for x in metas}
    if any(b is not None for b in bf_limits):
        lines.append(f"| brute force | **partial**: the pick's kernel + the {', '.join(str(b) for b in bf_limits if b is not None)} "
                     "best-predicted configs only |")
    for name, why in (m.get("unavailable") or {}).items():
        lines.append(f"| system `{name}` | **not measured in the latest run**: {str(why).replace('|', '/')[:300]} |")
    rp = an.get("repredicted")
    if rp:
        import origami_nv
        ch = rp["picks_changed"]
        lines.append(f"| predictions | **re-predicted at report time** with the installed model (origami_nv "
                     f"{getattr(origami_nv, '__version__', '?')}, gpu row {rp['gpu']}): {rp['configs']} origami configs; "
                     f"the origami pick is the installed model's pick, timed through the op at "
                     f"{rp.get('picks_timed_through_op', 0)} of {rp['sizes']} sizes, elsewhere the brute-force time "
                     f"of the same kernel (GROUP_SIZE_M may differ); picks changed at "
                     f"{len(ch)} of {rp['sizes']} sizes" + (f", {len(rp['picks_unmeasured'])} new picks never measured"
                                                             if rp["picks_unmeasured"] else "") +
                     (f"; kernels: {rp['resources_from']}" if rp.get("resources_from") else "") + " |")
    # Each system as its latest run described it (shards of several runs may be merged).
    latest_systems: dict = {}
    for x in sorted(metas, key=lambda x: x.get("t") or 0):
        latest_systems.update(x.get("systems") or {})
    for name, d in latest_systems.items():
        lines.append(f"| system `{name}` | {d.get('label', name)}; model mode {d.get('mode')}, "
                     f"gpu row {d.get('gpu') or 'auto'}, clock for predicted time "
                     f"{_f((d.get('clock_hz') or 0) / 1e6, '{:.0f} MHz')} ({d.get('clock_key', '?')})"
                     + _pdl_text(name, d) + " |")
    return lines + [""]


def _pdl_text(name: str, system: dict) -> str:
    if name != "origami":  # the seed's Triton kernels have no such switch
        return ""
    if "programmatic_dependent_launch" not in system:
        return "; programmatic dependent launch not recorded (runs before it existed: off)"
    return "; programmatic dependent launch " + ("on" if system["programmatic_dependent_launch"] else "off")


def _mode_text(tm: dict) -> str:
    mode = tm.get("mode", "?")
    if mode == "rotate":
        return (f"CUDA-graph replays over rotating copies of A, B, C totalling >= {tm.get('rotate_l2_factor')}x L2 "
                f"(capped at {tm.get('max_rotations')} copies); median of {tm.get('repeats')} replays, spread = IQR")
    if mode == "flush":
        return (f"a {tm.get('flush_l2_factor')}x L2 buffer is written before every timed GEMM; median of "
                f"{tm.get('repeats')} single launches, spread = IQR")
    if mode == "warm":
        return f"CUDA-graph replays on one copy (L2-warm inputs); median of {tm.get('repeats')} replays"
    return mode


def render_markdown(an: dict, suite_name: str, mode: str, plots: list[str]) -> str:
    L = _header(an, suite_name, mode)
    rows, systems = an["rows"], an["systems"]
    L += ["## 7.2 Performance per size", "",
          "A = the model's pick run through its selection path; BF = fastest correct config of the brute force; "
          "cuBLAS = torch.matmul. TF = TFLOP/s (2MNK / median time). Spread of the pick = IQR of its samples. "
          "A/BF is a ratio of one run where the data has one (the pick and the best launch timed together; then it can "
          "differ from the TF columns' ratio, which are each launch's latest times); \u2020 marks an A/BF of two runs.", ""]
    for name in systems:
        L += [f"### {name}", "",
              "| Size | dtype | label | A (TF) | spread | BF (TF) | cuBLAS (TF) | A/BF | A/cuBLAS | pick | BF config | regs/spill | ok/tried |",
              "|---|---|---|---:|---:|---:|---:|---:|---:|---|---|---|---|"]
        for rw in rows:
            sr = rw.systems.get(name)
            if sr is None:
                continue
            p = sr.pick or {}
            spread = "-"
            if _ok(p) and p.get("q1_s") and p.get("q3_s"):
                spread = f"{(p['q3_s'] - p['q1_s']) / p['time_s']:.1%}"
            res = sr.pick_resources or {}
            regs = "-"
            if res:
                regs = f"{res.get('registers_per_thread', '?')}/{res.get('spill_store_bytes', 0)}B"
            pick_cfg = C.short(p.get("config")) if p.get("config") else "-"
            if p and not _ok(p):
                pick_cfg += f" **{p.get('status')}**"
            inc = "" if sr.complete else " (incomplete)"
            runs_mark = " \u2020" if sr.a_bf_runs == "across runs" else ""
            L.append(f"| {rw.size} | {rw.size.dtype} | {rw.size.label or ''} | {_f(sr.a_tflops)} | {spread} | "
                     f"{_f(sr.bf_tflops)} | {_f(rw.cublas_tflops)} | {_pct(sr.a_bf)}{runs_mark} | {_pct(sr.a_cublas)} | "
                     f"{pick_cfg} | {C.short((sr.bf or {}).get('config'))} | {regs} | "
                     f"{sr.n_ok}/{sr.n_configs}{inc} |")
        L.append("")
    L += ["## 7.3 Summary", "",
          "| Metric | " + " | ".join(systems) + " |", "|---|" + "---:|" * len(systems)]
    S = an["summary"]

    def srow(label, key, f):
        L.append(f"| {label} | " + " | ".join(f(S[n].get(key)) for n in systems) + " |")

    srow("sizes measured", "sizes", lambda v: str(v))
    srow("A/BF median", "a_bf_median", _pct)
    srow("A/BF min", "a_bf_min", _pct)
    srow("A/BF geometric mean", "a_bf_geomean", _pct)
    srow("sizes with A/BF >= 90%", "a_bf_ge_0_9", lambda v: str(v))
    srow("sizes whose A and BF are times of one run (pick and best launch timed together)", "a_bf_one_run",
         lambda v: str(v))
    srow(f"failures (pick cannot run, is wrong, or A/BF < {FAILURE_A_BF:.0%})", "failures", lambda v: str(v))
    srow("picks not timed (re-predicted launches no run measured; no A figure)", "picks_unmeasured", lambda v: str(v))
    srow("mean Kendall tau-b (predicted cycles vs measured time)", "tau_mean", lambda v: _f(v, "{:.3f}"))
    srow("A/cuBLAS median", "a_cublas_median", _pct)
    srow("A/cuBLAS geometric mean", "a_cublas_geomean", _pct)
    srow("BF/cuBLAS geometric mean", "bf_cublas_geomean", _pct)
    srow("selection time, cold (first query of a shape; Python API)", "selection_cold_median_s", _us)
    srow("selection time, cached (Python API)", "selection_cached_median_s", _us)
    srow("selection time, cached (torch.ops select_config)", "selection_op_cached_median_s", _us)
    srow("phase-1 ranking of every config, uncached (timed in C++)", "rank_cpp_median_s", _us)
    srow("pick: median abs. error of predicted time", "pick_pred_err_median_abs", _pct)
    L.append("")
    if an.get("classes"):
        L += ["### By class of size", "",
              "Classes (suites.size_class): batched (batch > 1), decode (M <= 16), small_m (M <= 512), long_k "
              "(K >= 4 max(M, N), <= 4M outputs), odd (a dimension not a multiple of 16), large.", "",
              "| system | class | sizes | A/BF geomean | A/BF min | mean tau | A/cuBLAS geomean | BF/cuBLAS geomean |",
              "|---|---|---:|---:|---:|---:|---:|---:|"]
        for n in systems:
            for cls, per in an["classes"].items():
                c = per[n]
                L.append(f"| {n} | {cls} | {c['sizes']} | {_pct(c['a_bf_geomean'])} | {_pct(c['a_bf_min'])} | "
                         f"{_f(c['tau_mean'], '{:.3f}')} | {_pct(c['a_cublas_geomean'])} | {_pct(c['bf_cublas_geomean'])} |")
        L.append("")
    for n in systems:
        if S[n]["failure_list"]:
            L.append(f"Failures of `{n}`: " + "; ".join(f"{k}: {why}" for k, why in S[n]["failure_list"]))
        if S[n].get("unmeasured_list"):
            L.append(f"Picks of `{n}` not timed (left out of the A figures): " +
                     "; ".join(f"{k}: {why}" for k, why in S[n]["unmeasured_list"]))
            L.append("")
    L += ["## 7.4 Ranking quality", "",
          "tau = Kendall tau-b between predicted cycles and measured time over every config that is both "
          "ranked by the model and ran correctly (n). Pred. rank = where the model ranks the measured best "
          "(#1 = the model's first choice). Meas. rank = where the pick's kernel lands in the measured order. "
          "Predicted time = predicted cycles / the model's clock.", ""]
    for name in systems:
        L += [f"### {name}", "",
              "| Size | tau | n | Pred. rank of BF | Meas. rank of pick | pick predicted | pick measured | error | median abs. error, all configs | wrong | errors | cut off |",
              "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
        for rw in rows:
            sr = rw.systems.get(name)
            if sr is None:
                continue
            pr = f"#{sr.pred_rank_of_best}/{sr.n_ranked}" if sr.pred_rank_of_best else "-"
            mr = f"#{sr.meas_rank_of_pick}/{sr.n_ok}" if sr.meas_rank_of_pick else "-"
            L.append(f"| {rw.size} | {_f(sr.tau, '{:.3f}')} | {sr.n_tau} | {pr} | {mr} | {_us(sr.pick_pred_s)} | "
                     f"{_us(sr.pick_meas_s)} | {_f(sr.pick_pred_err, '{:+.0%}')} | {_pct(sr.median_abs_pred_err)} | "
                     f"{sr.n_wrong} | {sr.n_error} | {sr.n_cut} |")
        L.append("")
    L += ["## Selection time per size", "",
          "| Size | " + " | ".join(f"{n} cold | {n} cached" for n in systems) + " |",
          "|---|" + "---:|---:|" * len(systems)]
    for rw in rows:
        cells = []
        for n in systems:
            sel = rw.systems[n].selection if n in rw.systems else {}
            cells += [_us(sel.get("api_cold_s")), _us(sel.get("api_cached_s"))]
        L.append(f"| {rw.size} | " + " | ".join(cells) + " |")
    L.append("")
    errs = [(rw.size.key, n, r) for rw in rows for n in systems
            for (s, sy, it), r in an["results"].items()
            if s == rw.size.key and sy == n and r.get("status") in ("wrong", "error", "crashed")]
    if errs:
        L += ["## Configs that failed", "", "| Size | system | config | status | detail |", "|---|---|---|---|---|"]
        for k, n, r in errs[:200]:
            L.append(f"| {k} | {n} | {r.get('config_id') or r.get('item')} | {r.get('status')} | "
                     f"{str(r.get('error', '')).replace('|', '/')[:140]} |")
        if len(errs) > 200:
            L.append(f"| ... | | {len(errs) - 200} more in the CSV | | |")
        L.append("")
    if plots:
        L += ["## Plots", ""] + [f"![{p}]({p})" for p in plots] + [""]
    return "\n".join(L)


CSV_FIELDS = ["suite", "size", "M", "N", "K", "dtype", "label", "system", "kind", "item", "status",
              "block_m", "block_n", "block_k", "group_size_m", "stages", "warps", "family",
              "admissible", "predicted_cycles", "predicted_s", "time_s", "q1_s", "q3_s", "min_s", "max_s",
              "tflops", "samples", "launches_per_sample", "rotations", "method", "cut_off", "rel_err",
              "post_rel_err", "registers_per_thread", "spill_store_bytes", "error"]


def _csv_rows(an: dict, suite_name: str):
    clock = {}
    for m in an["metas"]:
        for n, d in (m.get("systems") or {}).items():
            if d and d.get("clock_hz"):
                clock[n] = d["clock_hz"]
    sizes = {rw.size.key: rw.size for rw in an["rows"]}
    for (s, sy, it), r in an["results"].items():
        size = sizes.get(s)
        if size is None:
            continue
        cfg = r.get("config") or {}
        res = r.get("resources") or {}
        pc = r.get("predicted_cycles")
        row = {"suite": suite_name, "size": s, "M": size.M, "N": size.N, "K": size.K, "dtype": size.dtype,
               "label": size.label, "system": sy, "kind": r.get("kind"), "item": it,
               "predicted_s": (pc / clock[sy]) if (pc is not None and clock.get(sy)) else None,
               "registers_per_thread": res.get("registers_per_thread"),
               "spill_store_bytes": res.get("spill_store_bytes")}
        for k in CSV_FIELDS:
            if k not in row:
                row[k] = cfg.get(k) if k in C.FIELDS else r.get(k)
        if row.get("tflops") is None and r.get("time_s") and r.get("status") == "ok":
            row["tflops"] = _tflops(size, r["time_s"])
        yield row


def _plots(an: dict, out_dir: Path, stem: str) -> list[str]:
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except Exception:  # noqa: BLE001 - plots are optional; the tables carry the numbers
        return []
    rows, systems = an["rows"], an["systems"]
    if not rows:
        return []
    names = [f"{r.size.M},{r.size.N},{r.size.K}" for r in rows]
    made = []
    for metric, title, fname in (("a_bf", "A/BF (pick / brute force)", f"{stem}_a_bf.png"),
                                 ("a_cublas", "A/cuBLAS (pick / torch.matmul)", f"{stem}_a_cublas.png")):
        fig, ax = plt.subplots(figsize=(max(6, 0.45 * len(rows) + 2), 4.2))
        w = 0.8 / max(1, len(systems))
        for j, n in enumerate(systems):
            vals = [getattr(r.systems[n], metric) if n in r.systems else math.nan for r in rows]
            vals = [0.0 if not math.isfinite(v) else v for v in vals]
            ax.bar([i + j * w for i in range(len(rows))], vals, width=w, label=n)
        ax.axhline(1.0, color="k", lw=0.8)
        if metric == "a_bf":
            ax.axhline(0.9, color="gray", lw=0.8, ls="--")
        ax.set_xticks([i + w * (len(systems) - 1) / 2 for i in range(len(rows))])
        ax.set_xticklabels(names, rotation=70, ha="right", fontsize=7)
        ax.set_ylabel(metric.replace("_", "/").upper().replace("CUBLAS", "cuBLAS"))
        ax.set_title(title)
        ax.legend(fontsize=8)
        fig.tight_layout()
        fig.savefig(out_dir / fname, dpi=110)
        plt.close(fig)
        made.append(fname)
    clock = {}
    for m in an["metas"]:
        for n, d in (m.get("systems") or {}).items():
            if d and d.get("clock_hz"):
                clock[n] = d["clock_hz"]
    fig, ax = plt.subplots(figsize=(6, 5.5))
    any_pts = False
    lo, hi = math.inf, 0.0
    for n, marker in zip(systems, "o^sv"):
        if not clock.get(n):
            continue
        xs, ys = [], []
        for (s, sy, it), r in an["results"].items():
            if sy == n and r.get("kind") == "config" and _ok(r) and r.get("predicted_cycles") is not None:
                xs.append(r["time_s"] * 1e6)
                ys.append(r["predicted_cycles"] / clock[n] * 1e6)
        if xs:
            any_pts = True
            ax.scatter(xs, ys, s=6, alpha=0.5, marker=marker, label=f"{n} ({len(xs)} configs)")
            lo, hi = min(lo, *xs, *ys), max(hi, *xs, *ys)
    if any_pts and lo > 0:
        ax.plot([lo, hi], [lo, hi], "k-", lw=0.8)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("measured time per GEMM (us)")
        ax.set_ylabel("predicted time = cycles / clock (us)")
        ax.set_title("predicted vs measured, every timed config")
        ax.legend(fontsize=8)
        fig.tight_layout()
        fig.savefig(out_dir / f"{stem}_pred_vs_meas.png", dpi=110)
        made.append(f"{stem}_pred_vs_meas.png")
    plt.close(fig)
    return made


def write_report(raw_dir: Path, out_dir: Path, suite: Suite | None, suite_name: str, mode: str,
                 plots: bool = True, extra_raw_dirs=(), repredict: bool = False, repredict_gpu: str | None = None,
                 kernel_table: list | None = None) -> dict:
    """Merge every shard in raw_dir (and extra_raw_dirs) and write <stem>.md/.csv/.json(+ .png) into out_dir.
    repredict: replace the stored predictions and the origami pick with the installed model's
    (bench/repredict.py; no GPU)."""
    records = C.drop_superseded(load_records(*extra_raw_dirs, raw_dir))
    rp_info = None
    if repredict:
        from .repredict import repredict as _repredict
        records, rp_info = _repredict(records, repredict_gpu, kernel_table)
    an = analyze(records, suite)
    an["repredicted"] = rp_info
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    stem = suite_name if mode == "rotate" else f"{suite_name}-{mode}"
    made = _plots(an, out_dir, stem) if plots else []
    (out_dir / f"{stem}.md").write_text(render_markdown(an, suite_name, mode, made), encoding="utf-8")
    with open(out_dir / f"{stem}.csv", "w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=CSV_FIELDS, extrasaction="ignore")
        w.writeheader()
        for row in _csv_rows(an, suite_name):
            w.writerow(row)
    doc = {"suite": suite_name, "mode": mode, "metas": an["metas"], "summary": an["summary"],
           "classes": an.get("classes") or {},
           "sizes_total": an["sizes_total"], "sizes_measured": an["sizes_measured"],
           "rows": [{"size": rw.size.to_dict(), "key": rw.size.key, "cublas_tflops": rw.cublas_tflops,
                     "systems": {n: {k: v for k, v in sr.__dict__.items() if k not in ("pick", "bf")} |
                                 {"pick_config": (sr.pick or {}).get("config"), "bf_config": (sr.bf or {}).get("config")}
                                 for n, sr in rw.systems.items()}} for rw in an["rows"]],
           "records": [r for r in an["results"].values()]}
    (out_dir / f"{stem}.json").write_text(json.dumps(_clean(doc), indent=1, sort_keys=True, default=str),
                                          encoding="utf-8")
    an["files"] = [f"{stem}.md", f"{stem}.csv", f"{stem}.json"] + made
    an["stem"] = stem
    return an


def summary_table(an: dict) -> str:
    """The short table the CLI prints last."""
    systems = an["systems"]
    head = f"{'size':>22} {'cuBLAS':>7}"
    for n in systems:
        head += f" | {n[:7]:>7} A {'BF':>6} {'A/BF':>6} {'tau':>6}"
    lines = [head]
    for rw in an["rows"]:
        s = f"{rw.size.M:>6}x{rw.size.N:>6}x{rw.size.K:>6}  {_f(rw.cublas_tflops):>7}"
        for n in systems:
            sr = rw.systems.get(n)
            if sr is None:
                s += " |" + " " * 32
                continue
            s += f" | {_f(sr.a_tflops):>9} {_f(sr.bf_tflops):>6} {_f(sr.a_bf, '{:.2f}'):>6} {_f(sr.tau, '{:.3f}'):>6}"
            if not sr.complete:
                s += "*"
        lines.append(s)
    for n in systems:
        S = an["summary"][n]
        lines.append(f"{n}: A/BF median {_f(S['a_bf_median'], '{:.3f}')} min {_f(S['a_bf_min'], '{:.3f}')} "
                     f"geomean {_f(S['a_bf_geomean'], '{:.3f}')}, failures {S['failures']}, "
                     f"picks not timed {S['picks_unmeasured']}, "
                     f"mean tau {_f(S['tau_mean'], '{:.3f}')}, A/cuBLAS geomean {_f(S['a_cublas_geomean'], '{:.3f}')}, "
                     f"selection cold {_us(S['selection_cold_median_s'])} cached {_us(S['selection_cached_median_s'])}")
    lines.append(f"sizes complete: {an['sizes_measured']}/{an['sizes_total']} (* = incomplete)")
    return "\n".join(lines)
