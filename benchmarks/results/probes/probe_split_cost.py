# One-off probe (session 8, issue 12): where a split-K launch's time goes. For the model's pick at mid-M and long-K
# shapes: the CUDA-graph time of the whole launch (cold rotating inputs, probe_bench.bench), and from torch.profiler
# the device time of the GEMM kernel and of the reduction kernel separately (eager calls over the same rotation);
# the same tile unsplit beside it. Run from the repository root after `pip install --no-build-isolation .`.
import collections, torch, origami_nv
from torch.profiler import profile, ProfilerActivity
exec(open(__file__.replace("probe_split_cost.py", "probe_bench.py")).read())  # bench(fn, sets)
shapes = [(512, 2048, 8192), (256, 2048, 8192), (512, 3072, 8192), (256, 3072, 8192), (512, 3584, 18944),
          (256, 256, 65536), (1, 4096, 4096), (32, 1024, 3584), (128, 2048, 8192), (1, 2048, 8192)]
def kernel_times(fn, sets, n=30):
    for s in sets[:2]: fn(*s)
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for i in range(n): fn(*sets[i % len(sets)])
        torch.cuda.synchronize()
    acc = collections.defaultdict(list)
    for e in prof.events():
        if e.device_type == torch.autograd.DeviceType.CUDA:
            acc[e.name].append(e.device_time if hasattr(e, "device_time") else e.cuda_time)
    return {k: (sum(v) / len(v), len(v)) for k, v in acc.items()}
for M, N, K in shapes:
    nb = max(2, int(2 * 50e6 // ((M * K + N * K) * 2)) + 1)
    sets = [(torch.randn(M, K, device="cuda").half(), torch.randn(N, K, device="cuda").half().t()) for _ in range(min(nb, 48))]
    ref = sets[0][0].float() @ sets[0][1].float()
    cub = bench(torch.matmul, sets) * 1e6
    pick = origami_nv.select(M, N, K, "float16", layout="nt")
    d = pick.to_dict() if hasattr(pick, "to_dict") else {k: getattr(pick, k) for k in ("block_m", "block_n", "block_k", "group_size_m", "stages", "warps", "family", "split_k")}
    print(f"{M}x{N}x{K} cublas {cub:.1f} us; pick {pick}", flush=True)
    for sk in sorted({d["split_k"], 1, 2, 3, 4}):
        cfg = dict(d, split_k=sk)
        try:
            out = origami_nv.matmul(*sets[0], config=cfg)
        except Exception as ex:
            print("   sk", sk, "error", ex); continue
        err = ((out.float() - ref).norm() / ref.norm()).item()
        assert err < 2e-3, (cfg, err)
        fn = lambda a, b: origami_nv.matmul(a, b, config=cfg)
        g = bench(fn, sets) * 1e6
        kt = kernel_times(fn, sets)
        parts = "; ".join(f"{k[:60]} {v[0]:.2f} us x{v[1]}" for k, v in sorted(kt.items(), key=lambda x: -x[1][0]))
        print(f"   sk{sk}: graph {g:.2f} us ({cub / g:.3f}x cuBLAS) | {parts}", flush=True)
