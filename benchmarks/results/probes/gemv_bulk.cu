// Study kernels, second form (fifty-sixth session, issue 13: the decode GEMV at operands off the 16-byte grid, where the
// op runs at ~0.37 of cuBLAS at 1 x 4097 x 4099 nn). Not product code: probe_gemv_bulk.py builds this file as a torch
// extension on the device and times it against cuBLAS. The first study (gemv_study.cu, benchmarks/results/gemv_study.md)
// streamed the weight through registers and reached 0.62-0.77 of cuBLAS at the misaligned sizes; it named what a GEMV
// worth building would need, and this file is that design:
//
//  * the weight's rows are brought into shared memory by bulk copies (cp.async.bulk, one per row segment) of the
//    aligned 16-byte span that holds the segment: a bulk copy needs a 16-byte aligned address and size, and the span
//    of aligned blocks around any row segment qualifies, whatever the row's own alignment (it reads at most 15 bytes
//    on either side, inside 16-byte blocks that hold a byte of the operand, so inside its pages: cpp/kernels/realign.cuh);
//  * a ring of ST stages per CTA with full / empty mbarriers (cpp/kernels/wgmma/mbarrier.cuh): one producer thread
//    keeps ST stages of row segments in flight, so the bytes in flight per SM are set by shared memory, not registers;
//  * the consumers read each element from shared memory at its own 2-byte offset (no realign in registers);
//  * a K split over gridDim.y with an fp32 workspace, summed in slice order by the last CTA of each column (nn) or row
//    (nt) block to finish (a counter per block, reset by that CTA): deterministic, and one launch.
//
// C[m][n] = sum_k A[m][k] * B(k, n) for m < M <= MR, fp16 / bf16 in, fp32 accumulation, one rounding to the dtype.
//  * "nn" (B[k][n], n contiguous, leading dimension ldb): a CTA takes CB columns and a slice of KS rows k; a stage is R
//    row segments; consumer thread t owns columns t, t + 256, ... of the block (a warp reads 64 contiguous bytes).
//  * "nt" (B given as W[n][k], k contiguous, leading dimension ldw): a CTA takes RB rows n and a slice of KS elements
//    of K; a stage is 8 row segments, one per consumer warp; lanes stride along k, then a fixed-order warp reduction.
//    A's slice is staged in shared memory as fp32 [k][MR] by the consumer warps while the producer already streams.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cstdint>
#ifndef GEMV_BULK_KERNELS_ONLY  // (the kernels alone: nvcc -Xptxas -v where torch has no CUDA headers)
#include <torch/extension.h>
#include <c10/cuda/CUDAException.h>
#include <c10/cuda/CUDAStream.h>
#endif

#include "wgmma/mbarrier.cuh"  // cpp/kernels: the product's mbarrier primitives

namespace gemv_bulk {

using origami::wgmma::mbar_arrive;
using origami::wgmma::mbar_arrive_expect_tx;
using origami::wgmma::mbar_init;
using origami::wgmma::mbar_wait;
using origami::wgmma::smem_addr;

constexpr int kConsumerWarps = 8;
constexpr int kConsumers = 32 * kConsumerWarps;
constexpr int kThreads = kConsumers + 32;  // + one producer warp
constexpr int kNnRowsPerStage = 4;

template <typename T> __device__ __forceinline__ float to_f(T v);
template <> __device__ __forceinline__ float to_f<__half>(__half v) { return __half2float(v); }
template <> __device__ __forceinline__ float to_f<__nv_bfloat16>(__nv_bfloat16 v) { return __bfloat162float(v); }
template <typename T> __device__ __forceinline__ T from_f(float v);
template <> __device__ __forceinline__ __half from_f<__half>(float v) { return __float2half_rn(v); }
template <> __device__ __forceinline__ __nv_bfloat16 from_f<__nv_bfloat16>(float v) { return __float2bfloat16_rn(v); }

__device__ __forceinline__ void bulk_copy(std::uint32_t dst, const void* src, std::uint32_t bytes, std::uint32_t bar) {
  asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(dst),
               "l"(src), "r"(bytes), "r"(bar)
               : "memory");
}

