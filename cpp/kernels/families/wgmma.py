"""The wgmma kernel family (sm_90a): which specialisations exist, what each costs in shared
memory and threads, and the translation unit that instantiates each one.

The kernel template is cpp/kernels/wgmma/gemm_wgmma.cuh. One specialisation is
(BLOCK_M, BLOCK_N, stages, consumer warpgroups, dtype, A layout, B layout); BLOCK_K is one 128-byte swizzle
row: 64 elements of a 16-bit type, 32 of fp32 (the tf32 kernels: fp32 storage, TF32 tensor-core math, K-major
A and B only, as wgmma takes TF32 operands). GROUP_SIZE_M is a launch argument.

Epilogue rule: the C tile leaves through shared memory in column slices of EPI_N, the widest of
256/128/64/32/16 that divides BLOCK_N and keeps the staging buffer (BLOCK_M x EPI_N x element bytes) within
C_STAGING_BYTES = 32 KiB, so the operand ring gets the rest (slices narrower than 128 bytes leave through the
threads' stores, not TMA: gemm_wgmma.cuh Plan::kTmaStore).
Stage rule: as many stages as fit next to the C staging buffer in the 227 KiB per-block opt-in,
capped at MAX_STAGES:
    stages = min(MAX_STAGES, (SMEM_OPTIN - ALIGN_SLACK - C_bytes - barrier reserve) // stage_bytes)
    stage_bytes = (BLOCK_M + BLOCK_N) * 128,  C_bytes = BLOCK_M * EPI_N * element bytes
The C++ header computes the same footprint (Plan::kSmemBytes) and static_asserts that it fits.

Interface for cpp/kernels/generate.py: FAMILY, MIN_CC, NVCC_FLAGS, specializations(space) ->
(specs, excluded) with one kernel per translation unit, tu_text(spec).
Usable standalone too (the dev harness cpp/kernels/wgmma/dev/bench_wgmma.cu):
    python3 cpp/kernels/families/wgmma.py --list
    python3 cpp/kernels/families/wgmma.py --emit-dev OUTDIR [--filter REGEX] [--variants]
--variants adds the study kernels of cpp/kernels/wgmma/NOTES.md (full-tile C staging "_eN", 2-CTA
clusters "_c2" of the tiles MULTICAST_TILES leaves out, swapped tiles SWAP_AB_STUDY_TILES); they are never part of the
generated build.
"""
from __future__ import annotations

import argparse
import os
import re
import sys
from dataclasses import dataclass

FAMILY = "wgmma"
FAMILY_ENUM = "origami::Family::Wgmma"
MIN_CC = 90
# wgmma and setmaxnreg exist only on the arch-specific target (see /work/.library/device/HOPPER.md).
NVCC_FLAGS = ["-gencode=arch=compute_90a,code=sm_90a"]
HEADER = "wgmma/gemm_wgmma.cuh"  # relative to cpp/kernels (an include directory of the build)

SWIZZLE_ROW_BYTES = 128   # one stage row of A or B: BLOCK_K = 128 / element bytes
SMEM_OPTIN_BYTES = 232448  # H100/H200 cudaDevAttrMaxSharedMemoryPerBlockOptin (ANCHORS.md section 1)
ALIGN_SLACK_BYTES = 1024   # the ring is re-aligned to 1024 B inside the kernel
MAX_STAGES = 8             # beyond this the ring only hides latency that is already hidden
TMA_ALIGN_BYTES = 16       # TMA: 16-byte base and global strides
ACCUM_LIMIT = 192          # fp32 accumulators per consumer thread that fit under setmaxnreg 232
# 32 KiB of C staging lets 128x256 keep 4 stages of 48 KiB (a full 128x256 staging tile, 64 KiB,
# leaves room for 3; measured in cpp/kernels/wgmma/NOTES.md).
C_STAGING_BYTES = 32768

# short name -> (DType enumerator, ElemType enumerator, dtype name the registry uses, element bytes)
DTYPES = {"fp16": ("Float16", "Half", "float16", 2), "bf16": ("BFloat16", "BFloat16", "bfloat16", 2),
          "tf32": ("TFloat32", "TFloat32", "tfloat32", 4)}

