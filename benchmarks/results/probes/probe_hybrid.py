# One-off probe: the split tail of multi-wave grids (make_split_plan) on squares and mid-size projections.
import torch, origami_nv
exec(open(__file__.replace("probe_hybrid.py", "probe_bench.py")).read())
recs = {}
for r in origami_nv.kernels("float16"):
    c = r["config"]; recs[(c["block_m"], c["block_n"], r["family"])] = c
for M, N, K in [(3072, 3072, 3072), (3008, 3008, 3008), (2048, 4096, 4096), (1536, 8192, 2048), (2304, 3072, 3072), (4096, 4096, 4096), (333, 3584, 18944)]:
    sets = [(torch.randn(M, K, device="cuda").half(), torch.randn(K, N, device="cuda").half()) for _ in range(3)]
    ref = sets[0][0].float() @ sets[0][1].float()
    fl = 2 * M * N * K
    cub = bench(torch.matmul, sets)
    row = [f"{M}x{N}x{K} cublas {fl / cub / 1e12:.0f}"]
    for key in [(128, 256, "wgmma"), (128, 128, "wgmma"), (256, 128, "wgmma"), (128, 192, "wgmma")]:
        c = recs.get(key)
        if not c: continue
        res = []
        for sk in (1, 2, 3, 4, 6, 8):
            cfg = dict(c, group_size_m=8, split_k=sk)
            out = origami_nv.matmul(*sets[0], config=cfg)
            assert ((out.float() - ref).norm() / ref.norm()).item() < 2e-3, (key, sk)
            res.append((bench(lambda a, b: origami_nv.matmul(a, b, config=cfg), sets), sk))
        row.append(f"{key[0]}x{key[1]} " + " ".join(f"{sk}:{fl / t / 1e12:.0f}" for t, sk in res))
    print(" | ".join(row), flush=True)
