// Memory-side microbenchmarks: L2 and DRAM read bandwidth, DRAM bandwidth against the number of
// active SMs, and pointer-chasing load latency (seed 000 section 4.2, seed 001, seed 004).
#include <cuda_runtime.h>

#include <memory>
#include <numeric>
#include <random>
#include <set>

#include "common.cuh"

namespace origami::calib {
namespace {

// 1024 threads x 8 independent 16-byte loads = 128 KiB in flight per SM: by Little's law
// (seed 004) far more than DRAM (~1 us x per-SM share of bandwidth) or L2 needs, so the
// measured figure is the memory system's, not this kernel's.
constexpr int kBwThreads = 1024;
constexpr int kBwUnroll = 8;

__global__ void fill_index_kernel(unsigned* a, size_t n_words) {
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n_words; i += (size_t)gridDim.x * blockDim.x)
    a[i] = (unsigned)i;
}

// Reads a[0..n_vec) `passes` times with ld.global.cg (L2, not L1: repeated passes must not be
// served by the L1), summing every 32-bit word into a 64-bit checksum. The dynamic shared
// memory is never touched: its size only limits how many blocks fit on one SM.
__global__ void __launch_bounds__(kBwThreads, 1)
    read_bw_kernel(const uint4* __restrict__ a, size_t n_vec, int passes, unsigned long long* sum,
                   BlockTiming* timing) {
  __shared__ long long clk0_s;
  __shared__ unsigned long long ns0_s;
  if (threadIdx.x == 0) {
    clk0_s = clock64();
    ns0_s = global_timer_ns();
  }
  unsigned long long acc = 0;
  const size_t stride = (size_t)gridDim.x * blockDim.x;
  const size_t tid = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  for (int p = 0; p < passes; ++p) {
    size_t i = tid;
    for (; i + (kBwUnroll - 1) * stride < n_vec; i += kBwUnroll * stride) {
      uint4 v[kBwUnroll];
#pragma unroll
      for (int u = 0; u < kBwUnroll; ++u) v[u] = __ldcg(a + i + u * stride);
#pragma unroll
      for (int u = 0; u < kBwUnroll; ++u) acc += (unsigned long long)v[u].x + v[u].y + v[u].z + v[u].w;
    }
    for (; i < n_vec; i += stride) {
      uint4 v = __ldcg(a + i);
      acc += (unsigned long long)v.x + v.y + v.z + v.w;
    }
  }
#pragma unroll
  for (int o = 16; o; o >>= 1) acc += __shfl_down_sync(0xffffffffu, acc, o);
  if ((threadIdx.x & 31) == 0) atomicAdd(sum, acc);
  __syncthreads();
  if (threadIdx.x == 0) timing[blockIdx.x] = {clk0_s, clock64(), ns0_s, global_timer_ns(), sm_id(), 0};
}

// A buffer of `bytes` bytes (rounded down to 16) holding a[i] = i, ready for read_bw_kernel.
struct IndexBuffer {
  DeviceBuffer<uint4> buf;
  size_t n_vec;
  explicit IndexBuffer(long long bytes) : buf(size_t(bytes) / 16), n_vec(size_t(bytes) / 16) {
    if (n_vec * 4 >= (1ull << 32)) throw std::invalid_argument("bandwidth working set must be below 16 GiB");
    fill_index_kernel<<<1024, 256>>>(reinterpret_cast<unsigned*>(buf.get()), n_vec * 4);
    CALIB_CHECK_LAUNCH();
  }
  // sum over passes of sum_{i < n_words} i, modulo 2^64 like the device's atomics
  unsigned long long expected_sum(int passes) const {
    unsigned long long n = n_vec * 4;
    unsigned long long once = (n % 2 == 0) ? (n / 2) * (n - 1) : n * ((n - 1) / 2);
    return once * (unsigned long long)passes;
  }
};

struct BwRun {
  double ms = 0, clock_mhz = 0;
  std::set<unsigned> smids;
};

BwRun run_bw(const IndexBuffer& b, int passes, int blocks, int dyn_smem) {
  DeviceBuffer<unsigned long long> sum(1);
  DeviceBuffer<BlockTiming> timing(blocks);
  sum.zero();
  BwRun r;
  r.ms = time_ms([&] {
    read_bw_kernel<<<blocks, kBwThreads, dyn_smem>>>(b.buf.get(), b.n_vec, passes, sum.get(), timing.get());
  });
  CALIB_CHECK_LAUNCH();
  unsigned long long got = sum.to_host()[0], want = b.expected_sum(passes);
  if (got != want)
    throw std::runtime_error("bandwidth kernel checksum mismatch: got " + std::to_string(got) + ", expected " +
                             std::to_string(want) + " (wrong or missing reads)");
  auto t = timing.to_host();
  r.clock_mhz = clock_mhz_from(t);
  for (const auto& x : t) r.smids.insert(x.smid);
  return r;
}

// Reads a separate buffer of 2x the L2 size so nothing of interest stays in the L2.
void flush_l2(const IndexBuffer& flush, int blocks) { run_bw(flush, 1, blocks, 0); }

__global__ void scatter_kernel(char* base, const unsigned long long* offsets, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    *reinterpret_cast<unsigned long long*>(base + offsets[i]) =
        reinterpret_cast<unsigned long long>(base + offsets[(i + 1) % n]);
}

// One thread follows the chain: every load's address is the previous load's value, so the
// loads cannot overlap and cycles/hops is the load-to-use latency (plus the loop's few
// instructions, unrolled 8x to keep them small). Volatile asm keeps the clock reads in place.
__global__ void chase_kernel(const unsigned long long* start, int hops, unsigned long long* end,
                             long long* cycles) {
  const unsigned long long* p = start;
  long long c0 = clock64();
#pragma unroll 8
  for (int h = 0; h < hops; ++h) {
    unsigned long long next;
    asm volatile("ld.global.cg.u64 %0, [%1];" : "=l"(next) : "l"(p) : "memory");
    p = reinterpret_cast<const unsigned long long*>(next);
  }
  long long c1 = clock64();
  *end = reinterpret_cast<unsigned long long>(p);
  *cycles = c1 - c0;
}

}  // namespace

