// The wgmma kernel family (sm_90a): TMA loads with 128-byte swizzle into a ring of shared-memory
// stages guarded by mbarriers, one producer warpgroup, one or two consumer warpgroups issuing
// wgmma m64nNk16 (16-bit types) or m64nNk8 (TF32 from fp32 storage), fp32 accumulators, a persistent grid walking
// output tiles in the Triton
// GROUP_SIZE_M raster, and an epilogue through shared memory: TMA stores that drain while the CTA computes its
// next tile, or (a CTA's last tile, unaligned C rows) predicated, coalesced stores by the consumer threads. The 16-bit
// 128x128 kernels have a second, ping-pong schedule (each consumer warpgroup whole tiles, alternating), which the
// launcher takes where every CTA has two or more tiles (ping_pong_pays).
//
// One specialisation = (BLOCK_M, BLOCK_N, stages, consumer warpgroups, epilogue slice width,
// element type, A layout, B layout[, cluster]); BLOCK_K is one 128-byte swizzle row: 64 elements of a 16-bit
// type, 32 of fp32 (TF32 math: TMA rounds each fp32 operand to TF32 on its way to shared memory, encode_map; wgmma
// takes a TF32 operand from shared memory K-major only: with a K-major A and a row-major B the TF32 kernels compute
// C^T = B^T A^T with B^T from registers, run_swap). kCluster = 2 (two CTAs multicasting a
// shared B tile) is implemented and verified correct; it matches the 1-CTA kernel at the power limit and is a few
// % slower in short runs (NOTES.md, v3, v5), so the generated list uses kCluster = 1. The generator
// (cpp/kernels/families/wgmma.py) instantiates each in its own translation unit and chooses
// the stage count; this header only checks that the choice fits.
//
// C[b] (M x N, row-major, ldc) = A[b] (M x K) * B[b] (K x N); see GemmArgs for the strides.
// Requirements checked by the launcher (and mirrored by KernelEntry::alignment_elems = 16 bytes in elements):
// base pointers 16-byte aligned, A/B leading dimensions and batch strides multiples of 16 bytes
// (TMA's global-stride rule; 8 elements of a 16-bit type, 4 of fp32). M, N and K are free: TMA zero-fills loads
// outside the tensor and the epilogue predicates stores.
#pragma once

#include <cuda.h>          // CUtensorMap and its enums (types only: no -lcuda needed)
#include <cudaTypedefs.h>  // PFN_cuTensorMapEncodeTiled
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <mutex>
#include <type_traits>

#include "../gemm_args.hpp"
#include "cluster.cuh"
#include "mbarrier.cuh"
#include "../pdl.hpp"

namespace origami {
namespace wgmma {

// Storage type of A, B and C. TFloat32: fp32 in memory, TF32 tensor-core math (what cuBLAS does for fp32 with
// torch's allow_tf32), fp32 accumulation, fp32 C.
enum class ElemType { Half, BFloat16, TFloat32 };
template <ElemType T>
constexpr int kElemBytes = T == ElemType::TFloat32 ? 4 : 2;

template <int N, ElemType T>
struct Wgmma;  // wgmma.mma_async m64nNk16 (16-bit) / m64nNk8 (tf32) wrappers, generated
#include "wgmma_ops.inc"

// One row of the 128-byte swizzle pattern: the widest TMA box row the swizzle allows, and the K extent the wgmma
// descriptors step through in 32-byte moves (k16 of a 16-bit type, k8 of TF32): 4 instructions per k-block
// whatever the type, so a stage holds the same bytes (BLOCK_M + BLOCK_N) x 128 for every element type.
constexpr int kSwizzleRowBytes = 128;
constexpr int kKStepsPerBlock = kSwizzleRowBytes / 32;
template <ElemType T>
constexpr int kBlockK = kSwizzleRowBytes / kElemBytes<T>;  // 64 (16-bit), 32 (fp32)
// Per-block opt-in shared memory on H100/H200 (cudaDevAttrMaxSharedMemoryPerBlockOptin,
// 232,448 B, read on the device: /work/shared/ANCHORS.md section 1).
constexpr int kSmemOptinBytes = 232448;
// Stage buffers must start on 1024-byte boundaries: the 128-byte swizzle pattern repeats every
// 8 rows x 128 B and the wgmma descriptors assume base_offset 0.
constexpr int kSmemAlignBytes = 1024;

// Shared-memory plan of one specialisation. The Python family module computes the same numbers
// (smem_bytes in the registry); the static_asserts in the kernel keep the two honest.
template <int BM, int BN, int kStages, int kConsumers, int kEpiN, int kOutBytes = 2, bool kPingPong = false>
struct Plan {
  // The warpgroup split: where BM / consumers is whole m64 slabs, each consumer warpgroup owns BM / consumers rows
  // and every column (128x256: one m64n256 each; 256x128: two m64n128). Otherwise (192 rows: 3 slabs over 2
  // consumers) each owns every row and BN / consumers columns: 192x192 is 3 x m64n96 per consumer, the shape of
  // cuBLAS's "192x192 coopB" nvjet tiles (benchmarks/results/probes/probe_cublas_kernels_weak_h100.txt), whose
  // 6304 x 768 = 33 x 4 = 132 tiles fill the 132 SMs once where 128x192 needs 1.5 waves.
  // A tile wider than one wgmma (BN > 256: 128x320, cuBLAS's "320x128 coopB" nvjet tile at 1024 x 5120 x 5120, whose
  // 8 x 16 = 128 tiles fill the 132 SMs once; probe_cublas_kernels_weak_h100.txt) splits N the same way: 2 x m64n160.
  // kPingPong (the 128x128 kernels' second schedule, Kernel): each consumer warpgroup owns whole tiles, the CTA's tiles
  // alternating between the two, so one warpgroup's epilogue runs under the other's main loop.
  static constexpr bool kSplitN = !kPingPong && ((BM / kConsumers) % 64 != 0 || BN > 256);
  // Rows of one TMA box of a K-major B (a box side is at most 256): the whole tile, or its two halves.
  static constexpr int kBBoxRows = BN > 256 ? BN / 2 : BN;
  static constexpr int kRowsPerConsumer = kSplitN || kPingPong ? BM : BM / kConsumers;
  static constexpr int kColsPerConsumer = kSplitN ? BN / kConsumers : BN;
  static constexpr int kMmaM = kRowsPerConsumer / 64;        // m64 sub-tiles per consumer warpgroup
  // The first tile row and column of consumer warpgroup cw's part of the tile.
  static constexpr __host__ __device__ int row0(int cw) { return kSplitN || kPingPong ? 0 : cw * kRowsPerConsumer; }
  static constexpr __host__ __device__ int col0(int cw) { return kSplitN ? cw * kColsPerConsumer : 0; }
  static constexpr int kABytes = BM * kSwizzleRowBytes;      // one stage of A (BLOCK_K elements per row)
  static constexpr int kBBytes = BN * kSwizzleRowBytes;      // one stage of B
  static constexpr int kStageBytes = kABytes + kBBytes;
  // C staging: each consumer's part leaves in column slices of kEpiN (kColsPerConsumer / kEpiN passes), so the
  // staging buffer is consumers x kRowsPerConsumer x kEpiN and the ring keeps the rest of shared memory. Not padded: the 16-byte chunks are
  // XOR-swizzled (c_chunk_offset below), which keeps the fragment writes (8 rows x 4 lanes per instruction)
  // free of bank conflicts and lays 64-column boxes out as the TMA store reads them.
  static constexpr int kCRowBytes = kEpiN * kOutBytes;
  static constexpr int kChunksPerRow = kCRowBytes / 16;      // 16-byte chunks per staged row
  static constexpr int kChunkElems = 16 / kOutBytes;         // C elements per chunk
  static constexpr int kCBytes = kConsumers * kRowsPerConsumer * kCRowBytes;
  // full[] and empty[] mbarriers (kPingPong: and the two warpgroups' main-loop order barriers)
  static constexpr int kBarrierBytes = 2 * kStages * 8 + (kPingPong ? 16 : 0);
  static constexpr int kSmemBytes =
      kSmemAlignBytes /* worst-case alignment slack */ + kStages * kStageBytes + kCBytes + kBarrierBytes;
  static constexpr int kThreads = 128 * (kConsumers + 1);
  static constexpr int kAccumPerThread = kMmaM * kColsPerConsumer / 2;  // fp32 accumulators per consumer thread

