# Device probe (issue 13): the realigning mma.sync kernels (the `_ra` variants: operands whose rows are only 2-byte
# aligned read in place, cpp/kernels/mma_sync/gemm_mma_sync.cuh REALIGN) against the op's copy path and cuBLAS, at
# misaligned small / decode shapes. Per shape and layout: cuBLAS (torch.matmul), the op's own pick with the
# realigning kernels (this process) and without them (a child process with ORIGAMI_NV_REALIGN=0: the op as before
# issue 13), and for every config that has realigning kernels (split 1, and --splits) the realign launch here against
# the same config through the copy path in the child (row_copy.cu + the aligned kernel). What each launch ran is read
# with torch.profiler once (realign / copy / aligned). Every timed result is checked against an fp32 torch reference
# (relative Frobenius error <= 2e-3 for fp16, 1e-2 for bf16) before it is timed.
#
# Timing: probe_bench.py's harness (CUDA graph over rotating input sets, median of --reps replays), the sets sized to
# ~2x the L2 so the large operands come from DRAM, as probe_odd_n.py.
#
#   python benchmarks/results/probes/probe_realign.py [--dtype float16] [--layouts nn,nt] [--splits 4]
#          [--split-max-m 64] [--shapes 1x4097x4099,...] [--reps 15] [--json PATH]
# Defaults: the issue-13 shapes in both layouts, every config with realigning kernels unsplit and (M <= 64) split 4:
# ~250 timed launches per half (not timed on a device yet: narrow --shapes / --layouts if the budget is short).
# writes $OUT/probe_realign.json too when OUT is set. The ratio columns: copy path time / realign time (> 1: the
# realigning kernel is faster) and cuBLAS time / ours. The data for fitting NvModelConstants::realign_load_factor:
# each realign launch and its copy-path twin, with the model's prediction of both (select_config's pick and
# origami_nv.rank would show the same terms).
import argparse
import json
import os
import subprocess
import sys

import torch

import origami_nv
from origami_nv import _kernels
from origami_nv.ops import load_op

load_op()  # torch.ops.origami_nv.* (select_config) are registered when the library loads

HERE = os.path.dirname(os.path.abspath(__file__))
exec(open(os.path.join(HERE, "probe_bench.py")).read())  # bench(fn, sets, reps): CUDA graph, median seconds

SHAPES = "1x4097x4099,8x4097x4099,16x11008x4097,127x129x130,255x257x259,1023x1025x1027,333x4099x4096"
TOL = {"float16": 2e-3, "bfloat16": 1e-2}


def parse_args(argv=None):
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--dtype", default="float16", choices=["float16", "bfloat16"])
    ap.add_argument("--shapes", default=SHAPES, help="MxNxK,... (default: the issue-13 list)")
    ap.add_argument("--layouts", default="nn,nt", help="nn: a @ b row-major; nt: a @ w.t() (nn.Linear)")
    ap.add_argument("--splits", default="4", help="split_k values timed besides 1 (comma list, '' for none)")
    ap.add_argument("--split-max-m", type=int, default=64, help="time the --splits only where M <= this")
    ap.add_argument("--reps", type=int, default=15)
    ap.add_argument("--json", default="", help="write the results here (also $OUT/probe_realign.json)")
    ap.add_argument("--child", action="store_true", help="(internal) the copy-path half, run with ORIGAMI_NV_REALIGN=0")
    return ap.parse_args(argv)


def shapes_of(args):
    out = []
    for s in args.shapes.split(","):
        m, n, k = (int(v) for v in s.lower().split("x"))
        for lay in args.layouts.split(","):
            out.append((m, n, k, lay.strip()))
    return out


def realign_configs(dtype):
    """The configs with realigning kernels in this build: {(bm, bn, bk, stages, warps): config dict}."""
    out = {}
    for r in _kernels.kernel_records():
        if r["realign"] and r["dtype"] == dtype:
            c = r["config"]
            out[(c["block_m"], c["block_n"], c["block_k"], c["stages"], c["warps"])] = dict(c)
    return dict(sorted(out.items()))


