"""The A/BF run loop on synthetic timings: correctness gate, cut-off, budget stop, resume, crash
recovery, shards and their merge (no GPU)."""
import json

import pytest

from origami_nv.bench import configs as C
from origami_nv.bench import runner as runner_mod
from origami_nv.bench.fake import FakeHarness, FakeSystem
from origami_nv.bench.runner import RunOptions, order_candidates, run_suite
from origami_nv.bench.store import load_records
from origami_nv.bench.suites import Size, Suite
from origami_nv.bench.systems import Candidate


def cfg(bm, bn, bk, g=8, stages=3, warps=4):
    return {"block_m": bm, "block_n": bn, "block_k": bk, "group_size_m": g, "stages": stages, "warps": warps,
            "family": "mma_sync"}


A, B, Cc, D, E = cfg(128, 128, 32), cfg(64, 128, 32), cfg(128, 64, 64), cfg(32, 32, 32), cfg(256, 128, 64)
ID = {k: C.config_id(v) for k, v in dict(A=A, B=B, C=Cc, D=D, E=E).items()}
SUITE = Suite("t", "test", (Size(256, 256, 256), Size(512, 512, 512), Size(1024, 1024, 1024)))


def make(times=None, errors=None, launch=None, build=None, advance=None):
    # predicted order: A < B < C < D; E not ranked by the model (filtered) but runnable
    sysm = FakeSystem("origami", [(A, 1000.0), (B, 1100.0), (Cc, 1500.0), (D, 9000.0), (E, None)], pick=A,
                      build_errors=build)
    t = {"cublas": 1.0e-6, ID["A"]: 1.2e-6, ID["B"]: 1.0e-6, ID["C"]: 2.0e-6,
         ID["D"]: 10e-6, ID["E"]: 1.5e-6}
    t.update(times or {})
    h = FakeHarness(t, errors=errors, launch_errors=launch, advance=advance)
    return h, sysm


def results(raw):
    return [r for r in load_records(raw) if r["kind"] in ("config", "pick", "baseline")]


def test_full_run_records_everything(tmp_path):
    h, s = make(errors={ID["C"]: 0.5}, launch={ID["D"]}, build={ID["E"]})
    out = run_suite(SUITE, tmp_path, h, [s], RunOptions())
    assert out.complete and out.sizes_done == 3
    recs = results(tmp_path)
    by = {(r["size"], r["item"]): r for r in recs}
    k = SUITE.sizes[0].key
    assert by[(k, "cublas")]["status"] == "ok"
    assert by[(k, "pick")]["status"] == "ok" and by[(k, "pick")]["config_id"] == ID["A"]
    assert by[(k, ID["A"])]["status"] == "ok"
    # wrong result: recorded, never timed
    assert by[(k, ID["C"])]["status"] == "wrong" and "relative error" in by[(k, ID["C"])]["error"]
    assert (k, ID["C"], None) not in [(a, b, None) for a, b, _ in h.timed]
    assert all(item != ID["C"] for _, item, _ in h.timed)
    # cannot launch / cannot build: recorded as errors
    assert by[(k, ID["D"])]["status"] == "error" and "fake launch failure" in by[(k, ID["D"])]["error"]
    assert by[(k, ID["E"])]["status"] == "error" and "no compiled kernel" in by[(k, ID["E"])]["error"]
    done = {(r["size"], r["system"]) for r in load_records(tmp_path) if r["kind"] == "size_done"}
    assert done == {(z.key, n) for z in SUITE.sizes for n in ("origami", "cublas")}


def test_pick_kernel_first_then_predicted_order_and_limit():
    cands = [Candidate(D, 9000.0), Candidate(E, None), Candidate(B, 1100.0), Candidate(Cc, 1500.0),
             Candidate(dict(A, group_size_m=1), 1000.0)]
    got = [C.kernel_id(c.config) for c in order_candidates(cands, Cc, None)]
    assert got == [C.kernel_id(x) for x in (Cc, A, B, D, E)]
    got = [C.kernel_id(c.config) for c in order_candidates(cands, Cc, 2)]
    assert got == [C.kernel_id(x) for x in (Cc, A, B)]


def test_cutoff_rule(tmp_path):
    # D is 10x slower than the best (B): timed once, marked; cut-off passed = 4 x best so far
    h, s = make()
    run_suite(Suite("t", "", SUITE.sizes[:1]), tmp_path, h, [s], RunOptions(cutoff_factor=4.0))
    by = {r["item"]: r for r in results(tmp_path)}
    assert by[ID["D"]]["cut_off"] is True and by[ID["D"]]["samples"] == 1
    assert by[ID["B"]]["cut_off"] is False and by[ID["B"]]["samples"] == 7
    cut = {item: c for _, item, c in h.timed}
    assert cut[ID["A"]] is None                          # first config: nothing to compare with yet
    assert cut[ID["B"]] == pytest.approx(4 * 1.2e-6)     # best so far = A
    assert cut[ID["D"]] == pytest.approx(4 * 1.0e-6)     # best so far = B
    h2, s2 = make()
    run_suite(Suite("t", "", SUITE.sizes[:1]), tmp_path / "off", h2, [s2], RunOptions(cutoff_factor=0))
    assert all(c is None for _, _, c in h2.timed)


class Clock:
    def __init__(self):
        self.t = 0.0

    def __call__(self):
        return self.t

    def advance(self, seconds):
        self.t += seconds * 1e6      # 1 us of fake GEMM = 1 s of run time


