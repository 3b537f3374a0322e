// The simt GEMM kernel family (sm_80+): exact fp32 GEMM on the CUDA cores. One CTA computes a BLOCK_M x
// BLOCK_N tile of C[b] = A[b] * B[b] (fp32 in, fp32 FFMA accumulation, fp32 out; no TF32 anywhere).
//
// * Register blocking: every thread owns a TM x TN thread tile (4x4, 8x4 or 8x8), made of 4x4 sub-blocks
//   spaced a quarter/half warp tile apart, so that each k-step reads one float4 per sub-block from shared
//   memory (LDS.128) and the lanes of a warp read consecutive float4s (no bank conflicts: the lanes reading
//   the same row of A broadcast, the LANES_N lanes of a B row read LANES_N * 16 contiguous bytes). A warp's
//   32 lanes form a LANES_M x LANES_N grid; warps form a WARPS_M x WARPS_N grid over the CTA tile.
// * Shared memory is K-major-outer for both operands: As[k][m], Bs[k][n] (a k-step's A column and B row
//   are contiguous), in a STAGES-deep ring filled by cp.async, one cp.async.wait_group + one
//   __syncthreads per k-tile. The k-steps of a k-tile run in runtime groups of kKUnroll unrolled steps, ~550
//   instructions each (a whole 128x128x32 k-tile would be ~2200); the fragments are double-buffered in registers
//   (the LDS of k-step s+1 before the FFMAs of step s, across the k-tile boundary too, right after the barrier)
//   unless DOUBLE_FRAGS is false (each step's fragments loaded right before its FFMAs, the other warps of the SM
//   sub-partition hiding the latency: the form of the two-CTA 8x8 tiles, whose second set does not fit 128
//   registers; no compiled kernel uses it since session 8). The one-CTA-per-SM 128x128x16 (families/simt.py:
//   one_cta_per_sm) has the registers for both sets and its whole k-tile unrolled (KUNROLL = 16): 1.14x the
//   two-CTA form at 4096^3 on the H100. BLOCK_K = 32 (8-step groups) is not compiled: slower than BLOCK_K = 16
//   in every paired measurement (families/simt.py).
// * Global -> shared: an operand whose global contiguous dimension is the shared one (A M-contiguous, B
//   N-contiguous) is copied in 16-byte cp.async chunks. A K-contiguous operand (row-major A, or B = w.t())
//   is transposed on the fly by 4-byte cp.async: each warp instruction reads 4 rows x 8 consecutive k
//   (four whole 32-byte sectors) and writes them to As[k][m] rows padded by 4 floats, so the 32 lanes hit 32
//   different banks (bank = (4k + m) mod 32 for pitches of 4 mod 32, (20k + m) mod 32 for the 16-row tile).
//   Why not register-staged float4 loads + transposed stores: they need the loads a whole k-tile ahead in
//   registers (the 8x8 tiles have none to spare at 2 CTAs/SM), a second edge path, and they leave the
//   cp.async ring's latency hiding. The 4-byte copies cost 4x the copy instructions (8 per thread per
//   128x128x16 k-tile, against ~1100 FFMA + LDS) and measured 7-14 % (H100, 4096^3, 128x128x16: KN 42.2
//   TFLOP/s, MN 45.2, KK 39.0; cpp/kernels/README.md, "The simt kernel"): the first thing to try next.
// * Edges: any M, N, K >= 1. Loads past M/N/K are zero-filled (cp.async src-size 0, or the valid part of a
//   16-byte chunk); an operand whose tile is inside M (N) and K is copied without predicates (interior CTAs,
//   and the operand away from the edge at decode); stores are guarded.
// * Epilogue straight from registers: a thread's 4 consecutive columns are one float4 store when ldc and C
//   are 16-byte aligned (the LANES_N lanes of a row write LANES_N * 16 contiguous bytes), else element stores.
//   Fused bias (fp32) for whole tiles; split-K slices write fp32 partial tiles (see Params), the reduction
//   (split_k.cu) sums them and adds the bias.
// What the op must guarantee (KernelEntry::alignment_elems = 4): 16-byte aligned A and B, leading dimensions
// and batch strides multiples of 4 floats, so every 16-byte chunk that starts inside a matrix is aligned.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

#include "../cp_async.cuh"
#include "../cta_unit.cuh"
#include "../gemm_args.hpp"
#include "../pdl.hpp"

