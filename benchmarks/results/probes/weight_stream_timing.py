"""Shared by the probes probe_tma_ctas.py and probe_mma_sync_ctas.py: time one explicit config on x @ w.t() with
cold weights (CUDA-graph replays over rotating copies of w totalling >= 2x a 50 MB L2), the output checked first."""
import statistics

import torch

import origami_nv


def time_weight_stream(M: int, N: int, K: int, cfg: dict, max_copies: int = 16, repeats: int = 7) -> float:
    """Median microseconds of one origami_nv.matmul(a, w.t(), config=cfg), a (M, K), w (N, K), fp16."""
    copies = max(1, min(max_copies, int(2 * 50e6 // (N * K * 2)) + 1))
    a = torch.randn(M, K, device="cuda", dtype=torch.float16)
    ws = [torch.randn(N, K, device="cuda", dtype=torch.float16) for _ in range(copies)]
    ref = a.float() @ ws[0].float().t()
    out = origami_nv.matmul(a, ws[0].t(), config=cfg)
    err = float((out.float() - ref).abs().max() / ref.abs().max())
    assert err < 1e-2, (cfg, M, N, K, err)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        for w in ws:
            origami_nv.matmul(a, w.t(), config=cfg)
    g.replay()
    torch.cuda.synchronize()
    ts = []
    for _ in range(repeats):
        e0, e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        e0.record()
        g.replay()
        e1.record()
        e1.synchronize()
        ts.append(e0.elapsed_time(e1) * 1e3 / copies)
    return statistics.median(ts)