def test_budget_stop_and_resume(tmp_path, monkeypatch):
    clock = Clock()
    monkeypatch.setattr(runner_mod, "_now", clock)
    h, s = make(advance=clock.advance)
    out = run_suite(SUITE, tmp_path, h, [s], RunOptions(time_budget_s=12.0))
    assert not out.complete and out.reason == "time budget"
    assert any(r["kind"] == "stopped" for r in load_records(tmp_path))
    first = [(k, i) for k, i, _ in h.timed]
    assert 0 < len(first) < 3 * 7
    # resume without a budget: nothing measured twice, everything measured once
    h2, s2 = make(advance=clock.advance)
    out2 = run_suite(SUITE, tmp_path, h2, [s2], RunOptions())
    assert out2.complete
    second = [(k, i) for k, i, _ in h2.timed]
    assert not set(first) & set(second)
    assert len(first) + len(second) == 3 * 7      # cublas, pick, A, B, C, D, E per size
    # the resumed run's cut-off reference comes from the first run's records
    assert all(r["status"] == "ok" for r in results(tmp_path))
    # a third run measures nothing
    h3, s3 = make()
    assert run_suite(SUITE, tmp_path, h3, [s3], RunOptions()).complete and h3.timed == []


def test_crashed_attempt_is_recorded_and_skipped(tmp_path):
    size = SUITE.sizes[0]
    tmp_path.mkdir(exist_ok=True)
    (tmp_path / "shard-0-of-1.jsonl").write_text(json.dumps(
        {"kind": "attempt", "suite": "t", "size": size.key, "system": "origami", "item": ID["B"],
         "result_kind": "config", "config": B, "config_id": ID["B"], "size_info": size.to_dict()}) + "\n")
    h, s = make()
    run_suite(Suite("t", "", (size,)), tmp_path, h, [s], RunOptions())
    by = {r["item"]: r for r in results(tmp_path)}
    assert by[ID["B"]]["status"] == "crashed"
    assert all(item != ID["B"] for _, item, _ in h.timed)


def test_truncated_line_is_ignored(tmp_path):
    h, s = make()
    run_suite(Suite("t", "", SUITE.sizes[:1]), tmp_path, h, [s], RunOptions())
    (path,) = tmp_path.glob("shard-0-of-1-*.jsonl")
    with open(path, "a") as f:
        f.write('{"kind": "config", "size": "x", "sta')       # killed mid-write
    assert len(results(tmp_path)) == 7


def test_shards_write_separate_files(tmp_path):
    for i in range(2):
        h, s = make()
        assert run_suite(SUITE, tmp_path, h, [s], RunOptions(shard=(i, 2))).complete
    files = sorted(p.name for p in tmp_path.glob("*.jsonl"))
    assert len(files) == 2 and files[0].startswith("shard-0-of-2-") and files[1].startswith("shard-1-of-2-")
    sizes = {r["size"] for r in results(tmp_path)}
    assert sizes == {z.key for z in SUITE.sizes}
    # a later run with another shard count finds everything done
    h, s = make()
    assert run_suite(SUITE, tmp_path, h, [s], RunOptions(shard=(0, 1))).complete and h.timed == []


def test_selection_failure_is_a_failed_pick(tmp_path):
    h, s = make()

    def boom(size):
        raise ValueError("M must be positive")
    s.pick = boom
    run_suite(Suite("t", "", SUITE.sizes[:1]), tmp_path, h, [s], RunOptions())
    by = {r["item"]: r for r in results(tmp_path)}
    assert by["pick"]["status"] == "error" and "selection failed" in by["pick"]["error"]
    assert by[ID["B"]]["status"] == "ok"     # the brute force still ran


def test_exact_pick_is_part_of_the_brute_force(tmp_path):
    # the pick's phase-2 GROUP_SIZE_M (1) differs from the ranked phase-1 value (8): both are timed
    h, s = make()
    pick = dict(A, group_size_m=1)
    s._pick = pick
    h.times[C.config_id(pick)] = 0.9e-6
    run_suite(Suite("t", "", SUITE.sizes[:1]), tmp_path, h, [s], RunOptions())
    by = {r["item"]: r for r in results(tmp_path) if r["kind"] == "config"}
    assert by[C.config_id(pick)]["status"] == "ok" and by[C.config_id(pick)]["predicted_cycles"] is None
    assert by[ID["A"]]["status"] == "ok"
    assert [i for _, i, _ in h.timed][2] == C.config_id(pick)     # after cublas and the pick: first in BF


def test_watchdog_records_a_hang_and_exits(tmp_path):
    import subprocess
    import sys
    import textwrap
    code = textwrap.dedent(f"""
        import time
        from origami_nv.bench.fake import FakeHarness, FakeSystem
        from origami_nv.bench.runner import RunOptions, run_suite
        from origami_nv.bench.suites import Size, Suite
        cfg = dict(block_m=64, block_n=64, block_k=32, group_size_m=8, stages=3, warps=4, family="mma_sync")
        class Hang(FakeHarness):
            def time(self, ctx, fn, cutoff_s=None):
                if fn.item != "cublas":
                    time.sleep(3600)      # a kernel that never finishes
                return super().time(ctx, fn, cutoff_s)
        h = Hang({{"cublas": 1e-6}})
        s = FakeSystem("origami", [(cfg, 100.0)], pick=cfg)
        run_suite(Suite("t", "", (Size(64, 64, 64),)), r"{tmp_path}", h, [s],
                  RunOptions(item_timeout_s=1.0, on_hang=lambda: open(r"{tmp_path / 'hung'}", "w").close()))
        """)
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert p.returncode == runner_mod.EXIT_HUNG, p.stderr
    assert (tmp_path / "hung").exists()
    recs = load_records(tmp_path)
    crashed = [r for r in recs if r.get("status") == "crashed"]
    assert len(crashed) == 1 and crashed[0]["item"] == "pick" and "watchdog" in crashed[0]["error"]
    assert any(r["kind"] == "stopped" for r in recs)


def test_resume_from_another_folder(tmp_path):
    # results carried from an earlier machine (resume_dirs) count as done; new records go elsewhere
    h, s = make()
    run_suite(SUITE, tmp_path / "old", h, [s], RunOptions(shard=(0, 2)))
    h2, s2 = make()
    out = run_suite(SUITE, tmp_path / "new", h2, [s2], RunOptions(resume_dirs=[tmp_path / "old"]))
    assert out.complete
    old_sizes = {k for k, _, _ in h.timed}
    assert old_sizes and not old_sizes & {k for k, _, _ in h2.timed}
    merged = {r["size"] for r in load_records(tmp_path / "old", tmp_path / "new") if r["kind"] == "baseline"}
    assert merged == {z.key for z in SUITE.sizes}


