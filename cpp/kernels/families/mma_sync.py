"""The mma.sync family (sm_80+): cp.async + ldmatrix + mma.sync.m16n8k16 (m16n8k8.tf32), one specialisation per tile.

A family module tells cpp/kernels/generate.py three things:
  specializations(space)  -> (list of TU specs, list of (tile, reason) exclusions)
  tu_text(spec)           -> the CUDA source of one translation unit (kernels + host launchers)
  each spec's "kernels"   -> the KernelEntry fields of every kernel the TU defines
plus NVCC_FLAGS (extra flags for its TUs) and MIN_CC.

What is compiled per tile (BLOCK_M, BLOCK_N, BLOCK_K from cpp/model/config_space.def):

* dtypes: float16 and bfloat16; and tfloat32 (fp32 storage, TF32 math, fp32 C) for the tiles TF32_TILES at
  BLOCK_K = TF32_BLOCK_K, K-contiguous A and B only (the kernel header's TF32 paragraph: a fp32 row is copied and
  loaded as a 16-bit row twice as long; no ldmatrix.trans for 32-bit elements, so the op copies an M- or
  N-contiguous operand first, as for the wgmma tf32 kernels). These are the TF32 tensor-core kernels of GPUs
  before sm_90, where the wgmma family does not run; on sm_90 the wgmma tf32 tiles cover them
  (ModelOptions::mma_sync_dominated_by_wgmma: every TF32 tile here has a multiple of 64 rows). Why these tiles:
  the 64- to 256-row tiles of the 16-bit list at the one depth whose stage row is 128 bytes (32 fp32, the 16-bit
  kernels' 64: the same swizzle and copy), one kernel per tile (the CI compile budget).
* operand layouts: three of the four (A K- or M-contiguous) x (B K- or N-contiguous), the ones a
  forward and backward pass of torch code produce: x @ w (KN, both row-major), x @ w.t() (KK, nn.Linear
  forward and dX = dY @ W), x.t() @ g (MN, the weight gradient dW = X^T dY). The fourth, A and B both
  column-major (MK, x.t() @ w.t(), rare), is served by copying the smaller operand into the layout of
  a compiled variant (the op picks the variant that copies the fewest elements). Dropping it saves a
  quarter of the compile time (cpp/kernels/README.md: the CI budget). The layout only changes the
  global->shared copy addressing and whether ldmatrix transposes; one TU holds the 6 (dtype x layout)
  kernels of a tile, so the per-TU front-end cost is paid once.

* warps (the stated rule): warps = clamp(BLOCK_M * BLOCK_N / 1024, 1, 8), i.e. every warp owns at least
  1024 outputs (32 fp32 accumulator registers per thread) until 8 warps. 8 warps x 32 threads at one CTA
  per SM leave 65536 / 256 = 256 registers per thread, which holds a 64x64 warp tile (128 accumulator
  registers + A/B fragments + addresses; ptxas reports 240-254 for 256x128). The warps are laid out
  WARPS_M x WARPS_N so the warp tile is as square as possible (least shared-memory fragment traffic per
  mma) with both sides multiples of 16 (ldmatrix.x4 granularity); if no layout exists the warp count is
  halved. Consequence, kept on purpose: 256x256 needs a 128x64 warp tile (256 accumulators) and spills;
  it is compiled so the register filter can see the spill in the build's ptxas report and exclude it.

* stages (the stated rule): a CTA keeps IN_FLIGHT_BYTES = 48 KB of operand loads in flight and at
  least 3 k-tiles (MIN_STAGES = 4):
      stages = clamp(1 + ceil(IN_FLIGHT_BYTES / stage_bytes), 4, 6),   stage_bytes = (BM + BN) * BK * 2
  ceiling 6 (beyond that the ring only costs shared memory); then stages are lowered until the CTA
  fits SMEM_OPTIN_BYTES (a tile that does not fit with 2 stages is not compiled: it cannot run), and
  by one more (to 3) where that one stage is what keeps a second CTA off the SM (see residency;
  measured: 64x64x128 with 4 stages, one CTA/SM, 138 TFLOP/s at 1024^3; with 3, two CTAs/SM, 187).
  Why not Little's law on bandwidth alone (the first rule: 800 cycles x 24 B/cycle = 19.2 KB, floor
  3): a tile issued during k-tile kt must land within STAGES-2 k-tile compute times, and the
  pipelined main loop made k-tiles short enough that 2 tiles in flight no longer cover the loaded
  latency. Measured on the H200 (fp16, cold inputs, CUDA-graph timing, dev/ab A/B harness): 64x64x64
  with 4 stages vs 3: 195 vs 144 TFLOP/s at 128x4096x4096, 277 vs 243 at 128x8192x4096, 217 vs 203 at
  1024^3, 55 vs 48 at 512^3; 128x256x32 4 vs 3: 491 vs 468 at 4096^3, 411 vs 372 at 128x28672x8192;
  128x64x64 4 vs 3: 269 vs 230 at 128x8192x4096.

* realigning variants (the stated rule, realign_tile): every BLOCK_M x BLOCK_N with BLOCK_M in {16, 32, 64},
  BLOCK_N in {16, 32, 64, 128} and at most 4 warps (BLOCK_M * BLOCK_N <= 4096) gets REALIGN kernels at one depth,
  BLOCK_K = 64, or 32 where the 64-deep tile's copy would exceed REALIGN_MAX_COPY_CHUNKS = 16 chunks of 16 bytes
  per thread per k-tile (the one-warp 16x64 and 64x16, the two-warp 16x128: 18-20 chunks). That is 11 tiles:
  16x16x64, 16x32x64, 16x64x32, 16x128x32, 32x16x64, 32x32x64, 32x64x64, 32x128x64, 64x16x32, 64x32x64,
  64x64x64; x 2 dtypes x 3 layouts = 66 kernels, named with the suffix `_ra`, with alignment_elems = 1 and
  the aligned tile's stages, warps, CTAs per SM and fragment buffers. They read operands whose base pointer,
  leading dimension or batch stride is only 2-byte aligned (an odd leading dimension of a 16-bit matrix, a
  slice a[:, 1:]) in place: each 16-byte chunk is loaded as the aligned 16-byte blocks that hold it and
  realigned in registers (cpp/kernels/mma_sync/gemm_mma_sync.cuh, REALIGN), where the aligned kernels need
  the op to copy such an operand into an aligned buffer first.
  Why these tiles: the copy is a fixed cost (a launch, plus a read and a write of the operand) that dominates
  only where the GEMM itself is short, the small and the decode problems (H100, through the copy path:
  1x4097x4099 0.36x cuBLAS, 127x129x130 0.48x), and those are what the small mma.sync tiles serve; the model
  picks BLOCK_K 32-64 for them at these sizes. The 64-row tiles serve forced configs and sm_8x: on sm_90 the
  wgmma family takes the 64-row tiles (ModelOptions::mma_sync_dominated_by_wgmma). Why the two limits
  (ptxas -v, nvcc 13.0, sm_90): a chunk in flight holds 32 bytes of loads in registers, and up to 16 chunks the
  REALIGN kernels fit in 255 registers without spilling (178-254) while the 18-20-chunk ones spilled 8-432 B;
  the 8-warp 64x128 runs two CTAs per SM under a 128-register cap its aligned kernel already fills (REALIGN
  spilled 352-732 B). Every kernel costs CI compile time (all kernels on 2 cores within 90 minutes), so the set
  stays this small; the variants share their aligned twin's translation unit (one front-end pass). An aligned
  operand never runs a realign kernel: the op takes the aligned variant on a tie of copy cost
  (cpp/ops/ops_cuda.cpp make_plan).
"""
from __future__ import annotations

