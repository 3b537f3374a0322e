"""Edge tiles of K-major operands: the box moved to end at the matrix edge (KernelParams::shift_edges) against the
zero-filled box (ORIGAMI_NV_EDGE_SHIFT=0), twenty-fourth session. Run once per mode in separate processes (the switch
is read once), alternating:
    for v in 0 1 0 1; do ORIGAMI_NV_EDGE_SHIFT=$v python3 benchmarks/results/probes/probe_edge_shift.py >> OUT.txt; done
Each line: mode, shape, layout, launch (forced config, or the op's pick), median us (cold inputs, CUDA graphs), and the
relative error against the fp32 reference (every launch checked). Shapes: training-family projections at M ~ 200-350
(the M edge: 128-row tiles half outside A) and N / M edges of a few other sizes; none is a gen-test shape."""
import os
import sys

import torch

import origami_nv
from origami_nv.bench.suites import Size
from origami_nv.bench.timing import CudaHarness, HarnessOptions

SHAPES = [  # (M, N, K, layout)
    (300, 3584, 3584, "nt"), (300, 18944, 3584, "nt"), (300, 3584, 18944, "nt"), (300, 9216, 3072, "nt"),
    (300, 14336, 4096, "nt"), (352, 4096, 3584, "nt"), (336, 3072, 8192, "nt"), (200, 4096, 3584, "nt"),
    (1024, 3000, 4096, "nt"), (2048, 1000, 3072, "nt"), (2500, 2560, 2048, "nn"), (700, 9216, 3072, "nt"),
]
TILES = [(128, 128, 6), (128, 112, 7), (64, 256, 4), (256, 128, 4), (128, 256, 4), (128, 192, 5)]


def main():
    mode = os.environ.get("ORIGAMI_NV_EDGE_SHIFT", "1")
    h = CudaHarness(HarnessOptions(repeats=5))
    gpu = "h200" if "H200" in torch.cuda.get_device_name() else "h100"
    for M, N, K, layout in SHAPES:
        size = Size(M, N, K, "float16", "edge", 1, layout)
        ctx = h.prepare(size)
        runs = [("pick", None)]
        for bm, bn, st in TILES:
            if bn % 64 and layout[1] != "t":
                continue  # K-major B only
            runs.append((f"{bm}x{bn}", origami_nv.Config(bm, bn, 64, group_size_m=12, stages=st,
                                                         warps=12 if bm >= 128 else 8, family="wgmma")))
        for name, cfg in runs:
            fn = origami_nv.matmul if cfg is None else (lambda a, b, _c=cfg: origami_nv.matmul(a, b, config=_c))
            try:
                err = h.check(ctx, fn)
            except Exception as e:  # noqa: BLE001 - a kernel-filtered build lacks the tile: say so, go on
                print(f"{gpu} shift={mode} {M}x{N}x{K} {layout} {name:8s} skipped: {str(e)[:80]}", flush=True)
                continue
            t = h.time(ctx, fn).time_s * 1e6
            ok = "ok" if err <= ctx.tolerance else "WRONG"
            print(f"{gpu} shift={mode} {M}x{N}x{K} {layout} {name:8s} {t:9.2f} us err {err:.2e} {ok}", flush=True)
        h.release(ctx)
    return 0


if __name__ == "__main__":
    sys.exit(main())
