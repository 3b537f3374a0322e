"""Which TF32 conversion does a float32 GEMM with TF32 allowed apply to its inputs: truncation to 10 mantissa bits
(the tensor cores reading the upper 19 bits of each fp32 word) or round-to-nearest? Compares cuBLAS's TF32 path and
origami_nv's wgmma tf32 kernels with exact (fp64) products of the inputs truncated / rounded to TF32: the matching
reference is ~1e-6 away (fp32 accumulation), the other ~4e-4 (issue 15, session 11).

    python benchmarks/results/probes/probe_tf32_rounding.py
"""
import torch

import origami_nv


def to_tf32(x, rounding):
    bits = x.view(torch.int32)
    if rounding:  # round to nearest even at bit 13
        bits = bits + 0x0FFF + ((bits >> 13) & 1)
    return (bits & ~0x1FFF).view(torch.float32)


def rel(x, ref):
    return ((x.double() - ref).norm() / ref.norm()).item()


def main():
    torch.backends.cuda.matmul.allow_tf32 = True
    g = torch.Generator(device="cuda").manual_seed(1)
    a = torch.randn(1024, 4096, device="cuda", generator=g)
    b = torch.randn(1000, 4096, device="cuda", generator=g).t()
    exact = a.double() @ b.double()
    trunc = to_tf32(a, False).double() @ to_tf32(b, False).double()
    rnd = to_tf32(a, True).double() @ to_tf32(b, True).double()
    print(f"references: truncated vs exact {rel(trunc, exact):.3e}, rounded vs exact {rel(rnd, exact):.3e}")
    for name, out in (("cuBLAS TF32", torch.matmul(a, b)), ("origami_nv", origami_nv.matmul(a, b))):
        print(f"{name:12s} vs exact {rel(out, exact):.3e}  vs truncated {rel(out, trunc):.3e}  "
              f"vs rounded {rel(out, rnd):.3e}")


if __name__ == "__main__":
    main()
