# One-off probe: split-K speed of chosen tiles vs cuBLAS at decode/small-M/long-K shapes (cold rotating inputs, graphs).
import sys, torch, origami_nv
torch.backends.cuda.matmul.allow_tf32 = False
exec(open(__file__.replace("probe_split.py", "probe_bench.py")).read())  # the shared timing helper
tiles = {"m16x64": dict(block_m=16, block_n=64, block_k=64, stages=6, warps=1, family="mma_sync"),
         "m16x128": dict(block_m=16, block_n=128, block_k=64, stages=5, warps=2, family="mma_sync"),
         "m64x64": dict(block_m=64, block_n=64, block_k=64, stages=3, warps=4, family="mma_sync"),
         "w128x64": dict(block_m=128, block_n=64, block_k=64, stages=8, warps=12, family="wgmma"),
         "w64x256": dict(block_m=64, block_n=256, block_k=64, stages=4, warps=8, family="wgmma")}
recs = {(r["config"]["block_m"], r["config"]["block_n"], r["config"]["block_k"], r["family"]): r["config"] for r in origami_nv.kernels("float16")}
for k, t in tiles.items():
    c = recs.get((t["block_m"], t["block_n"], t["block_k"], t["family"]))
    if c: t["stages"], t["warps"] = c["stages"], c["warps"]
shapes = [(1, 4096, 4096), (1, 14336, 4096), (1, 4096, 14336), (1, 1024, 4096), (16, 4096, 4096), (16, 1024, 8192), (128, 4096, 14336), (256, 4096, 4096), (768, 768, 65536)]
for M, N, K in shapes:
    nb = max(2, int(2 * 50e6 // ((M * K + N * K) * 2)) + 1)
    sets = [(torch.randn(M, K, device="cuda").half(), torch.randn(N, K, device="cuda").half().t()) for _ in range(min(nb, 64))]
    ref = sets[0][0].float() @ sets[0][1].float()
    cub = bench(torch.matmul, sets) * 1e6  # us
    row = [f"{M}x{N}x{K} cublas {cub:.1f}us"]
    for name, t in tiles.items():
        best = None
        for sk in (1, 2, 4, 8, 16, 32):
            cfg = dict(t, group_size_m=1, split_k=sk)
            out = origami_nv.matmul(*sets[0], config=cfg)
            err = ((out.float() - ref).norm() / ref.norm()).item()
            assert err < 2e-3, (name, sk, err)
            us = bench(lambda a, b: origami_nv.matmul(a, b, config=cfg), sets) * 1e6
            if best is None or us < best[0]: best = (us, sk)
        row.append(f"{name} {best[0]:.1f}us(sk{best[1]}) {cub / best[0]:.2f}x")
    print(" | ".join(row), flush=True)
