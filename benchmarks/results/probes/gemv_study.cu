// Study kernels (thirty-first session, issue 13 "odd sizes": operands whose rows are not 16-byte aligned at decode,
// 1 x 4097 x 4099, where the op runs at ~0.4 of cuBLAS): a decode GEMV on the CUDA cores that streams the weight in
// place at any element alignment. Not product code: probe_gemv_study.py builds this file as a torch extension on the
// device and times it against cuBLAS; the numbers decide whether a "gemv" kernel family is worth building.
//
// C[m][n] = sum_k A[m][k] * B(k, n) for m < M <= MR, fp16 / bf16 in, fp32 accumulation, one rounding to the dtype.
// Every operand may start at any 2-byte boundary and have any leading dimension (the 16-byte rule of the tensor-core
// kernels is not needed): a row is read as the aligned 16-byte blocks that hold it (ld.global.nc; a whole aligned
// block that holds a byte of the operand never leaves its pages, cpp/kernels/realign.cuh), and lane j's window is
// rebuilt from its own block and lane j + 1's (one shuffle per word), so the weight crosses DRAM once and L1 once.
//
//  * "nt" (x @ w.t(): B given as W[n][k], k contiguous): a warp streams NR rows of W along K (256 elements per
//    warp-step, UNROLL steps in flight); A's rows are staged into shared memory once per K chunk, realigned, and read
//    back 16 bytes at a time; the lane partial sums are reduced across the warp at the end (fixed order).
//  * "nn" (a @ b: B given as B[k][n], n contiguous): a lane owns 8 consecutive columns of one 256-column block per
//    CTA, the CTA's 8 warps take interleaved rows k of the CTA's K slice (UNROLL rows in flight per lane), reduce
//    through shared memory in warp order, and the S K slices of the grid are summed in slice order by a second kernel
//    from an fp32 workspace (deterministic; S = 1 writes C directly).
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cstdint>
#ifndef GEMV_STUDY_KERNELS_ONLY  // (the kernels alone: nvcc -Xptxas -v where torch has no CUDA headers)
#include <torch/extension.h>
#include <c10/cuda/CUDAException.h>
#include <c10/cuda/CUDAStream.h>
#endif

#include "realign.cuh"  // cpp/kernels: the product's 16-byte realign

