// TMA streaming bandwidth against the number of active SMs (sm_90a): how fast one CTA per SM, a producer thread
// loading tensor boxes into a ring of shared-memory stages as the wgmma GEMM kernels do
// (cpp/kernels/wgmma/gemm_wgmma.cuh), pulls an operand from DRAM.
//
// Why a benchmark of its own: dram_bandwidth_vs_sms (memory_bench.cu) streams with 1024 threads of ld.global.cg per
// SM. The wgmma kernels' loads are TMA boxes with at most (stages - 1) stages in flight per SM, and on the stored
// brute-force data their unsplit one-CTA-per-SM launches at decode reach a DRAM rate that follows another curve:
// above the load kernel's at few SMs, below it with most SMs busy (H200 at 72-132 SMs: medians 0.67-0.83 of it;
// benchmarks/results/tma_streaming.md).
//
// The kernel: 1 producer warp (one thread issues cp.async.bulk.tensor.2d per box and arms the stage's full barrier with
// the stage's bytes) and 4 consumer warps (wait for the stage, read the first 16 bytes of every 128-byte box row,
// release the stage). A work unit is one tile's walk through an operand:
//   "k_major": a band of stage_bytes / 128 rows of a row-major matrix of 128-byte-wide boxes, walked along the rows'
//              contiguous dimension one 64-element (128-byte) column step per stage: a K-major operand (A of x @ w,
//              B of x @ w.t()) as a tile's K loop reads it;
//   "n_major": a strip of stage_bytes / 8192 boxes of 64 rows x 128 bytes side by side, walked down the rows 64 at a
//              time: an N-major operand (B of x @ w) as a tile's K loop reads it.
// Units go to CTAs round-robin (unit = blockIdx.x + i * gridDim.x, the persistent kernels' order); each launch reads
// units_per_cta x gridDim.x units so every CTA does the same work.
#include <cudaTypedefs.h>  // CUtensorMap, PFN_cuTensorMapEncodeTiled

#include <cstdint>
#include <set>

#include "common.cuh"
#include "../kernels/wgmma/mbarrier.cuh"

namespace origami::calib {
namespace {

constexpr int kConsumerWarps = 4;
constexpr int kThreads = 32 * (1 + kConsumerWarps);
constexpr int kBoxInner = 64;        // uint16 elements: 128-byte box rows
constexpr int kMaxStages = 32;

// The stage ring's mbarrier primitives are the wgmma kernels' own.
using wgmma::mbar_arrive;
using wgmma::mbar_arrive_expect_tx;
using wgmma::mbar_init;
using wgmma::mbar_wait;
using wgmma::smem_addr;

__device__ __forceinline__ void box_load(std::uint32_t dst, const CUtensorMap* map, std::uint32_t bar, int inner,
                                         int outer) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];" ::
          "r"(dst),
      "l"(reinterpret_cast<std::uint64_t>(map)), "r"(inner), "r"(outer), "r"(bar)
      : "memory");
}

struct StreamShape {
  int n_major;          // 0: k_major walk, 1: n_major walk
  int stages;           // ring depth
  int boxes;            // boxes per stage
  int box_rows;         // rows per box
  int steps;            // stages per unit
  int strips;           // n_major: strips across the columns (units: strip = u % strips, row chunk = u / strips)
};

