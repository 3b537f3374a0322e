# One-off probe: long-K few-tile shapes, every split 1..16 (+20, 24, 32) on the wgmma tiles: is wave filling
# (units = tiles x split close to a multiple of 132) what decides the best split?
import torch, origami_nv
exec(open(__file__.replace("probe_longk.py", "probe_bench.py")).read())
recs = {}
for r in origami_nv.kernels("float16"):
    c = r["config"]; recs[(c["block_m"], c["block_n"], r["family"])] = c
for M, N, K in [(768, 768, 65536), (1024, 1024, 32768), (128, 4096, 14336), (256, 256, 65536)]:
    sets = [(torch.randn(M, K, device="cuda").half(), torch.randn(K, N, device="cuda").half()) for _ in range(2)]
    ref = sets[0][0].float() @ sets[0][1].float()
    cub = bench(torch.matmul, sets)
    print(f"{M}x{N}x{K} cublas {cub * 1e6:.1f}us", flush=True)
    for key in [(128, 128, "wgmma"), (128, 64, "wgmma"), (64, 256, "wgmma"), (128, 256, "wgmma")]:
        c = recs[key]
        tiles = -(-M // key[0]) * -(-N // key[1])
        res = []
        for sk in list(range(1, 17)) + [20, 24, 32]:
            cfg = dict(c, group_size_m=1, split_k=sk)
            out = origami_nv.matmul(*sets[0], config=cfg)
            assert ((out.float() - ref).norm() / ref.norm()).item() < 2e-3
            res.append((bench(lambda a, b: origami_nv.matmul(a, b, config=cfg), sets), sk))
        best = min(res)
        print(f"  {key} tiles {tiles}: " + " ".join(f"{sk}:{cub / t:.2f}" for t, sk in res) + f"  best sk{best[1]} {cub / best[0]:.2f}x", flush=True)