# (BLOCK_M, BLOCK_N, consumer warpgroups). Why each is here:
#  128x256 (2 consumers, m64n256 each): the cuBLAS-class tile for large problems (fast.cu kernel 12).
#  128x192: 4096/192 is not whole, but 8192x8192 gives 64x43 = 2752 tiles = 20.8 waves on 132 SMs
#           instead of 15.5 for 128x256: a wave-quantisation alternative for large N.
#  256x128 (2 consumers, 2 x m64n128 each): same math per tile as 128x256, other aspect ratio.
#  128x128: twice the tiles of 128x256 for mid-size problems (2048^2, 4096x4096 with few waves).
#  64x256 (1 consumer): M <= 64 problems (decode-like), N-wide tiles.
#  128x64 (2 consumers): narrow N (N <= 64 or tall-skinny problems).
#  64x128, 64x64 (1 consumer): mid-size M (64-512) against N, K in the thousands, where 128-row tiles give
#           too few CTAs for 132 SMs without a K-split (128x4096x4096: 64 tiles of 128x64, 128 of 64x64).
#           cuBLAS runs 64x32-144x64 tiles there (nvjet names, H100 2026-11-25,
#           benchmarks/results/probes/probe_mid_profile_h100.txt).
#  64x48, 64x80, 64x96, 64x112, 64x144, 64x160 (1 consumer, K-major B only: the nn.Linear weight): wave
#           quantisation for M = 64-512 projections. The tile count ceil(M/64) * ceil(N/BN) steps in finer
#           increments than with BN 64/128/192/256, so some BN fills 132 SMs closely: cuBLAS's nvjet picks at
#           those shapes are exactly such tiles (48x64, 80x64, 96x64, 144x64 in its N x M order: 128x3072x3072
#           runs 64 x 2 = 128 CTAs of 64x48; probe_mid_profile_h100.txt).
#  128x96, 128x112, 128x144 (2 consumers, K-major B only): the same wave quantisation for M = 256-512 with 128-row
#           tiles, cuBLAS's 96x128 / 112x128 / 144x128 nvjet tiles at those shapes (N x M order;
#           benchmarks/results/probes/probe_cublas_kernels_h*.txt). H100 dev-harness probe, fp16 x @ w.t(), 20 mid-M
#           projections (benchmarks/results/probes/probe_mid_tiles128.sh, _h100.txt): best kernel / cuBLAS geomean
#           0.950 -> 0.972 with them (256x9216x3072 0.893 -> 0.987 with 128x144, 512x3072x8192 0.828 -> 0.955 with
#           128x96, 512x3584x18944 0.941 -> 0.998 and 512x14336x4096 0.981 -> 1.043 with 128x112); 128x80 and
#           128x160 were never the best there (study variants, --variants).
#  192x192 (2 consumers splitting BLOCK_N: 3 x m64n96 each, Spec.split_n): cuBLAS's tile ("192x192 coopB" nvjet
#           kernels) at ViT-B/16 batch-32 projections (6304 x 768 = 33 x 4 = 132 tiles: one full wave where 128x192
#           needs 1.5), 6304x2304 (3 waves), 3000^3 (H100, benchmarks/results/probes/probe_cublas_kernels_weak_h100.txt);
#           the most reuse per loaded byte of the list (96 flop/B against 85 for 128x256). K-major B only (a
#           consumer's 96 columns are not whole 64-column boxes of an N-major B).
TILES = [
    (128, 256, 2),
    (128, 192, 2),
    (256, 128, 2),
    (128, 128, 2),
    (64, 256, 1),
    (128, 64, 2),
    (64, 128, 1),
    (64, 64, 1),
    (64, 48, 1),
    (64, 80, 1),
    (64, 96, 1),
    (64, 112, 1),
    (64, 144, 1),
    (64, 160, 1),
    (128, 96, 2),
    (128, 112, 2),
    (128, 144, 2),
    (192, 192, 2),
]
# Study tiles (--variants; not in the build):
#  128x320 (2 consumers splitting BLOCK_N: 2 x m64n160 each, B in two TMA boxes of 160 rows, 3 stages of 56 KiB; K-major
#           B): cuBLAS's "320x128 coopB" nvjet tile (N x M order) at 1024 x 5120 x 5120, 2048 x 5120 x 5120 and 8192^3
#           (probe_cublas_kernels_weak_h100.txt): 1024 x 5120 is 8 x 16 = 128 tiles, one wave. Timed at every size of
#           both GPUs' gen-train and gen-valid (benchmarks/results/tile320_not_adopted.md): the best launch 1.04-1.10x
#           faster at 3-4 sizes per set (1024 x 5120 x 5120 1.09-1.10x), 1.002x geomean; the model's picks with it
#           0.997x (H200 gen-valid; decode 1 x 36864 x 4608 0.89x) to 1.001x (H100): it ties 128x256 / 64x144 in the
#           model where it runs 2-11 % slower. Not adopted until the model tells it apart.
#  64x96 .. 64x256 with 2 consumers splitting BLOCK_N (Spec.split_n: 64 rows over 2 consumers are not whole slabs; each
#           consumer computes the 64 rows against BLOCK_N / 2 columns): the 64-row granularity of M with the two-consumer
#           k-block. A one-consumer k-block costs ~200 cycles plus ~2.1 per column (v8 in cpp/kernels/wgmma/NOTES.md), so
#           two consumers might hide one's fixed cost under the other's wgmmas. Measured (thirty-third session, H200,
#           benchmarks/results/probes/probe_split64.sh, probe_split64_h200.txt, 24 sizes M = 64..4096): slower than
#           the one-consumer tile of the same width (speed ratio, geomean (min-max): 64x96 0.90 (0.79-0.99), 64x128 0.90
#           (0.75-1.00), 64x160 0.95 (0.86-1.02), 64x256 0.99 (0.91-1.02)); the only gains (M = 320: 64x192 1.04-1.07x
#           the best built tile at 320x4544x4544 and 320x14336x5120) come from a width the list lacks. Not built.
#  64x192, 64x224 (1 consumer): the widths of the split study above for M ~ 320 (320 x 4544: 5 x 24 = 120 tiles of
#           64x192), as one-consumer tiles. H200 (benchmarks/results/probes/probe_wide64.sh, probe_wide64_h200.txt, 15
#           sizes M = 64..448): 64x192 as fast as its split twin, faster than every built tile at 2 sizes only
#           (320x4544x4544 1.07x, 320x14336x5120 1.06x; still 0.86-0.90 of cuBLAS), slower at the other 13; 64x224
#           never the best. A candidate for the list when the suites are next re-timed on both GPUs, not more.
#  128x64 .. 128x160 with one consumer warpgroup (two m64 slabs each k-step; forty-seventh session): cuBLAS's mid-M
#           nvjet tiles without "coop" in their names (96x128, 112x128, 80x128 in its N x M order,
#           probe_cublas_kernels_midm_h100.txt) at one tile per SM; the two-slab k-block spreads the one-consumer
#           k-block's fixed cost over twice the tensor work. Measured (H100, benchmarks/results/probes/device_session47.sh,
#           cpp/kernels/wgmma/NOTES.md session 47): 0.979x the speed of the two-consumer tile of the same shape, geomean
#           over 7 widths x 13 mid-M sizes (0.86-1.36; only 128x80 faster, 1.05x). Not built.
STUDY_TILES = [(128, 320, 2), (64, 96, 2), (64, 128, 2), (64, 160, 2), (64, 192, 2), (64, 224, 2), (64, 256, 2),
               (64, 192, 1), (64, 224, 1),
               (128, 64, 1), (128, 80, 1), (128, 96, 1), (128, 112, 1), (128, 128, 1), (128, 144, 1), (128, 160, 1)]
