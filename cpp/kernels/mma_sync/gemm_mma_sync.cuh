// The mma.sync GEMM kernel family (sm_80+): one CTA computes a BLOCK_M x BLOCK_N tile of C[b] = A[b] * B[b]
// with tensor-core mma.sync.m16n8k16 (fp16/bf16 in, fp32 accumulate), fed by a STAGES-deep cp.async
// shared-memory ring, ldmatrix fragment loads (.trans for the operand layouts that are not K-contiguous
// in shared memory) and an XOR swizzle on 16-byte chunks (bank-conflict free for both cp.async stores
// and ldmatrix reads). The epilogue converts fp32 -> dtype, stages the tile through shared memory and
// writes coalesced 16-byte stores. Tile order follows Triton's GROUP_SIZE_M raster (the order the
// Origami model's L2 term assumes); group_size_m is a launch argument.
//
// Edges: any M, N, K >= 1. Loads past M/N/K are zero-filled with the cp.async src-size operand (a
// partial 16-byte chunk at the K edge reads only its valid bytes); stores are guarded. What the op
// must guarantee (KernelEntry::alignment_elems = 8): 16-byte aligned base pointers and leading
// dimensions (and batch strides) that are multiples of 8 elements, so every 16-byte chunk that starts
// inside the matrix starts on a 16-byte boundary.
#pragma once
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

#include "../gemm_args.hpp"

namespace origami {
namespace mma_sync {

// Kernel arguments (by value in the parameter space). Leading dimensions are of the non-contiguous
// dimension; the contiguous one has stride 1 by construction of the specialisation.
struct Params {
  const void* a;
  const void* b;
  void* c;
  int M, N, K;
  long long lda, ldb, ldc;                  // elements
  long long a_batch, b_batch, c_batch;      // elements
  int tiles_m, tiles_n;
  int group_size_m;
  int batch_base;                           // first batch index of this launch (grid.z chunks)
};

// ---- PTX wrappers ------------------------------------------------------------------------------
__device__ __forceinline__ unsigned smem_u32(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

// 16-byte cp.async, L2-only (.cg: operands are reused through L2, not L1); src_bytes < 16 zero-fills.
__device__ __forceinline__ void cp_async_16(unsigned dst, const void* src, int src_bytes) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src), "r"(src_bytes));
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::); }
template <int N>
__device__ __forceinline__ void cp_async_wait() { asm volatile("cp.async.wait_group %0;\n" ::"n"(N)); }

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

