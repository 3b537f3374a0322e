# One-off probe (thirty-fourth session): the wgmma 128x128 config through the op, explicit config, unsplit, GROUP_SIZE_M
# 8, at sizes with two or more tiles per SM (where the launcher now takes the ping-pong schedule) and one wave (where it
# keeps the cooperative one). Run one process with ORIGAMI_NV_PINGPONG=0 (cooperative everywhere) and one without,
# alternated (probe_pingpong_op.sh); the tag names the process. The profiler names the kernel each launch ran.
# Timing: probe_bench.bench (CUDA graphs over rotating cold inputs, median of 15 replays); every output checked.
import os
import sys
import torch
import origami_nv

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from probe_bench import bench, cold_sets  # noqa: E402
tag = sys.argv[1] if len(sys.argv) > 1 else "gpu"
cfg = dict(block_m=128, block_n=128, block_k=64, stages=6, warps=12, family="wgmma", group_size_m=8, split_k=1)
shapes = [(4096, 4096, 1024, "nt"), (8192, 8192, 1024, "nt"), (4096, 4096, 4096, "nt"), (6144, 6144, 2048, "nt"),
          (16384, 4096, 4096, "nt"), (10752, 8064, 384, "nn"), (4096, 1024, 1024, "nt"), (1024, 2048, 4096, "nt")]
for M, N, K, layout in shapes:
    sets, ref = cold_sets(M, N, K, layout)
    run = lambda a, b: origami_nv.matmul(a, b, config=cfg)  # noqa: E731
    out = run(*sets[0])
    err = ((out.float() - ref).norm() / ref.norm()).item()
    assert err < 2e-3, (M, N, K, err)
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as prof:
        run(*sets[0])
        torch.cuda.synchronize()
    names = sorted({e.name for e in prof.events() if "origami_wgmma" in e.name})
    t = bench(run, sets)
    print(f"{tag} {M}x{N}x{K} {layout} {t * 1e6:.1f} us | {','.join(n.split('_')[-1] for n in names)}", flush=True)
    del sets, ref, out
    torch.cuda.empty_cache()
