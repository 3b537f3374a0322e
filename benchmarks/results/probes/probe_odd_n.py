# One-off probe (issue 13.1, 2026-11-24): kernels at odd-N shapes of the H100 gen-train set (C rows not 16-byte
# aligned), after the lane-contiguous unaligned epilogue; compare with the same launches in
# reports/nvidia-h100/raw/gen-train (the old per-thread element stores). Cold rotating inputs, CUDA graph, median.
import torch, origami_nv
exec(open(__file__.replace("probe_odd_n.py", "probe_bench.py")).read())  # the shared timing helper
recs = compiled_configs()
want = [(64, 256, 64, "wgmma"), (128, 256, 64, "wgmma"), (128, 192, 64, "wgmma"), (256, 128, 64, "wgmma"),
        (128, 128, 64, "wgmma"), (128, 128, 32, "mma_sync"), (128, 256, 32, "mma_sync")]
shapes = [(2770, 9781, 201, "nt"), (7753, 1601, 249, "nt"), (934, 9930, 347, "nt"), (1896, 2919, 813, "nn"),
          (7106, 987, 442, "nt"), (10349, 8354, 1276, "nn"), (4096, 4097, 4096, "nn"), (4096, 4096, 4096, "nn")]
for m, n, k, lay in shapes:
    def mk():
        a = torch.randn(m, k, device="cuda").half()
        b = torch.randn(n, k, device="cuda").half().t() if lay == "nt" else torch.randn(k, n, device="cuda").half()
        return a, b
    nset = max(2, min(8, int(2 * 50e6 // ((m * k + k * n + m * n) * 2)) + 1))
    sets = [mk() for _ in range(nset)]
    ref = sets[0][0].float() @ sets[0][1].float()
    row = [f"{m}x{n}x{k} {lay} cublas {bench(torch.matmul, sets) * 1e6:.1f}us"]
    row += time_kernels(sets, ref, want, recs, lambda key, t: f"{key[3][:2]}{key[0]}x{key[1]} {t * 1e6:.1f}")
    row.append("pick " + str(list(torch.ops.origami_nv.select_config(m, n, k, "float16"))))
    print(" | ".join(row), flush=True)
