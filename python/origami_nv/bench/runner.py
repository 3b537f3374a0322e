"""The A/BF run loop: for every size of a shard, cuBLAS, then per system (origami, seed) the pick
through its selection path and the brute force over every runnable config.

The loop knows nothing about torch: a harness (timing.CudaHarness, or a fake in tests) prepares
inputs and times functions; a system (systems.py, or a fake) lists configs, picks one and makes
callables. Everything measured is appended to the raw store as it is produced.

Rules (benchmarks/METHOD.md):
  * correctness first: a config whose output is off by more than the dtype's tolerance is
    recorded as `wrong` and never timed; one that raises is recorded as `error`.
  * cut-off: a config whose first timed sample is more than `cutoff_factor` x the best fully
    timed config of the same size and system is recorded after that one sample (cut_off=True).
    Configs run in predicted order (the pick's kernel first), so the best-so-far is good early.
  * budget: before each item the remaining time is compared with the cost of the last item;
    the run stops cleanly (a `stopped` record) and a re-run resumes where it stopped.
"""
from __future__ import annotations

import math
import os
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from . import configs as C
from .store import RawStore, ResumeIndex, load_records
from .suites import Suite, shard_sizes
from .timing import DeviceError, LaunchError


_now = time.monotonic  # the run's clock (tests replace it with a simulated one)
EXIT_HUNG = 4           # = cli.EXIT_DEVICE


def _layout_of(system, size) -> str:
    """The operand layout the system runs a size with (its own, or "nt" where the run passes B = W.t())."""
    return C.launched_layout(getattr(size, "layout", None), getattr(system, "b_layout", "row") or "row")


class Interrupted(BaseException):
    """SIGTERM/SIGINT arrived (an outer time limit): stop cleanly, keep what was measured."""


def interrupt_on_signals():
    """SIGTERM/SIGINT raise Interrupted in the main thread (the run then stops cleanly and the
    report is still written). Returns a function that restores the previous handlers."""
    import signal

    def handler(signum, frame):
        raise Interrupted(signal.Signals(signum).name)

    previous = {sig: signal.signal(sig, handler) for sig in (signal.SIGTERM, signal.SIGINT)}

    def restore():
        for sig, h in previous.items():
            signal.signal(sig, h)
    return restore


class SystemUnavailable(RuntimeError):
    """A system (e.g. the seed's Triton kernel without triton) cannot run on this machine."""


@dataclass
class RunOptions:
    shard: tuple = (0, 1)
    time_budget_s: float | None = None
    cutoff_factor: float = 4.0
    bf_limit: int | None = None       # time only the pick's kernel + this many best-predicted configs
    cublas: bool = True
    argv: list = field(default_factory=list)
    resume_dirs: list = field(default_factory=list)   # more raw folders whose results count as done
    unavailable: dict = field(default_factory=dict)   # system -> why it could not run (shown in the report)
    # Watchdog: an item (one config) running longer than this, or the run running this long past
    # its time budget, is taken to hang (a kernel deadlock): it is recorded as crashed, on_hang runs
    # (the CLI writes the report) and the process exits with EXIT_DEVICE. None = no watchdog.
    item_timeout_s: float | None = None
    budget_grace_s: float = 30.0
    on_hang: object = None
    # Re-time the split-K launches that were measured with an older reduction kernel
    # (configs.stale_split_record): their records in the resumed data are ignored, and so are the origami
    # system's size_done marks of sizes that have such records, so those sizes are visited again (only their
    # split launches, and a pick the installed model changed, are timed).
    retime_split: bool = False
    # ...and, likewise, every launch (config or pick) that a kernel change since its measurement altered
    # (configs.stale_kernel_record, configs.KERNEL_CHANGES).
    retime_stale: bool = False
    # ...and every launch of ours whose samples spread wider than stats.MAX_SPREAD (configs.noisy_record).
    retime_noisy: bool = False
    # Time every size's pick again, with its same-run reference (the size's fastest launch so far, timed right after
    # it: store.py "reference"), where the pick record has none: the report's A/BF is then a ratio of two times of
    # one run. A pick re-timed after a model change gets its reference without this option.
    retime_picks: bool = False


