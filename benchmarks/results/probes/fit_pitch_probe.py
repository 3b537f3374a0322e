"""The rows-off-lines term against probe_pitch.py's measurements (offline, no GPU): per probe line the model's time
ratios (in place / A and B padded, in place / A padded, in place / B padded) against the measured ones, for values of
NvModelConstants wgmma_tma_off_line_row_cost and wgmma_tma_off_sector_row_cost; mean and rms log error of
measured / predicted. Twenty-second session (issue 13): the H100 probe (the training data of the term).
    python3 benchmarks/results/probes/fit_pitch_probe.py benchmarks/results/probes/probe_pitch_h100.txt H100_SXM \
        [LINE:SECTOR ...]"""
import math
import re
import sys

import origami_nv
from origami_nv import _api, _core

LINE = re.compile(r"^\S+ (\d+)x(\d+)x(\d+) (nn|nt) pick (\w+) (\d+)x(\d+)x(\d+) s(\d+) w(\d+) g(\d+)(?: sk(\d+))?: (.*)$")


def measured(rest):
    out = {}
    for part in rest.split(";"):
        m = re.match(r"\s*(.*?) ([\d.]+) \(", part)
        if m:
            out[m.group(1)] = float(m.group(2))
    return out


def main():
    path, gpu = sys.argv[1], sys.argv[2]
    pairs = [tuple(map(float, a.split(":"))) for a in sys.argv[3:]] or [(1.0, 0.0)]
    entry = _api.get_selector(gpu, "nv")
    kernels = _api._kernel_resources()[0]
    rows = []
    for line in open(path):
        m = LINE.match(line.strip())
        if not m:
            continue
        M, N, K = int(m.group(1)), int(m.group(2)), int(m.group(3))
        layout = m.group(4)
        cfg = _api.Config(int(m.group(6)), int(m.group(7)), int(m.group(8)), group_size_m=int(m.group(11)),
                          stages=int(m.group(9)), warps=int(m.group(10)), family=m.group(5),
                          split_k=int(m.group(12) or 1))
        t = measured(m.group(13))
        kr = next((k for k in kernels if k.dtype == "float16" and k.config.same_kernel(cfg)), None)
        rows.append((M, N, K, layout, cfg, kr, t))
    pad = lambda x: -(-x // 64) * 64
    for line_cost, sector_cost in pairs:
        opts = _core.ModelOptions("nv")
        opts.pitch_copy_plan = True
        nv = opts.nv
        nv.wgmma_tma_off_line_row_cost = line_cost
        nv.wgmma_tma_off_sector_row_cost = sector_cost
        nv.pitch_copy_min_gain = 1e9  # the launch as timed: no copy
        opts.nv = nv
        errs = []
        for M, N, K, layout, cfg, kr, t in rows:
            a_ld = K                          # A row-major (M x K) in both layouts
            b_ld = N if layout == "nn" else K  # B (K x N) row-major, or W (N x K) for nt
            def pred(al, bl):
                return _core.predict(M, N, K, "float16", cfg, entry.hardware, opts, kr, layout=layout, a_ld=al,
                                     b_ld=bl)["total_cycles"]
            base = pred(a_ld, b_ld)
            for key, al, bl in (("pick, A and B padded", pad(a_ld), pad(b_ld)), ("pick, A padded", pad(a_ld), b_ld),
                                ("pick, B padded", a_ld, pad(b_ld))):
                if key in t and "pick in place" in t:
                    errs.append(math.log((t["pick in place"] / t[key]) / (base / pred(al, bl))))
        mean = sum(errs) / len(errs)
        rms = math.sqrt(sum(e * e for e in errs) / len(errs))
        print(f"off_line {line_cost:.2f} off_sector {sector_cost:.2f}: {len(errs)} ratios, mean log error {mean:+.3f}, "
              f"rms {rms:.3f}")


if __name__ == "__main__":
    main()
