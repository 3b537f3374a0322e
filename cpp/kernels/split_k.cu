// Split-K reduction (TileConfig::split_k, make_split_plan): for every tail tile of a split launch,
// C = round_to_T( sum over slices s = 0..S-1 of its partial tiles (+ bias) ), the partials being the fp32
// tiles the slices wrote to the workspace (gemm_args.hpp for the layout).
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
  const float* ws;           // tile-local partials: slice s of tail tile j at (s * tail_tiles + j) * bm * bn
  void* c;
  const void* bias;          // N elements of T added to every row (nullptr: none)
  int m, n;                  // C is m x n per batch
  long long ldc, c_batch;    // elements
  int tiles_m, tiles_n, group_size_m;  // the GEMM's raster (gemm_args.hpp: triton_raster)
  int bm, bn;                // the GEMM's tile
  long long dp_tiles, tail_tiles;
  int slices;
  int vector_store;          // 4 consecutive outputs may be stored as 8 bytes (ldc, c_batch, c aligned)
  int swapped_raster;        // the GEMM was a swapped-operand kernel: its tiles in C^T's raster (gemm_wgmma.cuh)
};

template <typename T> __device__ __forceinline__ float to_float(T v);
template <> __device__ __forceinline__ float to_float<__half>(__half v) { return __half2float(v); }
template <> __device__ __forceinline__ float to_float<__nv_bfloat16>(__nv_bfloat16 v) { return __bfloat162float(v); }
template <typename T> __device__ __forceinline__ T from_float(float v);
template <> __device__ __forceinline__ __half from_float<__half>(float v) { return __float2half_rn(v); }
template <> __device__ __forceinline__ __nv_bfloat16 from_float<__nv_bfloat16>(float v) { return __float2bfloat16_rn(v); }
template <> __device__ __forceinline__ float to_float<float>(float v) { return v; }
template <> __device__ __forceinline__ float from_float<float>(float v) { return v; }
// Four consecutive outputs stored at once: 8 bytes of a 16-bit type, 16 of fp32.
template <int Bytes> struct Store4;
template <> struct Store4<8> { using type = uint2; };
template <> struct Store4<16> { using type = uint4; };

// One thread per 4 consecutive columns of one row of one tail tile (bn is a multiple of 8, so a group never
// crosses a tile row; the partials of a group are one 16-byte load per slice).
template <typename T>
__global__ void __launch_bounds__(SplitPlan::kReduceThreads) split_k_reduce_kernel(const ReduceParams p) {
  // Programmatic dependent launch (pdl.hpp): the GEMM that wrote the workspace may still be running.
  pdl_wait_for_prior_grids();
  const long long tile_elems = static_cast<long long>(p.bm) * p.bn;
  const long long groups = p.tail_tiles * (tile_elems / 4);
  const long long slice_stride = p.tail_tiles * tile_elems;
  const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
  const long long tiles_per_batch = static_cast<long long>(p.tiles_m) * p.tiles_n;
  for (long long g = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; g < groups; g += stride) {
    const long long j = g / (tile_elems / 4);            // tail tile
    const int e = static_cast<int>(g - j * (tile_elems / 4)) * 4;
    const int row = e / p.bn, col = e - row * p.bn;
    const long long t = p.dp_tiles + j;                  // its index among all tiles
    const long long b = t / tiles_per_batch;
    int tile_m, tile_n;
    // (a swapped kernel numbered C^T's tiles: its tile rows are C's tile columns; each partial is C's tile)
    if (p.swapped_raster)
      triton_raster(static_cast<int>(t - b * tiles_per_batch), p.tiles_n, p.tiles_m, p.group_size_m, tile_n, tile_m);
    else
      triton_raster(static_cast<int>(t - b * tiles_per_batch), p.tiles_m, p.tiles_n, p.group_size_m, tile_m, tile_n);
    const int gm = tile_m * p.bm + row, gn = tile_n * p.bn + col;
    if (gm >= p.m || gn >= p.n) continue;
    // Slice order 0, 1, ..., S-1, then the bias: one fixed order of additions (the same bits every run).
    const float* src = p.ws + j * tile_elems + e;
    // The loads of kSliceBatch slices are issued together, then added in slice order: one L2 round trip per
    // batch instead of one per slice (a thread's loop was latency-bound at many slices: this grid has one
    // thread per 4 outputs, too few warps per SM to hide a round trip per slice), same bits as slice by slice.
    constexpr int kSliceBatch = SplitPlan::kReduceSliceBatch;
    float4 acc = __ldg(reinterpret_cast<const float4*>(src));
    int s = 1;
    for (; s + kSliceBatch <= p.slices; s += kSliceBatch) {
      float4 v[kSliceBatch];
#pragma unroll
      for (int i = 0; i < kSliceBatch; ++i) v[i] = __ldg(reinterpret_cast<const float4*>(src + (s + i) * slice_stride));
#pragma unroll
      for (int i = 0; i < kSliceBatch; ++i) { acc.x += v[i].x; acc.y += v[i].y; acc.z += v[i].z; acc.w += v[i].w; }
    }
    for (; s < p.slices; ++s) {
      const float4 v = __ldg(reinterpret_cast<const float4*>(src + s * slice_stride));
      acc.x += v.x; acc.y += v.y; acc.z += v.z; acc.w += v.w;
    }
    float out[4] = {acc.x, acc.y, acc.z, acc.w};
    const int valid = p.n - gn < 4 ? p.n - gn : 4;       // columns of the group inside C (the partials
    if (p.bias != nullptr) {                             // beyond N were never written)
      const T* bias = static_cast<const T*>(p.bias) + gn;
      for (int i = 0; i < valid; ++i) out[i] += to_float<T>(bias[i]);
    }
    T* dst = static_cast<T*>(p.c) + b * p.c_batch + static_cast<long long>(gm) * p.ldc + gn;
    if (valid == 4 && p.vector_store) {
      using V = typename Store4<4 * sizeof(T)>::type;
      union { T h[4]; V u; } v;
      for (int i = 0; i < 4; ++i) v.h[i] = from_float<T>(out[i]);
      *reinterpret_cast<V*>(dst) = v.u;
    } else {
      for (int i = 0; i < valid; ++i) dst[i] = from_float<T>(out[i]);
    }
  }
}

