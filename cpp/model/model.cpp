// The Origami latency model: seed mode (seed 000 section 3, bit-exact with Appendix A) and the
// "nv" mode for compiled kernels. One function per algorithm of the paper.
#include "text.hpp"
#include "model.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

namespace origami {

ModelHardware::ModelHardware(const HardwareParams& hw)
    : compute_capability(hw.get("compute_capability")),
      dram_bw_c0(hw.get("dram_bw_c0")),
      dram_bw_c1(hw.get("dram_bw_c1")),
      dram_bw_c2(hw.get("dram_bw_c2")),
      dram_bw_coeff(hw.get("dram_bw_coeff")),
      dram_perf_ratio(hw.get("dram_perf_ratio")),
      hbm_latency_penalty(hw.get("hbm_latency_penalty")),
      l2_bytes(hw.get("l2_bytes")),
      l2_latency_cycles(hw.get("l2_latency_cycles")),
      l2_perf_ratio(hw.get("l2_perf_ratio")),
      max_blocks_per_sm(hw.get("max_blocks_per_sm")),
      max_registers_per_thread(hw.get("max_registers_per_thread")),
      max_threads_per_sm(hw.get("max_threads_per_sm")),
      mma_k(hw.get("mma_k")),
      mma_latency(hw.get("mma_latency")),
      mma_m(hw.get("mma_m")),
      mma_n(hw.get("mma_n")),
      mma_sync_flops_per_cycle(hw.get("mma_sync_flops_per_cycle")),
      n_sm(hw.get("n_sm")),
      register_allocation_unit(hw.get("register_allocation_unit")),
      regs_per_sm(hw.get("regs_per_sm")),
      smem_allocation_unit_bytes(hw.get("smem_allocation_unit_bytes")),
      smem_per_block_bytes(hw.get("smem_per_block_bytes")),
      smem_per_sm_bytes(hw.get("smem_per_sm_bytes")),
      smem_reserved_per_block_bytes(hw.get("smem_reserved_per_block_bytes")),
      tensor_cores_per_sm(hw.get("tensor_cores_per_sm")),
      warp_allocation_granularity(hw.get("warp_allocation_granularity")),
      wgmma_flops_per_cycle(hw.get("wgmma_flops_per_cycle")),
      wgmma_tf32_flops_per_cycle(hw.get("wgmma_tf32_flops_per_cycle")),
      mma_sync_tf32_flops_per_cycle(hw.get("mma_sync_tf32_flops_per_cycle")),
      fp32_flops_per_cycle(hw.get("fp32_flops_per_cycle")),
      smem_bytes_per_cycle(hw.get("smem_bytes_per_cycle")) {
  for (int size = 2; size <= kMaxClusterSlices; ++size) {
    const std::string key = "resident_clusters_" + std::to_string(size);
    if (hw.values.count(key)) cluster_slots.clusters[size] = static_cast<std::int64_t>(hw.get(key));
  }
  if (hw.values.count("dsmem_bytes_per_cycle")) dsmem_bytes_per_cycle = hw.get("dsmem_bytes_per_cycle");
  if (hw.values.count("dsmem_latency_cycles")) dsmem_latency_cycles = hw.get("dsmem_latency_cycles");
  if (hw.values.count("dsmem_latency_per_slice_cycles"))
    dsmem_latency_per_slice_cycles = hw.get("dsmem_latency_per_slice_cycles");
}

const char* mode_name(ModelMode m) { return m == ModelMode::Seed ? "seed" : "nv"; }

namespace {

inline std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }
inline double ceil_to(double v, double unit) { return std::ceil(v / unit) * unit; }
// Average rows (or columns) of one tile that lie inside a dimension of `extent` split into
// `grid` tiles: extent / grid (<= the block size). M = 1 with BLOCK_M = 128 moves 1 row, not 128.
inline double real_rows_per_tile(std::int64_t extent, std::int64_t grid) {
  return double(extent) / double(std::max<std::int64_t>(grid, 1));
}

// The waves of a phase of `units` work units (tiles or split-K slices) with `blocks_per_sm` CTAs resident per SM
// (occupancy_and_waves; split_launch_floor bounds a phase by them).
struct PhaseWaves {
  int active_sms = 0;
  std::int64_t concurrent_tiles = 0, num_waves = 0;
  // nv: the blocks resident on one busy SM (at least 1): the tiles in flight over the SMs they occupy
  double resident_blocks = 1;
};
PhaseWaves phase_waves(std::int64_t units, int n_sm, int blocks_per_sm) {
  PhaseWaves w;
  if (units >= 1 && units <= n_sm) {  // one unit per busy SM, one wave (what the divisions below give, without them)
    w.active_sms = static_cast<int>(units);
    w.concurrent_tiles = units;
    w.num_waves = 1;
    return w;  // (resident_blocks 1)
  }
  w.active_sms = static_cast<int>(std::min<std::int64_t>(units, n_sm));
  const std::int64_t slots = std::int64_t(n_sm) * blocks_per_sm;
  w.concurrent_tiles = std::min<std::int64_t>(units, slots);
  w.num_waves = ceil_div(units, slots);
  // ceil(concurrent / active) as integers: the ceiling of the correctly rounded quotient of two integers below 2^53
  // is theirs (one integer division instead of a floating-point one and a software std::ceil).
  w.resident_blocks = std::max<double>(1.0, double(ceil_div(w.concurrent_tiles, std::max(w.active_sms, 1))));
  return w;
}

// The per-K-iteration synchronisation cost of a family (tile_latency).
double k_iter_overhead_cycles(const TileConfig& c, const NvModelConstants& nv) {
  return c.family == Family::Wgmma  ? nv.wgmma_k_iter_overhead_cycles
         : c.family == Family::Simt ? nv.simt_k_iter_overhead_cycles
                                    : nv.mma_sync_k_iter_overhead_cycles;
}

// What a split launch costs beyond its terms, per launch, per slice and in proportion to its tail phase
// (NvModelConstants; split_terms).
double split_launch_cycles(const TileConfig& c, const NvModelConstants& nv, int slices, double tail_cycles) {
  const double per_slice = c.family == Family::Simt ? nv.simt_split_k_slice_cycles : nv.split_k_slice_cycles;
  // (the tail share was fitted on the tensor-core families' launches only: the simt family has none)
  const double tail_share = c.family == Family::Simt ? 0.0 : nv.split_k_tail_overhead_fraction;
  return nv.split_k_reduce_fixed_cycles + per_slice * double(slices) + tail_share * tail_cycles;
}

// Rows (or columns) of one operand that a wgmma stage loads by TMA, per tile. An extent shorter than the tile side
// (one tile: decode, small batches) is loaded without the rows past its end: a K-major operand by a box of its own
// rows, an MN-major one by the 64-row slabs that hold them (the wgmma launcher, cpp/kernels/wgmma/gemm_wgmma.cuh).
// Otherwise every tile loads whole boxes, and those at the edge have the overhang zero-filled: loaded rows minus
// real_rows_per_tile are the zero-filled ones.
inline double tma_loaded_rows(std::int64_t extent, std::int64_t grid, int block, bool k_contiguous) {
  if (grid <= 1 && extent <= block) return k_contiguous ? double(extent) : double(ceil_div(extent, 64) * 64);
  return double(block);
}

// Whether the wgmma kernels move the box of an operand's edge tile back to end at the matrix edge (no zero fill):
// K-major operands whose extent is longer than the tile and not a multiple of it (KernelParams::shift_edges).
inline bool edge_box_shifted(std::int64_t extent, std::int64_t grid, int block, bool k_contiguous) {
  return k_contiguous && grid > 1 && extent > block && extent % block != 0;
}

// DRAM bandwidth fraction reached with `active` SMs: the seed's linear model or the source's
// quadratic (SourceFlags::quadratic_dram_bandwidth).
double dram_bw_fraction(const ModelHardware& hw, const ModelOptions& o, double active) {
  if (o.source.quadratic_dram_bandwidth) {
    const double c0 = hw.dram_bw_c0, c1 = hw.dram_bw_c1, c2 = hw.dram_bw_c2;
    // A concave fit (c0 < 0) is only meaningful up to its vertex (saturation): hold it there.
    if (c0 < 0) active = std::min(active, -c1 / (2.0 * c0));
    const double f = c0 * active * active + c1 * active + c2;
    return std::min(1.0, std::max(f, 1e-6));
  }
  return std::min(1.0, hw.dram_bw_coeff * active);
}

// Tensor throughput per SM for a tensor-core kernel family (flop per SM-cycle), with the fraction reached
// in the K-loop (NvModelConstants). The simt family's roof is seed 002's (simt_roof).
double family_flops_per_cycle(const ModelHardware& hw, const NvModelConstants& nv, Family f, DType t) {
  if (f == Family::Wgmma && t == DType::TFloat32) return hw.wgmma_tf32_flops_per_cycle * nv.wgmma_issue_efficiency;
  if (f == Family::Wgmma) return hw.wgmma_flops_per_cycle * nv.wgmma_issue_efficiency;
  if (t == DType::TFloat32) return hw.mma_sync_tf32_flops_per_cycle * nv.mma_sync_issue_efficiency;
  return hw.mma_sync_flops_per_cycle * nv.mma_sync_issue_efficiency;
}

// The thread tile of a simt kernel: BM*BN / threads outputs per thread, as square as possible with power-of-two
// sides, TM >= TN (cpp/kernels/families/simt.py states the same rule for the kernels it generates).
void simt_thread_tile(const TileConfig& c, double& tm, double& tn) {
  const double outputs = std::max(1.0, double(c.block_m) * c.block_n / (32.0 * std::max(c.warps, 1)));
  const int log2_outputs = static_cast<int>(std::lround(std::log2(outputs)));
  tm = std::ldexp(1.0, (log2_outputs + 1) / 2);
  tn = std::ldexp(1.0, log2_outputs / 2);
}

// Seed 002's CUDA-core roof for a simt kernel, flop per SM-cycle: Phi = u_issue f_fp32 theta C_fp32 (1 + m_FMA).
// fp32_flops_per_cycle is the calibrated pure-FFMA stream (u_issue C_fp32 (1 + 1), calibrate.py's "FP32
// theta=32/32 m_FMA=8/8" section). Every k-step of the main loop issues TM*TN FFMA and the shared-memory loads
// of one A column and one B row of the thread tile, ceil(TM/4) + ceil(TN/4) LDS.128: an SM sub-partition issues
// one instruction per cycle and its 32 FP32 lanes take one FFMA warp-instruction per cycle, so every load takes
// an FFMA's slot, and so does every other issue slot of the k-step that is not an FFMA (measured on the fp32 data,
// NvModelConstants::simt_k_step_extra_issue): f_fp32 = TM*TN / (TM*TN + loads + extra). theta = 1 here: edge tiles compute their whole tile on
// zero-filled operands (the launched work), so the lanes are all busy; the useful fraction is the work
// utilisation (fp32_lane_fraction, printed by explain).
// (m_FMA = 1: LatencyBreakdown::fp32_fma_fraction, set by compute_latency.)
double simt_roof(const TileConfig& c, const ModelHardware& hw, const NvModelConstants& nv, KernelTerms& k) {
  simt_thread_tile(c, k.fp32_thread_tile_m, k.fp32_thread_tile_n);
  const double ffma = k.fp32_thread_tile_m * k.fp32_thread_tile_n;
  const double loads = std::ceil(k.fp32_thread_tile_m / 4.0) + std::ceil(k.fp32_thread_tile_n / 4.0);
  k.fp32_issue_share = ffma / (ffma + loads + nv.simt_k_step_extra_issue);
  k.fp32_sm_flops_per_cycle = hw.fp32_flops_per_cycle * k.fp32_issue_share;
  return k.fp32_sm_flops_per_cycle;
}

}  // namespace

// ---- config space ------------------------------------------------------------------------------
#define ORIGAMI_BLOCK_M(...) static const std::vector<int> kBlockM{__VA_ARGS__};
#define ORIGAMI_BLOCK_N(...) static const std::vector<int> kBlockN{__VA_ARGS__};
#define ORIGAMI_BLOCK_K(...) static const std::vector<int> kBlockK{__VA_ARGS__};
#define ORIGAMI_GROUP_SIZE_M(...) static const std::vector<int> kGroupSizeM{__VA_ARGS__};
#define ORIGAMI_SPLIT_K(...) static const std::vector<int> kSplitK{__VA_ARGS__};
#include "config_space.def"
#undef ORIGAMI_BLOCK_M
#undef ORIGAMI_BLOCK_N
#undef ORIGAMI_BLOCK_K
#undef ORIGAMI_GROUP_SIZE_M
#undef ORIGAMI_SPLIT_K

std::vector<int> space_block_m() { return kBlockM; }
std::vector<int> space_block_n() { return kBlockN; }
std::vector<int> space_block_k() { return kBlockK; }
std::vector<int> space_group_size_m() { return kGroupSizeM; }
std::vector<int> space_split_k() { return kSplitK; }

