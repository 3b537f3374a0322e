"""The simt family (sm_80+): exact fp32 GEMM on the CUDA cores (FFMA, no TF32), one specialisation per tile.

Issue 15 ("float32 GEMMs: a CUDA-core family"). The kernel is cpp/kernels/simt/gemm_simt.cuh: register-blocked
thread tiles of 4x4 sub-blocks read with LDS.128 from K-major-outer shared memory (As[k][m], Bs[k][n]) filled
by a cp.async ring. The interface is that of families/mma_sync.py (see cpp/kernels/generate.py).

What is compiled (BLOCK_M, BLOCK_N, BLOCK_K from cpp/model/config_space.def), the stated rule:

* tiles: BLOCK_M, BLOCK_N in {16, 32, 64, 128} except 16x16, BLOCK_K = 16: 15 tiles. Excluded, with the reason in
  the generator's `excluded` list:
  - BLOCK_K = 32 (session 8): its k-tile runs as four 8-step unrolled groups (16-step groups spilled four KN tiles
    under the 128-register cap, 12-28 B), and the group loop's fragment hand-over made every measured BLOCK_K = 32
    kernel slower than the BLOCK_K = 16 kernel of the same tile and split: 28 of 28 paired launches on the H100,
    BLOCK_K = 16 taking 0.80x the time (geomean; 0.70-0.95; 64x64, 128x64, 16x64 and 128x128 tiles at
    1x4096x4096 .. 8192^3, splits 1-16; the probe logs of benchmarks/results/probes/simt/, listed by
    `simt_select_offline.py --with-bk32-table`); the one-CTA 128x128x16 (below) against the two-CTA 128x128x32:
    47.7 vs 41.1 TFLOP/s at 4096^3. The model ranked the BLOCK_K = 32 kernels first (one k-tile overhead per 32
    k-steps instead of 16) and picked them at most sizes: over the probe's launches its pick reached 0.76 of the
    best measured launch (geomean of 8 sizes, min 0.60) with them and 0.95 (min 0.86) without
    (benchmarks/results/probes/simt/simt_select_offline.py, the selection re-run offline; the data that motivated
    the rule, not a held-out set).
  - BLOCK_K >= 64: a 128x128 k-tile of 16 is already ~1100 instructions (4000+ cycles of FFMA per CTA at two
    CTAs per SM) against a DRAM latency of ~1000 cycles: a longer k-tile saves nothing per k-tile that
    matters and costs shared memory (fewer CTAs per SM) and compile time.
  - BLOCK_M or BLOCK_N = 256: with at most 8 warps (the rule below) a 256x128 tile needs a 16x8 thread tile
    (128 accumulators + fragments: > 200 registers, one CTA per SM); 256x64 / 64x256 keep the 8x8 thread tile
    of 128x128 with less operand reuse per tile (2*64*256/(64+256) = 102 flop per loaded element vs 128):
    nothing 128x128 does not do better, at compile-time cost.
  - 16x16: 256 outputs are 8 per thread of one warp, less than one 4x4 sub-block.
* dtype: float32 in, float32 out (fp32 accumulation, the fused bias added in fp32).
* operand layouts: the three of mma_sync (KN, KK, MN); the op copies for the fourth (MK).
* warps (the stated rule): warps = clamp(BLOCK_M * BLOCK_N / 1024, 1, 8), i.e. the rule of mma_sync: at least
  32 outputs per thread until 8 warps. The thread tile then has P = BLOCK_M * BLOCK_N / (32 * warps) outputs
  (16, 32 or 64: only 128x128 gets 64), and its shape is as square as possible with power-of-two sides,
  TM >= TN: P = 16 -> 4x4, 32 -> 8x4, 64 -> 8x8 (the model, cpp/model/model.cpp simt_thread_tile, reads the
  same rule from (BLOCK_M, BLOCK_N, warps)). Warps are laid out WARPS_M x WARPS_N and a warp's 32 lanes
  LANES_M x LANES_N (LANES_M * TM * WARPS_M = BLOCK_M, LANES_N * TN * WARPS_N = BLOCK_N), choosing the most
  square warp tile (the fewest shared-memory bytes per FFMA), then LANES_N = 2 LANES_M (a B row read is 8
  float4 = 128 contiguous bytes, an A column 4 float4 broadcast to 8 lanes each). E.g. 128x128: 4x2 warps of
  32x64, lanes 4x8, thread 8x8; 128x64: 4x2 warps of 32x32, thread 8x4; 16x64: one warp, lanes 2x16, 8x4.
  Why P = 32 and not 64 below 128x128: twice the warps per tile, for the mid sizes whose grids do not fill the
  GPU (1024^3: 256 64x64 tiles), at 91 % FFMA issue share instead of 94 % (the model's f_fp32).
* stages (the stated rule): 4 (three k-tiles in flight, Little's law for the memory-bound small tiles, which run
  many CTAs per SM), lowered to 3 where two CTAs per SM would not fit the shared memory with 4 (none of the
  BLOCK_K = 16 tiles); and 3 for the one-CTA 128x128x16 (measured 1 % faster than 4 at 2048^3 and 4096^3). The large
  tiles need few: a 128x128x16 k-tile is > 4000 cycles of FFMA per CTA.
* registers and residency: every kernel but one is compiled for <= 128 registers per thread
  (__launch_bounds__(threads, 65536 / (128 * threads))): no register-limited residency below 128x128. The
  exception is the 8x8 thread tile at BLOCK_K = 16 (128x128x16): one CTA per SM (__launch_bounds__(256, 1), up to
  255 registers), two fragment sets (the LDS of k-step s+1 under the FFMAs of step s) and the whole 16-step k-tile
  unrolled (167 registers at 3 stages, KK 229, no spill). H100, cuBLAS SGEMM 50.6-51.3 TFLOP/s in the same runs
  (benchmarks/results/probes/simt/simt_probe_v2_h100.log, simt_probe_v3_h100.log): 4096^3 KN 41.5 -> 47.7 TFLOP/s
  (0.82 -> 0.94x cuBLAS), 8192^3 42.1 -> 47.9, 2048^3 39.8 -> 46.2, KK 38.6 -> 45.4, MN 45.1 -> 46.9 (one set at two
  CTAs per SM: 4 warps per SM sub-partition did not hide the LDS latency, ncu: FFMA 80 % of issued instructions,
  issue slots 78 % busy). Tried and not taken: the same at 8-step groups (40.9: the group loop's fragment hand-over),
  at BLOCK_K = 8 (47.3, same as 16), two sets under the 128-register cap (spills, 42.1), 128x128x32 with 16-step
  groups (255 registers + 28 B spill, 44.4), 8x8 thread tiles on 128-thread 64x128 / 128x64 CTAs (39-42.7).
* fragments / unrolling otherwise (kernel template arguments, measured): double-buffered fragments for 8x4 and 4x4
  thread tiles; the whole BLOCK_K = 16 k-tile unrolled (gemm_simt.cuh, kKUnroll, has the measurements; the kernel
  still takes one fragment set and 8-step groups, the forms measured above).
* alignment: 4 elements (16-byte cp.async chunks of fp32; the transposing copies are 4-byte, but the op's
  guarantee is per operand layout-independent).
"""
from __future__ import annotations