def test_probe_names_the_step_a_crash_happened_in(monkeypatch):
    from origami_nv.bench import systems
    monkeypatch.setattr(systems, "_PROBE", "import os, signal, sys\n"
                                           "print('step:import', file=sys.stderr, flush=True)\n"
                                           "print('step:load_op', file=sys.stderr, flush=True)\n"
                                           "os.kill(os.getpid(), signal.SIGSEGV)\n")
    ok, why = systems.probe_origami(timeout_s=60)
    assert not ok and "SIGSEGV" in why and "'load_op'" in why
    monkeypatch.setattr(systems, "_PROBE", "import sys\nprint('step:done', file=sys.stderr)\nprint('ok: fine')\n")
    assert systems.probe_origami(timeout_s=60) == (True, "ok: fine")


def test_sigterm_stops_cleanly_and_is_not_a_crash(tmp_path):
    import signal
    import subprocess
    import sys
    import textwrap
    code = textwrap.dedent(f"""
        import sys, time
        from origami_nv.bench.fake import FakeHarness, FakeSystem
        from origami_nv.bench.runner import RunOptions, interrupt_on_signals, run_suite
        from origami_nv.bench.suites import Size, Suite
        cfg = dict(block_m=64, block_n=64, block_k=32, group_size_m=8, stages=3, warps=4, family="mma_sync")
        class Slow(FakeHarness):
            def time(self, ctx, fn, cutoff_s=None):
                if fn.item != "cublas":
                    print("timing", flush=True)
                    time.sleep(30)
                return super().time(ctx, fn, cutoff_s)
        interrupt_on_signals()
        out = run_suite(Suite("t", "", (Size(64, 64, 64),)), r"{tmp_path}", Slow({{"cublas": 1e-6}}),
                        [FakeSystem("origami", [(cfg, 100.0)], pick=cfg)], RunOptions())
        print("outcome", out.complete, out.reason, flush=True)
        """)
    p = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert p.stdout.readline().strip() == "timing"
    p.send_signal(signal.SIGTERM)
    out, err = p.communicate(timeout=20)
    assert p.returncode == 0, err
    assert "outcome False interrupted" in out
    recs = load_records(tmp_path)
    assert any(r["kind"] == "cancelled" and r["item"] == "pick" for r in recs)
    from origami_nv.bench.store import ResumeIndex
    idx = ResumeIndex(recs)
    assert idx.crashed() == [] and idx.has("64x64x64-float16", "cublas", "cublas")
    assert not idx.has("64x64x64-float16", "origami", "pick")      # measured again next run


@pytest.mark.parametrize("suffix", [".xz", ".gz"])
def test_compressed_finished_shards_read_and_resume_like_plain_ones(tmp_path, suffix):
    import gzip
    import lzma
    h, s = make()
    run_suite(Suite("t", "", SUITE.sizes[:1]), tmp_path, h, [s], RunOptions())
    (path,) = tmp_path.glob("shard-0-of-1-*.jsonl")
    before = results(tmp_path)
    with open(path, "rb") as src, {".xz": lzma.open, ".gz": gzip.open}[suffix](str(path) + suffix, "wb") as dst:
        dst.write(src.read())
    assert len(results(tmp_path)) == len(before)          # both spellings of one shard count once
    path.unlink()
    assert results(tmp_path) == before                    # the compressed shard alone holds the same records
    h2, s2 = make()
    run_suite(Suite("t", "", SUITE.sizes[:1]), tmp_path, h2, [s2], RunOptions())
    assert h2.timed == []                                 # and resume skips what it holds


def _strip_reduction_version(raw):
    """Make a run's records look like those measured before split launches carried the reduction's version."""
    for path in raw.glob("shard-*.jsonl"):
        recs = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
        for r in recs:
            r.pop("split_k_reduction", None)
        path.write_text("".join(json.dumps(r) + "\n" for r in recs))


def test_retime_split_times_only_the_split_launches_of_an_older_reduction(tmp_path):
    split = dict(A, split_k=4)
    sid = C.config_id(split)

    def make_split():
        sysm = FakeSystem("origami", [(A, 1000.0), (B, 1100.0), (split, 900.0)], pick=A)
        return FakeHarness({"cublas": 1.0e-6, ID["A"]: 1.2e-6, ID["B"]: 1.0e-6, sid: 0.9e-6}), sysm

    h, s = make_split()
    run_suite(SUITE, tmp_path / "old", h, [s], RunOptions())
    recs = load_records(tmp_path / "old")
    timed_split = [r for r in recs if r["kind"] == "config" and r["item"] == sid]
    assert len(timed_split) == 3 and all(r["split_k_reduction"] == C.SPLIT_K_REDUCTION_VERSION for r in timed_split)
    assert not any(C.stale_split_record(r) for r in recs)
    _strip_reduction_version(tmp_path / "old")
    old = load_records(tmp_path / "old")
    assert sum(C.stale_split_record(r) for r in old) == 6        # 3 results + their 3 attempt records

    h2, s2 = make_split()                                        # a plain resume: nothing left to time
    assert run_suite(SUITE, tmp_path / "plain", h2, [s2], RunOptions(resume_dirs=[tmp_path / "old"])).complete
    assert h2.timed == []

    h3, s3 = make_split()                                        # --retime-split: the split launch of every size
    out = run_suite(SUITE, tmp_path / "new", h3, [s3], RunOptions(resume_dirs=[tmp_path / "old"], retime_split=True))
    assert out.complete
    assert sorted(item for _, item, _ in h3.timed) == [sid] * 3
    new = load_records(tmp_path / "new")
    assert not [r for r in new if r.get("status") == "crashed"]  # the dropped attempts are not taken for crashes
    both = old + new  # (one process made both runs in one second: the shard names coincide, so not one call)
    last = {}
    for r in both:
        if r["kind"] == "config":
            last[(r["size"], r["item"])] = r
    assert all(r["split_k_reduction"] == C.SPLIT_K_REDUCTION_VERSION for k, r in last.items() if k[1] == sid)
    # a re-timed data set loses the superseded split launches; one never re-timed is kept as measured
    kept = C.drop_superseded(old + [dict(r, size="other") for r in new])
    assert not any(C.stale_split_record(r) for r in kept)
    assert C.drop_superseded(old) == old


