// Compute-side microbenchmarks: mma.sync m16n8k16 (fp16, bf16) and m16n8k8 (tf32) latency and throughput (seed 000
// Algorithm 3's mma_latency and the tensor-core roofs), FP32 CUDA-core throughput (seed 002's C_fp32, theta,
// m_FMA), the sustained SM clock under load, and the device description.
#include <cuda_runtime.h>

#include <set>

#include "common.cuh"

namespace origami::calib {
namespace {

constexpr unsigned kHalfOnePair = 0x3C003C00u;  // two fp16 1.0
constexpr unsigned kBf16OnePair = 0x3F803F80u;  // two bf16 1.0
constexpr unsigned kHalfQuarterPair = 0x34003400u;  // two fp16 0.25: 16 products of 1/16 add exactly 1 per mma
constexpr unsigned kTf32One = 0x3F800000u;  // fp32 1.0 (exact in TF32)

// The mma.sync atom timed: m16n8k16 of fp16 or bf16, m16n8k8 of tf32 (the TF32 kernels' instruction: the same 32 bytes
// of K per row, half the flops).
enum MmaType : int { kF16 = 0, kBF16 = 1, kTF32 = 2 };
constexpr int mma_k(int type) { return type == kTF32 ? 8 : 16; }

template <int TYPE>
__device__ __forceinline__ void mma_16816(float (&d)[4], unsigned a, unsigned b) {
  if constexpr (TYPE == kTF32)
    asm volatile(
        "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%4,%4,%4}, {%4,%4}, "
        "{%0,%1,%2,%3};"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a));
  else if constexpr (TYPE == kBF16)
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%4,%4,%4}, {%4,%4}, "
        "{%0,%1,%2,%3};"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a));
  else
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%4,%4,%4}, {%4,%4}, "
        "{%0,%1,%2,%3};"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a));
  (void)b;
}

// CHAINS independent accumulators per warp, each a dependent chain of `iters` mma.sync with every
// A and B element equal to `ab_pair`'s value: each accumulator element ends at exactly
// per_mma * iters (checked), per_mma = k * a * b.
template <int TYPE, int CHAINS>
__global__ void mma_kernel(unsigned one_pair, float per_mma, int iters, int* errors, BlockTiming* timing) {
  __shared__ long long clk0_s;
  __shared__ unsigned long long ns0_s;
  float d[CHAINS][4];
#pragma unroll
  for (int c = 0; c < CHAINS; ++c) d[c][0] = d[c][1] = d[c][2] = d[c][3] = 0.f;
  if (threadIdx.x == 0) {
    clk0_s = clock64();
    ns0_s = global_timer_ns();
  }
  __syncthreads();
  for (int i = 0; i < iters; ++i) {
#pragma unroll
    for (int c = 0; c < CHAINS; ++c) mma_16816<TYPE>(d[c], one_pair, one_pair);
  }
  __syncthreads();
  if (threadIdx.x == 0) timing[blockIdx.x] = {clk0_s, clock64(), ns0_s, global_timer_ns(), sm_id(), 0};
  const float want = per_mma * iters;
#pragma unroll
  for (int c = 0; c < CHAINS; ++c)
    for (int e = 0; e < 4; ++e)
      if (d[c][e] != want) atomicAdd(errors, 1);
}

// 8 independent FP32 chains per thread; FMA_PER_8 of each 8 instructions are FFMA (x = x*1 + 1),
// the rest FADD (x = x + 1), so every chain ends at exactly `iters` (checked; iters < 2^24).
// Lanes >= active_lanes skip the loop: the warp issues the same instructions with fewer lanes.
template <int FMA_PER_8>
__global__ void __launch_bounds__(1024, 1)
    fp32_kernel(float one, int active_lanes, int iters, int* errors, BlockTiming* timing) {
  __shared__ long long clk0_s;
  __shared__ unsigned long long ns0_s;
  if (threadIdx.x == 0) {
    clk0_s = clock64();
    ns0_s = global_timer_ns();
  }
  __syncthreads();
  if ((int)(threadIdx.x & 31) < active_lanes) {
    float x[8];
#pragma unroll
    for (int c = 0; c < 8; ++c) x[c] = 0.f;
#pragma unroll 16
    for (int i = 0; i < iters; ++i) {
#pragma unroll
      for (int c = 0; c < 8; ++c) {
        if (c < FMA_PER_8)
          asm volatile("fma.rn.f32 %0, %0, %1, %1;" : "+f"(x[c]) : "f"(one));
        else
          asm volatile("add.rn.f32 %0, %0, %1;" : "+f"(x[c]) : "f"(one));
      }
    }
#pragma unroll
    for (int c = 0; c < 8; ++c)
      if (x[c] != float(iters)) atomicAdd(errors, 1);
  }
  __syncthreads();
  if (threadIdx.x == 0) timing[blockIdx.x] = {clk0_s, clock64(), ns0_s, global_timer_ns(), sm_id(), 0};
}

