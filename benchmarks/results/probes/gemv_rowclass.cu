// Study kernel, third form (fifty-ninth session, issue 13: the decode GEMV `a @ b` with b's rows off the 16-byte grid,
// where the op runs at 0.38 of cuBLAS at 1 x 4097 x 4099 nn, reports/nvidia-h100/odd.md). Not product code:
// probe_gemv_rowclass.py builds this file as a torch extension on the device and times it against cuBLAS and against
// the first study's nn kernel (gemv_study.cu), the same harness.
//
// The first two forms (benchmarks/results/gemv_study.md) reached 0.57-0.62 of cuBLAS at 1 x 4097 x 4099 nn: the first
// rebuilt every lane's 8-element window from its own aligned block and its neighbour's (4 shuffles and a realign per
// 16 bytes, a second kernel for the K split), the second issued one bulk copy per 1-4 KB row segment. This form does no
// realign in the loop at all. B(k, n) at byte address s_k + 2 n, s_k = s_0 + 2 k ldb; the 16-byte offset of a row,
// s_k mod 16, is the same for every k of one class k mod 8 (8 rows move the address by 16 ldb bytes). So:
//
//  * warp w of a CTA takes the rows k = w (mod 8) of the CTA's K slice (slices start at multiples of 8): every row it
//    reads has one offset o_w (in elements, 0..7), and lane j's aligned 16-byte block j of the row always holds the
//    columns 8 j - o_w + [0, 8) of the CTA's block, whatever the row. A lane accumulates whole aligned blocks, one
//    16-byte load (ld.global.nc) and 8 FMA per row and row of A, with no shuffle, no funnel shift, no per-row mask;
//  * the shift is undone once, at the end, where the 8 warps' partial sums meet in shared memory anyway: warp w
//    writes column 8 j - o_w + e of its sums, and the CTA sums the 8 warps column by column in warp order;
//  * a CTA takes CB = 256 NB - 8 columns: NB aligned blocks per lane, 32 NB per warp, cover the CB columns for every
//    offset (block 0 starts up to 7 columns early). Elements of a block outside the CTA's columns are accumulated
//    into sums that are never written (NaN or not); a block is loaded only where it holds a byte of the row's part of
//    B, so it never leaves the pages of B (the rule of cpp/kernels/realign.cuh);
//  * A's K slice is staged in shared memory as fp32 [k][MR] once per CTA;
//  * PIPE (the second form, after the first H100 run: the kernel was latency-bound, 26 % achieved occupancy at
//    1 x 4096 x 4096, ncu): a warp's first rows are requested before A's staging, and each batch of UNROLL rows'
//    successor before the batch's FMAs;
//  * a K split over gridDim.y writes fp32 partials to a workspace and the last CTA of each column block to finish
//    (a counter per block, reset by that CTA) sums them in slice order: deterministic, one launch.
//
// C[m][n] = sum_k A[m][k] B[k][n] for m < M <= MR; fp16 / bf16 in, fp32 accumulation, one rounding to the dtype.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cstdint>
#ifndef GEMV_RC_KERNELS_ONLY  // (the kernels alone: nvcc -Xptxas -v where torch has no CUDA headers)
#include <torch/extension.h>
#include <c10/cuda/CUDAException.h>
#include <c10/cuda/CUDAStream.h>
#endif

