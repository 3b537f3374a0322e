// Shared-memory load latency and throughput with and without bank conflicts (seed 001's LDS
// table, measured the NVIDIA way: 32 banks of 4 bytes; lane l reading word l*s hits bank
// (l*s) mod 32, so a stride of s = 2^j gives an s-way conflict and s = 0 is a broadcast).
#include <cuda_runtime.h>

#include <set>

#include "common.cuh"

namespace origami::calib {
namespace {

constexpr int kWords = 1024;  // one conflict pattern: lane l uses word (l*s) mod 1024, s <= 32
constexpr int kChains = 4;    // independent chains per thread in the throughput kernel
constexpr int kThroughputThreads = 1024;

// Every word holds its own shared-memory byte address, so `v = ld.shared [v]` is a dependent
// load that returns to the same address: no address arithmetic between loads.
__device__ __forceinline__ unsigned ld_shared(unsigned addr) {
  unsigned v;
  asm volatile("ld.shared.u32 %0, [%1];" : "=r"(v) : "r"(addr) : "memory");
  return v;
}

__global__ void smem_latency_kernel(int stride, int hops, int* errors, long long* cycles) {
  __shared__ unsigned s[kWords];
  const unsigned base = (unsigned)__cvta_generic_to_shared(s);
  for (int i = threadIdx.x; i < kWords; i += blockDim.x) s[i] = base + 4u * i;
  __syncthreads();
  const unsigned lane = threadIdx.x & 31;
  const unsigned start = base + 4u * ((lane * stride) % kWords);
  unsigned v = start;
  long long c0 = clock64();
#pragma unroll 8
  for (int h = 0; h < hops; ++h) v = ld_shared(v);
  long long c1 = clock64();
  if (v != start) atomicAdd(errors, 1);
  if (threadIdx.x == 0) *cycles = c1 - c0;
}

__global__ void __launch_bounds__(kThroughputThreads, 1)
    smem_throughput_kernel(int stride, int hops, int* errors, BlockTiming* timing) {
  __shared__ unsigned s[kChains * kWords];
  __shared__ long long clk0_s;
  __shared__ unsigned long long ns0_s;
  const unsigned base = (unsigned)__cvta_generic_to_shared(s);
  for (int i = threadIdx.x; i < kChains * kWords; i += blockDim.x) s[i] = base + 4u * i;
  __syncthreads();
  const unsigned lane = threadIdx.x & 31;
  unsigned v[kChains], start[kChains];
#pragma unroll
  for (int c = 0; c < kChains; ++c) v[c] = start[c] = base + 4u * (c * kWords + (lane * stride) % kWords);
  if (threadIdx.x == 0) {
    clk0_s = clock64();
    ns0_s = global_timer_ns();
  }
  __syncthreads();
#pragma unroll 4
  for (int h = 0; h < hops; ++h) {
#pragma unroll
    for (int c = 0; c < kChains; ++c) v[c] = ld_shared(v[c]);
  }
  __syncthreads();
  if (threadIdx.x == 0) timing[blockIdx.x] = {clk0_s, clock64(), ns0_s, global_timer_ns(), sm_id(), 0};
#pragma unroll
  for (int c = 0; c < kChains; ++c)
    if (v[c] != start[c]) atomicAdd(errors, 1);
}

}  // namespace

BenchResult shared_memory(const std::vector<int>& word_strides, int repeats) {
  Device dev = require_device();
  require_positive("repeats", repeats);
  for (int s : word_strides)
    if (s < 0 || s > 32) throw std::invalid_argument("word stride " + std::to_string(s) + " outside 0..32");
  const int n_sm = dev.prop.multiProcessorCount;
  // One block per SM: ask for more than half an SM's shared memory (dynamic, untouched).
  const int dyn_smem = dev.smem_optin - int(kChains * kWords * sizeof(unsigned)) - 64;
  if (2 * (dyn_smem + int(kChains * kWords * sizeof(unsigned))) <= dev.smem_per_sm)
    throw std::runtime_error("cannot force one block per SM for the shared-memory throughput kernel");
  CALIB_CHECK(cudaFuncSetAttribute(smem_throughput_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, dyn_smem));
  const int lat_hops = 4096, tput_hops = 2048;
  DeviceBuffer<int> errors(1);
  DeviceBuffer<long long> cycles(1);
  DeviceBuffer<BlockTiming> timing(n_sm);
  BenchResult res;
  for (int r = 0; r <= repeats; ++r) {  // r == 0 is an untimed warm-up
    for (int s : word_strides) {
      const std::string tag = "@" + std::to_string(s);
      errors.zero();
      smem_latency_kernel<<<1, 32>>>(s, lat_hops, errors.get(), cycles.get());
      CALIB_CHECK_LAUNCH();
      smem_throughput_kernel<<<n_sm, kThroughputThreads, dyn_smem>>>(s, tput_hops, errors.get(), timing.get());
      CALIB_CHECK_LAUNCH();
      if (errors.to_host()[0] != 0) throw std::runtime_error("shared-memory chase returned a wrong value");
      if (r == 0) continue;
      res.samples["latency_cycles" + tag].push_back(double(cycles.to_host()[0]) / lat_hops);
      const double bytes = double(kThroughputThreads) * kChains * 4.0 * tput_hops;
      res.samples["bytes_per_cycle_per_sm" + tag].push_back(bytes / block_cycles_from(timing.to_host()));
    }
  }
  res.info["latency_hops"] = lat_hops;
  res.info["throughput_threads_per_sm"] = kThroughputThreads;
  res.info["throughput_chains_per_thread"] = kChains;
  res.notes["method"] =
      "ld.shared.u32 chases (each word holds its own address); latency: one warp, clock64/hops; throughput: "
      "32 warps x 4 independent chains, one block per SM on every SM, bytes delivered per SM cycle (median block)";
  return res;
}

}  // namespace origami::calib
