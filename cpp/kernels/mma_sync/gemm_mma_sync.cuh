// The mma.sync GEMM kernel family (sm_80+): one CTA computes a BLOCK_M x BLOCK_N tile of C[b] = A[b] * B[b]
// with tensor-core mma.sync.m16n8k16 (fp16/bf16 in, fp32 accumulate), fed by a STAGES-deep cp.async
// shared-memory ring, ldmatrix fragment loads (.trans for the operand layouts that are not K-contiguous
// in shared memory) and an XOR swizzle on 16-byte chunks (bank-conflict free for both cp.async stores
// and ldmatrix reads). The main loop follows CUTLASS's sm80 multistage structure: fragments double-
// buffered in registers (the ldmatrix of the next k-step, across the k-tile boundary too, is issued
// before this k-step's mma), the next stage's cp.async spread over the k-steps, per-thread running copy
// pointers, and a predicate-free steady-state loop for CTAs away from the M/N edges. The epilogue
// converts fp32 -> dtype, stages the tile through shared memory and writes coalesced 16-byte stores.
// Tile order follows Triton's GROUP_SIZE_M raster (the order the Origami model's L2 term assumes);
// group_size_m is a launch argument.
//
// TF32 (T = float: fp32 A, B and C, TF32 tensor-core math with fp32 accumulation, mma.sync.m16n8k8.tf32; the
// sm_80 form of the wgmma family's tf32 kernels): K-contiguous A and B only. A K-contiguous fp32 row of K elements
// is moved exactly as a 16-bit row of 2K elements would be: same 16-byte chunks, swizzle and ldmatrix (non-trans)
// addresses, and the registers an ldmatrix.x4 gives a lane for a 16-wide k-step of m16n8k16 are, byte for byte,
// the A and B fragments of m16n8k8.tf32 (PTX ISA, fragment layouts: lane (g, t) holds row g, bytes 4t..4t+3 of each
// 16-byte half of the 32-byte k-slab, for both shapes). So the copy and fragment code is the 16-bit code on 16-bit
// units (E below; the launcher doubles K, the leading dimensions and the batch strides), each fragment register is
// rounded to TF32 (cvt.rna: round to nearest, as the wgmma tf32 kernels' loads and cuBLAS do; the tensor core would
// otherwise truncate the low 13 bits) and the epilogue stores fp32. There is no transposing ldmatrix for 32-bit
// elements, hence no M- or N-contiguous variant: the op copies such an operand into the K-contiguous layout, as it
// does for the wgmma tf32 kernels.
//
// Edges: any M, N, K >= 1. Loads past M/N/K are zero-filled with the cp.async src-size operand (a
// partial 16-byte chunk at the K edge reads only its valid bytes); stores are guarded.
//
// Alignment contract (what the op must guarantee, KernelEntry::alignment_elems):
//  * REALIGN = false (alignment_elems = 8): 16-byte aligned A and B base pointers, leading dimensions and
//    batch strides that are multiples of 8 elements, so every 16-byte chunk that starts inside the matrix
//    starts on a 16-byte boundary (one cp.async each).
//  * REALIGN = true (alignment_elems = 1; the `_ra` kernels): A and B base pointers, leading dimensions and
//    batch strides any multiple of one element (2 bytes): an odd leading dimension (B = 4099 x 4097
//    row-major), a slice a[:, 1:]. Each operand chunk is read with ld.global.nc as the (at most two)
//    16-byte-aligned blocks of global memory that hold it, realigned in registers (realign.cuh) and stored
//    with one st.shared.v4 where cp.async would have written it; no cp.async is issued. An aligned block
//    is read only when it holds an element the chunk takes (a whole aligned 16-byte block that contains a
//    byte of the operand never leaves the allocation's pages), so there is no guard beyond the edge test:
//    a chunk that crosses the M/N/K edge keeps its valid elements and zero-fills the rest, rows past the
//    edge are zeros (the semantics of cp.async's src-size fill). Bias (read element by element) and C
//    (allocated by the op, stored with 16-byte or element stores by ldc) are as in the aligned kernels.
#pragma once
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

#include "../cp_async.cuh"
#include "../cta_unit.cuh"
#include "../gemm_args.hpp"
#include "../pdl.hpp"
#include "../realign.cuh"

namespace origami {
namespace mma_sync {

// Kernel arguments (cta_unit.cuh CtaParams): the operands and C untyped here, typed per specialisation (T).
using Params = CtaParams<void, void>;

// ---- PTX wrappers ------------------------------------------------------------------------------
// (smem_u32 and the cp.async wrappers: ../cp_async.cuh)
// REALIGN path: one 16-byte block of global memory through the non-coherent (read-only) path, and one 16-byte
// shared-memory store. ld.global.nc: the operands are not written while the kernel runs (the PDL wait precedes
// the first load), and it cannot alias st.shared, so the compiler may issue a group's loads before its stores.
__device__ __forceinline__ uint4 ldg_block(const uint4* p) { return __ldg(p); }
__device__ __forceinline__ void st_shared_16(unsigned dst, const uint4 v) {
  asm volatile("st.shared.v4.u32 [%0], {%1, %2, %3, %4};\n" ::"r"(dst), "r"(v.x), "r"(v.y), "r"(v.z), "r"(v.w));
}
template <bool TRANS>
__device__ __forceinline__ void ldmatrix_x4(unsigned (&r)[4], unsigned addr) {
  if constexpr (TRANS) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(addr));
  } else {
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(addr));
  }
}

