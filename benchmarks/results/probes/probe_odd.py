# One-off probe (issue 13.1): why do sizes that are not tile multiples run slow? 3000 (ld 6000 B: rows not 128 B
# aligned, ragged edges), 3008 (ld 6016 B = 47 x 128: aligned rows, ragged edges), 3072 (no edges), same tile counts
# for 128-wide tiles; 4096 for reference. Cold rotating inputs, CUDA graph, median.
import torch, origami_nv
exec(open(__file__.replace("probe_odd.py", "probe_bench.py")).read())  # the shared timing helper
recs = compiled_configs()
want = [(128, 256, 64, "wgmma"), (128, 128, 64, "wgmma"), (256, 128, 64, "wgmma"), (128, 256, 32, "mma_sync"), (128, 128, 32, "mma_sync")]
for n in (3000, 3008, 3072, 4096, 6000, 6144):
    sets = [(torch.randn(n, n, device="cuda").half(), torch.randn(n, n, device="cuda").half()) for _ in range(3)]
    ref = sets[0][0].float() @ sets[0][1].float()
    fl = 2 * n ** 3
    row = [f"{n}^3 cublas {fl / bench(torch.matmul, sets) / 1e12:.0f}"]
    row += time_kernels(sets, ref, want, recs, lambda key, t: f"{key[3][:2]}{key[0]}x{key[1]} {fl / t / 1e12:.0f}")
    row.append("pick " + str(list(torch.ops.origami_nv.select_config(n, n, n, "float16"))))
    print(" | ".join(row), flush=True)