namespace gemv_study {

template <typename T> __device__ __forceinline__ float2 to_f2(unsigned w);
template <> __device__ __forceinline__ float2 to_f2<__half>(unsigned w) {
  return __half22float2(*reinterpret_cast<__half2*>(&w));
}
template <> __device__ __forceinline__ float2 to_f2<__nv_bfloat16>(unsigned w) {
  return __bfloat1622float2(*reinterpret_cast<__nv_bfloat162*>(&w));
}
template <typename T> __device__ __forceinline__ T from_f(float v);
template <> __device__ __forceinline__ __half from_f<__half>(float v) { return __float2half_rn(v); }
template <> __device__ __forceinline__ __nv_bfloat16 from_f<__nv_bfloat16>(float v) { return __float2bfloat16_rn(v); }

__device__ __forceinline__ uint4 ldg_nc(const void* p) {
  uint4 v;
  asm volatile("ld.global.nc.v4.u32 {%0,%1,%2,%3}, [%4];" : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "l"(p));
  return v;
}
__device__ __forceinline__ uint4 shfl_down4(uint4 v) {
  return make_uint4(__shfl_down_sync(0xffffffffu, v.x, 1), __shfl_down_sync(0xffffffffu, v.y, 1),
                    __shfl_down_sync(0xffffffffu, v.z, 1), __shfl_down_sync(0xffffffffu, v.w, 1));
}
// The 8 elements [k, k + 8) of a row at `row` (any 2-byte alignment), k = k0 + 8 * lane, as one warp-step: lane j reads
// the aligned block that holds element k0 + 8 j (if it holds an element of [0, len)), takes the next block from lane
// j + 1 (lane 31 reads it itself) and realigns; elements at or past len are zero.
__device__ __forceinline__ uint4 warp_window(const std::uint16_t* row, long long k0, long long len, int lane) {
  const std::uintptr_t base = reinterpret_cast<std::uintptr_t>(row);
  const int off = static_cast<int>(base & 15u);
  const std::uintptr_t first_block = base & ~std::uintptr_t(15);
  const std::uintptr_t last_block = (base + 2 * len - 1) & ~std::uintptr_t(15);
  const std::uintptr_t my = first_block + 16 * (k0 / 8 + lane);  // (k0 a multiple of 8)
  uint4 lo = my <= last_block ? ldg_nc(reinterpret_cast<const void*>(my)) : make_uint4(0, 0, 0, 0);
  uint4 hi = shfl_down4(lo);
  if (lane == 31) hi = (off != 0 && my + 16 <= last_block) ? ldg_nc(reinterpret_cast<const void*>(my + 16)) : make_uint4(0, 0, 0, 0);
  uint4 v = origami::realign(lo, hi, off);
  const long long k = k0 + 8 * lane;
  if (k + 8 > len) {  // zero the elements past the row's end
    unsigned w[4] = {v.x, v.y, v.z, v.w};
#pragma unroll
    for (int e = 0; e < 8; ++e)
      if (k + e >= len) w[e / 2] &= (e & 1) ? 0x0000ffffu : 0xffff0000u;
    v = make_uint4(w[0], w[1], w[2], w[3]);
  }
  return v;
}

constexpr int kWarps = 8;

// acc += the dot product of 8 elements of a and of b (fp32 FMAs, element order 0..7).
template <typename T>
__device__ __forceinline__ void dot8_acc(const uint4 a, const uint4 b, float& acc) {
  const unsigned aw[4] = {a.x, a.y, a.z, a.w}, bw[4] = {b.x, b.y, b.z, b.w};
#pragma unroll
  for (int q = 0; q < 4; ++q) {
    const float2 fa = to_f2<T>(aw[q]), fb = to_f2<T>(bw[q]);
    acc = fmaf(fa.x, fb.x, acc);
    acc = fmaf(fa.y, fb.y, acc);
  }
}

// The nt kernels' end: each lane's partial dot products summed across the warp (fixed butterfly order), lane 0 stores.
template <typename T, int MR, int NR>
__device__ __forceinline__ void store_warp_sums(float (&acc)[MR][NR], T* C, int M, int N, long long n0, long long ldc,
                                                int lane) {
#pragma unroll
  for (int m = 0; m < MR; ++m)
#pragma unroll
    for (int r = 0; r < NR; ++r) {
      float v = acc[m][r];
#pragma unroll
      for (int s = 16; s > 0; s >>= 1) v += __shfl_xor_sync(0xffffffffu, v, s);
      if (lane == 0 && m < M && n0 + r < N) C[m * ldc + n0 + r] = from_f<T>(v);
    }
}

// ---- nt: W[n][k] -------------------------------------------------------------------------------------------
// v2, "direct" (nr > 0 in gemv(); the first form, gemv_nt_staged below, staged A's rows in shared memory per 2048-element chunk; each chunk cost the warps a round trip
// before their loads: 1.1-2.8 TB/s on the H200, probe_gemv_study_v1_h200.txt): A's windows are read like W's, from
// global memory (A is small and stays in L1 / L2), all UNROLL x (NR + MR) loads of a step issued before the math.
template <typename T, int MR, int NR, int UNROLL>
__global__ void __launch_bounds__(kWarps * 32) gemv_nt(const T* __restrict__ A, const T* __restrict__ W,
                                                         T* __restrict__ C, int M, int N, int K, long long lda,
                                                         long long ldw, long long ldc) {
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const long long n0 = (static_cast<long long>(blockIdx.x) * kWarps + warp) * NR;
  if (n0 >= N) return;
  float acc[MR][NR];
#pragma unroll
  for (int m = 0; m < MR; ++m)
#pragma unroll
    for (int r = 0; r < NR; ++r) acc[m][r] = 0.f;
  for (long long k = 0; k < K; k += 256 * UNROLL) {
    uint4 b[UNROLL][NR], a[UNROLL][MR];
#pragma unroll
    for (int u = 0; u < UNROLL; ++u) {
      const bool ok = k + 256 * u < K;
#pragma unroll
      for (int r = 0; r < NR; ++r)
        b[u][r] = (ok && n0 + r < N)
                      ? warp_window(reinterpret_cast<const std::uint16_t*>(W + (n0 + r) * ldw), k + 256 * u, K, lane)
                      : make_uint4(0, 0, 0, 0);
#pragma unroll
      for (int m = 0; m < MR; ++m)
        a[u][m] = (ok && m < M) ? warp_window(reinterpret_cast<const std::uint16_t*>(A + m * lda), k + 256 * u, K, lane)
                                : make_uint4(0, 0, 0, 0);
    }
#pragma unroll
    for (int u = 0; u < UNROLL; ++u)
#pragma unroll
      for (int m = 0; m < MR; ++m) {
#pragma unroll
        for (int r = 0; r < NR; ++r) dot8_acc<T>(a[u][m], b[u][r], acc[m][r]);
      }
  }
  store_warp_sums<T, MR, NR>(acc, C, M, N, n0, ldc, lane);
}

// v1, "staged" (nr < 0 in gemv()): A's rows staged into shared memory once per 2048-element chunk, realigned, and read
// back 16 bytes at a time (probe_gemv_study_v1_h200.txt).
constexpr int kChunk = 2048;  // K elements of A staged per chunk: MR x 4 KiB of shared memory

template <typename T, int MR, int NR, int UNROLL>
__global__ void __launch_bounds__(kWarps * 32) gemv_nt_staged(const T* __restrict__ A, const T* __restrict__ W,
                                                                T* __restrict__ C, int M, int N, int K, long long lda,
                                                                long long ldw, long long ldc) {
  __shared__ uint4 a_s[MR][kChunk / 8];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const long long n0 = (static_cast<long long>(blockIdx.x) * kWarps + warp) * NR;
  float acc[MR][NR];
#pragma unroll
  for (int m = 0; m < MR; ++m)
#pragma unroll
    for (int r = 0; r < NR; ++r) acc[m][r] = 0.f;
  for (long long c0 = 0; c0 < K; c0 += kChunk) {
    const long long clen = min(static_cast<long long>(kChunk), K - c0);
    __syncthreads();
    for (int m = warp; m < MR; m += kWarps)  // A's rows of this chunk, realigned (zeros past K and past M)
      for (long long k = 0; k < kChunk; k += 256)
        a_s[m][k / 8 + lane] = m < M ? warp_window(reinterpret_cast<const std::uint16_t*>(A + m * lda + c0), k, clen, lane)
                                     : make_uint4(0, 0, 0, 0);
    __syncthreads();
    if (n0 >= N) continue;
    for (long long k = 0; k < clen; k += 256 * UNROLL) {
      uint4 b[UNROLL][NR];
#pragma unroll
      for (int u = 0; u < UNROLL; ++u)
#pragma unroll
        for (int r = 0; r < NR; ++r) {
          const long long n = n0 + r;
          b[u][r] = (n < N && k + 256 * u < clen)
                        ? warp_window(reinterpret_cast<const std::uint16_t*>(W + n * ldw + c0), k + 256 * u, clen, lane)
                        : make_uint4(0, 0, 0, 0);
        }
#pragma unroll
      for (int u = 0; u < UNROLL; ++u) {
        if (k + 256 * u >= clen) break;
#pragma unroll
        for (int m = 0; m < MR; ++m) {
          const uint4 av = a_s[m][(k + 256 * u) / 8 + lane];
#pragma unroll
          for (int r = 0; r < NR; ++r) dot8_acc<T>(av, b[u][r], acc[m][r]);
        }
      }
    }
  }
  if (n0 >= N) return;
  store_warp_sums<T, MR, NR>(acc, C, M, N, n0, ldc, lane);
}

// ---- nn: B[k][n] -------------------------------------------------------------------------------------------
// grid (ceil(N / 256), S): CTA (x, s) takes columns [256 x, 256 x + 256) and rows k of slice s; warp w of it rows
// k = k_begin + w, + kWarps, ...; lane j columns 256 x + 8 j + [0, 8).
template <typename T, int MR, int UNROLL>
__global__ void __launch_bounds__(kWarps * 32) gemv_nn(const T* __restrict__ A, const T* __restrict__ B,
                                                         T* __restrict__ C, float* __restrict__ ws, int M, int N,
                                                         int K, long long lda, long long ldb, long long ldc,
                                                         int k_per_slice) {
  __shared__ float red[kWarps][256];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const long long col0 = static_cast<long long>(blockIdx.x) * 256;
  const long long k_begin = static_cast<long long>(blockIdx.y) * k_per_slice;
  const long long k_end = min(static_cast<long long>(K), k_begin + k_per_slice);
  const long long ncols = min(256LL, N - col0);
  float acc[MR][8];
#pragma unroll
  for (int m = 0; m < MR; ++m)
#pragma unroll
    for (int e = 0; e < 8; ++e) acc[m][e] = 0.f;
  for (long long k = k_begin + warp; k < k_end; k += kWarps * UNROLL) {
    uint4 b[UNROLL];
    float a[UNROLL][MR];
#pragma unroll
    for (int u = 0; u < UNROLL; ++u) {
      const long long kk = k + static_cast<long long>(kWarps) * u;
      const bool ok = kk < k_end;
      b[u] = ok ? warp_window(reinterpret_cast<const std::uint16_t*>(B + kk * ldb + col0), 0, ncols, lane)
                : make_uint4(0, 0, 0, 0);
#pragma unroll
      for (int m = 0; m < MR; ++m) {
        if (ok && m < M) {
          const std::uint16_t bits = __ldg(reinterpret_cast<const unsigned short*>(A + m * lda + kk));
          a[u][m] = to_f2<T>(bits).x;
        } else {
          a[u][m] = 0.f;
        }
      }
    }
#pragma unroll
    for (int u = 0; u < UNROLL; ++u) {
      const unsigned bw[4] = {b[u].x, b[u].y, b[u].z, b[u].w};
#pragma unroll
      for (int q = 0; q < 4; ++q) {
        const float2 fb = to_f2<T>(bw[q]);
#pragma unroll
        for (int m = 0; m < MR; ++m) {
          acc[m][2 * q] = fmaf(a[u][m], fb.x, acc[m][2 * q]);
          acc[m][2 * q + 1] = fmaf(a[u][m], fb.y, acc[m][2 * q + 1]);
        }
      }
    }
  }
#pragma unroll
  for (int m = 0; m < MR; ++m) {  // one row of C at a time through shared memory (MR rows would not fit 48 KiB)
    if (m >= M) break;
    __syncthreads();
#pragma unroll
    for (int e = 0; e < 8; ++e) red[warp][8 * lane + e] = acc[m][e];
    __syncthreads();
    const int c = threadIdx.x;  // kWarps * 32 = 256 threads, one column each
    if (c < ncols) {
      float v = 0.f;
#pragma unroll
      for (int w = 0; w < kWarps; ++w) v += red[w][c];
      if (gridDim.y == 1) C[m * ldc + col0 + c] = from_f<T>(v);
      else ws[(static_cast<long long>(blockIdx.y) * M + m) * N + col0 + c] = v;
    }
  }
}

template <typename T>
__global__ void reduce_slices(const float* __restrict__ ws, T* __restrict__ C, int M, int N, int S, long long ldc) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= static_cast<long long>(M) * N) return;
  float v = 0.f;
  for (int s = 0; s < S; ++s) v += ws[static_cast<long long>(s) * M * N + i];
  C[(i / N) * ldc + i % N] = from_f<T>(v);
}

