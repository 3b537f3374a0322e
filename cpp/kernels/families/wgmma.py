"""The wgmma kernel family (sm_90a): which specialisations exist, what each costs in shared
memory and threads, and the translation unit that instantiates each one.

The kernel template is cpp/kernels/wgmma/gemm_wgmma.cuh. One specialisation is
(BLOCK_M, BLOCK_N, stages, consumer warpgroups, dtype, A layout, B layout); BLOCK_K is always 64
(one 128-byte swizzle row of a 16-bit type). GROUP_SIZE_M is a launch argument.

Stage rule: as many stages as fit next to the C staging buffer in the 227 KiB per-block opt-in,
capped at MAX_STAGES:
    stages = min(MAX_STAGES, (SMEM_OPTIN - ALIGN_SLACK - C_bytes - barrier reserve) // stage_bytes)
    stage_bytes = (BLOCK_M + BLOCK_N) * 64 * 2,  C_bytes = BLOCK_M * (BLOCK_N + 8) * 2
The C++ header computes the same footprint (Plan::kSmemBytes) and static_asserts that it fits.

Usable standalone (no generator needed):
    python3 cpp/kernels/families/wgmma.py --list
    python3 cpp/kernels/families/wgmma.py --emit-dev OUTDIR [--filter REGEX]
"""
from __future__ import annotations

import argparse
import os
import re
import sys
from dataclasses import dataclass

FAMILY = "wgmma"
MIN_CC = 90
# wgmma and setmaxnreg exist only on the arch-specific target (see /work/.library/device/HOPPER.md).
NVCC_ARCH_FLAGS = ["-gencode=arch=compute_90a,code=sm_90a"]
HEADER = "wgmma/gemm_wgmma.cuh"  # relative to cpp/kernels

BLOCK_K = 64
SMEM_OPTIN_BYTES = 232448  # H100/H200 cudaDevAttrMaxSharedMemoryPerBlockOptin (ANCHORS.md section 1)
ALIGN_SLACK_BYTES = 1024   # the ring is re-aligned to 1024 B inside the kernel
MAX_STAGES = 8             # beyond this the ring only hides latency that is already hidden
ALIGNMENT_ELEMS = 8        # TMA: 16-byte global strides for 16-bit types
ACCUM_LIMIT = 192          # fp32 accumulators per consumer thread that fit under setmaxnreg 232

DTYPES = {"fp16": ("Float16", "Half"), "bf16": ("BFloat16", "BFloat16")}

# (BLOCK_M, BLOCK_N, consumer warpgroups). Why each is here:
#  128x256 (2 consumers, m64n256 each): the cuBLAS-class tile for large problems (fast.cu kernel 12).
#  128x192: 4096/192 is not whole, but 8192x8192 gives 64x43 = 2752 tiles = 20.8 waves on 132 SMs
#           instead of 15.5 for 128x256: a wave-quantisation alternative for large N.
#  256x128 (2 consumers, 2 x m64n128 each): same math per tile as 128x256, other aspect ratio.
#  128x128: twice the tiles of 128x256 for mid-size problems (2048^2, 4096x4096 with few waves).
#  64x256 (1 consumer): M <= 64 problems (decode-like), N-wide tiles.
#  128x64 (2 consumers): narrow N (N <= 64 or tall-skinny problems).
TILES = [
    (128, 256, 2),
    (128, 192, 2),
    (256, 128, 2),
    (128, 128, 2),
    (64, 256, 1),
    (128, 64, 2),
]
LAYOUTS = [(True, True), (True, False), (False, True), (False, False)]  # (A K-major, B K-major)


