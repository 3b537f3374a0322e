#!/usr/bin/env python3
"""One-off probe (fourteenth session, issue 14): what the drop-in switch costs a torch call it does not route. Four
small CPU ops in a loop, plain, under an empty TorchFunctionMode (the mode machinery alone) and under
origami_nv.enabled() (CUDA routing; these CPU tensors are not routed), per call. No GPU needed: the mode's cost is
host time. Output: probe_mode_overhead.txt beside this file.
    python benchmarks/results/probes/probe_mode_overhead.py
"""
import time

import torch
import torch.nn.functional as F
from torch.overrides import TorchFunctionMode

import origami_nv

x, y = torch.randn(4, 8), torch.randn(4, 8)


def per_call_us(n=20000):
    t0 = time.perf_counter()
    for _ in range(n):
        z = torch.add(x, y)
        z = z * y
        z = F.silu(z)
        z = z.transpose(0, 1)
    return (time.perf_counter() - t0) / n / 4 * 1e6


class Empty(TorchFunctionMode):
    def __torch_function__(self, func, types, args=(), kwargs=None):
        return func(*args, **(kwargs or {}))


for rep in range(3):
    base = per_call_us()
    with Empty():
        empty = per_call_us()
    with origami_nv.enabled():
        switch = per_call_us()
    print(f"rep {rep}: per call plain {base:.2f} us, empty TorchFunctionMode {empty:.2f} us, "
          f"origami_nv.enabled() {switch:.2f} us")