template <int FMA_PER_8>
void launch_fp32(int blocks, int dyn_smem, int lanes, int iters, int* errors, BlockTiming* timing) {
  CALIB_CHECK(cudaFuncSetAttribute(fp32_kernel<FMA_PER_8>, cudaFuncAttributeMaxDynamicSharedMemorySize, dyn_smem));
  fp32_kernel<FMA_PER_8><<<blocks, 1024, dyn_smem>>>(1.0f, lanes, iters, errors, timing);
}

void launch_fp32_dispatch(int fma_per_8, int blocks, int dyn_smem, int lanes, int iters, int* errors,
                          BlockTiming* timing) {
  switch (fma_per_8) {
    case 0: return launch_fp32<0>(blocks, dyn_smem, lanes, iters, errors, timing);
    case 2: return launch_fp32<2>(blocks, dyn_smem, lanes, iters, errors, timing);
    case 4: return launch_fp32<4>(blocks, dyn_smem, lanes, iters, errors, timing);
    case 6: return launch_fp32<6>(blocks, dyn_smem, lanes, iters, errors, timing);
    case 8: return launch_fp32<8>(blocks, dyn_smem, lanes, iters, errors, timing);
    default: throw std::invalid_argument("fma_per_8 must be one of 0, 2, 4, 6, 8");
  }
}

// One block per SM: a dynamic shared-memory request above half an SM (never touched).
int one_block_per_sm_smem(const Device& dev) {
  if (2 * dev.smem_optin <= dev.smem_per_sm) throw std::runtime_error("cannot force one block per SM");
  return dev.smem_optin - 1024;  // leave room for the kernels' static shared memory
}

template <int TYPE, int CHAINS>
void launch_mma(int blocks, int threads, int dyn_smem, unsigned one, float per_mma, int iters, int* errors,
                BlockTiming* timing) {
  CALIB_CHECK(cudaFuncSetAttribute(mma_kernel<TYPE, CHAINS>, cudaFuncAttributeMaxDynamicSharedMemorySize, dyn_smem));
  mma_kernel<TYPE, CHAINS><<<blocks, threads, dyn_smem>>>(one, per_mma, iters, errors, timing);
}

// per_mma: what one mma adds to each accumulator element (k for A = B = 1).
template <int TYPE>
void launch_mma_chains(int chains, int blocks, int threads, int dyn_smem, unsigned one, int iters, int* errors,
                       BlockTiming* timing, float per_mma = float(mma_k(TYPE))) {
  switch (chains) {
    case 1: return launch_mma<TYPE, 1>(blocks, threads, dyn_smem, one, per_mma, iters, errors, timing);
    case 2: return launch_mma<TYPE, 2>(blocks, threads, dyn_smem, one, per_mma, iters, errors, timing);
    case 4: return launch_mma<TYPE, 4>(blocks, threads, dyn_smem, one, per_mma, iters, errors, timing);
    case 8: return launch_mma<TYPE, 8>(blocks, threads, dyn_smem, one, per_mma, iters, errors, timing);
    default: throw std::invalid_argument("chains must be one of 1, 2, 4, 8");
  }
}

}  // namespace