def test_shards_load_in_the_order_they_were_started(tmp_path):
    # shard-0-of-1 of a later run sorts before shard-2-of-3 of an earlier one by name; the later result wins
    rec = {"kind": "config", "size": "s", "system": "origami", "item": "x", "status": "ok"}
    (tmp_path / "shard-2-of-3-20261123T100000Z-1.jsonl").write_text(json.dumps(dict(rec, time_s=2.0)) + "\n")
    (tmp_path / "shard-0-of-1-20261124T100000Z-2.jsonl").write_text(json.dumps(dict(rec, time_s=1.0)) + "\n")
    recs = load_records(tmp_path)
    assert [r["time_s"] for r in recs] == [2.0, 1.0]
    from origami_nv.bench.store import ResumeIndex
    assert ResumeIndex(recs).results[("s", "origami", "x")]["time_s"] == 1.0


def test_kernel_changes_mark_the_launches_they_alter():
    info = {"M": 100, "N": 256, "K": 64, "dtype": "float16"}
    rec = {"kind": "config", "system": "origami", "size_info": info, "config": A}
    assert C.stale_kernel_record(rec)                                   # 128-row mma.sync tile over M = 100
    assert not C.stale_kernel_record(dict(rec, kernel_version=C.KERNEL_VERSION))
    assert not C.stale_kernel_record(dict(rec, size_info=dict(info, M=256)))   # no edge, N aligned
    assert C.stale_kernel_record(dict(rec, size_info=dict(info, M=256, N=250)))  # C rows not 16-byte aligned
    assert not C.stale_kernel_record(dict(rec, config=dict(A, family="wgmma")), upto=6)  # change 3 was mma.sync's
    assert not C.stale_kernel_record(dict(rec, system="cublas"))         # not our kernels
    assert C.stale_kernel_record({"kind": "attempt", "result_kind": "pick", "system": "origami", "size_info": info,
                                  "config": A})
    # version 4: wgmma launches whose CTAs have a next tile (more tiles than the 132 SMs) store C by TMA
    big = {"M": 8192, "N": 8192, "K": 256, "dtype": "float16"}
    wg = dict(rec, size_info=big, config=dict(A, family="wgmma"), kernel_version=3)
    v4 = lambda r: C.stale_kernel_record(r, upto=4)  # noqa: E731  (the changes up to 4 only)
    assert v4(wg)                                                                   # 64 x 64 = 4096 tiles
    assert not v4(dict(wg, size_info=dict(big, M=1024, N=2048)))                    # 128 tiles: one wave
    assert v4(dict(wg, size_info=dict(big, M=128, N=2048, batch=10)))               # 10 x 1 x 16 = 160 tiles
    assert not v4(dict(wg, size_info=dict(big, N=8191)))                            # C rows unaligned: threads store
    assert C.stale_kernel_record(dict(wg, size_info=dict(big, N=8191)))             # ...but B (ld 8191) is copied (6)
    assert not v4(dict(wg, config=A))                                               # mma.sync: no TMA store
    assert not C.stale_kernel_record(dict(wg, kernel_version=C.KERNEL_VERSION))
    # version 5: wgmma reading an operand in place whose rows are 16- but not 128-byte aligned (ld 3000: 6000 B)
    sq = {"M": 3000, "N": 3000, "K": 3000, "dtype": "float16"}
    w5 = dict(rec, size_info=sq, config=dict(A, family="wgmma"), kernel_version=4)
    assert C.stale_kernel_record(w5)
    assert not C.stale_kernel_record(dict(w5, size_info=dict(sq, K=3008, N=3008)), upto=12)  # rows of 6016 B
    assert not C.stale_kernel_record(dict(w5, config=A))                              # mma.sync: no TMA
    # version 6: an operand the op copies (ld 4099: not 16-byte aligned), any family; a one-row A has no ld
    dec = {"M": 1, "N": 4097, "K": 4099, "dtype": "float16"}
    assert C.stale_kernel_record(dict(rec, size_info=dec, kernel_version=5))           # B rows of 4097
    assert not C.stale_kernel_record(dict(rec, size_info=dict(dec, N=4096), kernel_version=5), upto=10)
    assert C.stale_kernel_record(dict(rec, size_info=dict(dec, N=4096, layout="nt"), kernel_version=5))  # W.t(): ld K
    assert not C.stale_kernel_record(dict(rec, size_info=dec, kernel_version=6), upto=10)
    # version 7: wgmma with an operand shorter than the tile side (M < BLOCK_M or N < BLOCK_N); A is 128 x 128
    d7 = dict(rec, size_info=dict(dec, N=4096, K=4096), config=dict(A, family="wgmma"), kernel_version=6)
    assert C.stale_kernel_record(d7)                                                       # M = 1 < 128
    assert C.stale_kernel_record(dict(d7, size_info=dict(big, N=100)))                     # N = 100 < 128
    assert not C.stale_kernel_record(dict(d7, size_info=big), upto=13)                     # whole tiles at 8192
    assert not C.stale_kernel_record(dict(d7, config=A), upto=10)                          # mma.sync unchanged
    assert not C.stale_kernel_record(dict(d7, kernel_version=7), upto=15)                   # (16: every wgmma launch)
    # version 11: mma.sync with every CTA at the M edge (M < BLOCK_M) and A K-contiguous copies A's M rows only
    d11 = dict(rec, size_info=dict(dec, N=4096, K=4096), kernel_version=10)
    v11 = lambda r: C.stale_kernel_record(r, upto=11)  # noqa: E731
    assert v11(d11)                                                                        # M = 1 < 128, A "n"
    assert not v11(dict(d11, size_info=dict(dec, N=4096, K=4096, layout="tn")))            # A stored M-contiguous
    assert not v11(dict(d11, size_info=dict(big, M=128 * 3 + 5)))                          # more than one CTA row
    assert not v11(dict(d11, config=dict(A, family="wgmma")))                              # wgmma unchanged
    ra = dict(A, block_m=16, block_n=16, block_k=64)                                       # a tile with an `_ra` twin
    assert v11(dict(d11, config=ra))
    assert not v11(dict(d11, config=ra, size_info=dec))                                    # B ld 4097: the `_ra` kernel