// ---- occupancy (CUDA occupancy calculator rules) -------------------------------------------------
// Follows cuda_occupancy.h (cudaOccMaxBlocksPerSMRegsLimit / ...SmemLimit / ...WarpsLimit), the
// header behind cudaOccupancyMaxActiveBlocksPerMultiprocessor and the occupancy calculator:
//  - registers are allocated per warp, rounded up to register_allocation_unit (256) registers, in
//    each of the 4 SM sub-partitions (regs_per_sm / 4 each); a block's warps are also rounded up
//    to a multiple of 4 for the per-block hardware check;
//  - shared memory per block = the kernel's bytes + the 1 KB the system reserves per block
//    (cc 8.x/9.0), rounded up to the 128 B allocation unit;
//  - warps: max_threads_per_sm / 32 per SM; and the max_blocks_per_sm limit.
BlocksPerSm blocks_per_sm(const KernelResources& kr, const ModelHardware& hw) {
  BlocksPerSm r;
  const int threads = std::max(kr.threads, 1);
  const int warps = static_cast<int>(ceil_div(threads, 32));
  const int block_limit = static_cast<int>(hw.max_blocks_per_sm);
  r.by_block_limit = block_limit;
  r.by_threads = static_cast<int>(hw.max_threads_per_sm) / (warps * 32);

  const int regs_per_sm = static_cast<int>(hw.regs_per_sm);
  const int sub_partitions = static_cast<int>(hw.warp_allocation_granularity);  // 4: registers live per sub-partition
  const int unit = static_cast<int>(hw.register_allocation_unit);
  if (kr.registers_per_thread <= 0) {
    r.by_registers = block_limit;  // unknown: no register limit applied
  } else {
    const int regs_per_warp = static_cast<int>(ceil_to(kr.registers_per_thread * 32.0, unit));
    const int regs_assumed_per_block = regs_per_warp * static_cast<int>(ceil_to(warps, sub_partitions));
    r.registers_per_block = regs_per_warp * warps;
    if (kr.registers_per_thread > static_cast<int>(hw.max_registers_per_thread) || regs_assumed_per_block > regs_per_sm ||
        r.registers_per_block > regs_per_sm) {
      r.by_registers = 0;
    } else {
      const int warps_per_sub_partition = (regs_per_sm / sub_partitions) / regs_per_warp;
      r.by_registers = warps_per_sub_partition * sub_partitions / warps;
    }
  }

  const int smem_unit = static_cast<int>(hw.smem_allocation_unit_bytes);
  const int reserved = static_cast<int>(hw.smem_reserved_per_block_bytes);
  r.shared_memory_per_block = static_cast<int>(ceil_to(double(std::max(kr.smem_bytes, 0) + reserved), smem_unit));
  if (kr.smem_bytes > static_cast<int>(hw.smem_per_block_bytes)) {
    r.by_shared_memory = 0;
  } else {
    r.by_shared_memory = static_cast<int>(hw.smem_per_sm_bytes) / r.shared_memory_per_block;
  }

  r.blocks = block_limit;
  r.limiter = "blocks";
  auto take = [&](int v, const char* name) {
    if (v < r.blocks) { r.blocks = v; r.limiter = name; }
  };
  take(r.by_threads, "threads");
  take(r.by_shared_memory, "shared memory");
  take(r.by_registers, "registers");
  r.blocks = std::max(r.blocks, 0);
  return r;
}

std::string kernel_exclusion_reason(const KernelResources& kr, const ModelHardware& hw) {
  Text os;
  if (kr.config.family == Family::Wgmma && hw.compute_capability < 90) {
    os << "wgmma needs sm_90a; this GPU is compute capability " << static_cast<int>(hw.compute_capability);
    return os.str();
  }
  if (kr.spill_store_bytes > 0 || kr.spill_load_bytes > 0) {
    os << "spills registers: " << kr.spill_store_bytes << " B spill stores, " << kr.spill_load_bytes
       << " B spill loads (" << (kr.source.empty() ? "ptxas" : kr.source) << ")";
    return os.str();
  }
  if (kr.local_bytes > 0) {
    os << "uses local memory: " << kr.local_bytes << " B stack frame per thread (" << (kr.source.empty() ? "ptxas" : kr.source) << ")";
    return os.str();
  }
  if (kr.threads > 1024 || kr.threads <= 0) {
    os << kr.threads << " threads per block (limit 1024)";
    return os.str();
  }
  if (kr.registers_per_thread > static_cast<int>(hw.max_registers_per_thread)) {
    os << kr.registers_per_thread << " registers per thread > " << static_cast<int>(hw.max_registers_per_thread);
    return os.str();
  }
  if (kr.smem_bytes > static_cast<int>(hw.smem_per_block_bytes)) {
    os << "shared memory " << kr.smem_bytes << " B > " << static_cast<int>(hw.smem_per_block_bytes) << " B per block";
    return os.str();
  }
  const BlocksPerSm b = blocks_per_sm(kr, hw);
  if (b.by_registers == 0) {
    os << "registers: " << kr.registers_per_thread << "/thread x " << kr.threads << " threads = "
       << b.registers_per_block << " allocated > " << static_cast<int>(hw.regs_per_sm) << " per SM";
    return os.str();
  }
  if (b.blocks == 0) {
    os << "cannot keep one block resident (limited by " << b.limiter << ")";
    return os.str();
  }
  return "";
}

// ---- the kernel's own terms (model.hpp: KernelTerms) ---------------------------------------------
KernelTerms kernel_terms(const TileConfig& c, DType dtype, const ModelHardware& hw, const ModelOptions& o,
                         const KernelResources* kr) {
  KernelTerms k;
  k.dtype = dtype;
  if (kr != nullptr) {
    k.has_occupancy = true;
    k.occupancy = blocks_per_sm(*kr, hw);
  }
  const double bytes = dtype_bytes(dtype);
  // [Alg 3] MMA instructions and flops of one K-iteration of the tile; a TF32 atom covers half the K of a 16-bit one
  // (the same 32 bytes: m16n8k8, m64nNk8).
  const int mma_k = static_cast<int>(hw.mma_k) / (dtype == DType::TFloat32 ? 2 : 1);
  k.n_mma = double(ceil_div(c.block_m, static_cast<int>(hw.mma_m))) * double(ceil_div(c.block_n, static_cast<int>(hw.mma_n))) *
            double(ceil_div(c.block_k, mma_k));
  k.flops_per_k_iter = 2.0 * c.block_m * c.block_n * c.block_k;
  // [Alg 8] the tie-break key: flops per byte loaded.
  k.arithmetic_intensity = 2.0 * c.block_m * c.block_n / ((double(c.block_m) + c.block_n) * bytes);
  if (o.mode == ModelMode::Seed) return k;

  const NvModelConstants& nv = o.nv;
  k.roof = c.family == Family::Simt ? simt_roof(c, hw, nv, k) : family_flops_per_cycle(hw, nv, c.family, dtype);
  // mma.sync: the shared-memory bytes of one K-iteration, every warp's fragments (ldmatrix) and the stage cp.async
  // wrote (NvModelConstants::mma_sync_smem_efficiency; compute_latency times them).
  if (c.family == Family::MmaSync && nv.mma_sync_smem_efficiency > 0 && hw.smem_bytes_per_cycle > 0) {
    const auto [wm, wn] = mma_sync_warp_layout(c.block_m, c.block_n, c.warps);
    if (wm > 0) {
      k.warps_m = wm;
      k.warps_n = wn;
      const double fragments = (double(wn) * c.block_m + double(wm) * c.block_n) * c.block_k * bytes;
      const double stage = (double(c.block_m) + c.block_n) * c.block_k * bytes;
      k.smem_bytes = fragments + stage;
    }
  }
  // [Alg 7] Each row of a K-contiguous operand tile is BLOCK_K * bytes long and is fetched in 32-byte sectors (the
  // L2/DRAM access granularity on sm_80+).
  k.row_bytes = ceil_to(c.block_k * bytes, 32.0);
  // GEMM operand traffic reaches more of the L2 than the per-thread-load figure, by family
  // (NvModelConstants::wgmma_l2_bandwidth_factor, simt_l2_bandwidth_factor, mma_sync_l2_bandwidth_factor).
  k.l2_feed_factor = c.family == Family::Wgmma ? nv.wgmma_l2_bandwidth_factor
                     : c.family == Family::Simt ? nv.simt_l2_bandwidth_factor
                                                : nv.mma_sync_l2_bandwidth_factor;
  // mma.sync: past a small per-warp batch, the cp.async of one stage issue at a throttled rate per warp
  // (NvModelConstants::mma_sync_warp_copy_queue_bytes): a floor on the K-iteration, whatever the stages.
  if (c.family != Family::Wgmma && nv.mma_sync_warp_copy_throttled_bytes_per_cycle > 0) {
    const double per_warp_bytes = (double(c.block_m) + c.block_n) * c.block_k * bytes / std::max(c.warps, 1);
    k.copy_throttle_cycles = std::max(0.0, per_warp_bytes - nv.mma_sync_warp_copy_queue_bytes) /
                             nv.mma_sync_warp_copy_throttled_bytes_per_cycle;
  }
  // mma.sync, 16-bit operands (the m16n8k16 k-steps NvModelConstants::mma_sync_lone_warp_k_step_cycles was fitted on):
  // the k-iteration of a warp alone on its sub-partition (memory_latency takes it where the SM's warps are that few).
  if (c.family == Family::MmaSync && bytes == 2.0 && nv.mma_sync_lone_warp_k_step_cycles > 0) {
    k.has_lone_warp_term = true;
    const auto [wm, wn] = mma_sync_warp_layout(c.block_m, c.block_n, c.warps);
    const double hmma_per_k_step = wm > 0 ? double(c.block_m / wm / 16) * double(c.block_n / wn / 8) : 1.0;
    // one m16n8k16 at one sub-partition's share of the SM's mma.sync rate
    const double hmma_cycles = 2.0 * 16 * 8 * 16 / (hw.mma_sync_flops_per_cycle / nv.smsp_per_sm);
    const double k_steps = std::ceil(c.block_k / 16.0);
    const double warp_loads = std::ceil((double(c.block_m) + c.block_n) * c.block_k * bytes / std::max(c.warps, 1) / 512.0);
    k.lone_warp_cycles = (k_steps * std::max(nv.mma_sync_lone_warp_k_step_cycles, hmma_per_k_step * hmma_cycles) +
                          warp_loads * nv.mma_sync_lone_warp_cycles_per_warp_load) *
                         (c.block_k <= 64 ? nv.mma_sync_lone_warp_short_k_factor : 1.0);
  }
  // wgmma: how C leaves the tile (tile_latency; the swapped kernels' neither, whichever side is which).
  k.wgmma_split_n = c.family == Family::Wgmma && !c.swap_ab && wgmma_consumer_columns(c) != c.block_n;
  k.wgmma_tma_stored_epilogue = wgmma_tma_stored_epilogue(c);
  return k;
}

// ---- [Algorithm 3] compute latency per K-iteration ----------------------------------------------
namespace {
// nv: throughput-based, for `resident` blocks on an SM (compute_latency; split_launch_floor reads the cycles too).
struct NvCompute {
  double sm_rate = 0;         // the SM's flop per cycle for these blocks
  double compute_cycles = 0;  // the tensor (simt: FFMA) issue of one K-iteration
  double smem_cycles = 0;     // mma.sync: its shared-memory traffic (0 where kernel_terms gives no warp layout)
};
NvCompute nv_compute(const TileConfig& c, const ModelHardware& hw, const NvModelConstants& nv, const KernelTerms& k,
                     double resident) {
  NvCompute r;
  // The blocks resident on one SM share its tensor cores; a block's warps (all blocks of the SM together) must cover
  // the 4 sub-partitions to reach the SM's peak (mma.sync issues from one warp per sub-partition; a wgmma warpgroup
  // covers all four).
  double coverage = 1.0;
  if (c.family != Family::Wgmma) coverage = std::min(1.0, resident * c.warps / nv.smsp_per_sm);
  r.sm_rate = k.roof * coverage;
  r.compute_cycles = k.flops_per_k_iter * resident / r.sm_rate;  // = flops / (sm_rate / resident), one division
  // mma.sync: the fragments of every warp come through the SM's shared memory (NvModelConstants::
  // mma_sync_smem_efficiency), shared by the resident blocks. kernel_terms gives a warp layout only where the term
  // applies (mma.sync, its efficiency and the SM's rate known).
  if (k.warps_m > 0) r.smem_cycles = resident * k.smem_bytes / (hw.smem_bytes_per_cycle * nv.mma_sync_smem_efficiency);
  return r;
}
}  // namespace