// The aligned 16-byte blocks that hold `count` elements from p: where they start, their bytes, p's offset in them.
struct Span {
  const void* start;
  std::uint32_t bytes, off;
};
__device__ __forceinline__ Span span_of(const void* p, long long count) {
  const std::uintptr_t a = reinterpret_cast<std::uintptr_t>(p);
  const std::uintptr_t s = a & ~std::uintptr_t(15), e = (a + 2 * count + 15) & ~std::uintptr_t(15);
  return {reinterpret_cast<const void*>(s), static_cast<std::uint32_t>(e - s), static_cast<std::uint32_t>(a - s)};
}

__host__ __device__ __forceinline__ std::size_t align_up(std::size_t x, std::size_t a) { return (x + a - 1) / a * a; }

// A's MR values at one k (a_s is [k][MR] fp32, 16-byte aligned): one shared-memory vector load per k instead of MR.
template <int MR> __device__ __forceinline__ void load_a(const float* p, float (&a)[MR]) {
  if constexpr (MR == 1) {
    a[0] = p[0];
  } else if constexpr (MR == 2) {
    const float2 v = *reinterpret_cast<const float2*>(p);
    a[0] = v.x, a[1] = v.y;
  } else {
#pragma unroll
    for (int i = 0; i < MR / 4; ++i) {
      const float4 v = reinterpret_cast<const float4*>(p)[i];
      a[4 * i] = v.x, a[4 * i + 1] = v.y, a[4 * i + 2] = v.z, a[4 * i + 3] = v.w;
    }
  }
}

// The consumer warps alone (named barrier 1): they stage A while the producer already streams the weight.
__device__ __forceinline__ void consumers_sync() { asm volatile("bar.sync 1, %0;" ::"r"(kConsumers) : "memory"); }

// A's slice [k0, k0 + len) of its M rows as fp32 [k][MR] (zeros for rows m >= M), by the consumer threads; reads along k
// (coalesced).
template <typename T, int MR>
__device__ __forceinline__ void stage_a(float* a_s, const T* A, long long lda, int M, int k0, int len, int tid) {
  for (int i = tid; i < MR * len; i += kConsumers) {
    const int m = i / len, k = i % len;
    a_s[k * MR + m] = m < M ? to_f(A[m * lda + k0 + k]) : 0.f;
  }
  consumers_sync();
}

// The ring's barriers (thread 0): stage st's "full" at bars[st] (the producer's arrive.expect_tx), its "empty" at
// bars[ST + st] (one arrive per consumer warp).
__device__ __forceinline__ void init_ring(std::uint64_t* bars, int ST) {
  if (threadIdx.x != 0) return;
  for (int st = 0; st < ST; ++st) {
    mbar_init(smem_addr(bars + st), 1);
    mbar_init(smem_addr(bars + ST + st), kConsumerWarps);
  }
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
}

// The producer (one thread): rows [row0, row0 + rows) of a row-major operand (leading dimension ld), elements
// [col0, col0 + count) of each, R row segments per stage into a ring of ST stages of R slots of slot_bytes, each
// segment one bulk copy of the aligned span that holds it.
template <typename T>
__device__ __forceinline__ void produce(unsigned char* ring, int slot_bytes, int R, int ST, std::uint64_t* bars,
                                       const T* base, long long ld, int row0, int rows, int col0, long long count) {
  const int iters = (rows + R - 1) / R;
  for (int it = 0; it < iters; ++it) {
    const int st = it % ST, r0 = it * R, rn = min(R, rows - r0);
    mbar_wait(smem_addr(bars + ST + st), ((it / ST) & 1) ^ 1);
    std::uint32_t total = 0;
    for (int r = 0; r < rn; ++r) total += span_of(base + (row0 + r0 + r) * ld + col0, count).bytes;
    mbar_arrive_expect_tx(smem_addr(bars + st), total);
    for (int r = 0; r < rn; ++r) {
      const Span sp = span_of(base + (row0 + r0 + r) * ld + col0, count);
      bulk_copy(smem_addr(ring + std::size_t(st * R + r) * slot_bytes), sp.start, sp.bytes, smem_addr(bars + st));
    }
  }
}

// The split's last CTA of a block: true in every thread of the one CTA that finished the block last (after every
// slice's partials are visible to it).
__device__ __forceinline__ bool last_of_block(int* counter, int slices, int* flag) {
  __threadfence();
  __syncthreads();
  if (threadIdx.x == 0) *flag = atomicAdd(counter, 1) == slices - 1;
  __syncthreads();
  const bool last = *flag != 0;
  if (last) __threadfence();
  return last;
}