def test_kernel_change_13_edge_boxes_stale_but_kept_for_evaluation():
    # Change 13 (the edge tile of a K-major operand loads the box ending at the matrix edge) alters wgmma launches with
    # such an edge: they are re-timed by --retime-stale, and the offline evaluation keeps them meanwhile
    # (EVALUATION_KEEPS_STALE) rather than dropping nearly every size.
    wg = dict(A, family="wgmma", block_m=128, block_n=128, block_k=64)
    rec = {"kind": "config", "system": "origami", "size": "s", "config": wg, "kernel_version": 12,
           "size_info": {"M": 320, "N": 4096, "K": 4096, "dtype": "float16", "layout": "nt"}}
    v13 = lambda r: C.stale_kernel_record(r, upto=13, since=13)  # noqa: E731
    assert v13(rec) and C.stale_kernel_record(rec) and not C.stale_for_evaluation(rec)
    assert not v13(dict(rec, kernel_version=13))
    assert not v13(dict(rec, size_info=dict(rec["size_info"], M=384)))                # whole tiles
    assert not v13(dict(rec, size_info=dict(rec["size_info"], M=100)))                # one tile: change 7's rule
    assert v13(dict(rec, size_info=dict(rec["size_info"], M=384, N=4100)))            # B's N edge (K-major B)
    assert not v13(dict(rec, size_info=dict(rec["size_info"], M=384, N=4100, layout="nn")))  # N-major B: no shift
    assert not v13(dict(rec, size_info=dict(rec["size_info"], layout="tn")))          # M-major A: no shift
    assert v13(dict(rec, config=dict(wg, block_n=112), size_info=dict(rec["size_info"], M=384, layout="nn")))
    assert not v13(dict(rec, config=dict(wg, family="mma_sync")))


def test_kernel_change_17_launches_with_an_operand_copy():
    # Change 17 (the op's operand copies take part in programmatic dependent launch) alters every launch whose op call
    # copies an operand; the evaluation keeps them until re-timed (the data behind the model's copy terms).
    wg = dict(A, family="wgmma", block_m=128, block_n=128, block_k=64)
    info = {"M": 512, "N": 2048, "K": 4096, "dtype": "float16", "layout": "nn"}                # 8.6 GFLOP
    rec = {"kind": "config", "system": "origami", "size": "s", "config": wg, "kernel_version": 16, "size_info": info}
    v17 = lambda r: C.stale_kernel_record(r, upto=17, since=17)  # noqa: E731
    assert not v17(rec)                                                                   # aligned, compiled layout
    assert v17(dict(rec, size_info=dict(info, K=4099)))                                   # A rows of 4099: copied
    assert v17(dict(rec, size_info=dict(info, K=3000)))                                   # 6000-byte rows: may be
    assert not v17(dict(rec, config=A, size_info=dict(info, K=3000)))                     # ...mma.sync reads them
    assert v17(dict(rec, config=dict(wg, block_n=96)))                                    # N-major B, BLOCK_N 96
    assert not v17(dict(rec, config=dict(wg, block_n=96), size_info=dict(info, layout="nt")))
    assert v17(dict(rec, config=A, size_info=dict(info, layout="tt")))                    # mma.sync has no "mk"
    assert not v17(dict(rec, config=A, size_info=dict(info, layout="tn")))
    ra = dict(A, block_m=16, block_n=16, block_k=64)                                      # an `_ra` tile reads it
    assert not v17(dict(rec, config=ra, size_info=dict(info, K=4099)))
    assert not v17(dict(rec, size_info=dict(info, M=1024, K=4099)))                       # 17.2 GFLOP: unchained
    tf = dict(info, dtype="tfloat32", M=2056, N=512)                                      # M > 2048: B transposed
    assert v17(dict(rec, size_info=tf)) and not v17(dict(rec, size_info=dict(tf, layout="nt")))
    assert not v17(dict(rec, size_info=dict(tf, M=512)))                                  # the swapped kernel
    assert not v17(dict(rec, kernel_version=17, size_info=dict(info, K=4099)))
    stale = dict(rec, size_info=dict(info, K=4099))
    assert C.stale_kernel_record(stale) and not C.stale_for_evaluation(stale)


def test_copy_chain_bound_is_the_ops():
    # configs.COPY_CHAIN_MAX_FLOP restates the op's kCopyChainMaxFlop (cpp/ops/ops_cuda.cpp): the stale rule of change
    # 17 must mark exactly the launches whose copies the op chains.
    import pathlib
    import re
    src = (pathlib.Path(__file__).parents[1] / "cpp" / "ops" / "ops_cuda.cpp").read_text()
    m = re.search(r"constexpr double kCopyChainMaxFlop = ([0-9.e+]+);", src)
    assert m and float(m.group(1)) == C.COPY_CHAIN_MAX_FLOP