# The swapped-operand kernels (gemm_wgmma.cuh Kernel kSwapAB; TileConfig::swap_ab): (BLOCK_M, BLOCK_N, consumers) in
# the kernel's own terms, its M the problem's N and its N the problem's M, so the problem's tile is BLOCK_N x BLOCK_M
# (names and the registry say the problem's: origami_wgmma_160x256x64_..._kk_ab). The problem's A K-major (the
# kernel's B), its B either way; 16-bit; no cluster; split-K through the workspace since the forty-first session (not the
# in-cluster reduction; NOTES.md session 41). They fit M ~ 300 projections, where the 64-row slabs
# of the other tiles waste rows (cuBLAS's M-fitted nvjet tiles there: benchmarks/results/probes/
# probe_cublas_kernels_midm_h100.txt). Dev harness, H100, fp16 / bf16 x @ w.t(), against the best of 128x128 / 128x192 /
# 128x256 / 64x256 (benchmarks/results/probes/probe_swap_ab_h100.txt): 320x14336x5120 88.4 -> 78.0 us (160x256; cuBLAS
# 75.5), 320x7680x5120 48.7 -> 43.8 (160x128; cuBLAS 41.6), 300x3584x18944 95.5 -> 91.3 (112x128), 200x4096x3584 23.5
# -> 21.7 (112x128), 448x8192x4096 bf16 48.3 (112x256) against cuBLAS 55.7; no gain at 320x4544x4544, 352x4096x3584.
# Forty-second session: 80x64 (one consumer; the kernel's 64x80) and 96x128, the M-fitted heights cuBLAS runs at mid M
# (probe_cublas_kernels_swapsplit_h200.txt: nvjet 64x80 at 156x4160x7424) that beat the built tiles in the dev harness
# (H200, probe_swap_heights_h200.txt, unsplit: 80x64 156x4160x7424 27.8 us vs 36.5 (112x128 swapped; cuBLAS 28.5),
# 150x4096x4096 18.8 vs 23.8; 96x128 288x4096x4096 23.4 vs 25.6, 528x13952x5504 146.0 vs 150.9; per-launch events, so
# near cuBLAS at ~20 us they flatter the kernels). In the brute force of the H200 gen-* sets and llm (CUDA graphs, their
# splits too; cpp/kernels/wgmma/NOTES.md session 42): the fastest launch at 7 sizes, up to 1.11x the best before
# (336x1600x1792 80x64 0.88 -> 0.98 of cuBLAS, 156x4160x7424 0.76 -> 0.83), BF/cuBLAS +0.06-0.4 % per set.
SWAP_AB_TILES = [(128, 112, 2), (128, 160, 2), (256, 112, 2), (256, 160, 2), (64, 80, 1), (128, 96, 2)]
# Study only (--variants): 176 rows (for M ~ 352) were never the best of the swapped tiles there (176x256 0.90-0.94 of
# 160x256's speed at 320x14336x5120, 176x128 0.91-0.97 of 160x128's at 320x7680x5120; same probe).
SWAP_AB_STUDY_TILES = [(128, 176, 2), (256, 176, 2),
                       # M-fitted heights cuBLAS runs at mid M (forty-first session, probe_cublas_kernels_swapsplit_h200
                       # .txt: 80, 104, 136, 160, 176, 216 rows): probe_swap_heights.sh; 0-7 % over the built tiles
                       (128, 80, 2), (256, 96, 2), (128, 144, 2), (256, 144, 2), (128, 208, 2),
                       # M = 16..64 of the problem (thirtieth session, probe_swap_small_m_h200.txt): at M = 128 the
                       # repeated reads of B make them 1.1-3x slower than the 64-row tiles; where M fits one tile
                       # (M = 16..64) 0-5 % faster, far from cuBLAS's lead there, so not built
                       (64, 16, 1), (64, 32, 1), (64, 48, 1), (64, 64, 1), (128, 16, 2), (128, 32, 2), (128, 64, 2)]