namespace origami {
namespace simt {

// Kernel arguments (cta_unit.cuh CtaParams): fp32 operands, C and bias.
using Params = CtaParams<float, float>;

// ---- PTX wrappers ------------------------------------------------------------------------------
// (smem_u32 and the cp.async wrappers: ../cp_async.cuh)
// LDS.128 through a 32-bit shared address (volatile: never moved across the ring's barriers by NVVM).
__device__ __forceinline__ void lds128(float (&r)[4], unsigned addr) {
  asm volatile("ld.shared.v4.f32 {%0,%1,%2,%3}, [%4];\n" : "=f"(r[0]), "=f"(r[1]), "=f"(r[2]), "=f"(r[3]) : "r"(addr));
}

// q + off through an add NVVM cannot see into. With plain pointer arithmetic NVVM rewrote the running copy
// pointer's chain of equal steps (q += 16 * lda, 8 times per k-tile) as q0 + i * 16 * lda and kept the 8 products
// live across the k-loop: 128x64x16 KN spilled 12 B under the 128-register cap (ptxas -v); with the opaque add the
// loop keeps q and the one step.
__device__ __forceinline__ const float* ptr_add(const float* q, long long off) {
  const float* r;
  asm("add.s64 %0, %1, %2;" : "=l"(r) : "l"(q), "l"(off * 4));
  return r;
}

// Compile-time loop: f(std::integral_constant<int, I>) for I in [BEGIN, END) (a constant index keeps the
// fragment and accumulator arrays in registers).
template <int BEGIN, int END, typename F>
__device__ __forceinline__ void static_for(F&& f) {
  if constexpr (BEGIN < END) {
    f(std::integral_constant<int, BEGIN>());
    static_for<BEGIN + 1, END>(f);
  }
}

// ---- the kernel body ----------------------------------------------------------------------------
// A_K: A is K-contiguous (row-major M x K); else M-contiguous. B_K: B is K-contiguous (N x K storage, i.e.
// column-major K x N); else N-contiguous (row-major K x N). TM x TN: the thread tile.
// KUNROLL: k-steps per unrolled group, 0 = the family's rule (kKUnroll).
template <int BM, int BN, int BK, int STAGES, int WARPS_M, int WARPS_N, int TM, int TN, bool A_K, bool B_K,
          bool DOUBLE_FRAGS = true, int KUNROLL = 0>
struct Kernel {
  static constexpr int kWarps = WARPS_M * WARPS_N;
  static constexpr int kThreads = 32 * kWarps;
  static constexpr int kWarpTileM = BM / WARPS_M;
  static constexpr int kWarpTileN = BN / WARPS_N;
  static constexpr int kLanesM = kWarpTileM / TM;
  static constexpr int kLanesN = kWarpTileN / TN;
  static constexpr int kBlockK = BK;
  // k-steps per unrolled group (see the header comment): 8 for 8x8 thread tiles (~550 instructions), the whole
  // BLOCK_K = 16 k-tile for the smaller ones (16 steps of 8x4, ~560), 8 steps of them at BLOCK_K = 32. Measured
  // (ptxas -v, nvcc 13.0, 128-register cap; H100): 8 steps of 8x4 at BLOCK_K = 16 spilled 128x64x16 KN (12 B);
  // 16 steps at BLOCK_K = 32 spilled four KN tiles (12-28 B); 4 steps spilled nothing but ran 15-25 % slower
  // (64x64x16 KN at 4096^3: 3958 -> 4620 us, 1024^3 72 -> 85 us).
  static constexpr int kKUnroll = KUNROLL > 0 ? KUNROLL : ((TM * TN >= 64 || BK > 16) ? 8 : 16);
  static constexpr int kKGroups = BK / kKUnroll;
  static_assert(TM % 4 == 0 && TN % 4 == 0, "thread tile of 4x4 sub-blocks");
  static_assert(kLanesM * kLanesN == 32 && kLanesM * TM * WARPS_M == BM && kLanesN * TN * WARPS_N == BN,
                "warp and lane grids must cover the tile exactly");
  static_assert(BK % kKUnroll == 0 && STAGES >= 2, "BLOCK_K multiple of 8, at least 2 stages");
  static_assert(BM % 16 == 0 && BN % 16 == 0 && BM <= 128 && BN <= 128, "tile sides 16..128");