import math

FAMILY = "mma_sync"
FAMILY_ENUM = "origami::Family::MmaSync"
MIN_CC = 80
NVCC_FLAGS: list[str] = []  # the top-level CMAKE_CUDA_ARCHITECTURES (sm_90 SASS + compute_80 PTX)

# Opt-in shared memory per block on H100/H200 (cudaDevAttrMaxSharedMemoryPerBlockOptin, ANCHORS section 1).
SMEM_OPTIN_BYTES = 232448
SMEM_PER_SM_BYTES = 233472  # per SM (ANCHORS section 1); the runtime reserves 1 KB per CTA
IN_FLIGHT_BYTES = 48 * 1024
MIN_STAGES, MAX_STAGES = 4, 6
MAX_WARPS = 8
ALIGNMENT_ELEMS = 8  # 16-byte cp.async chunks of 2-byte elements
# The realigning variants (module docstring): which tiles get them, their alignment and name suffix.
REALIGN_BLOCK_M = (16, 32, 64)
REALIGN_BLOCK_N = (16, 32, 64, 128)
REALIGN_BLOCK_K = (64, 32)      # the first whose copy fits REALIGN_MAX_COPY_CHUNKS
REALIGN_MAX_WARPS = 4
REALIGN_MAX_COPY_CHUNKS = 16    # = the kernel's kRealignMaxChunks (static_assert there)
REALIGN_ALIGNMENT_ELEMS = 1     # any 2-byte (one element) aligned base pointer, leading dimension, batch stride
REALIGN_SUFFIX = "_ra"