BenchResult device_info() {
  Device dev = require_device();
  BenchResult res;
  const auto& p = dev.prop;
  int driver = 0, runtime = 0;
  CALIB_CHECK(cudaDriverGetVersion(&driver));
  CALIB_CHECK(cudaRuntimeGetVersion(&runtime));
  res.notes["name"] = p.name;
  res.info["device"] = dev.id;
  res.info["cc_major"] = p.major;
  res.info["cc_minor"] = p.minor;
  res.info["sm_count"] = p.multiProcessorCount;
  res.info["l2_bytes"] = p.l2CacheSize;
  res.info["smem_per_block_optin_bytes"] = dev.smem_optin;
  res.info["smem_per_sm_bytes"] = dev.smem_per_sm;
  res.info["regs_per_sm"] = p.regsPerMultiprocessor;
  res.info["max_threads_per_sm"] = p.maxThreadsPerMultiProcessor;
  res.info["sm_clock_max_mhz"] = dev.clock_khz / 1e3;
  res.info["mem_clock_mhz"] = dev.mem_clock_khz / 1e3;
  res.info["mem_bus_width_bits"] = dev.bus_width_bits;
  // Double data rate: two transfers per memory clock (how the datasheet figure is formed).
  res.info["dram_peak_bytes_per_s"] = 2.0 * dev.mem_clock_khz * 1e3 * dev.bus_width_bits / 8.0;
  res.info["global_mem_bytes"] = double(p.totalGlobalMem);
  res.info["driver_version"] = driver;
  res.info["runtime_version"] = runtime;
  return res;
}

BenchResult mma_sync(const std::string& dtype, int warps, int chains, int repeats) {
  Device dev = require_device();
  require_positive("warps", warps);
  require_positive("repeats", repeats);
  if (warps > 32) throw std::invalid_argument("warps must be <= 32");
  int type;
  if (dtype == "float16" || dtype == "fp16") type = kF16;
  else if (dtype == "bfloat16" || dtype == "bf16") type = kBF16;
  else if (dtype == "tfloat32" || dtype == "tf32") type = kTF32;
  else throw std::invalid_argument("mma_sync dtype must be float16, bfloat16 or tfloat32, got '" + dtype + "'");
  if (dev.prop.major < 8) throw std::runtime_error("mma.sync m16n8k16 / m16n8k8.tf32 needs sm_80 or newer");
  const unsigned one = type == kTF32 ? kTf32One : type == kBF16 ? kBf16OnePair : kHalfOnePair;
  const double mma_flops = 2.0 * 16 * 8 * mma_k(type);
  const int n_sm = dev.prop.multiProcessorCount;
  const int dyn_smem = one_block_per_sm_smem(dev);
  const int lat_iters = 4096, tput_iters = 2048;
  DeviceBuffer<int> errors(1);
  DeviceBuffer<BlockTiming> timing(n_sm);
  auto launch = [&](int ch, int blocks, int threads, int iters) {
    errors.zero();
    if (type == kTF32) launch_mma_chains<kTF32>(ch, blocks, threads, dyn_smem, one, iters, errors.get(), timing.get());
    else if (type == kBF16) launch_mma_chains<kBF16>(ch, blocks, threads, dyn_smem, one, iters, errors.get(), timing.get());
    else launch_mma_chains<kF16>(ch, blocks, threads, dyn_smem, one, iters, errors.get(), timing.get());
    CALIB_CHECK_LAUNCH();
    if (errors.to_host()[0] != 0) throw std::runtime_error("mma.sync accumulators differ from k*iters");
    auto t = timing.to_host();
    t.resize(blocks);
    return t;
  };
  BenchResult res;
  launch(chains, n_sm, warps * 32, 64);  // warm-up
  for (int r = 0; r < repeats; ++r) {
    auto lat = launch(1, 1, 32, lat_iters);
    res.samples["latency_cycles"].push_back(block_cycles_from(lat) / lat_iters);
    auto tp = launch(chains, n_sm, warps * 32, tput_iters);
    std::set<unsigned> sms;
    for (auto& b : tp) sms.insert(b.smid);
    if ((int)sms.size() != n_sm) throw std::runtime_error("mma.sync throughput blocks did not occupy distinct SMs");
    res.samples["flops_per_cycle_per_sm"].push_back(double(warps) * chains * tput_iters * mma_flops /
                                                   block_cycles_from(tp));
    res.samples["clock_mhz"].push_back(clock_mhz_from(tp));
  }
  res.info["warps_per_sm"] = warps;
  res.info["chains_per_warp"] = chains;
  res.info["latency_iters"] = lat_iters;
  res.info["throughput_iters"] = tput_iters;
  res.notes["method"] =
      "latency: one warp, one dependent accumulator chain, clock64/iters; throughput: one block per SM on every "
      "SM, independent accumulators, median block cycles; A=B=1, every accumulator checked equal to k*iters (k = 16, "
      "8 for tf32)";
  return res;
}