def make_sets(m, n, k, lay, dt, seed):
    """Rotating input sets (a, b) for the shape and layout, ~2x the L2 in all (at least 2, at most 8)."""
    gen = torch.Generator(device="cuda").manual_seed(seed)
    per_set = (m * k + k * n + m * n) * 2
    nset = max(2, min(8, int(2 * 50e6 // per_set) + 1))

    def one():
        a = torch.randn(m, k, device="cuda", generator=gen).to(dt)
        if lay == "nt":
            b = torch.randn(n, k, device="cuda", generator=gen).to(dt).t()
        else:
            b = torch.randn(k, n, device="cuda", generator=gen).to(dt)
        return a, b

    return [one() for _ in range(nset)]


def misaligned(a, b):
    """Which operands break the aligned kernels' 16-byte rule (the op's try_layout with 8 elements)."""
    def bad(t):
        ld = t.stride(0) if t.stride(1) == 1 else t.stride(1)
        return t.data_ptr() % 16 != 0 or (ld % 8 != 0 and min(t.shape) > 1)
    return "".join(n for n, t in (("A", a), ("B", b)) if bad(t))


def path_of(fn):
    """What a call launches (one profiled call): 'realign' (a `_ra` kernel), 'copy' (the op's row copy first), or
    'aligned'; with the GEMM kernels' names."""
    from torch.profiler import ProfilerActivity, profile
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        fn()
        torch.cuda.synchronize()
    names = sorted({e.name for e in prof.events()
                    if getattr(e, "device_type", None) == torch.autograd.DeviceType.CUDA})
    gemm = [n for n in names if n.startswith("origami_")]
    if not gemm:
        return "unknown (no kernel events: CUPTI?)", names
    if any(n.endswith("_ra") for n in gemm):
        kind = "realign"
    elif any("row_copy" in n or "transpose_copy" in n for n in names):
        kind = "copy"
    else:
        kind = "aligned"
    return kind, gemm


def checked_time(fn, sets, ref, dtype, reps, what):
    out = fn(*sets[0])
    err = ((out.float() - ref).norm() / ref.norm().clamp_min(1e-30)).item()
    assert err <= TOL[dtype], f"{what}: relative Frobenius error {err:.3e}"
    return bench(fn, sets, reps), err


def config_key(c):
    return f"{c['block_m']}x{c['block_n']}x{c['block_k']} s{c['stages']} w{c['warps']}" + (
        f" sk{c['split_k']}" if c.get("split_k", 1) > 1 else "")


def run_half(args):
    """Every measurement of this process (realigning kernels on, or off in the child): JSON-able rows."""
    dt = getattr(torch, args.dtype)
    cfgs = realign_configs(args.dtype)
    splits = [1] + [int(s) for s in args.splits.split(",") if s.strip()]
    rows = []
    for i, (m, n, k, lay) in enumerate(shapes_of(args)):
        sets = make_sets(m, n, k, lay, dt, seed=1000 + i)
        ref = sets[0][0].float() @ sets[0][1].float()
        mis = misaligned(*sets[0])
        row = dict(shape=[m, n, k], layout=lay, misaligned=mis, launches=[])
        if not args.child:
            row["cublas_s"], _ = checked_time(torch.matmul, sets, ref, args.dtype, args.reps, "cublas")
        pick = list(torch.ops.origami_nv.select_config(m, n, k, args.dtype, 1, lay, False, "A" not in mis,
                                                       "B" not in mis))
        row["pick"] = pick
        row["pick_path"], row["pick_kernels"] = path_of(lambda: origami_nv.matmul(*sets[0]))
        row["pick_s"], _ = checked_time(origami_nv.matmul, sets, ref, args.dtype, args.reps, "pick")
        for key, c in cfgs.items():
            for sk in splits if m <= args.split_max_m else [1]:
                cfg = dict(c, group_size_m=8, split_k=sk)
                fn = lambda a, b, cfg=cfg: origami_nv.matmul(a, b, config=cfg)  # noqa: E731
                kind, kern = path_of(lambda: fn(*sets[0]))
                t, err = checked_time(fn, sets, ref, args.dtype, args.reps, config_key(cfg))
                row["launches"].append(dict(config=config_key(cfg), path=kind, kernels=kern, seconds=t, error=err))
        rows.append(row)
        print(f"[{'copy' if args.child else 'realign'} half] {m}x{n}x{k} {lay} done", file=sys.stderr, flush=True)
    return rows


def main(argv=None):
    args = parse_args(argv)
    if args.child:
        print(json.dumps(run_half(args)))
        return 0
    if os.environ.get("ORIGAMI_NV_REALIGN", "1")[:1] == "0":
        raise SystemExit("run without ORIGAMI_NV_REALIGN=0: this process times the realigning kernels")
    child_argv = [sys.executable, os.path.abspath(__file__), "--child", "--dtype", args.dtype, "--shapes", args.shapes,
                  "--layouts", args.layouts, "--splits", args.splits, "--split-max-m", str(args.split_max_m),
                  "--reps", str(args.reps)]
    on = run_half(args)
    p = subprocess.run(child_argv, capture_output=True, text=True, env=dict(os.environ, ORIGAMI_NV_REALIGN="0"))
    if p.returncode != 0:
        sys.stderr.write(p.stderr[-4000:])
        raise SystemExit("the copy-path child failed")
    off = json.loads(p.stdout.strip().splitlines()[-1])
    gpu = torch.cuda.get_device_name()
    print(f"probe_realign: {gpu}, {args.dtype}, times in us (median of {args.reps} CUDA-graph replays over rotating"
          " inputs); ratio = copy path / realign (> 1: realign faster); vs cuBLAS = cuBLAS / ours")
    for r_on, r_off in zip(on, off):
        m, n, k = r_on["shape"]
        cub = r_on["cublas_s"]
        print(f"{m}x{n}x{k} {r_on['layout']} misaligned {r_on['misaligned'] or '-'}: cuBLAS {cub * 1e6:.1f} | pick "
              f"{r_on['pick_s'] * 1e6:.1f} ({r_on['pick_path']}, {r_on['pick']}; vs cuBLAS {cub / r_on['pick_s']:.2f})"
              f" | pick without realign {r_off['pick_s'] * 1e6:.1f} ({r_off['pick_path']}, {r_off['pick']}; vs cuBLAS"
              f" {cub / r_off['pick_s']:.2f})")
        best = None
        for l_on, l_off in zip(r_on["launches"], r_off["launches"]):
            assert l_on["config"] == l_off["config"]
            ratio = l_off["seconds"] / l_on["seconds"]
            l_on["copy_path_seconds"], l_on["copy_path"] = l_off["seconds"], l_off["path"]
            print(f"    {l_on['config']:<22} {l_on['path']:<8} {l_on['seconds'] * 1e6:8.1f}   {l_off['path']:<8}"
                  f" {l_off['seconds'] * 1e6:8.1f}   ratio {ratio:5.2f}   vs cuBLAS {cub / l_on['seconds']:.2f}")
            if l_on["path"] == "realign" and (best is None or l_on["seconds"] < best["seconds"]):
                best = l_on
        if best:
            print(f"    best realign launch: {best['config']} {best['seconds'] * 1e6:.1f} us (vs cuBLAS"
                  f" {cub / best['seconds']:.2f})")
    doc = dict(probe="probe_realign", gpu=gpu, dtype=args.dtype, reps=args.reps, torch=torch.__version__,
               realign=on, copy_path=off)
    paths = [args.json] if args.json else []
    if os.environ.get("OUT"):
        paths.append(os.path.join(os.environ["OUT"], "probe_realign.json"))
    for path in paths:
        with open(path, "w") as f:
            json.dump(doc, f, indent=1)
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