#ifndef GEMV_STUDY_KERNELS_ONLY
template <typename T, int MR>
void launch(const at::Tensor& a, const at::Tensor& b, at::Tensor& c, int nr, int unroll, int slices, at::Tensor& ws) {
  const int M = a.size(0), K = a.size(1), N = b.size(1);
  cudaStream_t stream = c10::cuda::getCurrentCUDAStream();
  const T* A = reinterpret_cast<const T*>(a.data_ptr());
  const T* B = reinterpret_cast<const T*>(b.data_ptr());
  T* C = reinterpret_cast<T*>(c.data_ptr());
  if (b.stride(0) == 1) {  // nt: b is W^T, W[n][k] at n * b.stride(1) + k
    const long long ldw = b.stride(1);
    const int anr = nr < 0 ? -nr : nr;
    const int blocks = (N + kWarps * anr - 1) / (kWarps * anr);
#define GEMV_NT(NRV, UV) gemv_nt<T, MR, NRV, UV><<<blocks, kWarps * 32, 0, stream>>>(A, B, C, M, N, K, a.stride(0), ldw, c.stride(0))
#define GEMV_NT_STAGED(NRV, UV) \
  gemv_nt_staged<T, MR, NRV, UV><<<blocks, kWarps * 32, 0, stream>>>(A, B, C, M, N, K, a.stride(0), ldw, c.stride(0))
    if (nr == 1 && unroll == 4) GEMV_NT(1, 4);
    else if (nr == 1 && unroll == 8) GEMV_NT(1, 8);
    else if (nr == 1 && unroll == 16) GEMV_NT(1, 16);
    else if (nr == 2 && unroll == 4) GEMV_NT(2, 4);
    else if (nr == 2 && unroll == 8) GEMV_NT(2, 8);
    else if (nr == -1 && unroll == 4) GEMV_NT_STAGED(1, 4);
    else if (nr == -2 && unroll == 2) GEMV_NT_STAGED(2, 2);
    else if (nr == -2 && unroll == 4) GEMV_NT_STAGED(2, 4);
    else if (nr == -4 && unroll == 1) GEMV_NT_STAGED(4, 1);
    else if (nr == -4 && unroll == 2) GEMV_NT_STAGED(4, 2);
    else TORCH_CHECK(false, "gemv_nt: no variant nr=", nr, " unroll=", unroll);
#undef GEMV_NT_STAGED
#undef GEMV_NT
  } else {
    TORCH_CHECK(b.stride(1) == 1, "gemv study: b must have a unit stride");
    const long long ldb = b.stride(0);
    const int k_per = (K + slices - 1) / slices;
    dim3 grid((N + 255) / 256, slices);
    float* W = slices > 1 ? ws.data_ptr<float>() : nullptr;
#define GEMV_NN(UV) gemv_nn<T, MR, UV><<<grid, kWarps * 32, 0, stream>>>(A, B, C, W, M, N, K, a.stride(0), ldb, c.stride(0), k_per)
    if (unroll == 2) GEMV_NN(2);
    else if (unroll == 4) GEMV_NN(4);
    else if (unroll == 8) GEMV_NN(8);
    else if (unroll == 16) GEMV_NN(16);
    else TORCH_CHECK(false, "gemv_nn: no variant unroll=", unroll);
#undef GEMV_NN
    if (slices > 1)
      reduce_slices<T><<<(M * N + 255) / 256, 256, 0, stream>>>(W, C, M, N, slices, c.stride(0));
  }
  C10_CUDA_KERNEL_LAUNCH_CHECK();
}

}  // namespace gemv_study

