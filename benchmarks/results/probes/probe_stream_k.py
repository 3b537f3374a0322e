# One-off probe (twenty-first session, issue 13): the stream-K schedule (TileConfig.stream_k, make_stream_k_plan)
# against the same kernel unsplit, its best split-K launch and cuBLAS, on shapes whose last wave is partial. Needs the
# build of commit c729849 (stream-K was reverted after this measurement: benchmarks/results/stream_k_not_adopted.md).
# Run from the repository root after `pip install --no-build-isolation .`:
#   python3 benchmarks/results/probes/probe_stream_k.py TAG > out.txt
# For each shape (fp16, B = W.t() as nn.Linear has it) and each of a few wgmma tiles: the CUDA-graph time per GEMM over
# cold rotating inputs (probe_bench.bench: inputs > 2x L2, median of 15 replays), every output checked against fp32
# first and stream-K checked bit-identical run to run; the order of the launches alternates between two rounds and
# each time is the mean of the two rounds' medians.
#   TAG MxNxK tile tiles waves | unsplit_us | best split (S) | streamk_us (ctas, iters/cta) | cuBLAS_us | model pick
import sys
import torch
import origami_nv
from origami_nv import _core

exec(open(__file__.replace("probe_stream_k.py", "probe_bench.py")).read())  # bench(fn, sets), compiled_configs()
tag = sys.argv[1] if len(sys.argv) > 1 else "gpu"
sms = torch.cuda.get_device_properties(0).multi_processor_count
recs = compiled_configs("float16")
shapes = [(6304, 768, 768), (6304, 768, 3072), (6304, 2304, 768), (6304, 3072, 768), (577, 4096, 1024),
          (577, 1024, 4096), (512, 14336, 4096), (512, 4096, 14336), (512, 6144, 4096), (1024, 5120, 5120),
          (2048, 5120, 5120), (3000, 3000, 3000), (1536, 1536, 8192), (256, 1024, 16384), (4096, 4096, 4096),
          (2000, 7168, 2048)]
tiles = [(128, 256), (256, 128), (128, 192), (128, 128), (128, 96), (64, 128), (64, 256)]


def rel_err(out, ref):
    return ((out.float() - ref).norm() / ref.norm()).item()


for M, N, K in shapes:
    nb = max(2, int(2 * 50e6 // ((M * K + N * K + M * N) * 2)) + 1)
    sets = [(torch.randn(M, K, device="cuda").half(), torch.randn(N, K, device="cuda").half().t())
            for _ in range(min(nb, 48))]
    ref = sets[0][0].float() @ sets[0][1].float()
    pick = origami_nv.select(M, N, K, "float16", layout="nt")
    fns = {"cublas": torch.matmul}
    info = {}
    for bm, bn in tiles:
        key = (bm, bn, 64, "wgmma")
        if key not in recs:
            continue
        base = dict(recs[key], group_size_m=8, split_k=1)
        plan = _core.make_stream_k_plan(M, N, K, 1, bm, bn, 64, sms)
        tiles_n = plan["tiles"]
        info[(bm, bn)] = (tiles_n, tiles_n / sms, plan["ctas"], plan["iters_per_cta"])
        fns[f"{bm}x{bn}"] = base
        if plan["ctas"] > 0:
            fns[f"{bm}x{bn} sk"] = dict(base, stream_k=True)
        k_tiles = -(-K // 64)
        for s in (2, 3, 4):
            if k_tiles // s >= 4 and tiles_n < 3 * sms:
                fns[f"{bm}x{bn} s{s}"] = dict(base, split_k=s)
    # check every launch first
    for name, cfg in fns.items():
        if name == "cublas":
            continue
        out = origami_nv.matmul(*sets[0], config=cfg)
        assert rel_err(out, ref) < 2e-3, (M, N, K, name, rel_err(out, ref))
        if cfg.get("stream_k"):
            assert torch.equal(out, origami_nv.matmul(*sets[0], config=cfg)), (M, N, K, name, "not bit-identical")
    times = {k: [] for k in fns}
    order = list(fns)
    for rnd in range(2):
        for name in (order if rnd == 0 else order[::-1]):
            cfg = fns[name]
            fn = torch.matmul if name == "cublas" else (lambda a, b, cfg=cfg: origami_nv.matmul(a, b, config=cfg))
            times[name].append(bench(fn, sets) * 1e6)
    med = {k: sorted(v)[len(v) // 2] if len(v) % 2 else sum(v) / len(v) for k, v in times.items()}
    cub = med["cublas"]
    print(f"{tag} {M}x{N}x{K} cublas {cub:.2f} us; pick {pick}", flush=True)
    for bm, bn in tiles:
        if (bm, bn) not in info:
            continue
        t, waves, ctas, ipc = info[(bm, bn)]
        u = med[f"{bm}x{bn}"]
        sk = med.get(f"{bm}x{bn} sk")
        splits = {k.split()[-1]: v for k, v in med.items() if k.startswith(f"{bm}x{bn} s") and k != f"{bm}x{bn} sk"}
        bs = min(splits.items(), key=lambda kv: kv[1]) if splits else None
        print(f"{tag} {M}x{N}x{K} {bm}x{bn} tiles {t} waves {waves:.2f} | unsplit {u:.2f} ({cub / u:.3f}x cuBLAS)"
              + (f" | streamk {sk:.2f} ({cub / sk:.3f}x, {sk / u:.3f} of unsplit; ctas {ctas}, {ipc} it/cta)"
                 if sk else " | streamk -")
              + (f" | best split {bs[0]} {bs[1]:.2f}" if bs else ""), flush=True)
