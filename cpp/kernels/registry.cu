// Registry lookups and the driver's view of a kernel's resources.
#include <algorithm>
#include <cmath>
#include <tuple>

#include "registry.hpp"
#include "row_copy.hpp"
#include "split_k.hpp"

namespace origami {
namespace detail {
std::vector<KernelEntry> build_kernel_table();  // generated: kernel_table.cpp
}

const std::vector<KernelEntry>& compiled_kernels() {
  static const std::vector<KernelEntry> table = detail::build_kernel_table();  // thread-safe static init
  return table;
}

int resident_slots(const KernelEntry& e) {
  int dev = 0, sms = 0;
  if (cudaGetDevice(&dev) != cudaSuccess || cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  if (e.config.family == Family::Wgmma) return sms;  // persistent: one CTA per SM
  const DeviceKernelResources r = query_device_resources(e);
  return r.error == cudaSuccess ? sms * r.max_active_blocks_per_sm : 0;
}

namespace {
// cudaOccupancyMaxActiveClusters for clusters of 2..kMaxClusterSlices CTAs of `e` on the current device.
ClusterSlots query_cluster_slots(const KernelEntry& e) {
  ClusterSlots cs;
  if (query_device_resources(e).error != cudaSuccess) return cs;  // also raises the kernel's smem limit
  for (int size = 2; size <= kMaxClusterSlices; ++size) {
    cudaLaunchConfig_t cfg{};
    cudaLaunchAttribute attr{};
    attr.id = cudaLaunchAttributeClusterDimension;
    attr.val.clusterDim.x = static_cast<unsigned>(size);
    attr.val.clusterDim.y = 1;
    attr.val.clusterDim.z = 1;
    cfg.gridDim = dim3(static_cast<unsigned>(size));
    cfg.blockDim = dim3(static_cast<unsigned>(e.threads));
    cfg.dynamicSmemBytes = static_cast<size_t>(e.smem_bytes);
    cfg.attrs = &attr;
    cfg.numAttrs = 1;
    int clusters = 0;
    if (cudaOccupancyMaxActiveClusters(&clusters, e.kernel, &cfg) != cudaSuccess) {
      cudaGetLastError();
      return ClusterSlots{};
    }
    cs.clusters[size] = clusters;
  }
  return cs;
}
}  // namespace

ClusterSlots cluster_slots(const KernelEntry& e) {
  int dev = 0;
  if (e.config.family != Family::Wgmma || cudaGetDevice(&dev) != cudaSuccess) {
    cudaGetLastError();
    return ClusterSlots{};
  }
  // The op asks at every new split plan (plans are cached per shape): 7 driver queries once per (device, kernel).
  return per_device_kernel_memo(dev, e, [&e] { return query_cluster_slots(e); });
}

cudaError_t launch_gemm(const KernelEntry& e, const GemmArgs& g) {
  GemmArgs args = g;
  if (args.split_k > 1 && args.split_slots <= 0) {
    args.split_slots = resident_slots(e);
    if (args.split_slots <= 0) return cudaErrorInvalidValue;
  }
  const TileConfig& c = e.config;
  // no in-cluster reduction in this family, nor for the swapped-operand kernels (it stores C as the kernel's rows)
  if (c.family != Family::Wgmma || c.swap_ab) args.cluster_slots = ClusterSlots{};
  const SplitPlan sp = split_plan(args, c.block_m, c.block_n, c.block_k);
  if (sp.workspace_elems(c.block_m, c.block_n) > 0 && args.workspace == nullptr) return cudaErrorInvalidValue;
  GemmArgs gemm = args;  // the reduction follows our GEMM: it keeps PDL whatever came before the GEMM
  gemm.programmatic_dependent_launch = args.programmatic_dependent_launch && args.overlap_previous_kernel;
  const cudaError_t err = e.launch(gemm);
  if (err != cudaSuccess || sp.slices <= 1 || sp.cluster) return err;
  return launch_split_k_reduce(args, e.dtype, c.block_m, c.block_n, c.block_k, c.swap_ab);
}

bool follows_library_kernels(cudaStream_t stream) {
  // The legacy default stream cannot be captured (cudaStreamBeginCapture refuses it): eager launches on it, torch's
  // default, ask the driver nothing.
  if (stream == nullptr || stream == cudaStreamLegacy) return true;
  cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
  const cudaGraphNode_t* deps = nullptr;
  size_t n = 0;
#if CUDART_VERSION >= 13000
  cudaError_t e = cudaStreamGetCaptureInfo(stream, &status, nullptr, nullptr, &deps, nullptr, &n);
#else
  cudaError_t e = cudaStreamGetCaptureInfo_v2(stream, &status, nullptr, nullptr, &deps, &n);
#endif
  if (e != cudaSuccess) {
    cudaGetLastError();  // not sticky: clear it so torch's next check does not see it
    return true;         // as before this rule
  }
  if (status != cudaStreamCaptureStatusActive) return true;
  if (n == 0) return false;  // the graph's first node
  static const std::vector<const void*> ours = [] {
    std::vector<const void*> v;
    for (const KernelEntry& k : compiled_kernels()) v.push_back(k.kernel);
    std::sort(v.begin(), v.end());
    return v;
  }();
  for (size_t i = 0; i < n; ++i) {
    cudaGraphNodeType type;
    cudaKernelNodeParams params{};
    if (cudaGraphNodeGetType(deps[i], &type) != cudaSuccess || type != cudaGraphNodeTypeKernel ||
        cudaGraphKernelNodeGetParams(deps[i], &params) != cudaSuccess) {
      cudaGetLastError();  // (a driver-API kernel node may not answer the runtime's query: not ours)
      return false;
    }
    if (!std::binary_search(ours.begin(), ours.end(), static_cast<const void*>(params.func)) &&
        !is_split_k_reduce_kernel(params.func) && !is_operand_copy_kernel(params.func))
      return false;
  }
  return true;
}

const KernelEntry* find_kernel(const TileConfig& c, DType dtype, bool a_k, bool b_k) {
  // The aligned 1-CTA variant: a realigning one (KernelEntry::realign) serves operands that break the 16-byte rule,
  // a multicasting one (KernelEntry::multicast) rows off lines, and only the op's plan, which knows the operands and
  // the model's plan for them, chooses those.
  for (const KernelEntry& e : compiled_kernels())
    if (e.config.same_kernel(c) && e.dtype == dtype && e.a_k_contiguous == a_k && e.b_k_contiguous == b_k &&
        !e.realign && !e.multicast)
      return &e;
  return nullptr;
}

static const char* short_dtype(DType t) {
  return t == DType::Float16 ? "fp16" : t == DType::BFloat16 ? "bf16" : t == DType::Float32 ? "fp32" : "tf32";
}

// Numbers are formatted with std::to_string, not ostreams (see cpp/ops/matmul_shapes.hpp: integer
// formatting through an ostream crashed on the GPU image).
std::string describe_kernel(const KernelEntry& e) {
  using std::to_string;
  return std::string(family_name(e.config.family)) + " " + to_string(e.config.block_m) + "x" +
         to_string(e.config.block_n) + "x" + to_string(e.config.block_k) + " s" + to_string(e.config.stages) +
         " w" + to_string(e.config.warps) + " " + short_dtype(e.dtype) + " A:" + (e.a_k_contiguous ? "K" : "M") +
         " B:" + (e.b_k_contiguous ? "K" : "N") + (e.realign ? " realign" : "") + (e.multicast ? " multicast" : "") +
         (e.config.swap_ab ? " swapped" : "");
}

std::vector<std::string> closest_compiled_configs(const TileConfig& w, DType dtype, int limit) {
  using std::to_string;
  auto lg = [](int v) { return std::log2(static_cast<double>(std::max(v, 1))); };
  std::vector<std::tuple<double, std::string>> scored;
  for (const KernelEntry& e : compiled_kernels()) {
    if (e.dtype != dtype || !e.a_k_contiguous || e.b_k_contiguous || e.realign || e.multicast) continue;  // one row per config
    const TileConfig& c = e.config;
    double d = std::fabs(lg(c.block_m) - lg(w.block_m)) + std::fabs(lg(c.block_n) - lg(w.block_n)) +
               std::fabs(lg(c.block_k) - lg(w.block_k)) + 0.1 * std::abs(c.stages - w.stages) +
               0.1 * std::fabs(lg(c.warps) - lg(w.warps)) + (c.family == w.family ? 0.0 : 0.5);
    scored.emplace_back(d, "(block_m=" + to_string(c.block_m) + ", block_n=" + to_string(c.block_n) +
                               ", block_k=" + to_string(c.block_k) + ", stages=" + to_string(c.stages) +
                               ", warps=" + to_string(c.warps) + ", family=" + family_name(c.family) + ")");
  }
  std::sort(scored.begin(), scored.end());
  std::vector<std::string> out;
  for (size_t i = 0; i < scored.size() && static_cast<int>(i) < limit; ++i) out.push_back(std::get<1>(scored[i]));
  return out;
}

DeviceKernelResources query_device_resources(const KernelEntry& e) {
  DeviceKernelResources r;
  r.entry = &e;
  cudaFuncAttributes attr{};
  r.error = cudaFuncGetAttributes(&attr, e.kernel);
  if (r.error != cudaSuccess) {
    cudaGetLastError();  // clear the sticky-free error state
    return r;
  }
  r.num_regs = attr.numRegs;
  r.local_size_bytes = static_cast<int>(attr.localSizeBytes);
  r.max_threads_per_block = attr.maxThreadsPerBlock;
  if (e.smem_bytes > 48 * 1024) {
    // Occupancy at the kernel's real dynamic shared memory needs the opt-in set first (as launch does).
    cudaError_t s = cudaFuncSetAttribute(e.kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, e.smem_bytes);
    if (s != cudaSuccess) {  // more than this device allows: it cannot launch here
      cudaGetLastError();
      r.max_dynamic_smem_bytes = attr.maxDynamicSharedSizeBytes;
      r.max_active_blocks_per_sm = 0;
      return r;
    }
    cudaFuncGetAttributes(&attr, e.kernel);
  }
  r.max_dynamic_smem_bytes = attr.maxDynamicSharedSizeBytes;
  int blocks = 0;
  r.error = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, e.kernel, e.threads, e.smem_bytes);
  if (r.error != cudaSuccess) cudaGetLastError();
  r.max_active_blocks_per_sm = blocks;
  return r;
}

}  // namespace origami