template <typename T>
__device__ __forceinline__ void mma_16816(float (&d)[4], const unsigned (&a)[4], const unsigned (&b)[2]) {
  if constexpr (std::is_same<T, __half>::value) {
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

template <typename T> __device__ __forceinline__ unsigned pack2(float x, float y);
template <> __device__ __forceinline__ unsigned pack2<__half>(float x, float y) {
  __half2 h = __floats2half2_rn(x, y);
  return *reinterpret_cast<unsigned*>(&h);
}
template <> __device__ __forceinline__ unsigned pack2<__nv_bfloat16>(float x, float y) {
  __nv_bfloat162 h = __floats2bfloat162_rn(x, y);
  return *reinterpret_cast<unsigned*>(&h);
}

// ---- shared-memory tile: ROWS rows of COLS contiguous 16-bit elements, XOR-swizzled 16 B chunks ----
// Physical chunk = logical chunk ^ f(row). With R = COLS/8 chunks per row, f makes the 8 rows an
// 8x8 ldmatrix (or 8 lanes of a cp.async phase) touch land in 8 different 16-byte bank groups:
//   R >= 8: f = row % 8            (rows are >= 128 B: every row starts at bank group 0)
//   R <  8: f = (row / (8/R)) % R  (8/R consecutive rows share a 128 B line; the XOR separates the lines)
template <int ROWS, int COLS>
struct SwizzledTile {
  static constexpr int kChunks = COLS / 8;  // 16-byte chunks per row
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
template <typename T, int BM, int BN, int BK, int STAGES, int WARPS_M, int WARPS_N, bool A_K, bool B_K>
struct Kernel {
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
  static constexpr int kEpiPitch = BN + 8;
  static constexpr int kEpilogueBytes = BM * kEpiPitch * 2;
  static constexpr int kSmemBytes = kPipelineBytes > kEpilogueBytes ? kPipelineBytes : kEpilogueBytes;

  static constexpr int kMaxLoadUnroll = 4;
  static constexpr int kMaxKUnroll = 4;  // 16-wide k-steps per unrolled body (see the main loop)

  // Copy one ROWS x COLS tile (rows along `row_dim`, contiguous along `col_dim`) into stage smem.
  template <typename Tile>
  __device__ __forceinline__ static void load_tile(unsigned smem_base, const T* g, long long ld, int row0,
                                                   int row_limit, int col0, int col_limit, int tid) {
    constexpr int kTotal = Tile::kElems / 8;
    constexpr int kIters = (kTotal + kThreads - 1) / kThreads;
    // Unrolled fully only when short: a fully unrolled long copy loop lets the compiler hoist one 64-bit
    // global address per iteration out of the k-loop, which spills the big tiles (ptxas -v).
#pragma unroll(kIters <= kMaxLoadUnroll ? kIters : kMaxLoadUnroll)
    for (int i = 0; i < kIters; ++i) {
      const int idx = tid + i * kThreads;
      if (kTotal % kThreads == 0 || idx < kTotal) {
        const int row = idx / Tile::kChunks;
        const int chunk = idx % Tile::kChunks;
        const int grow = row0 + row;
        const int gcol = col0 + chunk * 8;
        int bytes = 0;
        const T* src = g;  // a valid address even when nothing is read
        if (grow < row_limit && gcol < col_limit) {
          const int valid = col_limit - gcol;
          bytes = valid >= 8 ? 16 : valid * 2;
          src = g + (long long)grow * ld + gcol;
        }
        cp_async_16(smem_base + Tile::offset(row, chunk) * 2, src, bytes);
      }
    }
  }

  __device__ __forceinline__ static void run(const Params& p) {
    extern __shared__ __align__(128) unsigned char smem_raw[];
    T* smem = reinterpret_cast<T*>(smem_raw);
    const unsigned smem_base = smem_u32(smem);

    // Triton-order raster: groups of group_size_m tile-rows, column-major inside a group.
    const int pid = blockIdx.x;
    const int tiles_in_group = p.group_size_m * p.tiles_n;
    const int group_id = pid / tiles_in_group;
    const int first_m = group_id * p.group_size_m;
    const int group_rows = min(p.tiles_m - first_m, p.group_size_m);
    const int in_group = pid % tiles_in_group;
    const int tile_m = first_m + in_group % group_rows;
    const int tile_n = in_group / group_rows;
    const int m0 = tile_m * BM;
    const int n0 = tile_n * BN;
    const long long batch = (long long)p.batch_base + blockIdx.z;

    const T* A = static_cast<const T*>(p.a) + batch * p.a_batch;
    const T* B = static_cast<const T*>(p.b) + batch * p.b_batch;
    T* C = static_cast<T*>(p.c) + batch * p.c_batch;

    const int tid = threadIdx.x;
    const int lane = tid & 31;
    const int warp = tid >> 5;
    const int warp_m0 = (warp / WARPS_N) * kWarpTileM;
    const int warp_n0 = (warp % WARPS_N) * kWarpTileN;

    const int k_tiles = (p.K + BK - 1) / BK;

    auto load_stage = [&](int stage, int kt) {
      const unsigned a_s = smem_base + stage * kStageElems * 2;
      const unsigned b_s = a_s + TileA::kElems * 2;
      const int k0 = kt * BK;
      if constexpr (A_K) load_tile<TileA>(a_s, A, p.lda, m0, p.M, k0, p.K, tid);
      else                load_tile<TileA>(a_s, A, p.lda, k0, p.K, m0, p.M, tid);
      if constexpr (B_K) load_tile<TileB>(b_s, B, p.ldb, n0, p.N, k0, p.K, tid);
      else                load_tile<TileB>(b_s, B, p.ldb, k0, p.K, n0, p.N, tid);
    };

    float acc[kMi][kNi][4];
#pragma unroll
    for (int i = 0; i < kMi; ++i)
#pragma unroll
      for (int j = 0; j < kNi; ++j)
#pragma unroll
        for (int r = 0; r < 4; ++r) acc[i][j][r] = 0.f;

    // Prologue: STAGES-1 tiles in flight. Always commit (possibly empty) groups so that
    // wait_group<STAGES-2> below counts tiles exactly.
#pragma unroll
    for (int s = 0; s < STAGES - 1; ++s) {
      if (s < k_tiles) load_stage(s, s);
      cp_async_commit();
    }

    // Per-lane ldmatrix coordinates (see the fragment layouts of mma.m16n8k16 in the PTX ISA):
    // lane l addresses row (l % 8) of 8x8 matrix l / 8.
    const int lrow = lane & 7;
    const int lmat = lane >> 3;

    int stage = 0;
    for (int kt = 0; kt < k_tiles; ++kt) {
      cp_async_wait<STAGES - 2>();
      __syncthreads();  // tile kt visible to all; stage (kt-1) % STAGES free for reuse
      {
        const int kload = kt + STAGES - 1;
        int s_load = stage + STAGES - 1;
        if (s_load >= STAGES) s_load -= STAGES;
        if (kload < k_tiles) load_stage(s_load, kload);
        cp_async_commit();
      }
      const unsigned a_s = smem_base + stage * kStageElems * 2;
      const unsigned b_s = a_s + TileA::kElems * 2;
      // k-steps of 16: fully unrolled up to kMaxKUnroll (enough for the scheduler to overlap the next
      // step's ldmatrix with this step's mma), partially beyond, for the same register reason as above.
#pragma unroll(BK / 16 <= kMaxKUnroll ? BK / 16 : kMaxKUnroll)
      for (int kk = 0; kk < BK / 16; ++kk) {
        unsigned af[kMi][4];
        unsigned bf[kNi][2];
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
#pragma unroll
        for (int mi = 0; mi < kMi; ++mi)
#pragma unroll
          for (int ni = 0; ni < kNi; ++ni) {
            // Serpentine order over n reuses the last B fragment's registers between rows.
            const int nn = (mi & 1) ? (kNi - 1 - ni) : ni;
            mma_16816<T>(acc[mi][nn], af[mi], bf[nn]);
          }
      }
      if (++stage == STAGES) stage = 0;
    }

    // ---- epilogue: fp32 -> T, staged through shared memory, 16-byte coalesced stores ----
    cp_async_wait<0>();
    __syncthreads();  // every warp is done reading the pipeline buffers we now overwrite
    {
      const int r = lane >> 2;
      const int c = (lane & 3) * 2;
#pragma unroll
      for (int mi = 0; mi < kMi; ++mi)
#pragma unroll
        for (int ni = 0; ni < kNi; ++ni) {
          const int row = warp_m0 + mi * 16 + r;
          const int col = warp_n0 + ni * 8 + c;
          *reinterpret_cast<unsigned*>(smem + row * kEpiPitch + col) = pack2<T>(acc[mi][ni][0], acc[mi][ni][1]);
          *reinterpret_cast<unsigned*>(smem + (row + 8) * kEpiPitch + col) =
              pack2<T>(acc[mi][ni][2], acc[mi][ni][3]);
        }
    }
    __syncthreads();
    {
      constexpr int kChunksPerRow = BN / 8;
      constexpr int kTotal = BM * kChunksPerRow;
      constexpr int kIters = (kTotal + kThreads - 1) / kThreads;
      const bool vec_ok = (p.ldc % 8) == 0;  // every row starts 16-byte aligned
#pragma unroll
      for (int i = 0; i < kIters; ++i) {
        const int idx = tid + i * kThreads;
        if (kTotal % kThreads != 0 && idx >= kTotal) break;
        const int row = idx / kChunksPerRow;
        const int chunk = idx % kChunksPerRow;
        const int gm = m0 + row;
        const int gn = n0 + chunk * 8;
        if (gm >= p.M || gn >= p.N) continue;
        const uint4 v = *reinterpret_cast<const uint4*>(smem + row * kEpiPitch + chunk * 8);
        T* dst = C + (long long)gm * p.ldc + gn;
        if (vec_ok && gn + 8 <= p.N) {
          *reinterpret_cast<uint4*>(dst) = v;
        } else {
          // Ragged N edge or unaligned ldc: element stores (constant register indices, no local memory).
          const unsigned w[4] = {v.x, v.y, v.z, v.w};
          const int n_valid = p.N - gn;
          unsigned short* d16 = reinterpret_cast<unsigned short*>(dst);
#pragma unroll
          for (int j = 0; j < 8; ++j)
            if (j < n_valid) d16[j] = static_cast<unsigned short>(w[j >> 1] >> ((j & 1) * 16));
        }
      }
    }
  }
};

// Host-side launch shared by every specialisation. KernelFn is the extern "C" __global__ wrapper.
template <typename K>
inline cudaError_t launch(void (*kernel)(Params), const GemmArgs& g, int block_m, int block_n) {
  if (g.M <= 0 || g.N <= 0 || g.batch <= 0) return cudaSuccess;
  if (g.M > INT32_MAX || g.N > INT32_MAX || g.K > INT32_MAX) return cudaErrorInvalidValue;
  Params p;
  p.a = g.a;
  p.b = g.b;
  p.c = g.c;
  p.M = static_cast<int>(g.M);
  p.N = static_cast<int>(g.N);
  p.K = static_cast<int>(g.K);
  p.lda = g.a_stride_k == 1 ? g.a_stride_m : g.a_stride_k;
  p.ldb = g.b_stride_k == 1 ? g.b_stride_n : g.b_stride_k;
  p.ldc = g.c_stride_m;
  p.a_batch = g.a_stride_batch;
  p.b_batch = g.b_stride_batch;
  p.c_batch = g.c_stride_batch;
  p.tiles_m = static_cast<int>((g.M + block_m - 1) / block_m);
  p.tiles_n = static_cast<int>((g.N + block_n - 1) / block_n);
  p.group_size_m = g.group_size_m < 1 ? 1 : g.group_size_m;
  const long long tiles = (long long)p.tiles_m * p.tiles_n;
  if (tiles > INT32_MAX) return cudaErrorInvalidValue;

  if (K::kSmemBytes > 48 * 1024) {
    // Opt in to > 48 KB dynamic shared memory; the attribute is per device, so set it once per device.
    static unsigned long long configured_mask = 0;  // benign race: setting it twice is harmless
    int dev = 0;
    cudaError_t e = cudaGetDevice(&dev);
    if (e != cudaSuccess) return e;
    if (dev >= 64 || !(__atomic_load_n(&configured_mask, __ATOMIC_ACQUIRE) & (1ull << dev))) {
      e = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, K::kSmemBytes);
      if (e != cudaSuccess) return e;
      if (dev < 64) __atomic_fetch_or(&configured_mask, 1ull << dev, __ATOMIC_RELEASE);
    }
  }
  constexpr long long kMaxGridZ = 65535;
  for (long long b0 = 0; b0 < g.batch; b0 += kMaxGridZ) {
    const long long nb = g.batch - b0 < kMaxGridZ ? g.batch - b0 : kMaxGridZ;
    p.batch_base = static_cast<int>(b0);
    dim3 grid(static_cast<unsigned>(tiles), 1, static_cast<unsigned>(nb));
    kernel<<<grid, K::kThreads, K::kSmemBytes, g.stream>>>(p);
    cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess) return e;
  }
  return cudaSuccess;
}

}  // namespace mma_sync
}  // namespace origami
