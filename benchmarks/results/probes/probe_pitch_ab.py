# One-off probe (twenty-first session, issue 13): the op with the model's copies of operands whose rows are off
# 128-byte lines (default) against the op without them (ORIGAMI_NV_PITCH_COPY=0: the model before the term), each
# against cuBLAS in the same process, on shapes the term's probe (probe_pitch.py) did not measure, plus aligned
# controls. Run from the repository root after `pip install --no-build-isolation .`, alternating the switch:
#   for v in 0 1 0 1; do ORIGAMI_NV_PITCH_COPY=$v python3 benchmarks/results/probes/probe_pitch_ab.py TAG$v; done
# Twenty-third session: `... probe_pitch_ab.py TAG multicast` times the 2-CTA multicast twins the same way
# (ORIGAMI_NV_MULTICAST=0 / 1 alternated) on shapes with rows off lines that neither the twins' probe
# (probe_tile192.sh with the _c2 kernels, probe_multicast_h200.txt: the margin's training set) nor the pitch probes
# measured, plus aligned controls.
# Timing: probe_bench.bench (CUDA graphs over rotating cold inputs, median of 15 replays), two rounds in alternating
# order, the mean of the two medians; every output checked against fp32.
import os
import sys
import torch
import origami_nv

exec(open(__file__.replace("probe_pitch_ab.py", "probe_bench.py")).read())  # bench(fn, sets)
tag = sys.argv[1] if len(sys.argv) > 1 else "gpu"
multicast = len(sys.argv) > 2 and sys.argv[2] == "multicast"
switch = "ORIGAMI_NV_MULTICAST" if multicast else "ORIGAMI_NV_PITCH_COPY"
shapes = [(1, 2200, 3300, 2600, "nt"), (1, 4500, 1800, 3400, "nn"), (1, 1500, 5000, 2200, "nt"),
          (1, 3300, 3300, 1500, "nn"), (1, 800, 6000, 3400, "nt"), (1, 2600, 2600, 2600, "nn"),
          (1, 5000, 3000, 1200, "nt"), (8, 1000, 1000, 1500, "nn"), (1, 6000, 6000, 2200, "nt"),
          (1, 1800, 1800, 7000, "nt"), (1, 3500, 2500, 5400, "nn"), (1, 4096, 4096, 4096, "nn"),
          (1, 2048, 8192, 4096, "nt"), (1, 3072, 3072, 3072, "nt")] if multicast else [(1, 2500, 2500, 2500, "nn"), (1, 2500, 2500, 2500, "nt"), (1, 3500, 1500, 2200, "nn"),
          (1, 1200, 4000, 3000, "nt"), (1, 7000, 7000, 1000, "nn"), (1, 2000, 2000, 6000, "nt"),
          (1, 1000, 3000, 5000, "nn"), (1, 6000, 2000, 3000, "nt"), (1, 3000, 7000, 1000, "nt"),
          (1, 5000, 1000, 3000, "nn"), (30, 608, 592, 224, "nn"), (8, 2480, 912, 224, "nn"),
          (274, 96, 160, 288, "nt"), (3, 288, 512, 3664, "nn"), (1, 1000, 1000, 1000, "nn"),
          (1, 4000, 4000, 4000, "nn"), (1, 8191, 8193, 1000, "nn"), (1, 12289, 1000, 4097, "nn"),
          (1, 4096, 4096, 4096, "nn"), (1, 2048, 8192, 4096, "nt")]
for bt, M, N, K, lay in shapes:
    nb = max(2, int(2 * 50e6 // ((M * K + N * K + M * N) * 2 * bt)) + 1)
    def mk():
        a = torch.randn(bt, M, K, device="cuda").half()
        b = torch.randn(bt, K, N, device="cuda").half() if lay == "nn" else \
            torch.randn(bt, N, K, device="cuda").half().transpose(-1, -2)
        return (a[0], b[0]) if bt == 1 else (a, b)
    sets = [mk() for _ in range(min(nb, 48))]
    ref = sets[0][0].float() @ sets[0][1].float()
    out = origami_nv.matmul(*sets[0])
    assert ((out.float() - ref).norm() / ref.norm()).item() < 2e-3, (M, N, K)
    t = {"cublas": [], "origami": []}
    for rnd in range(2):
        for k in (("cublas", "origami") if rnd == 0 else ("origami", "cublas")):
            t[k].append(bench(torch.matmul if k == "cublas" else origami_nv.matmul, sets) * 1e6)
    c, o = sum(t["cublas"]) / 2, sum(t["origami"]) / 2
    print(f"{tag} {'multicast' if multicast else 'pitch_copy'}={os.environ.get(switch, '1')} {bt}x{M}x{N}x{K} {lay} "
          f"cublas {c:.2f} "
          f"origami {o:.2f} ratio {c / o:.3f} pick {origami_nv.select(M, N, K, 'float16', batch=bt, layout=lay)}",
          flush=True)
