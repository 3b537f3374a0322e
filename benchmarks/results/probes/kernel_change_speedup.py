"""How much a kernel change moved the launches it alters, from the raw shards alone (no GPU).

A launch the change alters (configs.KERNEL_CHANGES, its predicate) that a set has timed both before the change
(kernel_version < N) and after it (>= N, `bench run --retime-stale`) gives one ratio old time / new time; printed per
GPU and suite: the median and 90th percentile of the speed-up and the median per BLOCK_K.

    python benchmarks/results/probes/kernel_change_speedup.py --change 11 gen-train gen-valid small-lm llm
"""
import argparse
import collections
import math
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT / "benchmarks"))
import fit_model as fm  # noqa: E402
from origami_nv.bench import configs as C  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--change", type=int, required=True, help="the kernel change (configs.KERNEL_CHANGES version)")
    ap.add_argument("--gpus", default="nvidia-h100,nvidia-h200")
    ap.add_argument("suites", nargs="+")
    args = ap.parse_args()
    n = args.change
    for gpu in args.gpus.split(","):
        for suite in args.suites:
            raw = ROOT / "reports" / gpu / "raw" / suite / "rotate"
            if not raw.is_dir():
                continue
            old, new = {}, {}
            for r in fm.load_records(raw):  # file order = run order: the latest time of each launch wins
                if (r.get("kind") != "config" or r.get("system") != "origami" or r.get("status") != "ok"
                        or not r.get("time_s")):
                    continue
                if not C.stale_kernel_record(dict(r, kernel_version=n - 1), upto=n, since=n):
                    continue  # a launch the change does not alter
                key = (r["size"], fm.kid(r["config"]))
                (new if int(r.get("kernel_version", 1)) >= n else old)[key] = float(r["time_s"])
            both = [k for k in old if k in new]
            if not both:
                continue
            logs = sorted(math.log(old[k] / new[k]) for k in both)
            by_bk = collections.defaultdict(list)
            for k in both:
                by_bk[k[1][3]].append(math.log(old[k] / new[k]))
            print(f"{gpu} {suite}: {len(both)} launches, speed-up median {math.exp(statistics.median(logs)):.3f}, "
                  f"90th percentile {math.exp(logs[int(0.9 * (len(logs) - 1))]):.3f}; median by BLOCK_K: "
                  + " ".join(f"{bk}: {math.exp(statistics.median(v)):.2f}" for bk, v in sorted(by_bk.items())))
    return 0


if __name__ == "__main__":
    sys.exit(main())