void compute_latency(const Problem& p, const TileConfig& c, const ModelHardware& hw, const ModelOptions& o,
                     const KernelTerms& k, LatencyBreakdown& b) {
  (void)p;
  b.n_mma = k.n_mma;
  b.flops_per_k_iter = k.flops_per_k_iter;
  if (o.mode == ModelMode::Seed) {
    const double lat = hw.mma_latency, tc = hw.tensor_cores_per_sm;
    b.mma_issue_cycles = o.source.integer_mma_latency ? std::floor(lat / tc) : lat / tc;
    b.compute_cycles = b.mma_issue_cycles * b.n_mma;
    return;
  }
  // nv: throughput-based (nv_compute), the shared-memory time where it is longer.
  const NvModelConstants& nv = o.nv;
  const double resident = b.resident_blocks;
  const NvCompute nc = nv_compute(c, hw, nv, k, resident);
  if (c.family == Family::Simt) {
    b.fp32_thread_tile_m = k.fp32_thread_tile_m;
    b.fp32_thread_tile_n = k.fp32_thread_tile_n;
    b.fp32_issue_share = k.fp32_issue_share;
    b.fp32_fma_fraction = 1.0;
    b.fp32_sm_flops_per_cycle = k.fp32_sm_flops_per_cycle;
  }
  b.tensor_flops_per_cycle = nc.sm_rate / resident;
  b.compute_cycles = nc.compute_cycles;
  b.mma_issue_cycles = b.compute_cycles / b.n_mma;
  b.compute_limiter = c.family == Family::Simt ? "FFMA issue" : "tensor issue";
  if (k.warps_m > 0) {
    b.warps_m = k.warps_m;
    b.warps_n = k.warps_n;
    b.smem_bytes = k.smem_bytes;
    b.smem_cycles = nc.smem_cycles;
    if (b.smem_cycles > b.compute_cycles) {
      b.compute_cycles = b.smem_cycles;
      b.compute_limiter = "shared memory";
    }
  }
}

namespace {
// The rule of mma_sync_warp_layout() by search: the skew |log2(tm / tn)| compared exactly as the ratio
// max / min of the warp tile's sides (cross-multiplied integers).
std::pair<int, int> warp_layout_search(int block_m, int block_n, int warps) {
  std::pair<int, int> best{0, 0};
  int best_hi = 0, best_lo = 1, best_tm = 0;
  for (int wm = 1; wm <= warps; ++wm) {
    if (warps % wm) continue;
    const int wn = warps / wm;
    if (block_m % (16 * wm) || block_n % (16 * wn)) continue;
    const int tm = block_m / wm, tn = block_n / wn;
    const int hi = std::max(tm, tn), lo = std::min(tm, tn);
    const std::int64_t lhs = std::int64_t(hi) * best_lo, rhs = std::int64_t(best_hi) * lo;
    if (best.first == 0 || lhs < rhs || (lhs == rhs && tm > best_tm)) {
      best = {wm, wn};
      best_hi = hi;
      best_lo = lo;
      best_tm = tm;
    }
  }
  return best;
}
}  // namespace

std::pair<int, int> mma_sync_warp_layout(int block_m, int block_n, int warps) {
  // Every tile of the config space (sides multiples of 16 up to 256) and warp count (1, 2, 4, 8) from a table
  // built once: the model asks for every mma.sync candidate of every selection (the search cost ~4 us of a
  // ~25 us cold selection, perf 2026-11-25).
  constexpr int kSide = 16;  // sides 16..256 in steps of 16
  static const std::array<std::pair<std::int8_t, std::int8_t>, 4 * kSide * kSide> table = [] {
    std::array<std::pair<std::int8_t, std::int8_t>, 4 * kSide * kSide> t{};
    for (int lw = 0; lw < 4; ++lw)
      for (int i = 0; i < kSide; ++i)
        for (int j = 0; j < kSide; ++j) {
          const auto [wm, wn] = warp_layout_search(16 * (i + 1), 16 * (j + 1), 1 << lw);
          t[(lw * kSide + i) * kSide + j] = {static_cast<std::int8_t>(wm), static_cast<std::int8_t>(wn)};
        }
    return t;
  }();
  const int lw = warps == 1 ? 0 : warps == 2 ? 1 : warps == 4 ? 2 : warps == 8 ? 3 : -1;
  if (lw >= 0 && block_m > 0 && block_n > 0 && block_m % 16 == 0 && block_n % 16 == 0 && block_m <= 16 * kSide &&
      block_n <= 16 * kSide) {
    const auto& e = table[(lw * kSide + block_m / 16 - 1) * kSide + block_n / 16 - 1];
    return {e.first, e.second};
  }
  return warp_layout_search(block_m, block_n, warps);
}

// ---- [Algorithm 4] occupancy and waves ----------------------------------------------------------
void occupancy_and_waves(const Problem& p, const TileConfig& c, const ModelHardware& hw, const ModelOptions& o,
                         const KernelResources* kr, LatencyBreakdown& b) {
  const int n_sm = static_cast<int>(hw.n_sm);
  // predict() presets the grid and the k-tiles (LaunchGrid: computed once per launch, not once per phase).
  if (b.grid_m <= 0 || b.grid_n <= 0 || b.k_tiles <= 0) {
    b.grid_m = ceil_div(p.M, c.block_m);
    b.grid_n = ceil_div(p.N, c.block_n);
    b.k_tiles = ceil_div(p.K, c.block_k);
  }
  // nv: predict() presets the work units of the phase it times (tiles or split-K slices); otherwise every
  // tile of every batch (batch = 1: the seed's grid_m x grid_n).
  if (o.mode == ModelMode::Seed || b.total_tiles <= 0) b.total_tiles = b.grid_m * b.grid_n * std::max<std::int64_t>(p.batch, 1);
  if (o.mode == ModelMode::Seed || kr == nullptr) {
    b.blocks_per_sm = 1;
    b.occupancy_limiter = "seed: one block per SM";
  } else if (b.occupancy_limiter == nullptr || b.occupancy_limiter[0] == '\0') {
    const BlocksPerSm bps = blocks_per_sm(*kr, hw);
    b.blocks_per_sm = std::max(bps.blocks, 1);
    b.occupancy_limiter = bps.limiter;
  }  // else: predict() filled blocks_per_sm and the limiter once for all phases
  const PhaseWaves w = phase_waves(b.total_tiles, n_sm, b.blocks_per_sm);
  b.active_sms = w.active_sms;
  b.concurrent_tiles = w.concurrent_tiles;
  b.num_waves = w.num_waves;
  if (b.total_tiles < std::int64_t(n_sm) * b.blocks_per_sm && o.mode == ModelMode::Nv) b.occupancy_limiter = "grid";
  b.occupancy = o.mode == ModelMode::Seed ? o.seed.occupancy : double(b.blocks_per_sm);
  if (o.mode == ModelMode::Nv) {
    b.rows_per_tile_m = real_rows_per_tile(p.M, b.grid_m);
    b.cols_per_tile_n = real_rows_per_tile(p.N, b.grid_n);
    // The nv terms that an SM's blocks share (tensor or FFMA rate, cp.async issue, the simt copy floor) divide by it.
    b.resident_blocks = w.resident_blocks;
  }
}

// ---- Triton raster footprint (phase 2 and the nv L2 model) --------------------------------------
// Triton's GROUP_SIZE_M order: pid -> group = pid / (G*grid_n); within a group of gsm = min(G,
// rows left) rows, tiles go down the rows first: pid_m = first_row + local % gsm,
// pid_n = local / gsm. O(1) per call: a range covers a partial first group, whole middle groups
// and a partial last group; rows of different groups are disjoint, columns are intervals.
Footprint triton_raster_footprint(std::int64_t grid_m, std::int64_t grid_n, int group_size_m,
                                  std::int64_t first_tile, std::int64_t last_tile) {
  Footprint f;
  const std::int64_t total = grid_m * grid_n;
  last_tile = std::min(last_tile, total);
  if (first_tile >= last_tile || grid_m <= 0 || grid_n <= 0) return f;
  if (first_tile == 0 && last_tile == total) return {grid_m, grid_n};  // every tile (what the groups below sum to)
  const std::int64_t G = std::max(group_size_m, 1);
  const std::int64_t per_group = G * grid_n;
  const std::int64_t g0 = first_tile / per_group, g1 = (last_tile - 1) / per_group;
  std::pair<std::int64_t, std::int64_t> intervals[3];
  int n_iv = 0;
  auto part = [&](std::int64_t g, std::int64_t lo, std::int64_t hi) {  // local [lo, hi)
    const std::int64_t gsm = std::min(G, grid_m - g * G);
    f.unique_m += std::min(gsm, hi - lo);
    intervals[n_iv] = {lo / gsm, (hi - 1) / gsm};
    ++n_iv;
  };
  if (g0 == g1) {
    part(g0, first_tile - g0 * per_group, last_tile - g0 * per_group);
  } else {
    part(g0, first_tile - g0 * per_group, per_group);
    if (g1 - g0 > 1) {
      f.unique_m += (g1 - g0 - 1) * G;  // middle groups are whole (only the grid's last group is short)
      intervals[n_iv] = {0, grid_n - 1};
      ++n_iv;
    }
    part(g1, 0, last_tile - g1 * per_group);
  }
  // union of up to 3 column intervals
  for (int i = 1; i < n_iv; ++i)  // insertion sort of at most 3 intervals
    for (int j = i; j > 0 && intervals[j] < intervals[j - 1]; --j) std::swap(intervals[j], intervals[j - 1]);
  std::int64_t cur_lo = intervals[0].first, cur_hi = intervals[0].second;
  for (int i = 1; i < n_iv; ++i) {
    if (intervals[i].first <= cur_hi + 1) {
      cur_hi = std::max(cur_hi, intervals[i].second);
    } else {
      f.unique_n += cur_hi - cur_lo + 1;
      cur_lo = intervals[i].first;
      cur_hi = intervals[i].second;
    }
  }
  f.unique_n += cur_hi - cur_lo + 1;
  return f;
}

double group_size_m_cost(const Problem& p, const TileConfig& c, std::int64_t concurrent_tiles, int group_size_m,
                         const ModelOptions& o) {
  const std::int64_t grid_m = ceil_div(p.M, c.block_m), grid_n = ceil_div(p.N, c.block_n);
  const std::int64_t total = grid_m * grid_n;
  concurrent_tiles = std::max<std::int64_t>(1, std::min(concurrent_tiles, total));
  auto cost_of = [&](std::int64_t first, std::int64_t last) {
    const Footprint f = triton_raster_footprint(grid_m, grid_n, group_size_m, first, last);
    return double(f.unique_m) * c.block_m + double(f.unique_n) * c.block_n;
  };
  if (!o.source.phase2_all_waves) return cost_of(0, concurrent_tiles);
  double sum = 0;
  for (std::int64_t first = 0; first < total; first += concurrent_tiles)
    sum += cost_of(first, std::min(total, first + concurrent_tiles));
  return sum;
}

