// Programmatic dependent launch (PDL, sm_90+; CUDA programming guide, "Programmatic Dependent Launch
// and Synchronization"; PTX ISA, griddepcontrol).
//
// Why: a small GEMM is mostly fixed cost. On the H200 a 64^3 GEMM takes ~2.3 us per launch in a CUDA
// graph of back-to-back GEMMs (cuBLAS, Triton and ours alike: reports/nvidia-h200/seed.md), of which
// the tensor-core work is a few hundred ns; the rest is the launch of the grid, the first DRAM round
// trip and the drain of the stores. With PDL the next kernel in the stream is launched while this one
// still runs, its CTAs do their set-up (index math, barrier init, tensor-map prefetch) and then wait in
// griddepcontrol.wait until this grid has completed and its memory is visible.
//
// Contract, kept by every kernel of every family:
//  * griddepcontrol.wait before the first global-memory access (read or write): the previous kernel in
//    the stream may produce our operands or read the buffer we overwrite. That makes the overlap safe
//    whatever the previous kernel is; only set-up work overlaps.
//  * griddepcontrol.launch_dependents right after that wait, not before it: the dependent grid launches
//    once every CTA of this grid has issued it (or exited). Issued before the wait, a chain of launches
//    cascades: each grid launches the next while it is itself still waiting, until waiting CTAs of many
//    grids hold the SMs' slots and the CTAs of each grid land wherever a slot was free, several to an SM
//    while other SMs idle (measured on the H200, benchmarks/small_gemm.py, first version: mma.sync
//    64x64x64 at 128x4096x4096 went from 22.9 to 40.4 us, 16x16x64 at 16x4096x4096 from 14.6 to 26.4).
//    After the wait at most two grids overlap: this one and the next, whose CTAs only do their set-up.
//    And only where the next grid's waiting CTAs cannot crowd this one's (wgmma: persistent, one CTA per
//    SM, always; mma_sync and simt: decided at launch from the grid and the CTAs per SM, cta_unit.cuh
//    launch_cta_units()): a 2-CTA-per-SM grid with room for a third ran up to 28 % slower with the trigger.
//    Without the explicit trigger the next grid still launches as this one's CTAs exit, before the
//    memory flush that ordinary stream order waits for.
//  * The launch attribute is set only when the kernel, as loaded on this device, was compiled for a
//    PTX target >= sm_90 (cudaFuncAttributes::ptxVersion): code JIT-compiled from the compute_80 PTX
//    has no griddepcontrol.wait and must be serialised the ordinary way.
#pragma once
#include <cuda_runtime.h>

#include <atomic>
#include <cstdlib>

namespace origami {

#ifdef __CUDACC__
// Blocks until the grids this one depends on have completed and their writes are visible (a no-op when
// the launch did not allow overlap, or below sm_90).
__device__ __forceinline__ void pdl_wait_for_prior_grids() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;\n" ::: "memory");
#endif
}
// Lets the next kernel of the stream launch (once every CTA of this grid has said so or exited).
__device__ __forceinline__ void pdl_launch_dependents() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;\n" ::: "memory");
#endif
}
#endif

// True when `kernel`, as loaded on device `dev`, contains the griddepcontrol.wait above. `cache` is the
// caller's per-kernel memo (0 = not asked yet, 1 = yes, 2 = no), indexed by device.
inline bool kernel_waits_for_prior_grids(const void* kernel, int dev, std::atomic<unsigned char> (&cache)[64]) {
  std::atomic<unsigned char>& slot = cache[dev & 63];
  unsigned char v = slot.load(std::memory_order_relaxed);
  if (v == 0) {
    cudaFuncAttributes attr{};
    // ptxVersion: the virtual architecture the loaded code was compiled for (90 for our sm_90 SASS).
    v = (cudaFuncGetAttributes(&attr, kernel) == cudaSuccess && attr.ptxVersion >= 90) ? 1 : 2;
    if (v == 2) cudaGetLastError();
    slot.store(v, std::memory_order_relaxed);
  }
  return v == 1;
}

