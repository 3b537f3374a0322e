// wgmma.mma_async m64nNk16 (f16, bf16) and m64nNk8 (tf32) latency and throughput (sm_90a only; compiled for
// sm_90a alone). Both operands come from shared memory filled with 1.0, so every accumulator element after
// `count` instructions is exactly K*count whatever the operand layout: the check does not depend on the
// descriptor's core-matrix interpretation, only on the instruction running. Every type moves 32 bytes of K per
// instruction, so one descriptor layout serves all three.
#include <cuda_runtime.h>

#include <set>
#include <type_traits>

#include "common.cuh"

#if defined(__CUDA_ARCH__) && (__CUDA_ARCH__ == 900) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define ORIGAMI_CALIB_WGMMA_DEVICE 1
#include "wgmma_asm.inc"
#endif

namespace origami::calib {
namespace {

// Element types (template argument T) and the 32-bit word of ones that fills the operands of each.
constexpr int kF16 = 0, kBF16 = 1, kTF32 = 2;
constexpr unsigned kOnes[3] = {0x3C003C00u /* two fp16 1.0 */, 0x3F803F80u /* two bf16 1.0 */,
                               0x3F800000u /* fp32 1.0 */};
constexpr int kInstrK[3] = {16, 16, 8};  // K of one instruction
constexpr int kOperandBytes = 16384;  // per operand; far more than m64/n256 x k16 needs with the strides below
constexpr int kBatch = 4;             // wgmma instructions per commit group in the throughput loop

#ifdef ORIGAMI_CALIB_WGMMA_DEVICE
// Shared-memory matrix descriptor, no swizzle: start address, leading- and stride-dimension
// byte offsets (all in 16-byte units). Core matrices are 8 rows x 16 bytes.
__device__ __forceinline__ unsigned long long smem_desc(unsigned addr) {
  unsigned long long d = 0;
  d |= (unsigned long long)((addr & 0x3FFFF) >> 4);
  d |= (unsigned long long)(128 >> 4) << 16;
  d |= (unsigned long long)(256 >> 4) << 32;
  return d;
}
__device__ __forceinline__ void wg_fence() { asm volatile("wgmma.fence.sync.aligned;" ::: "memory"); }
__device__ __forceinline__ void wg_commit() { asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory"); }
template <int N>
__device__ __forceinline__ void wg_wait() {
  asm volatile("wgmma.wait_group.sync.aligned %0;" ::"n"(N) : "memory");
}

template <int N, int T>
__device__ __forceinline__ void wgmma_op(float (&d)[N / 2], unsigned long long a, unsigned long long b) {
  if constexpr (T == kTF32) {
    if constexpr (N == 64) wgmma_m64n64k8_tf32(d, a, b);
    else if constexpr (N == 128) wgmma_m64n128k8_tf32(d, a, b);
    else wgmma_m64n256k8_tf32(d, a, b);
  } else if constexpr (T == kBF16) {
    if constexpr (N == 64) wgmma_m64n64k16_bf16(d, a, b);
    else if constexpr (N == 128) wgmma_m64n128k16_bf16(d, a, b);
    else wgmma_m64n256k16_bf16(d, a, b);
  } else {
    if constexpr (N == 64) wgmma_m64n64k16_f16(d, a, b);
    else if constexpr (N == 128) wgmma_m64n128k16_f16(d, a, b);
    else wgmma_m64n256k16_f16(d, a, b);
  }
}
#endif

// LATENCY: one warpgroup, each instruction fenced, committed and waited for alone.
// Otherwise: every warpgroup issues groups of kBatch instructions on one accumulator
// (same-shape accumulator chaining needs no wait), keeping up to two groups in flight.
template <int N, int T, bool LATENCY>
__global__ void wgmma_kernel(unsigned one_pair, int iters, int* errors, BlockTiming* timing) {
#ifdef ORIGAMI_CALIB_WGMMA_DEVICE
  __shared__ alignas(128) unsigned operands[2 * kOperandBytes / 4];
  __shared__ long long clk0_s;
  __shared__ unsigned long long ns0_s;
  for (int i = threadIdx.x; i < 2 * kOperandBytes / 4; i += blockDim.x) operands[i] = one_pair;
  // generic-proxy writes must be visible to the async proxy that wgmma reads through
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  __syncthreads();
  const unsigned base = (unsigned)__cvta_generic_to_shared(operands);
  const unsigned long long da = smem_desc(base), db = smem_desc(base + kOperandBytes);
  float d[N / 2];
#pragma unroll
  for (int i = 0; i < N / 2; ++i) d[i] = 0.f;
  if (threadIdx.x == 0) {
    clk0_s = clock64();
    ns0_s = global_timer_ns();
  }
  __syncthreads();
  int count = 0;
  if constexpr (LATENCY) {
    for (int i = 0; i < iters; ++i) {
      wg_fence();
      wgmma_op<N, T>(d, da, db);
      wg_commit();
      wg_wait<0>();
    }
    count = iters;
  } else {
    for (int i = 0; i < iters; ++i) {
      wg_fence();  // what ptxas would inject anyway before the group reads the accumulators
#pragma unroll
      for (int j = 0; j < kBatch; ++j) wgmma_op<N, T>(d, da, db);
      wg_commit();
      wg_wait<1>();
    }
    wg_wait<0>();
    count = iters * kBatch;
  }
  __syncthreads();
  if (threadIdx.x == 0) timing[blockIdx.x] = {clk0_s, clock64(), ns0_s, global_timer_ns(), sm_id(), 0};
  const float want = float(kInstrK[T]) * count;
#pragma unroll
  for (int i = 0; i < N / 2; ++i)
    if (d[i] != want) atomicAdd(errors, 1);
#else
  if (threadIdx.x == 0 && blockIdx.x == 0) atomicAdd(errors, 1 << 20);  // not built for this device
#endif
}

template <int N, int T>
void run_shape(const Device& dev, int repeats, BenchResult& res) {
  const unsigned one = kOnes[T];
  const int n_sm = dev.prop.multiProcessorCount;
  const int static_smem = 2 * kOperandBytes + 64;
  const int dyn_smem = dev.smem_optin - static_smem - 1024;  // one block per SM (above half an SM)
  if (2 * (dyn_smem + static_smem) <= dev.smem_per_sm) throw std::runtime_error("cannot force one block per SM");
  CALIB_CHECK(cudaFuncSetAttribute(wgmma_kernel<N, T, false>, cudaFuncAttributeMaxDynamicSharedMemorySize, dyn_smem));
  const int warpgroups = 2, lat_iters = 1024, tput_iters = 512;
  DeviceBuffer<int> errors(1);
  DeviceBuffer<BlockTiming> timing(n_sm);
  auto check = [&]() {
    CALIB_CHECK_LAUNCH();
    int e = errors.to_host()[0];
    if (e >= (1 << 20)) throw std::runtime_error("wgmma kernel was not compiled for this device (needs sm_90a)");
    if (e != 0) throw std::runtime_error("wgmma accumulators differ from K*count");
  };
  const std::string tag = "@n" + std::to_string(N);
  for (int r = 0; r <= repeats; ++r) {  // r == 0: warm-up
    errors.zero();
    wgmma_kernel<N, T, true><<<1, 128>>>(one, lat_iters, errors.get(), timing.get());
    check();
    auto lat = timing.to_host();
    errors.zero();
    wgmma_kernel<N, T, false><<<n_sm, 128 * warpgroups, dyn_smem>>>(one, tput_iters, errors.get(), timing.get());
    check();
    auto tp = timing.to_host();
    std::set<unsigned> sms;
    for (auto& b : tp) sms.insert(b.smid);
    if ((int)sms.size() != n_sm) throw std::runtime_error("wgmma throughput blocks did not occupy distinct SMs");
    if (r == 0) continue;
    res.samples["latency_cycles" + tag].push_back(double(lat[0].clk1 - lat[0].clk0) / lat_iters);
    const double flops = 2.0 * 64 * N * kInstrK[T] * double(tput_iters) * kBatch * warpgroups;
    res.samples["flops_per_cycle_per_sm" + tag].push_back(flops / block_cycles_from(tp));
    res.samples["clock_mhz" + tag].push_back(clock_mhz_from(tp));
  }
  res.info["warpgroups_per_sm"] = warpgroups;
  res.info["batch_per_commit"] = kBatch;
}

}  // namespace

bool wgmma_compiled() { return true; }

BenchResult wgmma(const std::string& dtype, int n, int repeats) {
  Device dev = require_device();
  require_positive("repeats", repeats);
  if (!(dev.prop.major == 9 && dev.prop.minor == 0))
    throw std::runtime_error("wgmma needs a compute capability 9.0 device (this one is " +
                             std::to_string(dev.prop.major) + "." + std::to_string(dev.prop.minor) + ")");
  int t;
  if (dtype == "float16" || dtype == "fp16") t = kF16;
  else if (dtype == "bfloat16" || dtype == "bf16") t = kBF16;
  else if (dtype == "tfloat32" || dtype == "tf32") t = kTF32;
  else throw std::invalid_argument("wgmma dtype must be float16, bfloat16 or tfloat32, got '" + dtype + "'");
  if (n != 64 && n != 128 && n != 256) throw std::invalid_argument("wgmma N must be 64, 128 or 256");
  BenchResult res;
  auto by_n = [&](auto type) {
    constexpr int T = decltype(type)::value;
    if (n == 64) run_shape<64, T>(dev, repeats, res);
    else if (n == 128) run_shape<128, T>(dev, repeats, res);
    else run_shape<256, T>(dev, repeats, res);
  };
  if (t == kF16) by_n(std::integral_constant<int, kF16>{});
  else if (t == kBF16) by_n(std::integral_constant<int, kBF16>{});
  else by_n(std::integral_constant<int, kTF32>{});
  res.notes["method"] =
      "latency: one warpgroup, fence + wgmma + commit + wait(0) per instruction, clock64/iters; throughput: two "
      "warpgroups per SM, one block per SM on every SM, groups of 4 chained wgmma per commit, wait(1); A=B=1 from "
      "shared memory, every accumulator checked equal to K*count (K = 16, tf32 8)";
  return res;
}

}  // namespace origami::calib