BenchResult fp32_throughput(int active_lanes, int fma_per_8, int repeats) {
  Device dev = require_device();
  require_positive("repeats", repeats);
  if (active_lanes < 1 || active_lanes > 32) throw std::invalid_argument("active_lanes must be in 1..32");
  const int n_sm = dev.prop.multiProcessorCount;
  const int dyn_smem = one_block_per_sm_smem(dev);
  const int iters = 8192;
  DeviceBuffer<int> errors(1);
  DeviceBuffer<BlockTiming> timing(n_sm);
  BenchResult res;
  for (int r = 0; r <= repeats; ++r) {  // r == 0: warm-up
    errors.zero();
    launch_fp32_dispatch(fma_per_8, n_sm, dyn_smem, active_lanes, iters, errors.get(), timing.get());
    CALIB_CHECK_LAUNCH();
    if (errors.to_host()[0] != 0) throw std::runtime_error("FP32 chains did not end at iters");
    if (r == 0) continue;
    auto t = timing.to_host();
    // FLOPs of the active lanes only: FFMA = 2, FADD = 1 (seed 002, E2).
    const double flops = 32.0 /*warps*/ * active_lanes * iters * (2.0 * fma_per_8 + (8 - fma_per_8));
    res.samples["flops_per_cycle_per_sm"].push_back(flops / block_cycles_from(t));
    res.samples["clock_mhz"].push_back(clock_mhz_from(t));
  }
  res.info["theta"] = active_lanes / 32.0;
  res.info["m_fma"] = fma_per_8 / 8.0;
  res.info["threads_per_sm"] = 1024;
  res.info["iters"] = iters;
  res.notes["method"] =
      "one block of 1024 threads per SM, 8 independent chains per thread of fma.rn.f32/add.rn.f32 (inline PTX), "
      "lanes >= active_lanes idle; every chain checked";
  return res;
}

BenchResult sustained_clock(double target_ms, int repeats, const std::string& load) {
  Device dev = require_device();
  require_positive("repeats", repeats);
  if (!(target_ms > 0)) throw std::invalid_argument("target_ms must be positive");
  if (load != "mma" && load != "ffma") throw std::invalid_argument("load must be 'mma' or 'ffma', got '" + load + "'");
  if (load == "mma" && dev.prop.major < 8) throw std::runtime_error("the mma.sync load needs sm_80 or newer");
  const int n_sm = dev.prop.multiProcessorCount;
  const int dyn_smem = one_block_per_sm_smem(dev);
  DeviceBuffer<int> errors(1);
  DeviceBuffer<BlockTiming> timing(n_sm);
  auto run = [&](int iters) {
    errors.zero();
    float ms = time_ms([&] {
      if (load == "mma")  // 16 warps x 8 chains per SM: the mma_sync throughput configuration
        launch_mma_chains<kF16>(8, n_sm, 16 * 32, dyn_smem, kHalfQuarterPair, iters, errors.get(), timing.get(), 1.f);
      else
        launch_fp32_dispatch(8, n_sm, dyn_smem, 32, iters, errors.get(), timing.get());
    });
    CALIB_CHECK_LAUNCH();
    if (errors.to_host()[0] != 0) throw std::runtime_error("clock kernel's chains did not end at iters");
    return ms;
  };
  // Size the kernel from a short probe; the chains count 1 per step and must stay below 2^24
  // to remain exact in fp32.
  const int probe = 16384;
  float probe_ms = run(probe);
  long long iters = (long long)(probe * (target_ms / std::max(probe_ms, 1e-3f)));
  iters = std::max<long long>(probe, std::min<long long>(iters, (1 << 24) - 16));
  BenchResult res;
  for (int r = 0; r < repeats; ++r) {
    float ms = run((int)iters);
    auto t = timing.to_host();
    res.samples["clock_mhz"].push_back(clock_mhz_from(t));
    res.samples["kernel_ms"].push_back(ms);
  }
  res.info["sm_clock_max_mhz"] = dev.clock_khz / 1e3;
  res.info["iters"] = double(iters);
  res.notes["method"] = std::string(load == "mma" ? "mma.sync m16n8k16 fp16 (16 warps x 8 chains per SM)"
                                                  : "FFMA (1024 threads x 8 chains per SM)") +
                        " on every SM for ~target_ms; per block (clock64 delta)/(%globaltimer delta), median over blocks";
  return res;
}

}  // namespace origami::calib