@dataclass
class RunOutcome:
    complete: bool
    reason: str = ""
    sizes_done: int = 0
    sizes_total: int = 0
    items_measured: int = 0
    device_error: bool = False


class Budget:
    def __init__(self, seconds: float | None):
        self.start = _now()
        self.deadline = None if seconds is None else self.start + float(seconds)
        self.last_item_s = 0.0

    def left(self) -> float:
        return math.inf if self.deadline is None else self.deadline - _now()

    def allows(self, estimate_s: float | None = None) -> bool:
        est = self.last_item_s if estimate_s is None else estimate_s
        # keep a margin of the last item's cost (the next is usually similar) + 1 s
        return self.left() > est + 1.0


def order_candidates(cands: list, pick_cfg: dict | None, limit: int | None) -> list:
    """Pick's kernel first, then ascending predicted cycles, unpredicted configs last (stable)."""
    pick_kid = C.kernel_id(pick_cfg) if pick_cfg else None

    def key(ix_c):
        ix, c = ix_c
        first = 0 if (pick_kid is not None and C.kernel_id(c.config) == pick_kid) else 1
        pc = c.predicted_cycles
        return (first, 0 if pc is not None else 1, pc if pc is not None else 0.0, ix)

    ordered = [c for _, c in sorted(enumerate(cands), key=key)]
    if limit is not None and limit >= 0:
        head = 1 if (ordered and pick_kid is not None and C.kernel_id(ordered[0].config) == pick_kid) else 0
        ordered = ordered[: head + limit]
    return ordered


