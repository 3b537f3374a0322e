// The work unit of a CTA of the non-persistent kernels (the mma.sync and CUDA-core fp32 families), and the special
// registers their kernels re-read, and their kernel arguments (CtaParams); one definition for both.
//
// Without split-K: grid (tiles, 1, batch chunk), tile bx of batch batch_base + bz. With split-K (make_split_plan,
// cpp/model/types.hpp): a 1-D grid of units, first the dp_tiles whole tiles (in launch order over all batches), then
// slice s of tail tile j at dp_tiles + s * tail + j; a slice is a sub-problem whose K is its k-tiles (only the last
// slice can end in a partial k-tile), and it writes the fp32 partial tile bx - dp_tiles (= s * tail + j) of the
// workspace instead of C. 32-bit index math: the launchers check that the units fit in an int.
//
// The host side of those CTA units is here too (plan_cta_units, launch_cta_units): both families' launchers fill the
// same Params fields and launch the same grids with the same opt-ins and PDL rule.
#pragma once
#include <cuda_runtime.h>

#include <atomic>
#include <climits>

#include "gemm_args.hpp"
#include "pdl.hpp"

namespace origami {

// Kernel arguments of both families (by value in the parameter space): Elem is the type of the operands and C as the
// kernel's signature holds them (void for mma.sync, whose specialisations type them), Bias the bias's. Leading
// dimensions are of the non-contiguous dimension; the contiguous one has stride 1 by construction of the
// specialisation.
template <class Elem, class Bias>
struct CtaParams {
  const Elem* a;
  const Elem* b;
  Elem* c;
  int M, N, K;
  long long lda, ldb, ldc;                  // elements
  long long a_batch, b_batch, c_batch;      // elements
  int tiles_m, tiles_n;
  int group_size_m;
  int batch_base;                           // first batch index of this launch (grid.z chunks)
  int pdl_early_trigger;                    // launch the next kernel right after our wait (pdl.hpp)
  // Split-K (GemmArgs::split_k, make_split_plan): split_k > 1 slices of k_tiles_per_split k-tiles for the
  // tail_tiles tiles after the dp_tiles whole ones; slice s of tail tile j writes its fp32 partial tile
  // (BM x BN, tile-local rows of BN) at ws + (s * tail_tiles + j) * BM * BN.
  int split_k;
  int k_tiles_per_split;
  float* ws;
  int dp_tiles, tail_tiles;
  const Bias* bias;                         // GemmArgs::bias (nullptr: none), N values
};

struct CtaUnit {
  long long batch;
  int m0, n0, slice;
  bool split;
};

template <int BM, int BN, class Params>
__device__ __forceinline__ CtaUnit cta_unit(const Params& p, int bx, int bz) {
  CtaUnit u;
  u.slice = 0;
  u.split = p.split_k > 1 && bx >= p.dp_tiles;
  int pid;
  if (p.split_k > 1) {
    int t = bx;
    if (u.split) {
      const int v = t - p.dp_tiles;
      u.slice = v / p.tail_tiles;
      t = p.dp_tiles + (v - u.slice * p.tail_tiles);
    }
    const int per_batch = p.tiles_m * p.tiles_n;
    const int b = t / per_batch;
    pid = t - b * per_batch;
    u.batch = b;
  } else {
    pid = bx;
    u.batch = (long long)p.batch_base + bz;
  }
  int tile_m, tile_n;
  triton_raster(pid, p.tiles_m, p.tiles_n, p.group_size_m, tile_m, tile_n);
  u.m0 = tile_m * BM;
  u.n0 = tile_n * BN;
  return u;
}

// Special registers read with volatile asm, so that the epilogues recompute their coordinates from them rather than
// keep values derived from blockIdx / threadIdx live across the main loop (registers the simt 8x8 tiles do not have
// at 2 CTAs per SM).
__device__ __forceinline__ int ctaid_x() {
  int v;
  asm volatile("mov.u32 %0, %%ctaid.x;" : "=r"(v));
  return v;
}
__device__ __forceinline__ int ctaid_z() {
  int v;
  asm volatile("mov.u32 %0, %%ctaid.z;" : "=r"(v));
  return v;
}
__device__ __forceinline__ int tid_x() {
  int v;
  asm volatile("mov.u32 %0, %%tid.x;" : "=r"(v));
  return v;
}

// Host side, before a launch: the Params fields of the problem and of its CTA units, and the split plan. K, the
// operands' leading dimensions and batch strides are in `units` elements of the kernel's type per element of the
// tensors' (the mma.sync TF32 kernels move fp32 as pairs of 16-bit words: 2; otherwise 1). The operand pointers and the
// bias (typed per family) are the caller's. cudaErrorInvalidValue where the kernels' 32-bit index math cannot hold
// the problem or a split launch lacks its workspace.
template <class Params>
inline cudaError_t plan_cta_units(const GemmArgs& g, int block_m, int block_n, int block_k, int units, Params& p,
                                  SplitPlan& sp) {
  if (g.M > INT32_MAX || g.N > INT32_MAX || g.K > INT32_MAX / units) return cudaErrorInvalidValue;
  p.M = static_cast<int>(g.M);
  p.N = static_cast<int>(g.N);
  p.K = static_cast<int>(g.K) * units;
  p.lda = (g.a_stride_k == 1 ? g.a_stride_m : g.a_stride_k) * units;
  p.ldb = (g.b_stride_k == 1 ? g.b_stride_n : g.b_stride_k) * units;
  p.ldc = g.c_stride_m;
  p.a_batch = g.a_stride_batch * units;
  p.b_batch = g.b_stride_batch * units;
  p.c_batch = g.c_stride_batch;
  p.tiles_m = static_cast<int>((g.M + block_m - 1) / block_m);
  p.tiles_n = static_cast<int>((g.N + block_n - 1) / block_n);
  p.group_size_m = g.group_size_m < 1 ? 1 : g.group_size_m;
  if ((long long)p.tiles_m * p.tiles_n > INT32_MAX) return cudaErrorInvalidValue;
  // Split-K schedule (gemm_args.hpp: split_slots comes from the op / launch_gemm, so the workspace agrees).
  if (g.split_k > 1 && g.split_slots <= 0) return cudaErrorInvalidValue;
  sp = split_plan(g, block_m, block_n, block_k);
  p.split_k = sp.slices;
  p.k_tiles_per_split = static_cast<int>(sp.k_tiles_per_slice);
  p.ws = g.workspace;
  p.dp_tiles = static_cast<int>(sp.dp_tiles);  // < units <= INT32_MAX (checked next)
  p.tail_tiles = static_cast<int>(sp.tail_tiles);
  if (sp.slices > 1 && (p.ws == nullptr || sp.units() > INT32_MAX)) return cudaErrorInvalidValue;
  return cudaSuccess;
}

// Host side: launches `kernel` (one specialisation K: its kThreads, kSmemBytes) over the CTA units of p and sp
// (plan_cta_units), on g.stream, with programmatic dependent launch when g asks for it. The per-device caches below
// are per K (this template's instance), as the attributes they remember are per kernel.
template <class K, class Params>
inline cudaError_t launch_cta_units(void (*kernel)(Params), Params& p, const GemmArgs& g, const SplitPlan& sp) {
  int dev = 0;
  if (K::kSmemBytes > 48 * 1024 || g.programmatic_dependent_launch) {
    cudaError_t e = cudaGetDevice(&dev);
    if (e != cudaSuccess) return e;
  }
  if (K::kSmemBytes > 48 * 1024) {
    // Opt in to > 48 KB dynamic shared memory; the attribute is per device, so set it once per device.
    static unsigned long long configured_mask = 0;  // benign race: setting it twice is harmless
    if (dev >= 64 || !(__atomic_load_n(&configured_mask, __ATOMIC_ACQUIRE) & (1ull << dev))) {
      cudaError_t e = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, K::kSmemBytes);
      if (e != cudaSuccess) return e;
      if (dev < 64) __atomic_fetch_or(&configured_mask, 1ull << dev, __ATOMIC_RELEASE);
    }
  }
  const long long tiles = (long long)p.tiles_m * p.tiles_n;
  cudaLaunchConfig_t cfg{};
  cudaLaunchAttribute attr[1];
  cfg.blockDim = dim3(K::kThreads);
  cfg.dynamicSmemBytes = K::kSmemBytes;
  cfg.stream = g.stream;
  cfg.attrs = attr;
  p.pdl_early_trigger = 0;
  if (g.programmatic_dependent_launch) {
    static std::atomic<unsigned char> waits[64];  // per kernel and device
    cfg.numAttrs = add_pdl_attribute(true, reinterpret_cast<const void*>(kernel), dev, waits, attr, 0);
    // The explicit (early) trigger only where the next grid's waiting CTAs cannot crowd ours: one CTA
    // per SM fits (they queue for our slots), or a same-sized next grid fits in the slots ours leave
    // free (2 x our CTAs per SM <= the CTAs per SM the resources allow). Measured on the H200 with the mma.sync
    // kernels (benchmarks/small_gemm.py, trigger right after the wait for every grid): the 256-CTA grids of
    // 64x64x64, 32x128x32, 32x64x64, 64x32x64 (2 CTAs per SM, room for 3) and 16x16x256 ran 5-28 %
    // slower than without PDL (64x64x64 at 1024^3 9.99 -> 12.83 us; 32x64x64 at 128x4096x4096 20.4 ->
    // 28.2), the trigger moved to the last k-tile load was no better; every grid this rule lets
    // trigger gained 3-36 % (16 CTAs at 64^3: 2.43 -> 1.79 us), 256 CTAs of 16x16x64 at 256^3 20 %.
    static std::atomic<int> per_sm_cache[64];  // CTAs per SM the resources allow, per device
    int per_sm = per_sm_cache[dev & 63].load(std::memory_order_relaxed);
    if (per_sm <= 0) {
      cudaError_t e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, K::kThreads, K::kSmemBytes);
      if (e != cudaSuccess) return e;
      per_sm_cache[dev & 63].store(per_sm, std::memory_order_relaxed);
    }
    int sms = g.sm_count;
    if (sms <= 0) {
      cudaError_t e = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
      if (e != cudaSuccess) return e;
    }
    const long long ours_per_sm = ((sp.slices > 1 ? sp.units() : tiles * g.batch) + sms - 1) / sms;
    p.pdl_early_trigger = (per_sm <= 1 || 2 * ours_per_sm <= per_sm) ? 1 : 0;
  }
  if (sp.slices > 1) {  // one 1-D grid of work units over every batch
    p.batch_base = 0;
    cfg.gridDim = dim3(static_cast<unsigned>(sp.units()), 1, 1);
    return cudaLaunchKernelEx(&cfg, kernel, p);
  }
  constexpr long long kMaxGridZ = 65535;
  for (long long b0 = 0; b0 < g.batch; b0 += kMaxGridZ) {
    const long long nb = g.batch - b0 < kMaxGridZ ? g.batch - b0 : kMaxGridZ;
    p.batch_base = static_cast<int>(b0);
    cfg.gridDim = dim3(static_cast<unsigned>(tiles), 1, static_cast<unsigned>(nb));
    cudaError_t e = cudaLaunchKernelEx(&cfg, kernel, p);
    if (e != cudaSuccess) return e;
  }
  return cudaSuccess;
}

}  // namespace origami
