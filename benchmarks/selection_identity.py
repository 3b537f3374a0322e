#!/usr/bin/env python3
"""A bit-identity dump of the selector, for changes that must not move a single result (selection speed work; no GPU):
every suite's sizes and N seeded random problems (log-uniform 1..65536 per dimension, the four dtypes and layouts,
batches, misaligned operands, leading dimensions, bias) through the GPU table's H100 and H200 rows in nv and seed
mode and through the sm_90 reference kernel list (fp16): each selection's pick, its cycles as float.hex, the GROUP_SIZE_M
costs, digests of every breakdown, the full ranking (rank(): the unpruned one), that select() through the cache
returns the same pick, and ~300 explain texts. Run it with the build before and the build after, then compare:

    python benchmarks/selection_identity.py /tmp/before.json [N=3000]    # (the installed build)
    python benchmarks/selection_identity.py /tmp/after.json
    cmp /tmp/before.json /tmp/after.json

(Written for the fifty-fifth session's selection-speed commits, which cite it as /tmp/selcheck.py.)
"""
import hashlib
import json
import math
import random
import sys
from pathlib import Path

import origami_nv
from origami_nv import _api, _core
from origami_nv.bench.repredict import _op_kernels, load_kernel_table
from origami_nv.bench.suites import SUITES, get_suite

KERNEL_TABLE = Path(__file__).resolve().parents[1] / "reports" / "kernel_resources_sm90.json"

def canon(v):
    if isinstance(v, float):
        return v.hex()
    if isinstance(v, dict):
        return {k: canon(x) for k, x in sorted(v.items())}
    if isinstance(v, (list, tuple)):
        return [canon(x) for x in v]
    if isinstance(v, (str, int, bool)) or v is None:
        return v
    return repr(v)


def digest(v):
    return hashlib.sha256(json.dumps(canon(v), sort_keys=True).encode()).hexdigest()[:24]


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    out_path = argv[0]
    n_random = int(argv[1]) if len(argv) > 1 else 3000
    problems = []
    for name in SUITES:
        for z in get_suite(name).sizes:
            problems.append(dict(M=z.M, N=z.N, K=z.K, dtype=z.dtype, batch=z.batch, layout=z.layout))
    rng = random.Random(12345)

    def lu():
        return max(1, min(65536, int(round(math.exp(rng.uniform(0, math.log(65536)))))))

    for i in range(n_random):
        p = dict(M=lu(), N=lu(), K=lu(), dtype=rng.choice(["float16", "bfloat16", "float32", "tfloat32"]),
                 batch=1 if rng.random() < 0.7 else rng.choice([2, 3, 8, 32, 129]),
                 layout=rng.choice(["nn", "nt", "tn", "tt"]))
        if rng.random() < 0.25:
            p["a_aligned"] = rng.random() < 0.6
            p["b_aligned"] = rng.random() < 0.6
            p["bias"] = rng.random() < 0.5
            if rng.random() < 0.6:
                p["a_ld"] = (p["K"] if p["layout"][0] == "n" else p["M"]) + rng.choice([0, 1, 8, 24, 40, 64])
                p["b_ld"] = (p["N"] if p["layout"][1] == "n" else p["K"]) + rng.choice([0, 1, 8, 24, 40, 64])
        problems.append(p)

    selectors = []
    for gpu in ("H100_SXM", "H200"):
        for mode in ("nv", "seed"):
            selectors.append((f"{gpu}/{mode}", _api.get_selector(gpu, mode).selector, None))
    kernels = list(_op_kernels(load_kernel_table(str(KERNEL_TABLE)), {"float16"}).values())
    entry = _api.get_selector("H100_SXM", "nv")
    selectors.append(("H100_SXM/table-fp16", _core.Selector(entry.hardware, kernels, _core.ModelOptions("nv")), {"float16"}))

    result = {}
    for tag, sel, dts in selectors:
        rows = []
        for p in problems:
            if dts is not None and p["dtype"] not in dts:
                continue
            kw = {k: v for k, v in p.items() if k not in ("M", "N", "K", "dtype")}
            try:
                d = sel.selection(p["M"], p["N"], p["K"], p["dtype"], None, **kw)
            except Exception as e:  # noqa: BLE001
                rows.append([p, "error", repr(e)])
                continue
            ranking = [[repr(c), bd["total_cycles"].hex()] for c, bd in d["ranking"]]
            rows.append([p, repr(d["config"]), d["final_breakdown"]["total_cycles"].hex(),
                         d["breakdown"]["total_cycles"].hex(), canon(d["group_size_m_costs"]), repr(d["replaced_pick"]),
                         d["replaced_pick_cycles"].hex(), digest(d["breakdown"]), digest(d["final_breakdown"]),
                         digest([bd for _, bd in d["ranking"]]), digest(d["best_by_family"]), ranking[:8],
                         digest(ranking), d["ranking_size"]])
            # select() through the cache: the same pick again
            assert repr(sel.select_config(p["M"], p["N"], p["K"], p["dtype"], **kw)) == repr(d["config"])
        result[tag] = rows
        print(tag, len(rows), file=sys.stderr)

    expl = []
    for p in problems[:: max(1, len(problems) // 150)]:
        kw = {k: v for k, v in p.items() if k not in ("M", "N", "K", "dtype")}
        for gpu in ("H100_SXM", "H200"):
            try:
                expl.append(str(origami_nv.explain(p["M"], p["N"], p["K"], dtype=p["dtype"], gpu=gpu, **kw)))
            except Exception as e:  # noqa: BLE001
                expl.append(repr(e))
    result["explain"] = expl
    with open(out_path, "w") as f:
        json.dump(result, f, indent=0)
    return 0


if __name__ == "__main__":
    sys.exit(main())