@dataclass(frozen=True)
class Spec:
    block_m: int
    block_n: int
    consumers: int
    dtype: str          # "fp16" | "bf16"
    a_k_major: bool
    b_k_major: bool

    block_k: int = BLOCK_K

    @property
    def stage_bytes(self) -> int:
        return (self.block_m + self.block_n) * BLOCK_K * 2

    @property
    def c_bytes(self) -> int:
        return self.block_m * (self.block_n + 8) * 2

    @property
    def stages(self) -> int:
        free = SMEM_OPTIN_BYTES - ALIGN_SLACK_BYTES - self.c_bytes - 2 * 8 * MAX_STAGES
        return min(MAX_STAGES, free // self.stage_bytes)

    @property
    def smem_bytes(self) -> int:
        return ALIGN_SLACK_BYTES + self.stages * self.stage_bytes + self.c_bytes + 2 * 8 * self.stages

    @property
    def threads(self) -> int:
        return 128 * (self.consumers + 1)

    @property
    def warps(self) -> int:
        return self.threads // 32

    @property
    def accumulators_per_thread(self) -> int:
        return (self.block_m // self.consumers // 64) * self.block_n // 2

    @property
    def layout_tag(self) -> str:
        return ("k" if self.a_k_major else "m") + ("k" if self.b_k_major else "n")

    @property
    def name(self) -> str:
        # e.g. wgmma_128x256x64_s3_w12_bf16_kk  (A K-major, B K-major = the nn.Linear layout)
        return (f"wgmma_{self.block_m}x{self.block_n}x{self.block_k}_s{self.stages}_w{self.warps}"
                f"_{self.dtype}_{self.layout_tag}")

    def template_args(self) -> str:
        elem = DTYPES[self.dtype][1]
        return (f"{self.block_m}, {self.block_n}, {self.stages}, {self.consumers}, "
                f"origami::wgmma::ElemType::{elem}, {str(self.a_k_major).lower()}, "
                f"{str(self.b_k_major).lower()}")

    def problems(self) -> list[str]:
        """Reasons this specialisation cannot exist (empty = valid)."""
        out = []
        if self.block_m % 64 or (self.block_m // self.consumers) % 64 or self.block_m // self.consumers < 64:
            out.append("each consumer warpgroup must own whole m64 slabs")
        if self.block_n % 16 or not 16 <= self.block_n <= 256:
            out.append("wgmma N must be a multiple of 16 in [16, 256] (as generated)")
        if not self.b_k_major and self.block_n % 64:
            out.append("an N-major B is loaded in 64-column TMA boxes: BLOCK_N % 64 == 0")
        if self.block_m > 256 or (self.b_k_major and self.block_n > 256):
            out.append("TMA box dimensions are at most 256")
        if self.stages < 2:
            out.append("fewer than 2 stages fit")
        if self.smem_bytes > SMEM_OPTIN_BYTES:
            out.append(f"shared memory {self.smem_bytes} B exceeds {SMEM_OPTIN_BYTES} B")
        if self.accumulators_per_thread > ACCUM_LIMIT:
            out.append("too many accumulators per consumer thread")
        if self.consumers not in (1, 2):
            out.append("one or two consumer warpgroups")
        return out


def specialisations() -> list[Spec]:
    specs = []
    for bm, bn, consumers in TILES:
        for dtype in DTYPES:
            for a_k, b_k in LAYOUTS:
                s = Spec(bm, bn, consumers, dtype, a_k, b_k)
                if not s.problems():
                    specs.append(s)
    return specs


def render_tu(spec: Spec, include_prefix: str = "") -> str:
    """One translation unit: the explicit instantiation and a function returning its KernelEntry."""
    dtype_enum = DTYPES[spec.dtype][0]
    return f"""// Generated by cpp/kernels/families/wgmma.py: do not edit.
#include "{include_prefix}{HEADER}"

namespace origami {{
namespace wgmma_gen {{
using L = origami::wgmma::Launcher<{spec.template_args()}>;
static_assert(L::P::kSmemBytes == {spec.smem_bytes}, "generator and header disagree on shared memory");
static_assert(L::P::kThreads == {spec.threads}, "generator and header disagree on threads");

const KernelEntry& entry_{spec.name}() {{
  static const KernelEntry e = [] {{
    KernelEntry k{{}};
    k.config.block_m = {spec.block_m};
    k.config.block_n = {spec.block_n};
    k.config.block_k = {spec.block_k};
    k.config.stages = {spec.stages};
    k.config.warps = {spec.warps};
    k.config.family = Family::Wgmma;
    k.dtype = DType::{dtype_enum};
    k.a_k_contiguous = {str(spec.a_k_major).lower()};
    k.b_k_contiguous = {str(spec.b_k_major).lower()};
    k.kernel = reinterpret_cast<const void*>(L::kernel);
    k.threads = {spec.threads};
    k.smem_bytes = {spec.smem_bytes};
    k.alignment_elems = {ALIGNMENT_ELEMS};
    k.min_cc = {MIN_CC};
    k.launch = &L::launch;
    k.name = "{spec.name}";
    return k;
  }}();
  return e;
}}
}}  // namespace wgmma_gen
}}  // namespace origami
"""


def render_list(specs: list[Spec]) -> str:
    decls = "\n".join(f"const KernelEntry& entry_{s.name}();" for s in specs)
    calls = "\n".join(f"    &entry_{s.name}," for s in specs)
    return f"""// Generated by cpp/kernels/families/wgmma.py: do not edit.
#pragma once
#include "gemm_args.hpp"
namespace origami {{
namespace wgmma_gen {{
{decls}
using EntryFn = const KernelEntry& (*)();
inline const EntryFn kEntries[] = {{
{calls}
}};
}}  // namespace wgmma_gen
}}  // namespace origami
"""


def _main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--list", action="store_true", help="print every specialisation and its resources")
    ap.add_argument("--emit-dev", metavar="DIR", help="write one .cu per specialisation plus wgmma_list.hpp")
    ap.add_argument("--filter", default="", help="regular expression on specialisation names")
    ns = ap.parse_args(argv)
    specs = [s for s in specialisations() if re.search(ns.filter, s.name)]
    if ns.list:
        for s in specs:
            print(f"{s.name:44s} threads={s.threads:3d} smem={s.smem_bytes:6d} stages={s.stages} "
                  f"acc/thread={s.accumulators_per_thread}")
        print(f"{len(specs)} specialisations")
    if ns.emit_dev:
        os.makedirs(ns.emit_dev, exist_ok=True)
        kernels_dir = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
        for s in specs:
            with open(os.path.join(ns.emit_dev, s.name + ".cu"), "w") as f:
                f.write(render_tu(s, include_prefix=kernels_dir + "/"))
        with open(os.path.join(ns.emit_dev, "wgmma_list.hpp"), "w") as f:
            f.write(render_list(specs).replace('"gemm_args.hpp"', f'"{kernels_dir}/gemm_args.hpp"'))
    return 0


if __name__ == "__main__":
    sys.exit(_main(sys.argv[1:]))
