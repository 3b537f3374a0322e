// The op's operand copy (row_copy.hpp). Why not torch's copy_: the sources that need it are exactly those whose
// rows are not 16-byte aligned (an odd leading dimension of a 16-bit matrix), where torch's copy kernel falls back
// to one 2-byte access per element and runs at ~1.1 TB/s on the H100 (1 x 4097 x 4099 with B 4099 x 4097
// row-major: 60 of the op's 78 us). Here each thread writes 16 aligned bytes of a destination row from the (at most
// two) aligned 16-byte blocks of the source that hold them, realigned in registers: every global access is a
// 16-byte vector. Reading a whole aligned 16-byte block that contains a byte of the source never leaves the
// allocation's pages (16-byte blocks do not cross pages), so no row needs a guard beyond its own last chunk.
#include <cuda_runtime.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdlib>

#include "pdl.hpp"
#include "realign.cuh"
#include "row_copy.hpp"

namespace origami {
namespace {

struct RowCopyParams {
  const unsigned char* src;
  unsigned char* dst;
  long long src_ld, src_batch, dst_ld;  // bytes
  long long rows, chunks_per_row;       // rows of all batches; 16-byte destination chunks per row
  long long row_bytes;                  // cols * elem_bytes
  long long total;                      // rows * chunks_per_row
  int elem_bytes;
  long long rows_per_batch;
};

// CHAINED: the instance that takes part in programmatic dependent launch (row_copy.hpp): it waits for the previous
// grid and triggers the next one early (the next grid, e.g. the GEMM, launches while this one copies; its CTAs do
// their set-up and wait for this grid's completion). The trigger fires once every CTA of this grid has issued it,
// i.e. once its last CTA has started; the grid is a grid-stride loop of at most 8 CTAs per SM (launch_row_copy; 6
// resident per SM at 35 registers, ptxas -v sm_90), so that is early in the copy, and the next grid's waiting CTAs
// then take only slots this grid no longer needs. The other instance is the copy as it was before.
template <bool CHAINED>
__global__ void __launch_bounds__(256) row_copy_kernel(const RowCopyParams p) {
  if constexpr (CHAINED) {
    pdl_wait_for_prior_grids();
    pdl_launch_dependents();
  }
  const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
  for (long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; i < p.total; i += stride) {
    const long long r = i / p.chunks_per_row;
    const long long c = (i - r * p.chunks_per_row) * 16;  // byte offset in the row
    const long long b = r / p.rows_per_batch;
    const unsigned char* s = p.src + b * p.src_batch + (r - b * p.rows_per_batch) * p.src_ld + c;
    unsigned char* d = p.dst + r * p.dst_ld + c;
    if (c + 16 <= p.row_bytes) {
      const std::uintptr_t addr = reinterpret_cast<std::uintptr_t>(s);
      const int off = static_cast<int>(addr & 15u);
      const uint4* a = reinterpret_cast<const uint4*>(addr - off);
      const uint4 lo = __ldg(a);
      *reinterpret_cast<uint4*>(d) = off == 0 ? lo : realign(lo, __ldg(a + 1), off);
    } else if (p.elem_bytes == 2) {  // the row's last, partial chunk
      for (long long e = c; e < p.row_bytes; e += 2)
        *reinterpret_cast<unsigned short*>(d + (e - c)) = *reinterpret_cast<const unsigned short*>(s + (e - c));
    } else {
      for (long long e = c; e < p.row_bytes; e += 4)
        *reinterpret_cast<unsigned*>(d + (e - c)) = *reinterpret_cast<const unsigned*>(s + (e - c));
    }
  }
}

// The transposing copy: one 64 x 64 tile at a time through shared memory, so both the reads (along a source row)
// and the writes (along a destination row) are whole 128-byte lines of fp32 (64 bytes of 16-bit) per warp
// instruction. A strided gather without it (torch's copy_ of a transposed view) reads one element per sector: on the
// H200, the B operand of 4096^3 fp32 (K x N row-major, transposed for the TF32 kernels) cost ~118 us in the op.
// Each thread issues all 16 of its loads (into registers) before its first shared-memory store: the bytes in flight
// per SM are what a copy's rate needs (H200, benchmarks/results/probes/probe_transpose_h200.txt, CUDA events over cold
// inputs, medians: 4096 x 4096 fp32 39.7 us = 3.38 TB/s against 37.1 for a device-to-device memcpy of the same bytes;
// the 32 x 32 tile with 4 loads per thread before, 51.6 us; 16-bit 45.5 -> 26.7 us, 8192 x 8192 fp32 190 -> 139).
constexpr int kTransposeTile = 64;
constexpr int kTransposeRowsPerPass = 8;  // blockDim = 32 x 8: each thread moves 16 elements of a tile

struct TransposeParams {
  const void* src;
  void* dst;
  long long src_ld, src_batch, dst_ld;  // elements
  long long rows, cols, batch;
};

// Block (x, y, z) moves tile (x, y) of batch z; the grid's y and z stride over what exceeds their 65,535 limit. No
// division per tile: with one 64-bit division per tile of a grid-stride loop (4 elements a thread) the copy of B for
// 4096^3 fp32 ran at ~1.7 TB/s on the H200.
// CHAINED: as row_copy_kernel's, without the early trigger (below).
template <typename T, bool CHAINED>
__global__ void __launch_bounds__(32 * kTransposeRowsPerPass) transpose_copy_kernel(const TransposeParams p) {
  constexpr int kPasses = kTransposeTile / kTransposeRowsPerPass;  // tile rows per thread
  constexpr int kLanes = kTransposeTile / 32;                      // 32-element pieces of a tile row
  // +1 column: a column read of the tile hits 32 different banks (fp32)
  __shared__ T tile[kTransposeTile][kTransposeTile + 1];
  const T* src = static_cast<const T*>(p.src);
  T* dst = static_cast<T*>(p.dst);
  const int tx = threadIdx.x, ty = threadIdx.y;
  const long long r0 = static_cast<long long>(blockIdx.x) * kTransposeTile;  // along the source's contiguous rows
  // No early trigger: a grid of one CTA per tile can be several waves deep, and the next grid's waiting CTAs would
  // take the slots of its later waves (pdl.hpp); the next grid still launches as this one's CTAs exit.
  if constexpr (CHAINED) pdl_wait_for_prior_grids();
  for (long long b = blockIdx.z; b < p.batch; b += gridDim.z) {
    const T* s = src + b * p.src_batch;
    T* d = dst + b * p.rows * p.dst_ld;
    for (long long c0 = static_cast<long long>(blockIdx.y) * kTransposeTile; c0 < p.cols;
         c0 += static_cast<long long>(gridDim.y) * kTransposeTile) {
      T v[kPasses][kLanes];
#pragma unroll
      for (int k = 0; k < kPasses; ++k)
#pragma unroll
        for (int h = 0; h < kLanes; ++h) {
          const long long c = c0 + ty + k * kTransposeRowsPerPass, r = r0 + tx + 32 * h;
          v[k][h] = c < p.cols && r < p.rows ? s[c * p.src_ld + r] : T(0);
        }
#pragma unroll
      for (int k = 0; k < kPasses; ++k)
#pragma unroll
        for (int h = 0; h < kLanes; ++h) tile[ty + k * kTransposeRowsPerPass][tx + 32 * h] = v[k][h];
      __syncthreads();
#pragma unroll
      for (int k = 0; k < kPasses; ++k)
#pragma unroll
        for (int h = 0; h < kLanes; ++h) {
          const long long r = r0 + ty + k * kTransposeRowsPerPass, c = c0 + tx + 32 * h;
          if (r < p.rows && c < p.cols) d[r * p.dst_ld + c] = tile[tx + 32 * h][ty + k * kTransposeRowsPerPass];
        }
      __syncthreads();  // the tile is rewritten by the next iteration
    }
  }
}

// Launches `kernel` with programmatic stream serialisation where `overlap` and the kernel, as loaded, waits (pdl.hpp).
template <typename Params>
cudaError_t launch_copy(void (*kernel)(Params), dim3 grid, dim3 block, const Params& p, cudaStream_t stream,
                        bool overlap, std::atomic<unsigned char> (&waits)[64]) {
  cudaLaunchConfig_t cfg{};
  cudaLaunchAttribute attr[1];
  cfg.gridDim = grid;
  cfg.blockDim = block;
  cfg.stream = stream;
  cfg.attrs = attr;
  int dev = 0;
  if (overlap && cudaGetDevice(&dev) != cudaSuccess) return cudaGetLastError();
  cfg.numAttrs = add_pdl_attribute(overlap, reinterpret_cast<const void*>(kernel), dev, waits, attr, 0);
  return cudaLaunchKernelEx(&cfg, kernel, p);
}

// ORIGAMI_NV_COPY_PDL=0 in the environment when the library loads: no copy is chained (every copy as before the
// fifty-seventh session), for measuring the change (device_session.sh's vs step with ORIGAMI_NV_COPY_PDL=0).
bool copies_chain() {
  static const bool on = [] {
    const char* v = std::getenv("ORIGAMI_NV_COPY_PDL");
    return !(v != nullptr && v[0] == '0');
  }();
  return on;
}

}  // namespace

bool is_operand_copy_kernel(const void* func) {  // the chained instances only
  return func == reinterpret_cast<const void*>(&row_copy_kernel<true>) ||
         func == reinterpret_cast<const void*>(&transpose_copy_kernel<std::uint16_t, true>) ||
         func == reinterpret_cast<const void*>(&transpose_copy_kernel<std::uint32_t, true>);
}

cudaError_t launch_transpose_copy(const void* src, std::int64_t src_ld, std::int64_t src_batch, void* dst,
                                  std::int64_t dst_ld, std::int64_t batch, std::int64_t rows, std::int64_t cols,
                                  int elem_bytes, cudaStream_t stream, bool chained, bool overlap_previous_kernel) {
  if ((elem_bytes != 2 && elem_bytes != 4) || batch < 0 || rows < 0 || cols < 0 || dst_ld < cols ||
      reinterpret_cast<std::uintptr_t>(src) % elem_bytes != 0 ||
      reinterpret_cast<std::uintptr_t>(dst) % elem_bytes != 0)
    return cudaErrorInvalidValue;
  TransposeParams p;
  p.src = src;
  p.dst = dst;
  p.src_ld = src_ld;
  p.src_batch = src_batch;
  p.dst_ld = dst_ld;
  p.rows = rows;
  p.cols = cols;
  p.batch = batch;
  // one block per tile (every tile in flight from the start)
  const long long tiles_r = (rows + kTransposeTile - 1) / kTransposeTile;
  const long long tiles_c = (cols + kTransposeTile - 1) / kTransposeTile;
  if (tiles_r == 0 || tiles_c == 0 || batch == 0) return cudaSuccess;
  if (tiles_r > 0x7fffffffll) return cudaErrorInvalidValue;
  const dim3 grid(static_cast<unsigned>(tiles_r), static_cast<unsigned>(std::min<long long>(tiles_c, 65535)),
                  static_cast<unsigned>(std::min<long long>(batch, 65535)));
  const dim3 block(32, kTransposeRowsPerPass);
  static std::atomic<unsigned char> waits32[64], waits16[64];  // per kernel and device (pdl.hpp)
  const bool chain = chained && copies_chain();
  const bool overlap = chain && overlap_previous_kernel;
  if (elem_bytes == 4) {
    return chain ? launch_copy(&transpose_copy_kernel<std::uint32_t, true>, grid, block, p, stream, overlap, waits32)
                 : launch_copy(&transpose_copy_kernel<std::uint32_t, false>, grid, block, p, stream, false, waits32);
  }
  return chain ? launch_copy(&transpose_copy_kernel<std::uint16_t, true>, grid, block, p, stream, overlap, waits16)
               : launch_copy(&transpose_copy_kernel<std::uint16_t, false>, grid, block, p, stream, false, waits16);
}

cudaError_t launch_row_copy(const void* src, std::int64_t src_ld, std::int64_t src_batch, void* dst, std::int64_t dst_ld,
                            std::int64_t batch, std::int64_t rows, std::int64_t cols, int elem_bytes, int sm_count,
                            cudaStream_t stream, bool chained, bool overlap_previous_kernel) {
  if ((elem_bytes != 2 && elem_bytes != 4) || batch < 0 || rows < 0 || cols < 0 ||
      reinterpret_cast<std::uintptr_t>(src) % elem_bytes != 0 || reinterpret_cast<std::uintptr_t>(dst) % 16 != 0 ||
      (dst_ld * elem_bytes) % 16 != 0 || dst_ld < cols)
    return cudaErrorInvalidValue;
  RowCopyParams p;
  p.src = static_cast<const unsigned char*>(src);
  p.dst = static_cast<unsigned char*>(dst);
  p.src_ld = src_ld * elem_bytes;
  p.src_batch = src_batch * elem_bytes;
  p.dst_ld = dst_ld * elem_bytes;
  p.rows_per_batch = std::max<std::int64_t>(rows, 1);
  p.rows = batch * rows;
  p.row_bytes = cols * elem_bytes;
  p.chunks_per_row = (p.row_bytes + 15) / 16;
  p.total = p.rows * p.chunks_per_row;
  p.elem_bytes = elem_bytes;
  if (p.total == 0) return cudaSuccess;
  // A grid-stride loop over 16-byte chunks: enough blocks to keep every SM's memory pipes full (8 x 256 threads
  // per SM, each with one or two 16-byte loads in flight), no more.
  const long long want = (p.total + 255) / 256;
  const int blocks = static_cast<int>(std::min<long long>(want, 8ll * std::max(sm_count, 1)));
  static std::atomic<unsigned char> waits[64];  // per device (pdl.hpp), the chained instance's
  if (!(chained && copies_chain()))
    return launch_copy(&row_copy_kernel<false>, dim3(blocks), dim3(256), p, stream, false, waits);
  return launch_copy(&row_copy_kernel<true>, dim3(blocks), dim3(256), p, stream, overlap_previous_kernel, waits);
}

}  // namespace origami
