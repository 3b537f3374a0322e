"""Split-K launches of one build against another (twenty-fourth session: did the edge-shift change slow split launches
that have no edge to shift?). Run under each build in alternating processes:
    PYTHONPATH=/tmp/oldpkg python3 benchmarks/results/probes/probe_split_ab.py old; python3 ... new
Each line: tag, shape, launch, median us (cold inputs, CUDA graphs), relative error vs fp32."""
import sys

import origami_nv
from origami_nv.bench.suites import Size
from origami_nv.bench.timing import CudaHarness, HarnessOptions

RUNS = [  # (M, N, K, layout, dtype, (bm, bn, stages, split))
    (1280, 576, 14336, "nt", "float16", (128, 192, 5, 4)), (1280, 576, 14336, "nt", "float16", (128, 144, 6, 3)),
    (640, 384, 24576, "nt", "float16", (128, 128, 6, 8)), 
    (2432, 2048, 5120, "nt", "bfloat16", (128, 256, 4, 4)), (2432, 2048, 5120, "nt", "bfloat16", (256, 128, 4, 4)),
    (704, 640, 49152, "nn", "bfloat16", (256, 128, 4, 8)),
]


def main():
    tag = sys.argv[1] if len(sys.argv) > 1 else "?"
    h = CudaHarness(HarnessOptions(repeats=7))
    for M, N, K, layout, dtype, (bm, bn, st, sk) in RUNS:
        size = Size(M, N, K, dtype, "split", 1, layout)
        ctx = h.prepare(size)
        cfg = dict(block_m=bm, block_n=bn, block_k=64, group_size_m=12, stages=st, warps=12, family="wgmma",
                   split_k=sk)
        fn = lambda a, b: origami_nv.matmul(a, b, config=cfg)  # noqa: E731
        err = h.check(ctx, fn)
        t = h.time(ctx, fn).time_s * 1e6
        print(f"{tag} {M}x{N}x{K} {layout} {dtype} {bm}x{bn} sk{sk} {t:9.2f} us err {err:.2e}", flush=True)
        h.release(ctx)


if __name__ == "__main__":
    main()