BenchResult read_bandwidth(long long bytes, int passes, int repeats) {
  Device dev = require_device();
  require_positive("bytes", bytes);
  require_positive("passes", passes);
  require_positive("repeats", repeats);
  IndexBuffer b(bytes);
  int per_sm = 0;
  CALIB_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, read_bw_kernel, kBwThreads, 0));
  int blocks = dev.prop.multiProcessorCount * std::max(per_sm, 1);
  BenchResult res;
  run_bw(b, passes, blocks, 0);  // warm-up: first-touch, clocks up, and (small sets) L2 resident
  for (int r = 0; r < repeats; ++r) {
    BwRun x = run_bw(b, passes, blocks, 0);
    double moved = double(b.n_vec) * 16.0 * passes;
    res.samples["bytes_per_s"].push_back(moved / (x.ms * 1e-3));
    res.samples["clock_mhz"].push_back(x.clock_mhz);
    res.samples["time_s"].push_back(x.ms * 1e-3);
  }
  res.info["working_set_bytes"] = double(b.n_vec) * 16.0;
  res.info["passes"] = passes;
  res.info["blocks"] = blocks;
  res.info["threads_per_block"] = kBwThreads;
  res.info["loads_in_flight_per_thread"] = kBwUnroll;
  res.notes["method"] =
      "ld.global.cg 16 B loads, grid-stride over the working set, checksum of every word verified; "
      "CUDA events around the launch; clock = clock64 vs %globaltimer per block (median)";
  return res;
}