# Study (--variants): the swapped tiles in 2-CTA clusters multicasting the problem's A ("_c2_ab"; the pair takes two
# column blocks of N). cuBLAS runs its M-fitted tiles at mid M in 2x1 .. 4x2 clusters (156x4160x7424: nvjet 64x80 2x1),
# and there the built 80x64 swapped tile runs 1.2x slower than cuBLAS (H200 gen-mid-train, bf16: 24.6 vs 20.5 us) with
# every CTA streaming ~11 TB/s of L2 reads in all: half the activations' bytes per CTA saves ~28 % of them. Measured
# (forty-second session, H200, dev harness, probe_swap_multicast.sh, probe_swap_multicast_h200.txt, check 50 runs, 0
# failures): slower than the one-CTA kernel at 15 mid-M sizes (M 96..1018; speed ratio geomean 0.944, 0.74-1.01; 80x64
# 0.85-0.96), never the best of our kernels there. Not built.
SWAP_AB_MULTICAST_STUDY_TILES = [(64, 80, 1), (128, 96, 2), (128, 112, 2), (128, 160, 2), (256, 112, 2)]
LAYOUTS = [(True, True), (True, False), (False, True), (False, False)]  # (A K-major, B K-major)
# wgmma reads a TF32 operand from shared memory K-major only (no transpose bits for .tf32 in the PTX ISA): the tf32
# kernels take the nn.Linear layout (x @ w.t()) with both operands in shared memory, and a @ b (B row-major) as the
# swapped product C^T = B^T A^T with B^T from registers (gemm_wgmma.cuh run_swap: "swap" below); the op copies an A
# that is not K-major into a compiled layout first.
TF32_LAYOUTS = [(True, True), (True, False)]
# Tiles that also get a 2-CTA cluster twin ("_c2", KernelEntry::multicast): the two CTAs of a cluster take tile rows
# 2u and 2u + 1 of one tile column and load half of the shared B tile each, TMA-multicast into both (gemm_wgmma.cuh,
# v3/v5 in cpp/kernels/wgmma/NOTES.md). Where the operands' rows are off 128-byte lines every box row costs two L2
# requests, and halving B's requests per SM wins back much of it: H200, dev harness, fp16 x @ w.t(), best 1-CTA tile ->
# best twin (of 128x192, 128x256, 256x128, 192x192 and their twins; benchmarks/results/probes/probe_multicast_h200.txt),
# of cuBLAS: 3000^3 0.843 -> 0.924, 1200x4000x3000 0.628 -> 0.824, 5000x1000x3000 0.584 -> 0.776, 1000x3000x5000 0.787
# -> 0.980, 6000x2000x3000 0.800 -> 0.878, 2000x5000x3000 0.690 -> 0.760, 7000x7000x1000 0.939 -> 1.010; the best twin
# was 128x192's at 5 of those 8 shapes and 128x256's at the other 3 (256x128's tied once; 192x192's never).
# At rows on lines they win nothing (3008^3, 8192^3 within 1-2 %, 4096^3 128x256 0.13 slower): the op launches a twin
# only where the model's pick plan predicts it faster by NvModelConstants::multicast_min_gain (cpp/model/model.cpp).
# No split-K (the launcher refuses it), no TF32, and the twins store C through the threads (no TMA-stored epilogue).
# Twenty-ninth session: the 64x128, 128x64 and 128x128 twins for small and mid sizes with rows off lines (cuBLAS runs
# 64x128 in 2x1 clusters at 1000^3, probe_cublas_kernels_h100.txt). H100, probe_small_odd.py (probe_small_odd_h100.txt),
# 1-CTA -> twin, fp16: 1000^3 nn 64x128 11.5 -> 9.8 us (cuBLAS 8.7), 600x1000x2000 nn 16.7 -> 13.7, 1000x1000x4000 nn
# 33.5 -> 24.8, 2000x1000x3000 nt 128x128 38.5 -> 30.5; at 1024^3 (rows on lines) 64x128 6.7 -> 8.1: the model weighs a
# twin only where B's rows are off lines (cpp/model/model.cpp, predict_into).
MULTICAST_TILES = [(128, 192), (128, 256), (64, 128), (128, 64), (128, 128)]
# Study tiles (--variants) in clusters sharing A (Spec.share_a).
SHARE_A_STUDY_TILES = [(128, 64, 2), (128, 128, 2), (64, 64, 1), (64, 128, 1), (64, 80, 1)]
# Tiles whose 16-bit one-CTA kernels also get a ping-pong schedule in the same translation unit (Spec.pingpong_twin):
# each consumer warpgroup takes whole tiles, alternating, so one's epilogue runs under the other's main loop; the
# launcher takes it where every CTA has two or more tiles (gemm_wgmma.cuh ping_pong_pays). One KernelEntry, one
# config; the entry names the schedule's kernel (KernelEntry::ping_pong_kernel), the kernel table says it compiled
# (`pingpong`), the model weighs it (KernelResources::ping_pong_layouts). H200, dev harness, 3 alternated rounds
# (benchmarks/results/probes/pingpong_h200/, cpp/kernels/wgmma/NOTES.md session 34): 128x128 ping-pong / cooperative
# 1.01-1.11x at 10 sizes of 2-40 tiles per CTA (geomean 1.05; 8192x8192x1024 1.11, 4096x4096x1024 1.10), 0.98-0.99x
# at one tile per CTA (where the launcher keeps the cooperative kernel).
PINGPONG_TILES = [(128, 128)]
# Study only (--variants): standalone ping-pong kernels. 64x256 and 128x96 were slower than the cooperative 128x256 at
# every large size measured (0.80-0.98x; bench_all.txt there); 128x192 (192 accumulators) spills 172 B.
PINGPONG_STUDY_TILES = [(64, 256), (128, 96)]  # (128x128: the product TU holds it)
# The swapped kernels hold a k-block of B^T fragments in registers (16 per m64 slab) beside the accumulators; tiles
# of at most 2 slabs of BLOCK_N per consumer warpgroup are generated (the TILES entries that qualify: 128x256, 256x128,
# 128x128, 64x128, 64x64; 128x256 uses 168 registers, no spill, ptxas nvcc 13.0).
SWAP_MAX_SLABS = 2