namespace gemv_rc {

constexpr int kWarps = 8;  // one per row class k mod 8
constexpr int kThreads = 32 * kWarps;

template <typename T> __device__ __forceinline__ float2 to_f2(unsigned w);
template <> __device__ __forceinline__ float2 to_f2<__half>(unsigned w) {
  return __half22float2(*reinterpret_cast<__half2*>(&w));
}
template <> __device__ __forceinline__ float2 to_f2<__nv_bfloat16>(unsigned w) {
  return __bfloat1622float2(*reinterpret_cast<__nv_bfloat162*>(&w));
}
template <typename T> __device__ __forceinline__ float to_f(T v);
template <> __device__ __forceinline__ float to_f<__half>(__half v) { return __half2float(v); }
template <> __device__ __forceinline__ float to_f<__nv_bfloat16>(__nv_bfloat16 v) { return __bfloat162float(v); }
template <typename T> __device__ __forceinline__ T from_f(float v);
template <> __device__ __forceinline__ __half from_f<__half>(float v) { return __float2half_rn(v); }
template <> __device__ __forceinline__ __nv_bfloat16 from_f<__nv_bfloat16>(float v) { return __float2bfloat16_rn(v); }

__device__ __forceinline__ uint4 ldg_stream(const void* p) {  // read once: no L1 allocation
  uint4 v;
  asm volatile("ld.global.nc.L1::no_allocate.v4.u32 {%0,%1,%2,%3}, [%4];"
               : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
               : "l"(p));
  return v;
}

// grid (ceil(N / CB), S), kThreads threads, dynamic shared memory k_per_slice * MR floats (A's slice).
template <typename T, int MR, int NB, int UNROLL, bool PIPE>
__global__ void __launch_bounds__(kThreads) gemv_nn_rc(const T* __restrict__ A, const T* __restrict__ B,
                                                        T* __restrict__ C, float* __restrict__ ws,
                                                        int* __restrict__ counters, int M, int N, int K,
                                                        long long lda, long long ldb, long long ldc, int k_per_slice) {
  constexpr int CB = 256 * NB - 8;
  extern __shared__ float a_s[];          // [k - k_begin][MR]
  __shared__ float red[kWarps][CB];       // the warps' partial sums, unshifted
  __shared__ bool last;
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const long long col0 = static_cast<long long>(blockIdx.x) * CB;
  const int ncols = static_cast<int>(min(static_cast<long long>(CB), N - col0));
  const long long k_begin = static_cast<long long>(blockIdx.y) * k_per_slice;  // (a multiple of 8)
  const int rows = static_cast<int>(min(static_cast<long long>(k_per_slice), K - k_begin));

  // This warp's row class: the offset o (elements) of its rows' part of B inside an aligned 16-byte block.
  const std::uintptr_t first = reinterpret_cast<std::uintptr_t>(B + (k_begin + warp) * ldb + col0);
  const int o = static_cast<int>((first & 15u) >> 1);
  const char* p = reinterpret_cast<const char*>(first & ~std::uintptr_t(15)) + 16 * lane;
  const long long step = 16 * ldb;  // bytes from a row of the class to the next (8 rows on): a multiple of 16
  bool live[NB];                    // block t of this lane holds a column of [0, ncols)
#pragma unroll
  for (int t = 0; t < NB; ++t) live[t] = 8 * (lane + 32 * t) - o < ncols;
  // The class's UNROLL rows from row r on (r = this warp's row index in the slice, q its first block); rows past the
  // slice load nothing (0).
  auto load_rows = [&](uint4 (&dst)[UNROLL][NB], int r, const char* q) {
#pragma unroll
    for (int u = 0; u < UNROLL; ++u)
#pragma unroll
      for (int t = 0; t < NB; ++t)
        dst[u][t] = (live[t] && r + kWarps * u < rows) ? ldg_stream(q + u * step + 512 * t) : make_uint4(0, 0, 0, 0);
  };
  uint4 b[UNROLL][NB];
  // PIPE: the first rows' loads go out before A's staging (its own round trip), and each batch's successor before the
  // batch's FMAs, so a warp has its loads in flight while it computes instead of one round trip per batch.
  if constexpr (PIPE) load_rows(b, warp, p);

  for (int i = threadIdx.x; i < rows * MR; i += kThreads) {
    const int k = i / MR, m = i % MR;
    a_s[i] = m < M ? to_f<T>(A[m * lda + k_begin + k]) : 0.f;
  }
  float acc[MR][NB][8];
#pragma unroll
  for (int m = 0; m < MR; ++m)
#pragma unroll
    for (int t = 0; t < NB; ++t)
#pragma unroll
      for (int e = 0; e < 8; ++e) acc[m][t][e] = 0.f;
  __syncthreads();  // a_s

  for (int r = warp; r < rows; r += kWarps * UNROLL) {
    p += UNROLL * step;
    uint4 next[UNROLL][NB];
    if constexpr (PIPE) load_rows(next, r + kWarps * UNROLL, p);
    else load_rows(b, r, p - UNROLL * step);
#pragma unroll
    for (int u = 0; u < UNROLL; ++u) {
      const int rr = min(r + kWarps * u, rows - 1);  // (a row past the slice: its b is 0, any a will do)
      float a[MR];
#pragma unroll
      for (int m = 0; m < MR; ++m) a[m] = a_s[rr * MR + m];
#pragma unroll
      for (int t = 0; t < NB; ++t) {
        const unsigned bw[4] = {b[u][t].x, b[u][t].y, b[u][t].z, b[u][t].w};
#pragma unroll
        for (int q = 0; q < 4; ++q) {
          const float2 f = to_f2<T>(bw[q]);
#pragma unroll
          for (int m = 0; m < MR; ++m) {
            acc[m][t][2 * q] = fmaf(a[m], f.x, acc[m][t][2 * q]);
            acc[m][t][2 * q + 1] = fmaf(a[m], f.y, acc[m][t][2 * q + 1]);
          }
        }
      }
    }
    if constexpr (PIPE) {
#pragma unroll
      for (int u = 0; u < UNROLL; ++u)
#pragma unroll
        for (int t = 0; t < NB; ++t) b[u][t] = next[u][t];
    }
  }

  const int S = gridDim.y;
#pragma unroll
  for (int m = 0; m < MR; ++m) {  // one row of C at a time through `red` (unrolled: acc stays in registers)
    if (m >= M) break;
    __syncthreads();
#pragma unroll
    for (int t = 0; t < NB; ++t)
#pragma unroll
      for (int e = 0; e < 8; ++e) {
        const int c = 8 * (lane + 32 * t) + e - o;
        if (c >= 0 && c < CB) red[warp][c] = acc[m][t][e];
      }
    __syncthreads();
    for (int c = threadIdx.x; c < ncols; c += kThreads) {
      float v = 0.f;
#pragma unroll
      for (int w = 0; w < kWarps; ++w) v += red[w][c];
      if (S == 1) C[m * ldc + col0 + c] = from_f<T>(v);
      else ws[(static_cast<long long>(blockIdx.y) * M + m) * N + col0 + c] = v;
    }
  }
  if (S == 1) return;
  __threadfence();  // this CTA's partials visible device-wide before its count
  __syncthreads();
  if (threadIdx.x == 0) {
    last = atomicAdd(&counters[blockIdx.x], 1) == S - 1;
    if (last) counters[blockIdx.x] = 0;  // every other CTA of the block has counted: ready for the next launch
  }
  __syncthreads();
  if (!last) return;
  __threadfence();
  // The partials come from L2 (this SM never cached them): 8 loads in flight per thread, then summed in slice order
  // (a slice past S adds +0: the same value), so the tail this CTA adds is a few L2 round trips, not S of them.
  const long long slice_stride = static_cast<long long>(M) * N;
  for (int i = threadIdx.x; i < M * ncols; i += kThreads) {
    const int m = i / ncols, c = i % ncols;
    const float* src = ws + static_cast<long long>(m) * N + col0 + c;
    float v = 0.f;
    for (int s = 0; s < S; s += 8) {
      float x[8];
#pragma unroll
      for (int j = 0; j < 8; ++j) x[j] = s + j < S ? __ldcg(src + (s + j) * slice_stride) : 0.f;
#pragma unroll
      for (int j = 0; j < 8; ++j) v += x[j];
    }
    C[m * ldc + col0 + c] = from_f<T>(v);
  }
}

#ifndef GEMV_RC_KERNELS_ONLY
template <typename T, int MR, int NB>
void launch_nb(const T* A, const T* B, T* C, float* ws, int* counters, int M, int N, int K, long long lda,
               long long ldb, long long ldc, int k_per, int S, int unroll, bool pipe, cudaStream_t stream) {
  constexpr int CB = 256 * NB - 8;
  const dim3 grid((N + CB - 1) / CB, S);
  const size_t smem = static_cast<size_t>(k_per) * MR * sizeof(float);
#define GEMV_RC(UV)                                                                                              \
  {                                                                                                              \
    auto kern = pipe ? gemv_nn_rc<T, MR, NB, UV, true> : gemv_nn_rc<T, MR, NB, UV, false>;                       \
    C10_CUDA_CHECK(cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem))); \
    kern<<<grid, kThreads, smem, stream>>>(A, B, C, ws, counters, M, N, K, lda, ldb, ldc, k_per);                 \
  }
  if (unroll == 2) GEMV_RC(2)
  else if (unroll == 4) GEMV_RC(4)
  else TORCH_CHECK(false, "gemv_rc: no variant unroll=", unroll);