// Whether a grid of `ctas` CTAs that each hold a whole SM (the persistent wgmma kernels), each running about
// `k_iters_per_cta` K-iterations, should overlap the grid before it. Not when it takes more than half of the SMs and at
// most 85 % of them, with CTAs that run long (>= kPdlFillRuleMinKIters K-iterations): such launches ran slower with
// PDL than without. What they have in common: the previous grid (the same launch, in the measured case) leaves fewer
// SMs idle than this grid has CTAs, so part of it waits on the idle SMs and the rest is placed as the previous grid's
// CTAs leave; why that costs 5-36 % of a long launch is not found. Measured on the H200:
// - forty-third session, where the rule came from: the 64-row tiles at four decode shapes in CUDA graphs of
//   back-to-back launches (benchmarks/results/probes/probe_decode_partial_wave.py,
//   `probe_decode_partial_wave_h200.txt`): grids of 72-96 CTAs 1.09-1.36x their time without PDL (3x7168x7168 64x96, 75
//   CTAs: 38.0 against 28.5 us; 1x18944x3584 64x256, 74 CTAs: 49.8 against 36.5), 112 CTAs 1.04x, 116-119 CTAs within
//   0.3 us either way; grids of <= 64 CTAs and whole waves 0.3-4 us faster with it. The `gen-holdout` picks, run once
//   with PDL on every grid and once with it off (benchmarks/results/vs_cublas_genholdout_h200*.md): grids of 67-112
//   CTAs running 96-320 K-iterations per CTA gained 5-20 % without it; short ones (< 32, 4-20 us launches) and grids of
//   113-131 CTAs lost the ~1 us PDL saves.
// - forty-fourth session, the threshold: the training sets `gen-train` and `gen-mid-train` in three arms (PDL on every
//   grid, this rule at 32 K-iterations, no PDL), two alternated rounds each (probe_pdl_fill_rule.sh,
//   `pdl_fill_rule_h200_session44.md`): in the 67-112-CTA band the 64-row tiles running 41-64 K-iterations per CTA
//   ran 3-12 % *slower* without PDL (128x3584x3584 64x64, 112 CTAs, 56 K-iterations: ours / cuBLAS 0.849 with, 0.818
//   without), the two-consumer tiles there within +-3 %, the one long grid (12x7168x18240 64x64, 285 K-iterations)
//   5 % faster without. Hence 96: the training sets hold no such grid between 64 and 285 K-iterations, and in
//   `gen-holdout` (no longer held out for these launches) the gains start at 96.
constexpr long long kPdlFillRuleMinKIters = 96;
// ORIGAMI_NV_PDL_FILL_RULE=0 in the environment when the library loads turns the rule off (every grid asks for the
// overlap, as before the forty-third session), for measuring it (benchmarks/results/probes/probe_pdl_fill_rule.sh).
inline bool pdl_fill_rule_enabled() {
  static const bool on = [] {
    const char* v = std::getenv("ORIGAMI_NV_PDL_FILL_RULE");
    return !(v != nullptr && v[0] == '0');
  }();
  return on;
}
inline bool pdl_suits_sm_filling_grid(long long ctas, int sms, long long k_iters_per_cta) {
  return !pdl_fill_rule_enabled() || 2 * ctas <= sms || 20 * ctas > 17LL * sms ||
         k_iters_per_cta < kPdlFillRuleMinKIters;
}

// Appends the PDL attribute to `attrs` when `allowed` and the kernel waits; returns the new count.
inline unsigned add_pdl_attribute(bool allowed, const void* kernel, int dev, std::atomic<unsigned char> (&cache)[64],
                                  cudaLaunchAttribute* attrs, unsigned n) {
  if (!allowed || !kernel_waits_for_prior_grids(kernel, dev, cache)) return n;
  attrs[n].id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attrs[n].val.programmaticStreamSerializationAllowed = 1;
  return n + 1;
}

}  // namespace origami