__global__ void __launch_bounds__(kThreads, 1)
    tma_stream_kernel(const __grid_constant__ CUtensorMap map, StreamShape s, int units,
                      unsigned long long* sum, BlockTiming* timing) {
  extern __shared__ __align__(1024) std::uint8_t smem[];
  __shared__ __align__(8) std::uint64_t full[kMaxStages], empty[kMaxStages];
  __shared__ long long clk0_s;
  __shared__ unsigned long long ns0_s;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int box_bytes = s.box_rows * 128, stage_bytes = s.boxes * box_bytes;
  // the ring starts on a 1024-byte boundary (TMA destinations need 128)
  const std::uint32_t ring = (smem_addr(smem) + 1023u) & ~1023u;
  if (threadIdx.x == 0) {
    for (int i = 0; i < s.stages; ++i) {
      mbar_init(smem_addr(&full[i]), 1);
      mbar_init(smem_addr(&empty[i]), kConsumerWarps);
    }
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    asm volatile("prefetch.tensormap [%0];" ::"l"(&map) : "memory");
    clk0_s = clock64();
    ns0_s = global_timer_ns();
  }
  __syncthreads();
  unsigned long long acc = 0;
  int stage = 0;
  std::uint32_t phase = 0;
  for (int u = blockIdx.x; u < units; u += gridDim.x) {
    for (int j = 0; j < s.steps; ++j) {
      if (warp == 0) {
        if (lane == 0) {
          mbar_wait(smem_addr(&empty[stage]), phase ^ 1u);
          const std::uint32_t fb = smem_addr(&full[stage]);
          mbar_arrive_expect_tx(fb, static_cast<std::uint32_t>(stage_bytes));
          for (int b = 0; b < s.boxes; ++b) {
            int inner, outer;
            if (s.n_major) {  // boxes side by side along the columns, the strip walked down the rows
              inner = ((u % s.strips) * s.boxes + b) * kBoxInner;
              outer = ((u / s.strips) * s.steps + j) * s.box_rows;
            } else {  // boxes stacked along the rows, the band walked along the columns
              inner = j * kBoxInner;
              outer = (u * s.boxes + b) * s.box_rows;
            }
            box_load(ring + stage * stage_bytes + b * box_bytes, &map, fb, inner, outer);
          }
        }
      } else {
        mbar_wait(smem_addr(&full[stage]), phase);
        // the first 16 bytes of every 128-byte box row (the check; reading every byte would cost as much shared
        // memory bandwidth as a wgmma and set the pace at few SMs)
        const int rows = s.boxes * s.box_rows;
        for (int r = threadIdx.x - 32; r < rows; r += 32 * kConsumerWarps) {
          uint4 v;
          asm volatile("ld.shared.v4.u32 {%0, %1, %2, %3}, [%4];"
                       : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
                       : "r"(ring + stage * stage_bytes + r * 128));
          acc += (unsigned long long)v.x + v.y + v.z + v.w;
        }
        __syncwarp();
        if (lane == 0) mbar_arrive(smem_addr(&empty[stage]));
      }
      if (++stage == s.stages) {
        stage = 0;
        phase ^= 1u;
      }
    }
  }
#pragma unroll
  for (int o = 16; o; o >>= 1) acc += __shfl_down_sync(0xffffffffu, acc, o);
  if (lane == 0 && warp > 0) atomicAdd(sum, acc);
  __syncthreads();
  if (threadIdx.x == 0) timing[blockIdx.x] = {clk0_s, clock64(), ns0_s, global_timer_ns(), sm_id(), 0};
}

__global__ void fill_words_kernel(unsigned* a, size_t n_words) {
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n_words; i += (size_t)gridDim.x * blockDim.x)
    a[i] = (unsigned)i;
}

PFN_cuTensorMapEncodeTiled_v12000 encoder() {
  void* p = nullptr;
  cudaDriverEntryPointQueryResult q{};
  if (cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &p, 12000, cudaEnableDefault, &q) != cudaSuccess ||
      q != cudaDriverEntryPointSuccess)
    throw std::runtime_error("tma_stream_vs_sms: cuTensorMapEncodeTiled not available from the driver");
  return reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(p);
}

}  // namespace

bool tma_stream_compiled() { return true; }