  // ---- global -> shared copy plan of one operand's k-tile: D (= BM or BN) x BK elements -> smem [BK][kPitch].
  // TRANS (the operand is K-contiguous, global X[d][k]): 4-byte copies; element e = tid + i * kThreads of the
  // tile sits at k = ((e / 32) % (BK / 8)) * 8 + e % 8, d = ((e / 32) / (BK / 8)) * 4 + (e / 8) % 4, i.e. a
  // warp instruction covers 4 d-rows x 8 k. !TRANS (global X[k][d]): 16-byte chunks, a thread keeps chunk
  // column tid % (D / 4) and steps down kThreads / (D / 4) k-rows per iteration. Either way iteration i is the
  // thread's first element moved by a compile-time (dk(i), dd(i)), so a thread keeps one running global
  // pointer per operand and its shared addresses are a base plus immediates.
  template <int D, bool TRANS>
  struct Operand {
    static constexpr bool kTrans = TRANS;
    // Floats per k-row in shared memory: padded by 4 for both layouts (one shared-memory size per tile; the pad
    // is what makes the transposing 4-byte writes conflict-free, and costs the 16-byte ones nothing but the
    // 4-chunk rows of D = 16, where two rows of a phase share banks 0-3).
    static constexpr int kPitch = D + 4;
    static constexpr int kFloats = BK * kPitch;          // per stage
    static constexpr int kKGroupsOf8 = BK / 8;
    static constexpr int kChunks = D / 4;                // 16-byte chunks per k-row (!TRANS)
    static constexpr int kRowsPerIter = TRANS ? 0 : kThreads / kChunks;
    static constexpr int kIters = TRANS ? D * BK / kThreads : BK * kChunks / kThreads;
    // Every thread has whole iterations (true of every tile the generator emits: the smallest copy, 16 x 16,
    // is 64 chunks or 256 elements, the largest CTA 256 threads only for 128x128 / 128x64 / 64x128).
    static_assert(TRANS ? D * BK % kThreads == 0 : BK * kChunks % kThreads == 0, "copy must divide evenly");
    __device__ __forceinline__ static int k_first(int tid) {
      return TRANS ? ((tid >> 5) % kKGroupsOf8) * 8 + (tid & 7) : tid / kChunks;
    }
    __device__ __forceinline__ static int d_first(int tid) {
      return TRANS ? ((tid >> 5) / kKGroupsOf8) * 4 + ((tid >> 3) & 3) : (tid % kChunks) * 4;
    }
    // Offsets of iteration i from the thread's first element (independent of the thread: the warp count and
    // BK / 8 are powers of two, one divides the other).
    __host__ __device__ static constexpr int dk(int i) {
      return TRANS ? (kWarps >= kKGroupsOf8 ? 0 : ((i * kWarps) % kKGroupsOf8) * 8) : i * kRowsPerIter;
    }
    __host__ __device__ static constexpr int dd(int i) {
      return TRANS ? (kWarps >= kKGroupsOf8 ? i * (kWarps / kKGroupsOf8) * 4 : ((i * kWarps) / kKGroupsOf8) * 4) : 0;
    }
    // The same offsets in global-memory terms: rows of ld (the non-contiguous dimension) and elements.
    __host__ __device__ static constexpr int grow(int i) { return TRANS ? dd(i) : dk(i); }
    __host__ __device__ static constexpr int gcol(int i) { return TRANS ? dk(i) : 0; }
    __host__ __device__ static constexpr int soff(int i) { return (dk(i) * kPitch + dd(i)) * 4; }  // bytes
  };
  using OpA = Operand<BM, A_K>;
  using OpB = Operand<BN, B_K>;
  static constexpr int kStageFloats = OpA::kFloats + OpB::kFloats;
  static constexpr int kStageBytes = kStageFloats * 4;
  static constexpr int kSmemBytes = STAGES * kStageBytes;
  static constexpr int kCopyIters = OpA::kIters + OpB::kIters;

