# Offline check (fifty-ninth session, no GPU): the installed model's predictions for the kernels of a deep-ring table
# (probe_deep_rings.sh output: measured us per size and kernel, fp16 nt, GROUP_SIZE_M 12, unsplit) against the
# measurements. A deep ring the product does not compile is predicted from its stage-8 record with the extra stages'
# shared memory (the registers are the same: 77 at 64x64 s8 and s13, ptxas). Prints the pick's share of the best
# measured kernel among the table's, the mean Kendall tau over its kernels, and how often the model orders a tile's
# deep ring and its s8 ring as measured.
#   python benchmarks/results/probes/deep_ring_model_check.py [GPU_ROW] [TABLE] [VALUE [CONSTANT]]
# (VALUE for the NvModelConstants field CONSTANT, default wgmma_pipeline_latency_factor)
import json
import math
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, '..', '..', '..'))
from origami_nv import _api, _core
from origami_nv._api import _resources_from_dict
t = json.load(open(os.path.join(ROOT, 'reports', 'kernel_resources_sm90.json')))['kernels']
byname = {k['name']: k for k in t}
gpu = sys.argv[1] if len(sys.argv) > 1 else "H100_SXM"
path = sys.argv[2] if len(sys.argv) > 2 else os.path.join(HERE, 'probe_deep_rings_s58_h100.txt')
entry = _api.get_selector(gpu, "nv")
hw = entry.hardware
opts = _core.ModelOptions("nv")
if len(sys.argv) > 3:
    nv = opts.nv; setattr(nv, sys.argv[4] if len(sys.argv) > 4 else "wgmma_pipeline_latency_factor", float(sys.argv[3])); opts.nv = nv
lines = open(path).read().splitlines()
hi = [i for i, l in enumerate(lines) if l.startswith('M,N,K')][0]
hdr = lines[hi].split()[1:]
def record(kname):
    m = re.match(r'(\d+)x(\d+)x(\d+)_s(\d+)_w(\d+)_kk', kname)
    bm, bn, bk, s, w = map(int, m.groups())
    base = byname.get(f'origami_wgmma_{bm}x{bn}x{bk}_s{s}_w{w}_fp16_kk')
    if base is not None:
        return dict(base)
    # a deep ring the product does not compile: the s8 record with the ring's extra stages of shared memory
    b8 = dict(byname[f'origami_wgmma_{bm}x{bn}x{bk}_s8_w{w}_fp16_kk'])
    b8['config'] = dict(b8['config'], stages=s)
    b8['smem_bytes'] = b8['smem_bytes'] + (s - 8) * (bm + bn) * bk * 2
    b8['name'] = b8['ptxas_name'] = f'origami_wgmma_{bm}x{bn}x{bk}_s{s}_w{w}_fp16_kk'
    return b8
def cfg(rec):
    c = rec['config']
    return _core.TileConfig(c['block_m'], c['block_n'], c['block_k'], 12, c['stages'], c['warps'], 'wgmma')
recs = {h: record(h) for h in hdr if h != 'cublas'}
agree = tot = 0
taus = []
picks = []
for l in lines[hi + 1:]:
    m = re.match(r"\((\d+), (\d+), (\d+), 'fp16'\)\s+(.*)", l)
    if not m:
        continue
    M, N, K = map(int, m.groups()[:3])
    vals = dict(zip(hdr, map(float, m.group(4).split())))
    pred = {}
    for h, r in recs.items():
        kr = _resources_from_dict(r)
        pred[h] = _core.predict(M, N, K, 'float16', cfg(r), hw, opts, kr, layout='nt')['total_cycles']
    # pairs (s8, deep) of one tile
    for h in recs:
        mm = re.match(r'64x(\d+)x64_s(\d+)_w8_kk', h)
        if not mm or mm.group(2) == '8':
            continue
        h8 = f'64x{mm.group(1)}x64_s8_w8_kk'
        md = vals[h] < vals[h8]; pd = pred[h] < pred[h8]
        tot += 1; agree += md == pd
    ks = [h for h in recs]
    c = d = 0
    for i in range(len(ks)):
        for j in range(i + 1, len(ks)):
            a = (vals[ks[i]] - vals[ks[j]]) * (pred[ks[i]] - pred[ks[j]])
            c += a > 0; d += a < 0
    taus.append((c - d) / max(1, c + d))
    best_meas = min(recs, key=lambda h: vals[h]); best_pred = min(recs, key=lambda h: pred[h])
    picks.append(vals[best_meas] / vals[best_pred])
    print(f"{M}x{N}x{K}: measured best {best_meas} {vals[best_meas]:.1f}, predicted best {best_pred} ({vals[best_pred]:.1f} us measured, {vals[best_meas]/vals[best_pred]:.3f} of best); tau {taus[-1]:.2f}")
print("pick geomean", math.exp(sum(map(math.log,picks))/len(picks)), "min", min(picks))
print(f"deep vs s8 direction agreement: {agree}/{tot}; mean tau over the 13 kernels {sum(taus)/len(taus):.3f}")