DTYPES = [("float16", "fp16", "__half", "origami::DType::Float16"),
          ("bfloat16", "bf16", "__nv_bfloat16", "origami::DType::BFloat16")]
TF32_DTYPE = ("tfloat32", "tf32", "float", "origami::DType::TFloat32")
TF32_TILES = [(64, 64), (64, 128), (128, 64), (128, 128), (128, 256)]
TF32_BLOCK_K = 32
TF32_ALIGNMENT_ELEMS = 4  # 16-byte cp.async chunks of 4-byte elements
# (A K-contiguous, B K-contiguous, suffix): suffix letters name the contiguous dimension of A and B.
LAYOUTS = [(True, False, "kn"), (True, True, "kk"), (False, False, "mn")]  # "mk": a copy, see above


def elem_bytes(dtype: str) -> int:
    return 4 if dtype == TF32_DTYPE[0] else 2


def pipeline_bytes(bm: int, bn: int, bk: int, stages: int, eb: int = 2) -> int:
    return stages * (bm + bn) * bk * eb


def epilogue_bytes(bm: int, bn: int, eb: int = 2) -> int:
    return bm * (bn + 8) * eb  # the C tile staged with an 8-element row pad (16 bytes; 32 for fp32)


def smem_bytes(bm: int, bn: int, bk: int, stages: int, eb: int = 2) -> int:
    return max(pipeline_bytes(bm, bn, bk, stages, eb), epilogue_bytes(bm, bn, eb))


def warp_layout(bm: int, bn: int, warps: int):
    """(warps_m, warps_n) with warp tile sides multiples of 16, as square as possible; None if none."""
    best = None
    for wm in range(1, warps + 1):
        if warps % wm:
            continue
        wn = warps // wm
        if bm % (16 * wm) or bn % (16 * wn):
            continue
        tm, tn = bm // wm, bn // wn
        score = (abs(math.log2(tm / tn)), -tm)  # square first, then taller (fewer B fragment loads)
        if best is None or score < best[0]:
            best = (score, wm, wn)
    return None if best is None else (best[1], best[2])