class Runner:
    def __init__(self, suite: Suite, raw_dir: Path, harness, systems: list, options: RunOptions,
                 log=None):
        self.suite = suite
        self.raw_dir = Path(raw_dir)
        self.h = harness
        self.systems = systems
        self.opt = options
        self.log = log or (lambda msg: print(msg, file=sys.stderr, flush=True))
        self.store = RawStore(self.raw_dir, options.shard)
        records = load_records(*options.resume_dirs, self.raw_dir)
        if options.retime_split or options.retime_stale or options.retime_noisy:
            twins = C.disagreeing_twins(records) if options.retime_noisy else set()

            def is_stale(r):
                return ((options.retime_stale and C.stale_record(r)) or (options.retime_split and C.stale_split_record(r))
                        or (options.retime_noisy and (C.noisy_record(r) or (
                            r.get("kind") in ("config", "pick")
                            and (r.get("size"), r.get("system"), r.get("item")) in twins))))
            stale = {(r.get("size"), r.get("system")) for r in records if is_stale(r)}
            # A dropped result takes its attempt record along: an attempt without a result reads as a crash
            # (ResumeIndex.crashed). Stale attempts are stale themselves; a noisy result's attempt is not.
            dropped = {(r.get("size"), r.get("system"), r.get("item")) for r in records
                       if is_stale(r) and r.get("kind") != "attempt"}
            records = [r for r in records if not is_stale(r)
                       and not (r.get("kind") == "attempt" and (r.get("size"), r.get("system"), r.get("item")) in dropped)
                       and not (r.get("kind") == "size_done" and (r.get("size"), r.get("system")) in stale)]
        self.index = ResumeIndex(records)
        # Resumed launches a kernel change superseded (configs.drop_superseded, as the report drops them): not a best
        # launch to time a reference of.
        # (by key and time, not id(): a dropped record's id can be reused by a record this run writes)
        kept = {id(r) for r in C.drop_superseded(records)}
        self._superseded = {self._record_key(r) for r in records if id(r) not in kept}
        self._timed_kernels_cache = None  # _timed_kernels
        self.budget = Budget(options.time_budget_s)
        self.measured = 0
        self._current = None          # (attempt record, start time) of the item in flight
        self._extras: dict[str, dict] = {}  # item -> the run loop's fields of its record, this size and system
        self._lock = threading.Lock()
        if options.item_timeout_s is not None:
            threading.Thread(target=self._watchdog, name="bench-watchdog", daemon=True).start()

    def _watchdog(self):
        while True:
            time.sleep(1.0)
            with self._lock:
                cur = self._current
            if cur is None:
                continue
            rec, t0 = cur
            elapsed = _now() - t0
            over_budget = self.budget.deadline is not None and _now() > self.budget.deadline + self.opt.budget_grace_s
            if elapsed > self.opt.item_timeout_s or over_budget:
                why = (f"hung: no result after {elapsed:.0f} s (watchdog, item timeout {self.opt.item_timeout_s:.0f} s"
                       f"{', past the time budget' if over_budget else ''})")
                self.store.append({"kind": rec.get("result_kind", "config"), "suite": self.suite.name,
                                   "size": rec.get("size"), "size_info": rec.get("size_info"),
                                   "system": rec.get("system"), "item": rec.get("item"), "status": "crashed",
                                   "config": rec.get("config"), "config_id": rec.get("config_id"),
                                   "predicted_cycles": rec.get("predicted_cycles"), "error": why})
                self.store.append({"kind": "stopped", "suite": self.suite.name, "size": rec.get("size"),
                                   "reason": why})
                self.log(f"[bench] {why}: {rec.get('item')} at {rec.get('size')}; exiting, re-run to resume")
                try:
                    if callable(self.opt.on_hang):
                        self.opt.on_hang()
                finally:
                    os._exit(EXIT_HUNG)

    # ---- records -----------------------------------------------------------------------
    def _rec(self, kind: str, size=None, system=None, item=None, **fields) -> dict:
        rec = {"kind": kind, "suite": self.suite.name}
        if isinstance(size, str):
            rec["size"] = size
        elif size is not None:
            rec["size"] = size.key
            rec["size_info"] = size.to_dict()
        if system is not None:
            rec["system"] = system
        if item is not None:
            rec["item"] = item
        rec.update(fields)
        rec = self.store.append(rec)
        self.index.add(rec)
        return rec

    # ---- one function: check, then time ------------------------------------------------
    def _measure(self, ctx, make_fn, cutoff_s=None) -> dict:
        """-> fields of a result record: status ok/wrong/error, rel_err, timing."""
        t0 = _now()
        try:
            fn = make_fn()
        except DeviceError:
            raise
        except Exception as e:  # noqa: BLE001 - cannot build/launch: a reported failure
            return {"status": "error", "error": f"{type(e).__name__}: {e}"[:500]}
        try:
            err = self.h.check(ctx, fn)
        except LaunchError as e:
            return {"status": "error", "error": str(e)[:500]}
        fields = {"rel_err": err, "tolerance": ctx.tolerance}
        if not (err <= ctx.tolerance):
            fields.update(status="wrong", error=f"relative error {err:.3g} > tolerance {ctx.tolerance:g}")
            return fields
        try:
            t = self.h.time(ctx, fn, cutoff_s=cutoff_s)
        except LaunchError as e:
            fields.update(status="error", error=str(e)[:500])
            return fields
        fields.update(t.to_dict())
        if t.post_rel_err is not None and not (t.post_rel_err <= ctx.tolerance):
            fields.update(status="wrong",
                          error=f"output of the timed graph: relative error {t.post_rel_err:.3g}")
        else:
            fields["status"] = "ok"
        fields["tflops"] = ctx.size.flops / t.time_s / 1e12 if fields["status"] == "ok" else 0.0
        fields["measure_s"] = _now() - t0
        return fields

    def _stop(self, reason: str, size=None) -> RunOutcome:
        self._rec("stopped", size=size, reason=reason, budget_left_s=self.budget.left())
        self.log(f"[bench] stopped: {reason}; re-run the same command to resume")
        return RunOutcome(False, reason)

    def _item(self, size, system_name, item, ctx, make_fn, cutoff_s=None, kind="config", extra=None):
        self._extras[item] = extra or {}  # (what _recheck_pick_twin times again with)
        att = self._rec("attempt", size=size, system=system_name, item=item, result_kind=kind, **(extra or {}))
        t0 = _now()
        with self._lock:
            self._current = (att, t0)
        try:
            fields = self._measure(ctx, make_fn, cutoff_s)
        except DeviceError as e:
            self._rec(kind, size=size, system=system_name, item=item, status="error",
                      error=f"device error: {e}"[:500], **(extra or {}))
            raise
        except Interrupted:
            # not a crash of this item: the next run measures it again
            self._rec("cancelled", size=size, system=system_name, item=item)
            raise
        finally:
            with self._lock:
                self._current = None
        rec = self._rec(kind, size=size, system=system_name, item=item, **(extra or {}), **fields)
        self.budget.last_item_s = _now() - t0
        self.measured += 1
        return rec

    # ---- the run -----------------------------------------------------------------------
    def run(self) -> RunOutcome:
        sizes = shard_sizes(self.suite.sizes, self.opt.shard)
        for a in self.index.crashed():
            self._rec(a.get("result_kind", "config"), size=a.get("size"), system=a.get("system"),
                      item=a.get("item"), status="crashed", size_info=a.get("size_info"),
                      config=a.get("config"), config_id=a.get("config_id"),
                      predicted_cycles=a.get("predicted_cycles"),
                      error="the process died (or was killed) while running this item")
        self._rec("meta", device=self.h.device_info(), timing=self.h.timing_description(),
                  systems={s.name: s.describe() for s in self.systems}, shard=list(self.opt.shard),
                  sizes=[s.key for s in sizes], argv=self.opt.argv, cutoff_factor=self.opt.cutoff_factor,
                  bf_limit=self.opt.bf_limit, time_budget_s=self.opt.time_budget_s,
                  unavailable=self.opt.unavailable, retime_stale=self.opt.retime_stale)
        try:
            return self._run_sizes(sizes)
        except Interrupted:
            out = self._stop("interrupted (SIGTERM/SIGINT)")
            out.sizes_total, out.items_measured = len(sizes), self.measured
            return out

    def _run_sizes(self, sizes) -> RunOutcome:
        done = 0
        for n_size, size in enumerate(sizes):
            names = [s.name for s in self.systems] + (["cublas"] if self.opt.cublas else [])
            if all((size.key, n) in self.index.size_done for n in names) and \
                    not any(self._pick_changed(size, s) or self._reference_pending(size, s) or
                            self._untimed_kernels(size, s) for s in self.systems):
                done += 1
                continue
            if not self.budget.allows():
                out = self._stop("time budget", size)
                out.sizes_done, out.sizes_total, out.items_measured = done, len(sizes), self.measured
                return out
            self.log(f"[bench] {self.suite.name} {size.key} ({n_size + 1}/{len(sizes)}), "
                     f"{self.budget.left():.0f} s left")
            try:
                finished = self._run_size(size)
            except DeviceError as e:
                out = self._stop(f"device error: {e}", size)
                out.device_error = True
                out.sizes_done, out.sizes_total, out.items_measured = done, len(sizes), self.measured
                return out
            if not finished:
                out = self._stop("time budget", size)
                out.sizes_done, out.sizes_total, out.items_measured = done, len(sizes), self.measured
                return out
            done += 1
        return RunOutcome(True, "", done, len(sizes), self.measured)

    def _run_size(self, size) -> bool:
        """Measure what is missing for one size. False when the budget ran out inside it."""
        try:
            ctx = self.h.prepare(size)
        except DeviceError:
            raise
        except Exception as e:  # noqa: BLE001 - e.g. out of memory for the inputs: a reported failure
            for s in self.systems:
                self._rec("pick", size=size, system=s.name, item="pick", status="error",
                          error=f"inputs could not be prepared: {type(e).__name__}: {e}"[:500])
                self._rec("size_done", size=size, system=s.name)
            if self.opt.cublas:
                self._rec("baseline", size=size, system="cublas", item="cublas", status="error",
                          error=f"inputs could not be prepared: {type(e).__name__}: {e}"[:500])
                self._rec("size_done", size=size, system="cublas")
            return True
        try:
            if self.opt.cublas and (size.key, "cublas") not in self.index.size_done:
                if not self.index.has(size.key, "cublas", "cublas"):
                    self._item(size, "cublas", "cublas", ctx, lambda: self.h.cublas_fn(), kind="baseline",
                               extra={"rotated_l2_ratio": ctx.extra.get("rotated_l2_ratio")})
                self._rec("size_done", size=size, system="cublas")
            for system in self.systems:
                repick = self._pick_changed(size, system) or self._reference_pending(size, system)
                if (size.key, system.name) in self.index.size_done and not repick and \
                        not self._untimed_kernels(size, system):
                    continue
                if not self._run_system(size, system, ctx, repick):
                    return False
                self._rec("size_done", size=size, system=system.name, bf_limit=self.opt.bf_limit)
            return True
        finally:
            self.h.release(ctx)

    def _untimed_kernels(self, size, system) -> bool:
        """True when the system has a compiled kernel that no record of this size has timed (a kernel added to the
        build since the size was done, 2026-11-25: the wgmma 64x64 / 64x128 tiles): the size is visited again and
        only what is missing is timed, so the brute force stays the fastest of every compiled kernel. Systems
        without a kernel list (the seed's Triton configs), and a brute force limited by --bf-limit, are not."""
        if self.opt.bf_limit is not None or not getattr(system, "compiled_kernel_list", False):
            return False
        try:
            cands = system.candidates(size)
        except Exception:  # noqa: BLE001 - the normal path reports candidate failures
            return False
        timed = self._timed_kernels.get((size.key, system.name), set())
        return any(C.compiled_kernel_id(C.normalize(c.config)) not in timed
                   for c in cands if C.split_k_of(c.config) <= 1)

    @property
    def _timed_kernels(self) -> dict:
        """(size, system) -> compiled kernels the resumed records timed there: one pass over the records, not one
        per size (asked before a size runs, so what this run adds later is never needed)."""
        if self._timed_kernels_cache is None:
            out: dict[tuple, set] = {}
            for (sk, sy, _), r in self.index.results.items():
                if r.get("kind") == "config" and r.get("config"):
                    out.setdefault((sk, sy), set()).add(C.compiled_kernel_id(C.normalize(r["config"])))
            self._timed_kernels_cache = out
        return self._timed_kernels_cache

    def _pick_changed(self, size, system) -> bool:
        """True when a pick was measured for (size, system) and the system now picks another
        config (the model changed since): the new pick is measured (it replaces the old one in the
        report, later records win) while every config already timed is skipped."""
        old = self.index.results.get((size.key, system.name, "pick"))
        if old is None or not old.get("config"):
            return False
        if not C.pick_record_trusted(old, size.M, size.N, size.K, _layout_of(system, size), size.dtype,
                                     getattr(size, "batch", 1)):
            return True  # selected without the operands' alignment at a misaligned size: measure it again
        try:
            cur = system.pick(size)
        except Exception:  # noqa: BLE001 - the normal path reports selection failures
            return False
        return C.config_id(cur.config) != C.config_id(old["config"])

    @staticmethod
    def _record_key(r: dict) -> tuple:
        return (r.get("kind"), r.get("size"), r.get("system"), r.get("item"), r.get("t"))

    def _reference_pending(self, size, system) -> bool:
        """--retime-picks: the size's timed pick has no reference from its own run (store.py "reference")."""
        if not self.opt.retime_picks:
            return False
        pick = self.index.results.get((size.key, system.name, "pick"))
        if pick is None or pick.get("status") != "ok" or not pick.get("config"):
            return False
        ref = self.index.results.get((size.key, system.name, "reference"))
        return not (ref is not None and ref.get("pick_t") == pick.get("t"))

    def _time_reference(self, size, system, ctx, pick_rec: dict) -> None:
        """Time the size's fastest launch so far again, right after its pick was timed in this run: A/BF from one
        run. Across runs (resumed data; other sessions' machines) the same launch moved by up to 20 % at decode
        (H100 gen-valid 1x2048x3072: 64x96 split 3 at 8.80, 8.99 and, as the pick, 10.76 us in three runs)."""
        best = None
        for (s, sy, _), r in self.index.results.items():
            if s == size.key and sy == system.name and r.get("kind") == "config" and r.get("status") == "ok" \
                    and not r.get("cut_off") and r.get("time_s") and r.get("config") and self._record_key(r) not in self._superseded:
                if best is None or r["time_s"] < best["time_s"]:
                    best = r
        if best is None or not self.budget.allows():
            return
        cfg = C.normalize(best["config"])
        extra = {"config": cfg, "config_id": C.config_id(cfg), "pick_t": pick_rec.get("t"),
                 "pick_config_id": pick_rec.get("config_id"), "resumed_time_s": best["time_s"]}
        if C.split_k_of(cfg) > 1:
            extra["split_k_reduction"] = C.SPLIT_K_REDUCTION_VERSION
        if getattr(system, "kernel_version", None) is not None:
            extra["kernel_version"] = system.kernel_version
        self._item(size, system.name, "reference", ctx, lambda: system.config_fn(size, cfg), kind="reference",
                   extra=extra)

    def _run_system(self, size, system, ctx, repick: bool = False) -> bool:
        name = system.name
        self._extras = {}
        pick = None
        timed_pick = None  # the pick record this run wrote
        if repick or not self.index.has(size.key, name, "pick"):
            if not self.budget.allows():
                return False
            # Selection time first: "cold" is the first query of this shape in this process.
            try:
                sel = system.selection_times(size)
                pick = system.pick(size)
            except Exception as e:  # noqa: BLE001 - the selector refused the shape: a failure
                self._rec("pick", size=size, system=name, item="pick", status="error",
                          error=f"selection failed: {type(e).__name__}: {e}"[:500])
                pick = None
            else:
                extra = {"config": pick.config, "config_id": C.config_id(pick.config),
                         "predicted_cycles": pick.predicted_cycles, "selection": sel,
                         "via": pick.via}
                if getattr(system, "kernel_version", None) is not None:
                    extra["kernel_version"] = system.kernel_version
                # The alignment the selection was told (what matmul copies first): a pick recorded without it
                # may not be the kernel the op ran at a misaligned size (C.pick_record_trusted).
                extra["operand_alignment"] = C.operand_alignment(size.M, size.N, size.K, _layout_of(system, size),
                                                                 size.dtype, getattr(size, "batch", 1))
                if repick:  # the shape was queried by _pick_changed first: "cold" is not cold
                    extra["repick"] = True
                    extra["selection_note"] = "re-pick after a model change: the shape was selected once before timing"
                timed_pick = self._item(size, name, "pick", ctx, lambda: system.pick_fn(size, pick), kind="pick",
                                        extra=extra)
        else:
            r = self.index.results[(size.key, name, "pick")]
            if r.get("config"):
                from .systems import Pick
                pick = Pick(config=r["config"], predicted_cycles=r.get("predicted_cycles"), via=r.get("via", ""))
        try:
            cands = system.candidates(size)
        except Exception as e:  # noqa: BLE001
            self._rec("config", size=size, system=name, item="(candidates)", status="error",
                      error=f"could not list configs: {type(e).__name__}: {e}"[:500])
            return True
        cands = order_candidates(cands, pick.config if pick else None, self.opt.bf_limit)
        if pick is not None and pick.config and all(C.config_id(c.config) != C.config_id(pick.config) for c in cands):
            # The pick runs its phase-2 GROUP_SIZE_M; ranked configs carry the phase-1 value. Time the
            # exact pick as well, so BF always contains it (not in tau: it has no phase-1 prediction).
            from .systems import Candidate
            same = [c for c in cands if C.kernel_id(c.config) == C.kernel_id(pick.config)]
            cands.insert(0, Candidate(dict(pick.config), None, same[0].resources if same else None, True))
        best = self.index.best_time(size.key, name)
        todo = [c for c in cands if not self.index.has(size.key, name, C.config_id(c.config))]
        if todo and hasattr(system, "prepare_candidates"):
            system.prepare_candidates(size, todo)
        if not self._time_candidates(size, system, ctx, cands, best):
            return False
        if timed_pick is not None and not self._recheck_pick_twin(size, system, ctx, timed_pick, pick):
            return False
        # A second pass where the system has one (origami: split-K of the fastest unsplit kernels), from what
        # the first pass measured.
        if hasattr(system, "extra_candidates") and self.opt.bf_limit is None:
            measured = {}
            for (s, sy, _), r in self.index.results.items():
                if s == size.key and sy == name and r.get("kind") == "config" and r.get("status") == "ok" \
                        and not r.get("cut_off") and r.get("time_s") and r.get("config"):
                    measured[r.get("config_id")] = (r["time_s"], C.normalize(r["config"]))
            more = system.extra_candidates(size, measured)
            if more and not self._time_candidates(size, system, ctx, more, self.index.best_time(size.key, name),
                                                  second_pass=True):
                return False
        if repick and timed_pick is not None and timed_pick.get("status") == "ok":
            # A pick timed again in a later run than the brute force: its best launch with it (a first visit times
            # the pick and the brute force in one run already).
            self._time_reference(size, system, ctx, timed_pick)
        return True

    def _recheck_pick_twin(self, size, system, ctx, timed_pick: dict, pick) -> bool:
        """Time the pick and its config twin (one kernel, one config) again, in the other order, where this run's
        timings of the two disagree by more than configs.TWIN_DISAGREEMENT (at the 700 W limit the clock follows what
        ran before, and the A/BF of the size would be the ratio of two GPU states). The new records supersede the
        first ones: the index and every reader keep an item's latest result. False where the budget stopped the run
        (a later `--retime-noisy` finds the pair: configs.disagreeing_twins)."""
        name, cid = system.name, timed_pick.get("config_id")
        twin = self.index.results.get((size.key, name, cid))
        if (twin is None or twin.get("status") != "ok" or twin.get("cut_off") or timed_pick.get("status") != "ok"
                or twin.get("t", 0.0) < timed_pick.get("t", 0.0) or not twin.get("time_s")
                or not timed_pick.get("time_s") or cid not in self._extras or "pick" not in self._extras):
            return True   # (no twin timed in this run, or one of the two did not run: nothing to compare)
        ratio = twin["time_s"] / timed_pick["time_s"]
        if abs(math.log(ratio)) <= math.log1p(C.TWIN_DISAGREEMENT):
            return True
        if not self.budget.allows():
            return False
        why = f"the pick and its config twin, timed back to back, differed (config / pick {ratio:.3f})"
        self._item(size, name, cid, ctx, lambda: system.config_fn(size, twin["config"]),
                   extra={**self._extras[cid], "twin_recheck": why})
        self._item(size, name, "pick", ctx, lambda: system.pick_fn(size, pick), kind="pick",
                   extra={**self._extras["pick"], "twin_recheck": why})
        return True

    def _time_candidates(self, size, system, ctx, cands, best, second_pass: bool = False) -> bool:
        name = system.name
        for cand in cands:
            cid = C.config_id(cand.config)
            if self.index.has(size.key, name, cid):
                continue
            if not self.budget.allows():
                return False
            cutoff = best * self.opt.cutoff_factor if (best and self.opt.cutoff_factor) else None
            extra = {"config": cand.config, "config_id": cid, "predicted_cycles": cand.predicted_cycles,
                     "resources": cand.resources, "admissible": cand.admissible}
            if second_pass:
                extra["bf_pass"] = "split-K of the fastest unsplit kernels"
            if C.split_k_of(cand.config) > 1:
                extra["split_k_reduction"] = C.SPLIT_K_REDUCTION_VERSION
            if getattr(system, "kernel_version", None) is not None:
                extra["kernel_version"] = system.kernel_version
            rec = self._item(size, name, cid, ctx, lambda c=cand: system.config_fn(size, c.config),
                             cutoff_s=cutoff, extra=extra)
            if rec.get("status") == "ok" and not rec.get("cut_off"):
                best = rec["time_s"] if best is None else min(best, rec["time_s"])
        return True


def run_suite(suite: Suite, raw_dir: Path, harness, systems: list, options: RunOptions, log=None) -> RunOutcome:
    return Runner(suite, raw_dir, harness, systems, options, log).run()
