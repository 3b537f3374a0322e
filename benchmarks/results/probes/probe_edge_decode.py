# One-off probe (issue 13, 2026-11-24): mma.sync kernels at decode, where every CTA is at the M edge (M < BLOCK_M),
# after the steady-state loop for one-edge CTAs; compare with the same launches in reports/nvidia-h100/raw/gen-train
# (before: e.g. 1x3584x14336 with 16x16x64 94.5 us at M = 1, 45.3 at M = 16). Layout nt (B = W.t()), fp16,
# cold rotating inputs, CUDA graph, median.
import torch, origami_nv
exec(open(__file__.replace("probe_edge_decode.py", "probe_bench.py")).read())  # the shared timing helper
recs = compiled_configs()
want = [(16, 16, 64, "mma_sync"), (16, 128, 64, "mma_sync"), (32, 64, 128, "mma_sync"), (64, 64, 32, "mma_sync"),
        (128, 128, 32, "mma_sync"), (64, 256, 64, "wgmma")]
for m, n, k in [(1, 3584, 14336), (16, 3584, 14336), (1, 1024, 3584), (16, 1024, 3584), (4, 4096, 4096),
                (1, 14336, 4096), (16, 14336, 4096), (100, 4096, 4096), (300, 1000, 4096)]:
    sets = [(torch.randn(m, k, device="cuda").half(), torch.randn(n, k, device="cuda").half().t())
            for _ in range(max(2, min(16, int(100e6 // (n * k * 2)) + 1)))]
    ref = sets[0][0].float() @ sets[0][1].float()
    row = [f"{m}x{n}x{k} cublas {bench(torch.matmul, sets) * 1e6:.1f}us"]
    row += time_kernels(sets, ref, want, recs, lambda key, t: f"{key[3][:2]}{key[0]}x{key[1]}x{key[2]} {t * 1e6:.1f}")
    print(" | ".join(row), flush=True)