template <typename T>
cudaError_t launch_reduce(const GemmArgs& g, const SplitPlan& sp, int block_m, int block_n, bool swapped_raster) {
  ReduceParams p;
  p.swapped_raster = swapped_raster ? 1 : 0;
  p.ws = g.workspace;
  p.c = g.c;
  p.bias = g.bias;
  p.m = static_cast<int>(g.M);
  p.n = static_cast<int>(g.N);
  p.ldc = g.c_stride_m;
  p.c_batch = g.c_stride_batch;
  p.tiles_m = static_cast<int>((g.M + block_m - 1) / block_m);
  p.tiles_n = static_cast<int>((g.N + block_n - 1) / block_n);
  p.group_size_m = g.group_size_m < 1 ? 1 : g.group_size_m;  // as the GEMM launchers clamp it
  p.bm = block_m;
  p.bn = block_n;
  p.dp_tiles = sp.dp_tiles;
  p.tail_tiles = sp.tail_tiles;
  p.slices = sp.slices;
  p.vector_store = (g.c_stride_m % 4 == 0) && (g.batch == 1 || g.c_stride_batch % 4 == 0) &&
                   (reinterpret_cast<std::uintptr_t>(g.c) % (4 * sizeof(T)) == 0);
  const long long groups = sp.tail_tiles * (static_cast<long long>(block_m) * block_n / 4);
  int dev = 0;
  cudaError_t e = cudaGetDevice(&dev);
  if (e != cudaSuccess) return e;
  int sms = g.sm_count;
  if (sms <= 0) {
    e = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
    if (e != cudaSuccess) return e;
  }
  constexpr int kThreads = SplitPlan::kReduceThreads;
  // Enough CTAs to keep every SM's memory pipe busy (8 x 256 threads per SM), grid-stride beyond that.
  const long long blocks = std::min<long long>((groups + kThreads - 1) / kThreads,
                                               static_cast<long long>(SplitPlan::kReduceBlocksPerSm) * sms);
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

bool is_split_k_reduce_kernel(const void* func) {
  return func == reinterpret_cast<const void*>(&split_k_reduce_kernel<__half>) ||
         func == reinterpret_cast<const void*>(&split_k_reduce_kernel<__nv_bfloat16>) ||
         func == reinterpret_cast<const void*>(&split_k_reduce_kernel<float>);
}

cudaError_t launch_split_k_reduce(const GemmArgs& g, DType dtype, int block_m, int block_n, int block_k,
                                  bool swapped_raster) {
  const SplitPlan sp = split_plan(g, block_m, block_n, block_k);
  if (sp.slices <= 1 || sp.tail_tiles == 0) return cudaSuccess;
  if (g.workspace == nullptr || g.c == nullptr || block_n % 8 != 0) return cudaErrorInvalidValue;
  switch (dtype) {
    case DType::Float16: return launch_reduce<__half>(g, sp, block_m, block_n, swapped_raster);
    case DType::BFloat16: return launch_reduce<__nv_bfloat16>(g, sp, block_m, block_n, swapped_raster);
    case DType::Float32:
    case DType::TFloat32: return launch_reduce<float>(g, sp, block_m, block_n, swapped_raster);
  }
  return cudaErrorInvalidValue;
}

}  // namespace origami