import math

FAMILY = "simt"
FAMILY_ENUM = "origami::Family::Simt"
MIN_CC = 80
NVCC_FLAGS: list[str] = []  # the top-level CMAKE_CUDA_ARCHITECTURES (sm_90 SASS + compute_80 PTX), as mma_sync

SMEM_PER_SM_BYTES = 233472  # per SM on H100/H200 (ANCHORS section 1); the runtime reserves 1 KB per CTA
SMEM_OPTIN_BYTES = 232448
REGISTERS_PER_SM = 65536
MAX_REGISTERS = 128         # per thread: two 8-warp CTAs per SM (all but the one-CTA tile, one_cta_per_sm)
MAX_WARPS = 8
STAGES, MIN_STAGES = 4, 3
ALIGNMENT_ELEMS = 4         # 16-byte chunks of 4-byte elements
SIDES = (16, 32, 64, 128)
BLOCK_KS = (16,)            # BLOCK_K = 32 is excluded: the docstring's measurements
PAD = 4                     # floats of padding per shared-memory k-row (gemm_simt.cuh: Operand::kPitch)

DTYPE = ("float32", "fp32", "float", "origami::DType::Float32")
# (A K-contiguous, B K-contiguous, suffix): suffix letters name the contiguous dimension of A and B.
LAYOUTS = [(True, False, "kn"), (True, True, "kk"), (False, False, "mn")]  # "mk": a copy by the op