#undef GEMV_RC
}

template <typename T, int MR>
void launch(const at::Tensor& a, const at::Tensor& b, at::Tensor& c, int nb, int unroll, int slices, at::Tensor& ws,
            at::Tensor& counters, bool pipe) {
  const int M = a.size(0), K = a.size(1), N = b.size(1);
  // slices start at multiples of 8 rows (one offset per warp's row class)
  const int k_per = ((K + slices - 1) / slices + 7) / 8 * 8;
  const int S = (K + k_per - 1) / k_per;
  TORCH_CHECK(S == 1 || ws.numel() >= static_cast<long long>(S) * M * N, "gemv_rc: workspace too small");
  TORCH_CHECK(counters.numel() * 248 >= N, "gemv_rc: too few counters");
  cudaStream_t stream = c10::cuda::getCurrentCUDAStream();
  const T* A = reinterpret_cast<const T*>(a.data_ptr());
  const T* B = reinterpret_cast<const T*>(b.data_ptr());
  T* C = reinterpret_cast<T*>(c.data_ptr());
  float* W = S > 1 ? ws.data_ptr<float>() : nullptr;
  int* cnt = counters.data_ptr<int>();
  if (nb == 1) launch_nb<T, MR, 1>(A, B, C, W, cnt, M, N, K, a.stride(0), b.stride(0), c.stride(0), k_per, S, unroll, pipe, stream);
  else if (nb == 2) launch_nb<T, MR, 2>(A, B, C, W, cnt, M, N, K, a.stride(0), b.stride(0), c.stride(0), k_per, S, unroll, pipe, stream);
  else TORCH_CHECK(false, "gemv_rc: nb must be 1 or 2");
  C10_CUDA_KERNEL_LAUNCH_CHECK();
}
}  // namespace gemv_rc