template <typename T, int MR, int JMAX>
__global__ void __launch_bounds__(kThreads) gemv_nn(const T* __restrict__ A, long long lda, const T* __restrict__ B,
                                                    long long ldb, T* __restrict__ C, int M, int N, int K, int CB, int KS,
                                                    int ST, int slot_bytes, float* ws, int* counters) {
  extern __shared__ __align__(128) unsigned char smem[];
  const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
  const int nb = blockIdx.x, s = blockIdx.y, S = gridDim.y;
  const int n0 = nb * CB, cols = min(CB, N - n0);
  const int k0 = s * KS, rows = min(K, k0 + KS) - k0;
  const int R = kNnRowsPerStage;
  unsigned char* ring = smem;
  float* a_s = reinterpret_cast<float*>(smem + align_up(std::size_t(ST) * R * slot_bytes, 16));
  std::uint64_t* bars = reinterpret_cast<std::uint64_t*>(
      smem + align_up(align_up(std::size_t(ST) * R * slot_bytes, 16) + std::size_t(MR) * KS * sizeof(float), 8));
  int* flag = reinterpret_cast<int*>(bars + 2 * ST);
  auto full = [&](int st) { return smem_addr(bars + st); };
  auto empty = [&](int st) { return smem_addr(bars + ST + st); };
  init_ring(bars, ST);
  __syncthreads();
  const int iters = (rows + R - 1) / R;
  float acc[MR][JMAX];
#pragma unroll
  for (int m = 0; m < MR; ++m)
#pragma unroll
    for (int j = 0; j < JMAX; ++j) acc[m][j] = 0.f;
  if (warp == kConsumerWarps) {
    if (lane == 0) produce(ring, slot_bytes, R, ST, bars, B, ldb, k0, rows, n0, cols);
  } else {
    stage_a<T, MR>(a_s, A, lda, M, k0, rows, tid);
    for (int it = 0; it < iters; ++it) {
      const int st = it % ST, r0 = it * R, rn = min(R, rows - r0);
      mbar_wait(full(st), (it / ST) & 1);
      for (int r = 0; r < rn; ++r) {
        const int k = k0 + r0 + r;
        const Span sp = span_of(B + k * ldb + n0, cols);
        const T* row = reinterpret_cast<const T*>(ring + std::size_t(st * R + r) * slot_bytes + sp.off);
        float a[MR];
        load_a<MR>(a_s + (r0 + r) * MR, a);
#pragma unroll
        for (int j = 0; j < JMAX; ++j) {
          const int c = tid + kConsumers * j;
          if (c < cols) {
            const float b = to_f(row[c]);
#pragma unroll
            for (int m = 0; m < MR; ++m) acc[m][j] = fmaf(a[m], b, acc[m][j]);
          }
        }
      }
      __syncwarp();
      if (lane == 0) mbar_arrive(empty(st));
    }
  }
  if (S == 1) {
    if (warp < kConsumerWarps)
#pragma unroll
      for (int m = 0; m < MR; ++m)
#pragma unroll
        for (int j = 0; j < JMAX; ++j) {
          const int c = tid + kConsumers * j;
          if (m < M && c < cols) C[std::size_t(m) * N + n0 + c] = from_f<T>(acc[m][j]);
        }
    return;
  }
  if (warp < kConsumerWarps)
#pragma unroll
    for (int m = 0; m < MR; ++m)
#pragma unroll
      for (int j = 0; j < JMAX; ++j) {
        const int c = tid + kConsumers * j;
        if (m < M && c < cols) ws[(std::size_t(s) * MR + m) * N + n0 + c] = acc[m][j];
      }
  if (!last_of_block(counters + nb, S, flag)) return;
  for (int i = tid; i < M * cols; i += kThreads) {
    const int m = i / cols, c = i % cols;
    float sum = 0.f;
    for (int t = 0; t < S; ++t) sum += __ldcg(ws + (std::size_t(t) * MR + m) * N + n0 + c);
    C[std::size_t(m) * N + n0 + c] = from_f<T>(sum);
  }
  if (tid == 0) counters[nb] = 0;
}