def choose_warps(bm: int, bn: int):
    warps = max(1, min(MAX_WARPS, bm * bn // 1024))
    while warps >= 1:
        lay = warp_layout(bm, bn, warps)
        if lay:
            return warps, lay
        warps //= 2
    return None


def choose_stages(bm: int, bn: int, bk: int, eb: int = 2):
    stage = (bm + bn) * bk * eb
    stages = max(MIN_STAGES, min(MAX_STAGES, 1 + math.ceil(IN_FLIGHT_BYTES / stage)))
    while stages >= 2 and smem_bytes(bm, bn, bk, stages, eb) > SMEM_OPTIN_BYTES:
        stages -= 1
    return stages if stages >= 2 else None


def estimated_registers(bm: int, bn: int, bk: int, warps: int, wm: int, wn: int) -> int:
    """Registers per thread a CTA needs, estimated before compiling: fp32 accumulators, one k-step's A
    and B fragments, a 64-bit global address per unrolled copy iteration (<= 4 per operand, see the
    kernel's kMaxLoadUnroll) and ~24 for indices, predicates and shared-memory bases."""
    tm, tn = bm // wm, bn // wn
    acc = tm * tn // 32
    frags = (tm // 16) * 4 + (tn // 8) * 2
    threads = 32 * warps
    iters = lambda rows: min(4, -(-(rows * bk // 8) // threads))  # noqa: E731
    return acc + frags + 2 * (iters(bm) + iters(bn)) + 24


def fragment_registers(bm: int, bn: int, wm: int, wn: int) -> int:
    """Registers of one k-step's A and B fragments per thread (ldmatrix.x4 per m16, x2 per n8)."""
    tm, tn = bm // wm, bn // wn
    return (tm // 16) * 4 + (tn // 8) * 2


def copy_iterations(bm: int, bn: int, bk: int, warps: int):
    """16-byte cp.async iterations per thread for the A and the B tile of one k-tile."""
    threads = 32 * warps
    return -(-(bm * bk // 8) // threads), -(-(bn * bk // 8) // threads)


def residency(bm: int, bn: int, bk: int, warps: int, wm: int, wn: int, smem: int):
    """(min CTAs per SM for __launch_bounds__, double fragment buffers).

    The kernel double-buffers its A/B fragments (ldmatrix of k-step s+1 issued under the mma of
    k-step s), which costs a second fragment set: est2 = estimated_registers + fragment_registers.
    * Double buffers unless est2 > 240: every tile but 256x256 (128x64 warp tiles, 256 accumulators:
      they spill with or without). With one fragment set, 128x256x64 and 256x128x128 spilled 8 B where
      two sets did not (ptxas -v, nvcc 13.0, sm_90): ptxas's schedule, not the count, decides there.
    * Two CTAs per SM when two fit (shared memory, threads) and est2 <= 136 and, for 8-warp CTAs (a
      128-register cap), each operand's copy takes <= 4 iterations per thread: under the cap with two
      fragment sets 128x128x16 (est2 140) spilled 8 B, 128x128x32 (144) 132 B, and 32x256x64 /
      256x32x64 (est2 98, but 8 copy iterations of one operand) spilled 28-56 B under the cap. Why 2
      CTAs at all (first GPU run, H200, 4096^3): with the first main loop 128x128x16 at 2 CTAs/SM ran
      331 TFLOP/s and 128x128x32 at 1 CTA/SM less, because one 8-warp CTA per SM left the barrier
      bubbles exposed; the pipelined loop hides most of them (dev/ab: 128x128x32 at 1 CTA/SM, 4
      stages, 369 TFLOP/s at 4096^3 vs 303 for the first loop's 2-CTA kernel)."""
    est2 = estimated_registers(bm, bn, bk, warps, wm, wn) + fragment_registers(bm, bn, wm, wn)
    double = est2 <= 240
    two_fit = 2 * (smem + 1024) <= SMEM_PER_SM_BYTES and 2 * 32 * warps <= 2048
    short_copies = warps < 8 or max(copy_iterations(bm, bn, bk, warps)) <= 4
    return (2 if two_fit and est2 <= 136 and short_copies else 1), double


def kernel_name(bm, bn, bk, stages, warps, dt_short, layout_suffix, realign=False):
    return (f"origami_mma_sync_{bm}x{bn}x{bk}_s{stages}_w{warps}_{dt_short}_{layout_suffix}"
            + (REALIGN_SUFFIX if realign else ""))


def realign_block_k(bm: int, bn: int):
    """The BLOCK_K of the (bm, bn) tile that gets REALIGN kernels, or None (the module docstring's rule)."""
    if bm not in REALIGN_BLOCK_M or bn not in REALIGN_BLOCK_N:
        return None
    w = choose_warps(bm, bn)
    if w is None or w[0] > REALIGN_MAX_WARPS:
        return None
    for bk in REALIGN_BLOCK_K:
        if sum(copy_iterations(bm, bn, bk, w[0])) <= REALIGN_MAX_COPY_CHUNKS:
            return bk
    return None


def realign_tile(bm: int, bn: int, bk: int) -> bool:
    """Whether the tile also gets REALIGN kernels."""
    return realign_block_k(bm, bn) == bk


def specializations(space: dict):
    specs, excluded = [], []
    for bm in space["BLOCK_M"]:
        for bn in space["BLOCK_N"]:
            for bk in space["BLOCK_K"]:
                tile = (bm, bn, bk)
                w = choose_warps(bm, bn)
                if w is None:
                    excluded.append((tile, "no warp layout with 16x16-multiple warp tiles"))
                    continue
                warps, (wm, wn) = w
                plan = stage_plan(bm, bn, bk, warps, wm, wn)
                if plan is None:
                    excluded.append((tile, f"shared memory {smem_bytes(bm, bn, bk, 2)} B with 2 stages > "
                                           f"{SMEM_OPTIN_BYTES} B opt-in"))
                    continue
                kernels = []
                # The aligned kernels first, then the realigning ones: generation order is the registry's
                # order, and the op's plan keeps the first variant on a tie (it also prefers aligned ones
                # explicitly).
                for realign in (False, True) if realign_tile(bm, bn, bk) else (False,):
                    for dtype in DTYPES:
                        for a_k, b_k, suffix in LAYOUTS:
                            kernels.append(kernel_record(
                                bm, bn, bk, warps, wm, wn, plan, dtype, a_k, b_k, suffix, realign,
                                REALIGN_ALIGNMENT_ELEMS if realign else ALIGNMENT_ELEMS))
                if (bm, bn) in TF32_TILES and bk == TF32_BLOCK_K:
                    kernels.append(tf32_kernel(bm, bn, bk, warps, wm, wn))
                specs.append(dict(name=f"mma_sync_{bm}x{bn}x{bk}", family=FAMILY, kernels=kernels,
                                  nvcc_flags=NVCC_FLAGS))
    return specs, excluded


def stage_plan(bm: int, bn: int, bk: int, warps: int, wm: int, wn: int, eb: int = 2):
    """(stages, smem bytes, min CTAs per SM, double fragment buffers) of a tile, or None if 2 stages do not fit.
    The residency rule counts BLOCK_K in the kernel's 16-bit units (a fp32 k-tile of bk moves 2 * bk of them)."""
    bk_units = bk * eb // 2
    stages = choose_stages(bm, bn, bk, eb)
    if stages is None:
        return None
    smem = smem_bytes(bm, bn, bk, stages, eb)
    min_blocks, double_frags = residency(bm, bn, bk_units, warps, wm, wn, smem)
    if stages > MIN_STAGES - 1 and min_blocks == 1:
        # A stage that costs the second CTA per SM is not worth it (measured: 64x64x128
        # with 4 stages, 128 KB, one CTA/SM: 138 TFLOP/s at 1024^3; with 3, two: 187).
        smem_less = smem_bytes(bm, bn, bk, stages - 1, eb)
        if residency(bm, bn, bk_units, warps, wm, wn, smem_less)[0] == 2:
            stages, smem = stages - 1, smem_less
            min_blocks, double_frags = residency(bm, bn, bk_units, warps, wm, wn, smem)
    return stages, smem, min_blocks, double_frags


def kernel_record(bm: int, bn: int, bk: int, warps: int, wm: int, wn: int, plan: tuple, dtype: tuple, a_k: bool,
                  b_k: bool, layout_suffix: str, realign: bool, alignment_elems: int) -> dict:
    """One kernel of a tile's translation unit, with the fields the registry records; plan = stage_plan(...), dtype =
    an entry of DTYPES (or TF32_DTYPE)."""
    stages, smem, min_blocks, double_frags = plan
    dt_name, dt_short, ctype, dt_enum = dtype
    name = kernel_name(bm, bn, bk, stages, warps, dt_short, layout_suffix, realign)
    return dict(name=name, family=FAMILY, family_enum=FAMILY_ENUM,
                block_m=bm, block_n=bn, block_k=bk, stages=stages, warps=warps,
                warps_m=wm, warps_n=wn, dtype=dt_name, dtype_enum=dt_enum, ctype=ctype,
                a_k_contiguous=a_k, b_k_contiguous=b_k, threads=32 * warps, smem_bytes=smem,
                alignment_elems=alignment_elems, min_cc=MIN_CC, min_blocks_per_sm=min_blocks,
                double_frags=double_frags, realign=realign, launcher=f"launch_{name}")


def tf32_kernel(bm: int, bn: int, bk: int, warps: int, wm: int, wn: int) -> dict:
    """The tfloat32 kernel of a TF32_TILES tile (K-contiguous A and B; the module docstring)."""
    plan = stage_plan(bm, bn, bk, warps, wm, wn, elem_bytes(TF32_DTYPE[0]))
    return kernel_record(bm, bn, bk, warps, wm, wn, plan, TF32_DTYPE, True, True, "kk", False, TF32_ALIGNMENT_ELEMS)


def tu_text(spec: dict) -> str:
    out = ['#include "mma_sync/gemm_mma_sync.cuh"', ""]
    for k in spec["kernels"]:
        # the kernel's BK counts 16-bit units: twice BLOCK_K for fp32 (TF32) storage
        bk_units = k["block_k"] * elem_bytes(k["dtype"]) // 2
        kt = (f"origami::mma_sync::Kernel<{k['ctype']}, {k['block_m']}, {k['block_n']}, {bk_units}, "
              f"{k['stages']}, {k['warps_m']}, {k['warps_n']}, {str(k['a_k_contiguous']).lower()}, "
              f"{str(k['b_k_contiguous']).lower()}, {str(k['double_frags']).lower()}, "
              f"{str(k['realign']).lower()}>")
        alias = f"K_{k['name']}"
        out += [
            f"using {alias} = {kt};",
            f"static_assert({alias}::kSmemBytes == {k['smem_bytes']}, \"generator and kernel disagree on shared memory\");",
            f"static_assert({alias}::kThreads == {k['threads']}, \"generator and kernel disagree on threads\");",
            f"extern \"C\" __global__ void __launch_bounds__({k['threads']}, {k['min_blocks_per_sm']}) {k['name']}(origami::mma_sync::Params p) {{",
            f"  {alias}::run(p);",
            "}",
            f"static cudaError_t {k['launcher']}(const origami::GemmArgs& g) {{",
            f"  return origami::mma_sync::launch<{alias}>({k['name']}, g, {k['block_m']}, {k['block_n']});",
            "}",
            "",
        ]
    return "\n".join(out)