// out = a @ b for a (M x K, unit column stride, M <= 8) and b (K x N, unit column stride, any row stride and address);
// `ws` fp32 of at least slices * M * N elements when slices > 1, `counters` int32 zeros, one per 248 columns.
at::Tensor gemv(const at::Tensor& a, const at::Tensor& b, int64_t nb, int64_t unroll, int64_t slices, at::Tensor ws,
                at::Tensor counters, bool pipe) {
  TORCH_CHECK(a.is_cuda() && b.is_cuda() && a.scalar_type() == b.scalar_type(), "gemv_rc: CUDA, one dtype");
  TORCH_CHECK(a.dim() == 2 && b.dim() == 2 && a.size(1) == b.size(0) && a.stride(1) == 1 && b.stride(1) == 1,
              "gemv_rc: shapes / unit column strides");
  const int M = a.size(0);
  TORCH_CHECK(M >= 1 && M <= 8, "gemv_rc: 1 <= M <= 8");
  auto c = at::empty({a.size(0), b.size(1)}, a.options());
  const bool bf = a.scalar_type() == at::kBFloat16;
#define GEMV_DT(T)                                                                         \
  if (M <= 1) gemv_rc::launch<T, 1>(a, b, c, nb, unroll, slices, ws, counters, pipe);            \
  else if (M <= 2) gemv_rc::launch<T, 2>(a, b, c, nb, unroll, slices, ws, counters, pipe);       \
  else if (M <= 4) gemv_rc::launch<T, 4>(a, b, c, nb, unroll, slices, ws, counters, pipe);       \
  else gemv_rc::launch<T, 8>(a, b, c, nb, unroll, slices, ws, counters, pipe);
#ifdef GEMV_RC_FP16_M1  // (a quick build for probe_gemv_rowclass_sweep.py: fp16, M = 1 only)
  TORCH_CHECK(!bf && M == 1, "gemv_rc: built for fp16, M = 1 only");
  gemv_rc::launch<__half, 1>(a, b, c, nb, unroll, slices, ws, counters, pipe);
#else
  if (bf) { GEMV_DT(__nv_bfloat16) } else { GEMV_DT(__half) }
#endif
#undef GEMV_DT
  return c;
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) { m.def("gemv", &gemv); }
#else
template __global__ void gemv_nn_rc<__half, 1, 1, 4, true>(const __half*, const __half*, __half*, float*, int*, int, int, int,
                                                     long long, long long, long long, int);
template __global__ void gemv_nn_rc<__half, 1, 2, 2, false>(const __half*, const __half*, __half*, float*, int*, int, int, int,
                                                     long long, long long, long long, int);
template __global__ void gemv_nn_rc<__half, 8, 1, 2, true>(const __half*, const __half*, __half*, float*, int*, int, int, int,
                                                     long long, long long, long long, int);
template __global__ void gemv_nn_rc<__nv_bfloat16, 4, 2, 2, true>(const __nv_bfloat16*, const __nv_bfloat16*, __nv_bfloat16*,
                                                            float*, int*, int, int, int, long long, long long, long long, int);
}  // namespace gemv_rc
#endif
