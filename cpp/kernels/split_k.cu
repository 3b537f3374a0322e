// Split-K reduction (TileConfig::split_k): C[b] = round_to_T( sum over slices s = 0..S-1 of W[s][b] ), where
// W[s][b] is the fp32 partial tile slice s of batch b wrote to the workspace (gemm_args.hpp for the layout).
//
// Why a second kernel rather than a fix-up inside the GEMM (stream-K style, the last CTA of a tile adding the
// others' partials): the sum must be the same bits every run, so the order of the additions must not depend
// on which slice finished last. A separate pass reads the S partials of an element in slice order 0..S-1:
// deterministic by construction, no semaphores, no counters to reset, nothing to go wrong inside CUDA graphs.
// Its cost is one more launch (overlapped with the GEMM's tail by programmatic dependent launch) and one
// pass over S * M * N floats, which for the shapes split-K is for (M <= 512: few output tiles) is small and
// mostly L2-resident. The model charges both (cpp/model: the reduction term).
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <atomic>
#include <cstdint>

#include "gemm_args.hpp"
#include "pdl.hpp"
#include "split_k.hpp"

namespace origami {
namespace {

struct ReduceParams {
  const float* ws;
  void* c;
  long long m, n;            // C is m x n per batch
  long long ldc, c_batch;    // elements
  long long batch;
  long long slice_stride;    // batch * m * n: floats between slices
  int slices;
  int vector4;               // 4 consecutive columns per thread (alignment checked on the host)
  const void* bias;          // N elements of T added to every row (nullptr: none)
};

template <typename T> __device__ __forceinline__ float to_float(T v);
template <> __device__ __forceinline__ float to_float<__half>(__half v) { return __half2float(v); }
template <> __device__ __forceinline__ float to_float<__nv_bfloat16>(__nv_bfloat16 v) { return __bfloat162float(v); }
template <typename T> __device__ __forceinline__ T from_float(float v);
template <> __device__ __forceinline__ __half from_float<__half>(float v) { return __float2half_rn(v); }
template <> __device__ __forceinline__ __nv_bfloat16 from_float<__nv_bfloat16>(float v) { return __float2bfloat16_rn(v); }

template <typename T>
__global__ void __launch_bounds__(256) split_k_reduce_kernel(const ReduceParams p) {
  // Programmatic dependent launch (pdl.hpp): the GEMM that wrote the workspace may still be running.
  pdl_wait_for_prior_grids();
  const long long mn = p.m * p.n;
  const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
  if (p.vector4) {
    const long long groups = p.batch * mn / 4;  // n % 4 == 0: a group never crosses a row
    for (long long g = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; g < groups; g += stride) {
      const long long e = 4 * g;
      const float* src = p.ws + e;
      float4 acc = __ldg(reinterpret_cast<const float4*>(src));
      for (int s = 1; s < p.slices; ++s) {
        const float4 v = __ldg(reinterpret_cast<const float4*>(src + s * p.slice_stride));
        acc.x += v.x; acc.y += v.y; acc.z += v.z; acc.w += v.w;
      }
      const long long b = e / mn, r = e - b * mn, row = r / p.n, col = r - row * p.n;
      if (p.bias != nullptr) {  // after the partials, in slice order: one fixed order of additions
        const T* bias = static_cast<const T*>(p.bias) + col;
        acc.x += to_float<T>(bias[0]); acc.y += to_float<T>(bias[1]);
        acc.z += to_float<T>(bias[2]); acc.w += to_float<T>(bias[3]);
      }
      T* dst = static_cast<T*>(p.c) + b * p.c_batch + row * p.ldc + col;
      union { T h[4]; uint2 u; } out;
      out.h[0] = from_float<T>(acc.x); out.h[1] = from_float<T>(acc.y);
      out.h[2] = from_float<T>(acc.z); out.h[3] = from_float<T>(acc.w);
      *reinterpret_cast<uint2*>(dst) = out.u;
    }
  } else {
    const long long total = p.batch * mn;
    for (long long e = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; e < total; e += stride) {
      float acc = p.ws[e];
      for (int s = 1; s < p.slices; ++s) acc += p.ws[e + s * p.slice_stride];
      const long long b = e / mn, r = e - b * mn, row = r / p.n, col = r - row * p.n;
      if (p.bias != nullptr) acc += to_float<T>(static_cast<const T*>(p.bias)[col]);
      static_cast<T*>(p.c)[b * p.c_batch + row * p.ldc + col] = from_float<T>(acc);
    }
  }
}

template <typename T>
cudaError_t launch_reduce(const GemmArgs& g, int slices) {
  ReduceParams p;
  p.ws = g.workspace;
  p.c = g.c;
  p.m = g.M;
  p.n = g.N;
  p.ldc = g.c_stride_m;
  p.c_batch = g.c_stride_batch;
  p.batch = g.batch;
  p.slice_stride = g.batch * g.M * g.N;
  p.slices = slices;
  p.bias = g.bias;
  p.vector4 = (g.N % 4 == 0) && (g.c_stride_m % 4 == 0) && (g.batch == 1 || g.c_stride_batch % 4 == 0) &&
              (reinterpret_cast<std::uintptr_t>(g.c) % 8 == 0) && (reinterpret_cast<std::uintptr_t>(g.workspace) % 16 == 0);
  const long long items = p.vector4 ? g.batch * g.M * g.N / 4 : g.batch * g.M * g.N;
  int dev = 0;
  cudaError_t e = cudaGetDevice(&dev);
  if (e != cudaSuccess) return e;
  int sms = g.sm_count;
  if (sms <= 0) {
    e = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
    if (e != cudaSuccess) return e;
  }
  constexpr int kThreads = 256;
  // Enough CTAs to keep every SM's memory pipe busy (8 x 256 threads per SM), grid-stride beyond that.
  const long long blocks = std::min<long long>((items + kThreads - 1) / kThreads, 8ll * sms);
  cudaLaunchConfig_t cfg{};
  cudaLaunchAttribute attr[1];
  cfg.gridDim = dim3(static_cast<unsigned>(blocks < 1 ? 1 : blocks));
  cfg.blockDim = dim3(kThreads);
  cfg.stream = g.stream;
  cfg.attrs = attr;
  static std::atomic<unsigned char> waits[64];  // pdl.hpp, per kernel instance and device
  // No early trigger (griddepcontrol.launch_dependents) here: the next grid launches as our CTAs exit.
  cfg.numAttrs = add_pdl_attribute(g.programmatic_dependent_launch,
                                   reinterpret_cast<const void*>(&split_k_reduce_kernel<T>), dev, waits, attr, 0);
  return cudaLaunchKernelEx(&cfg, split_k_reduce_kernel<T>, p);
}

}  // namespace

cudaError_t launch_split_k_reduce(const GemmArgs& g, DType dtype, int slices) {
  if (slices <= 1) return cudaSuccess;
  if (g.workspace == nullptr || g.c == nullptr) return cudaErrorInvalidValue;
  if (g.M <= 0 || g.N <= 0 || g.batch <= 0) return cudaSuccess;
  return dtype == DType::Float16 ? launch_reduce<__half>(g, slices) : launch_reduce<__nv_bfloat16>(g, slices);
}

}  // namespace origami