template <typename T, int MR>
__global__ void __launch_bounds__(kThreads) gemv_nt(const T* __restrict__ A, long long lda, const T* __restrict__ W,
                                                    long long ldw, T* __restrict__ C, int M, int N, int K, int RB, int KS,
                                                    int ST, int slot_bytes, float* ws, int* counters) {
  extern __shared__ __align__(128) unsigned char smem[];
  const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
  const int nb = blockIdx.x, s = blockIdx.y, S = gridDim.y;
  const int n0 = nb * RB, nrows = min(RB, N - n0);
  const int k0 = s * KS, klen = min(K, k0 + KS) - k0;
  const int R = kConsumerWarps;
  unsigned char* ring = smem;
  float* a_s = reinterpret_cast<float*>(smem + std::size_t(ST) * R * slot_bytes);  // (slot_bytes: a multiple of 16)
  std::uint64_t* bars = reinterpret_cast<std::uint64_t*>(
      smem + align_up(std::size_t(ST) * R * slot_bytes + std::size_t(MR) * KS * sizeof(float), 8));
  int* flag = reinterpret_cast<int*>(bars + 2 * ST);
  auto full = [&](int st) { return smem_addr(bars + st); };
  auto empty = [&](int st) { return smem_addr(bars + ST + st); };
  init_ring(bars, ST);
  __syncthreads();
  const int iters = (nrows + R - 1) / R;
  if (warp == kConsumerWarps) {
    if (lane == 0) produce(ring, slot_bytes, R, ST, bars, W, ldw, n0, nrows, k0, klen);
  } else {
    stage_a<T, MR>(a_s, A, lda, M, k0, klen, tid);
    for (int it = 0; it < iters; ++it) {
      const int st = it % ST, r0 = it * R, rn = min(R, nrows - r0);
      mbar_wait(full(st), (it / ST) & 1);
      if (warp < rn) {
        const int n = n0 + r0 + warp;
        const Span sp = span_of(W + n * ldw + k0, klen);
        const T* row = reinterpret_cast<const T*>(ring + std::size_t(st * R + warp) * slot_bytes + sp.off);
        float acc[MR];
#pragma unroll
        for (int m = 0; m < MR; ++m) acc[m] = 0.f;
#pragma unroll 4
        for (int k = lane; k < klen; k += 32) {
          const float b = to_f(row[k]);
          float a[MR];
          load_a<MR>(a_s + k * MR, a);
#pragma unroll
          for (int m = 0; m < MR; ++m) acc[m] = fmaf(a[m], b, acc[m]);
        }
#pragma unroll
        for (int m = 0; m < MR; ++m)
#pragma unroll
          for (int d = 16; d > 0; d /= 2) acc[m] += __shfl_xor_sync(0xffffffffu, acc[m], d);
        if (lane == 0)
#pragma unroll
          for (int m = 0; m < MR; ++m)
            if (m < M) {
              if (S == 1) C[std::size_t(m) * N + n] = from_f<T>(acc[m]);
              else ws[(std::size_t(s) * MR + m) * N + n] = acc[m];
            }
      }
      __syncwarp();
      if (lane == 0) mbar_arrive(empty(st));
    }
  }
  if (S == 1) return;
  if (!last_of_block(counters + nb, S, flag)) return;
  for (int i = tid; i < M * nrows; i += kThreads) {
    const int m = i / nrows, r = i % nrows;
    float sum = 0.f;
    for (int t = 0; t < S; ++t) sum += __ldcg(ws + (std::size_t(t) * MR + m) * N + n0 + r);
    C[std::size_t(m) * N + n0 + r] = from_f<T>(sum);
  }
  if (tid == 0) counters[nb] = 0;
}

