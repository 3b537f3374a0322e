#!/usr/bin/env python3
"""Achieved DRAM rate of the stored wgmma decode launches (M <= 16, B >= 32 MB) as a share of the row's calibrated
load-kernel curve (dram_bw_c0..c2) at their active SM count, by split/unsplit and 12-SM bucket
(benchmarks/results/tma_streaming.md).
    python benchmarks/results/probes/wgmma_decode_dram_share.py nvidia-h200:gen-train:H200,nvidia-h100:gen-train:H100_SXM
"""
import sys, collections
from pathlib import Path
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
import fit_model as F
from origami_nv import _core
for item in sys.argv[1].split(','):
    gpu_dir, suite_name, row = item.split(':')
    s_ = F.Suite(suite_name, F.ROOT/'reports'/gpu_dir/'raw'/suite_name/'rotate')
    hw = _core.resolve_hardware(None, row, '')
    peak = hw.get('dram_perf_ratio')*hw.get('sustained_clock_mhz')*1e6
    c0,c1,c2 = hw.get('dram_bw_c0'),hw.get('dram_bw_c1'),hw.get('dram_bw_c2')
    def curve(a):
        if c0<0: a=min(a,-c1/(2*c0))
        return min(1,c0*a*a+c1*a+c2)
    buckets = collections.defaultdict(list)
    for size, s in s_.sizes.items():
        if s['M'] > 16 or s['batch'] != 1: continue
        byts = (s['M']*s['K'] + s['K']*s['N'] + s['M']*s['N'])*2
        if s['K']*s['N']*2 < 32e6: continue
        for k,(t,cfg,res) in s['kernels'].items():
            split = k[6] if len(k)>6 else 1
            fam = k[0]
            tiles = -(-s['M']//k[1]) * -(-s['N']//k[2]) * split
            if fam.startswith('wgmma'):
                act = min(tiles, 132); key=('wgmma', 'split' if split>1 else 'whole')
            else:
                continue
            b = min(act//12, 11)
            buckets[key+(b*12,)].append(byts/t/peak / curve(act))
    print(item, f"peak {peak/1e12:.2f} TB/s")
    for key in sorted(buckets):
        v = sorted(buckets[key]); n=len(v)
        print(f"  {key}  n={n:4d}  p50 {v[n//2]:.3f}  p90 {v[int(n*0.9)]:.3f}  max {v[-1]:.3f}")