// ---- [Algorithm 5] L2 hit rate -----------------------------------------------------------------
void l2_hit_rate(const Problem& p, const TileConfig& c, const ModelHardware& hw, const ModelOptions& o,
                 LatencyBreakdown& b) {
  const double bytes = dtype_bytes(p.dtype);
  const double l2 = hw.l2_bytes;
  const std::int64_t WGM = std::max(c.group_size_m, 1);
  b.group_size_m = static_cast<int>(WGM);
  b.working_set_bytes = double(p.M + p.N) * c.block_k * bytes;
  const double k_iters = o.mode == ModelMode::Nv && b.num_iter > 0 ? double(b.num_iter) : double(b.k_tiles);
  // The operands this phase reads (nv: its units' share of every batch's A and B; seed: one GEMM).
  double compulsory = (double(p.M) * p.K + double(p.K) * p.N) * bytes;
  if (o.mode == ModelMode::Nv) {
    // units x k_iters of this phase over all tiles x all of K: D / T for the whole tiles, ~(T - D) / T for
    // the split tail (its S slices cover K once).
    const double all = double(b.grid_m * b.grid_n) * std::max<std::int64_t>(p.batch, 1) * double(b.k_tiles);
    compulsory *= std::max<std::int64_t>(p.batch, 1) * std::min(1.0, double(b.total_tiles) * k_iters / all);
  }

  if (o.mode == ModelMode::Nv) {
    // Global reuse over the real rows/columns of each tile (see below): with M << BLOCK_M the
    // padded rows are neither requested nor fetched.
    const double real_requested_total = double(b.total_tiles) *
        (b.rows_per_tile_m + b.cols_per_tile_n) * c.block_k * k_iters * bytes;
    b.l2_global_reuse_rate = std::max(0.0, 1.0 - compulsory / real_requested_total);
    // The tiles in flight at once follow the kernel's Triton raster: count the unique A rows and
    // B columns they touch; every other byte they load is an L2 hit. Units of different batches, or of
    // different K slices, read disjoint data: the footprint repeats every l2_reuse_units units.
    const std::int64_t period = std::max<std::int64_t>(1, b.l2_reuse_units > 0 ? b.l2_reuse_units : b.grid_m * b.grid_n);
    // (one set or less, the common case, without the division)
    const std::int64_t full_sets = b.concurrent_tiles < period    ? 0
                                   : b.concurrent_tiles == period ? 1
                                                                  : b.concurrent_tiles / period;
    const std::int64_t rest = b.concurrent_tiles - full_sets * period;
    Footprint f = triton_raster_footprint(b.grid_m, b.grid_n, static_cast<int>(WGM), 0, rest);
    if (full_sets > 0) {
      const Footprint f_set =
          triton_raster_footprint(b.grid_m, b.grid_n, static_cast<int>(WGM), 0, std::min(period, b.grid_m * b.grid_n));
      f.unique_m += full_sets * f_set.unique_m;
      f.unique_n += full_sets * f_set.unique_n;
    }
    b.l2_tile_m = f.unique_m;
    b.l2_tile_n = f.unique_n;
    // Rows/columns past the matrix edge are not fetched (TMA out-of-bounds fill, cp.async zero
    // fill): count the real rows per tile (M / grid_m <= BLOCK_M), which matters when M << BLOCK_M.
    const double rows_a = b.rows_per_tile_m, cols_b = b.cols_per_tile_n;
    const double unique = (double(f.unique_m) * rows_a + double(f.unique_n) * cols_b) * c.block_k * bytes;
    const double requested = double(b.concurrent_tiles) * (rows_a + cols_b) * c.block_k * bytes;
    b.l2_local_hit_rate = std::max(0.0, 1.0 - unique / requested);
    b.l2_hit_rate = b.l2_local_hit_rate;
    // A problem whose operands fit in L2 is read from DRAM once, whatever the raster.
    if (compulsory <= l2) b.l2_hit_rate = std::max(b.l2_hit_rate, b.l2_global_reuse_rate);
    return;
  }

  // Seed: global reuse over whole tiles.
  const double requested_total = double(b.total_tiles) * (double(c.block_m) + c.block_n) * c.block_k * k_iters * bytes;
  b.l2_global_reuse_rate = std::max(0.0, 1.0 - compulsory / requested_total);
  // Seed (Tensile order: the super-group spans WGM tile-columns), or Triton rows (flag 7).
  std::int64_t tile_m, tile_n;
  if (!o.source.l2_supergroup_triton_rows) {
    tile_n = std::min<std::int64_t>(WGM, b.grid_n);
    tile_m = ceil_div(b.active_sms, tile_n);
    if (tile_m > b.grid_m) {
      const std::int64_t num_wraps = tile_m / b.grid_m;
      tile_n += num_wraps * WGM;
      tile_m = b.grid_m;
    }
  } else {
    tile_m = std::min<std::int64_t>(WGM, b.grid_m);
    tile_n = ceil_div(b.active_sms, tile_m);
    if (tile_n > b.grid_n) {
      const std::int64_t num_wraps = tile_n / b.grid_n;
      tile_m += num_wraps * WGM;
      tile_n = b.grid_n;
    }
  }
  // Shrink the super-group until it fits in L2 (the larger dimension first).
  auto footprint = [&](std::int64_t tm, std::int64_t tn) {
    return (double(tm) * c.block_m * c.block_k + double(tn) * c.block_k * c.block_n) * bytes;
  };
  while (footprint(tile_m, tile_n) > l2 && (tile_m > 1 || tile_n > 1)) {
    if (tile_m >= tile_n) --tile_m; else --tile_n;
  }
  b.l2_tile_m = tile_m;
  b.l2_tile_n = tile_n;
  const double uncached_a = double(tile_m) * c.block_m * c.block_k * bytes;
  const double uncached_b = double(tile_n) * c.block_k * c.block_n * bytes;
  const double total_a = uncached_a * tile_n;
  const double total_b = uncached_b * tile_m;
  const double cached = (total_a + total_b) - (uncached_a + uncached_b);
  b.l2_local_hit_rate = cached / (total_a + total_b);
  b.l2_hit_rate = b.l2_local_hit_rate;
  if (o.source.l2_hit_min_global_reuse) {
    // Source: min(local, global reuse); 0.5 only replaces a hit rate of exactly 0.
    b.l2_hit_rate = std::min(b.l2_local_hit_rate, b.l2_global_reuse_rate);
    if (b.l2_hit_rate == 0.0) {
      b.l2_hit_rate = o.seed.l2_global_cap;
      b.l2_global_cap_applied = true;
    }
  } else if (b.working_set_bytes > l2) {
    // Seed: cap at 0.5 when one K-iteration of the whole grid, (M + N) * BLOCK_K * bytes, exceeds L2.
    if (b.l2_hit_rate > o.seed.l2_global_cap) b.l2_hit_rate = o.seed.l2_global_cap;
    b.l2_global_cap_applied = true;
  }
}

// ---- [Algorithm 7] memory latency per K-iteration ----------------------------------------------
void memory_latency(const Problem& p, const TileConfig& c, const ModelHardware& hw, const ModelOptions& o,
                    const KernelTerms& k, LatencyBreakdown& b) {
  const double bytes = dtype_bytes(p.dtype);
  const double n_sm = hw.n_sm;
  const double line = o.seed.cache_line_bytes;

  if (o.mode == ModelMode::Nv) {
    // Rows of BLOCK_K * bytes in 32-byte sectors (kernel_terms). Bytes moved: only the rows inside the matrix (see
    // l2_hit_rate).
    const double row = k.row_bytes;
    b.load_a_bytes = b.rows_per_tile_m * row;
    b.load_b_bytes = b.cols_per_tile_n * row;
    b.per_sm_load_bytes = (b.load_a_bytes + b.load_b_bytes) * b.resident_blocks;  // (concurrent tiles >= 1)
    b.total_load_bytes = (b.load_a_bytes + b.load_b_bytes) * double(b.concurrent_tiles);
  } else {
    if (o.source.round_contiguous_dim_128b) {
      // Source: the contiguous (K) dimension of each operand rounds up to 128 bytes.
      b.load_a_bytes = c.block_m * ceil_to(c.block_k * bytes, line);
      b.load_b_bytes = c.block_n * ceil_to(c.block_k * bytes, line);
    } else {
      b.load_a_bytes = ceil_to(double(c.block_m) * c.block_k * bytes, line);
      b.load_b_bytes = ceil_to(double(c.block_k) * c.block_n * bytes, line);
    }
    b.per_sm_load_bytes = b.load_a_bytes + b.load_b_bytes;
    if (!o.source.dram_floor_supergroup_unique_bytes)
      b.per_sm_load_bytes = std::max(b.per_sm_load_bytes, o.seed.min_per_sm_load_bytes);
    b.total_load_bytes = b.per_sm_load_bytes * b.active_sms;
  }

  // L2 path: every byte.
  b.l2_bw_fraction = b.active_sms / n_sm;
  // nv: GEMM operand traffic reaches more of the L2 than the per-thread-load figure, by family (kernel_terms; 1 in
  // seed mode).
  b.l2_feed_factor = k.l2_feed_factor;
  b.limited_l2_bw = hw.l2_perf_ratio * b.l2_feed_factor * b.l2_bw_fraction;
  b.l2_cycles = b.total_load_bytes / b.limited_l2_bw;

  // DRAM path: the misses.
  b.dram_bw_fraction = dram_bw_fraction(hw, o, b.active_sms);
  if (o.mode == ModelMode::Nv && c.family == Family::Wgmma && o.nv.wgmma_active_sm_dram_cap < 1.0)
    b.dram_bw_fraction += (1.0 - b.dram_bw_fraction) * (1.0 - std::max(0.0, o.nv.wgmma_active_sm_dram_cap));
  b.dram_load_bytes = (1.0 - b.l2_hit_rate) * b.total_load_bytes;
  if (o.mode == ModelMode::Seed && o.source.dram_floor_supergroup_unique_bytes) {
    const double unique = (double(b.l2_tile_m) * c.block_m + double(b.l2_tile_n) * c.block_n) * c.block_k * bytes;
    b.dram_load_bytes = std::max(b.dram_load_bytes, unique);
  }
  b.limited_dram_bw = hw.dram_perf_ratio * b.dram_bw_fraction;
  b.dram_cycles = b.dram_load_bytes / b.limited_dram_bw;
  if (o.mode == ModelMode::Seed) {
    if (b.dram_load_bytes > 0 || o.source.dram_floor_supergroup_unique_bytes) b.dram_cycles += hw.hbm_latency_penalty;
    b.memory_cycles = std::max(b.l2_cycles, b.dram_cycles);
    b.memory_bound = b.l2_cycles >= b.dram_cycles ? "L2 bandwidth" : "DRAM bandwidth";
    return;
  }
  // nv: bandwidth terms as above (no latency added: the pipeline hides it), plus a latency term:
  // a load issued stages-1 iterations ahead must return within stages-1 iterations, so one
  // iteration cannot be shorter than latency / (stages - 1).
  // (wgmma: NvModelConstants::wgmma_l2_hit_in_flight_share of the hits wait the DRAM latency: hits on lines in flight)
  const double in_flight = c.family == Family::Wgmma ? o.nv.wgmma_l2_hit_in_flight_share : 0.0;
  const double hit_lat = (1.0 - in_flight) * hw.l2_latency_cycles + in_flight * hw.hbm_latency_penalty;
  const double latency = (b.l2_hit_rate * hit_lat + (1.0 - b.l2_hit_rate) * hw.hbm_latency_penalty) *
                         (c.family == Family::Wgmma ? o.nv.wgmma_pipeline_latency_factor : 1.0);
  // mma.sync: the block's warps issue every 16-byte cp.async of the tile themselves, each warp at
  // a limited rate (NvModelConstants::mma_sync_warp_load_bytes_per_cycle): issuing one stage takes
  // issued bytes / (warps x rate). Every row of the tile is counted, the rows past the matrix edge too: since kernel
  // change 11 a CTA at the M edge with A K-contiguous copies only A's M rows (copy_rows), but counting the copied rows
  // here and in the per-warp floor below described the re-timed launches worse (sixteenth session, both GPUs'
  // gen-train and gen-valid, offline A/BF geomean / min / mean tau, BLOCK_M rows -> copied rows: H100 gen-train
  // 0.975 / 0.71 / 0.777 -> 0.934 / 0.44 / 0.755, small-lm 0.985 / 0.93 / 0.757 -> 0.833 / 0.43 / 0.653; refit with a
  // per-k-step latency floor for lone warps still lower in tau everywhere): at decode a one-warp CTA's k-iteration
  // is not set by its copy bytes (H100, 1x3584x14336, M = 1: ~5.4 cycles per element of BLOCK_K plus ~1 cycle per
  // 15 bytes of B per warp): the lone-warp term below (NvModelConstants::mma_sync_lone_warp_k_step_cycles) models it.
  // TMA (wgmma) issues a whole tile with one instruction.
  if (c.family != Family::Wgmma && o.nv.mma_sync_warp_load_bytes_per_cycle > 0) {
    const double issued_bytes = (double(c.block_m) + c.block_n) * c.block_k * bytes;
    // The warps of every block resident on the SM share the SM's cp.async throughput: at most
    // mma_sync_load_issue_warps_per_sm warps' worth of the per-warp rate, so a block's share is
    // min(warps x resident, that) / resident (8-warp blocks, or more than 4 one-warp blocks per
    // SM, load slower per warp).
    double issuing_warps = std::max(c.warps, 1);
    if (o.nv.mma_sync_load_issue_warps_per_sm > 0) {
      const double resident = b.resident_blocks;
      issuing_warps = std::min(issuing_warps * resident, o.nv.mma_sync_load_issue_warps_per_sm) / resident;
    }
    b.load_issue_cycles = issued_bytes / (issuing_warps * o.nv.mma_sync_warp_load_bytes_per_cycle);
  }
  // mma.sync: the per-warp cp.async issue floor (kernel_terms).
  b.copy_throttle_cycles = k.copy_throttle_cycles;
  // A stage's loads are issued and then travel one memory latency; they have stages-1 iterations
  // to land (Little's law on the pipeline): (issue + latency) / (stages - 1) per iteration. With
  // few stages and big tiles issued by few warps this, not bandwidth, sets the pace (H200: the
  // one-warp 16x16x512 s3 kernel takes 6077 cycles per K-iteration at 1x4096x4096, 16x16x64 s6 458).
  // A realigning kernel (NvModelConstants::realign_load_factor) issues its chunks at that factor's cost and keeps one
  // k-tile in flight.
  // Its copy goes in groups of at most 8 chunks per thread (the registers that hold them), one memory round trip each,
  // in series within the k-tile (gemm_mma_sync.cuh, kRealignGroups; ptxas stores a group before loading the next).
  if (b.realign_read) {
    b.load_issue_cycles *= o.nv.realign_load_factor;
    const double threads = 32.0 * std::max(c.warps, 1);
    const double chunks = std::ceil(double(c.block_m) * c.block_k / 8.0 / threads) +
                          std::ceil(double(c.block_n) * c.block_k / 8.0 / threads);
    b.realign_groups = std::ceil(chunks / 8.0);
  }
  b.latency_bound_cycles = b.realign_read ? latency * b.realign_groups + b.load_issue_cycles
                                          : (latency + b.load_issue_cycles) / std::max(1, c.stages - 1);
  b.memory_cycles = b.l2_cycles;
  b.memory_bound = "L2 bandwidth";
  if (b.dram_cycles > b.memory_cycles) { b.memory_cycles = b.dram_cycles; b.memory_bound = "DRAM bandwidth"; }
  if (b.latency_bound_cycles > b.memory_cycles) {
    b.memory_cycles = b.latency_bound_cycles;
    b.memory_bound = b.load_issue_cycles > latency ? "load issue + latency" : "memory latency";
  }
  // mma.sync warps alone on their sub-partition: the serial issue of one warp (NvModelConstants::
  // mma_sync_lone_warp_k_step_cycles) instead of the per-warp copy floor (16-bit operands: the m16n8k16 k-steps it
  // was fitted on).
  // (the k-iteration of a lone warp is the kernel's own: kernel_terms)
  const NvModelConstants& nv = o.nv;
  if (k.has_lone_warp_term && b.resident_blocks * c.warps <= nv.smsp_per_sm) {
    b.lone_warp_cycles = k.lone_warp_cycles;
    b.copy_throttle_cycles = 0.0;
  }
  if (b.copy_throttle_cycles > b.memory_cycles) {
    b.memory_cycles = b.copy_throttle_cycles;
    b.memory_bound = "per-warp cp.async issue";
  }
  if (b.lone_warp_cycles > b.memory_cycles) {
    b.memory_cycles = b.lone_warp_cycles;
    b.memory_bound = "lone-warp issue";
  }
  // simt: the ring is filled by the warps' cp.async, 16-byte chunks for an operand whose contiguous dimension is the
  // shared-memory one (A M-contiguous, B N-contiguous) and 4-byte copies for a K-contiguous operand, which the
  // kernel transposes on the fly (cpp/kernels/simt/gemm_simt.cuh): four times the warp instructions per byte. The
  // SM's resident CTAs share the copy throughput (NvModelConstants::simt_copy_cycles_per_warp_instruction): a floor
  // on the K-iteration.
  if (c.family == Family::Simt && o.nv.simt_copy_cycles_per_warp_instruction > 0) {
    const double elems_per_copy_a = p.a_k_contiguous ? 1.0 : 16.0 / bytes;
    const double elems_per_copy_b = p.b_k_contiguous ? 1.0 : 16.0 / bytes;
    b.simt_copy_instructions = std::ceil(double(c.block_m) * c.block_k / (32.0 * elems_per_copy_a)) +
                               std::ceil(double(c.block_n) * c.block_k / (32.0 * elems_per_copy_b));
    const double resident = b.resident_blocks;
    b.simt_copy_cycles = resident * b.simt_copy_instructions * o.nv.simt_copy_cycles_per_warp_instruction;
    if (b.simt_copy_cycles > b.memory_cycles) {
      b.memory_cycles = b.simt_copy_cycles;
      b.memory_bound = "cp.async copy throughput";
    }
  }
  // wgmma: the part of each TMA box outside the matrix is zero-filled at a slow rate, on top of the
  // box's real bytes (model.hpp, wgmma_tma_oob_fill_bytes_per_cycle).
  if (c.family != Family::Wgmma) return;
  const double rows_a = tma_loaded_rows(p.M, b.grid_m, c.block_m, p.a_k_contiguous);
  const double rows_b = tma_loaded_rows(p.N, b.grid_n, c.block_n, p.b_k_contiguous);
  // (the TF32 kernels keep whole boxes at the edges: KernelParams::shift_edges is set for the 16-bit kernels only)
  const bool whole_edge_boxes = p.dtype == DType::TFloat32;
  if (o.nv.wgmma_tma_oob_fill_bytes_per_cycle > 0) {
    // (the edge tile of a K-major operand longer than its tile loads the box that ends at the matrix edge: nothing
    // zero-filled for A's rows, fewer than 8 of B's; cpp/kernels/wgmma/gemm_wgmma.cuh, KernelParams::shift_edges)
    const double fill_a = !whole_edge_boxes && edge_box_shifted(p.M, b.grid_m, c.block_m, p.a_k_contiguous)
                              ? 0.0 : rows_a - b.rows_per_tile_m;
    const double fill_b = !whole_edge_boxes && edge_box_shifted(p.N, b.grid_n, c.block_n, p.b_k_contiguous)
                              ? double((b.grid_n * c.block_n - p.N) % 8) / double(b.grid_n)
                              : rows_b - b.cols_per_tile_n;
    const double oob_rows = fill_a + fill_b;
    b.tma_oob_fill_cycles = oob_rows * c.block_k * bytes / o.nv.wgmma_tma_oob_fill_bytes_per_cycle;
    b.memory_cycles += b.tma_oob_fill_cycles;
  }
  // wgmma: one SM's TMA stage throughput (model.hpp, wgmma_tma_box_bytes_per_cycle): the rows its boxes load (the
  // zero-filled ones of an edge tile included), plus the barrier hand-off; a floor on the K-iteration that the
  // bandwidth terms above (the whole GPU's share) do not see when few SMs are busy.
  if (o.nv.wgmma_tma_box_bytes_per_cycle > 0) {
    // (rows off 128-byte lines count 1 + wgmma_tma_off_line_row_cost times, and those of them that start inside a
    // 32-byte sector wgmma_tma_off_sector_row_cost more: NvModelConstants)
    const double off = o.nv.wgmma_tma_off_line_row_cost, in_sector = o.nv.wgmma_tma_off_sector_row_cost;
    const double weight_a = 1.0 + off * b.off_line_share_a + in_sector * b.off_sector_share_a;
    const double weight_b = 1.0 + off * b.off_line_share_b + in_sector * b.off_sector_share_b;
    // (a multicast twin's CTA issues half of the B tile's rows; the other half arrives from its peer's requests)
    const double rows_b_issued = b.multicast_b ? 0.5 * rows_b : rows_b;
    const double box_bytes = (rows_a * weight_a + rows_b_issued * weight_b) * c.block_k * bytes;
    b.tma_box_cycles = o.nv.wgmma_tma_stage_cycles + box_bytes / o.nv.wgmma_tma_box_bytes_per_cycle;
    if (b.tma_box_cycles > b.memory_cycles) {
      b.memory_cycles = b.tma_box_cycles;
      b.memory_bound = "TMA stage throughput";
    }
  }
}