// out = a @ b for a (M x K, unit column stride, M <= 8), b (K x N, one unit stride); `ws` an fp32 buffer of at least
// slices * M * N elements when slices > 1 (nn only).
at::Tensor gemv(const at::Tensor& a, const at::Tensor& b, int64_t nr, int64_t unroll, int64_t slices, at::Tensor ws) {
  TORCH_CHECK(a.is_cuda() && b.is_cuda() && a.scalar_type() == b.scalar_type(), "gemv study: CUDA, one dtype");
  TORCH_CHECK(a.dim() == 2 && b.dim() == 2 && a.size(1) == b.size(0) && a.stride(1) == 1, "gemv study: shapes");
  const int M = a.size(0);
  TORCH_CHECK(M >= 1 && M <= 8, "gemv study: 1 <= M <= 8");
  auto c = at::empty({a.size(0), b.size(1)}, a.options());
  const bool bf = a.scalar_type() == at::kBFloat16;
#define GEMV_DT(T)                                                                         \
  if (M <= 1) gemv_study::launch<T, 1>(a, b, c, nr, unroll, slices, ws);                   \
  else if (M <= 2) gemv_study::launch<T, 2>(a, b, c, nr, unroll, slices, ws);              \
  else if (M <= 4) gemv_study::launch<T, 4>(a, b, c, nr, unroll, slices, ws);              \
  else gemv_study::launch<T, 8>(a, b, c, nr, unroll, slices, ws);
  if (bf) { GEMV_DT(__nv_bfloat16) } else { GEMV_DT(__half) }
#undef GEMV_DT
  return c;
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) { m.def("gemv", &gemv); }
#else  // still inside namespace gemv_study
#define GEMV_INST(T, MR)                                                                                           \
  template __global__ void gemv_nt<T, MR, 1, 4>(const T*, const T*, T*, int, int, int, long long, long long, long long); \
  template __global__ void gemv_nt<T, MR, 1, 16>(const T*, const T*, T*, int, int, int, long long, long long, long long); \
  template __global__ void gemv_nt<T, MR, 2, 8>(const T*, const T*, T*, int, int, int, long long, long long, long long); \
  template __global__ void gemv_nt_staged<T, MR, 2, 2>(const T*, const T*, T*, int, int, int, long long, long long,      \
                                                       long long);                                                      \
  template __global__ void gemv_nn<T, MR, 16>(const T*, const T*, T*, float*, int, int, int, long long, long long,    \
                                             long long, int);
GEMV_INST(__half, 1)
GEMV_INST(__half, 8)
}  // namespace gemv_study
#endif