def test_superseded_up_to_the_newest_retimed_version():
    # A set re-timed with version 4 keeps a launch only a newer change (5) alters, and drops the launches that
    # changes up to 4 altered: a version bump does not bring superseded records back.
    edge = {"M": 100, "N": 256, "K": 64, "dtype": "float16"}                     # altered by change 3
    sq = {"M": 3000, "N": 3000, "K": 3000, "dtype": "float16"}                   # altered by change 5 only
    wg = dict(A, family="wgmma")
    old3 = {"kind": "config", "system": "origami", "size": "e", "size_info": edge, "config": A, "kernel_version": 2,
            "t": 1.0, "_file": "first"}
    retiming = {"kind": "meta", "retime_stale": True, "t": 2.0, "_file": "retime"}
    new4 = dict(old3, kernel_version=4, t=3.0, _file="retime")
    done4 = {"kind": "size_done", "system": "origami", "size": "e", "t": 4.0, "_file": "retime"}
    sq4 = {"kind": "config", "system": "origami", "size": "q", "size_info": sq, "config": wg, "kernel_version": 4,
           "t": 3.5, "_file": "retime"}
    assert C.KERNEL_VERSION > 4 and C.stale_kernel_record(sq4)
    kept = C.drop_superseded([old3, retiming, new4, sq4, done4])
    assert kept == [retiming, new4, sq4, done4]
    # A run that is not a re-timing (it timed a launch the first run lacked: a kernel compiled since) supersedes
    # nothing, though its launch is of a newer version and the size is marked done after it.
    plain = dict(retiming, retime_stale=False)
    assert C.drop_superseded([old3, plain, new4, sq4, done4]) == [old3, plain, new4, sq4, done4]
    # Older shards say so in their command line only.
    argv = {"kind": "meta", "argv": ["origami_nv", "bench", "run", "--retime-stale"], "t": 2.0, "_file": "retime"}
    assert C.drop_superseded([old3, argv, new4, sq4, done4]) == [argv, new4, sq4, done4]
    # A re-timing cut short before the size's size_done mark leaves the size as it was measured.
    assert C.drop_superseded([old3, retiming, new4, sq4]) == [old3, retiming, new4, sq4]


def _strip_kernel_version(raw):
    """Make a run's records look like those measured before records carried the kernel version."""
    for path in raw.glob("shard-*.jsonl"):
        recs = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
        for r in recs:
            r.pop("kernel_version", None)
        path.write_text("".join(json.dumps(r) + "\n" for r in recs))


def test_retime_stale_times_only_the_launches_a_kernel_change_altered(tmp_path):
    # 100 rows: every mma.sync tile (64 or 128 rows) hangs over M; 256 rows: none does, N aligned
    suite = Suite("t", "test", (Size(100, 256, 256), Size(256, 256, 256)))
    h, s = make()
    run_suite(suite, tmp_path / "old", h, [s], RunOptions())
    recs = load_records(tmp_path / "old")
    assert all(r["kernel_version"] == C.KERNEL_VERSION for r in recs if r["kind"] in ("config", "pick")
               and r["system"] == "origami")
    _strip_kernel_version(tmp_path / "old")
    old = load_records(tmp_path / "old")
    edge = suite.sizes[0].key
    assert {r["size"] for r in old if C.stale_kernel_record(r)} == {edge}

    h2, s2 = make()                                               # --retime-stale: only the edge size, all of it
    out = run_suite(suite, tmp_path / "new", h2, [s2], RunOptions(resume_dirs=[tmp_path / "old"], retime_stale=True))
    assert out.complete
    timed = [(size, item) for size, item, _ in h2.timed]
    assert timed and all(size == edge for size, _ in timed)
    assert {ID["A"], ID["B"], "pick " + ID["A"]} <= {item for _, item in timed}
    new = load_records(tmp_path / "new")
    assert not [r for r in new if r.get("status") == "crashed"]
    kept = C.drop_superseded(old + new)
    assert not any(C.stale_kernel_record(r) for r in kept)
    assert any(r.get("size") == suite.sizes[1].key and r["kind"] == "config" for r in kept)  # unaltered launches stay
    assert C.drop_superseded(old) == old                          # never re-timed: kept as measured


def test_retime_noisy_times_the_wide_spread_launches_again_without_false_crashes(tmp_path):
    suite = Suite("t", "test", (Size(256, 256, 256),))
    h, s = make()
    run_suite(suite, tmp_path / "old", h, [s], RunOptions())
    # make one timed launch look disturbed: its interquartile range 30 % of its median
    path = next((tmp_path / "old").glob("shard-*.jsonl"))
    recs = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    target = next(r for r in recs if r["kind"] == "config" and r.get("item") == ID["B"])
    target.update(samples=7, q1_s=0.8 * target["time_s"], q3_s=1.1 * target["time_s"])
    path.write_text("".join(json.dumps(r) + "\n" for r in recs))
    old = load_records(tmp_path / "old")
    assert [r["item"] for r in old if C.noisy_record(r)] == [ID["B"]]
    h2, s2 = make()
    out = run_suite(suite, tmp_path / "new", h2, [s2], RunOptions(resume_dirs=[tmp_path / "old"], retime_noisy=True))
    assert out.complete
    assert [item for _, item, _ in h2.timed] == [ID["B"]]          # that launch alone
    new = load_records(tmp_path / "new")
    assert not [r for r in new if r.get("status") == "crashed"]    # its attempt record went with it


def test_a_kernel_added_to_the_build_is_timed_at_every_finished_size(tmp_path):
    # A size is done when every compiled kernel was timed: resuming after a new kernel joins the build times that
    # kernel (alone) at every size, even where the pick did not change; a plain resume then has nothing to do.
    def make_list(configs):
        return (FakeHarness({"cublas": 1.0e-6, ID["A"]: 1.2e-6, ID["B"]: 1.0e-6, ID["E"]: 0.8e-6}),
                FakeSystem("origami", configs, pick=A))

    h, s = make_list([(A, 1000.0), (B, 1100.0)])
    assert run_suite(SUITE, tmp_path / "old", h, [s], RunOptions()).complete
    h2, s2 = make_list([(A, 1000.0), (B, 1100.0), (E, 1200.0)])
    assert run_suite(SUITE, tmp_path / "new", h2, [s2], RunOptions(resume_dirs=[tmp_path / "old"])).complete
    assert sorted(item for _, item, _ in h2.timed) == [ID["E"]] * 3
    for f in (tmp_path / "new").rglob("shard-*"):  # both runs started in the same second: distinct shard names
        f.rename(f.with_name(f.name.replace(".jsonl", "9.jsonl")))
    h3, s3 = make_list([(A, 1000.0), (B, 1100.0), (E, 1200.0)])
    assert run_suite(SUITE, tmp_path / "again", h3, [s3],
                     RunOptions(resume_dirs=[tmp_path / "old", tmp_path / "new"])).complete
    assert h3.timed == []