def stage_bytes(bm: int, bn: int, bk: int) -> int:
    return (bm + PAD + bn + PAD) * bk * 4


def smem_bytes(bm: int, bn: int, bk: int, stages: int) -> int:
    return stages * stage_bytes(bm, bn, bk)  # the epilogue stores from registers: no staging buffer


def choose_warps(bm: int, bn: int) -> int:
    return max(1, min(MAX_WARPS, bm * bn // 1024))


def thread_tile(bm: int, bn: int, warps: int):
    """(TM, TN): BM*BN / (32 warps) outputs, power-of-two sides, as square as possible, TM >= TN."""
    outputs = bm * bn // (32 * warps)
    lg = int(round(math.log2(outputs)))
    return 2 ** ((lg + 1) // 2), 2 ** (lg // 2)


def layout(bm: int, bn: int, warps: int, tm: int, tn: int):
    """(warps_m, warps_n, lanes_m, lanes_n) covering the tile exactly; None if none."""
    best = None
    for wm in range(1, warps + 1):
        if warps % wm:
            continue
        wn = warps // wm
        if bm % (wm * tm) or bn % (wn * tn):
            continue
        lm, ln = bm // (wm * tm), bn // (wn * tn)
        if lm * ln != 32:
            continue
        score = (bm // wm + bn // wn, abs(math.log2(ln / lm) - 1))  # square warp tile, then lanes 4x8
        if best is None or score < best[0]:
            best = (score, (wm, wn, lm, ln))
    return None if best is None else best[1]


def one_cta_per_sm(tm: int, tn: int, bk: int) -> bool:
    """The 8x8 thread tile at BLOCK_K = 16 runs one CTA per SM with up to 255 registers (the docstring's numbers)."""
    return tm * tn == 64 and bk == 16


def choose_stages(bm: int, bn: int, bk: int, one_cta: bool = False) -> int:
    if one_cta:
        return 3
    stages = STAGES
    while stages > MIN_STAGES and 2 * (smem_bytes(bm, bn, bk, stages) + 1024) > SMEM_PER_SM_BYTES:
        stages -= 1
    return stages


def min_blocks(threads: int, one_cta: bool = False) -> int:
    return 1 if one_cta else max(1, REGISTERS_PER_SM // (MAX_REGISTERS * threads))


def double_frags(tm: int, tn: int, one_cta: bool = False) -> bool:
    """Two fragment register sets (the LDS of k-step s+1 under the FFMAs of step s) unless the thread tile is an 8x8
    of two CTAs per SM: under the 128-register cap 128x128x16 KN spilled 144 B with two sets and none with one
    (H100, 4096^3 KN: 41.5 TFLOP/s with one set vs 42.1 with two and the spill; MN 44.9 vs 45.0)."""
    return tm * tn <= 32 or one_cta


def k_unroll(one_cta: bool) -> int:
    """k-steps per unrolled group (the kernel's KUNROLL; 0 = its rule): the one-CTA tile unrolls its whole k-tile."""
    return 16 if one_cta else 0


def kernel_name(bm, bn, bk, stages, warps, suffix):
    return f"origami_simt_{bm}x{bn}x{bk}_s{stages}_w{warps}_fp32_{suffix}"


def exclusion(bm: int, bn: int, bk: int):
    if bk == 32:
        return ("BLOCK_K 32: four 8-step unrolled groups per k-tile; slower than the BLOCK_K 16 kernel of the same tile "
                "and split in 28 of 28 paired H100 launches (0.80x the time at BLOCK_K 16; benchmarks/results/probes/simt), "
                "128x128x32 41.1 vs the one-CTA 128x128x16's 47.7 TFLOP/s at 4096^3")
    if bk not in BLOCK_KS:
        return (f"BLOCK_K {bk}: fp32 k-tiles of 16 already cover the DRAM latency many times over; longer ones "
                "only cost shared memory and compile time")
    if bm not in SIDES or bn not in SIDES:
        return ("a 256 side: 256x128 needs a 16x8 thread tile at 8 warps (> 200 registers), 256x64/64x256 reuse "
                "operands less than 128x128 at the same 8x8 thread tile")
    if bm * bn < 32 * 16:
        return "fewer than 16 outputs (one 4x4 sub-block) per thread of one warp"
    return None


def specializations(space: dict):
    specs, excluded = [], []
    dt_name, dt_short, ctype, dt_enum = DTYPE
    for bm in space["BLOCK_M"]:
        for bn in space["BLOCK_N"]:
            for bk in space["BLOCK_K"]:
                tile = (bm, bn, bk)
                why = exclusion(bm, bn, bk)
                if why is None:
                    warps = choose_warps(bm, bn)
                    tm, tn = thread_tile(bm, bn, warps)
                    lay = layout(bm, bn, warps, tm, tn)
                    if lay is None:
                        why = f"no warp/lane layout for a {tm}x{tn} thread tile"
                if why is not None:
                    excluded.append((tile, why))
                    continue
                wm, wn, lm, ln = lay
                one_cta = one_cta_per_sm(tm, tn, bk)
                stages = choose_stages(bm, bn, bk, one_cta)
                smem = smem_bytes(bm, bn, bk, stages)
                threads = 32 * warps
                kernels = []
                for a_k, b_k, suffix in LAYOUTS:
                    name = kernel_name(bm, bn, bk, stages, warps, suffix)
                    kernels.append(dict(
                        name=name, family=FAMILY, family_enum=FAMILY_ENUM,
                        block_m=bm, block_n=bn, block_k=bk, stages=stages, warps=warps,
                        warps_m=wm, warps_n=wn, thread_m=tm, thread_n=tn, lanes_m=lm, lanes_n=ln,
                        dtype=dt_name, dtype_enum=dt_enum, ctype=ctype,
                        a_k_contiguous=a_k, b_k_contiguous=b_k, threads=threads,
                        smem_bytes=smem, alignment_elems=ALIGNMENT_ELEMS, min_cc=MIN_CC,
                        min_blocks_per_sm=min_blocks(threads, one_cta), double_frags=double_frags(tm, tn, one_cta),
                        k_unroll=k_unroll(one_cta),
                        launcher=f"launch_{name}"))
                specs.append(dict(name=f"simt_{bm}x{bn}x{bk}", family=FAMILY, kernels=kernels, nvcc_flags=NVCC_FLAGS))
    return specs, excluded


def tu_text(spec: dict) -> str:
    out = ['#include "simt/gemm_simt.cuh"', ""]
    for k in spec["kernels"]:
        kt = (f"origami::simt::Kernel<{k['block_m']}, {k['block_n']}, {k['block_k']}, {k['stages']}, "
              f"{k['warps_m']}, {k['warps_n']}, {k['thread_m']}, {k['thread_n']}, "
              f"{str(k['a_k_contiguous']).lower()}, {str(k['b_k_contiguous']).lower()}, {str(k['double_frags']).lower()}, "
              f"{k['k_unroll']}>")
        alias = f"K_{k['name']}"
        out += [
            f"using {alias} = {kt};",
            f"static_assert({alias}::kSmemBytes == {k['smem_bytes']}, \"generator and kernel disagree on shared memory\");",
            f"static_assert({alias}::kThreads == {k['threads']}, \"generator and kernel disagree on threads\");",
            f"static_assert({alias}::kLanesM == {k['lanes_m']}, \"generator and kernel disagree on the lane grid\");",
            f"extern \"C\" __global__ void __launch_bounds__({k['threads']}, {k['min_blocks_per_sm']}) {k['name']}(origami::simt::Params p) {{",
            f"  {alias}::run(p);",
            "}",
            f"static cudaError_t {k['launcher']}(const origami::GemmArgs& g) {{",
            f"  return origami::simt::launch<{alias}>({k['name']}, g, {k['block_m']}, {k['block_n']});",
            "}",
            "",
        ]
    return "\n".join(out)