  static_assert(BM % 64 == 0 && BM >= 64, "each consumer warpgroup owns whole m64 slabs");
  static_assert(!kSplitN || BN % kConsumers == 0, "split along N: equal column shares");
  static_assert(kColsPerConsumer % 16 == 0 && kColsPerConsumer >= 16 && kColsPerConsumer <= 256,
                "wgmma N (dense 16-bit): multiple of 16 (as generated), <= 256");
  static_assert(kStages >= 2, "a ring needs at least two stages to overlap loads and math");
  static_assert(kSmemBytes <= kSmemOptinBytes, "stages + C staging exceed the shared-memory opt-in limit");
  static_assert(kAccumPerThread <= 192, "accumulators would not fit the consumer register budget");
  static_assert(kConsumers == 1 || kConsumers == 2, "one or two consumer warpgroups");
  static_assert(kOutBytes == 2 || kOutBytes == 4, "16-bit or fp32 C");
  static_assert(kColsPerConsumer % kEpiN == 0 && kCRowBytes % 16 == 0 &&
                    (kChunksPerRow % 8 == 0 || kChunksPerRow == 4 || kChunksPerRow == 2),
                "epilogue slices: 2, 4 or a multiple of 8 swizzled 16-byte chunks (c_chunk_offset)");
  // The slice leaves by TMA store where C allows it: in boxes of 128-byte rows (128-byte swizzle), or, for the split-N
  // tiles' 32-column slices (4 chunks per row), one box of 64-byte rows: c_chunk_offset's slot c ^ ((r / 2) % 4) is
  // the 64-byte swizzle (address bits 4-5 XOR bits 7-8 within each 512-byte span). The other 2- and 4-chunk slices
  // (64x48 .. 64x160, 128x96 .. 128x144) keep the threads' stores their measurements and the model's epilogue rule
  // were made with (wgmma_tma_stored_epilogue in cpp/model/types.hpp).
  static constexpr bool kTmaStore = kChunksPerRow % 8 == 0 || (kSplitN && kChunksPerRow == 4);
  static constexpr int kBoxRowBytes = kChunksPerRow % 8 == 0 ? kSwizzleRowBytes : kCRowBytes;
  static constexpr int kBoxCols = kBoxRowBytes / kOutBytes;  // columns of one TMA store box
};

// The TF32 kernels of a row-major B (N contiguous, a @ b): wgmma reads a TF32 operand from shared memory K-major
// only, and B^T is not, so they compute the swapped product C^T (BN x BM) = B^T (BN x K) * A^T (K x BM): wgmma's
// M side is the tile's N (each consumer warpgroup owns m64 slabs of it), its N side is BLOCK_M, A^T is A's K-major tile
// (a shared-memory descriptor) and B^T comes from registers, loaded from B's tile as TMA lays it (run_swap). Their
// shared memory is the swapped GEMM's plan: a stage holds the B tile (BN x 128 B) then the A tile (BM x 128 B).
// Where the op copied B into the K-major layout first, the copy cost more than the GEMM at M <= 128 (0.30-0.37x
// cuBLAS TF32 on the H100; the in-place probe, benchmarks/results/probes/probe_tf32_rs_swap_h100.txt: 1.03x).
template <ElemType kT, bool kBKMajor>
constexpr bool kSwapRS = kT == ElemType::TFloat32 && !kBKMajor;
template <int BM, int BN, int kStages, int kConsumers, int kEpiN, ElemType kT, bool kBKMajor, bool kPingPong = false>
using KernelPlan = std::conditional_t<kSwapRS<kT, kBKMajor>, Plan<BN, BM, kStages, kConsumers, kEpiN, 4>,
                                      Plan<BM, BN, kStages, kConsumers, kEpiN, kElemBytes<kT>, kPingPong>>;

// Byte offset of 16-byte chunk c of row r in a consumer warpgroup's C staging buffer (kRows rows of
// kChunksPerRow chunks). The fragment writes put 8 rows x 4 lanes (one 4-byte word each) into one chunk index
// per instruction, so the layout must spread those 32 words over the 32 banks:
//  - kEpiN a multiple of 64 (>= 8 chunks): the slice is kChunksPerRow / 8 boxes of 64 columns, each box kRows
//    rows of 128 B with chunk c of row r at slot c ^ (r % 8): the TMA 128-byte swizzle, so the bulk-copy engine
//    stores a box as it is (the box bases are 1024-byte aligned), and 8 consecutive rows hit 8 slots;
//  - kEpiN = 32 or 16 (n = 4 or 2 chunks, rows of 16n bytes, 8/n rows per 128-byte bank line): rows one after
//    another, chunk c of row r at slot c ^ ((r / (8/n)) % n). For n = 4 the four even (odd) rows of 8 take 4
//    slots; for n = 2 rows r and r + 4 (same banks otherwise) take the two slots.
// Row-wise 16-byte reads of the per-thread store paths see whole 128-byte lines either way.
template <int kRows, int kChunksPerRow>
__device__ __forceinline__ int c_chunk_offset(int r, int c) {
  static_assert(kChunksPerRow % 8 == 0 || kChunksPerRow == 4 || kChunksPerRow == 2, "see the rule above");
  if constexpr (kChunksPerRow >= 8) return (c >> 3) * (kRows * 128) + r * 128 + (((c & 7) ^ (r & 7)) << 4);
  else return r * (kChunksPerRow * 16) + ((c ^ ((r / (8 / kChunksPerRow)) % kChunksPerRow)) << 4);
}

// ---------------------------------------------------------------------------------------------
// Device-side primitives (inline PTX, sm_90a).
// ---------------------------------------------------------------------------------------------
// smem_addr, mbar_init, mbar_arrive_expect_tx, mbar_arrive, mbar_wait: mbarrier.cuh (shared with the calibration's
// TMA streaming benchmark, cpp/calibrate/tma_stream_bench.cu).

__device__ __forceinline__ void tma_load_3d(std::uint32_t dst, const CUtensorMap* map, std::uint32_t bar,
                                            int c0, int c1, int c2) {
  asm volatile(
      "cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
      " [%0], [%1, {%2, %3, %4}], [%5];" ::"r"(dst),
      "l"(reinterpret_cast<std::uint64_t>(map)), "r"(c0), "r"(c1), "r"(c2), "r"(bar)
      : "memory");
}

// Shared memory -> global through the bulk-copy engine (an asynchronous TMA store of one box; elements outside
// the tensor are not written), tracked per thread by bulk groups.
__device__ __forceinline__ void tma_store_3d(const CUtensorMap* map, std::uint32_t src, int c0, int c1, int c2) {
  asm volatile("cp.async.bulk.tensor.3d.global.shared::cta.bulk_group [%0, {%1, %2, %3}], [%4];" ::"l"(
                   reinterpret_cast<std::uint64_t>(map)),
               "r"(c0), "r"(c1), "r"(c2), "r"(src)
               : "memory");
}
__device__ __forceinline__ void bulk_commit_group() { asm volatile("cp.async.bulk.commit_group;" ::: "memory"); }
// The committed bulk stores have finished reading shared memory (their writes may still be in flight).
__device__ __forceinline__ void bulk_wait_read_all() { asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory"); }
// Shared-memory writes of this thread (generic proxy) ordered before later bulk copies (async proxy) read them.
__device__ __forceinline__ void fence_proxy_async_shared() {
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
}

// The same copy delivered to the same shared-memory offset (and mbarrier offset) of every CTA
// in cta_mask: one L2 read feeds the whole cluster.
__device__ __forceinline__ void tma_load_3d_multicast(std::uint32_t dst, const CUtensorMap* map, std::uint32_t bar,
                                                      int c0, int c1, int c2, std::uint16_t cta_mask) {
  asm volatile(
      "cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster"
      " [%0], [%1, {%2, %3, %4}], [%5], %6;" ::"r"(dst),
      "l"(reinterpret_cast<std::uint64_t>(map)), "r"(c0), "r"(c1), "r"(c2), "r"(bar), "h"(cta_mask)
      : "memory");
}

// Arrive on the mbarrier at the same offset in CTA `peer` of the cluster. Default semantics
// (.release at .cta scope), not .release.cluster: the arrive only says "this warp's wgmmas have finished
// reading the stage" (wgmma.wait_group already ordered those reads); a cluster-scope release adds a
// fence that stalled every consumer warp (v5 in NOTES.md: "Stall Membar" 7.6 of 19 cycles per issue).
__device__ __forceinline__ void mbar_arrive_peer(std::uint32_t bar, std::uint32_t peer) {
  asm volatile(
      "{\n.reg .b32 ra;\n"
      "mapa.shared::cluster.u32 ra, %0, %1;\n"
      "mbarrier.arrive.shared::cluster.b64 _, [ra];\n}" ::"r"(bar), "r"(peer)
      : "memory");
}

// 8 bytes of this CTA's shared memory (run_swap's fragment pairs). Volatile: kept after the mbarrier wait that
// makes the stage's TMA bytes visible.
__device__ __forceinline__ uint2 ld_shared_u2(std::uint32_t addr) {
  uint2 v;
  asm volatile("ld.shared.v2.u32 {%0, %1}, [%2];" : "=r"(v.x), "=r"(v.y) : "r"(addr));
  return v;
}
// stmatrix .trans (sm_90): each 8x8 matrix of 16-bit values a warp holds as mma fragments (lane l: row l / 4, the
// pair of columns 2 (l % 4), +1 in one register) is stored transposed: smem row q (its address from lane 8 k + q for
// matrix k) receives the matrix's column q, i.e. its 8 rows as 16 contiguous bytes.
__device__ __forceinline__ void stmatrix_x4_trans(std::uint32_t addr, std::uint32_t r0, std::uint32_t r1,
                                                  std::uint32_t r2, std::uint32_t r3) {
  asm volatile("stmatrix.sync.aligned.m8n8.x4.trans.shared.b16 [%0], {%1, %2, %3, %4};" ::"r"(addr), "r"(r0),
               "r"(r1), "r"(r2), "r"(r3)
               : "memory");
}
__device__ __forceinline__ void stmatrix_x2_trans(std::uint32_t addr, std::uint32_t r0, std::uint32_t r1) {
  asm volatile("stmatrix.sync.aligned.m8n8.x2.trans.shared.b16 [%0], {%1, %2};" ::"r"(addr), "r"(r0), "r"(r1)
               : "memory");
}

__device__ __forceinline__ void wgmma_fence() { asm volatile("wgmma.fence.sync.aligned;" ::: "memory"); }
__device__ __forceinline__ void wgmma_commit() { asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory"); }
template <int kPending>
__device__ __forceinline__ void wgmma_wait() {
  asm volatile("wgmma.wait_group.sync.aligned %0;" ::"n"(kPending) : "memory");
}

// Keeps the compiler from moving accumulator reads/writes across the asynchronous wgmma window.
template <int R>
__device__ __forceinline__ void fence_accumulators(float (&d)[R]) {
#pragma unroll
  for (int i = 0; i < R; ++i) asm volatile("" : "+f"(d[i])::"memory");
}

template <int kRegs>
__device__ __forceinline__ void setmaxnreg_inc() {
  asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;" ::"n"(kRegs));
}
template <int kRegs>
__device__ __forceinline__ void setmaxnreg_dec() {
  asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;" ::"n"(kRegs));
}

__device__ __forceinline__ void named_barrier_sync(int id, int threads) {
  asm volatile("bar.sync %0, %1;" ::"r"(id), "r"(threads) : "memory");
}

// wgmma shared-memory matrix descriptor, 128-byte swizzle (layout type 1 in bits 62-63).
//   K-major operand (rows of 64 K-elements = 128 B): SBO = 1024 B between 8-row groups; LBO unused.
//   MN-major operand (rows of 64 M/N-elements = 128 B, one row per k): SBO = 1024 B between
//   8-k groups, LBO = distance between 64-element M/N blocks (one TMA box of 64 x 64 = 8 KiB).
__device__ __forceinline__ std::uint64_t make_desc(std::uint32_t addr, std::uint32_t lbo_bytes,
                                                   std::uint32_t sbo_bytes) {
  std::uint64_t d = 0;
  d |= static_cast<std::uint64_t>((addr & 0x3FFFF) >> 4);
  d |= static_cast<std::uint64_t>((lbo_bytes & 0x3FFFF) >> 4) << 16;
  d |= static_cast<std::uint64_t>((sbo_bytes & 0x3FFFF) >> 4) << 32;
  d |= 1ull << 62;
  return d;
}

// A descriptor's start-address field holds the shared-memory address / 16 in its low 14 bits (make_desc): moving the
// operand `bytes` further (a k-step, a stage of the ring) adds bytes / 16 to the descriptor, with no carry out of the
// field since every shared-memory address of the kernel is below 2^18. The consumers build their descriptors once
// and step them with this one add; built per wgmma, ptxas spent ~19 integer instructions on each (IMAD, LOP3, R2UR,
// ...: Nsight Compute, H100, 128x96 at 512x3072x3072, 5.05 M instructions against cuBLAS's 1.91 M for the same 196,608
// HGMMAs; cpp/kernels/wgmma/NOTES.md session 47). Stepped, the same kernels ran 1.034x faster (geomean, 9 kernels x 7
// sizes, 0.96-1.17; the 64-row tiles most; H100, NOTES.md session 48).
__device__ __forceinline__ constexpr std::uint64_t wgmma_desc_step(std::uint32_t bytes) { return bytes >> 4; }
static_assert(kSmemOptinBytes + kSmemAlignBytes <= (1 << 18),
              "a CTA's shared-memory addresses must stay below 2^18: wgmma_desc_step adds to the descriptor's 14-bit "
              "start-address field (address / 16) and must not carry out of it");

// The storage word of one element (C, bias) and its value.
template <ElemType T>
using Word = std::conditional_t<T == ElemType::TFloat32, std::uint32_t, std::uint16_t>;
template <ElemType T>
__device__ __forceinline__ float elem_to_float(Word<T> bits) {
  if constexpr (T == ElemType::Half) return __half2float(__ushort_as_half(bits));
  else if constexpr (T == ElemType::BFloat16) return __bfloat162float(__ushort_as_bfloat16(bits));
  else return __uint_as_float(bits);
}

template <ElemType T>
__device__ __forceinline__ std::uint32_t pack2(float lo, float hi);
template <>
__device__ __forceinline__ std::uint32_t pack2<ElemType::Half>(float lo, float hi) {
  __half2 h = __floats2half2_rn(lo, hi);
  return *reinterpret_cast<std::uint32_t*>(&h);
}
template <>
__device__ __forceinline__ std::uint32_t pack2<ElemType::BFloat16>(float lo, float hi) {
  __nv_bfloat162 h = __floats2bfloat162_rn(lo, hi);
  return *reinterpret_cast<std::uint32_t*>(&h);
}

// Everything the kernel needs besides the two tensor maps.
struct KernelParams {
  void* c;
  int M, N, K;
  int tiles_m, tiles_n;
  int units_m;              // tile rows per cluster unit: ceil(tiles_m / cluster) (B shared), else tiles_m
  int units_n;              // tile columns per cluster unit: ceil(tiles_n / cluster) (A shared), else tiles_n
  int units_total;          // units_m * units_n * batch: what the persistent clusters walk
  int k_blocks;             // ceil(K / BLOCK_K)
  // Split-K (GemmArgs::split_k, make_split_plan): split_k > 1 slices of k_blocks_per_split k-blocks for the
  // tail_tiles tiles after the dp_tiles whole ones; slice s of tail tile j writes its fp32 partial tile
  // (BM x BN, tile-local rows of BN) at ws + (s * tail_tiles + j) * BM * BN instead of C.
  int split_k;
  int k_blocks_per_split;
  float* ws;
  int dp_tiles, tail_tiles;
  // > 1 (SplitPlan::cluster): the split_k slices of a tile are the CTAs of one cluster (slice = cluster rank, unit
  // tile * split_k + slice, one unit per CTA); their partials meet in shared memory (Kernel::run: cluster reduction),
  // nothing goes to ws.
  int cluster_slices;
  const void* bias;         // GemmArgs::bias (nullptr: none; with split-K the reduction adds it)
  int group_size_m;         // in units (cluster rows of tiles)
  int a_batch_step;         // 1, or 0 when A is broadcast over the batch (stride 0)
  int b_batch_step;
  long long c_stride_m;
  long long c_stride_batch;
  int c_vector_ok;          // ldc, batch stride and base allow 16-byte stores
  int c_tma;                // the C tensor map was encoded (c_vector_ok and Plan::kTmaStore): TMA-stored slices
  // What the producer loads per stage when an operand is shorter than the tile (M < BM or N < BN: decode, small
  // batches; Launcher::launch): the 64-row slabs of an MN-major operand that hold any of its rows (the rest are not
  // loaded), and the bytes the full barrier expects, which a K-major operand's shorter box (its rows only) makes
  // fewer than Plan::kStageBytes.
  int a_slabs, b_slabs;
  int stage_tx_bytes;
  // Edge tiles of a K-major operand longer than its tile side (bit 0: A's rows, M > BM; bit 1: B's rows, N > BN; the
  // 16-bit kernels, Launcher::launch):
  // the tile whose box would hang over the matrix edge loads the box that ends there instead (edge_origin), so TMA
  // zero-fills none of A's rows and fewer than 8 of B's; its accumulator rows (columns) then start that many rows
  // before the tile's own, and the epilogue stores only the tile's own. Why: the zero fill is slow and shared by the
  // SMs (Launcher::launch), and it held the whole launch: on the H100 at M = 320 (3 tile rows of 128, the last half
  // outside A) the 128-row tiles ran 1.3-1.5x slower than the model's prediction, the 64-row tiles (5 whole tile rows)
  // as predicted (benchmarks/results/vs_cublas_gentest_h100_before.md: the model's best-ranked launches timed); with
  // the shift 1.2-1.65x faster (benchmarks/results/edge_shift.md).
  int shift_edges;
};

// The first row (column) of the matrix that a tile's box and accumulator row 0 (column 0) stand for: the tile's own
// origin, or, for the tile that would hang over the edge of an extent longer than the tile (on), the origin of the
// box that ends at the edge, moved back by whole multiples of `granule` (8 for columns: C's 16-byte chunks and the
// fp32 pairs of the split-K partials stay aligned; the < 8 rows left past the edge are zero-filled).
__device__ __forceinline__ int edge_origin(int origin, int block, int extent, bool on, int granule) {
  if (!on || origin >= extent || origin + block <= extent || extent <= block) return origin;
  return origin - (origin + block - extent) / granule * granule;
}

// Triton's GROUP_SIZE_M raster: groups of group_size_m tile-rows, column-major inside a group,
// batches one after another. The Origami model's L2 super-group assumes exactly this order.
// With 2-CTA clusters the raster walks units of cluster x 1 tiles (the CTAs of a cluster share the
// B tile, rank r takes tile row cluster * unit_row + r) and group_size_m counts unit rows.
struct TileCoord {
  int batch, tile_m, tile_n;
  int kb_begin, kb_end;  // the unit's k-blocks (all of K for a whole tile)
  long long ws_tile;     // >= 0: a split-K slice, writing the partial tile ws_tile of the workspace
};
template <int kCluster, bool kShareA = false>
__device__ __forceinline__ TileCoord tile_coord(int unit, const KernelParams& p, int rank) {
  // Units: without split-K, the tiles (cluster units) in launch order, batch after batch. With split-K
  // (make_split_plan, cpp/model/types.hpp; clusters of 1): first the dp_tiles whole tiles, then slice s of
  // tail tile j at dp_tiles + s * tail_tiles + j (the units in flight together share one K range).
  TileCoord t;
  t.kb_begin = 0;
  t.kb_end = p.k_blocks;
  t.ws_tile = -1;
  int tile = unit;
  if (p.cluster_slices > 1) {
    const int slice = unit % p.cluster_slices;
    tile = unit / p.cluster_slices;
    t.kb_begin = slice * p.k_blocks_per_split;
    t.kb_end = min(p.k_blocks, t.kb_begin + p.k_blocks_per_split);
  } else if (p.split_k > 1 && unit >= p.dp_tiles) {
    const int v = unit - p.dp_tiles;
    const int slice = v / p.tail_tiles;
    const int j = v - slice * p.tail_tiles;
    tile = p.dp_tiles + j;
    t.ws_tile = static_cast<long long>(slice) * p.tail_tiles + j;
    t.kb_begin = slice * p.k_blocks_per_split;
    t.kb_end = min(p.k_blocks, t.kb_begin + p.k_blocks_per_split);
  }
  const int per_batch = p.units_m * p.units_n;
  t.batch = tile / per_batch;
  int unit_m, unit_n;
  triton_raster(tile - t.batch * per_batch, p.units_m, p.units_n, p.group_size_m, unit_m, unit_n);
  // The cluster's CTAs take consecutive tile rows (sharing B) or tile columns (kShareA: sharing A); one past the
  // matrix (tiles_m or tiles_n) loads its share for the others and stores nothing.
  t.tile_m = kShareA ? unit_m : unit_m * kCluster + rank;
  t.tile_n = kShareA ? unit_n * kCluster + rank : unit_n;
  return t;
}

// ---------------------------------------------------------------------------------------------
// The kernel.
// ---------------------------------------------------------------------------------------------
// The body of one specialisation. The generator wraps it in an extern "C" __global__ function
// (a stable symbol for the registry and the ptxas report):
//   extern "C" __global__ void __launch_bounds__(Kernel::P::kThreads, 1)
//   NAME(const __grid_constant__ CUtensorMap a, const __grid_constant__ CUtensorMap b,
//        const __grid_constant__ CUtensorMap c, const origami::wgmma::KernelParams p) { Kernel::run(a, b, c, p); }
// The tensor maps stay in the kernel-parameter space (their address is what TMA takes); the
// (threads, 1) launch bound gives the register cap at entry that setmaxnreg needs.
// kSwapAB (16-bit, one CTA per cluster, split-K through the workspace only; cpp/kernels/families/wgmma.py
// SWAP_AB_TILES, study heights SWAP_AB_STUDY_TILES): the kernel computes the problem's C^T = B^T A^T (Launcher::launch
// swaps the operands: the kernel's A is the problem's B^T, its M the problem's N, its B the problem's A^T, its N the
// problem's M) and stores C^T transposed, so the problem's M sits on wgmma's N side, in steps of 8 rows (16 as
// generated) instead of 64: 320 tokens are two tiles of 160 where a 128-row tile leaves 64 of its 384 rows idle. cuBLAS
// runs such tiles at M ~ 300 (nvjet 256x104, 256x152, 64x176 in N-first names:
// benchmarks/results/probes/probe_cublas_kernels_midm_h100.txt). Everything up to the epilogue is the kernel's own
// GEMM; the epilogue stages each slice transposed (stmatrix .trans) and the threads store C's rows from it
// (store_transposed).
// kShareA (a study variant, families/wgmma.py SHARE_A_STUDY_TILES; NOTES.md session 34, not adopted): a cluster of 2
// or 4 CTAs on consecutive tile columns of one tile row, each loading BM / cluster rows of the A tile, multicast to all.
// kPingPong (the 128x128 16-bit kernels' second schedule, ping_pong_pays; NOTES.md v18): each consumer warpgroup
// computes whole tiles, the CTA's tiles alternating between the two, so one's epilogue runs under the other's main loop.
template <int BM, int BN, int kStages, int kConsumers, int kEpiN, ElemType kT, bool kAKMajor, bool kBKMajor,
          int kCluster = 1, bool kSwapAB = false, bool kShareA = false,
          bool kPingPong = false>
struct Kernel {
  using P = KernelPlan<BM, BN, kStages, kConsumers, kEpiN, kT, kBKMajor, kPingPong>;
  static constexpr bool kSwap = kSwapRS<kT, kBKMajor>;
  static __device__ __forceinline__ void run(const CUtensorMap& tma_a, const CUtensorMap& tma_b,
                                             const CUtensorMap& tma_c, const KernelParams& p) {
    if constexpr (kSwap) run_swap(tma_a, tma_b, p);
    else run_ss(tma_a, tma_b, tma_c, p);
  }
  // Both operands from shared memory (every 16-bit layout; TF32 with both operands K-major).
  static __device__ __forceinline__ void run_ss(const CUtensorMap& tma_a, const CUtensorMap& tma_b,
                                                const CUtensorMap& tma_c, const KernelParams& p);
  // TF32 with a row-major B: C^T = B^T A^T, B^T from registers (KernelPlan).
  static __device__ __forceinline__ void run_swap(const CUtensorMap& tma_a, const CUtensorMap& tma_b,
                                                  const KernelParams& p);
  // The wgmma D fragment of a consumer thread as fp32 pairs: acc[mi][4j + 2h + e] is tile row
  // row0(cw) + mi * 64 + warp * 16 + lane / 4 + 8h, column col0(cw) + 8j + 2 (lane % 4) + e; f(row, col, pair)
  // for each (mi, j, h). The split-K partial writes (to shared memory or the workspace) go through it.
  template <class F>
  static __device__ __forceinline__ void for_each_pair(const float (&acc)[P::kMmaM][P::kColsPerConsumer / 2], int cw,
                                                       int warp, int lane, F&& f) {
#pragma unroll
    for (int mi = 0; mi < P::kMmaM; ++mi)
#pragma unroll
      for (int j = 0; j < P::kColsPerConsumer / 8; ++j)
#pragma unroll
        for (int h = 0; h < 2; ++h)
          f(P::row0(cw) + mi * 64 + warp * 16 + lane / 4 + 8 * h, P::col0(cw) + 8 * j + 2 * (lane % 4),
            make_float2(acc[mi][4 * j + 2 * h], acc[mi][4 * j + 2 * h + 1]));
  }
  // Called by the consumer threads only (the producer warpgroup arrives on the same two barriers in run()).
  static __device__ __forceinline__ void cluster_reduce(const KernelParams& p, std::uint32_t partials);

  // kSwapAB's epilogue for consumer warpgroup cw: the accumulators are C^T's tile (row i = the problem's column, the
  // kernel's M; column j = the problem's row, the kernel's N). Bias (the problem's, one value per C^T row) in fp32,
  // then each kEpiN-column slice goes through this warpgroup's staging buffer transposed: staged row j holds the slice
  // column j's kRowsPerConsumer values, 16-byte chunk c (rows 8c .. 8c + 7) at slot c ^ (j % 8), so that the 8 rows a
  // stmatrix matrix writes, and the 8 chunks a row's 8 readers take, fall on 8 different 16-byte bank groups. The
  // threads then store each staged row as a row of C: consecutive threads, consecutive 16-byte chunks. (i0, j0): the
  // first C^T row and column the accumulators stand for (shifted at an edge); (m0, n0): the tile's own, before which
  // nothing is stored.
  static __device__ __forceinline__ void store_transposed(float (&acc)[P::kMmaM][P::kColsPerConsumer / 2], int cw,
                                                          int warp, int lane, int t, const KernelParams& p, int batch,
                                                          int m0, int n0, int i0, int j0, std::uint8_t* c_stage) {
    constexpr int kRows = P::kRowsPerConsumer;  // C^T rows of this warpgroup = elements per staged row
    constexpr int kRowBytes = kRows * 2;
    constexpr int kChunks = kRows / 8;          // 16-byte chunks per staged row (a multiple of 8: the XOR slots)
    constexpr int kGroups = kEpiN / 8;          // 8-column groups (one D fragment each) per slice
    static_assert(kT != ElemType::TFloat32 && kRows % 64 == 0 && kEpiN % 8 == 0, "16-bit, whole m64 slabs");
    if (p.bias != nullptr) {
      const Word<kT>* bias = static_cast<const Word<kT>*>(p.bias);
#pragma unroll
      for (int mi = 0; mi < P::kMmaM; ++mi)
#pragma unroll
        for (int h = 0; h < 2; ++h) {
          const int gi = i0 + P::row0(cw) + mi * 64 + warp * 16 + lane / 4 + 8 * h;
          const float bv = gi < p.M ? elem_to_float<kT>(bias[gi]) : 0.f;
#pragma unroll
          for (int j = 0; j < P::kColsPerConsumer / 8; ++j) {
            acc[mi][4 * j + 2 * h] += bv;
            acc[mi][4 * j + 2 * h + 1] += bv;
          }
        }
    }
    using CWord = Word<kT>;
    CWord* cg = static_cast<CWord*>(p.c) + batch * p.c_stride_batch;
    std::uint8_t* rows = c_stage + static_cast<std::size_t>(cw) * kRows * kEpiN * 2;
    const std::uint32_t rows_addr = smem_addr(rows);
    const int i_base = i0 + P::row0(cw);
    // lane l gives the address of row l % 8 of matrix l / 8
    const int k = lane / 8, q = lane % 8;
#pragma unroll
    for (int pass = 0; pass < P::kColsPerConsumer / kEpiN; ++pass) {
      named_barrier_sync(1 + cw, 128);  // the previous slice's rows have been stored
#pragma unroll
      for (int mi = 0; mi < P::kMmaM; ++mi) {
#pragma unroll
        for (int g = 0; g < kGroups; g += 2) {
          const int jf = pass * kGroups + g;  // the fragment's 8-column group
          if (g + 1 < kGroups) {
            // matrices (rows h = 0, 1 of the warp's 16) x (column groups g, g + 1)
            const int j = (g + k / 2) * 8 + q, c = mi * 8 + warp * 2 + (k % 2);
            stmatrix_x4_trans(rows_addr + j * kRowBytes + ((c ^ (j % 8)) << 4),
                              pack2<kT>(acc[mi][4 * jf + 0], acc[mi][4 * jf + 1]),
                              pack2<kT>(acc[mi][4 * jf + 2], acc[mi][4 * jf + 3]),
                              pack2<kT>(acc[mi][4 * jf + 4], acc[mi][4 * jf + 5]),
                              pack2<kT>(acc[mi][4 * jf + 6], acc[mi][4 * jf + 7]));
          } else {
            const int j = g * 8 + q, c = mi * 8 + warp * 2 + ((lane / 8) % 2);  // lanes 0-15 address
            stmatrix_x2_trans(rows_addr + j * kRowBytes + ((c ^ (j % 8)) << 4),
                              pack2<kT>(acc[mi][4 * jf + 0], acc[mi][4 * jf + 1]),
                              pack2<kT>(acc[mi][4 * jf + 2], acc[mi][4 * jf + 3]));
          }
        }
      }
      named_barrier_sync(1 + cw, 128);
      const int j_base = j0 + P::col0(cw) + pass * kEpiN;
#pragma unroll 4
      for (int idx = t; idx < kEpiN * kChunks; idx += 128) {
        const int j = idx / kChunks, c = idx - j * kChunks;
        const int gi = i_base + c * 8, gj = j_base + j;  // (chunks of a shifted tile lie wholly before or in its own)
        if (gi < m0 || gj < n0 || gi >= p.M || gj >= p.N) continue;
        const std::uint8_t* src = rows + j * kRowBytes + ((c ^ (j % 8)) << 4);
        CWord* dst = cg + static_cast<long long>(gj) * p.c_stride_m + gi;
        if (gi + 8 <= p.M && p.c_vector_ok) {
          *reinterpret_cast<uint4*>(dst) = *reinterpret_cast<const uint4*>(src);
        } else {
          const CWord* sw = reinterpret_cast<const CWord*>(src);
          for (int e = 0; e < 8 && gi + e < p.M; ++e) dst[e] = sw[e];
        }
      }
    }
  }
};

template <int BM, int BN, int kStages, int kConsumers, int kEpiN, ElemType kT, bool kAKMajor, bool kBKMajor,
          int kCluster, bool kSwapAB, bool kShareA, bool kPingPong>
__device__ __forceinline__ void Kernel<BM, BN, kStages, kConsumers, kEpiN, kT, kAKMajor, kBKMajor, kCluster, kSwapAB,
                                       kShareA, kPingPong>::run_ss(
    const CUtensorMap& tma_a, const CUtensorMap& tma_b, const CUtensorMap& tma_c, const KernelParams& p) {
  static_assert(kBKMajor || BN % 64 == 0, "an N-major B is loaded in 64-column TMA boxes");
  static_assert(kT != ElemType::TFloat32 || (kAKMajor && kBKMajor), "wgmma reads TF32 operands K-major only");
  static_assert(kCluster == 1 || kCluster == 2 || (kShareA && kCluster == 4), "1 or 2 CTAs per cluster (4 sharing A)");
  static_assert(!kShareA || (kCluster > 1 && kAKMajor && BM % (8 * kCluster) == 0),
                "a cluster sharing A: K-major A, each CTA multicasting whole 8-row swizzle groups of it");
  // (a swapped kernel in a 2-CTA cluster: the pair takes two tile rows of the kernel's, i.e. two column blocks of the
  // problem's N, and multicasts the kernel's B, the problem's A: the activations' M x K slab both need)
  static_assert(!kSwapAB || (kT != ElemType::TFloat32 && !kShareA && P::kRowsPerConsumer % 64 == 0),
                "the swapped-operand kernels: 16-bit, B-sharing clusters only, whole m64 slabs per consumer");
  static_assert(BN <= 256 || (kBKMajor && kCluster == 1 && P::kBBoxRows % 8 == 0 && P::kBBoxRows <= 256),
                "a tile wider than 256 columns: a K-major B in two boxes, one CTA per cluster");
  static_assert(kShareA || BN % (8 * kCluster) == 0, "each CTA's multicast share of B is whole 8-row swizzle groups");
  constexpr bool kShareB = kCluster > 1 && !kShareA;
  static_assert(!kPingPong || (kConsumers == 2 && kCluster == 1 && !kSwapAB && kT != ElemType::TFloat32),
                "ping-pong: two consumer warpgroups, one CTA per cluster, 16-bit");
  constexpr int kMmaM = P::kMmaM;
  constexpr int kAcc = P::kColsPerConsumer / 2;  // accumulators per m64 slab per thread
  // A consumer's column share of an N-major B starts on a 64-column box (the MN-major descriptor's unit).
  static_assert(kBKMajor || P::kColsPerConsumer % 64 == 0, "split along N with an N-major B: whole 64-column boxes");
  // The cluster reduction's fp32 partial tile, rows of BN + 8 floats (the pad puts rows r and r + 4 of a fragment
  // write 32 bytes apart in the banks: two wavefronts per warp instruction, the minimum for 256 bytes), in the stage
  // ring, idle by then (one unit per CTA: every stage it loaded has been consumed).
  constexpr int kPartialLd = BN + 8;
  static_assert(BM * kPartialLd * 4 <= kStages * P::kStageBytes, "the partial tile must fit the stage ring");

  extern __shared__ std::uint8_t smem_raw[];
  // Align the stage ring to 1024 B (the dynamic-smem base is only guaranteed 16 B).
  const std::uint32_t raw_addr = smem_addr(smem_raw);
  const std::uint32_t pad = (kSmemAlignBytes - (raw_addr & (kSmemAlignBytes - 1))) & (kSmemAlignBytes - 1);
  std::uint8_t* smem = smem_raw + pad;
  const std::uint32_t ring = raw_addr + pad;  // stage s: A at ring + s*kStageBytes, then B
  std::uint8_t* c_stage = smem + kStages * P::kStageBytes;
  const std::uint32_t bars = ring + kStages * P::kStageBytes + P::kCBytes;
  auto full_bar = [&](int s) { return bars + 8u * s; };
  auto empty_bar = [&](int s) { return bars + 8u * (kStages + s); };
  // kPingPong: order_bar(w) completes a phase each time warpgroup w has passed the last stage wait of a tile's main
  // loop; the other warpgroup waits for it before its own main loop. Without the order a warpgroup that steps over
  // the other's stages would wait on ring positions many phases ahead, which a parity wait cannot tell apart.
  auto order_bar = [&](int w) { return bars + 8u * (2 * kStages + w); };

  // Programmatic dependent launch (pdl.hpp): this CTA's set-up below (barrier init, tensor-map prefetch)
  // overlaps the previous kernel; global memory waits for it, then the next kernel may launch.
  // The warpgroup index through a warp shuffle: the same value, but one the compiler knows is warp-uniform, so what is
  // derived from it (the consumer's rows, its wgmma descriptors desc_a0 / desc_b0) lives in uniform registers.
  const int warpgroup = __shfl_sync(0xffffffffu, static_cast<int>(threadIdx.x / 128), 0);
  if (threadIdx.x == 0) {
    // The tensor maps live in the kernel's parameter space, not in memory a prior kernel writes
    // (K == 0: no maps were encoded).
    if (p.k_blocks > 0) {
      asm volatile("prefetch.tensormap [%0];" ::"l"(&tma_a) : "memory");
      asm volatile("prefetch.tensormap [%0];" ::"l"(&tma_b) : "memory");
    }
    if (p.c_tma) asm volatile("prefetch.tensormap [%0];" ::"l"(&tma_c) : "memory");
    for (int s = 0; s < kStages; ++s) {
      mbar_init(full_bar(s), 1);                    // the producer's arrive.expect_tx
      // one arrive per consumer warp of every CTA whose smem this stage's multicast writes
      mbar_init(empty_bar(s), 4 * (kPingPong ? 1 : kConsumers) * kCluster);
    }
    if constexpr (kPingPong) {
      mbar_init(order_bar(0), 4);  // one arrive per warp of the warpgroup
      mbar_init(order_bar(1), 4);
    }
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  // The peer's barriers must be initialised before any multicast or remote arrive reaches them.
  if constexpr (kCluster > 1) cluster_sync();
  else __syncthreads();
  const int rank = kCluster > 1 ? static_cast<int>(cluster_ctarank()) : 0;
  pdl_wait_for_prior_grids();  // before the first TMA load and the first store of C
  pdl_launch_dependents();

  if (warpgroup == 0) {
    // ------------------------------ producer warpgroup ------------------------------
    if constexpr (kConsumers == 2) setmaxnreg_dec<40>();
    if (threadIdx.x == 0) {
      int stage = 0;
      std::uint32_t phase = 0;
      for (int unit = blockIdx.x / kCluster; unit < p.units_total; unit += gridDim.x / kCluster) {
        const TileCoord tc = tile_coord<kCluster, kShareA>(unit, p, rank);
        const int m0 = tc.tile_m * BM, n0 = tc.tile_n * BN;
        // (K-major boxes of an edge tile end at the matrix edge: KernelParams::shift_edges)
        const int am0 = edge_origin(m0, BM, p.M, kAKMajor && (p.shift_edges & 1), kSwapAB ? 8 : 1);
        const int bn0 = edge_origin(n0, BN, p.N, kBKMajor && (p.shift_edges & 2), 8);
        const int ba = tc.batch * p.a_batch_step, bb = tc.batch * p.b_batch_step;
        for (int kb = tc.kb_begin; kb < tc.kb_end; ++kb) {
          mbar_wait(empty_bar(stage), phase ^ 1);
          const std::uint32_t fb = full_bar(stage);
          mbar_arrive_expect_tx(fb, p.stage_tx_bytes);  // zero-filled out-of-range bytes of a box count too
          const std::uint32_t a_dst = ring + stage * P::kStageBytes;
          const std::uint32_t b_dst = a_dst + P::kABytes;
          const int k0 = kb * kBlockK<kT>;
          if constexpr (kShareA) {
            // The cluster's CTAs (one tile row, consecutive tile columns) share this A tile: each loads its share
            // of the rows once, for all.
            constexpr int kRows = BM / kCluster;  // box {BLOCK_K, BM / cluster}
            tma_load_3d_multicast(a_dst + rank * kRows * 128, &tma_a, fb, k0, am0 + rank * kRows, ba,
                                  (1u << kCluster) - 1);
          } else if constexpr (kAKMajor) {
            tma_load_3d(a_dst, &tma_a, fb, k0, am0, ba);  // box {BLOCK_K, BM}
          } else {
#pragma unroll
            for (int i = 0; i < BM / 64; ++i)
              if (i < p.a_slabs) tma_load_3d(a_dst + i * 8192, &tma_a, fb, m0 + 64 * i, k0, ba);
          }
          if constexpr (!kShareB) {
            if constexpr (kBKMajor) {
#pragma unroll
              for (int i = 0; i < BN / P::kBBoxRows; ++i)  // box {BLOCK_K, BN} (BN > 256: two of BN / 2 rows)
                tma_load_3d(b_dst + i * P::kBBoxRows * 128, &tma_b, fb, k0, bn0 + i * P::kBBoxRows, bb);
            } else {
#pragma unroll
              for (int i = 0; i < BN / 64; ++i)
                if (i < p.b_slabs) tma_load_3d(b_dst + i * 8192, &tma_b, fb, n0 + 64 * i, k0, bb);
            }
          } else {
            // The cluster's CTAs share this B tile: each loads its share once, for both.
            constexpr std::uint16_t kAll = (1u << kCluster) - 1;
            if constexpr (kBKMajor) {
              constexpr int kRows = BN / kCluster;  // box {BLOCK_K, BN / cluster}
              tma_load_3d_multicast(b_dst + rank * kRows * 128, &tma_b, fb, k0, bn0 + rank * kRows, bb, kAll);
            } else {
#pragma unroll
              for (int i = 0; i < BN / 64; ++i)
                if (i % kCluster == rank)
                  tma_load_3d_multicast(b_dst + i * 8192, &tma_b, fb, n0 + 64 * i, k0, bb, kAll);
            }
          }
          if (++stage == kStages) {
            stage = 0;
            phase ^= 1;
          }
        }
      }
    }
    // The cluster reduction's two barriers count every thread of the cluster (the consumers' are in
    // cluster_reduce). Code after setmaxnreg.dec runs within the producer's 40 registers: the reduction itself
    // stays in the consumer branch (reached from here, ptxas spilled it in the 168-register kernels).
    if constexpr (kCluster == 1) {
      if (p.cluster_slices > 1) {
        cluster_sync();
        cluster_sync();
      }
    }
  } else {
    // ------------------------------ consumer warpgroups ------------------------------
    // 40 + 2 x 232 = 504 registers per lane of the three warpgroups (<= 512: 65,536 / 128).
    if constexpr (kConsumers == 2) setmaxnreg_inc<232>();
    const int cw = warpgroup - 1;
    const int t = threadIdx.x % 128;
    const int warp = t / 32, lane = t % 32;
    int stage = 0;
    std::uint32_t phase = 0;
    float acc[kMmaM][kAcc];

    // This consumer's wgmma descriptors at stage 0, k-step 0 (its 8-row swizzle groups of a K-major operand, or its
    // 64-wide boxes of an M-/N-major one); a k-step and a stage only move the start address (wgmma_desc_step).
    const std::uint64_t desc_b0 =
        kBKMajor ? make_desc(ring + P::kABytes + P::col0(cw) * 128, 16, 1024)
                 : make_desc(ring + P::kABytes + (P::col0(cw) / 64) * 8192, 8192, 1024);
    std::uint64_t desc_a0[kMmaM];
#pragma unroll
    for (int mi = 0; mi < kMmaM; ++mi) {
      const int row0 = P::row0(cw) + mi * 64;
      desc_a0[mi] = kAKMajor ? make_desc(ring + row0 * 128, 16, 1024) : make_desc(ring + (row0 / 64) * 8192, 8192, 1024);
    }

    int local_tile = 0;  // this CTA's tiles so far (kPingPong: warpgroup cw takes every other one)
    for (int unit = blockIdx.x / kCluster; unit < p.units_total; unit += gridDim.x / kCluster, ++local_tile) {
      const TileCoord tc = tile_coord<kCluster, kShareA>(unit, p, rank);
      const int n_kb = tc.kb_end - tc.kb_begin;  // this unit's k-blocks (all of K without split-K)
      if constexpr (kPingPong) {
        if ((local_tile & 1) != cw) {  // the other warpgroup's tile: step over its stages in the ring
          const int s = stage + n_kb;
          phase ^= static_cast<std::uint32_t>(s / kStages) & 1u;
          stage = s % kStages;
          continue;
        }
        // Tile 2j + cw waits for tile 2j + cw - 1 of the other warpgroup: its completion number j + cw - 1.
        if (local_tile > 0) mbar_wait(order_bar(cw ^ 1), static_cast<std::uint32_t>((local_tile / 2 + cw - 1) & 1));
      }
      if (n_kb == 0) {
#pragma unroll
        for (int mi = 0; mi < kMmaM; ++mi)
#pragma unroll
          for (int i = 0; i < kAcc; ++i) acc[mi][i] = 0.f;
      }
      int prev_stage = 0;
      for (int kb = 0; kb < n_kb; ++kb) {
        mbar_wait(full_bar(stage), phase);
#pragma unroll
        for (int mi = 0; mi < kMmaM; ++mi) fence_accumulators(acc[mi]);
        wgmma_fence();
        const std::uint64_t stage_step = wgmma_desc_step(stage * P::kStageBytes);
#pragma unroll
        for (int kk = 0; kk < kKStepsPerBlock; ++kk) {
          // K-major: k-step kk is 32 bytes further along each 128-byte row; N-/M-major: 16 rows of 128 bytes further
          const std::uint64_t db = desc_b0 + stage_step + wgmma_desc_step(kk * (kBKMajor ? 32 : 2048));
#pragma unroll
          for (int mi = 0; mi < kMmaM; ++mi) {
            const std::uint64_t da = desc_a0[mi] + stage_step + wgmma_desc_step(kk * (kAKMajor ? 32 : 2048));
            Wgmma<P::kColsPerConsumer, kT>::template mma<kAKMajor ? 0 : 1, kBKMajor ? 0 : 1>(acc[mi], da, db,
                                                                                             (kb | kk) != 0);
          }
        }
        wgmma_commit();
#pragma unroll
        for (int mi = 0; mi < kMmaM; ++mi) fence_accumulators(acc[mi]);
        // Keep this k-block's group in flight; the previous one has finished reading its stage.
        wgmma_wait<1>();
        if (kb > 0 && lane == 0) {
          mbar_arrive(empty_bar(prev_stage));
#pragma unroll
          for (int r = 1; r < kCluster; ++r) mbar_arrive_peer(empty_bar(prev_stage), rank ^ r);
        }
        prev_stage = stage;
        if (++stage == kStages) {
          stage = 0;
          phase ^= 1;
        }
      }
      if constexpr (kPingPong) {
        if (lane == 0) mbar_arrive(order_bar(cw));  // every stage wait of this tile is behind: the other may start
      }
      wgmma_wait<0>();
#pragma unroll
      for (int mi = 0; mi < kMmaM; ++mi) fence_accumulators(acc[mi]);
      if (n_kb > 0 && lane == 0) {
        mbar_arrive(empty_bar(prev_stage));
#pragma unroll
        for (int r = 1; r < kCluster; ++r) mbar_arrive_peer(empty_bar(prev_stage), rank ^ r);
      }

      // The tile's own rows and columns, and those its accumulators stand for (shifted at an edge: shift_edges).
      const int m0 = tc.tile_m * BM, n0 = tc.tile_n * BN;
      const int am0 = edge_origin(m0, BM, p.M, kAKMajor && (p.shift_edges & 1), kSwapAB ? 8 : 1);
      const int bn0 = edge_origin(n0, BN, p.N, kBKMajor && (p.shift_edges & 2), 8);
      const int m_base = am0 + P::row0(cw);
      if (p.cluster_slices > 1) {
        // ---- cluster split-K: this slice's fp32 partial tile into the (now idle) stage ring ----
        // Every consumer warpgroup has finished its wgmmas (they read the ring) before any thread overwrites it.
        if constexpr (kCluster == 1) {
          named_barrier_sync(1 + kConsumers, 128 * kConsumers);
          float* part = reinterpret_cast<float*>(smem);
          for_each_pair(acc, cw, warp, lane, [&](int row, int col, float2 v) {
            *reinterpret_cast<float2*>(part + row * kPartialLd + col) = v;
          });
        }
        continue;  // the reduction follows the cluster barrier, after the loop (one unit per CTA)
      }
      if (tc.ws_tile >= 0) {
        // ---- split-K epilogue: the fp32 partial tile straight from the accumulators ----
        // A float2 per fragment pair, the 4 lanes of a row writing one 32-byte sector. Elements outside C are not
        // written (the reduction never reads them).
        // (The addresses stay W + row * BN + col with row and col the fragment's: written through the tile's own
        // origin, W + (gm - m0) * BN + (gn - n0), split launches of K-major B ran 15-20 % slower on the H100 at
        // sizes with nothing to shift; benchmarks/results/probes/probe_split_ab_h100.txt.)
        float* W = p.ws + tc.ws_tile * static_cast<long long>(BM * BN);
        if constexpr (kSwapAB) {
          // The swapped kernel's tile is C^T's: its partial goes to the workspace as the problem's tile (kernel row
          // r = the problem's column, kernel column c = its row: at (c - dn) * BM + r - dm), so the reduction reads
          // the problem's layout (split_k.cu, its swapped raster). Per store the 8 lanes of a column write 32
          // consecutive bytes (rows lane / 4), 4 full sectors per instruction.
          const int dm = m0 - am0, dn = n0 - bn0;  // 0 unless the tile is shifted at an edge (edge_origin)
          for_each_pair(acc, cw, warp, lane, [&](int row, int col, float2 v) {
            if (row < dm || col < dn || am0 + row >= p.M) return;  // (dn is a multiple of 8, col even)
            if (bn0 + col < p.N) W[(col - dn) * BM + (row - dm)] = v.x;
            if (bn0 + col + 1 < p.N) W[(col + 1 - dn) * BM + (row - dm)] = v.y;
          });
          continue;
        }
        if (am0 == m0 && bn0 == n0) {
          for_each_pair(acc, cw, warp, lane, [&](int row, int col, float2 v) {
            if (m0 + row < p.M && n0 + col < p.N) *reinterpret_cast<float2*>(W + row * BN + col) = v;
          });
        } else {  // a shifted tile: its fragment row r is the tile's row r - dm (rows before dm are its neighbour's)
          const int dm = m0 - am0, dn = n0 - bn0;  // >= 0; dn a multiple of 8 (edge_origin)
          float* Wt = W - (dm * BN + dn);
          for_each_pair(acc, cw, warp, lane, [&](int row, int col, float2 v) {
            if (row >= dm && col >= dn && am0 + row < p.M && bn0 + col < p.N)
              *reinterpret_cast<float2*>(Wt + row * BN + col) = v;
          });
        }
        continue;
      }

      if constexpr (kSwapAB) {
        store_transposed(acc, cw, warp, lane, t, p, tc.batch, m0, n0, am0, bn0, c_stage);
        continue;
      }
      if (p.bias != nullptr) {
        // Fused bias: column n of every row gets bias[n], in fp32, before the one rounding to the output type.
        const Word<kT>* bias = static_cast<const Word<kT>*>(p.bias);
#pragma unroll
        for (int j = 0; j < P::kColsPerConsumer / 8; ++j) {
          const int gn = bn0 + P::col0(cw) + 8 * j + 2 * (lane % 4);
          const float b0 = gn < p.N ? elem_to_float<kT>(bias[gn]) : 0.f;
          const float b1 = gn + 1 < p.N ? elem_to_float<kT>(bias[gn + 1]) : 0.f;
#pragma unroll
          for (int mi = 0; mi < kMmaM; ++mi) {
            acc[mi][4 * j + 0] += b0;
            acc[mi][4 * j + 1] += b1;
            acc[mi][4 * j + 2] += b0;
            acc[mi][4 * j + 3] += b1;
          }
        }
      }

      // ---- epilogue: registers -> shared memory (this consumer's rows) -> global ----
      // In kColsPerConsumer / kEpiN column slices through this warpgroup's kRowsPerConsumer x kEpiN buffer. Where C takes TMA
      // stores (p.c_tma) and this CTA has another tile to compute, one thread of the warpgroup hands each staged
      // slice to the bulk-copy engine and the warpgroup goes on: the global writes drain while the next slice is
      // staged and the next tile's wgmmas run. Stored by the warpgroup's own threads, the writes held the
      // consumers for ~30 % of 8192x8192x256 and ~15 % of 8192x8192x1024 on the H100; through TMA those run
      // 1.1-1.3x faster (benchmarks/results/probes/probe_epilogue_cost_h100.txt, probe_tma_store_h100.txt). A
      // CTA's last tile has nothing to overlap: its threads store it, so a one-wave launch needs no C map (the
      // launcher skips its encoding; with TMA on every tile and the map always encoded, one-wave sizes ran 3-10 %
      // slower in the harness, ~1 us of host time per launch).
      // (a shifted tile's box would rewrite its neighbour's rows: its threads store its own)
      const bool tma_store = P::kTmaStore && p.c_tma && unit + static_cast<int>(gridDim.x) / kCluster < p.units_total &&
                             am0 == m0 && bn0 == n0;
      std::uint8_t* c_rows = c_stage + static_cast<std::size_t>(cw) * P::kRowsPerConsumer * P::kCRowBytes;
      using CWord = Word<kT>;
      CWord* cg = static_cast<CWord*>(p.c) + tc.batch * p.c_stride_batch;
      constexpr int kChunksPerRow = P::kChunksPerRow;
      constexpr int kChunkElems = P::kChunkElems;
      constexpr int kChunks = P::kRowsPerConsumer * kChunksPerRow;
      constexpr int kRows = P::kRowsPerConsumer;
#pragma unroll
      for (int pass = 0; pass < P::kColsPerConsumer / kEpiN; ++pass) {
        // The buffer must be free: the previous slice's (or tile's) bulk store has read it (its issuing thread
        // waits), or the warpgroup's own copy-out is finished.
        if constexpr (P::kTmaStore) {
          if (p.c_tma && t == 0) bulk_wait_read_all();  // also before a last tile: the previous tile's stores
        }
        named_barrier_sync(1 + cw, 128);
#pragma unroll
        for (int mi = 0; mi < kMmaM; ++mi) {
          const int r = mi * 64 + warp * 16 + lane / 4;  // and r + 8
#pragma unroll
          for (int jj = 0; jj < kEpiN / 8; ++jj) {  // the slice's groups of 8 columns (one D fragment each)
            const int j = pass * (kEpiN / 8) + jj;
            // this lane's two columns, 8 jj + 2 (lane % 4) and the next: in 16-bit chunk jj at byte 4 (lane % 4);
            // in fp32 chunk 2 jj + (lane % 4) / 2 at byte 8 (lane % 2)
            if constexpr (kT == ElemType::TFloat32) {
              const int cc = 2 * jj + (lane % 4) / 2, byte = (lane % 2) * 8;
              std::uint8_t* dst = c_rows + c_chunk_offset<kRows, kChunksPerRow>(r, cc) + byte;
              std::uint8_t* dst8 = c_rows + c_chunk_offset<kRows, kChunksPerRow>(r + 8, cc) + byte;
              *reinterpret_cast<float2*>(dst) = make_float2(acc[mi][4 * j + 0], acc[mi][4 * j + 1]);
              *reinterpret_cast<float2*>(dst8) = make_float2(acc[mi][4 * j + 2], acc[mi][4 * j + 3]);
            } else {
              std::uint8_t* dst = c_rows + c_chunk_offset<kRows, kChunksPerRow>(r, jj) + (lane % 4) * 4;
              std::uint8_t* dst8 = c_rows + c_chunk_offset<kRows, kChunksPerRow>(r + 8, jj) + (lane % 4) * 4;
              *reinterpret_cast<std::uint32_t*>(dst) = pack2<kT>(acc[mi][4 * j + 0], acc[mi][4 * j + 1]);
              *reinterpret_cast<std::uint32_t*>(dst8) = pack2<kT>(acc[mi][4 * j + 2], acc[mi][4 * j + 3]);
            }
          }
        }
        const int n_base = bn0 + P::col0(cw) + pass * kEpiN;
        if constexpr (P::kTmaStore) {
          if (tma_store) {
            fence_proxy_async_shared();  // every thread's staging writes, before the bulk copy reads them
            named_barrier_sync(1 + cw, 128);
            if (t == 0) {
              const std::uint32_t box0 = smem_addr(c_rows);
#pragma unroll
              for (int b = 0; b < kEpiN / P::kBoxCols; ++b)
                tma_store_3d(&tma_c, box0 + b * (kRows * P::kBoxRowBytes), n_base + P::kBoxCols * b, m_base,
                             tc.batch);
              bulk_commit_group();
            }
            continue;
          }
        }
        named_barrier_sync(1 + cw, 128);
        if (!p.c_vector_ok) {
          // C rows not 16-byte aligned (an odd N, or ldc not a multiple of 16 bytes): no 16-byte stores. One
          // thread storing its chunk's elements would make each warp-wide store hit 32 small pieces 16 bytes
          // apart (16 partially written sectors per instruction: on the H100 that made 2770x9781x201 fp16 take
          // 141 us against ~40 for the math and the C traffic). Instead the warp stores its 32 chunks
          // element-wise with consecutive lanes on consecutive elements: 32 contiguous elements per instruction.
          const CWord* c_words = reinterpret_cast<const CWord*>(c_rows);
          for (int base = t - lane; base < kChunks; base += 128) {
#pragma unroll
            for (int k = 0; k < kChunkElems; ++k) {
              const int flat = k * 32 + lane;
              const int idx = base + flat / kChunkElems, e = flat % kChunkElems;
              const int r = idx / kChunksPerRow;
              const int cc = idx - r * kChunksPerRow;
              const int gm = m_base + r;
              const int gn = n_base + cc * kChunkElems + e;
              if (gm >= m0 && gn >= n0 && gm < p.M && gn < p.N)
                cg[gm * p.c_stride_m + gn] =
                    c_words[c_chunk_offset<kRows, kChunksPerRow>(r, cc) / static_cast<int>(sizeof(CWord)) + e];
            }
          }
          continue;
        }
#pragma unroll 4
        for (int idx = t; idx < kChunks; idx += 128) {
          const int r = idx / kChunksPerRow;
          const int cc = idx - r * kChunksPerRow;
          const int gm = m_base + r;
          const int gn = n_base + cc * kChunkElems;  // (chunks of a shifted tile lie wholly before or in its own)
          if (gm < m0 || gn < n0 || gm >= p.M || gn >= p.N) continue;
          const std::uint8_t* src = c_rows + c_chunk_offset<kRows, kChunksPerRow>(r, cc);
          CWord* dst = cg + gm * p.c_stride_m + gn;
          if (gn + kChunkElems <= p.N) {
            *reinterpret_cast<uint4*>(dst) = *reinterpret_cast<const uint4*>(src);
          } else {
            const CWord* sw = reinterpret_cast<const CWord*>(src);
            for (int e = 0; e < kChunkElems && gn + e < p.N; ++e) dst[e] = sw[e];
          }
        }
      }
    }
    // The last slices' bulk stores read this CTA's shared memory: it stays until they have read it (their
    // writes complete with the grid, as the threads' own stores do).
    if constexpr (P::kTmaStore) {
      if (p.c_tma && t == 0) bulk_wait_read_all();
    }
    if constexpr (kCluster == 1) {
      if (p.cluster_slices > 1) cluster_reduce(p, smem_addr(smem));
    }
  }
  // No CTA leaves while its peer may still multicast into its shared memory or arrive on its
  // barriers (every thread reaches this point: the idle producer lanes fall through).
  if constexpr (kCluster > 1) cluster_sync();
}

// run_swap: the TF32 kernels of a row-major B (KernelPlan). The units, stages, barriers, split-K forms and PDL are
// run_ss's; what differs is the operand roles and the epilogue:
//  - a stage holds B's tile as TMA loads it from a row-major B (BN / 32 boxes of 32 n x 32 k, rows of 128 B: one k,
//    32 n, 128-byte swizzle) and then A's K-major tile (box {32 k, BM rows});
//  - wgmma's A operand is B^T from registers. Fragment row i of a warp's 16 rows is tile column n = 2 (i % 8) +
//    i / 8 of that warp's 16 (rows g and g + 8 of a thread are columns 2g and 2g + 1): the thread's two rows are
//    adjacent in B's rows, one 8-byte load per k, and its two accumulator rows are adjacent in C's rows, one
//    8-byte store per (m, pair). Any row order is a valid product as long as the epilogue writes row i to column
//    n(i);
//  - wgmma's B operand is A's tile through a K-major descriptor (A^T, N side = BLOCK_M);
//  - the accumulator of slab mi is C^T: acc[mi][4j + 2h + e] is n = cw * kRowsPerConsumer + 64 mi + 16 warp +
//    2 (lane / 4) + h, m = 8j + 2 (lane % 4) + e. The epilogue stores it from registers (no staging): per
//    instruction a warp writes 4 rows of C, 64 contiguous bytes each.
// Each k-block's wgmmas are retired (wait 0) before the next k-block's fragments are loaded: a wgmma's A registers
// must not change before a wait on its group (PTX ISA), and fragment loads issued while wgmmas are in flight make
// ptxas serialise every wgmma of the function (C7513, seen with the loads of k-block kb + 1 before the wait on kb).
// With two consumer warpgroups one loads while the other's wgmmas run.
template <int BM, int BN, int kStages, int kConsumers, int kEpiN, ElemType kT, bool kAKMajor, bool kBKMajor,
          int kCluster, bool kSwapAB, bool kShareA, bool kPingPong>
__device__ __forceinline__ void Kernel<BM, BN, kStages, kConsumers, kEpiN, kT, kAKMajor, kBKMajor, kCluster, kSwapAB,
                                       kShareA, kPingPong>::
    run_swap(const CUtensorMap& tma_a, const CUtensorMap& tma_b, const KernelParams& p) {
  static_assert(kAKMajor && kCluster == 1, "the swapped TF32 kernels read a K-major A, one CTA per cluster");
  static_assert(BN % 32 == 0, "B's tile is loaded in boxes of 32 columns (128 bytes of fp32)");
  static_assert(!P::kSplitN, "the swapped kernels split the tile's N (wgmma's M side) into whole m64 slabs");
  constexpr int kSlabs = P::kMmaM;          // m64 slabs of the tile's N per consumer warpgroup
  constexpr int kAcc = BM / 2;              // accumulators per slab per thread (wgmma N = BLOCK_M)
  constexpr int kBoxBytes = 32 * 128;       // one box of B: 32 k rows of 32 n
  constexpr int kPartialLd = BN + 8;        // cluster_reduce's partial tile (rows of m, as run_ss writes it)
  static_assert(BM * kPartialLd * 4 <= kStages * P::kStageBytes, "the partial tile must fit the stage ring");

  extern __shared__ std::uint8_t smem_raw[];
  const std::uint32_t raw_addr = smem_addr(smem_raw);
  const std::uint32_t pad = (kSmemAlignBytes - (raw_addr & (kSmemAlignBytes - 1))) & (kSmemAlignBytes - 1);
  std::uint8_t* smem = smem_raw + pad;
  const std::uint32_t ring = raw_addr + pad;  // stage s: B's tile at ring + s * kStageBytes, then A's
  const std::uint32_t bars = ring + kStages * P::kStageBytes + P::kCBytes;
  auto full_bar = [&](int s) { return bars + 8u * s; };
  auto empty_bar = [&](int s) { return bars + 8u * (kStages + s); };

  const int warpgroup = threadIdx.x / 128;
  if (threadIdx.x == 0) {
    if (p.k_blocks > 0) {
      asm volatile("prefetch.tensormap [%0];" ::"l"(&tma_a) : "memory");
      asm volatile("prefetch.tensormap [%0];" ::"l"(&tma_b) : "memory");
    }
    for (int s = 0; s < kStages; ++s) {
      mbar_init(full_bar(s), 1);
      mbar_init(empty_bar(s), 4 * kConsumers);
    }
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  __syncthreads();
  pdl_wait_for_prior_grids();
  pdl_launch_dependents();

  if (warpgroup == 0) {
    // ------------------------------ producer warpgroup ------------------------------
    if constexpr (kConsumers == 2) setmaxnreg_dec<40>();
    if (threadIdx.x == 0) {
      int stage = 0;
      std::uint32_t phase = 0;
      for (int unit = blockIdx.x; unit < p.units_total; unit += gridDim.x) {
        const TileCoord tc = tile_coord<1>(unit, p, 0);
        const int m0 = tc.tile_m * BM, n0 = tc.tile_n * BN;
        const int ba = tc.batch * p.a_batch_step, bb = tc.batch * p.b_batch_step;
        for (int kb = tc.kb_begin; kb < tc.kb_end; ++kb) {
          mbar_wait(empty_bar(stage), phase ^ 1);
          const std::uint32_t fb = full_bar(stage);
          mbar_arrive_expect_tx(fb, p.stage_tx_bytes);
          const std::uint32_t b_dst = ring + stage * P::kStageBytes;
          const int k0 = kb * kBlockK<kT>;
#pragma unroll
          for (int i = 0; i < BN / 32; ++i)  // only the boxes that hold columns of B (p.b_slabs)
            if (i < p.b_slabs) tma_load_3d(b_dst + i * kBoxBytes, &tma_b, fb, n0 + 32 * i, k0, bb);
          tma_load_3d(b_dst + P::kABytes, &tma_a, fb, k0, m0, ba);  // box {32 k, min(M, BM) rows}
          if (++stage == kStages) {
            stage = 0;
            phase ^= 1;
          }
        }
      }
    }
    if (p.cluster_slices > 1) {  // cluster_reduce's two barriers (see run_ss)
      cluster_sync();
      cluster_sync();
    }
  } else {
    // ------------------------------ consumer warpgroups ------------------------------
    if constexpr (kConsumers == 2) setmaxnreg_inc<232>();
    const int cw = warpgroup - 1;
    const int t = threadIdx.x % 128;
    const int warp = t / 32, lane = t % 32;
    const int g = lane / 4, q = lane % 4;
    int stage = 0;
    std::uint32_t phase = 0;
    float acc[kSlabs][kAcc];
    std::uint32_t frag[kSlabs][kKStepsPerBlock][4];
    // Byte offset in B's tile of the thread's pair (n, n + 1) at k: box n / 32, row k, 16-byte chunk (n % 32) / 4
    // swizzled by k % 8 (n even: the pair shares a chunk).
    auto frag_offset = [&](int n, int k) {
      return static_cast<std::uint32_t>((n / 32) * kBoxBytes + k * 128 + ((((n % 32) / 4) ^ (k % 8)) << 4) +
                                        (n % 4) * 4);
    };

    for (int unit = blockIdx.x; unit < p.units_total; unit += gridDim.x) {
      const TileCoord tc = tile_coord<1>(unit, p, 0);
      const int n_kb = tc.kb_end - tc.kb_begin;
      if (n_kb == 0) {
#pragma unroll
        for (int mi = 0; mi < kSlabs; ++mi)
#pragma unroll
          for (int i = 0; i < kAcc; ++i) acc[mi][i] = 0.f;
      }
      for (int kb = 0; kb < n_kb; ++kb) {
        mbar_wait(full_bar(stage), phase);
        const std::uint32_t b_base = ring + stage * P::kStageBytes;
        const std::uint32_t a_base = b_base + P::kABytes;
#pragma unroll
        for (int mi = 0; mi < kSlabs; ++mi) {
          const int n = cw * P::kRowsPerConsumer + mi * 64 + warp * 16 + 2 * g;
#pragma unroll
          for (int kk = 0; kk < kKStepsPerBlock; ++kk) {
            // The thread needs k = 8 kk + q (registers 0, 1) and 8 kk + q + 4 (registers 2, 3). Load r of the two
            // reads k + 4 ((q & 1) ^ r): then the 4 lanes q of a half-warp read rows whose k % 8 differ in bits 1-2,
            // so under the swizzle their 32-byte pieces land on 4 different quarters of the banks: 128 bytes per
            // half-warp without a conflict (reading k + 4 hk for all q at once put all four rows on the same 64
            // bytes of banks: twice the wavefronts).
            const int odd = q & 1;
            const uint2 v0 = ld_shared_u2(b_base + frag_offset(n, 8 * kk + q + 4 * odd));
            const uint2 v1 = ld_shared_u2(b_base + frag_offset(n, 8 * kk + q + 4 * (odd ^ 1)));
            const uint2 lo = odd ? v1 : v0, hi = odd ? v0 : v1;  // k = 8 kk + q, and + 4
            frag[mi][kk][0] = lo.x;  // row g: column n
            frag[mi][kk][1] = lo.y;  // row g + 8: column n + 1
            frag[mi][kk][2] = hi.x;
            frag[mi][kk][3] = hi.y;
          }
        }
#pragma unroll
        for (int mi = 0; mi < kSlabs; ++mi) fence_accumulators(acc[mi]);
        wgmma_fence();
#pragma unroll
        for (int kk = 0; kk < kKStepsPerBlock; ++kk) {
          const std::uint64_t db = make_desc(a_base + kk * 32, 16, 1024);
#pragma unroll
          for (int mi = 0; mi < kSlabs; ++mi) Wgmma<BM, kT>::mma_rs(acc[mi], frag[mi][kk], db, (kb | kk) != 0);
        }
        wgmma_commit();
        wgmma_wait<0>();
#pragma unroll
        for (int mi = 0; mi < kSlabs; ++mi) fence_accumulators(acc[mi]);
        if (lane == 0) mbar_arrive(empty_bar(stage));
        if (++stage == kStages) {
          stage = 0;
          phase ^= 1;
        }
      }

      // The thread's elements: for slab mi, column group j, pair e: C rows m = m0 + 8j + 2q + e, columns n, n + 1
      // (n = n_tile + cw * kRowsPerConsumer + 64 mi + 16 warp + 2g), values acc[mi][4j + e] and acc[mi][4j + 2 + e].
      const int m0 = tc.tile_m * BM, n_tile = tc.tile_n * BN;
      auto for_each_pair_t = [&](auto&& f) {  // f(m in tile, n in tile, values at (m, n) and (m, n + 1))
#pragma unroll
        for (int mi = 0; mi < kSlabs; ++mi)
#pragma unroll
          for (int j = 0; j < BM / 8; ++j)
#pragma unroll
            for (int e = 0; e < 2; ++e)
              f(8 * j + 2 * q + e, cw * P::kRowsPerConsumer + mi * 64 + warp * 16 + 2 * g,
                make_float2(acc[mi][4 * j + e], acc[mi][4 * j + 2 + e]));
      };
      if (p.cluster_slices > 1) {
        // Cluster split-K: this slice's fp32 partial tile (rows of m, as run_ss writes it) into the idle ring.
        named_barrier_sync(1 + kConsumers, 128 * kConsumers);
        float* part = reinterpret_cast<float*>(smem);
        for_each_pair_t([&](int row, int col, float2 v) {
          *reinterpret_cast<float2*>(part + row * kPartialLd + col) = v;
        });
        continue;
      }
      if (tc.ws_tile >= 0) {
        // Split-K: the fp32 partial tile (tile-local rows of BN, as the reduction reads them).
        float* W = p.ws + tc.ws_tile * static_cast<long long>(BM * BN);
        for_each_pair_t([&](int row, int col, float2 v) {
          if (m0 + row < p.M && n_tile + col < p.N) *reinterpret_cast<float2*>(W + row * BN + col) = v;
        });
        continue;
      }
      const float* bias = static_cast<const float*>(p.bias);
      float* cg = static_cast<float*>(p.c) + tc.batch * p.c_stride_batch;
      for_each_pair_t([&](int row, int col, float2 v) {
        const int gm = m0 + row, gn = n_tile + col;
        if (gm >= p.M || gn >= p.N) return;
        if (bias != nullptr) {
          v.x += bias[gn];
          if (gn + 1 < p.N) v.y += bias[gn + 1];
        }
        float* dst = cg + gm * p.c_stride_m + gn;
        if (gn + 1 < p.N && p.c_vector_ok) {
          *reinterpret_cast<float2*>(dst) = v;  // 8-byte aligned: c_vector_ok (16-byte rows), gn even
        } else {
          dst[0] = v.x;
          if (gn + 1 < p.N) dst[1] = v.y;
        }
      });
    }
    if (p.cluster_slices > 1) cluster_reduce(p, smem_addr(smem));
  }
}

// The cluster split-K reduction (SplitPlan::cluster): every thread of the S CTAs of a cluster (the S K-slices of one
// tile) arrives (the producer warpgroup's in run()); then the consumer threads of rank r sum the r-th of S contiguous shares of the tile's elements
// inside C from the S partial tiles in slice order 0..S-1, add the bias, round once and store; a second barrier
// keeps each CTA's shared memory alive until its peers have read it. The additions are those of the reduction
// kernel (cpp/kernels/split_k.cu), in the same order: the same bits.
template <int BM, int BN, int kStages, int kConsumers, int kEpiN, ElemType kT, bool kAKMajor, bool kBKMajor,
          int kCluster, bool kSwapAB, bool kShareA, bool kPingPong>
__device__ __forceinline__ void Kernel<BM, BN, kStages, kConsumers, kEpiN, kT, kAKMajor, kBKMajor, kCluster, kSwapAB,
                                       kShareA, kPingPong>::
    cluster_reduce(const KernelParams& p, std::uint32_t partials) {
  constexpr int kPartialLd = BN + 8;  // as in run()
  cluster_sync();  // every slice's partial tile is in its CTA's shared memory
  {
    const int slices = p.cluster_slices;
    const int rank = static_cast<int>(cluster_ctarank());
    const TileCoord tc = tile_coord<1>(static_cast<int>(blockIdx.x), p, 0);
    const int m0 = tc.tile_m * BM, n0 = tc.tile_n * BN;
    const int rows = min(BM, p.M - m0), cols = min(BN, p.N - n0);
    const int groups_per_row = (cols + 3) / 4;  // 4 consecutive outputs per item: one 16-byte load per slice
    const int items = rows * groups_per_row;
    const int share = (items + slices - 1) / slices;
    const int first = rank * share, last = min(items, first + share);
    using CWord = Word<kT>;
    CWord* cg = static_cast<CWord*>(p.c) + tc.batch * p.c_stride_batch;
    const CWord* bias = static_cast<const CWord*>(p.bias);
#pragma unroll 1  // one item (its S loads in flight) per pass
    for (int i = first + static_cast<int>(threadIdx.x) - 128; i < last; i += 128 * kConsumers) {
      const int r = i / groups_per_row, c = (i - r * groups_per_row) * 4;
      const std::uint32_t at = partials + static_cast<std::uint32_t>((r * kPartialLd + c) * 4);
      float4 v[kMaxClusterSlices];
#pragma unroll
      for (int s = 0; s < kMaxClusterSlices; ++s)
        if (s < slices) v[s] = ld_dsmem_f4(at, static_cast<std::uint32_t>(s));
      float out[4] = {v[0].x, v[0].y, v[0].z, v[0].w};
#pragma unroll
      for (int s = 1; s < kMaxClusterSlices; ++s)
        if (s < slices) {
          out[0] += v[s].x;
          out[1] += v[s].y;
          out[2] += v[s].z;
          out[3] += v[s].w;
        }
      const int gm = m0 + r, gn = n0 + c;
      const int valid = min(4, p.N - gn);
      if (bias != nullptr) {
#pragma unroll
        for (int e = 0; e < 4; ++e)
          if (e < valid) out[e] += elem_to_float<kT>(bias[gn + e]);
      }
      CWord* dst = cg + gm * p.c_stride_m + gn;
      if (valid == 4 && p.c_vector_ok) {
        if constexpr (kT == ElemType::TFloat32) {
          *reinterpret_cast<float4*>(dst) = make_float4(out[0], out[1], out[2], out[3]);
        } else {
          *reinterpret_cast<uint2*>(dst) = make_uint2(pack2<kT>(out[0], out[1]), pack2<kT>(out[2], out[3]));
        }
      } else {
#pragma unroll
        for (int e = 0; e < 4; ++e) {  // unrolled: out[] stays in registers
          if (e >= valid) break;
          if constexpr (kT == ElemType::TFloat32) dst[e] = __float_as_uint(out[e]);
          else dst[e] = static_cast<CWord>(pack2<kT>(out[e], 0.f) & 0xFFFFu);
        }
      }
    }
  }
  cluster_sync();  // the peers have read this CTA's partial tile
}

// ---------------------------------------------------------------------------------------------
// Host side: tensor maps and the launcher.
// ---------------------------------------------------------------------------------------------
// cuTensorMapEncodeTiled through the runtime's driver entry point, so nothing links -lcuda.
inline PFN_cuTensorMapEncodeTiled_v12000 tensor_map_encoder() {
  static PFN_cuTensorMapEncodeTiled_v12000 fn = nullptr;
  static std::once_flag once;
  std::call_once(once, [] {
    void* p = nullptr;
    cudaDriverEntryPointQueryResult q{};
    if (cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &p, 12000, cudaEnableDefault, &q) ==
            cudaSuccess &&
        q == cudaDriverEntryPointSuccess)
      fn = reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(p);
  });
  return fn;
}

// A 3-D map {inner, outer, batch} over a matrix of element type t, boxes of {box_inner, box_outer, 1},
// 128-byte swizzle, zero fill outside the tensor. The fp32 operands of the TFloat32 kernels are mapped as TFLOAT32:
// TMA rounds each word to the nearest TF32 value on its way to shared memory, as cuBLAS's TF32 path rounds; mapped
// as FLOAT32 the tensor cores read the upper 19 bits, i.e. truncate. Measured on the H200 (1024x1000x4096, randn,
// benchmarks/results/probes/probe_tf32_rounding_h200.txt): relative error vs the exact product of the inputs
// rounded to TF32 4.8e-6 with TFLOAT32 (vs the truncated inputs 4.8e-6 with FLOAT32), cuBLAS 9.6e-6 from the
// rounded ones; vs fp64: ours 2.94e-4 = cuBLAS's 2.94e-4 (truncating: 7.7e-4, 2.6x). C (`operand` false) stays FLOAT32.
inline bool encode_map(CUtensorMap* map, ElemType t, const void* base, std::int64_t inner, std::int64_t outer,
                       std::int64_t batch, std::int64_t outer_stride_elems, std::int64_t batch_stride_elems,
                       int box_inner, int box_outer, bool operand,
                       CUtensorMapSwizzle swizzle = CU_TENSOR_MAP_SWIZZLE_128B) {
  auto encode = tensor_map_encoder();
  if (!encode) return false;
  const cuuint64_t dims[3] = {static_cast<cuuint64_t>(inner), static_cast<cuuint64_t>(outer),
                              static_cast<cuuint64_t>(batch)};
  // A one-element batch dimension still needs a legal stride (multiple of 16 B, < 2^40).
  const std::int64_t bstride = batch > 1 ? batch_stride_elems : outer_stride_elems * outer;
  const std::int64_t eb = t == ElemType::TFloat32 ? 4 : 2;
  const cuuint64_t strides[2] = {static_cast<cuuint64_t>(outer_stride_elems * eb),
                                 static_cast<cuuint64_t>(bstride * eb)};
  const cuuint32_t box[3] = {static_cast<cuuint32_t>(box_inner), static_cast<cuuint32_t>(box_outer), 1};
  const cuuint32_t elem_strides[3] = {1, 1, 1};
  // L2 promotion: 256-byte fetches where rows start on 128-byte lines; 128-byte fetches where the row pitch is not a
  // multiple of 128 bytes (each box row then straddles two lines, and 256-byte promotion fetches bytes no box
  // reads). H100, 3000^3 fp16 (rows of 6000 B), three tiles: 256 B 159-260 us, 128 B 139-226 us (12-14 % faster),
  // 1000^3 64x128 15.8 -> 14.3 us; 128-byte aligned pitches (3008^3, 1024^3, 8192 x 1024 x 4096) within the
  // run-to-run spread either way (benchmarks/results/probes/probe_tma_row_align_h100.txt).
  const bool pitch_on_lines = (outer_stride_elems * eb) % 128 == 0 && (batch <= 1 || (bstride * eb) % 128 == 0);
  const CUtensorMapDataType type = t == ElemType::Half       ? CU_TENSOR_MAP_DATA_TYPE_FLOAT16
                                   : t == ElemType::BFloat16 ? CU_TENSOR_MAP_DATA_TYPE_BFLOAT16
                                   : operand                 ? CU_TENSOR_MAP_DATA_TYPE_TFLOAT32
                                                             : CU_TENSOR_MAP_DATA_TYPE_FLOAT32;
  const CUresult r = encode(map, type,
                            3, const_cast<void*>(base), dims, strides, box, elem_strides,
                            CU_TENSOR_MAP_INTERLEAVE_NONE, swizzle,
                            pitch_on_lines ? CU_TENSOR_MAP_L2_PROMOTION_L2_256B : CU_TENSOR_MAP_L2_PROMOTION_L2_128B,
                            CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  return r == CUDA_SUCCESS;
}

// What TMA needs of one operand of elem_bytes-byte elements: 16-byte base, 16-byte leading-dimension and batch
// strides.
inline bool tma_compatible(const void* base, std::int64_t ld_elems, std::int64_t batch, std::int64_t batch_stride_elems,
                           int elem_bytes) {
  const std::int64_t align = 16 / elem_bytes;
  if (reinterpret_cast<std::uintptr_t>(base) % 16 != 0) return false;
  if (ld_elems <= 0 || ld_elems % align != 0 || ld_elems * elem_bytes >= (1ll << 40)) return false;
  if (batch > 1 && batch_stride_elems != 0 && (batch_stride_elems % align != 0 || batch_stride_elems < 0)) return false;
  return true;
}

using KernelFn = void (*)(const CUtensorMap, const CUtensorMap, const CUtensorMap, const KernelParams);

// KernelParams::shift_edges on (the default) or off (ORIGAMI_NV_EDGE_SHIFT=0 in the environment, read once: the
// zero-filled edge boxes of before, for measuring the two against each other).
inline bool edge_shift_enabled() {
  static const bool on = [] {
    const char* v = std::getenv("ORIGAMI_NV_EDGE_SHIFT");
    return !(v != nullptr && v[0] == '0' && v[1] == '\0');
  }();
  return on;
}

// Whether a launch of a tile that also has a ping-pong schedule (the 16-bit 128x128 kernels: the generator puts both in
// one translation unit, families/wgmma.py PINGPONG_TILES) takes it: one CTA per SM and every CTA with at least two
// tiles, no split-K. Ping-pong gives each consumer warpgroup whole tiles, alternating, so one warpgroup's epilogue runs
// under the other's main loop; a CTA with a single tile would run it on one warpgroup. H200, dev harness, 3 alternated
// rounds (benchmarks/results/probes/pingpong_h200/, cpp/kernels/wgmma/NOTES.md session 34): 1.01-1.11x the cooperative
// 128x128 at 10 sizes of 2-40 tiles per CTA (geomean 1.05), 0.98-0.99x at one tile per CTA.
// ORIGAMI_NV_PINGPONG=0 keeps the cooperative schedule everywhere (ping_pong_enabled, gemm_args.hpp).
inline bool ping_pong_pays(const GemmArgs& g, int block_m, int block_n) {
  if (g.split_k > 1 || g.M <= 0 || g.N <= 0 || g.batch <= 0 || !ping_pong_enabled()) return false;
  int sms = g.sm_count;
  if (sms <= 0) {
    static std::atomic<int> device_sms[64];
    int dev = 0;
    if (cudaGetDevice(&dev) != cudaSuccess) return false;
    sms = device_sms[dev & 63].load(std::memory_order_relaxed);
    if (sms <= 0) {
      if (cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess || sms <= 0) return false;
      device_sms[dev & 63].store(sms, std::memory_order_relaxed);
    }
  }
  const std::int64_t tiles = g.batch * ((g.M + block_m - 1) / block_m) * ((g.N + block_n - 1) / block_n);
  return tiles >= 2 * static_cast<std::int64_t>(sms);
}

template <int BM, int BN, int kStages, int kConsumers, int kEpiN, ElemType kT, bool kAKMajor, bool kBKMajor,
          int kCluster = 1, bool kSwapAB = false, bool kShareA = false,
          bool kPingPong = false>
struct Launcher {
  using P = KernelPlan<BM, BN, kStages, kConsumers, kEpiN, kT, kBKMajor, kPingPong>;
  static constexpr bool kSwap = kSwapRS<kT, kBKMajor>;
  static constexpr int kBK = kBlockK<kT>;
  static constexpr int kEB = kElemBytes<kT>;
  static_assert(!kSwapAB || (kT != ElemType::TFloat32 && !kShareA), "kSwapAB: 16-bit, B-sharing clusters only");
  static constexpr bool kShareB = kCluster > 1 && !kShareA;  // the cluster's CTAs multicast B (else A, or nothing)

  // The problem's operands in the roles the kSwapAB kernel gives them (its M and N are the problem's N and M).
  static GemmArgs swapped(const GemmArgs& g) {
    GemmArgs s = g;
    s.M = g.N;
    s.N = g.M;
    s.a = g.b;
    s.a_stride_m = g.b_stride_n;
    s.a_stride_k = g.b_stride_k;
    s.a_stride_batch = g.b_stride_batch;
    s.b = g.a;
    s.b_stride_n = g.a_stride_m;
    s.b_stride_k = g.a_stride_k;
    s.b_stride_batch = g.a_stride_batch;
    return s;
  }

  // Launches `kernel` (the generated wrapper of Kernel<same arguments>::run).
  // cudaErrorInvalidValue: the arguments break this specialisation's layout or alignment rule
  // (the op checks KernelEntry::alignment_elems/layout first; this is the last line of defence).
  static cudaError_t launch(KernelFn kernel, const GemmArgs& problem) {
    // kSwapAB: the kernel runs C^T = B^T A^T (Kernel, kSwapAB): its A is the problem's B read as N x K, its B the
    // problem's A read as K x M; C keeps the problem's rows (ldc). Split-K: the schedule is the swapped GEMM's (the
    // same tile count, so the same workspace), each partial tile written in the problem's layout; the reduction
    // walks the swapped raster (launch_split_k_reduce). Not the in-cluster reduction: it stores C as the kernel's
    // rows (the op and launch_gemm give the swapped kernels no cluster slots).
    if constexpr (kSwapAB) {
      return launch_kernel(kernel, swapped(problem), problem);
    } else {
      return launch_kernel(kernel, problem, problem);
    }
  }

  // g: the GEMM the kernel runs (problem, or its swapped form).
  static cudaError_t launch_kernel(KernelFn kernel, const GemmArgs& g, const GemmArgs& problem) {
    if (g.M < 0 || g.N < 0 || g.K < 0 || g.batch < 0) return cudaErrorInvalidValue;
    if (g.M == 0 || g.N == 0 || g.batch == 0) return cudaSuccess;
    if (g.M > INT32_MAX || g.N > INT32_MAX || g.K > INT32_MAX) return cudaErrorInvalidValue;
    const bool has_k = g.K > 0;  // K == 0: C = 0, the operands are never read (no tensor maps)
    // The contiguous dimension of each operand must be the one this specialisation reads.
    if ((kAKMajor ? g.a_stride_k : g.a_stride_m) != 1) return cudaErrorInvalidValue;
    if ((kBKMajor ? g.b_stride_k : g.b_stride_n) != 1) return cudaErrorInvalidValue;
    const std::int64_t lda = kAKMajor ? g.a_stride_m : g.a_stride_k;
    const std::int64_t ldb = kBKMajor ? g.b_stride_n : g.b_stride_k;
    if (has_k && (!tma_compatible(g.a, lda, g.batch, g.a_stride_batch, kEB) ||
                  !tma_compatible(g.b, ldb, g.batch, g.b_stride_batch, kEB)))
      return cudaErrorInvalidValue;
    if (problem.c_stride_m < problem.N && problem.M > 1) return cudaErrorInvalidValue;

    const std::int64_t a_batch = (g.batch > 1 && g.a_stride_batch != 0) ? g.batch : 1;
    const std::int64_t b_batch = (g.batch > 1 && g.b_stride_batch != 0) ? g.batch : 1;
    // An operand shorter than its tile side (M < BM, or N < BN without a cluster: decode and small batches) is
    // loaded without the rows past its end: a K-major operand by a box of its own rows, an MN-major one by the
    // 64-row slabs that hold any of them. A full box would have TMA zero-fill the rest at every stage, and that
    // fill is slow and shared by the SMs: on the H100 a 128x64 tile streaming B at M = 1 ran 1.8x slower on
    // 72 SMs than at M = 128 (benchmarks/results/probes/probe_tma_ctas_h100.txt). The smem rows not loaded
    // hold stale bytes; they only reach accumulator rows (columns) past M (N), which no store writes.
    // (A shared by a cluster: every CTA's box is BM / cluster rows, all loaded, the rows past M zero-filled)
    const int a_rows = kShareA ? BM : static_cast<int>(std::min<std::int64_t>(g.M, BM));
    // (a tile of two B boxes, BN > 256, loads both whole: the model's tma_loaded_rows counts the same)
    const int b_rows = !kShareB && BN <= 256 ? static_cast<int>(std::min<std::int64_t>(g.N, BN)) : BN;
    // An MN-major operand is loaded in boxes of one 128-byte swizzle row by BLOCK_K: 64 x 64 of a 16-bit type
    // (8 KiB), 32 x 32 of fp32 (the swapped TF32 kernels' B, 4 KiB).
    const int a_slabs = (a_rows + 63) / 64, b_slabs = (b_rows + kBK - 1) / kBK;
    CUtensorMap map_a{}, map_b{};
    bool ok = !has_k;
    if (has_k) {
      ok = kAKMajor ? encode_map(&map_a, kT, g.a, g.K, g.M, a_batch, lda, g.a_stride_batch, kBK,
                                 kShareA ? BM / kCluster : a_rows, true)
                     : encode_map(&map_a, kT, g.a, g.M, g.K, a_batch, lda, g.a_stride_batch, 64, 64, true);
      ok = ok && (kBKMajor ? encode_map(&map_b, kT, g.b, g.K, g.N, b_batch, ldb, g.b_stride_batch, kBK,
                                        !kShareB ? std::min(b_rows, P::kBBoxRows) : BN / kCluster, true)
                           : encode_map(&map_b, kT, g.b, g.N, g.K, b_batch, ldb, g.b_stride_batch, kBK, kBK, true));
    }
    if (!ok) return cudaErrorInvalidValue;

    KernelParams p{};
    p.c = g.c;
    p.M = static_cast<int>(g.M);
    p.N = static_cast<int>(g.N);
    p.K = static_cast<int>(g.K);
    p.tiles_m = static_cast<int>((g.M + BM - 1) / BM);
    p.tiles_n = static_cast<int>((g.N + BN - 1) / BN);
    p.units_m = kShareA ? p.tiles_m : (p.tiles_m + kCluster - 1) / kCluster;
    p.units_n = kShareA ? (p.tiles_n + kCluster - 1) / kCluster : p.tiles_n;
    p.k_blocks = static_cast<int>((g.K + kBK - 1) / kBK);
    // Split-K schedule (gemm_args.hpp: split_slots comes from the op / launch_gemm, so the workspace
    // agrees); 2-CTA clusters (a study variant) do not split.
    const SplitPlan sp = has_k ? split_plan(g, BM, BN, kBK) : SplitPlan{};
    if (has_k && g.split_k > 1 && (g.split_slots <= 0 || kCluster > 1 || kPingPong)) return cudaErrorInvalidValue;
    p.split_k = has_k ? sp.slices : 1;
    p.k_blocks_per_split = has_k ? static_cast<int>(sp.k_tiles_per_slice) : 0;
    p.ws = g.workspace;
    p.dp_tiles = static_cast<int>(sp.dp_tiles);
    p.tail_tiles = static_cast<int>(sp.tail_tiles);
    p.cluster_slices = sp.cluster ? sp.slices : 0;
    p.bias = g.bias;  // added in the epilogue of whole tiles; for split tiles the reduction adds it
    if (sp.cluster && (kCluster > 1 || kPingPong || kSwapAB || sp.slices > kMaxClusterSlices))
      return cudaErrorInvalidValue;
    if (p.split_k > 1 && !sp.cluster && p.ws == nullptr) return cudaErrorInvalidValue;  // the op allocates it
    const std::int64_t units = p.split_k > 1 ? sp.units() : static_cast<std::int64_t>(p.units_m) * p.units_n * g.batch;
    if (units * kCluster > INT32_MAX) return cudaErrorInvalidValue;
    p.units_total = static_cast<int>(units);
    // group_size_m counts tile rows (the model's raster); the kernel walks cluster rows (B shared) or tile rows.
    const int cluster_rows = kShareB ? kCluster : 1;
    p.group_size_m = std::max(1, ((g.group_size_m > 0 ? g.group_size_m : 1) + cluster_rows - 1) / cluster_rows);
    p.a_batch_step = a_batch > 1 ? 1 : 0;
    p.b_batch_step = b_batch > 1 ? 1 : 0;
    p.c_stride_m = g.c_stride_m;
    p.c_stride_batch = g.c_stride_batch;
    p.a_slabs = kAKMajor ? BM / 64 : a_slabs;
    p.b_slabs = kBKMajor || kShareB ? BN / kBK : b_slabs;
    p.stage_tx_bytes = (kAKMajor ? a_rows * 128 : a_slabs * 8192) +
                       (kShareB ? P::kBBytes : kBKMajor ? b_rows * 128 : b_slabs * kBK * 128);
    p.c_vector_ok = (reinterpret_cast<std::uintptr_t>(g.c) % 16 == 0) && g.c_stride_m % P::kChunkElems == 0 &&
                    (g.batch == 1 || g.c_stride_batch % P::kChunkElems == 0);
    // Edge tiles' boxes moved inside the matrix (KernelParams::shift_edges): K-major operands whose extent is longer
    // than the tile and not a multiple of it; not for the cluster split-K reduction (its partials are the tiles' own
    // rows in shared memory), nor the TF32 kernels (the 16-bit kernels were measured and tested with it; the TF32 ones
    // take the same code path but were not, twenty-fourth session).
    if (kT != ElemType::TFloat32 && !sp.cluster && edge_shift_enabled()) {
      if (kAKMajor && g.M > BM && g.M % BM != 0) p.shift_edges |= 1;
      if (kBKMajor && g.N > BN && g.N % BN != 0) p.shift_edges |= 2;
    }

    // Raise the dynamic shared-memory limit once per device (it is per function and context).
    static std::atomic<unsigned long long> configured_devices{0};
    int dev = 0;
    cudaError_t e = cudaGetDevice(&dev);
    if (e != cudaSuccess) return e;
    const unsigned long long bit = 1ull << (dev & 63);
    if (!(configured_devices.load(std::memory_order_relaxed) & bit)) {
      e = cudaFuncSetAttribute(reinterpret_cast<const void*>(kernel), cudaFuncAttributeMaxDynamicSharedMemorySize,
                               P::kSmemBytes);
      if (e != cudaSuccess) return e;
      configured_devices.fetch_or(bit, std::memory_order_relaxed);
    }
    int sms = g.sm_count;
    if (sms <= 0) {
      e = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
      if (e != cudaSuccess) return e;
    }
    // C by TMA store (Plan::kTmaStore) where some CTA computes more than one tile (the kernel stores a CTA's
    // last tile with its threads, so a one-wave launch never uses the map, and its encoding, ~1 us of host
    // time, is skipped): boxes of 128-byte rows (64 columns, 32 of fp32; 64-byte rows for the split-N tiles' 32-column
    // slices, Plan::kBoxRowBytes) x one consumer's rows, under the 16-byte
    // rules of the 16-byte stores (the operands' tma_compatible rules, which imply c_vector_ok); a map that cannot be
    // encoded (the driver's stride limits) leaves the threads' own stores.
    CUtensorMap map_c{};
    p.c_tma = !kSwap && !kSwapAB && P::kTmaStore && kCluster == 1 && !sp.cluster && units > sms &&
                      tma_compatible(g.c, g.c_stride_m, g.batch, g.c_stride_batch, kEB) &&
                      encode_map(&map_c, kT, g.c, g.N, g.M, g.batch, g.c_stride_m, g.c_stride_batch, P::kBoxCols,
                                 P::kRowsPerConsumer, false,
                                 P::kBoxRowBytes == 128 ? CU_TENSOR_MAP_SWIZZLE_128B : CU_TENSOR_MAP_SWIZZLE_64B)
                  ? 1
                  : 0;
    cudaLaunchConfig_t cfg{};
    cudaLaunchAttribute attr[3];
    cfg.blockDim = dim3(P::kThreads);
    cfg.dynamicSmemBytes = P::kSmemBytes;
    cfg.stream = g.stream;
    cfg.attrs = attr;
    static std::atomic<unsigned char> waits[64];  // pdl.hpp, per kernel (this template instance) and device
    // The CTAs of this launch (one per SM each) and their K-iterations, for pdl_suits_sm_filling_grid: the
    // persistent grid min(units, SMs), the cluster split's units (one CTA per tile and slice), or the twins' resident
    // clusters (below). A split shares the tiles' K-iterations among more CTAs; their total is the unsplit one's.
    const long long k_iters = static_cast<long long>(p.units_m) * p.units_n * g.batch * p.k_blocks * kCluster;
    auto pdl_suits = [&](long long ctas) {
      return g.programmatic_dependent_launch && pdl_suits_sm_filling_grid(ctas, sms, (k_iters + ctas - 1) / ctas);
    };
    auto with_pdl = [&](long long ctas) {
      cfg.numAttrs = add_pdl_attribute(pdl_suits(ctas), reinterpret_cast<const void*>(kernel), dev, waits, attr, 0);
    };
    if constexpr (kCluster == 1) {
      if (sp.cluster) {
        // Cluster split-K: one CTA per (tile, slice), clusters of the S slices of a tile, as many waves as it
        // takes (the hardware places each cluster in one GPC when S SMs there are free).
        with_pdl(units);
        attr[cfg.numAttrs].id = cudaLaunchAttributeClusterDimension;
        attr[cfg.numAttrs].val.clusterDim.x = static_cast<unsigned>(sp.slices);
        attr[cfg.numAttrs].val.clusterDim.y = 1;
        attr[cfg.numAttrs].val.clusterDim.z = 1;
        ++cfg.numAttrs;
        cfg.gridDim = dim3(static_cast<unsigned>(units));
        return cudaLaunchKernelEx(&cfg, kernel, map_a, map_b, map_c, p);
      }
      const int grid = static_cast<int>(units < sms ? units : sms);  // persistent: one CTA per SM
      with_pdl(grid);
      cfg.gridDim = dim3(grid);
      return cudaLaunchKernelEx(&cfg, kernel, map_a, map_b, map_c, p);
    } else {
      // (the grid's size is known only below, from the resident clusters: the PDL attribute goes last)
      cfg.numAttrs = 0;
      attr[cfg.numAttrs].id = cudaLaunchAttributeClusterDimension;
      attr[cfg.numAttrs].val.clusterDim.x = kCluster;
      attr[cfg.numAttrs].val.clusterDim.y = 1;
      attr[cfg.numAttrs].val.clusterDim.z = 1;
      ++cfg.numAttrs;
      // Persistent: as many clusters as can be resident at once. Not sms / 2: a cluster needs its
      // CTAs in one GPC, and GPCs with an odd number of free SMs leave one idle.
      static std::atomic<int> resident_clusters[64];
      int clusters = resident_clusters[dev & 63].load(std::memory_order_relaxed);
      if (clusters <= 0) {
        cfg.gridDim = dim3(kCluster * (sms / kCluster));
        e = cudaOccupancyMaxActiveClusters(&clusters, kernel, &cfg);
        if (e != cudaSuccess || clusters <= 0) {
          cudaGetLastError();
          clusters = sms / kCluster;
        }
        resident_clusters[dev & 63].store(clusters, std::memory_order_relaxed);
      }
      if (g.sm_count > 0) clusters = std::min(clusters, g.sm_count / kCluster);
      const int grid_clusters = static_cast<int>(std::min<std::int64_t>(units, std::max(1, clusters)));
      cfg.gridDim = dim3(kCluster * grid_clusters);
      cfg.numAttrs = add_pdl_attribute(pdl_suits(static_cast<long long>(kCluster) * grid_clusters),
                                       reinterpret_cast<const void*>(kernel), dev, waits, attr, cfg.numAttrs);
      return cudaLaunchKernelEx(&cfg, kernel, map_a, map_b, map_c, p);
    }
  }
};

}  // namespace wgmma
}  // namespace origami
