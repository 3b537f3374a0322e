"""Probe (issue 11, model): one-warp mma.sync tiles at M = 1 (decode), time against the number of CTAs (N = BLOCK_N x
CTAs), K = 4096, B = w.t() ("nt"). Tests how the CTAs of a grid that fits in one wave share the SMs: at 1x4608x4096
the 16x16x128 s6 tile (at most 4 CTAs per SM by shared memory) runs 1.3x slower than 16x16x64 s6 (9 per SM) for the
same bytes (reports/nvidia-h100/raw/gen-valid), which no per-warp or per-SM rate of the model explains.
    python benchmarks/results/probes/probe_mma_sync_ctas.py
"""
import statistics
import torch
import origami_nv

torch.manual_seed(0)
K = 4096
CTAS = [33, 66, 132, 133, 198, 264, 265, 330, 396, 462, 528]
TILES = [(16, 16, 128, 6, 1), (16, 16, 64, 6, 1), (16, 32, 64, 6, 1), (16, 64, 64, 6, 1)]
print(torch.cuda.get_device_name(), "(B column: weight bytes per launch time, TB/s)")
for bm, bn, bk, st, w in TILES:
    for n_cta in CTAS:
        N = bn * n_cta
        copies = max(1, min(16, int(2 * 50e6 // (N * K * 2)) + 1))
        a = torch.randn(1, K, device="cuda", dtype=torch.float16)
        bs = [torch.randn(N, K, device="cuda", dtype=torch.float16) for _ in range(copies)]
        cfg = dict(block_m=bm, block_n=bn, block_k=bk, group_size_m=8, stages=st, warps=w, family="mma_sync",
                   split_k=1)
        ref = a.float() @ bs[0].float().t()
        out = origami_nv.matmul(a, bs[0].t(), config=cfg)
        err = float((out.float() - ref).abs().max() / ref.abs().max())
        assert err < 1e-2, err
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g):
            for i in range(copies):
                origami_nv.matmul(a, bs[i].t(), config=cfg)
        g.replay(); torch.cuda.synchronize()
        ts = []
        for _ in range(7):
            e0, e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            e0.record(); g.replay(); e1.record(); e1.synchronize()
            ts.append(e0.elapsed_time(e1) * 1e3 / copies)
        t = statistics.median(ts)
        it = K // bk
        print(f"mma_sync {bm}x{bn}x{bk} s{st} w{w} ctas {n_cta:4d} N {N:6d}: {t:8.2f} us  {t * 1e3 / it:7.1f} ns/iter"
              f"  B {N * K * 2 / t / 1e6:5.2f} TB/s", flush=True)
        del bs, a, g