def test_noisy_records_are_those_spread_wider_than_the_limit():
    rec = {"kind": "config", "system": "origami", "config": A, "samples": 7, "time_s": 21.2e-6, "q1_s": 17.7e-6,
           "q3_s": 23.1e-6}
    assert C.noisy_record(rec)                                                    # IQR 25 % of the median
    assert not C.noisy_record(dict(rec, q1_s=21.0e-6, q3_s=21.3e-6))             # 1.4 %
    assert not C.noisy_record(dict(rec, note="re-measured: wide spread"))         # the harness measured it twice
    assert not C.noisy_record(dict(rec, samples=1))                               # a cut-off probe has no spread
    assert not C.noisy_record(dict(rec, system="cublas"))
    assert not C.noisy_record(dict(rec, kind="attempt"))


def test_operand_alignment_follows_the_ops_copy_rule():
    # The runner and the offline re-prediction select with what matmul copies first (ops_cuda.cpp try_layout):
    # without it the recorded pick of 1x4097x4099 was not the kernel the op ran (reports/nvidia-h100/odd.md).
    from origami_nv.bench.configs import operand_alignment as al
    assert al(1, 4097, 4099, "nn") == {"a_aligned": True, "b_aligned": False}      # one row of A: exempt
    assert al(127, 129, 130, "nn") == {"a_aligned": False, "b_aligned": False}
    assert al(100, 12289, 4096, "nt") == {"a_aligned": True, "b_aligned": True}    # B = W.t(): rows of K
    assert al(100, 12289, 4096, "nn") == {"a_aligned": True, "b_aligned": False}
    assert al(64, 64, 4098, "nn", "float32") == {"a_aligned": False, "b_aligned": True}  # 4 fp32 per 16 bytes
    assert al(3, 8, 12, "nn", "float32", batch=4) == {"a_aligned": True, "b_aligned": True}
    assert al(3, 8, 12, "tn", "float16", batch=4)["a_aligned"] is False              # A stored (K, M): ld 3


def test_retime_picks_times_each_pick_with_its_best_launch_and_the_report_uses_that_run(tmp_path):
    # Run 1 on one machine; run 2 (--retime-picks, resuming run 1) on a machine 1.5x slower at these sizes: the pick
    # and the size's fastest launch of run 1 (B) are timed again, one after the other, and the report's A/BF is the
    # ratio of those two (1.5 / 1.8), not run 2's pick against run 1's best (1.0 / 1.8).
    from origami_nv.bench import report as R
    suite = Suite("t", "test", SUITE.sizes[:2])
    h, s = make()
    assert run_suite(suite, tmp_path / "old", h, [s], RunOptions()).complete
    slow = {k: 1.5 * v for k, v in {"cublas": 1.0e-6, ID["A"]: 1.2e-6, ID["B"]: 1.0e-6, ID["C"]: 2.0e-6,
                                    ID["D"]: 10e-6, ID["E"]: 1.5e-6}.items()}
    h2, s2 = make(times=slow)
    out = run_suite(suite, tmp_path / "new", h2, [s2], RunOptions(resume_dirs=[tmp_path / "old"], retime_picks=True))
    assert out.complete
    for z in suite.sizes:  # per size: the pick, then its best launch; nothing else
        assert [item for size, item, _ in h2.timed if size == z.key] == ["pick " + ID["A"], ID["B"]]
    new = load_records(tmp_path / "new")
    picks = {r["size"]: r for r in new if r["kind"] == "pick"}
    refs = {r["size"]: r for r in new if r["kind"] == "reference"}
    assert set(refs) == {z.key for z in suite.sizes}
    assert all(refs[k]["pick_t"] == picks[k]["t"] and refs[k]["config_id"] == ID["B"] for k in refs)
    # resumed again with the option: every pick has its reference, nothing to time
    for f in (tmp_path / "new").rglob("shard-*"):
        f.rename(f.with_name(f.name.replace(".jsonl", "9.jsonl")))
    h3, s3 = make(times=slow)
    assert run_suite(suite, tmp_path / "again", h3, [s3],
                     RunOptions(resume_dirs=[tmp_path / "old", tmp_path / "new"], retime_picks=True)).complete
    assert h3.timed == []
    an = R.analyze(load_records(tmp_path / "old", tmp_path / "new"), suite)
    o = an["rows"][0].systems["origami"]
    assert o.bf["time_s"] == pytest.approx(1.0e-6)           # the brute force's best is run 1's
    assert o.a_bf == pytest.approx(1.5 / 1.8) and o.a_bf_runs == "one run"
    assert an["summary"]["origami"]["a_bf_one_run"] == 2
    # without the reference, a pick timed in another run than the best launch is labelled so
    an = R.analyze([r for r in load_records(tmp_path / "old", tmp_path / "new") if r["kind"] != "reference"], suite)
    o = an["rows"][0].systems["origami"]
    assert o.a_bf == pytest.approx(1.0 / 1.8) and o.a_bf_runs == "across runs"
    rows = [ln for ln in R.render_markdown(an, "t", "rotate", []).splitlines() if ln.startswith("| (256, 256, 256)")]
    assert rows and "\u2020" in rows[0]  # the per-size table marks an A/BF of two runs
    # a first visit times the pick and the brute force in one run: no reference needed
    an = R.analyze(load_records(tmp_path / "old"), suite)
    assert an["rows"][0].systems["origami"].a_bf_runs == "one run"
    assert "\u2020" not in "".join(ln for ln in R.render_markdown(an, "t", "rotate", []).splitlines()
                                   if ln.startswith("| (256, 256, 256)"))