// ---- work utilisation (seed 3.5) ---------------------------------------------------------------
void work_utilization(const Problem& p, const TileConfig& c, LatencyBreakdown& b) {
  // grid_m / grid_n / k_tiles: ceil_div(M, BLOCK_M) / ceil_div(N, BLOCK_N) / ceil_div(K, BLOCK_K), set by
  // occupancy_and_waves (one division each per prediction: a cold selection predicts ~80-170 launches).
  const double launched_m = double(b.grid_m) * c.block_m;
  const double launched_n = double(b.grid_n) * c.block_n;
  const double launched_k = double(b.k_tiles) * c.block_k;
  b.utilization = (double(p.M) * p.N * p.K) / (launched_m * launched_n * launched_k);
  b.penalty = 1.0 / b.utilization;
}

// ---- [Algorithm 8] tile latency ----------------------------------------------------------------
void tile_latency(const Problem& p, const TileConfig& c, const ModelHardware& hw, const ModelOptions& o,
                  const KernelTerms& k, LatencyBreakdown& b) {
  const double bytes = dtype_bytes(p.dtype);
  const std::int64_t k_iters = b.k_tiles;
  b.arithmetic_intensity = k.arithmetic_intensity;

  if (o.mode == ModelMode::Seed) {
    const SeedConstants& s = o.seed;
    const double discount = std::pow(s.occupancy_discount, b.occupancy);
    b.prologue_cycles = s.prologue_memory_factor * b.memory_cycles * b.penalty * discount;
    b.epilogue_bw = hw.dram_perf_ratio * dram_bw_fraction(hw, o, b.active_sms);
    b.output_bytes = double(b.active_sms) * c.block_m * c.block_n * bytes;
    b.epilogue_cycles = (b.output_bytes / b.epilogue_bw + b.compute_cycles * b.penalty) * discount;
    b.num_iter = std::max<std::int64_t>(k_iters - 1, 1);
    const std::int64_t k_rem = p.K % c.block_k;
    b.k_pad_penalty_cycles = k_rem != 0 ? (double(k_rem) / double(p.K)) * s.k_pad_penalty_cycles : 0.0;
    b.steady_cycles = std::max(b.compute_cycles, b.memory_cycles) * b.penalty;
    b.bound = b.compute_cycles >= b.memory_cycles ? "compute" : "memory";
    b.loop_overhead_cycles = s.loop_overhead_cycles * double(b.num_iter);
    b.setup_cycles = s.workgroup_setup_cycles;
    double epilogue = b.epilogue_cycles, k_pad = b.k_pad_penalty_cycles;
    if (o.source.k_pad_in_epilogue) {  // source: inside the epilogue, so counted epilogue_count times
      epilogue += k_pad;
      k_pad = 0.0;
    }
    b.tile_cycles = b.steady_cycles * double(b.num_iter) + b.prologue_cycles + epilogue * s.epilogue_count +
                    b.setup_cycles + b.loop_overhead_cycles + k_pad;
    return;
  }

  // nv: prologue = the first load's latency; the K-loop runs every K-iteration with compute and
  // memory overlapped by the pipeline; the epilogue writes C (all tiles in flight store at once,
  // at the DRAM bandwidth of the active SMs) and waits one DRAM latency for the stores to drain.
  const NvModelConstants& nv = o.nv;
  const double latency = b.l2_hit_rate * hw.l2_latency_cycles + (1.0 - b.l2_hit_rate) * hw.hbm_latency_penalty;
  b.prologue_cycles = nv.prologue_latency_factor * latency;
  const std::int64_t unit_k_iters = b.num_iter > 0 ? b.num_iter : k_iters;  // predict() presets a slice's
  b.num_iter = unit_k_iters;
  const double hi = std::max(b.compute_cycles, b.memory_cycles), lo = std::min(b.compute_cycles, b.memory_cycles);
  b.steady_cycles = c.stages >= 2 ? hi + (1.0 - nv.overlap_efficiency) * lo : hi + lo;
  b.bound = b.compute_cycles >= b.memory_cycles ? "compute" : "memory";
  b.loop_overhead_cycles = k_iter_overhead_cycles(c, nv) * double(unit_k_iters);
  b.epilogue_bw = hw.dram_perf_ratio * dram_bw_fraction(hw, o, b.active_sms);
  const double out_bytes = b.output_elem_bytes > 0 ? b.output_elem_bytes : bytes;
  b.output_bytes = double(b.concurrent_tiles) * b.rows_per_tile_m * b.cols_per_tile_n * out_bytes;
  b.epilogue_write_cycles = b.output_bytes / b.epilogue_bw;
  // (a tile split along N writes C in 64-byte-row slices: NvModelConstants::wgmma_split_n_store_factor)
  b.split_n_store = k.wgmma_split_n && out_bytes == bytes;
  if (b.split_n_store) b.epilogue_write_cycles *= nv.wgmma_split_n_store_factor;
  b.epilogue_cycles = b.epilogue_write_cycles + nv.epilogue_latency_factor * hw.hbm_latency_penalty;
  if (b.epilogue_bias) {
    // Fused bias: the epilogue loads its tile's bias columns after the main loop (both families: gemm_mma_sync.cuh,
    // gemm_wgmma.cuh), a load every tile of a column shares (an L2 hit after the first), whose round trip the stores
    // wait for: one L2 latency plus the bytes at the L2 rate of the active SMs.
    b.bias_bytes = double(b.concurrent_tiles) * b.cols_per_tile_n * bytes;
    b.bias_cycles = hw.l2_latency_cycles + b.bias_bytes / (hw.l2_perf_ratio * std::max(b.l2_bw_fraction, 1e-9));
    b.epilogue_cycles += b.bias_cycles;
  }
  b.k_pad_penalty_cycles = 0.0;  // the padded K-iteration is already one of the k_iters
  b.setup_cycles = nv.tile_setup_cycles;
  b.tile_cycles = b.prologue_cycles + b.steady_cycles * double(unit_k_iters) + b.loop_overhead_cycles +
                  b.epilogue_cycles + b.setup_cycles;
  // wgmma: a CTA with a next tile hands its C to TMA stores and starts that tile (cpp/kernels/wgmma/gemm_wgmma.cuh),
  // where the op's C allows it: the op allocates C contiguous, so its rows are 16-byte aligned when N x element
  // bytes is a multiple of 16 (the kernels' rule; fp32 split-K partials are stored by the threads). Then every wave
  // but the last costs the longer of its main loop and the DRAM traffic the two share (the loads' DRAM time plus
  // C's write at the epilogue rate), not their sum; the last wave pays its whole epilogue. The write and read times
  // are the model's own terms; the share of the difference taken is NvModelConstants::wgmma_epilogue_overlap
  // (fitted). On the H100 the TMA-stored epilogue ran 1.13-1.30x faster at K = 256-1024 (8192 x 8192 x 256:
  // 85.5 -> 69.3 us; benchmarks/results/probes/probe_tma_store_h100.txt).
  // Only some tiles' C slices store by TMA (wgmma_tma_stored_epilogue, cpp/model/types.hpp: the 64x48 .. 64x160 and
  // 128x96 .. 128x144 tiles' 16/32-column slices leave through the threads' stores, which the next tile waits for).
  // The ping-pong schedule (LatencyBreakdown::ping_pong) hides the epilogue the same way, whichever way C leaves: one
  // consumer warpgroup's epilogue (staging and store, by TMA or by its threads) runs while the other warpgroup's
  // main loop takes the next tile's k-blocks from the ring. Its share is NvModelConstants::
  // wgmma_ping_pong_epilogue_overlap (the cooperative kernel's until a fit holds on both GPUs: see there).
  b.epilogue_hidden_cycles = 0.0;
  const bool overlapped = b.ping_pong || (k.wgmma_tma_stored_epilogue && !b.multicast_b &&
                                          (p.N * static_cast<std::int64_t>(bytes)) % 16 == 0);
  const double share = b.ping_pong ? nv.wgmma_ping_pong_epilogue_overlap : nv.wgmma_epilogue_overlap;
  if (c.family == Family::Wgmma && share > 0 && b.num_waves > 1 && out_bytes == bytes && overlapped) {
    const double main_loop = b.tile_cycles - b.epilogue_cycles;
    const double shared_dram = b.dram_cycles * double(unit_k_iters) + b.epilogue_write_cycles;
    const double wave = std::max(main_loop, shared_dram);
    b.epilogue_hidden_cycles = share * std::max(0.0, b.tile_cycles - wave) * double(b.num_waves - 1);
  }
}

