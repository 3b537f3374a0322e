"""Probe (issue 11, model): one wgmma tile row (M <= BLOCK_M) streaming B, time per K-iteration against the number of
busy SMs (= CTAs: N = BLOCK_N x CTAs, one tile each), K = 8192. Tests whether the TMA stage time is a per-SM floor up
to some SM count and what happens past it (the brute-force data shows ~1x a box-bytes floor at <= 32 CTAs and
1.2-2.9x at 48-128). Each launch reads >= 2x L2 of weights only where N is large; smaller ones rotate up to 8 copies (>= 2x L2 in all).
The committed output's first line was hand-labelled (device, date, the B column's unit).
    python benchmarks/results/probes/probe_tma_ctas.py
"""
import torch

from weight_stream_timing import time_weight_stream

torch.manual_seed(0)
K = 8192
CTAS = [8, 16, 24, 32, 40, 48, 56, 60, 64, 66, 68, 72, 80, 96, 112, 128, 132]
TILES = [(64, 128, 64, 8, 8), (64, 64, 64, 8, 8), (128, 64, 64, 8, 12), (128, 128, 64, 6, 12)]
print(torch.cuda.get_device_name())
for bm, bn, bk, st, w in TILES:
    for M in (1, bm):
        for n_cta in CTAS:
            N = bn * n_cta
            cfg = dict(block_m=bm, block_n=bn, block_k=bk, group_size_m=8, stages=st, warps=w, family="wgmma",
                       split_k=1)
            t = time_weight_stream(M, N, K, cfg, max_copies=8)
            it = K // bk
            print(f"wgmma {bm}x{bn}x{bk} s{st} M={M:4d} ctas {n_cta:4d} N {N:6d}: {t:8.2f} us  {t * 1e3 / it:7.1f} ns/iter"
                  f"  B {N * K * 2 / t / 1e6:7.2f} TB/s", flush=True)