// One 32-byte k-slab of the warp's 16x8 output: m16n8k16 for a 16-bit type, m16n8k8.tf32 for T = float (the same
// fragment registers, already rounded to TF32 by to_tf32).
template <typename T>
__device__ __forceinline__ void mma_16816(float (&d)[4], const unsigned (&a)[4], const unsigned (&b)[2]) {
  if constexpr (std::is_same<T, float>::value) {
    asm volatile(
        "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
        "{%0,%1,%2,%3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
  } else if constexpr (std::is_same<T, __half>::value) {
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
        "{%0,%1,%2,%3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
  } else {
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
        "{%0,%1,%2,%3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
  }
}

// fp32 -> TF32, round to nearest (ties away from zero), in an fp32 register's bit pattern. Why cvt.rna, measured on
// the H100 at 4096^3 x @ w.t() with 128x256x32 (probe_tf32_round_modes.py, probes/probe_tf32_round_modes_h100.txt,
// the three other forms built in place of this one for that run): cvt.rna 833 us; the same rounding in integer
// arithmetic (add half a TF32 ulp, clear the low 13 bits, Inf and NaN left as they are) 987 us, without the clear
// (the tensor core ignores those bits) 931 us; no rounding 667 us but 2.65x the error (the tensor core truncates).
__device__ __forceinline__ unsigned to_tf32(unsigned x) {
  unsigned r;
  asm("cvt.rna.tf32.f32 %0, %1;\n" : "=r"(r) : "f"(__uint_as_float(x)));
  return r;
}

template <typename T> __device__ __forceinline__ float to_float(T v);
template <> __device__ __forceinline__ float to_float<float>(float v) { return v; }
template <> __device__ __forceinline__ float to_float<__half>(__half v) { return __half2float(v); }
template <> __device__ __forceinline__ float to_float<__nv_bfloat16>(__nv_bfloat16 v) { return __bfloat162float(v); }

template <typename T> __device__ __forceinline__ unsigned pack2(float x, float y);
template <> __device__ __forceinline__ unsigned pack2<__half>(float x, float y) {
  __half2 h = __floats2half2_rn(x, y);
  return *reinterpret_cast<unsigned*>(&h);
}
template <> __device__ __forceinline__ unsigned pack2<__nv_bfloat16>(float x, float y) {
  __nv_bfloat162 h = __floats2bfloat162_rn(x, y);
  return *reinterpret_cast<unsigned*>(&h);
}
// Two adjacent outputs (x, y) into the epilogue's staging tile, rounded once to T.
template <typename T>
__device__ __forceinline__ void store_pair(T* dst, float x, float y) {
  if constexpr (std::is_same<T, float>::value) *reinterpret_cast<float2*>(dst) = make_float2(x, y);
  else *reinterpret_cast<unsigned*>(dst) = pack2<T>(x, y);
}

// Compile-time loop: f(std::integral_constant<int, I>) for I in [BEGIN, END). Used where the index must be
// a constant expression (fragment buffer parity, copy ranges): a `#pragma unroll` loop that contains
// other loops is not always unrolled by NVVM, and a runtime index into a fragment array goes to local memory.
template <int BEGIN, int END, typename F>
__device__ __forceinline__ void static_for(F&& f) {
  if constexpr (BEGIN < END) {
    f(std::integral_constant<int, BEGIN>());
    static_for<BEGIN + 1, END>(f);
  }
}

// ---- shared-memory tile: ROWS rows of COLS contiguous 16-bit elements, XOR-swizzled 16 B chunks ----
// Physical chunk = logical chunk ^ f(row). With R = COLS/8 chunks per row, f makes the 8 rows an
// 8x8 ldmatrix (or 8 lanes of a cp.async phase) touch land in 8 different 16-byte bank groups:
//   R >= 8: f = row % 8            (rows are >= 128 B: every row starts at bank group 0)
//   R <  8: f = (row / (8/R)) % R  (8/R consecutive rows share a 128 B line; the XOR separates the lines)
template <int ROWS, int COLS>
struct SwizzledTile {
  static constexpr int kChunks = COLS / 8;  // 16-byte chunks per row
  static constexpr int kRows = ROWS;
  static_assert(COLS % 16 == 0 && (kChunks & (kChunks - 1)) == 0, "row length must be a power-of-two number of chunks");
  static constexpr int kElems = ROWS * COLS;
  __device__ __forceinline__ static int offset(int row, int chunk) {  // in elements
    int f = kChunks >= 8 ? (row & 7) : ((row / (8 / kChunks)) & (kChunks - 1));
    return row * COLS + ((chunk ^ f) << 3);
  }
};

// ---- the kernel body ----------------------------------------------------------------------------
// A_K: A is K-contiguous (row-major M x K); else M-contiguous. B_K: B is K-contiguous (N x K storage,
// i.e. column-major K x N); else N-contiguous (row-major K x N).
// DOUBLE_FRAGS: two fragment register sets (ldmatrix of k-step s+1 overlaps the mma of k-step s); off,
// one set (loaded right before its mma), for tiles whose register budget has no room for the second.
// REALIGN: operands whose rows are only 2-byte aligned, read in place through registers (the header's
// alignment contract; the copy plan below, "REALIGN").
template <typename T, int BM, int BN, int BK, int STAGES, int WARPS_M, int WARPS_N, bool A_K, bool B_K,
          bool DOUBLE_FRAGS = true, bool REALIGN = false>
struct Kernel {
  // TF32 (the header): T = float. E is the 16-bit unit the copy and the fragment loads move (BK, and the K, leading
  // dimensions and batch strides of Params, count E); kUnits of them make one element of T.
  static constexpr bool kTf32 = std::is_same<T, float>::value;
  using E = std::conditional_t<kTf32, unsigned short, T>;
  static constexpr int kUnits = static_cast<int>(sizeof(T) / sizeof(E));
  static_assert(!kTf32 || (A_K && B_K && !REALIGN), "TF32: K-contiguous A and B, 16-byte aligned (no ldmatrix.trans "
                                                    "for 32-bit elements; no realigning form)");
  static constexpr int kWarps = WARPS_M * WARPS_N;
  static constexpr int kThreads = 32 * kWarps;
  static constexpr int kWarpTileM = BM / WARPS_M;
  static constexpr int kWarpTileN = BN / WARPS_N;
  static constexpr int kMi = kWarpTileM / 16;  // m16 fragments per warp
  static constexpr int kNi = kWarpTileN / 8;   // n8 fragments per warp
  static_assert(kWarpTileM % 16 == 0 && kWarpTileN % 16 == 0, "warp tile must be a multiple of 16x16");
  static_assert(BK % 16 == 0 && STAGES >= 2, "BLOCK_K multiple of 16, at least 2 stages");

  // Shared-memory geometry per operand: the contiguous global dimension is the contiguous smem one,
  // so a 16-byte global chunk is one 16-byte cp.async.
  using TileA = SwizzledTile<A_K ? BM : BK, A_K ? BK : BM>;
  using TileB = SwizzledTile<B_K ? BN : BK, B_K ? BK : BN>;
  static constexpr int kStageElems = TileA::kElems + TileB::kElems;
  static constexpr int kPipelineBytes = STAGES * kStageElems * 2;
  // Epilogue staging: BM rows of BN + 8 elements (the 16-byte pad makes the fragment stores
  // conflict-free: row stride = BN/2 + 4 words, so the 8 rows a store instruction touches hit 8 bank quads).
  // fp32 (TF32) C: BN + 8 floats, a 32-byte pad: a float2 store instruction's 8 rows then fill two 128-byte
  // wavefronts (rows 0-3, 4-7) without a conflict.
  static constexpr int kEpiPitch = BN + 8;
  static constexpr int kEpilogueBytes = BM * kEpiPitch * static_cast<int>(sizeof(T));
  static constexpr int kSmemBytes = kPipelineBytes > kEpilogueBytes ? kPipelineBytes : kEpilogueBytes;

  static constexpr int kBlockK = BK / kUnits;  // in elements of T (the split plan's unit)
  static constexpr int kKSteps = BK / 16;  // 16-wide mma k-steps per k-tile
  // The k-steps of a k-tile run in kStepGroups groups of kStepsUnrolled compile-time-unrolled steps:
  // up to 4 per group, 2 for 64x64 warp tiles (128 accumulators + two fragment sets leave ~60
  // registers: with 4 unrolled steps ptxas spilled 128x256x64 and 256x128x64, with 8 the BLOCK_K = 128
  // ones); fully unrolled long k-tiles (BLOCK_K >= 256) kept every step's ldmatrix offsets and every
  // copy iteration's address live across the k-loop and spilled the 1-warp tiles (ptxas -v).
  static constexpr int kStepsUnrolled = kMi * kNi >= 32 ? (kKSteps < 2 ? kKSteps : 2) : (kKSteps < 4 ? kKSteps : 4);
  static constexpr int kStepGroups = kKSteps / kStepsUnrolled;

  // ---- global -> shared copy plan of one operand tile (Tile::kRows rows of Tile::kChunks 16-byte chunks) --
  // Chunk idx = tid + i * kThreads of the tile goes to (row, chunk) = (idx / kChunks, idx % kChunks). Both
  // counts are powers of two, so either a thread keeps one chunk column and steps down kThreads / kChunks
  // rows per iteration ("wide": kThreads >= kChunks), or a row takes kChunks / kThreads iterations. Either
  // way iteration i is the thread's first chunk (r0, c0) moved by a compile-time (drow(i), dchunk(i)):
  // the global address is one base pointer per operand (advanced by one k-tile per stage) plus
  // drow(i) * ld + dchunk(i) * 8, with no per-chunk index math.
  template <typename Tile>
  struct Copy {
    static constexpr int kRows = Tile::kRows;
    static constexpr int kChunks = Tile::kChunks;
    static constexpr int kTotal = kRows * kChunks;
    static constexpr bool kWide = kThreads >= kChunks;
    static constexpr int kRowsPerIter = kWide ? kThreads / kChunks : 1;
    static constexpr int kItersPerRow = kWide ? 1 : kChunks / kThreads;
    static constexpr int kIters = (kTotal + kThreads - 1) / kThreads;
    static constexpr bool kPartial = kTotal < kThreads;  // one iteration, some threads idle
    // Rows a thread's running pointer moves over one whole tile (more than kRows when kPartial).
    static constexpr int kRowsAdvanced = kWide ? kIters * kRowsPerIter : kRows;
    __device__ __forceinline__ static constexpr int drow(int i) { return kWide ? i * kRowsPerIter : i / kItersPerRow; }
    __device__ __forceinline__ static constexpr int dchunk(int i) { return kWide ? 0 : (i % kItersPerRow) * kThreads; }
    __device__ __forceinline__ static int r0(int tid) { return kWide ? tid / kChunks : 0; }
    __device__ __forceinline__ static int c0(int tid) { return kWide ? tid % kChunks : tid; }
  };
  using CopyA = Copy<TileA>;
  using CopyB = Copy<TileB>;
  static constexpr int kCopyIters = CopyA::kIters + CopyB::kIters;

  // Iteration i of a tile none of whose chunks crosses an edge: 16 bytes from `src`, the running
  // address of the thread's current row, advanced here by whole rows once the row is done (a running
  // pointer rather than base + drow(i) * ld: the 64-bit offsets drow(i) * ld are loop-invariant, and
  // the compiler kept one register pair per copy iteration live across the k-loop; ptxas -v).
  template <typename C, typename Tile>
  __device__ __forceinline__ static void copy_full(unsigned stage_smem, const E*& src, long long ld, int r0, int c0,
                                                   int i) {
    if (!C::kPartial || r0 < C::kRows)
      cp_async_16(stage_smem + Tile::offset(r0 + C::drow(i), c0 + C::dchunk(i)) * 2, src + C::dchunk(i) * 8, 16);
    advance<C>(src, ld, i);
  }
  // Iteration i of a K-contiguous tile at the M (N) edge whose chunks all lie inside K: a chunk of a row inside
  // the matrix is one full cp.async (as copy_full), a chunk of a row past the edge is not copied at all. Those
  // rows of the stage keep what they held (zeros of the prologue's fill, an earlier k-tile's, or nothing yet):
  // row r of an mma's D depends on row r of A alone (B: column), and rows (columns) past the edge are never
  // stored, so their contents cannot reach C. At decode (M = 1 with 16-row tiles) this leaves 1 row of 16 to
  // copy, where the predicated copy_edge issued all 16 with its per-chunk index math (kernel change 11): the
  // re-timed decode and small-M launches of both GPUs ran a median 1.04-1.07x faster, BLOCK_K >= 128 1.05-1.16x
  // (benchmarks/results/probes/kernel_change_11_speedup.txt; H100 one-warp 16x16x512 at 1x3584x14336: 4490 -> 3890
  // cycles per k-tile).
  template <typename C, typename Tile>
  __device__ __forceinline__ static void copy_rows(unsigned stage_smem, const E*& src, long long ld, int r0, int c0,
                                                   int i, int rows_valid) {
    const int row = r0 + C::drow(i);
    if ((!C::kPartial || r0 < C::kRows) && row < rows_valid)
      cp_async_16(stage_smem + Tile::offset(row, c0 + C::dchunk(i)) * 2, src + C::dchunk(i) * 8, 16);
    advance<C>(src, ld, i);
  }
  template <typename C>
  __device__ __forceinline__ static void advance(const E*& src, long long ld, int i) {
    if (C::kWide || i % C::kItersPerRow == C::kItersPerRow - 1) src += C::kRowsPerIter * ld;
  }
  // Iteration i of an edge tile: rows past row_limit and the part of a chunk past col_limit are
  // zero-filled (src-size operand); the source address stays inside the matrix.
  template <typename C, typename Tile>
  __device__ __forceinline__ static void copy_edge(unsigned stage_smem, const E*& src_run, const E* g, long long ld,
                                                   int row_origin, int row_limit, int col_origin, int col_limit,
                                                   int r0, int c0, int i) {
    advance<C>(src_run, ld, i);  // keep the running pointer in step with copy_full
    const int row = r0 + C::drow(i);
    const int chunk = c0 + C::dchunk(i);
    if (C::kPartial && row >= C::kRows) return;
    const int grow = row_origin + row;
    const int gcol = col_origin + chunk * 8;
    int bytes = 0;
    const E* src = g;  // a valid address even when nothing is read
    if (grow < row_limit && gcol < col_limit) {
      const int valid = col_limit - gcol;
      bytes = valid >= 8 ? 16 : valid * 2;
      src = g + (long long)grow * ld + gcol;
    }
    cp_async_16(stage_smem + Tile::offset(row, chunk) * 2, src, bytes);
  }

  // ---- REALIGN: the copy through registers ----
  // A chunk cannot be one cp.async when its global address is not 16-byte aligned (cp.async of 16 bytes needs
  // 16-byte aligned source and destination, and the smaller sizes need their own alignment: a 2-byte aligned
  // row has none). So a thread loads the aligned 16-byte blocks that hold the chunk into registers (Staged),
  // and stores the realigned chunk to the same swizzled place later: the loads of a group of chunks are all
  // issued before the group's first store (a store waits for its loads), and the stores come after the
  // group's k-steps of mma (k_tile), so the load latency can overlap the other loads and tensor-core work.
  // No cp.async is issued; the ring's commit/wait bookkeeping then counts empty groups (a no-op), and the
  // stores are made visible by the same __syncthreads that publishes a cp.async stage.
  //
  // Grouping: a chunk holds 2 x 16 bytes of loads in registers from its loads to its store. A k-tile's
  // kCopyIters chunks form kRealignGroups groups of at most kRealignGroupMax; group q is loaded at k-step
  // q * kRealignSpan and stored after the mma of its last k-step, (q + 1) * kRealignSpan - 1.
  // ptxas schedules the straight-line k-tile itself (ld.global.nc aliases none of the st.shared, ldmatrix and
  // mma around it). What it makes of it (SASS, nvcc 13.0, sm_90, steady loop): with one group (8 chunks:
  // 16x16x64, 64x64x64) every load of the k-tile at its top and the stores after its barrier, the k-tile's mma
  // in between; with two groups, group 0's stores right after its loads (the warp waits there for them), then
  // group 1's loads, the mma, the barrier and group 1's stores: two round trips per k-tile, the second under the
  // mma. (Making the stores depend on an mma result moved them by one or two HMMAs, no more.)
  // The register budget (ptxas -v): up to kRealignMaxChunks chunks per thread per k-tile the REALIGN kernels fit
  // in 255 registers without spilling (178-254); the 20-chunk one-warp 16x64x64 and 64x16x64 and the 18-chunk
  // 16x128x64 spilled 8-432 B, also with the groups chained (each group's addresses made to depend on the
  // previous group's data, so that at most two were in flight) and with 4-5 chunk groups. So the generator gives
  // REALIGN variants only to tiles within it (families/mma_sync.py).
  // A group's store may come after the barrier that ends its k-tile (the last k-step calls next_tile before
  // its mma): the stage it writes is read STAGES - 1 tiles later, after at least one more barrier when
  // STAGES >= 3, and it is not the stage the next tile reads.
  static constexpr int kRealignMaxChunks = 16;
  static constexpr int kRealignGroupMax = 8;
  static constexpr int kRealignGroups = (kCopyIters + kRealignGroupMax - 1) / kRealignGroupMax;
  static constexpr int kRealignChunks = (kCopyIters + kRealignGroups - 1) / kRealignGroups;  // per group, at most
  static constexpr int kRealignSpan =  // (1 where it would be 0: only for tiles without REALIGN, see the assert)
      kRealignGroups <= kStepsUnrolled ? kStepsUnrolled / kRealignGroups : 1;
  static_assert(!REALIGN || STAGES >= 3, "REALIGN stores the last copy group after the k-tile's barrier");
  static_assert(!REALIGN || kCopyIters <= kRealignMaxChunks, "REALIGN: more copy chunks per thread than registers");
  static_assert(!REALIGN || (kStepGroups == 1 && kRealignGroups <= kStepsUnrolled),
                "REALIGN spreads its copy groups over the k-steps of one unrolled group");
  template <int Q>
  struct RealignGroup {  // iterations [kJ0, kJ1) of a k-tile's copy (A's first, then B's)
    static constexpr int kJ0 = Q * kCopyIters / kRealignGroups;
    static constexpr int kJ1 = (Q + 1) * kCopyIters / kRealignGroups;
    static_assert(kJ1 - kJ0 <= kRealignChunks, "a group holds at most kRealignChunks chunks");
  };

  struct Staged {
    uint4 lo, hi;  // the aligned 16-byte blocks of global memory that hold the chunk (zeros where not read)
    unsigned dst;  // shared-memory byte address of the chunk (swizzled: where cp.async would write it)
    int off;       // byte offset of the chunk's first element in lo (even)
    int valid;     // elements of the chunk inside the matrix, 0..8; -1: no chunk (an idle thread of a partial tile)
  };
  // Load the blocks holding `valid` elements from src (none when valid <= 0). The second block is read only
  // when the valid elements reach into it, so every block read holds an element of the operand.
  __device__ __forceinline__ static void realign_load(Staged& s, unsigned dst, const E* src, int valid) {
    const std::uintptr_t addr = reinterpret_cast<std::uintptr_t>(src);
    s.off = static_cast<int>(addr & 15u);
    s.dst = dst;
    s.valid = valid;
    const uint4* blk = reinterpret_cast<const uint4*>(addr - static_cast<std::uintptr_t>(s.off));
    const uint4 zero = make_uint4(0u, 0u, 0u, 0u);
    s.lo = valid > 0 ? ldg_block(blk) : zero;
    s.hi = s.off + 2 * valid > 16 ? ldg_block(blk + 1) : zero;
  }
  // The realigned chunk, elements from `valid` on zeroed (little-endian: element 2w is the low half of word w).
  // A full chunk (valid = 8, a constant on the steady paths) is the realign and the store.
  __device__ __forceinline__ static void realign_store(const Staged& s) {
    if (s.valid < 0) return;
    uint4 v = realign(s.lo, s.hi, s.off);
    if (s.valid < 8) {
      auto keep = [&](int w) -> unsigned {
        const int n = s.valid - 2 * w;
        return n >= 2 ? 0xffffffffu : n == 1 ? 0x0000ffffu : 0u;
      };
      v.x &= keep(0);
      v.y &= keep(1);
      v.z &= keep(2);
      v.w &= keep(3);
    }
    st_shared_16(s.dst, v);
  }
  // copy_full / copy_edge of the REALIGN path: the same chunk, destination and running-pointer steps.
  template <typename C, typename Tile>
  __device__ __forceinline__ static void realign_load_full(Staged& s, unsigned stage_smem, const E*& src, long long ld,
                                                           int r0, int c0, int i) {
    if (!C::kPartial || r0 < C::kRows)
      realign_load(s, stage_smem + Tile::offset(r0 + C::drow(i), c0 + C::dchunk(i)) * 2, src + C::dchunk(i) * 8, 8);
    else
      s.valid = -1;
    advance<C>(src, ld, i);
  }
  template <typename C, typename Tile>
  __device__ __forceinline__ static void realign_load_edge(Staged& s, unsigned stage_smem, const E*& src_run,
                                                           const E* g, long long ld, int row_origin, int row_limit,
                                                           int col_origin, int col_limit, int r0, int c0, int i) {
    advance<C>(src_run, ld, i);
    const int row = r0 + C::drow(i);
    const int chunk = c0 + C::dchunk(i);
    if (C::kPartial && row >= C::kRows) {
      s.valid = -1;
      return;
    }
    const int grow = row_origin + row;
    const int gcol = col_origin + chunk * 8;
    int valid = 0;
    const E* src = g;
    if (grow < row_limit && gcol < col_limit) {
      valid = min(col_limit - gcol, 8);
      src = g + (long long)grow * ld + gcol;
    }
    realign_load(s, stage_smem + Tile::offset(row, chunk) * 2, src, valid);
  }

  // ---- one k-step's fragments (per-lane ldmatrix rows; fragment layouts of mma.m16n8k16, PTX ISA) ----
  // Lane l addresses row (l % 8) of 8x8 matrix l / 8. The swizzle term of every address depends only
  // on the lane (rows differ by multiples of 8), so these reduce to a per-lane base plus constants.
  __device__ __forceinline__ static void load_fragments(unsigned (&af)[kMi][4], unsigned (&bf)[kNi][2],
                                                        unsigned a_s, unsigned b_s, int kk, int warp_m0,
                                                        int warp_n0, int lrow, int lmat) {
#pragma unroll
    for (int mi = 0; mi < kMi; ++mi) {
      if constexpr (A_K) {  // smem [m][k]: matrices (m0-7,k0-7) (m8-15,k0-7) (m0-7,k8-15) (m8-15,k8-15)
        const int m = warp_m0 + mi * 16 + lrow + (lmat & 1) * 8;
        const int kc = kk * 2 + (lmat >> 1);
        ldmatrix_x4<false>(af[mi], a_s + TileA::offset(m, kc) * 2);
      } else {              // smem [k][m], transposed by ldmatrix.trans; same matrix order
        const int k = kk * 16 + lrow + (lmat >> 1) * 8;
        const int mc = (warp_m0 + mi * 16) / 8 + (lmat & 1);
        ldmatrix_x4<true>(af[mi], a_s + TileA::offset(k, mc) * 2);
      }
    }
#pragma unroll
    for (int nj = 0; nj < kNi / 2; ++nj) {
      unsigned r[4];
      if constexpr (B_K) {  // smem [n][k]: (n0-7,k0-7) (n0-7,k8-15) (n8-15,k0-7) (n8-15,k8-15)
        const int n = warp_n0 + nj * 16 + lrow + (lmat >> 1) * 8;
        const int kc = kk * 2 + (lmat & 1);
        ldmatrix_x4<false>(r, b_s + TileB::offset(n, kc) * 2);
      } else {              // smem [k][n] with .trans: (k0-7,n0) (k8-15,n0) (k0-7,n8) (k8-15,n8)
        const int k = kk * 16 + lrow + (lmat & 1) * 8;
        const int nc = (warp_n0 + nj * 16) / 8 + (lmat >> 1);
        ldmatrix_x4<true>(r, b_s + TileB::offset(k, nc) * 2);
      }
      bf[2 * nj][0] = r[0];
      bf[2 * nj][1] = r[1];
      bf[2 * nj + 1][0] = r[2];
      bf[2 * nj + 1][1] = r[3];
    }
    if constexpr (kTf32) {  // each register is one fp32 element: round it to TF32 once, before its first mma
#pragma unroll
      for (int mi = 0; mi < kMi; ++mi)
#pragma unroll
        for (int r = 0; r < 4; ++r) af[mi][r] = to_tf32(af[mi][r]);
#pragma unroll
      for (int ni = 0; ni < kNi; ++ni) {
        bf[ni][0] = to_tf32(bf[ni][0]);
        bf[ni][1] = to_tf32(bf[ni][1]);
      }
    }
  }

  __device__ __forceinline__ static void mma_step(float (&acc)[kMi][kNi][4], const unsigned (&af)[kMi][4],
                                                  const unsigned (&bf)[kNi][2]) {
#pragma unroll
    for (int mi = 0; mi < kMi; ++mi)
#pragma unroll
      for (int ni = 0; ni < kNi; ++ni) {
        // Serpentine order over n reuses the last B fragment's registers between rows.
        const int nn = (mi & 1) ? (kNi - 1 - ni) : ni;
        mma_16816<T>(acc[mi][nn], af[mi], bf[nn]);
      }
  }

  __device__ __forceinline__ static void run(const Params& p) {
    extern __shared__ __align__(128) unsigned char smem_raw[];
    T* smem = reinterpret_cast<T*>(smem_raw);
    const unsigned smem_base = smem_u32(smem);

    const CtaUnit unit = cta_unit<BM, BN>(p, blockIdx.x, blockIdx.z);
    const int m0 = unit.m0;
    const int n0 = unit.n0;
    const long long batch = unit.batch;
    const int slice = unit.slice;
    const bool split_unit = unit.split;
    const long long k_begin = split_unit ? (long long)slice * p.k_tiles_per_split * BK : 0;
    const int K = split_unit ? static_cast<int>(min((long long)p.K - k_begin, (long long)p.k_tiles_per_split * BK))
                             : p.K;
    const E* A = static_cast<const E*>(p.a) + batch * p.a_batch + (A_K ? k_begin : k_begin * p.lda);
    const E* B = static_cast<const E*>(p.b) + batch * p.b_batch + (B_K ? k_begin : k_begin * p.ldb);

    const int tid = threadIdx.x;
    const int lane = tid & 31;
    const int warp = tid >> 5;
    const int warp_m0 = (warp / WARPS_N) * kWarpTileM;
    const int warp_n0 = (warp % WARPS_N) * kWarpTileN;
    const int lrow = lane & 7;
    const int lmat = lane >> 3;

    const int k_tiles = (K + BK - 1) / BK;
    const int k_full_tiles = K / BK;  // k-tiles with no K edge
    // A CTA away from the M (N) edge copies its A (B) tiles without per-chunk predicates, except the
    // last k-tile when K % BK != 0.
    const bool a_mn_full = m0 + BM <= p.M;
    const int a_rows_valid = p.M - m0;  // copy_rows: A's rows inside the matrix (K-contiguous A at the M edge)
    const bool b_mn_full = n0 + BN <= p.N;

    // Per-thread copy origin (Copy<Tile>::r0/c0).
    const int a_r0 = CopyA::r0(tid), a_c0 = CopyA::c0(tid);
    const int b_r0 = CopyB::r0(tid), b_c0 = CopyB::c0(tid);
    // Running copy addresses: after a whole tile a thread has moved down kRowsAdvanced rows; the next
    // k-tile starts BLOCK_K columns right of the tile's first row (K-contiguous operand) or BLOCK_K
    // rows below it (rows along K, where kRowsAdvanced == BLOCK_K unless the tile is partial).
    const E* a_cur = A_K ? A + (long long)(m0 + a_r0) * p.lda + a_c0 * 8
                         : A + (long long)a_r0 * p.lda + m0 + a_c0 * 8;
    const E* b_cur = B_K ? B + (long long)(n0 + b_r0) * p.ldb + b_c0 * 8
                         : B + (long long)b_r0 * p.ldb + n0 + b_c0 * 8;
    auto next_k_tile_pointers = [&]() {
      if constexpr (A_K) a_cur += BK - (long long)CopyA::kRowsAdvanced * p.lda;
      else if constexpr (CopyA::kRowsAdvanced != BK) a_cur += (long long)(BK - CopyA::kRowsAdvanced) * p.lda;
      if constexpr (B_K) b_cur += BK - (long long)CopyB::kRowsAdvanced * p.ldb;
      else if constexpr (CopyB::kRowsAdvanced != BK) b_cur += (long long)(BK - CopyB::kRowsAdvanced) * p.ldb;
    };

    // Copy iteration i of A (is_a) or B, k-tile at column/row k0, through the predicate-free path when
    // the operand's tile is full.
    auto copy_one = [&](auto is_a, int i, unsigned a_s, unsigned b_s, int k0, bool a_full, bool b_full,
                        auto a_rows_tag) {
      if constexpr (decltype(is_a)::value) {
        if constexpr (decltype(a_rows_tag)::value) copy_rows<CopyA, TileA>(a_s, a_cur, p.lda, a_r0, a_c0, i, a_rows_valid);
        else if (a_full) copy_full<CopyA, TileA>(a_s, a_cur, p.lda, a_r0, a_c0, i);
        else if (A_K) copy_edge<CopyA, TileA>(a_s, a_cur, A, p.lda, m0, p.M, k0, K, a_r0, a_c0, i);
        else          copy_edge<CopyA, TileA>(a_s, a_cur, A, p.lda, k0, K, m0, p.M, a_r0, a_c0, i);
      } else {
        if (b_full) copy_full<CopyB, TileB>(b_s, b_cur, p.ldb, b_r0, b_c0, i);
        else if (B_K) copy_edge<CopyB, TileB>(b_s, b_cur, B, p.ldb, n0, p.N, k0, K, b_r0, b_c0, i);
        else          copy_edge<CopyB, TileB>(b_s, b_cur, B, p.ldb, k0, K, n0, p.N, b_r0, b_c0, i);
      }
    };
    // Copy iterations [J0, J1) of k-tile kt into ring stage `stage`; iteration j < CopyA::kIters is A's
    // iteration j, the rest are B's. Unrolled when short (the usual case: <= 4 per k-step), else a loop
    // unrolled by 4 (long copies of the 1-warp BLOCK_K >= 256 tiles).
    auto copy_range = [&](auto j0_c, auto j1_c, int stage, int kt, bool a_full, bool b_full, auto a_rows_tag) {
      constexpr int J0 = decltype(j0_c)::value, J1 = decltype(j1_c)::value;
      constexpr int A0 = J0 < CopyA::kIters ? J0 : CopyA::kIters, A1 = J1 < CopyA::kIters ? J1 : CopyA::kIters;
      constexpr int B0 = J0 > CopyA::kIters ? J0 - CopyA::kIters : 0;
      constexpr int B1 = J1 > CopyA::kIters ? J1 - CopyA::kIters : 0;
      const unsigned a_s = smem_base + stage * kStageElems * 2;
      const unsigned b_s = a_s + TileA::kElems * 2;
      const int k0 = kt * BK;
      if constexpr (A1 - A0 <= 8) {
        static_for<A0, A1>([&](auto i) { copy_one(std::true_type(), decltype(i)::value, a_s, b_s, k0, a_full, b_full, a_rows_tag); });
      } else {
#pragma unroll 4
        for (int i = A0; i < A1; ++i) copy_one(std::true_type(), i, a_s, b_s, k0, a_full, b_full, a_rows_tag);
      }
      if constexpr (B1 - B0 <= 8) {
        static_for<B0, B1>([&](auto i) { copy_one(std::false_type(), decltype(i)::value, a_s, b_s, k0, a_full, b_full, a_rows_tag); });
      } else {
#pragma unroll 4
        for (int i = B0; i < B1; ++i) copy_one(std::false_type(), i, a_s, b_s, k0, a_full, b_full, a_rows_tag);
      }
    };
    // REALIGN: iteration i of A (is_a) or B into `st`; a group's loads (RealignGroup<Q>: the copy iterations
    // [kJ0, kJ1) of k-tile kt into ring stage `stage`), then its stores.
    auto realign_load_one = [&](auto is_a, int i, Staged& st, unsigned a_s, unsigned b_s, int k0, bool a_full,
                                bool b_full) {
      if constexpr (decltype(is_a)::value) {
        if (a_full) realign_load_full<CopyA, TileA>(st, a_s, a_cur, p.lda, a_r0, a_c0, i);
        else if (A_K) realign_load_edge<CopyA, TileA>(st, a_s, a_cur, A, p.lda, m0, p.M, k0, K, a_r0, a_c0, i);
        else          realign_load_edge<CopyA, TileA>(st, a_s, a_cur, A, p.lda, k0, K, m0, p.M, a_r0, a_c0, i);
      } else {
        if (b_full) realign_load_full<CopyB, TileB>(st, b_s, b_cur, p.ldb, b_r0, b_c0, i);
        else if (B_K) realign_load_edge<CopyB, TileB>(st, b_s, b_cur, B, p.ldb, n0, p.N, k0, K, b_r0, b_c0, i);
        else          realign_load_edge<CopyB, TileB>(st, b_s, b_cur, B, p.ldb, k0, K, n0, p.N, b_r0, b_c0, i);
      }
    };
    auto realign_group_load = [&](auto q_c, Staged (&st)[kRealignChunks], int stage, int kt, bool a_full,
                                  bool b_full) {
      using G = RealignGroup<decltype(q_c)::value>;
      const unsigned a_s = smem_base + stage * kStageElems * 2;
      const unsigned b_s = a_s + TileA::kElems * 2;
      const int k0 = kt * BK;
      static_for<G::kJ0, G::kJ1>([&](auto j_c) {
        constexpr int j = decltype(j_c)::value;
        if constexpr (j < CopyA::kIters)
          realign_load_one(std::true_type(), j, st[j - G::kJ0], a_s, b_s, k0, a_full, b_full);
        else
          realign_load_one(std::false_type(), j - CopyA::kIters, st[j - G::kJ0], a_s, b_s, k0, a_full, b_full);
      });
    };
    auto realign_group_store = [&](auto q_c, const Staged (&st)[kRealignChunks]) {
      using G = RealignGroup<decltype(q_c)::value>;
      static_for<0, G::kJ1 - G::kJ0>([&](auto j_c) { realign_store(st[decltype(j_c)::value]); });
    };
    // The prologue's copies: executed once per CTA, so compact code (a loop unrolled by 2) rather than
    // straight-line; short GEMMs run little else, and an unrolled prologue was most of the kernel's
    // instructions (16x16x128: 2700 of 4000), fetched cold by every SM.
    auto copy_all_compact = [&](int stage, int kt, bool a_full, bool b_full) {
      const unsigned a_s = smem_base + stage * kStageElems * 2;
      const unsigned b_s = a_s + TileA::kElems * 2;
      const int k0 = kt * BK;
#pragma unroll 2
      for (int i = 0; i < CopyA::kIters; ++i) copy_one(std::true_type(), i, a_s, b_s, k0, a_full, b_full, std::false_type());
#pragma unroll 2
      for (int i = 0; i < CopyB::kIters; ++i) copy_one(std::false_type(), i, a_s, b_s, k0, a_full, b_full, std::false_type());
    };

    float acc[kMi][kNi][4];
#pragma unroll
    for (int i = 0; i < kMi; ++i)
#pragma unroll
      for (int j = 0; j < kNi; ++j)
#pragma unroll
        for (int r = 0; r < 4; ++r) acc[i][j][r] = 0.f;

    // Programmatic dependent launch (pdl.hpp): the set-up above overlapped the previous kernel; wait for
    // it before the first global access (the prologue's cp.async). The explicit trigger only when the
    // host found the grid at most one CTA per SM (p.pdl_early_trigger); else the next grid launches as
    // this one's CTAs exit (the implicit trigger).
    pdl_wait_for_prior_grids();
    if (p.pdl_early_trigger) pdl_launch_dependents();
    // Prologue: STAGES-1 tiles in flight. Always commit (possibly empty) groups so that
    // wait_group<STAGES-2> below counts tiles exactly.
#pragma unroll 1
    for (int s = 0; s < STAGES - 1; ++s) {
      if (s < k_tiles) {
        const bool k_full = s < k_full_tiles;
        if constexpr (REALIGN) {
          // Group by group, loads then stores (nothing to overlap them with yet): kRealignGroups round trips
          // per prologue tile.
          static_for<0, kRealignGroups>([&](auto q_c) {
            Staged st[kRealignChunks];
            realign_group_load(q_c, st, s, s, a_mn_full && k_full, b_mn_full && k_full);
            realign_group_store(q_c, st);
          });
        } else {
          copy_all_compact(s, s, a_mn_full && k_full, b_mn_full && k_full);
        }
        next_k_tile_pointers();
      }
      cp_async_commit();
    }
    cp_async_wait<STAGES - 2>();
    __syncthreads();

    // Main loop (the multistage structure of CUTLASS's sm80 mainloop): the fragments of k-step s+1 are
    // loaded (ldmatrix) before the mma of k-step s is issued, from two register buffers, so ldmatrix
    // latency hides under the tensor-core work; across a k-tile boundary that is k-step 0 of the next
    // stage, loaded right after the wait + barrier that makes it visible. The copy of the tile
    // STAGES-1 ahead is spread over the k-steps (its share of the cp.async issue per k-step) rather
    // than issued as one burst after the barrier.
    constexpr int kFragSets = DOUBLE_FRAGS ? 2 : 1;
    unsigned af[kFragSets][kMi][4];
    unsigned bf[kFragSets][kNi][2];
    int read_stage = 0;
    int write_stage = STAGES - 1;
    int kt_load = STAGES - 1;
    if constexpr (DOUBLE_FRAGS)
      load_fragments(af[0], bf[0], smem_base, smem_base + TileA::kElems * 2, 0, warp_m0, warp_n0, lrow, lmat);

    // One k-tile. kSteady: the tile being loaded (kt_load) exists and has no K edge; of its operands, A
    // (kSteadyA) and B (kSteadyB) have no M / N edge either and are copied without predicates, the other
    // through the predicated edge copy. Steady with both: the interior CTAs; steady with one: the CTAs at one
    // edge, which at decode (M < BLOCK_M) is every CTA: before this form they ran the general loop for all
    // of K, 2-2.7x slower on the H100 (1x3584x14336 with 16x16x64: 94.5 us at M = 1, 45.3 at M = 16;
    // reports/nvidia-h100/raw/gen-train). The general form checks whether there is a tile to load and which
    // of its chunks cross an edge.
    // kRowsA (K-contiguous A at the M edge, B steady): A's rows inside the matrix without predicates (copy_rows).
    auto k_tile = [&](auto steady_a_tag, auto steady_b_tag, auto rows_a_tag) {
      constexpr bool kSteadyA = decltype(steady_a_tag)::value, kSteadyB = decltype(steady_b_tag)::value;
      constexpr bool kRowsA = decltype(rows_a_tag)::value;
      static_assert(!kRowsA || (A_K && kSteadyB && !kSteadyA && !REALIGN), "copy_rows: K-contiguous A, steady B");
      constexpr bool kSteady = kSteadyA || kSteadyB;
      const bool load_now = kSteady || kt_load < k_tiles;
      const bool k_full = kt_load < k_full_tiles;
      const bool a_full = kSteadyA || (!kSteady && a_mn_full && k_full);
      const bool b_full = kSteadyB || (!kSteady && b_mn_full && k_full);
      // Advance the ring: commit this tile's copy group, wait until tile kt+1 has landed, and pass
      // the barrier after which no warp reads this tile's stage again (its fragments are in registers).
      auto next_tile = [&]() {
        cp_async_commit();
        if (load_now) next_k_tile_pointers();
        ++kt_load;
        if (++write_stage == STAGES) write_stage = 0;
        if (++read_stage == STAGES) read_stage = 0;
        cp_async_wait<STAGES - 2>();
        __syncthreads();
      };
      // k-steps in kStepGroups runtime groups of kStepsUnrolled unrolled ones; the copy is spread
      // over the k-steps of the first group.
#pragma unroll 1
      for (int g = 0; g < kStepGroups; ++g) {
        Staged staged[kRealignChunks];  // REALIGN: the copy group in flight (unused otherwise)
        static_for<0, kStepsUnrolled>([&](auto ki_c) {
          constexpr int ki = decltype(ki_c)::value;
          const int kk = g * kStepsUnrolled + ki;
          const bool last_step = ki == kStepsUnrolled - 1 && g == kStepGroups - 1;
          // REALIGN: group kQ's loads are issued at this k-step (kLoadGroup) / stored after its mma (kStoreGroup).
          constexpr int kQ = ki / kRealignSpan;
          [[maybe_unused]] constexpr bool kLoadGroup = REALIGN && ki % kRealignSpan == 0 && kQ < kRealignGroups;
          [[maybe_unused]] constexpr bool kStoreGroup =
              REALIGN && ki % kRealignSpan == kRealignSpan - 1 && kQ < kRealignGroups;
          if constexpr (!DOUBLE_FRAGS) {
            const unsigned a_s = smem_base + read_stage * kStageElems * 2;
            load_fragments(af[0], bf[0], a_s, a_s + TileA::kElems * 2, kk, warp_m0, warp_n0, lrow, lmat);
          }
          if constexpr (REALIGN) {
            if constexpr (kLoadGroup)
              if (load_now && g == 0)  // this k-step's group of the copy of tile kt_load
                realign_group_load(std::integral_constant<int, kQ>(), staged, write_stage, kt_load, a_full, b_full);
          } else {
            if (load_now && g == 0)  // this k-step's share of the copy of tile kt_load
              copy_range(std::integral_constant<int, ki * kCopyIters / kStepsUnrolled>(),
                         std::integral_constant<int, (ki + 1) * kCopyIters / kStepsUnrolled>(), write_stage,
                         kt_load, a_full, b_full, rows_a_tag);
          }
          if constexpr (DOUBLE_FRAGS) {
            if (last_step) next_tile();
            // Next k-step's fragments (after the last k-step of the last tile this reads a stage no
            // one writes any more; the values are unused).
            const unsigned a_s = smem_base + read_stage * kStageElems * 2;
            load_fragments(af[(ki + 1) % kFragSets], bf[(ki + 1) % kFragSets], a_s, a_s + TileA::kElems * 2,
                           last_step ? 0 : kk + 1, warp_m0, warp_n0, lrow, lmat);
            mma_step(acc, af[ki % kFragSets], bf[ki % kFragSets]);
            if constexpr (kStoreGroup)
              if (load_now && g == 0) realign_group_store(std::integral_constant<int, kQ>(), staged);
          } else {
            mma_step(acc, af[0], bf[0]);
            if constexpr (kStoreGroup)
              if (load_now && g == 0) realign_group_store(std::integral_constant<int, kQ>(), staged);
            if (last_step) next_tile();
          }
        });
      }
      if constexpr (DOUBLE_FRAGS && kStepsUnrolled % 2 == 1) {  // BLOCK_K = 16: next tile's fragments are in set 1
#pragma unroll
        for (int mi = 0; mi < kMi; ++mi)
#pragma unroll
          for (int r = 0; r < 4; ++r) af[0][mi][r] = af[kFragSets - 1][mi][r];
#pragma unroll
        for (int ni = 0; ni < kNi; ++ni) {
          bf[0][ni][0] = bf[kFragSets - 1][ni][0];
          bf[0][ni][1] = bf[kFragSets - 1][ni][1];
        }
      }
    };
    int kt = 0;
    // Every tile up to the last full one in K: the operands away from their edge without predicates.
    const int kt_steady = k_full_tiles - (STAGES - 1);  // iterations whose kt_load < k_full_tiles
    if (a_mn_full && b_mn_full) {
      for (; kt < kt_steady; ++kt) k_tile(std::true_type(), std::true_type(), std::false_type());
    } else if (b_mn_full) {
      if constexpr (A_K && !REALIGN)
        for (; kt < kt_steady; ++kt) k_tile(std::false_type(), std::true_type(), std::true_type());
      else
        for (; kt < kt_steady; ++kt) k_tile(std::false_type(), std::true_type(), std::false_type());
    } else if (a_mn_full) {
      for (; kt < kt_steady; ++kt) k_tile(std::true_type(), std::false_type(), std::false_type());
    }
    for (; kt < k_tiles; ++kt) k_tile(std::false_type(), std::false_type(), std::false_type());

    // The tile's coordinates again, from a fresh read of the CTA index: kept live across the main loop they
    // cost the big tiles registers they do not have (ptxas spilled 128x256x32 with them).
    const CtaUnit eu = cta_unit<BM, BN>(p, ctaid_x(), ctaid_z());
    {
    // The thread's place in the tile, likewise recomputed (from %tid.x) rather than kept across the loop.
    const int tid = tid_x();
    const int lane = tid & 31;
    const int warp = tid >> 5;
    const int warp_m0 = (warp / WARPS_N) * kWarpTileM;
    const int warp_n0 = (warp % WARPS_N) * kWarpTileN;
    if (eu.split) {
      // ---- split-K epilogue: the fp32 partial tile straight from the accumulators (no shared memory) ----
      // Each lane holds column pairs (c, c + 1) of rows r and r + 8: a float2 store, and the 4 lanes of a row
      // cover 8 consecutive floats (one 32-byte sector), so every store instruction writes whole sectors.
      // Elements outside C are not written (the reduction never reads them).
      cp_async_wait<0>();  // the trailing (empty) copy groups: nothing may be in flight at exit
      float* W = p.ws + static_cast<long long>(ctaid_x() - p.dp_tiles) * (BM * BN);
      const int r = lane >> 2;
      const int c = (lane & 3) * 2;
#pragma unroll
      for (int mi = 0; mi < kMi; ++mi)
#pragma unroll
        for (int ni = 0; ni < kNi; ++ni) {
          const int col = warp_n0 + ni * 8 + c;
#pragma unroll
          for (int h = 0; h < 2; ++h) {
            const int row = warp_m0 + mi * 16 + r + h * 8;
            if (eu.m0 + row >= p.M || eu.n0 + col >= p.N) continue;
            *reinterpret_cast<float2*>(W + row * BN + col) = make_float2(acc[mi][ni][2 * h], acc[mi][ni][2 * h + 1]);
          }
        }
      return;
    }

    // ---- epilogue: fp32 -> T, staged through shared memory, 16-byte coalesced stores ----
    cp_async_wait<0>();
    __syncthreads();  // every warp is done reading the pipeline buffers we now overwrite
    {
      const int r = lane >> 2;
      const int c = (lane & 3) * 2;
      if (p.bias != nullptr) {
        // Fused bias: column n of every row gets bias[n], in fp32, before the one rounding to T.
        const T* bias = static_cast<const T*>(p.bias);
#pragma unroll
        for (int ni = 0; ni < kNi; ++ni) {
          const int gn = eu.n0 + warp_n0 + ni * 8 + c;
          const float b0 = gn < p.N ? to_float<T>(bias[gn]) : 0.f;
          const float b1 = gn + 1 < p.N ? to_float<T>(bias[gn + 1]) : 0.f;
#pragma unroll
          for (int mi = 0; mi < kMi; ++mi) {
            acc[mi][ni][0] += b0;
            acc[mi][ni][1] += b1;
            acc[mi][ni][2] += b0;
            acc[mi][ni][3] += b1;
          }
        }
      }
#pragma unroll
      for (int mi = 0; mi < kMi; ++mi)
#pragma unroll
        for (int ni = 0; ni < kNi; ++ni) {
          const int row = warp_m0 + mi * 16 + r;
          const int col = warp_n0 + ni * 8 + c;
          store_pair<T>(smem + row * kEpiPitch + col, acc[mi][ni][0], acc[mi][ni][1]);
          store_pair<T>(smem + (row + 8) * kEpiPitch + col, acc[mi][ni][2], acc[mi][ni][3]);
        }
    }
    __syncthreads();
    {
      // C leaves in 16-byte chunks of kChunkElems elements (8 of a 16-bit type, 4 of fp32); Word is one element.
      constexpr int kChunkElems = 16 / static_cast<int>(sizeof(T));
      using Word = std::conditional_t<kTf32, unsigned, unsigned short>;
      constexpr int kChunksPerRow = BN / kChunkElems;
      constexpr int kTotal = BM * kChunksPerRow;
      constexpr int kIters = (kTotal + kThreads - 1) / kThreads;
      const bool vec_ok = (p.ldc % kChunkElems) == 0;  // every row starts 16-byte aligned
      if (!vec_ok) {
        // Unaligned rows (odd N, or ldc not a multiple of 8): no 16-byte stores. The warp stores its 32 chunks
        // element-wise, consecutive lanes on consecutive elements (64 contiguous bytes per instruction), not
        // 8 element stores per thread (32 two-byte pieces 16 bytes apart per instruction: 16 partially
        // written sectors; see the wgmma epilogue). kTotal is a multiple of 32, so a warp is whole or absent.
        const Word* srow = reinterpret_cast<const Word*>(smem);
        Word* cw = reinterpret_cast<Word*>(static_cast<T*>(p.c) + eu.batch * p.c_batch);
        for (int base = tid - lane; base < kTotal; base += kThreads) {
#pragma unroll
          for (int k = 0; k < kChunkElems; ++k) {
            const int flat = k * 32 + lane;
            const int idx = base + flat / kChunkElems, e = flat % kChunkElems;
            const int row = idx / kChunksPerRow;
            const int chunk = idx % kChunksPerRow;
            const int gm = eu.m0 + row;
            const int gn = eu.n0 + chunk * kChunkElems + e;
            if (gm < p.M && gn < p.N) cw[(long long)gm * p.ldc + gn] = srow[row * kEpiPitch + chunk * kChunkElems + e];
          }
        }
      } else
#pragma unroll
      for (int i = 0; i < kIters; ++i) {
        const int idx = tid + i * kThreads;
        if (kTotal % kThreads != 0 && idx >= kTotal) break;
        const int row = idx / kChunksPerRow;
        const int chunk = idx % kChunksPerRow;
        const int gm = eu.m0 + row;
        const int gn = eu.n0 + chunk * kChunkElems;
        if (gm >= p.M || gn >= p.N) continue;
        const uint4 v = *reinterpret_cast<const uint4*>(smem + row * kEpiPitch + chunk * kChunkElems);
        T* dst = static_cast<T*>(p.c) + eu.batch * p.c_batch + (long long)gm * p.ldc + gn;
        if (vec_ok && gn + kChunkElems <= p.N) {
          *reinterpret_cast<uint4*>(dst) = v;
        } else {
          // Ragged N edge or unaligned ldc: element stores (constant register indices, no local memory).
          const unsigned w[4] = {v.x, v.y, v.z, v.w};
          const int n_valid = p.N - gn;
          Word* dw = reinterpret_cast<Word*>(dst);
#pragma unroll
          for (int j = 0; j < kChunkElems; ++j)
            if (j < n_valid) {
              if constexpr (kTf32) dw[j] = w[j];
              else dw[j] = static_cast<Word>(w[j >> 1] >> ((j & 1) * 16));
            }
        }
      }
    }
    }
  }
};

// Host-side launch shared by every specialisation (cta_unit.cuh plan_cta_units, launch_cta_units: the same for the
// simt family). `kernel` is the extern "C" __global__ wrapper.
template <typename K>
inline cudaError_t launch(void (*kernel)(Params), const GemmArgs& g, int block_m, int block_n) {
  if (g.M <= 0 || g.N <= 0 || g.batch <= 0) return cudaSuccess;
  // TF32: K, the operands' leading dimensions and batch strides in the 16-bit units the kernel moves (K::E).
  constexpr int u = K::kUnits;
  Params p;
  SplitPlan sp;
  cudaError_t e = plan_cta_units(g, block_m, block_n, K::kBlockK, u, p, sp);
  if (e != cudaSuccess) return e;
  p.a = g.a;
  p.b = g.b;
  p.c = g.c;
  p.bias = g.bias;  // added in the epilogue of whole tiles; for split tiles the reduction adds it
  return launch_cta_units<K>(kernel, p, g, sp);
}

}  // namespace mma_sync
}  // namespace origami
