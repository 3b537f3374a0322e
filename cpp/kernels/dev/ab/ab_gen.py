"""Write ab_part_<i>.cu (kernels of the A/B list, split over NPARTS TUs) into the given directory.

    ab_gen.py OUTDIR NPARTS [--baseline]   (old entries only with --baseline)"""
import sys
# (variant, bm, bn, bk, stages, warps_m, warps_n, min_blocks); variant: old | new2 (double frags) | new1
LIST = [
    ("old", 16, 16, 64, 6, 1, 1, 2), ("new2", 16, 16, 64, 6, 1, 1, 2),
    ("old", 16, 16, 128, 4, 1, 1, 2), ("new2", 16, 16, 128, 4, 1, 1, 2), ("new2", 16, 16, 128, 6, 1, 1, 2),
    ("old", 16, 32, 32, 6, 1, 1, 2), ("new2", 16, 32, 32, 6, 1, 1, 2),
    ("old", 32, 64, 32, 5, 1, 2, 2), ("new2", 32, 64, 32, 5, 1, 2, 2), ("new2", 32, 64, 32, 6, 1, 2, 2),
    ("old", 64, 32, 32, 5, 2, 1, 2), ("new2", 64, 32, 32, 5, 2, 1, 2), ("new2", 64, 32, 32, 6, 2, 1, 2),
    ("old", 64, 64, 32, 4, 2, 2, 2), ("new2", 64, 64, 32, 4, 2, 2, 2), ("new2", 64, 64, 32, 6, 2, 2, 2),
    ("old", 64, 64, 64, 3, 2, 2, 2), ("new2", 64, 64, 64, 3, 2, 2, 2), ("new2", 64, 64, 64, 4, 2, 2, 2),
    ("new2", 64, 64, 64, 5, 2, 2, 2),
    ("new2", 64, 64, 128, 3, 2, 2, 2), ("new2", 64, 64, 128, 4, 2, 2, 2),
    ("new2", 64, 128, 64, 3, 2, 4, 2), ("new2", 64, 128, 64, 4, 2, 4, 2),
    ("new2", 128, 64, 64, 3, 4, 2, 2), ("new2", 128, 64, 64, 4, 4, 2, 2),
    ("new2", 128, 128, 32, 3, 2, 4, 1), ("new2", 128, 128, 32, 4, 2, 4, 1),
    ("old", 128, 128, 64, 3, 2, 4, 1), ("new2", 128, 128, 64, 3, 2, 4, 1), ("new2", 128, 128, 64, 4, 2, 4, 1),
    ("old", 128, 256, 32, 3, 2, 4, 1), ("new2", 128, 256, 32, 3, 2, 4, 1), ("new2", 128, 256, 32, 4, 2, 4, 1),
    ("new2", 128, 256, 64, 3, 2, 4, 1), ("new2", 128, 256, 64, 4, 2, 4, 1),
    ("new2", 256, 128, 32, 3, 4, 2, 1), ("new2", 256, 128, 32, 4, 4, 2, 1),
]
nparts = int(sys.argv[2])
with_old = "--baseline" in sys.argv[3:]
LIST = [e for e in LIST if with_old or e[0] != "old"]
for part in range(nparts):
    lines = ['#include "ab_defs.cuh"']
    regs = []
    for idx, (v, bm, bn, bk, st, wm, wn, mb) in enumerate(LIST):
        if idx % nparts != part:
            continue
        i = f"{v}_{bm}x{bn}x{bk}_s{st}_b{mb}"
        if v == "old":
            lines.append(f"OLDK({i}, {bm}, {bn}, {bk}, {st}, {wm}, {wn}, {mb})")
        else:
            lines.append(f"NEWK({i}, {bm}, {bn}, {bk}, {st}, {wm}, {wn}, {mb}, {'true' if v == 'new2' else 'false'})")
        regs.append(f"  REG({i}, {bm}, {bn}, {bk})")
    lines.append(f"void ab_register_part_{part}(std::vector<AbEntry>& out) {{")
    lines += regs + ["}"]
    open(f"{sys.argv[1]}/ab_part_{part}.cu", "w").write("\n".join(lines) + "\n")
open(f"{sys.argv[1]}/ab_parts.inc", "w").write(
    "".join(f"void ab_register_part_{p}(std::vector<AbEntry>&);\n" for p in range(nparts)) +
    "static void ab_register_all(std::vector<AbEntry>& out) {\n" +
    "".join(f"  ab_register_part_{p}(out);\n" for p in range(nparts)) + "}\n")
