# One-off probe (twelfth session, issue 12): the split-K launch with its slices reduced in a thread-block cluster
# (DSMEM) against the reduction kernel. Run from the repository root after `pip install --no-build-isolation .`,
# once per form (ORIGAMI_NV_CLUSTER_SPLIT=1 allows the cluster form, 0 forces the reduction kernel; read once per
# process), alternating:
#   python3 benchmarks/results/probes/probe_cluster_split.py TAG > out.txt
# For each shape (fp16, B = W.t()), the model's pick's wgmma tile at split 1, 2, 3, 4, 6, 8 (where the slices are
# at least 2 k-tiles): the CUDA-graph time per GEMM over cold rotating inputs (probe_bench.bench, median), every
# output checked against fp32 first, and cuBLAS on the same inputs; one line per launch:
#   TAG MxNxK tile split S time_us cublas_us form (the plan's reduction with this GPU's cluster capacity)
import os, sys, torch, origami_nv
from origami_nv import _core
exec(open(__file__.replace("probe_cluster_split.py", "probe_bench.py")).read())  # bench(fn, sets)
tag = sys.argv[1]
import json
from origami_nv.ops import load_op
dev = json.loads(load_op().device_kernel_resources())["kernels"]
slots = sorted({tuple(r["cluster_slots"]) for r in dev if r["family"] == "wgmma" and not r["error"]})
print(f"{tag} resident clusters of 2..8 CTAs (per distinct wgmma kernel answer): {slots}", flush=True)
shapes = [(1, 4096, 4096), (1, 2048, 8192), (1, 9216, 3072), (16, 9216, 3072), (4, 14336, 4096), (1, 1024, 4096),
          (32, 1024, 3584), (128, 1024, 4096), (128, 2048, 5120), (256, 2048, 8192), (512, 2048, 8192),
          (256, 256, 65536), (768, 768, 65536), (1024, 1024, 32768), (128, 4096, 14336), (7, 23680, 9728),
          (1, 2048, 2048), (1, 512, 2048), (8, 512, 2048), (1, 896, 4864), (1, 256, 1536), (1, 1536, 8960)]
for M, N, K in shapes:
    nb = max(2, int(2 * 50e6 // ((M * K + N * K) * 2)) + 1)
    sets = [(torch.randn(M, K, device="cuda").half(), torch.randn(N, K, device="cuda").half().t())
            for _ in range(min(nb, 48))]
    ref = sets[0][0].float() @ sets[0][1].float()
    cub = bench(torch.matmul, sets) * 1e6
    pick = origami_nv.select(M, N, K, "float16", layout="nt")
    d = {k: getattr(pick, k) for k in ("block_m", "block_n", "block_k", "group_size_m", "stages", "warps", "family",
                                       "split_k")}
    if d["family"] != "wgmma":
        d = dict(d, block_m=64, block_n=128, block_k=64, stages=8, warps=8, family="wgmma")
    tile = f"{d['block_m']}x{d['block_n']}"
    k_tiles = -(-K // d["block_k"])
    for sk in sorted({1, 2, 3, 4, 6, 8, d["split_k"]}):
        if sk > 1 and k_tiles // sk < 2:
            continue
        cfg = dict(d, split_k=sk)
        out = origami_nv.matmul(*sets[0], config=cfg)
        err = ((out.float() - ref).norm() / ref.norm()).item()
        assert err < 2e-3, (cfg, err)
        again = origami_nv.matmul(*sets[0], config=cfg)
        assert torch.equal(out, again), (cfg, "not bit-identical run to run")
        t = bench(lambda a, b: origami_nv.matmul(a, b, config=cfg), sets) * 1e6
        sp = _core.split_plan(M, N, K, 1, d["block_m"], d["block_n"], d["block_k"], sk, torch.cuda.get_device_properties(0).multi_processor_count, "wgmma", list(slots[0]))
        form = "cluster" if sp["cluster"] else "kernel" if sp["slices"] > 1 else "none"
        print(f"{tag} {M}x{N}x{K} {tile} split {sk} {t:.2f} {cub:.2f} {form}", flush=True)