#ifndef GEMV_BULK_KERNELS_ONLY
template <typename T, int MR>
void launch(const torch::Tensor& a, const torch::Tensor& b, torch::Tensor& c, bool nt, int p1, int S, int ST,
            torch::Tensor& ws, torch::Tensor& counters) {
  const int M = a.size(0), K = a.size(1), N = b.size(1);
  auto stream = c10::cuda::getCurrentCUDAStream();
  const T* A = reinterpret_cast<const T*>(a.data_ptr());
  const T* B = reinterpret_cast<const T*>(b.data_ptr());
  T* Cp = reinterpret_cast<T*>(c.data_ptr());
  float* wsp = ws.data_ptr<float>();
  int* cnt = counters.data_ptr<int>();
  if (!nt) {
    const int CB = p1, KS = (K + S - 1) / S, slot = 2 * CB + 16;
    const std::size_t smem =
        align_up(align_up(std::size_t(ST) * kNnRowsPerStage * slot, 16) + std::size_t(MR) * KS * 4, 8) + 2 * ST * 8 + 16;
    TORCH_CHECK(smem <= 227 * 1024, "shared memory ", smem);
    dim3 grid((N + CB - 1) / CB, (K + KS - 1) / KS);
    auto run = [&](auto kernel) {
      C10_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem)));
      kernel<<<grid, kThreads, smem, stream>>>(A, a.stride(0), B, b.stride(0), Cp, M, N, K, CB, KS, ST, slot, wsp, cnt);
    };
    if (CB == 512) run(gemv_nn<T, MR, 2>);
    else if (CB == 1024) run(gemv_nn<T, MR, 4>);
    else if (CB == 2048) run(gemv_nn<T, MR, 8>);
    else TORCH_CHECK(false, "CB must be 512, 1024 or 2048");
  } else {
    const int RB = p1, KS = ((K + S - 1) / S + 7) / 8 * 8, slot = 2 * KS + 16;
    const std::size_t smem = align_up(std::size_t(ST) * kConsumerWarps * slot + std::size_t(MR) * KS * 4, 8) +
                             2 * ST * 8 + 16;
    TORCH_CHECK(smem <= 227 * 1024, "shared memory ", smem);
    dim3 grid((N + RB - 1) / RB, (K + KS - 1) / KS);
    auto kernel = gemv_nt<T, MR>;
    C10_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem)));
    kernel<<<grid, kThreads, smem, stream>>>(A, a.stride(0), B, b.stride(1), Cp, M, N, K, RB, KS, ST, slot, wsp, cnt);
  }
  C10_CUDA_KERNEL_LAUNCH_CHECK();
}

// a: M x K (row-major rows, any 2-byte alignment); b: K x N, either row-major (nn) or W.t() of a row-major W (nt).
// p1: CB (nn: 512 / 1024 / 2048 columns per CTA) or RB (nt: rows per CTA, a multiple of 8); S: K slices; ST: stages.
// ws: fp32, >= S * MR * N; counters: int32 zeros, >= the number of column / row blocks (left at zero).
torch::Tensor gemv(torch::Tensor a, torch::Tensor b, int64_t p1, int64_t S, int64_t ST, torch::Tensor ws,
                   torch::Tensor counters) {
  TORCH_CHECK(a.is_cuda() && b.is_cuda() && a.dim() == 2 && b.dim() == 2 && a.size(1) == b.size(0));
  TORCH_CHECK(a.scalar_type() == b.scalar_type() && a.stride(1) == 1);
  const bool nt = b.stride(0) == 1 && b.stride(1) != 1;
  TORCH_CHECK(nt || b.stride(1) == 1, "b must be row-major or the transpose of a row-major matrix");
  const int M = a.size(0);
  TORCH_CHECK(M >= 1 && M <= 8);
  auto c = torch::empty({M, b.size(1)}, a.options());
  const int MR = M <= 1 ? 1 : M <= 2 ? 2 : M <= 4 ? 4 : 8;
  TORCH_CHECK(ws.numel() >= S * MR * b.size(1));
  auto go = [&](auto tag) {
    using T = decltype(tag);
    if (MR == 1) launch<T, 1>(a, b, c, nt, p1, S, ST, ws, counters);
    else if (MR == 2) launch<T, 2>(a, b, c, nt, p1, S, ST, ws, counters);
    else if (MR == 4) launch<T, 4>(a, b, c, nt, p1, S, ST, ws, counters);
    else launch<T, 8>(a, b, c, nt, p1, S, ST, ws, counters);
  };
  if (a.scalar_type() == at::kHalf) go(__half());
  else if (a.scalar_type() == at::kBFloat16) go(__nv_bfloat16());
  else TORCH_CHECK(false, "fp16 / bf16 only");
  return c;
}
#endif

}  // namespace gemv_bulk

#ifndef GEMV_BULK_KERNELS_ONLY
PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) { m.def("gemv", &gemv_bulk::gemv); }
#endif
