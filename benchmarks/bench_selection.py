"""Selection-speed benchmark (no GPU needed).

Measures
  1. ranking every admissible config of one (M, N, K) in C++ (timed in C++ with steady_clock via
     _core.Selector.time_rank_us, so no Python overhead): median per shape, target <= 20 us;
  2. a cached origami_nv.select() from Python (the dict fast path): per call, target <= 2 us;
  3. 10,000 random shapes selected cold (two phases + cache insert): total, from Python and in C++;
  4. the op's case: 3000 of them selected cold in C++ over the compiled kernel list of an sm_90 build (the kernel
     table, with the split-K launches the selector adds): per shape, median of 5 runs, target <= 20 us;
  5. the same over the gen-valid suite's realistic shapes (small M and long K among them): median and p90 per shape.
Prints a table and writes benchmarks/results/selection.json.

    python benchmarks/bench_selection.py [--repeats 2000] [--shapes 10000] [--out PATH]
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import random
import statistics
import sys
import time
import timeit

import origami_nv
from origami_nv import _api, _core

SHAPES = [(4096, 4096, 4096), (128, 14336, 4096), (8192, 53248, 16384), (64, 64, 64), (1000, 3000, 2000)]


def pct(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(p / 100 * len(xs)))]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=2000)
    ap.add_argument("--shapes", type=int, default=10000)
    ap.add_argument("--gpu", default="H100_SXM")
    ap.add_argument("--kernel-table", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir,
                                                            "reports", "kernel_resources_sm90.json"),
                    help="a build's kernel table (the op's kernel list) for the cold-selection measurement")
    ap.add_argument("--out", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "results",
                                                  "selection.json"))
    args = ap.parse_args(argv)
    os.environ.pop("ORIGAMI_NV_HW_PARAMS", None)

    results = {"machine": {"platform": platform.platform(), "processor": platform.processor() or platform.machine(),
                           "python": sys.version.split()[0], "cpus": os.cpu_count()},
               "gpu_row": args.gpu, "rank_cpp": [], "select_cached_python": {}, "random_shapes": {}}
    rows = []

    # 1. C++ ranking of every admissible config, per shape and mode.
    for mode in ("seed", "nv"):
        entry = _api.get_selector(args.gpu, mode)
        n = entry.selector.candidate_count("float16")
        for (M, N, K) in SHAPES:
            us = entry.selector.time_rank_us(M, N, K, "float16", args.repeats)
            r = {"mode": mode, "shape": [M, N, K], "configs": n, "median_us": statistics.median(us),
                 "p10_us": pct(us, 10), "p90_us": pct(us, 90), "repeats": len(us)}
            results["rank_cpp"].append(r)
            rows.append((f"rank all {n} configs in C++ ({mode}) {M}x{N}x{K}", r["median_us"], "us median", 20.0))

    # 2. cached select from Python.
    origami_nv.select(4096, 4096, 4096, gpu=args.gpu)
    number = 200_000
    best = min(timeit.repeat(lambda: origami_nv.select(4096, 4096, 4096, gpu=args.gpu), number=number, repeat=5))
    per_call = best / number * 1e6
    results["select_cached_python"] = {"per_call_us": per_call, "number": number, "repeat": 5, "statistic": "min of 5"}
    rows.append(("cached select() from Python", per_call, "us per call", 2.0))

    # 3. random shapes, cold.
    rng = random.Random(2026)
    shapes = [(rng.randint(1, 16384), rng.randint(1, 16384), rng.randint(1, 16384)) for _ in range(args.shapes)]
    for mode in ("seed", "nv"):
        _api.clear_caches()
        entry = _api.get_selector(args.gpu, mode)
        t0 = time.perf_counter()
        for (M, N, K) in shapes:
            origami_nv.select(M, N, K, gpu=args.gpu, mode=mode)
        py_s = time.perf_counter() - t0
        fresh = _core.Selector(entry.hardware, [], _core.ModelOptions(mode)) if entry.selector.abstract_space else None
        cpp_us = fresh.time_select_us(shapes, "float16") if fresh is not None else None
        results["random_shapes"][mode] = {"count": len(shapes), "python_total_s": py_s,
                                          "python_per_shape_us": py_s / len(shapes) * 1e6,
                                          "cpp_total_s": None if cpp_us is None else cpp_us / 1e6}
        rows.append((f"{len(shapes)} random shapes, cold, from Python ({mode})", py_s * 1e3, "ms total", None))
        if cpp_us is not None:
            rows.append((f"{len(shapes)} random shapes, cold, in C++ ({mode})", cpp_us / 1e3, "ms total", None))

    # 4. the op's case: the compiled kernel list (the kernel table of an sm_90 build, both tensor-core families,
    #    every split the selector adds), random shapes, each selected cold in C++ (two phases, cache insert).
    if os.path.exists(args.kernel_table):
        from origami_nv.bench.repredict import _op_kernels, load_kernel_table
        kernels = list(_op_kernels(load_kernel_table(args.kernel_table), {"float16"}).values())
        entry = _api.get_selector(args.gpu, "nv")
        sel = _core.Selector(entry.hardware, kernels, _core.ModelOptions("nv"))
        shapes_k = shapes[:3000]
        per_shape = []
        for _ in range(5):
            sel.clear_cache()
            per_shape.append(sel.time_select_us(shapes_k, "float16") / len(shapes_k))
        med = statistics.median(per_shape)
        results["compiled_kernels_cold"] = {"kernel_table": os.path.relpath(args.kernel_table), "kernels": len(kernels),
                                            "candidates": sel.candidate_count("float16"), "shapes": len(shapes_k),
                                            "per_shape_us_median_of_5": med, "per_shape_us_runs": per_shape}
        rows.append((f"cold select, {sel.candidate_count('float16')} compiled kernels + splits, in C++, per shape",
                     med, "us median", 20.0))
        # 5. The same over realistic shapes: the gen-valid suite (LLM projections at decode and prefill token counts,
        #    random classes; float16, nn). Uniform random shapes up to 16384 are mostly large problems whose last
        #    wave is full, where no kernel is tried split; at small M and long K the selector scores ~90 split launches
        #    besides the unsplit ones (53rd session: median 25 us against the random shapes' 18 on this machine).
        from origami_nv.bench.suites import get_suite
        suite = sorted({(z.M, z.N, z.K) for z in get_suite("gen-valid").sizes})
        per = []
        for shape in suite:
            one = []
            for _ in range(5):
                sel.clear_cache()
                one.append(sel.time_select_us([shape], "float16"))
            per.append(statistics.median(one))
        results["compiled_kernels_cold_gen_valid"] = {"shapes": len(suite), "per_shape_us_median": statistics.median(per),
                                                      "per_shape_us_p90": pct(per, 90), "per_shape_us_max": max(per)}
        rows.append((f"cold select as in 4, the {len(suite)} gen-valid shapes, median", statistics.median(per),
                     "us per shape", 20.0))
        rows.append((f"cold select as in 4, the {len(suite)} gen-valid shapes, p90", pct(per, 90), "us per shape", None))

    w = max(len(r[0]) for r in rows)
    print(f"{'measurement':<{w}}  {'value':>10}  {'unit':<12} target")
    for name, v, unit, target in rows:
        t = "" if target is None else (f"<= {target:g}  " + ("ok" if v <= target else "MISSED"))
        print(f"{name:<{w}}  {v:>10.3f}  {unit:<12} {t}")
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out, "w") as f:
        json.dump(results, f, indent=2)
        f.write("\n")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