  // Iteration I of operand Op's copy of one k-tile into the stage at shared address `stage`. `q` is the
  // thread's running global pointer (at iteration I's row), advanced here to the next iteration's row, and
  // after the last iteration to the first row of the next k-tile. full: the operand's tile is inside the
  // matrix (no predicates). Else d_at / k_at are the global (d, k) of the thread's first element of this
  // k-tile, d_lim / k_lim the extents; out-of-range elements are zero-filled from `x0`, the operand's base
  // pointer (a valid address: a src-size 0 cp.async reads nothing, but no address outside the tensor is formed).
  template <typename Op, int I>
  __device__ __forceinline__ static void copy_iter(unsigned stage, unsigned thread_soff, const float*& q, const float* x0,
                                                   long long ld, bool full, int d_at, int d_lim, int k_at, int k_lim) {
    constexpr bool kTrans = Op::kTrans;
    const unsigned dst = stage + thread_soff + Op::soff(I);
    if (full) {
      if constexpr (kTrans) cp_async_4(dst, q + Op::gcol(I), 4);
      else cp_async_16(dst, q, 16);
    } else if constexpr (kTrans) {
      const bool ok = d_at + Op::dd(I) < d_lim && k_at + Op::dk(I) < k_lim;
      cp_async_4(dst, ok ? q + Op::gcol(I) : x0, ok ? 4 : 0);
    } else {
      const int n = d_lim - d_at;
      const int bytes = k_at + Op::dk(I) < k_lim ? (n >= 4 ? 16 : (n > 0 ? n * 4 : 0)) : 0;
      cp_async_16(dst, bytes ? q : x0, bytes);
    }
    if constexpr (I + 1 < Op::kIters) {
      if constexpr (Op::grow(I + 1) != Op::grow(I)) q = ptr_add(q, (Op::grow(I + 1) - Op::grow(I)) * ld);
    } else {  // next k-tile: BK columns right of the first row (TRANS) or BK rows below it
      if constexpr (kTrans) q = ptr_add(q, BK - Op::grow(I) * ld);
      else q = ptr_add(q, (BK - Op::grow(I)) * ld);
    }
  }

  // One k-step's fragments: TM floats of A's k-row and TN of B's, one LDS.128 per 4x4 sub-block.
  __device__ __forceinline__ static void load_frags(float (&af)[TM], float (&bf)[TN], unsigned a_addr, unsigned b_addr) {
    static_for<0, TM / 4>([&](auto i) {
      float v[4];
      lds128(v, a_addr + decltype(i)::value * kLanesM * 16);
#pragma unroll
      for (int r = 0; r < 4; ++r) af[decltype(i)::value * 4 + r] = v[r];
    });
    static_for<0, TN / 4>([&](auto j) {
      float v[4];
      lds128(v, b_addr + decltype(j)::value * kLanesN * 16);
#pragma unroll
      for (int r = 0; r < 4; ++r) bf[decltype(j)::value * 4 + r] = v[r];
    });
  }
  __device__ __forceinline__ static void ffma_step(float (&acc)[TM][TN], const float (&af)[TM], const float (&bf)[TN]) {
#pragma unroll
    for (int i = 0; i < TM; ++i)
#pragma unroll
      for (int j = 0; j < TN; ++j) acc[i][j] = fmaf(af[i], bf[j], acc[i][j]);
  }

