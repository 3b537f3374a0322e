# One-off probe (twenty-ninth session, issue 13): the 64x128 / 128x64 / 128x128 multicast twins and the rule that weighs
# a twin only where B's rows are off 128-byte lines, judged on 14 shapes no probe or fit had read (10 with rows off
# lines, 4 aligned controls), against the picks before the change. twins_picks_before.json / _after.json: the
# selector's plan at HEAD before and after (offline, the reference kernel table). Here, per shape of this GPU: the op's
# pick (after; ORIGAMI_NV_MULTICAST=1 process), the before pick's config launched explicitly (1-CTA, in place) and, in
# an ORIGAMI_NV_MULTICAST=2 process, its twin (where the before plan launched its twin), and cuBLAS. Timing:
# probe_bench.bench (CUDA graphs over rotating cold inputs, median of 15 replays); every output checked against fp32.
#   for v in 1 2 1 2; do ORIGAMI_NV_MULTICAST=$v python3 benchmarks/results/probes/probe_twins_valid.py TAG; done
import json
import os
import sys
import torch
import origami_nv

here = os.path.dirname(os.path.abspath(__file__))
exec(open(os.path.join(here, "probe_bench.py")).read())  # bench, compiled_configs
tag = sys.argv[1] if len(sys.argv) > 1 else "gpu"
mode = os.environ.get("ORIGAMI_NV_MULTICAST", "1")
gpu = "H200" if "H200" in torch.cuda.get_device_name() else "H100_SXM"
before = json.load(open(os.path.join(here, "twins_picks_before.json")))
recs = {dt: compiled_configs(dt) for dt in ("float16", "bfloat16")}
for key, plan in before.items():
    g, shape, lay, dt = key.split()
    if g != gpu:
        continue
    M, N, K = (int(v) for v in shape.split("x"))
    tile, sk = plan.split()[:2]
    bm, bn = (int(v) for v in tile.split("x"))
    tdt = getattr(torch, dt)
    nb = max(2, int(2 * 50e6 // ((M * K + N * K + M * N) * 2)) + 1)
    sets = []
    for _ in range(min(nb, 48)):
        a = torch.randn(M, K, device="cuda").to(tdt)
        b = torch.randn(K, N, device="cuda").to(tdt) if lay == "nn" else torch.randn(N, K, device="cuda").to(tdt).t()
        sets.append((a, b))
    ref = sets[0][0].float() @ sets[0][1].float()
    cfg = dict(recs[dt][(bm, bn, 64, "wgmma")], group_size_m=12, split_k=int(sk[2:]))
    fns = []
    if mode == "1":
        fns.append(("after_pick", lambda a, b: origami_nv.matmul(a, b)))
        fns.append(("before_1cta", lambda a, b, cfg=cfg: origami_nv.matmul(a, b, config=cfg)))
    elif "twin" in plan:
        fns.append(("before_twin", lambda a, b, cfg=cfg: origami_nv.matmul(a, b, config=cfg)))
    cells = []
    for name, fn in fns:
        out = fn(*sets[0])
        assert ((out.float() - ref).norm() / ref.norm()).item() < 3e-3, (key, name)
        cells.append(f"{name} {bench(fn, sets) * 1e6:.2f}")
    cells.append(f"cublas {bench(torch.matmul, sets) * 1e6:.2f}")
    print(f"{tag} mode={mode} {key} | before: {plan} | " + " ".join(cells), flush=True)