@dataclass(frozen=True)
class Spec:
    block_m: int
    block_n: int
    consumers: int
    dtype: str          # "fp16" | "bf16"
    a_k_major: bool
    b_k_major: bool
    epi_n_override: int = 0   # dev experiments only (--variants); 0 = the epilogue rule
    cluster: int = 1          # CTAs per cluster sharing (TMA-multicasting) the B tile: 1 or 2
    max_stages: int = 0       # dev experiments only (--variants): a deeper ring than MAX_STAGES; 0 = the rule
    swap_ab: bool = False     # study (--variants): C^T = B^T A^T, fields in the kernel's terms (SWAP_AB_TILES)
    share_a: bool = False     # study (--variants): the cluster's CTAs take tile columns and multicast A ("_n2", "_n4")
    pingpong: bool = False    # each consumer warpgroup owns whole tiles, alternating ("_pp"): pingpong_twin, or study

    @property
    def elem_bytes(self) -> int:
        return DTYPES[self.dtype][3]

    @property
    def block_k(self) -> int:
        return SWIZZLE_ROW_BYTES // self.elem_bytes

    @property
    def alignment_elems(self) -> int:
        return TMA_ALIGN_BYTES // self.elem_bytes

    @property
    def swap(self) -> bool:
        """TF32 with a row-major B: the swapped product (wgmma's M side is BLOCK_N, its N side BLOCK_M)."""
        return self.dtype == "tf32" and not self.b_k_major

    @property
    def split_n(self) -> bool:
        """The warpgroup split (gemm_wgmma.cuh Plan::kSplitN): each consumer warpgroup owns BLOCK_M / consumers rows
        where that is whole m64 slabs and BLOCK_N fits one wgmma (<= 256), else (192 rows over 2; 320 columns) every
        row and BLOCK_N / consumers columns."""
        return not self.swap and not self.pingpong and ((self.block_m // self.consumers) % 64 != 0
                                                         or self.block_n > 256)

    @property
    def rows_per_consumer(self) -> int:
        return self.block_m if self.split_n or self.pingpong else self.block_m // self.consumers

    @property
    def cols_per_consumer(self) -> int:
        return self.block_n // self.consumers if self.split_n else self.block_n

    @property
    def epi_n(self) -> int:
        if self.swap:
            return 8  # stored from registers: the plan's C staging is its minimum (BLOCK_N rows of 8 fp32)
        if self.epi_n_override:
            return self.epi_n_override
        cols, rows = self.cols_per_consumer, self.consumers * self.rows_per_consumer
        for w in (256, 128, 64, 32, 16):
            if w <= cols and cols % w == 0 and rows * w * self.elem_bytes <= C_STAGING_BYTES:
                return w
        return 64

    @property
    def stage_bytes(self) -> int:
        return (self.block_m + self.block_n) * SWIZZLE_ROW_BYTES

    @property
    def c_bytes(self) -> int:
        return (self.block_n if self.swap else self.consumers * self.rows_per_consumer) * self.epi_n * self.elem_bytes

    @property
    def stages(self) -> int:
        free = SMEM_OPTIN_BYTES - ALIGN_SLACK_BYTES - self.c_bytes - 2 * 8 * MAX_STAGES
        return min(self.max_stages or MAX_STAGES, free // self.stage_bytes)

    @property
    def smem_bytes(self) -> int:
        order_barriers = 16 if self.pingpong else 0  # Plan::kBarrierBytes
        return ALIGN_SLACK_BYTES + self.stages * self.stage_bytes + self.c_bytes + 2 * 8 * self.stages + order_barriers

    @property
    def threads(self) -> int:
        return 128 * (self.consumers + 1)

    @property
    def warps(self) -> int:
        return self.threads // 32

    @property
    def slabs(self) -> int:
        """m64 slabs per consumer warpgroup: of BLOCK_M, or of BLOCK_N in the swapped kernels."""
        return (self.block_n // self.consumers if self.swap else self.rows_per_consumer) // 64

    @property
    def accumulators_per_thread(self) -> int:
        return self.slabs * (self.block_m if self.swap else self.cols_per_consumer) // 2

    @property
    def problem_tile(self) -> tuple[int, int]:
        """(BLOCK_M, BLOCK_N) of the problem: the kernel's own, or swapped (swap_ab)."""
        return (self.block_n, self.block_m) if self.swap_ab else (self.block_m, self.block_n)

    @property
    def problem_k_major(self) -> tuple[bool, bool]:
        """(A K-major, B K-major) of the problem: the kernel's own, or its B and A (swap_ab)."""
        return (self.b_k_major, self.a_k_major) if self.swap_ab else (self.a_k_major, self.b_k_major)

    @property
    def layout_tag(self) -> str:
        a_k, b_k = self.problem_k_major
        return ("k" if a_k else "m") + ("k" if b_k else "n")

    @property
    def name(self) -> str:
        # e.g. origami_wgmma_128x256x64_s3_w12_bf16_kk  (A K-major, B K-major = the nn.Linear layout); the swapped
        # kernels by the problem's tile, "_ab" (origami_wgmma_160x256x64_s4_w12_fp16_kk_ab: 160 rows of M)
        bm, bn = self.problem_tile
        return (f"origami_wgmma_{bm}x{bn}x{self.block_k}_s{self.stages}_w{self.warps}"
                f"_{self.dtype}_{self.layout_tag}" + (f"_e{self.epi_n}" if self.epi_n_override else "")
                + (f"_{'n' if self.share_a else 'c'}{self.cluster}" if self.cluster > 1 else "")
                + ("_ab" if self.swap_ab else "") + ("_pp" if self.pingpong else ""))

    def template_args(self) -> str:
        elem = DTYPES[self.dtype][1]
        return (f"{self.block_m}, {self.block_n}, {self.stages}, {self.consumers}, {self.epi_n}, "
                f"origami::wgmma::ElemType::{elem}, {str(self.a_k_major).lower()}, "
                f"{str(self.b_k_major).lower()}"
                + (f", {self.cluster}" if self.cluster > 1 or self.swap_ab or self.share_a or self.pingpong else "")
                + (", true" if self.swap_ab else ", false, true" if self.share_a else
                   ", false, false, true" if self.pingpong else ""))

    def pingpong_twin(self) -> "Spec | None":
        """The ping-pong schedule compiled beside this kernel (PINGPONG_TILES), or None."""
        if ((self.block_m, self.block_n) not in PINGPONG_TILES or self.dtype == "tf32" or self.cluster != 1
                or self.swap_ab or self.share_a or self.pingpong or self.epi_n_override or self.max_stages):
            return None
        twin = Spec(self.block_m, self.block_n, self.consumers, self.dtype, self.a_k_major, self.b_k_major,
                    pingpong=True)
        return None if twin.problems() else twin

    def problems(self) -> list[str]:
        """Reasons this specialisation cannot exist (empty = valid)."""
        out = []
        if self.swap:
            wg_m, wg_n = self.block_n, self.block_m
            if wg_m % 64 or (wg_m // self.consumers) % 64 or wg_m // self.consumers < 64:
                out.append("each consumer warpgroup must own whole m64 slabs of BLOCK_N")
        else:
            wg_n = self.cols_per_consumer
            if self.block_m % 64 or (self.split_n and self.block_n % self.consumers):
                out.append("each consumer warpgroup must own whole m64 slabs (and, split along N, equal column shares)")
            if self.split_n and not self.b_k_major and self.cols_per_consumer % 64:
                out.append("split along N with an N-major B: each consumer's columns must be whole 64-column boxes")
        if wg_n % 16 or not 16 <= wg_n <= 256:
            out.append("wgmma N must be a multiple of 16 in [16, 256] (as generated)")
        if self.swap and (not self.a_k_major or self.cluster != 1):
            out.append("the swapped TF32 kernels read a K-major A, one CTA per cluster")
        if self.swap and self.slabs > SWAP_MAX_SLABS:
            out.append("the swapped TF32 kernels are generated with at most 2 slabs of BLOCK_N per warpgroup")
        if self.block_n % 64 and not self.b_k_major and not self.swap:
            # An N-major B is loaded in 64-column TMA boxes (one 128-byte swizzle row each); a K-major B is one
            # box of BLOCK_N rows of 64 K-elements, any multiple of 8 rows (the swizzle atom).
            out.append("BLOCK_N must be a multiple of 64 with an N-major B (64-column TMA boxes)")
        if self.block_m > 256 or (self.b_k_major and self.block_n > 512):
            # (a K-major B wider than 256 rows loads as two boxes of BLOCK_N / 2: Plan::kBBoxRows)
            out.append("TMA box dimensions are at most 256")
        if self.block_n > 256 and (self.cluster != 1 or not self.b_k_major or self.block_n % 16):
            out.append("a tile wider than 256 columns: K-major B (two boxes of whole 8-row groups), one CTA per cluster")
        if self.stages < 2:
            out.append("fewer than 2 stages fit")
        if self.smem_bytes > SMEM_OPTIN_BYTES:
            out.append(f"shared memory {self.smem_bytes} B exceeds {SMEM_OPTIN_BYTES} B")
        if self.accumulators_per_thread > ACCUM_LIMIT:
            out.append("too many accumulators per consumer thread")
        chunks = self.epi_n * self.elem_bytes // 16  # 16-byte chunks per staged row (gemm_wgmma.cuh c_chunk_offset)
        if (self.block_n if self.swap else self.cols_per_consumer) % self.epi_n or (chunks % 8 and chunks not in (2, 4)):
            out.append("epilogue slice must divide a consumer's columns and be 2, 4 or a multiple of 8 chunks of "
                       "16 bytes")
        if self.dtype == "tf32" and (self.a_k_major, self.b_k_major) not in TF32_LAYOUTS:
            out.append("wgmma takes TF32 operands K-major only")
        if self.share_a:
            if (self.cluster not in (2, 4) or not self.a_k_major or self.block_m % (8 * self.cluster)
                    or self.dtype == "tf32" or self.swap_ab):
                out.append("clusters sharing A: 2 or 4 CTAs, 16-bit, a K-major A in whole 8-row groups per CTA")
        elif self.cluster not in (1, 2) or self.block_n % (8 * self.cluster):
            out.append("clusters of 1 or 2 CTAs, each multicasting whole 8-row groups of B")
        if self.pingpong and (self.consumers != 2 or self.cluster != 1 or self.swap_ab or self.dtype == "tf32"):
            out.append("ping-pong: two consumer warpgroups, one CTA per cluster, 16-bit")
        if self.consumers not in (1, 2):
            out.append("one or two consumer warpgroups")
        if self.swap_ab and (self.dtype == "tf32" or self.share_a or self.split_n):
            out.append("the swapped-operand kernels: 16-bit, B-sharing clusters only, whole m64 slabs per consumer")
        return out


def swapped_specs(tiles, cluster: int = 1) -> list[Spec]:
    """The swapped-operand kernels of `tiles` (kernel terms): 16-bit, the kernel's A the problem's B (K-major for
    x @ w.t(), N-major for a @ b), its B the problem's A (K-major); cluster 2: the pair multicasts the problem's A."""
    out = []
    for bm, bn, cons in tiles:
        for dtype in ("fp16", "bf16"):
            for a_k in (True, False):
                v = Spec(bm, bn, cons, dtype, a_k, True, cluster=cluster, swap_ab=True)
                if not v.problems():
                    out.append(v)
    return out


def all_specs() -> list[Spec]:
    specs = []
    for bm, bn, consumers in TILES:
        for dtype in DTYPES:
            for a_k, b_k in (TF32_LAYOUTS if dtype == "tf32" else LAYOUTS):
                s = Spec(bm, bn, consumers, dtype, a_k, b_k)
                if not s.problems():
                    specs.append(s)
                    twin = Spec(bm, bn, consumers, dtype, a_k, b_k, cluster=2)
                    if (bm, bn) in MULTICAST_TILES and dtype != "tf32" and not twin.problems():
                        specs.append(twin)
    return specs + swapped_specs(SWAP_AB_TILES)


def kernel_dict(s: Spec) -> dict:
    """The KernelEntry facts of one specialisation, in generate.py's vocabulary."""
    dt_enum, _, dt_name, _ = DTYPES[s.dtype]
    (bm, bn), (a_k, b_k) = s.problem_tile, s.problem_k_major
    return dict(
        name=s.name, family=FAMILY, family_enum=FAMILY_ENUM,
        block_m=bm, block_n=bn, block_k=s.block_k, stages=s.stages, warps=s.warps,
        consumers=s.consumers, dtype=dt_name, dtype_enum=f"origami::DType::{dt_enum}",
        a_k_contiguous=a_k, b_k_contiguous=b_k, threads=s.threads,
        smem_bytes=s.smem_bytes, alignment_elems=s.alignment_elems, min_cc=MIN_CC,
        launcher=f"launch_{s.name}", template_args=s.template_args(), cluster=s.cluster, multicast=s.cluster > 1,
        swap_ab=s.swap_ab, **_pingpong_fields(s))


def _pingpong_fields(s: Spec) -> dict:
    """The ping-pong kernel compiled beside s (tu_text), only where there is one: the other kernels' records (and the
    generated sources) stay as they were."""
    twin = s.pingpong_twin()
    if twin is None:
        return {}
    return dict(pingpong=dict(name=twin.name, template_args=twin.template_args(), smem_bytes=twin.smem_bytes,
                              threads=twin.threads))


def specializations(space: dict | None = None):
    """(specs, excluded) for generate.py: one translation unit per kernel (about 2.3 s each with
    nvcc 13.0 on this 2-core machine), so a parallel build spreads them over every core.
    excluded lists the tiles of the config space this family does not compile, with the reason."""
    specs = [dict(name=s.name, family=FAMILY, nvcc_flags=list(NVCC_FLAGS), kernels=[kernel_dict(s)])
             for s in all_specs()]
    excluded = []
    if space:
        compiled = {(bm, bn) for bm, bn, _ in TILES}
        for bm in space.get("BLOCK_M", []):
            for bn in space.get("BLOCK_N", []):
                for bk in space.get("BLOCK_K", []):
                    if bk not in (SWIZZLE_ROW_BYTES // 2, SWIZZLE_ROW_BYTES // 4):
                        why = "BLOCK_K is one 128-byte swizzle row per stage: 64 of a 16-bit type, 32 of fp32 (tf32)"
                    elif bm < 64:
                        why = "BLOCK_M below 64: wgmma is m64 per warpgroup"
                    elif (bm, bn) in compiled:
                        continue
                    elif bm * bn // 128 // (2 if bm >= 128 else 1) > ACCUM_LIMIT:
                        why = "accumulators exceed the consumer register budget"
                    else:
                        why = "not in the wgmma tile list (families/wgmma.py TILES)"
                    excluded.append(((bm, bn, bk), why))
    return specs, excluded


def tu_text(spec: dict) -> str:
    """The CUDA source of one TU: the extern "C" kernel wrapping Kernel<...>::run and its launcher."""
    out = [f'#include "{HEADER}"', ""]
    for k in spec["kernels"]:
        pp = k.get("pingpong")
        for kk in ([k, pp] if pp else [k]):
            alias = f"K_{kk['name']}"
            out += [
                f"using {alias} = origami::wgmma::Kernel<{kk['template_args']}>;",
                f"using L_{kk['name']} = origami::wgmma::Launcher<{kk['template_args']}>;",
                f"static_assert({alias}::P::kSmemBytes == {kk['smem_bytes']}, "
                f"\"generator and kernel disagree on shared memory\");",
                f"static_assert({alias}::P::kThreads == {kk['threads']}, \"generator and kernel disagree on threads\");",
                f"extern \"C\" __global__ void __launch_bounds__({kk['threads']}, 1) {kk['name']}(",
                "    const __grid_constant__ CUtensorMap a, const __grid_constant__ CUtensorMap b,",
                "    const __grid_constant__ CUtensorMap c, const origami::wgmma::KernelParams p) {",
                f"  {alias}::run(a, b, c, p);",
                "}",
            ]
        out.append(f"static cudaError_t {k['launcher']}(const origami::GemmArgs& g) {{")
        if pp:
            out.append(f"  if (origami::wgmma::ping_pong_pays(g, {k['block_m']}, {k['block_n']})) "
                       f"return L_{pp['name']}::launch(&{pp['name']}, g);")
        out += [f"  return L_{k['name']}::launch(&{k['name']}, g);", "}", ""]
    return "\n".join(out)


def _dev_registration(k: dict) -> str:
    """What generate.py appends to a TU, reduced to a function returning the entry (dev harness only)."""
    return f"""
namespace origami {{ namespace wgmma_gen {{
const KernelEntry& entry_{k['name']}() {{
  static const KernelEntry e = [] {{
    KernelEntry x{{}};
    x.config.block_m = {k['block_m']}; x.config.block_n = {k['block_n']}; x.config.block_k = {k['block_k']};
    x.config.stages = {k['stages']}; x.config.warps = {k['warps']}; x.config.family = {k['family_enum']};
    x.config.swap_ab = {str(k['swap_ab']).lower()};
    x.dtype = {k['dtype_enum']};
    x.a_k_contiguous = {str(k['a_k_contiguous']).lower()}; x.b_k_contiguous = {str(k['b_k_contiguous']).lower()};
    x.kernel = reinterpret_cast<const void*>(&{k['name']});
    x.threads = {k['threads']}; x.smem_bytes = {k['smem_bytes']};
    x.alignment_elems = {k['alignment_elems']}; x.min_cc = {k['min_cc']};
    x.launch = &{k['launcher']};
    x.name = "{k['name']}";
    return x;
  }}();
  return e;
}}
}} }}
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
    ap.add_argument("--variants", action="store_true",
                    help="also emit full-tile C staging (EPI_N = BLOCK_N) variants, for measurements")
    ns = ap.parse_args(argv)
    pool = all_specs()
    if ns.variants:
        for dtype in ("fp16", "bf16"):
            # 128-row tiles of widths that were never the best at mid M (TILES: 128x96/112/144), kept for study:
            # benchmarks/results/probes/probe_mid_tiles128.sh times them beside the generated ones.
            for bn in (80, 160):
                for a_k in (True, False):
                    v = Spec(128, bn, 2, dtype, a_k, True)
                    if not v.problems():
                        pool.append(v)
        for bm, bn, cons in STUDY_TILES:
            for dtype in ("fp16", "bf16"):
                for a_k, b_k in LAYOUTS:
                    v = Spec(bm, bn, cons, dtype, a_k, b_k)
                    if not v.problems():
                        pool.append(v)
        pool += swapped_specs(SWAP_AB_STUDY_TILES)
        pool += swapped_specs(SWAP_AB_MULTICAST_STUDY_TILES, cluster=2)
        # Clusters sharing A along N (2 or 4 CTAs on consecutive tile columns), for M <= 256 against large N and K,
        # where every CTA of a tile row reads the same A tile from L2 (cpp/kernels/wgmma/NOTES.md, session 34).
        for bm, bn, cons in SHARE_A_STUDY_TILES:
            for dtype in ("fp16", "bf16"):
                for b_k in (True, False):
                    for c in (2, 4):
                        v = Spec(bm, bn, cons, dtype, True, b_k, cluster=c, share_a=True)
                        if not v.problems():
                            pool.append(v)
        for dtype in ("fp16", "bf16"):  # 64x32 (K-major B only): twice the CTAs of 64x64 at small M
            for a_k in (True, False):
                v = Spec(64, 32, 1, dtype, a_k, True)
                if not v.problems():
                    pool.append(v)
        # Ping-pong consumers (each warpgroup a whole tile, alternating) for the large sizes (NOTES.md, session 34).
        for bm, bn in PINGPONG_STUDY_TILES:
            for dtype in ("fp16", "bf16"):
                for a_k, b_k in LAYOUTS:
                    v = Spec(bm, bn, 2, dtype, a_k, b_k, pingpong=True)
                    if not v.problems():
                        pool.append(v)
        for s in list(pool):
            if s.swap_ab or s.share_a or s.pingpong:
                continue
            v = Spec(s.block_m, s.block_n, s.consumers, s.dtype, s.a_k_major, s.b_k_major, epi_n_override=s.block_n)
            if v.epi_n != s.epi_n and not v.problems():
                pool.append(v)
            if s.consumers == 1 and s.epi_n_override == 0 and s.max_stages == 0:
                # deeper rings for the one-consumer (64-row) tiles: bytes in flight at small M
                d = Spec(s.block_m, s.block_n, s.consumers, s.dtype, s.a_k_major, s.b_k_major, max_stages=16)
                if d.stages != s.stages and not d.problems():
                    pool.append(d)
            if s.cluster == 1 and s.epi_n_override == 0 and s.max_stages == 0:
                c = Spec(s.block_m, s.block_n, s.consumers, s.dtype, s.a_k_major, s.b_k_major, cluster=2)
                if not c.problems() and c not in pool:
                    pool.append(c)
    specs = [s for s in pool if re.search(ns.filter, s.name)]
    if ns.list:
        for s in specs:
            print(f"{s.name:44s} threads={s.threads:3d} smem={s.smem_bytes:6d} stages={s.stages} "
                  f"acc/thread={s.accumulators_per_thread}")
        print(f"{len(specs)} specialisations")
    if ns.emit_dev:
        os.makedirs(ns.emit_dev, exist_ok=True)
        # compile with -I cpp/kernels (as the real build does)
        for s in specs:
            k = kernel_dict(s)
            with open(os.path.join(ns.emit_dev, s.name + ".cu"), "w") as f:
                f.write(tu_text(dict(name=s.name, kernels=[k])) + _dev_registration(k))
        with open(os.path.join(ns.emit_dev, "wgmma_list.hpp"), "w") as f:
            f.write(render_list(specs))
    return 0


if __name__ == "__main__":
    sys.exit(_main(sys.argv[1:]))
