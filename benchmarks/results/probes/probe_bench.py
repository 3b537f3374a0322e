import torch
def bench(fn, sets, reps=15):
    for s in sets[:2]: fn(*s)
    torch.cuda.synchronize()
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        for s in sets: fn(*s)
    g.replay(); torch.cuda.synchronize()
    ts = []
    for _ in range(reps):
        e0, e1 = torch.cuda.Event(True), torch.cuda.Event(True)
        e0.record(); g.replay(); e1.record(); e1.synchronize(); ts.append(e0.elapsed_time(e1) / len(sets))
    ts.sort(); return ts[len(ts) // 2] * 1e-3


def compiled_configs(dtype="float16"):
    """(BLOCK_M, BLOCK_N, BLOCK_K, family) -> config of the compiled kernel."""
    import origami_nv
    return {(r["config"]["block_m"], r["config"]["block_n"], r["config"]["block_k"], r["family"]): r["config"]
            for r in origami_nv.kernels(dtype)}


def time_kernels(sets, ref, want, recs, fmt):
    """Each wanted compiled kernel (unsplit, GROUP_SIZE_M 8) on `sets`, checked against `ref` first; returns
    the row cells, fmt(key, seconds) each."""
    import origami_nv
    cells = []
    for key in want:
        c = recs.get(key)
        if not c:
            continue
        cfg = dict(c, group_size_m=8, split_k=1)
        out = origami_nv.matmul(*sets[0], config=cfg)
        err = ((out.float() - ref).norm() / ref.norm()).item()
        assert err < 2e-3, (key, err)
        cells.append(fmt(key, bench(lambda a, b: origami_nv.matmul(a, b, config=cfg), sets)))
    return cells


def cold_sets(M, N, K, layout="nt", dtype=torch.float16, total=120e6, cap=64):
    """Rotating input sets (a, b) of one GEMM totalling more than `total` bytes (2x the L2 or more: every replay of a
    graph over them reads its operands from DRAM), at least 2 and at most `cap`; layout "nt" gives b = W.t() (W N x K,
    nn.Linear's weight), "nn" a row-major K x N b. Returns (sets, fp32 reference of the first set's product)."""
    nb = min(cap, max(2, int(total // ((M * K + N * K + M * N) * 2)) + 1))

    def operands():
        a = torch.randn(M, K, device="cuda").to(dtype)
        b = torch.randn(N, K, device="cuda").to(dtype).t() if layout == "nt" else torch.randn(K, N, device="cuda").to(dtype)
        return a, b
    sets = [operands() for _ in range(nb)]
    return sets, sets[0][0].float() @ sets[0][1].float()