def test_a_retiming_cut_short_leaves_the_sizes_it_did_not_finish_as_measured():
    # Size by size: "e" was re-timed to the end (size_done after its new launches), "f" was cut short (its new
    # launch comes after its last size_done), "g" was not reached. Only "e" loses its superseded launches.
    edge = {"M": 100, "N": 256, "K": 64, "dtype": "float16"}                     # altered by change 3
    base = {"kind": "config", "system": "origami", "size_info": edge, "config": A}

    def rec(size, t, version, item="x", **kw):
        return dict(base, size=size, t=t, kernel_version=version, item=item, **kw)

    def done(size, t):
        return {"kind": "size_done", "system": "origami", "size": size, "t": t}
    def run(file, records, retime_stale):
        return [{"kind": "meta", "retime_stale": retime_stale, "_file": file}] + [dict(r, _file=file) for r in records]
    old = run("old", [rec(s, 1.0, 2) for s in "efg"] + [rec(s, 1.0, 2, item="y") for s in "efg"] +
              [done(s, 2.0) for s in "efg"], False)
    new = run("new", [rec("e", 10.0, 4), rec("e", 11.0, 4, item="y"), done("e", 12.0), rec("f", 13.0, 4)], True)
    kept = C.drop_superseded(old + new)
    by_size = {s: [(r["item"], r["kernel_version"]) for r in kept if r.get("kind") == "config" and r["size"] == s]
               for s in "efg"}
    assert by_size["e"] == [("x", 4), ("y", 4)]
    assert by_size["f"] == [("x", 2), ("y", 2), ("x", 4)]   # the later result of x wins when loaded in order
    assert by_size["g"] == [("x", 2), ("y", 2)]
    # once "f" is finished it drops its superseded launches too
    kept = C.drop_superseded(old + new + run("next", [rec("f", 14.0, 4, item="y"), done("f", 15.0)], True))
    assert [(r["item"], r["kernel_version"]) for r in kept if r.get("kind") == "config" and r["size"] == "f"] == \
        [("x", 4), ("y", 4)]


def test_pick_and_twin_that_disagree_are_timed_again(tmp_path):
    # The pick (A through the op's automatic path) and its config twin (A given as the config): timed 1.2 us then 1.5 us
    # back to back, the run times both again (twin first this time) and the later records are the ones read.
    h, s = make(times={"pick " + ID["A"]: [1.2e-6, 1.3e-6], ID["A"]: [1.5e-6, 1.31e-6]})
    run_suite(Suite("t", "", SUITE.sizes[:1]), tmp_path, h, [s], RunOptions())
    order = [i for _, i, _ in h.timed]
    assert order[:3] == ["cublas", "pick " + ID["A"], ID["A"]]
    assert order.count(ID["A"]) == 2 and order.count("pick " + ID["A"]) == 2
    assert order.index(ID["A"], 3) < order.index("pick " + ID["A"], 2)     # the other order the second time
    recs = [r for r in load_records(tmp_path) if r["kind"] in ("pick", "config")]
    last = {r["item"]: r for r in recs}
    assert last["pick"]["time_s"] == pytest.approx(1.3e-6) and last[ID["A"]]["time_s"] == pytest.approx(1.31e-6)
    assert "twin_recheck" in last["pick"] and "1.250" in last[ID["A"]]["twin_recheck"]
    assert last["pick"]["config_id"] == ID["A"] and last[ID["A"]]["config"] == C.normalize(A)
    # the report's and the fit's readers (later result wins) and the resume see the re-timed pair
    h2, s2 = make(times={"pick " + ID["A"]: [1.2e-6, 1.3e-6], ID["A"]: [1.5e-6, 1.31e-6]})
    run_suite(Suite("t", "", SUITE.sizes[:1]), tmp_path, h2, [s2], RunOptions())
    assert h2.timed == []


def test_pick_and_twin_that_agree_are_timed_once(tmp_path):
    h, s = make(times={"pick " + ID["A"]: 1.2e-6, ID["A"]: 1.25e-6})     # 4 % apart: within TWIN_DISAGREEMENT
    run_suite(Suite("t", "", SUITE.sizes[:1]), tmp_path, h, [s], RunOptions())
    order = [i for _, i, _ in h.timed]
    assert order.count(ID["A"]) == 1 and order.count("pick " + ID["A"]) == 1
    assert not any("twin_recheck" in r for r in load_records(tmp_path))


def test_retime_noisy_retimes_disagreeing_twins_of_an_earlier_run(tmp_path, monkeypatch):
    # A run before the twin check (as if TWIN_DISAGREEMENT were off) left a pick and its twin 25 % apart at one size;
    # --retime-noisy times that pair again, and nothing else.
    monkeypatch.setattr(C, "TWIN_DISAGREEMENT", 10.0)
    k = SUITE.sizes[0].key
    times = {(k, "pick " + ID["A"]): [1.2e-6, 1.21e-6], (k, ID["A"]): [1.5e-6, 1.22e-6]}
    h, s = make(times=times)
    run_suite(SUITE, tmp_path, h, [s], RunOptions())
    assert len(h.timed) == 3 * 7
    monkeypatch.setattr(C, "TWIN_DISAGREEMENT", 0.05)
    assert C.disagreeing_twins(load_records(tmp_path)) == {(SUITE.sizes[0].key, "origami", "pick"),
                                                          (SUITE.sizes[0].key, "origami", ID["A"])}
    h2, s2 = make(times={k: v[1:] for k, v in times.items()})
    run_suite(SUITE, tmp_path, h2, [s2], RunOptions(retime_noisy=True))
    assert sorted(i for _, i, _ in h2.timed) == sorted([ID["A"], "pick " + ID["A"]])
    assert C.disagreeing_twins(load_records(tmp_path)) == set()
    last = {(r["size"], r["item"]): r for r in load_records(tmp_path) if r["kind"] in ("pick", "config")}
    assert last[(SUITE.sizes[0].key, ID["A"])]["time_s"] == pytest.approx(1.22e-6)
