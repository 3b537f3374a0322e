# One-off probe (issues 12/13): what cuBLAS runs at mid-M / decode projections (kernel names give nvjet's tile,
# cluster and split), and where our launches spend their time (the GEMM kernel vs the split-K reduction), per
# kernel from the CUDA profiler; plus CUDA-graph times (cold rotating inputs) of the pick, a few fixed configs
# and cuBLAS. Run from the repository root on the GPU machine after `pip install --no-build-isolation .`:
#   python3 benchmarks/results/probes/probe_mid_profile.py
import collections, sys, torch, origami_nv
from torch.profiler import profile, ProfilerActivity
from origami_nv.ops import load_op
from origami_nv.bench import configs as C
exec(open(__file__.replace("probe_mid_profile.py", "probe_bench.py")).read())  # bench(), compiled_configs()
ops = load_op()
shapes = [(1, 2048, 3072), (16, 2048, 5120), (64, 4096, 4096), (128, 4096, 4096), (256, 4096, 4096),
          (128, 3072, 3072), (256, 3072, 3072), (256, 1024, 3584), (512, 1024, 3584), (128, 9216, 3072),
          (128, 8192, 8192), (128, 2048, 3072), (128, 4608, 4096), (512, 2048, 4096), (1024, 1024, 1024),
          (512, 512, 512), (32, 4096, 4096), (1024, 4096, 4096)]
if len(sys.argv) > 1:
    shapes = [tuple(int(x) for x in s.split("x")) for s in sys.argv[1:]]
recs = compiled_configs("float16")
fixed = [(128, 128, 64, "wgmma", 1), (128, 128, 64, "wgmma", 2), (128, 64, 64, "wgmma", 1), (128, 64, 64, "wgmma", 2),
         (64, 64, 64, "wgmma", 1), (64, 64, 64, "wgmma", 2), (64, 128, 64, "wgmma", 1), (64, 128, 64, "wgmma", 2),
         (64, 256, 64, "wgmma", 2)]


def kernel_times(fn, sets, iters=4):
    for s in sets[:2]: fn(*s)
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(iters):
            for s in sets: fn(*s)
        torch.cuda.synchronize()
    agg = collections.defaultdict(list)
    for e in prof.events():
        if e.device_type == torch.autograd.DeviceType.CUDA:
            agg[e.name].append(e.device_time if hasattr(e, "device_time") else e.cuda_time)
    n = iters * len(sets)
    return {k: (len(v) / n, sorted(v)[len(v) // 2]) for k, v in agg.items()}


def short(name):
    return name.split("(")[0][:90]


for M, N, K in shapes:
    dtype = torch.float16
    nb = min(32, max(2, int(2 * 50e6 // ((M * K + N * K) * 2)) + 1))
    sets = [(torch.randn(M, K, device="cuda", dtype=dtype), torch.randn(N, K, device="cuda", dtype=dtype).t())
            for _ in range(nb)]
    ref = sets[0][0].float() @ sets[0][1].float()
    pick = C.normalize(list(ops.select_config(M, N, K, "float16", 1, "nt")))
    fns = {"cublas": torch.matmul, "pick": lambda a, b: origami_nv.matmul(a, b)}
    for bm, bn, bk, fam, sk in fixed:
        c = recs.get((bm, bn, bk, fam))
        if c:
            fns[f"{fam[0]}{bm}x{bn} sk{sk}"] = (lambda cfg: (lambda a, b: origami_nv.matmul(a, b, config=cfg)))(
                dict(c, group_size_m=12, split_k=sk))
    for name, fn in fns.items():
        err = ((fn(*sets[0]).float() - ref).norm() / ref.norm()).item()
        assert err < 2e-3, (name, err)
    times = {k: [] for k in fns}
    for r in range(4):
        order = list(fns) if r % 2 == 0 else list(fns)[::-1]
        for k in order:
            times[k].append(bench(fns[k], sets) * 1e6)
    med = {k: sorted(v)[len(v) // 2] for k, v in times.items()}
    print(f"== {M}x{N}x{K} fp16 nt  pick {C.describe(pick) if hasattr(C, 'describe') else pick}", flush=True)
    print("   graph us: " + "  ".join(f"{k} {v:.1f}" for k, v in med.items()), flush=True)
    for name in ("cublas", "pick"):
        kt = kernel_times(fns[name], sets)
        print(f"   {name} kernels: " + " | ".join(f"{short(k)} x{c:.0f} {t:.1f}us" for k, (c, t) in kt.items()),
              flush=True)
