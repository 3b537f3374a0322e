"""Probe (issue 11, model): one-warp mma.sync tiles at M = 1 (decode), time against the number of CTAs (N = BLOCK_N x
CTAs), K = 4096, B = w.t() ("nt"). Tests how the CTAs of a grid that fits in one wave share the SMs: at 1x4608x4096
the 16x16x128 s6 tile (at most 4 CTAs per SM by shared memory) runs 1.3x slower than 16x16x64 s6 (9 per SM) for the
same bytes (reports/nvidia-h100/raw/gen-valid), which no per-warp or per-SM rate of the model explains.
    python benchmarks/results/probes/probe_mma_sync_ctas.py
"""
import torch

from weight_stream_timing import time_weight_stream

torch.manual_seed(0)
K = 4096
CTAS = [33, 66, 132, 133, 198, 264, 265, 330, 396, 462, 528]
TILES = [(16, 16, 128, 6, 1), (16, 16, 64, 6, 1), (16, 32, 64, 6, 1), (16, 64, 64, 6, 1)]
print(torch.cuda.get_device_name(), "(B column: weight bytes per launch time, TB/s)")
for bm, bn, bk, st, w in TILES:
    for n_cta in CTAS:
        N = bn * n_cta
        cfg = dict(block_m=bm, block_n=bn, block_k=bk, group_size_m=8, stages=st, warps=w, family="mma_sync",
                   split_k=1)
        t = time_weight_stream(1, N, K, cfg, max_copies=16)
        it = K // bk
        print(f"mma_sync {bm}x{bn}x{bk} s{st} w{w} ctas {n_cta:4d} N {N:6d}: {t:8.2f} us  {t * 1e3 / it:7.1f} ns/iter"
              f"  B {N * K * 2 / t / 1e6:5.2f} TB/s", flush=True)