BenchResult dram_bandwidth_vs_sms(long long bytes, const std::vector<int>& sm_counts, int repeats) {
  Device dev = require_device();
  require_positive("bytes", bytes);
  require_positive("repeats", repeats);
  const int n_sm = dev.prop.multiProcessorCount;
  for (int k : sm_counts)
    if (k < 1 || k > n_sm)
      throw std::invalid_argument("SM count " + std::to_string(k) + " outside 1.." + std::to_string(n_sm));
  // A block that asks for more than half of an SM's shared memory cannot share an SM with
  // another: k blocks occupy exactly k SMs. The %smid record checks it.
  const int dyn_smem = dev.smem_optin - 1024;  // the opt-in maximum less room for the kernel's static shared memory
  if (2 * dyn_smem <= dev.smem_per_sm)
    throw std::runtime_error("cannot force one block per SM: opt-in shared memory per block is not above half an SM's");
  CALIB_CHECK(cudaFuncSetAttribute(read_bw_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, dyn_smem));
  IndexBuffer b(bytes);
  BenchResult res;
  run_bw(b, 1, n_sm, dyn_smem);  // warm-up
  int distinct_ok = 1;
  for (int r = 0; r < repeats; ++r) {
    for (int k : sm_counts) {
      BwRun x = run_bw(b, 1, k, dyn_smem);
      if ((int)x.smids.size() != k) distinct_ok = 0;
      res.samples["bytes_per_s@" + std::to_string(k)].push_back(double(b.n_vec) * 16.0 / (x.ms * 1e-3));
      res.samples["clock_mhz@" + std::to_string(k)].push_back(x.clock_mhz);
    }
  }
  if (!distinct_ok)
    throw std::runtime_error("dram_bandwidth_vs_sms: some launch of k blocks did not occupy k distinct SMs");
  res.info["working_set_bytes"] = double(b.n_vec) * 16.0;
  res.info["threads_per_block"] = kBwThreads;
  res.info["dynamic_smem_per_block"] = dyn_smem;
  res.info["n_sm"] = n_sm;
  res.notes["method"] =
      "grid of exactly k blocks of 1024 threads, each requesting the opt-in shared memory maximum (more than half "
      "an SM) so one block per SM; %smid of every block recorded and checked distinct; one pass over the "
      "working set per sample, checksum verified";
  return res;
}

BenchResult pointer_chase(long long stride_bytes, int nodes, int hops, bool flush, int repeats) {
  Device dev = require_device();
  require_positive("stride_bytes", stride_bytes);
  require_positive("nodes", nodes);
  require_positive("hops", hops);
  require_positive("repeats", repeats);
  if (stride_bytes % 128 != 0) throw std::invalid_argument("stride_bytes must be a multiple of 128");
  if (nodes < 2) throw std::invalid_argument("pointer_chase needs at least 2 nodes");
  const size_t span = size_t(stride_bytes) * size_t(nodes);
  DeviceBuffer<char> buf(span);
  std::unique_ptr<IndexBuffer> flush_buf;
  int flush_blocks = dev.prop.multiProcessorCount;
  if (flush) flush_buf = std::make_unique<IndexBuffer>(2LL * dev.prop.l2CacheSize);
  DeviceBuffer<unsigned long long> offsets(nodes), end(1);
  DeviceBuffer<long long> cycles(1);
  BenchResult res;
  std::mt19937_64 rng(0x0c1a5e5eULL);
  for (int r = 0; r < repeats; ++r) {
    // A fresh random cyclic order and a fresh 128-byte line inside each stride every repeat,
    // so no repeat finds lines a previous one left behind.
    const size_t line = (size_t(r) * 128) % size_t(stride_bytes);
    std::vector<unsigned long long> order(nodes);
    std::iota(order.begin(), order.end(), 0ULL);
    std::shuffle(order.begin(), order.end(), rng);
    for (auto& o : order) o = o * size_t(stride_bytes) + line;
    CALIB_CHECK(cudaMemcpy(offsets.get(), order.data(), nodes * sizeof(unsigned long long), cudaMemcpyHostToDevice));
    scatter_kernel<<<256, 256>>>(buf.get(), offsets.get(), nodes);
    CALIB_CHECK_LAUNCH();
    auto* start = reinterpret_cast<const unsigned long long*>(buf.get() + order[0]);
    if (flush) {
      flush_l2(*flush_buf, flush_blocks);
    } else {
      chase_kernel<<<1, 1>>>(start, nodes, end.get(), cycles.get());  // warm the L2 with the whole chain
      CALIB_CHECK_LAUNCH();
    }
    chase_kernel<<<1, 1>>>(start, hops, end.get(), cycles.get());
    CALIB_CHECK_LAUNCH();
    unsigned long long want = reinterpret_cast<unsigned long long>(buf.get() + order[size_t(hops) % nodes]);
    if (end.to_host()[0] != want) throw std::runtime_error("pointer chase ended at the wrong node");
    res.samples["cycles_per_load"].push_back(double(cycles.to_host()[0]) / hops);
  }
  res.info["working_set_bytes"] = double(span);
  res.info["stride_bytes"] = double(stride_bytes);
  res.info["nodes"] = nodes;
  res.info["hops"] = hops;
  res.info["l2_flushed"] = flush ? 1 : 0;
  res.notes["method"] =
      "one thread, dependent ld.global.cg.u64 through a random cyclic permutation; clock64 around the chain; "
      "end node checked";
  return res;
}

}  // namespace origami::calib