  __device__ __forceinline__ static void run(const Params& p) {
    extern __shared__ __align__(16) float smem[];
    const unsigned sbase = smem_u32(smem);

    const CtaUnit unit = cta_unit<BM, BN>(p, blockIdx.x, blockIdx.z);
    const int m0 = unit.m0, n0 = unit.n0;
    const long long k_begin = unit.split ? (long long)unit.slice * p.k_tiles_per_split * BK : 0;
    const int K = unit.split ? static_cast<int>(min((long long)p.K - k_begin, (long long)p.k_tiles_per_split * BK)) : p.K;
    const float* A = p.a + unit.batch * p.a_batch + (A_K ? k_begin : k_begin * p.lda);
    const float* B = p.b + unit.batch * p.b_batch + (B_K ? k_begin : k_begin * p.ldb);

    const int tid = threadIdx.x;
    const int k_tiles = (K + BK - 1) / BK;
    const int k_full_tiles = K / BK;
    const bool a_mn_full = m0 + BM <= p.M;
    const bool b_mn_full = n0 + BN <= p.N;

    // Copy state: the thread's first element of each operand tile, its running global pointer, its shared
    // offset inside a stage.
    const int a_k = OpA::k_first(tid), a_d = OpA::d_first(tid);
    const int b_k = OpB::k_first(tid), b_d = OpB::d_first(tid);
    const float* a_q = A_K ? A + (long long)(m0 + a_d) * p.lda + a_k : A + (long long)a_k * p.lda + m0 + a_d;
    const float* b_q = B_K ? B + (long long)(n0 + b_d) * p.ldb + b_k : B + (long long)b_k * p.ldb + n0 + b_d;
    const unsigned a_soff = (a_k * OpA::kPitch + a_d) * 4;
    const unsigned b_soff = OpA::kFloats * 4 + (b_k * OpB::kPitch + b_d) * 4;  // B follows A in a stage

    // Copy iterations [J0, J1) of k-tile kt (A's iterations first, then B's) into the stage at `stage`. The
    // predicated copy's element coordinates are recomputed from a fresh read of %tid.x: derived from `tid` they
    // are loop-invariant, NVVM hoists them and their comparisons out of the k-loop, and the 8x8 tiles spilled
    // (ptxas: 128x128x16 KN 112 B with a 4-byte A copy of 8 iterations per thread).
    auto copy_range = [&](auto j0_c, auto j1_c, unsigned stage, int kt, bool a_full, bool b_full) {
      constexpr int J0 = decltype(j0_c)::value, J1 = decltype(j1_c)::value;
      constexpr bool kAnyA = J0 < OpA::kIters, kAnyB = J1 > OpA::kIters;
      const int k0 = kt * BK;
      int a_dat = 0, a_kat = 0, b_dat = 0, b_kat = 0;
      if ((kAnyA && !a_full) || (kAnyB && !b_full)) {
        const int t = tid_x();
        a_dat = m0 + OpA::d_first(t);
        a_kat = k0 + OpA::k_first(t);
        b_dat = n0 + OpB::d_first(t);
        b_kat = k0 + OpB::k_first(t);
      }
      static_for<J0, J1>([&](auto j) {
        constexpr int J = decltype(j)::value;
        if constexpr (J < OpA::kIters) {
          copy_iter<OpA, J>(stage, a_soff, a_q, p.a, p.lda, a_full, a_dat, p.M, a_kat, K);
        } else {
          constexpr int JB = J - OpA::kIters;
          copy_iter<OpB, JB>(stage, b_soff, b_q, p.b, p.ldb, b_full, b_dat, p.N, b_kat, K);
        }
      });
    };

    float acc[TM][TN];
#pragma unroll
    for (int i = 0; i < TM; ++i)
#pragma unroll
      for (int j = 0; j < TN; ++j) acc[i][j] = 0.f;

    // Programmatic dependent launch (pdl.hpp): the set-up above overlapped the previous kernel; wait for it
    // before the first global access. The explicit trigger only where the host allows it (mma_sync's rule).
    pdl_wait_for_prior_grids();
    if (p.pdl_early_trigger) pdl_launch_dependents();

    // Prologue: STAGES-1 tiles in flight; a (possibly empty) group per tile so wait_group counts tiles.
    // A runtime loop: it runs once per CTA, and the copy code then appears once.
#pragma unroll 1
    for (int s = 0; s < STAGES - 1; ++s) {
      if (s < k_tiles) {
        const bool k_full = s < k_full_tiles;
        copy_range(std::integral_constant<int, 0>(), std::integral_constant<int, kCopyIters>(),
                   sbase + s * kStageBytes, s, a_mn_full && k_full, b_mn_full && k_full);
      }
      cp_async_commit();
    }
    cp_async_wait<STAGES - 2>();
    __syncthreads();

    // The thread's place in the tile: lane (lane_m, lane_n) of warp (warp_m, warp_n); its A sub-block i
    // starts at row warp_m0 + i * kLanesM * 4 + lane_m * 4, its B sub-block j at column warp_n0 + j *
    // kLanesN * 4 + lane_n * 4.
    const int lane = tid & 31, warp = tid >> 5;
    const unsigned a_lane = ((warp / WARPS_N) * kWarpTileM + (lane / kLanesN) * 4) * 4;
    const unsigned b_lane = OpA::kFloats * 4 + ((warp % WARPS_N) * kWarpTileN + (lane % kLanesN) * 4) * 4;

    constexpr int kFragSets = DOUBLE_FRAGS ? 2 : 1;
    float af[kFragSets][TM], bf[kFragSets][TN];
    unsigned rd = sbase;                                  // stage being read
    unsigned wr = sbase + (STAGES - 1) * kStageBytes;     // stage being written
    constexpr unsigned kRingEnd = STAGES * kStageBytes;
    int kt_load = STAGES - 1;
    unsigned a_rd = rd + a_lane, b_rd = rd + b_lane;      // k-step 0 of the current group
    if constexpr (DOUBLE_FRAGS) load_frags(af[0], bf[0], a_rd, b_rd);

    // One k-tile. kSteadyA / kSteadyB: the tile being loaded (kt_load) exists and has no K edge, and A's (B's)
    // tile is inside M (N): that operand is copied without predicates. Both: the interior CTAs; one: the CTAs
    // at one edge (at decode, M < BLOCK_M, every CTA). The general form checks whether there is a tile to
    // load and which of its elements are inside the matrix. (One loop with a runtime choice kept the
    // predicated copy's values live in the steady state, and 128x128x16 KN spilled 36 B.)
    int kt = 0;
    auto k_tile = [&](auto steady_a_tag, auto steady_b_tag) {
      constexpr bool kSteadyA = decltype(steady_a_tag)::value, kSteadyB = decltype(steady_b_tag)::value;
      constexpr bool kSteady = kSteadyA || kSteadyB;
      const bool load_now = kSteady || kt_load < k_tiles;
      const bool k_full = kt_load < k_full_tiles;
      const bool a_full = kSteadyA || (!kSteady && a_mn_full && k_full);
      const bool b_full = kSteadyB || (!kSteady && b_mn_full && k_full);
      // Advance the ring: commit this tile's copy group, wait for tile kt+1, and pass the barrier after which
      // no warp reads stage kt again (its last k-step is in registers) and tile kt+1 is visible.
      auto next_tile = [&]() {
        cp_async_commit();
        ++kt_load;
        wr = wr + kStageBytes == sbase + kRingEnd ? sbase : wr + kStageBytes;
        rd = rd + kStageBytes == sbase + kRingEnd ? sbase : rd + kStageBytes;
        cp_async_wait<STAGES - 2>();
        __syncthreads();
        a_rd = rd + a_lane;
        b_rd = rd + b_lane;
      };
#pragma unroll 1
      for (int g = 0; g < kKGroups; ++g) {
        static_for<0, kKUnroll>([&](auto ki_c) {
          constexpr int ki = decltype(ki_c)::value;
          // This k-step's share of the copy of tile kt_load (spread over the first group's steps).
          if (g == 0 && load_now)
            copy_range(std::integral_constant<int, ki * kCopyIters / kKUnroll>(),
                       std::integral_constant<int, (ki + 1) * kCopyIters / kKUnroll>(), wr, kt_load, a_full, b_full);
          if constexpr (!DOUBLE_FRAGS) {
            // One fragment set: this step's LDS right before its FFMAs (the other warps of the SM sub-partition
            // hide their latency).
            load_frags(af[0], bf[0], a_rd + ki * OpA::kPitch * 4, b_rd + ki * OpB::kPitch * 4);
            ffma_step(acc, af[0], bf[0]);
            if constexpr (ki + 1 == kKUnroll) {
              if (g + 1 < kKGroups) {
                a_rd += kKUnroll * OpA::kPitch * 4;
                b_rd += kKUnroll * OpB::kPitch * 4;
              } else {
                next_tile();
              }
            }
          } else {
            // Two fragment sets: the LDS of the next step before this step's FFMAs.
            if constexpr (ki + 1 < kKUnroll) {
              load_frags(af[(ki + 1) & 1], bf[(ki + 1) & 1], a_rd + (ki + 1) * OpA::kPitch * 4,
                         b_rd + (ki + 1) * OpB::kPitch * 4);
            } else {
              if (g + 1 < kKGroups) {
                a_rd += kKUnroll * OpA::kPitch * 4;
                b_rd += kKUnroll * OpB::kPitch * 4;
              } else {
                next_tile();
              }
              // After the last k-tile this reads a stage nobody writes any more; the values are unused.
              load_frags(af[0], bf[0], a_rd, b_rd);
            }
            ffma_step(acc, af[ki & 1], bf[ki & 1]);
          }
        });
      }
    };
    const int kt_steady = k_full_tiles - (STAGES - 1);  // k-tiles whose kt_load < k_full_tiles
    if (a_mn_full && b_mn_full) {
#pragma unroll 1
      for (; kt < kt_steady; ++kt) k_tile(std::true_type(), std::true_type());
    } else if (b_mn_full) {
#pragma unroll 1
      for (; kt < kt_steady; ++kt) k_tile(std::false_type(), std::true_type());
    } else if (a_mn_full) {
#pragma unroll 1
      for (; kt < kt_steady; ++kt) k_tile(std::true_type(), std::false_type());
    }
#pragma unroll 1
    for (; kt < k_tiles; ++kt) k_tile(std::false_type(), std::false_type());
    cp_async_wait<0>();  // only empty groups can be pending; nothing may be in flight at exit

    // ---- epilogue, straight from the accumulators ----
    const CtaUnit eu = cta_unit<BM, BN>(p, ctaid_x(), ctaid_z());
    const int etid = tid_x();
    const int elane = etid & 31, ewarp = etid >> 5;
    const int row0 = (ewarp / WARPS_N) * kWarpTileM + (elane / kLanesN) * 4;  // tile-local
    const int col0 = (ewarp % WARPS_N) * kWarpTileN + (elane % kLanesN) * 4;
    if (eu.split) {
      // fp32 partial tile, tile-local rows of BN; float4 per thread row (the LANES_N lanes of a row write
      // LANES_N * 16 contiguous bytes). Rows past M are not written (the reduction never reads them); a
      // chunk that starts inside N is written whole (inside the tile's slot).
      float* W = p.ws + static_cast<long long>(ctaid_x() - p.dp_tiles) * (BM * BN);
#pragma unroll
      for (int i = 0; i < TM; ++i) {
        const int row = row0 + (i / 4) * kLanesM * 4 + (i % 4);
        if (eu.m0 + row >= p.M) continue;
#pragma unroll
        for (int j = 0; j < TN / 4; ++j) {
          const int col = col0 + j * kLanesN * 4;
          if (eu.n0 + col < p.N)
            *reinterpret_cast<float4*>(W + row * BN + col) =
                make_float4(acc[i][4 * j], acc[i][4 * j + 1], acc[i][4 * j + 2], acc[i][4 * j + 3]);
        }
      }
      return;
    }
    if (p.bias != nullptr) {
      // Fused bias: column n of every row gets bias[n] (fp32, the output type: no rounding step to add).
#pragma unroll
      for (int j = 0; j < TN; ++j) {
        const int gn = eu.n0 + col0 + (j / 4) * kLanesN * 4 + (j % 4);
        const float bv = gn < p.N ? p.bias[gn] : 0.f;
#pragma unroll
        for (int i = 0; i < TM; ++i) acc[i][j] += bv;
      }
    }
    float* C = p.c + eu.batch * p.c_batch;
    const bool vec_ok = (p.ldc & 3) == 0 && (reinterpret_cast<uintptr_t>(C) & 15) == 0;
#pragma unroll
    for (int i = 0; i < TM; ++i) {
      const int gm = eu.m0 + row0 + (i / 4) * kLanesM * 4 + (i % 4);
      if (gm >= p.M) continue;
      float* crow = C + (long long)gm * p.ldc;
#pragma unroll
      for (int j = 0; j < TN / 4; ++j) {
        const int gn = eu.n0 + col0 + j * kLanesN * 4;
        if (vec_ok && gn + 4 <= p.N) {
          *reinterpret_cast<float4*>(crow + gn) = make_float4(acc[i][4 * j], acc[i][4 * j + 1], acc[i][4 * j + 2], acc[i][4 * j + 3]);
        } else {
#pragma unroll
          for (int c = 0; c < 4; ++c)
            if (gn + c < p.N) crow[gn + c] = acc[i][4 * j + c];
        }
      }
    }
  }
};

// Host-side launch shared by every specialisation: the Params of the CTA units and their grid, as mma_sync's
// (cta_unit.cuh plan_cta_units, launch_cta_units). `kernel` is the extern "C" wrapper.
template <typename K>
inline cudaError_t launch(void (*kernel)(Params), const GemmArgs& g, int block_m, int block_n) {
  if (g.M <= 0 || g.N <= 0 || g.batch <= 0) return cudaSuccess;
  Params p;
  SplitPlan sp;
  cudaError_t e = plan_cta_units(g, block_m, block_n, K::kBlockK, 1, p, sp);
  if (e != cudaSuccess) return e;
  p.a = static_cast<const float*>(g.a);
  p.b = static_cast<const float*>(g.b);
  p.c = static_cast<float*>(g.c);
  p.bias = static_cast<const float*>(g.bias);  // whole tiles add it here; for split tiles the reduction does
  return launch_cta_units<K>(kernel, p, g, sp);
}

}  // namespace simt
}  // namespace origami