BenchResult tma_stream_vs_sms(long long bytes, const std::vector<int>& sm_counts, int stage_bytes, int stages,
                              int box_rows, const std::string& walk, int repeats) {
  Device dev = require_device();
  require_positive("bytes", bytes);
  require_positive("repeats", repeats);
  if (dev.prop.major != 9)
    throw std::runtime_error("tma_stream_vs_sms: needs an sm_90 GPU (TMA and the sm_90a build), found compute " +
                             std::to_string(dev.prop.major) + "." + std::to_string(dev.prop.minor));
  if (walk != "k_major" && walk != "n_major")
    throw std::invalid_argument("walk must be 'k_major' or 'n_major', got '" + walk + "'");
  const bool n_major = walk == "n_major";
  if (n_major) box_rows = 64;
  if (box_rows < 8 || box_rows > 256 || box_rows % 8 != 0)
    throw std::invalid_argument("box_rows must be a multiple of 8 in 8..256, got " + std::to_string(box_rows));
  const int box_bytes = box_rows * 128;
  if (stage_bytes < box_bytes || stage_bytes % box_bytes != 0)
    throw std::invalid_argument("stage_bytes must be a positive multiple of " + std::to_string(box_bytes) +
                                " (box_rows x 128), got " + std::to_string(stage_bytes));
  if (stages < 2 || stages > kMaxStages)
    throw std::invalid_argument("stages must be in 2.." + std::to_string(kMaxStages) + ", got " + std::to_string(stages));
  const int n_sm = dev.prop.multiProcessorCount;
  for (int k : sm_counts)
    if (k < 1 || k > n_sm)
      throw std::invalid_argument("SM count " + std::to_string(k) + " outside 1.." + std::to_string(n_sm));
  // More than half an SM's shared memory per block: k blocks occupy k distinct SMs (checked by %smid).
  const int dyn_smem = dev.smem_optin - 1024;
  if (2 * dyn_smem <= dev.smem_per_sm)
    throw std::runtime_error("cannot force one block per SM: opt-in shared memory per block is not above half an SM's");
  if (stages * stage_bytes + 1024 > dyn_smem)
    throw std::invalid_argument("stages x stage_bytes (" + std::to_string(stages * stage_bytes) +
                                ") does not fit one block's shared memory");

  // The matrix: uint16 elements, word i of the buffer holds i. k_major: rows of 8192 elements (16 KiB, the pitch of
  // a K = 8192 fp16 operand); n_major: rows of 16384 (an N = 16384 operand).
  StreamShape s{};
  s.n_major = n_major;
  s.stages = stages;
  s.box_rows = box_rows;
  s.boxes = stage_bytes / box_bytes;
  const long long cols = n_major ? 16384 : 8192;
  const long long rows_total = bytes / (cols * 2);
  long long units_total;
  if (n_major) {
    s.steps = 64;  // 4096 rows per unit
    s.strips = static_cast<int>(cols / (kBoxInner * s.boxes));
    if (s.strips < 1) throw std::invalid_argument("stage wider than the matrix");
    units_total = (rows_total / (64LL * s.steps)) * s.strips;
  } else {
    s.steps = static_cast<int>(cols / kBoxInner);  // the whole row: 128 column steps
    s.strips = 1;
    units_total = rows_total / (static_cast<long long>(s.boxes) * box_rows);
  }
  if (units_total < n_sm)
    throw std::invalid_argument("working set too small: " + std::to_string(units_total) + " work units for " +
                                std::to_string(n_sm) + " SMs");
  DeviceBuffer<std::uint16_t> buf(size_t(rows_total * cols));
  const size_t n_words = size_t(rows_total * cols / 2);
  if (n_words >= (1ull << 32)) throw std::invalid_argument("tma_stream_vs_sms working set must be below 8 GiB");
  fill_words_kernel<<<1024, 256>>>(reinterpret_cast<unsigned*>(buf.get()), n_words);
  CALIB_CHECK_LAUNCH();

  CUtensorMap map;
  const cuuint64_t dims[2] = {static_cast<cuuint64_t>(cols), static_cast<cuuint64_t>(rows_total)};
  const cuuint64_t strides[1] = {static_cast<cuuint64_t>(cols * 2)};
  const cuuint32_t box[2] = {kBoxInner, static_cast<cuuint32_t>(box_rows)};
  const cuuint32_t elem_strides[2] = {1, 1};
  // As the GEMM kernels' operands with rows on 128-byte lines: 256-byte L2 promotion, no swizzle (the swizzle only
  // places the bytes in shared memory).
  if (encoder()(&map, CU_TENSOR_MAP_DATA_TYPE_UINT16, 2, buf.get(), dims, strides, box, elem_strides,
                CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) != CUDA_SUCCESS)
    throw std::runtime_error("tma_stream_vs_sms: cuTensorMapEncodeTiled failed");
  CALIB_CHECK(cudaFuncSetAttribute(tma_stream_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, dyn_smem));

  // The expected checksum of the first `units` units: the 4 words of the first 16 bytes of every box row read.
  auto expected = [&](long long units) {
    unsigned long long e = 0;
    const long long words_per_row = cols / 2;
    for (long long u = 0; u < units; ++u)
      for (int j = 0; j < s.steps; ++j)
        for (int b = 0; b < s.boxes; ++b) {
          long long c0, r0;
          if (n_major) {
            c0 = ((u % s.strips) * s.boxes + b) * kBoxInner;
            r0 = ((u / s.strips) * s.steps + j) * box_rows;
          } else {
            c0 = static_cast<long long>(j) * kBoxInner;
            r0 = (u * s.boxes + b) * box_rows;
          }
          for (int r = 0; r < box_rows; ++r) {
            const unsigned long long w = static_cast<unsigned long long>((r0 + r) * words_per_row + c0 / 2);
            e += 4 * w + 6;
          }
        }
    return e;
  };

  DeviceBuffer<unsigned long long> sum(1);
  BenchResult res;
  auto run = [&](int k, bool record) {
    const long long units = (units_total / k) * k;  // every CTA the same number of units
    DeviceBuffer<BlockTiming> timing(k);
    sum.zero();
    const float ms = time_ms([&] {
      tma_stream_kernel<<<k, kThreads, dyn_smem>>>(map, s, static_cast<int>(units), sum.get(), timing.get());
    });
    CALIB_CHECK_LAUNCH();
    const unsigned long long got = sum.to_host()[0], want = expected(units);
    if (got != want)
      throw std::runtime_error("tma_stream_vs_sms checksum mismatch at " + std::to_string(k) + " SMs: got " +
                               std::to_string(got) + ", expected " + std::to_string(want));
    auto t = timing.to_host();
    std::set<unsigned> smids;
    for (const auto& x : t) smids.insert(x.smid);
    if (static_cast<int>(smids.size()) != k)
      throw std::runtime_error("tma_stream_vs_sms: a launch of " + std::to_string(k) +
                               " blocks did not occupy as many distinct SMs");
    if (record) {
      const double moved = double(units) * s.steps * stage_bytes;
      res.samples["bytes_per_s@" + std::to_string(k)].push_back(moved / (ms * 1e-3));
      res.samples["clock_mhz@" + std::to_string(k)].push_back(clock_mhz_from(t));
    }
  };
  run(n_sm, false);  // warm-up
  for (int r = 0; r < repeats; ++r)
    for (int k : sm_counts) run(k, true);
  res.info["working_set_bytes"] = double(rows_total * cols * 2);
  res.info["stage_bytes"] = stage_bytes;
  res.info["stages"] = stages;
  res.info["box_rows"] = box_rows;
  res.info["boxes_per_stage"] = s.boxes;
  res.info["row_pitch_bytes"] = double(cols * 2);
  res.info["stages_per_unit"] = s.steps;
  res.info["n_sm"] = n_sm;
  res.notes["walk"] = walk;
  res.notes["method"] =
      "one CTA per SM (opt-in shared memory, %smid checked distinct): a producer thread loads 2-D TMA boxes of "
      "128-byte rows into a ring of `stages` stages (full barrier armed with the stage's bytes), 4 consumer warps "
      "wait, read the first 16 bytes of every box row into a checksum (verified) and release the stage; units of a "
      "tile's walk through the operand dealt round-robin, the same number per CTA; CUDA events around the launch";
  return res;
}

}  // namespace origami::calib