// ---- [Algorithm 9] total latency ---------------------------------------------------------------
void total_latency(LatencyBreakdown& b) {
  b.total_cycles = b.tile_cycles * double(b.num_waves) - b.epilogue_hidden_cycles;  // hidden: nv wgmma only
}

const ClusterSlots& cluster_slots_of(const TileConfig& c, const ModelHardware& hw) {
  // The in-cluster reduction is the wgmma family's (sm_90a); the other families also run on sm_80. Not the swapped-
  // operand kernels': it would store C as their rows (C^T's); their slices reduce through the workspace.
  static const ClusterSlots none{};  // (a reference: a copy of the 72-byte table per prediction otherwise)
  return c.family == Family::Wgmma && !c.swap_ab && hw.compute_capability >= 90 ? hw.cluster_slots : none;
}

std::int64_t resident_slots(const TileConfig& c, const ModelHardware& hw, const KernelResources* kr) {
  const std::int64_t n_sm = static_cast<std::int64_t>(hw.n_sm);
  if (c.family == Family::Wgmma || kr == nullptr) return n_sm;  // persistent: one CTA per SM
  return n_sm * std::max(blocks_per_sm(*kr, hw).blocks, 1);
}

namespace {
std::int64_t resident_slots(const TileConfig& c, const ModelHardware& hw, const BlocksPerSm* bps) {
  const std::int64_t n_sm = static_cast<std::int64_t>(hw.n_sm);
  if (c.family == Family::Wgmma || bps == nullptr) return n_sm;
  return n_sm * std::max(bps->blocks, 1);
}
}  // namespace

namespace {

// The launch's grid and k-tiles, ceil_div(M, BLOCK_M), ceil_div(N, BLOCK_N), ceil_div(K, BLOCK_K): every phase and the
// split plan read them (computed once per launch: integer divisions were ~6 % of a cold selection, perf 2026-12-07).
struct LaunchGrid {
  std::int64_t grid_m = 0, grid_n = 0, k_tiles = 0;
};
LaunchGrid launch_grid(const Problem& p, const TileConfig& c) {
  return {ceil_div(p.M, c.block_m), ceil_div(p.N, c.block_n), ceil_div(p.K, c.block_k)};
}

// Algorithms 3-9 for one phase of a launch of grid `g`. nv: `units` work units of `k_iters` K-iterations (0, 0: every
// tile, all of K), the L2 reuse period and the bytes per output element.
// Flattened (the algorithms' functions inlined here): their calls' register saves and the breakdown fields reloaded
// across them were ~10 % of a cold selection's instructions (callgrind, 2026-12-07). The library is built without FP
// contraction (-ffp-contract=off, cpp/model/CMakeLists.txt), so the same operations give the same bits inlined or not.
[[gnu::flatten, gnu::noinline]] void predict_phase(const Problem& p, const TileConfig& c, const ModelHardware& hw, const ModelOptions& o,
                   const KernelResources* kr, const KernelTerms& k, const BlocksPerSm* bps, const LaunchGrid& g,
                   std::int64_t units, std::int64_t k_iters, std::int64_t reuse_units, double out_elem_bytes,
                   bool epilogue_bias, bool realign, LatencyBreakdown& b) {
  b.mode = o.mode;
  b.grid_m = g.grid_m;
  b.grid_n = g.grid_n;
  b.k_tiles = g.k_tiles;
  b.epilogue_bias = epilogue_bias;
  if (bps != nullptr) {
    b.blocks_per_sm = std::max(bps->blocks, 1);
    b.occupancy_limiter = bps->limiter;
  }
  b.total_tiles = units;
  b.num_iter = k_iters;
  b.l2_reuse_units = reuse_units;
  b.output_elem_bytes = out_elem_bytes;
  occupancy_and_waves(p, c, hw, o, kr, b);  // nv compute needs the blocks sharing an SM
  compute_latency(p, c, hw, o, k, b);
  l2_hit_rate(p, c, hw, o, b);
  b.realign_read = realign && o.mode == ModelMode::Nv;  // a realigning kernel's loads (memory_latency)
  memory_latency(p, c, hw, o, k, b);
  work_utilization(p, c, b);
  if (c.family == Family::Simt) b.fp32_lane_fraction = b.utilization;
  tile_latency(p, c, hw, o, k, b);
  total_latency(b);
}

// The copies the op makes before the kernel (cpp/ops/ops_cuda.cpp), as its plan chooses them: among the kernel
// variants compiled for this config, the one whose copies cost least, where an operand is copied when it is
// misaligned (16-byte rule) for an aligned variant, or the variant reads it in the other layout, and a copy that
// transposes the operand (a strided gather) counts kTransposingCopyFactor times one that keeps its contiguous
// dimension. A realigning variant (KernelResources::realign_layouts) reads a misaligned operand in place: no copy for
// it, only for a layout it does not have. On a tie the aligned variant (what the op prefers). So: a misaligned
// row-major B costs one streamed copy for a kernel with an N-contiguous variant, none where that variant realigns,
// three for one that reads only a K-contiguous B (the wgmma 64xBN tiles with BN not a multiple of 64); A and B both
// column-major ("tt", no mma.sync variant) the smaller operand transposed. Each copy reads and writes the operand at
// DRAM speed.
struct OperandCopyPlan {
  double bytes = 0;           // bytes copied (the transposing ones counted kTransposingCopyFactor times)
  int copies = 0;             // operands copied: each is a launch of its own
  bool transposed = false;    // a copy changes an operand's layout
  bool realign = false;       // the launch is the realigning variant
  bool realign_a = false, realign_b = false;  // ...and reads this misaligned operand in place
  bool swapped_bound = false;  // TF32, B row-major, M above kSwappedTf32MaxM: the compiled swapped kernel not used
  bool copy_a = false, copy_b = false;  // the operand is copied (its copy has rows on 128-byte lines)
  bool pitch = false;         // a copy made only to put an operand's rows on 128-byte lines (predict_into)
  unsigned layout = 0;        // layout_bit of the variant launched (0: no compiled layout)
};

// The shares of the operands' rows read in place off 128-byte lines, and of those inside 32-byte sectors (the TMA stage
// term's weights; 0 for an operand copied into padded rows).
struct OffLineShares {
  double lines_a = 0, lines_b = 0, sectors_a = 0, sectors_b = 0;
};

OperandCopyPlan operand_copy_plan(const Problem& p, const KernelResources* kr) {
  unsigned layouts = kr == nullptr ? kAllLayouts : kr->layouts;
  // TF32 with B row-major (A K-major): the swapped kernels' layout, run only up to kSwappedTf32MaxM (types.hpp);
  // above it the op copies B into the K-major layout, as charged here.
  const unsigned swapped = layout_bit(true, false);
  const bool swapped_bound = p.dtype == DType::TFloat32 && !swapped_tf32_variant_runs(p.M) &&
                             (layouts & swapped) != 0 && (layouts & ~swapped) != 0;
  if (swapped_bound) layouts &= ~swapped;
  OperandCopyPlan plan;
  // Aligned operands in a compiled layout: that variant copies nothing, and every other one copies a positive number
  // of bytes (a transposition) or comes later (a realigning variant) and loses the tie: the loop below would choose it.
  const unsigned own = layout_bit(p.a_k_contiguous, p.b_k_contiguous);
  if (p.a_aligned && p.b_aligned && (layouts & own) != 0) {
    plan.layout = own;
    return plan;
  }
  const double bytes = dtype_bytes(p.dtype), batch = double(std::max<std::int64_t>(p.batch, 1));
  const double a_bytes = double(p.M) * p.K * bytes * batch, b_bytes = double(p.K) * p.N * bytes * batch;
  const unsigned realign_layouts = kr == nullptr ? 0u : kr->realign_layouts;
  auto cost = [](double op_bytes, bool aligned, bool have_k, bool want_k) {
    if (have_k != want_k) return op_bytes * kTransposingCopyFactor;
    return aligned ? 0.0 : op_bytes;
  };
  double copied = -1;
  for (int realign = 0; realign < 2; ++realign)  // aligned variants first: they win a tie
    for (int a_k = 0; a_k < 2; ++a_k)
      for (int b_k = 0; b_k < 2; ++b_k) {
        if (((realign ? realign_layouts : layouts) & layout_bit(a_k != 0, b_k != 0)) == 0) continue;
        const double ca = cost(a_bytes, realign || p.a_aligned, p.a_k_contiguous, a_k != 0);
        const double cb = cost(b_bytes, realign || p.b_aligned, p.b_k_contiguous, b_k != 0);
        const double c = ca + cb;
        if (copied < 0 || c < copied) {
          copied = c;
          plan.copies = (ca > 0 ? 1 : 0) + (cb > 0 ? 1 : 0);
          plan.copy_a = ca > 0;
          plan.copy_b = cb > 0;
          plan.transposed = (a_k != 0) != p.a_k_contiguous || (b_k != 0) != p.b_k_contiguous;
          plan.realign = realign != 0;
          plan.realign_a = plan.realign && !p.a_aligned && (a_k != 0) == p.a_k_contiguous;
          plan.realign_b = plan.realign && !p.b_aligned && (b_k != 0) == p.b_k_contiguous;
          plan.layout = layout_bit(a_k != 0, b_k != 0);
        }
      }
  plan.bytes = copied < 0 ? 0 : copied;  // no compiled layout at all: nothing to charge (not a real kernel record)
  plan.swapped_bound = swapped_bound && plan.bytes > 0;
  return plan;
}

void operand_copies(const ModelHardware& hw, const ModelOptions& o, const OperandCopyPlan& plan, LatencyBreakdown& b) {
  const double copied = plan.bytes;
  if (copied > 0)
    b.operand_copy_reason =
        plan.swapped_bound ? "TF32 with B row-major and M above kSwappedTf32MaxM (types.hpp): B copied into the "
                             "K-major layout, faster there than the swapped kernel that reads it in place (a "
                             "transposing copy counts 3x)"
        : plan.transposed  ? "operand layout not compiled for this kernel: the cheapest copies to a "
                             "compiled layout (a transposing copy counts 3x)"
        : plan.pitch       ? "rows off 128-byte lines (leading dimension not a multiple of 128 bytes): copied with "
                             "padded rows, predicted faster than the TMA reading them in place"
                           : "misaligned operand (16-byte base / leading dimension rule)";
  b.operand_copy_bytes = copied;
  b.operand_copy_cycles = copied > 0 ? 2.0 * copied / hw.dram_perf_ratio + plan.copies * o.nv.operand_copy_fixed_cycles
                                     : 0.0;
  b.realign_read = plan.realign;
  b.realign_a = plan.realign_a;
  b.realign_b = plan.realign_b;
}

// The split tail's terms and the reduction (predict_into): `tail` is the tail phase's breakdown (b itself when
// the launch has no whole tiles).
void split_terms(const Problem& p, const TileConfig& c, const ModelHardware& hw, const ModelOptions& o,
                 const SplitPlan& sp, double bytes, const LatencyBreakdown& tail, LatencyBreakdown& b) {
  b.tail_units = tail.total_tiles;
  b.tail_waves = tail.num_waves;
  b.tail_k_iters = tail.num_iter;
  b.tail_unit_cycles = tail.tile_cycles;
  b.tail_epilogue_cycles = tail.epilogue_cycles;
  b.tail_cycles = tail.tile_cycles * double(tail.num_waves);
  // The reduction: every split tile's S partials read, C written once, at the L2 rate when the partials
  // are still there (written just before) else at DRAM's; plus its fixed cost (NvModelConstants).
  const double elems = double(sp.tail_tiles) * tail.rows_per_tile_m * tail.cols_per_tile_n;
  const double partial_bytes = elems * 4.0 * sp.slices;
  b.reduction_bytes = partial_bytes + elems * bytes;
  const bool l2_resident = partial_bytes <= hw.l2_bytes;
  const double rate = l2_resident ? hw.l2_perf_ratio : hw.dram_perf_ratio;
  // ...or its round trips, whichever is longer: a thread sums 4 outputs, issuing the loads of a batch of
  // slices at once (SplitPlan::kReduceSliceBatch), and the grid is capped at kReduceBlocksPerSm blocks per SM
  // (grid-stride passes beyond). At many slices over few output tiles the grid is a few warps per SM and the
  // chain of round trips, not the bytes, sets its time.
  const double groups = double(sp.tail_tiles) * c.block_m * c.block_n / 4.0;
  const double threads_cap = hw.n_sm * SplitPlan::kReduceBlocksPerSm * SplitPlan::kReduceThreads;
  const double passes = std::ceil(groups / threads_cap);
  const double round_trips =
      passes * (1.0 + std::ceil(double(sp.slices - 1) / SplitPlan::kReduceSliceBatch));
  b.reduction_latency_cycles = round_trips * (l2_resident ? hw.l2_latency_cycles : hw.hbm_latency_penalty);
  if (p.bias) {
    // The reduction adds the bias after the slices (cpp/kernels/split_k.cu): its columns read once per pass,
    // one more dependent L2 round trip.
    const double bias_bytes = double(sp.tail_tiles) * tail.cols_per_tile_n * bytes;
    b.reduction_bytes += bias_bytes;
    b.reduction_latency_cycles += passes * hw.l2_latency_cycles;
  }
  // ...plus what a split launch costs beyond these terms.
  b.split_launch_cycles = split_launch_cycles(c, o.nv, sp.slices, b.tail_cycles);
  b.reduction_cycles = std::max(b.reduction_bytes / rate, b.reduction_latency_cycles) + b.split_launch_cycles;
  // In a cluster (SplitPlan::cluster) the same partials meet in shared memory instead: the reduction kernel's terms
  // less what the measurements say the cluster form saves (NvModelConstants::cluster_split_saving_cycles).
  b.split_cluster = sp.cluster;
  // ...and reads the S partial tiles over distributed shared memory: each of the S CTAs sums 1/S of the tile's 16-byte
  // groups over the S partials, every load by ld.shared::cluster (its own partial's too), so each SM loads one whole
  // partial tile (real rows x real columns x 4 bytes). Its consumer threads keep one group's S loads in flight each, so
  // the SM's rate is the smaller of the hardware's (dsmem_bytes_per_cycle) and those bytes in flight over the group's
  // latency (dsmem_latency_cycles at S = 2, dsmem_latency_per_slice_cycles more per further CTA), all calibrated
  // (origami_nv._calibrate.dsmem_read, the reduction's pattern; H100: 20.5 bytes per cycle with 384 threads in clusters
  // of 2; with 128 threads 9.9, 13.1, 16.0 at S = 2, 3, 4: a group's latency 414, 469, 514 cycles;
  // benchmarks/results/probes/probe_dsmem_h100.txt). This replaced a rate fitted to GEMM times (fifty-third and
  // fifty-fourth sessions; benchmarks/results/model_dsmem_calibrated.md). No value in the row: no term.
  if (sp.cluster) {
    b.reduction_cycles = std::max(0.0, b.reduction_cycles - o.nv.cluster_split_saving_cycles);
    if (hw.dsmem_bytes_per_cycle > 0) {
      const double in_flight = 128.0 * std::max(c.warps / 4 - 1, 1) * double(sp.slices) * 16.0;
      const double latency = hw.dsmem_latency_cycles + hw.dsmem_latency_per_slice_cycles * double(sp.slices - 2);
      const double rate =
          latency > 0 ? std::min(hw.dsmem_bytes_per_cycle, in_flight / latency) : hw.dsmem_bytes_per_cycle;
      b.cluster_dsmem_cycles = tail.rows_per_tile_m * tail.cols_per_tile_n * 4.0 / rate;
    }
    b.reduction_cycles += b.cluster_dsmem_cycles;
  }
}

}  // namespace

