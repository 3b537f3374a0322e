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
