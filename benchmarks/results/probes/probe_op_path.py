# One-off probe (issue 11/13): the op's automatic path, origami_nv.matmul(a, b), against the same kernel launched
# with matmul(config=...) at the pick's GROUP_SIZE_M and at the brute force's (12), and cuBLAS; alternated order,
# cold rotating inputs, CUDA graphs, median over rounds. Shapes where gen-valid/gen-train timed the pick through
# the op 1.1-1.4x slower than the brute force's launch of the same kernel.
import torch, origami_nv
from origami_nv.ops import load_op
from origami_nv.bench import configs as C
exec(open(__file__.replace("probe_op_path.py", "probe_bench.py")).read())  # the shared timing helper
ops = load_op()
shapes = [(128, 14336, 4096, "float16", "nt"), (128, 13824, 5120, "float16", "nt"), (1024, 2048, 5120, "bfloat16", "nt"),
          (128, 9216, 3072, "float16", "nt"), (704, 1280, 48128, "float16", "nn"), (16, 2048, 3072, "bfloat16", "nt"),
          (77, 15680, 512, "float16", "nn"), (4096, 4096, 4096, "float16", "nn"), (8192, 8192, 8192, "float16", "nn"),
          (4096, 14336, 4096, "bfloat16", "nt"), (8192, 14336, 4096, "bfloat16", "nt"), (8192, 128, 4096, "float16", "nn")]
for M, N, K, dt, lay in shapes:
    dtype = getattr(torch, dt)
    nb = min(64, max(2, int(2 * 50e6 // ((M * K + N * K) * 2)) + 1))
    mk_b = (lambda: torch.randn(N, K, device="cuda", dtype=dtype).t()) if lay == "nt" else \
           (lambda: torch.randn(K, N, device="cuda", dtype=dtype))
    sets = [(torch.randn(M, K, device="cuda", dtype=dtype), mk_b()) for _ in range(nb)]
    ref = sets[0][0].float() @ sets[0][1].float()
    pick = C.normalize(list(ops.select_config(M, N, K, dt, 1, lay)))
    fns = {"auto": lambda a, b: origami_nv.matmul(a, b),
           "cfg_pick": lambda a, b: origami_nv.matmul(a, b, config=dict(pick)),
           "cfg_g12": lambda a, b: origami_nv.matmul(a, b, config=dict(pick, group_size_m=12)),
           "cublas": torch.matmul}
    for name, fn in fns.items():
        err = ((fn(*sets[0]).float() - ref).norm() / ref.norm()).item()
        assert err < 2e-3, (name, err)
    times = {k: [] for k in fns}
    for r in range(6):
        order = list(fns) if r % 2 == 0 else list(fns)[::-1]
        for k in order:
            times[k].append(bench(fns[k], sets) * 1e6)
    med = {k: sorted(v)[len(v) // 2] for k, v in times.items()}
    print(f"{M}x{N}x{K} {dt} {lay} pick {pick}: " + "  ".join(f"{k} {v:.1f}us" for k, v in med.items()) +
          f"  auto/cfg_g12 {med['auto'] / med['cfg_g12']:.2f}", flush=True)