namespace {
void predict_launch(const Problem& p, const TileConfig& c, const ModelHardware& hw, const ModelOptions& o,
                    const KernelResources* kr, const KernelTerms& k, const OperandCopyPlan& copies,
                    const OffLineShares& off, bool multicast, LatencyBreakdown& b);
void predict_into_kernel(const Problem& p, const TileConfig& c, const ModelHardware& hw, const ModelOptions& o,
                         const KernelResources* kr, const KernelTerms& k, LatencyBreakdown& b);
}  // namespace

LatencyBreakdown predict(const Problem& p, const TileConfig& c, const ModelHardware& hw, const ModelOptions& o,
                         const KernelResources* kr) {
  LatencyBreakdown b;
  predict_into(p, c, hw, o, kr, b);
  return b;
}

void predict_into(const Problem& p, const TileConfig& c, const ModelHardware& hw, const ModelOptions& o,
                  const KernelResources* kr, LatencyBreakdown& b) {
  predict_into(p, c, hw, o, kr, nullptr, b);
}

namespace {
// Whether the selector's precomputed terms serve this prediction: computed for this dtype, with an occupancy exactly
// where there are resources (kernel_terms of the same inputs gives the same bits).
bool known_terms_apply(const KernelTerms* known, DType dtype, const KernelResources* kr) {
  return known != nullptr && known->dtype == dtype && known->has_occupancy == (kr != nullptr);
}
}  // namespace

void predict_into(const Problem& p, const TileConfig& c, const ModelHardware& hw, const ModelOptions& o,
                  const KernelResources* kr, const KernelTerms* known, LatencyBreakdown& b) {
  if (c.swap_ab && o.mode == ModelMode::Nv) {
    // The swapped-operand kernel runs the transposed problem with its own tile (types.hpp swapped_problem,
    // swapped_kernel_tile): every term is predicted for that launch, then the operand plan is told in the problem's
    // terms again (its A is the kernel's B), as the op reads it. The kernel's resources are the same with the layouts
    // exchanged; it has no realigning form and no multicast twin.
    // (field by field, not a copy: its strings would cost a selection two heap allocations per swapped candidate)
    const Problem pt = swapped_problem(p);
    const TileConfig ct = swapped_kernel_tile(c);
    KernelResources krt;
    if (kr != nullptr) {
      krt.config = swapped_kernel_tile(kr->config);
      krt.dtype = kr->dtype;
      krt.threads = kr->threads;
      krt.registers_per_thread = kr->registers_per_thread;
      krt.spill_store_bytes = kr->spill_store_bytes;
      krt.spill_load_bytes = kr->spill_load_bytes;
      krt.local_bytes = kr->local_bytes;
      krt.smem_bytes = kr->smem_bytes;
      krt.layouts = swapped_layouts(kr->layouts);
      krt.realign_layouts = 0;
      krt.multicast_layouts = 0;
      krt.ping_pong_layouts = 0;  // (the swapped kernels have no ping-pong schedule)
    }
    const KernelResources* krp = kr != nullptr ? &krt : nullptr;
    // The kernel's terms do not depend on which side of the tile is which (flops, MMA count and intensity of a tile
    // of whole MMA atoms, the occupancy of its resources): the selector's, computed once for the config, serve.
    if (known_terms_apply(known, p.dtype, kr)) {
      predict_into_kernel(pt, ct, hw, o, krp, *known, b);
    } else {
      predict_into_kernel(pt, ct, hw, o, krp, kernel_terms(ct, pt.dtype, hw, o, krp), b);
    }
    b.swap_ab = true;
    b.layout = layout_name(p.a_k_contiguous, p.b_k_contiguous);
    std::swap(b.off_line_share_a, b.off_line_share_b);
    std::swap(b.off_sector_share_a, b.off_sector_share_b);
    std::swap(b.pitch_copy_a, b.pitch_copy_b);
    std::swap(b.realign_a, b.realign_b);
    return;
  }
  if (!known_terms_apply(known, p.dtype, kr)) {
    const KernelTerms computed = kernel_terms(c, p.dtype, hw, o, kr);
    predict_into(p, c, hw, o, kr, &computed, b);
    return;
  }
  predict_into_kernel(p, c, hw, o, kr, *known, b);
}

namespace {
// What a launch reads and copies before the kernel, and whether the config's 2-CTA twin is weighed (predict_into).
struct LaunchOperands {
  OperandCopyPlan copies;  // the op's copies (operand_copy_plan)
  OffLineShares off;       // wgmma: the operands read in place whose rows are off 128-byte lines (a copy pads them)
  bool twin = false;       // the config's 2-CTA multicast twin is weighed (predict_into_kernel says when)
};
LaunchOperands launch_operands(const Problem& p, const TileConfig& c, const ModelOptions& o, const KernelResources* kr) {
  LaunchOperands r;
  // Which kernel variant the op launches and what it copies first (before the phases: a realigning launch's
  // memory time differs).
  r.copies = operand_copy_plan(p, kr);
  const bool term = c.family == Family::Wgmma && o.nv.wgmma_tma_off_line_row_cost > 0 && o.pitch_copy_plan;
  auto pitch = [&](bool copied, bool aligned, bool a) -> std::int64_t {
    if (copied || !aligned || !term) return 0;  // 0 bytes: on lines
    return operand_row_pitch_bytes(p, a);
  };
  const std::int64_t pitch_a = pitch(r.copies.copy_a, p.a_aligned, true);
  const std::int64_t pitch_b = pitch(r.copies.copy_b, p.b_aligned, false);
  r.off = {rows_off_lines_share(pitch_a), rows_off_lines_share(pitch_b), rows_off_sectors_share(pitch_a),
           rows_off_sectors_share(pitch_b)};
  // The config's 2-CTA twin (KernelResources::multicast_layouts) in the layout the plan launches: its CTA pairs share
  // the B tile by TMA multicast, each issuing half of its rows (memory_latency's TMA stage term), and store C through
  // the threads (tile_latency); the launcher has no split-K for it. Weighed for the pick's plan alone, like the copies.
  // Only where B's rows are off 128-byte lines: on lines a twin was measured no faster or slower (128x256 at 4096^3
  // 0.13 slower, cpp/kernels/wgmma/NOTES.md v12; 64x128 at 1024^3 6.7 -> 8.1 us on the H100,
  // benchmarks/results/probes/probe_small_odd_h100.txt), though halving B's rows in the TMA stage term predicts a gain
  // wherever that term binds (the 64- and 128-row tiles at small sizes).
  r.twin = c.family == Family::Wgmma && o.pitch_copy_plan && c.split_k <= 1 && kr != nullptr && !r.copies.realign &&
           (kr->multicast_layouts & r.copies.layout) != 0 && r.off.lines_b > 0;
  return r;
}

// One form of the kernel (the 1-CTA kernel, or `multicast`: its 2-CTA twin) with its best copy plan: the operands read
// in place, or those off lines copied into padded rows first (a streamed copy of their bytes, as for a misaligned one:
// the pick's pitch_copy_a/b, cpp/ops/ops_cuda.cpp make_plan). A copy is taken where it beats reading in place by
// NvModelConstants::pitch_copy_min_gain (with the same kernel).
void predict_copy_plans(const Problem& p, const TileConfig& c, const ModelHardware& hw, const ModelOptions& o,
                        const KernelResources* kr, const KernelTerms& k, const LaunchOperands& ops, bool multicast,
                        LatencyBreakdown& b) {
  predict_launch(p, c, hw, o, kr, k, ops.copies, ops.off, multicast, b);
  const OffLineShares& off = ops.off;
  if (off.lines_a == 0 && off.lines_b == 0) return;
  const double eb = dtype_bytes(p.dtype);
  const double batch_d = double(std::max<std::int64_t>(p.batch, 1));
  const double in_place = b.total_cycles;
  for (int mask = 1; mask < 4; ++mask) {
    const bool ca = (mask & 1) != 0, cb = (mask & 2) != 0;
    if ((ca && off.lines_a == 0) || (cb && off.lines_b == 0)) continue;
    OperandCopyPlan alt = ops.copies;
    alt.pitch = true;
    if (ca) alt.bytes += double(p.M) * p.K * eb * batch_d;
    if (cb) alt.bytes += double(p.K) * p.N * eb * batch_d;
    alt.copies += (ca ? 1 : 0) + (cb ? 1 : 0);
    LatencyBreakdown t;
    const OffLineShares left{ca ? 0.0 : off.lines_a, cb ? 0.0 : off.lines_b, ca ? 0.0 : off.sectors_a,
                             cb ? 0.0 : off.sectors_b};
    predict_launch(p, c, hw, o, kr, k, alt, left, multicast, t);
    // (b: the in-place plan until a copy plan replaces it; predict_launch leaves pitch_copy_a/b false)
    if (t.total_cycles * o.nv.pitch_copy_min_gain < in_place &&
        (!(b.pitch_copy_a || b.pitch_copy_b) || t.total_cycles < b.total_cycles)) {
      t.pitch_copy_a = ca;
      t.pitch_copy_b = cb;
      b = t;
    }
  }
}

// predict_into for the launch as the kernel runs it (the swapped kernels' transposed problem, types.hpp).
// Flattened like predict_phase (which stays a call of its own: a launch times up to two phases).
[[gnu::flatten]] void predict_into_kernel(const Problem& p, const TileConfig& c, const ModelHardware& hw,
                                          const ModelOptions& o, const KernelResources* kr, const KernelTerms& k,
                                          LatencyBreakdown& b) {
  if (o.mode == ModelMode::Seed) {
    predict_phase(p, c, hw, o, kr, k, nullptr, launch_grid(p, c), 0, 0, 0, 0.0, false, false, b);
    return;
  }
  const LaunchOperands ops = launch_operands(p, c, o, kr);
  predict_copy_plans(p, c, hw, o, kr, k, ops, false, b);
  // The twin where its best plan beats the 1-CTA kernel's by NvModelConstants::multicast_min_gain.
  if (!ops.twin) return;
  LatencyBreakdown twin;
  predict_copy_plans(p, c, hw, o, kr, k, ops, true, twin);
  if (twin.total_cycles * o.nv.multicast_min_gain < b.total_cycles) b = twin;
}
}  // namespace

