// The registry of compiled kernels (every family): what the op can launch, with the facts the
// selector needs. The table itself is generated (cpp/kernels/generate.py -> kernel_table.cpp).
#pragma once
#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "gemm_args.hpp"

namespace origami {

// Launches a compiled kernel for g: the GEMM, and with split-K (split_plan(g, ...).slices > 1) the
// reduction of its partials into C (in the GEMM's clusters, or a second kernel: make_split_plan);
// g.cluster_slots is cleared for a family without the in-cluster reduction; g.workspace must hold
// split_k_workspace_elems(g, block_m, block_n, block_k) floats for the same g.split_slots (0: resident_slots(e) is
// used) and the same cluster_slots.
cudaError_t launch_gemm(const KernelEntry& e, const GemmArgs& g);

// CTAs of `e` resident at once on the current device (the split-K schedule's wave): SMs for the
// persistent wgmma family, SMs x the occupancy for mma_sync. 0 when the device cannot be queried.
int resident_slots(const KernelEntry& e);

// The clusters of 2..kMaxClusterSlices CTAs of `e` resident at once on the current device
// (cudaOccupancyMaxActiveClusters; the wgmma family only, all zero otherwise or when the device cannot say).
ClusterSlots cluster_slots(const KernelEntry& e);

// Every compiled kernel, in generation order. Built once, thread-safe.
const std::vector<KernelEntry>& compiled_kernels();

// Whether a GEMM launched now on `stream` should overlap the kernel before it (GemmArgs::overlap_previous_kernel).
// Outside CUDA-graph capture: yes (the stream's previous kernel cannot be seen, and following any kernel is safe:
// pdl.hpp). While the stream is captured: only when every node the launch will depend on is a kernel of this
// library (a GEMM, a split-K reduction or an operand copy), whose successors PDL serves. After another library's kernel it costs
// instead: on the H100 and the H200 (benchmarks/results/probes/probe_decode_context.py, Llama-3.2-1B decode GEMMs
// after an element-wise kernel, CUDA graphs) our GEMMs took ~0.15-0.2 us longer with the programmatic edge than
// without, the whole synthetic decode step 1-1.6 % longer.
bool follows_library_kernels(cudaStream_t stream);

// The kernel for this (tile, stages, warps, family) x dtype x operand layout, or nullptr: the aligned variant,
// never a realigning one (KernelEntry::realign; the op's plan picks those for misaligned operands).
const KernelEntry* find_kernel(const TileConfig& config, DType dtype, bool a_k_contiguous, bool b_k_contiguous);

// "mma_sync 128x128x32 s3 w8 fp16 A:K B:N" for messages ("... realign" for a realigning variant).
std::string describe_kernel(const KernelEntry& e);

// Up to `limit` compiled configs (for dtype, any layout) closest to `wanted`, as config strings,
// for "config not compiled" errors. Distance: log2 distance on block sizes, then stages/warps/family.
std::vector<std::string> closest_compiled_configs(const TileConfig& wanted, DType dtype, int limit = 5);

// Resources of one compiled kernel as the CUDA driver reports them (cudaFuncGetAttributes +
// cudaOccupancyMaxActiveBlocksPerMultiprocessor on the current device). Needs a GPU.
struct DeviceKernelResources {
  const KernelEntry* entry = nullptr;
  int num_regs = 0;
  int local_size_bytes = 0;
  int max_threads_per_block = 0;
  int max_dynamic_smem_bytes = 0;
  int max_active_blocks_per_sm = 0;  // at entry->smem_bytes dynamic shared memory (0: cannot launch)
  cudaError_t error = cudaSuccess;   // of the queries (e.g. the kernel's arch is not loadable here)
};
DeviceKernelResources query_device_resources(const KernelEntry& e);

// query() (driver calls about kernel `e` on device `dev`, whose answer does not change while the process runs) once
// per (device, kernel), a map lookup after: for the op's per-call questions. The query runs outside the lock (a racing
// twin computes the same answer). One memo per call site: each instantiation (its own Query type) has its own map.
template <class Query>
auto per_device_kernel_memo(int dev, const KernelEntry& e, Query&& query) -> decltype(query()) {
  using Answer = decltype(query());
  static std::mutex mu;
  static std::map<std::pair<int, const KernelEntry*>, Answer> known;
  const std::pair<int, const KernelEntry*> key{dev, &e};
  {
    std::lock_guard<std::mutex> lock(mu);
    const auto it = known.find(key);
    if (it != known.end()) return it->second;
  }
  Answer answer = query();
  std::lock_guard<std::mutex> lock(mu);
  return known.emplace(key, std::move(answer)).first->second;
}

}  // namespace origami