bool predict_multicast_twin(const Problem& p, const TileConfig& c, const ModelHardware& hw, const ModelOptions& o,
                            const KernelResources& kr, const KernelTerms* known, LatencyBreakdown& b) {
  if (o.mode != ModelMode::Nv || c.swap_ab) return false;  // (the swapped kernels have no twin)
  const LaunchOperands ops = launch_operands(p, c, o, &kr);
  if (!ops.twin) return false;
  if (!known_terms_apply(known, p.dtype, &kr)) {
    predict_copy_plans(p, c, hw, o, &kr, kernel_terms(c, p.dtype, hw, o, &kr), ops, true, b);
  } else {
    predict_copy_plans(p, c, hw, o, &kr, *known, ops, true, b);
  }
  return true;
}

namespace {
// predict_into's launch for one copy plan: the phases, the split-K terms and the copies; multicast: the config's 2-CTA
// twin (KernelResources::multicast_layouts).
void predict_launch(const Problem& p, const TileConfig& c, const ModelHardware& hw, const ModelOptions& o,
                    const KernelResources* kr, const KernelTerms& k, const OperandCopyPlan& copies,
                    const OffLineShares& off, bool multicast, LatencyBreakdown& b) {
  b.multicast_b = multicast;
  b.off_line_share_a = off.lines_a;
  b.off_line_share_b = off.lines_b;
  b.off_sector_share_a = off.sectors_a;
  b.off_sector_share_b = off.sectors_b;
  b.pitch_copy_a = b.pitch_copy_b = false;
  const std::int64_t batch = std::max<std::int64_t>(p.batch, 1);
  const LaunchGrid g = launch_grid(p, c);
  const std::int64_t tiles_per_batch = g.grid_m * g.grid_n;
  const BlocksPerSm* bps = k.has_occupancy ? &k.occupancy : nullptr;  // (given with kr)
  const std::int64_t slots = resident_slots(c, hw, bps);
  // (make_split_plan of the same launch, from the grid already computed; k_tiles_of counts at least one k-tile)
  const SplitPlan sp = make_split_plan_of_tiles(tiles_per_batch * batch, std::max<std::int64_t>(g.k_tiles, 1),
                                                c.split_k, slots, cluster_slots_of(c, hw));
  const double bytes = dtype_bytes(p.dtype);
  // The launcher's choice of the ping-pong schedule (gemm_wgmma.cuh ping_pong_pays): the config's kernel in the
  // layout launched has one, the launch is unsplit and not the multicast twin, and every CTA (one per SM) has two or
  // more tiles.
  b.ping_pong = c.family == Family::Wgmma && o.mode == ModelMode::Nv && kr != nullptr && !copies.realign &&
                (kr->ping_pong_layouts & copies.layout) != 0 && !multicast && c.split_k <= 1 &&
                batch * tiles_per_batch >= 2 * static_cast<std::int64_t>(hw.n_sm);
  if (sp.dp_tiles > 0)
    predict_phase(p, c, hw, o, kr, k, bps, g, sp.dp_tiles, g.k_tiles, tiles_per_batch, bytes, p.bias, copies.realign,
                  b);
  if (sp.slices > 1) {
    // The split tail: S slices of each of its tiles, slice-major; units of one slice read one K range. With whole
    // tiles too, the tail is a phase of its own (a breakdown built only here: an unsplit launch, most of a
    // selection's candidates, does not construct it). Its disjoint data sets: a slice's tail tiles, and within a
    // slice each batch's (a batched tail spans batches: 256 x 1x128x2048 counted all 512 units as sharing one
    // tile's rows, an L2 hit rate of 1 and a DRAM time of 0; reports/nvidia-h100/batched.md).
    const std::int64_t tail_reuse_units = std::min(sp.tail_tiles, tiles_per_batch);
    if (sp.dp_tiles == 0) {
      predict_phase(p, c, hw, o, kr, k, bps, g, sp.tail_tiles * sp.slices, sp.k_tiles_per_slice, tail_reuse_units, 4.0,
                    false, copies.realign, b);
      split_terms(p, c, hw, o, sp, bytes, b, b);
    } else {
      LatencyBreakdown tail;
      tail.off_line_share_a = off.lines_a;
      tail.off_line_share_b = off.lines_b;
      tail.off_sector_share_a = off.sectors_a;
      tail.off_sector_share_b = off.sectors_b;
      predict_phase(p, c, hw, o, kr, k, bps, g, sp.tail_tiles * sp.slices, sp.k_tiles_per_slice, tail_reuse_units, 4.0,
                    false, copies.realign, tail);
      split_terms(p, c, hw, o, sp, bytes, tail, b);
    }
  }
  b.batch = batch;
  b.layout = layout_name(p.a_k_contiguous, p.b_k_contiguous);
  b.resident_slots = slots;
  b.split_slices = sp.slices;
  b.split_dp_tiles = sp.dp_tiles;
  b.split_tail_tiles = sp.tail_tiles;
  b.dp_cycles = sp.dp_tiles > 0 ? b.tile_cycles * double(b.num_waves) - b.epilogue_hidden_cycles : 0.0;
  operand_copies(hw, o, copies, b);
  b.total_cycles = b.dp_cycles + b.tail_cycles + b.reduction_cycles + b.operand_copy_cycles;
}
}  // namespace

namespace {
// One work unit of a phase of `units` units of `k_iters` K-iterations (predict_phase), at least (split_launch_floor,
// unsplit_launch_floor): in the waves and with the blocks per SM occupancy_and_waves gives the phase, the prologue waits a
// latency between the L2's and DRAM's (by the hit rate); each K-iteration takes at least its compute (compute_latency:
// the tensor issue or the shared-memory time, whichever is longer; the steady state is max(compute, memory) plus a
// non-negative share of the other) and its overhead; the epilogue writes (>= 0) and drains one DRAM latency (`drain`);
// the tile's setup.
struct PhaseFloor {
  double unit = 0, drain = 0;
  std::int64_t waves = 0;
};
PhaseFloor phase_floor(const TileConfig& c, const ModelHardware& hw, const NvModelConstants& nv, const KernelTerms& k,
                       std::int64_t units, std::int64_t k_iters) {
  const PhaseWaves w = phase_waves(units, static_cast<int>(hw.n_sm), std::max(k.occupancy.blocks, 1));
  const NvCompute nc = nv_compute(c, hw, nv, k, w.resident_blocks);
  const double compute = std::max(nc.compute_cycles, nc.smem_cycles);
  const double iters = double(k_iters);
  PhaseFloor f;
  f.drain = nv.epilogue_latency_factor * hw.hbm_latency_penalty;
  f.unit = nv.prologue_latency_factor * std::min(hw.l2_latency_cycles, hw.hbm_latency_penalty) + compute * iters +
           k_iter_overhead_cycles(c, nv) * iters + f.drain + nv.tile_setup_cycles;
  f.waves = w.num_waves;
  return f;
}

// split_launch_floor for the launch as the kernel runs it (the swapped kernels' tile, types.hpp), of schedule `sp`.
double split_launch_floor_kernel(const TileConfig& c, const ModelHardware& hw, const ModelOptions& o,
                                 const KernelTerms& k, const SplitPlan& sp) {
  const NvModelConstants& nv = o.nv;
  if (sp.slices <= 1) return 0.0;
  // The tail phase (predict_launch): tail_tiles x slices units of k_tiles_per_slice K-iterations.
  const PhaseFloor f = phase_floor(c, hw, nv, k, sp.tail_tiles * sp.slices, sp.k_tiles_per_slice);
  const double tail = f.unit * double(f.waves);
  // split_terms: the reduction is its bytes or round trips (>= 0) plus split_launch_cycles; in a cluster, less the
  // saving (clamped at 0), plus the distributed-shared-memory reads (>= 0).
  double reduction = split_launch_cycles(c, nv, sp.slices, tail);
  if (sp.cluster) reduction -= nv.cluster_split_saving_cycles;
  // predict_launch: total = whole tiles' phase (>= 0: the hidden epilogues are a share <= 1 of all but the last
  // wave's) + tail + reduction + operand copies (>= 0).
  return tail + reduction;
}

// The constants the floors' reasoning takes in range (split_launch_floor says which).
bool floor_constants_in_range(const NvModelConstants& nv) {
  return nv.overlap_efficiency >= 0 && nv.overlap_efficiency <= 1 && nv.wgmma_epilogue_overlap <= 1 &&
         nv.wgmma_ping_pong_epilogue_overlap <= 1 && nv.split_k_tail_overhead_fraction >= 0 &&
         nv.prologue_latency_factor >= 0;
}
}  // namespace

double split_launch_floor(const Problem& p, const TileConfig& c, const ModelHardware& hw, const ModelOptions& o,
                          const KernelTerms& k, const SplitPlan& sp) {
  const NvModelConstants& nv = o.nv;
  // The bounds above take the model's terms as non-negative, its overlaps as shares <= 1 of what they overlap, the
  // tail share as >= 0 and the prologue's latency factor as >= 0 (its latency is bounded below by the smaller of the
  // two); constants outside those ranges (a fit could move a share) bound nothing.
  if (o.mode != ModelMode::Nv || !k.has_occupancy || k.dtype != p.dtype || !floor_constants_in_range(nv)) return 0.0;
  // (predict_into: a swapped kernel runs the transposed problem with its own tile; its terms serve both)
  if (c.swap_ab) return split_launch_floor_kernel(swapped_kernel_tile(c), hw, o, k, sp);
  return split_launch_floor_kernel(c, hw, o, k, sp);
}

LaunchFloor unsplit_launch_floor(const Problem& p, const TileConfig& c, const ModelHardware& hw, const ModelOptions& o,
                                 const KernelTerms& k) {
  LaunchFloor out;
  if (o.mode != ModelMode::Nv || !k.has_occupancy || k.dtype != p.dtype || c.split_k > 1 ||
      !floor_constants_in_range(o.nv))
    return out;
  // (predict_into: a swapped kernel runs the transposed problem with its own tile; its terms serve both)
  const bool swapped = c.swap_ab;
  const TileConfig ct = swapped ? swapped_kernel_tile(c) : c;
  const LaunchGrid g = launch_grid(swapped ? swapped_problem(p) : p, ct);
  // predict_launch's schedule of the launch: every tile of every batch in one phase of every k-tile.
  out.total_tiles = g.grid_m * g.grid_n * std::max<std::int64_t>(p.batch, 1);
  out.resident_slots = resident_slots(ct, hw, &k.occupancy);
  const PhaseFloor f = phase_floor(ct, hw, o.nv, k, out.total_tiles, g.k_tiles);
  out.num_waves = f.waves;
  // total = the phase's waves of tiles less the epilogues hidden under the next wave's main loop (tile_latency: a share
  // <= 1 of the tile less its main loop, on all but the last wave), so at least its waves of units without their
  // epilogue and one whole epilogue, + operand copies (>= 0).
  out.cycles = (f.unit - f.drain) * double(f.waves) + f.drain;
  return out;
}

}  // namespace origami
