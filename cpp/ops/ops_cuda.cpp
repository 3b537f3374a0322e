// CUDA implementation of origami_nv::matmul / matmul_config / select_config / device_kernel_resources.
//
// Layouts. Each operand is read in place when one of its two matrix strides is 1 (row- or column-major,
// i.e. plain tensors and transposed views) and the kernel's alignment holds: 16-byte aligned data
// pointer, leading dimension and batch stride multiples of KernelEntry::alignment_elems (8 elements of 16-bit
// data, 4 of fp32).
// Otherwise (other strides, an odd leading dimension such as K = 7 row-major, a misaligned slice) the
// operand is first copied into a fresh buffer whose leading dimension is padded up to 128 bytes (see
// padded_copy): one extra read+write of that operand, documented in python/origami_nv/ops.py. Except where the
// config has a realigning variant (KernelEntry::realign, alignment_elems = 1: the mma_sync `_ra` kernels of the
// small tiles), which reads 16-bit operands with any element-aligned base, leading dimension and batch stride in
// place; the plan takes it when it copies less (make_plan). ORIGAMI_NV_REALIGN=0 in the environment (read once)
// leaves the realigning variants out of the plans and the model's kernels: everything as before them (a switch
// for measuring the two paths against each other).
// A dimension of size 1 has no meaningful stride, so it never forces a copy.
#include <c10/cuda/CUDAStream.h>  // c10::cuda::getCurrentCUDAStream (= at::cuda::getCurrentCUDAStream)
#include <c10/cuda/CUDAGuard.h>
#include <ATen/MemoryOverlap.h>  // at::has_internal_overlap (an out= buffer)
#include <cuda_runtime.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>
#include <unordered_map>

#include "matmul_shapes.hpp"
#include "ops_cuda.hpp"
#include "model/hardware.hpp"
#include "registry.hpp"
#include "row_copy.hpp"
#ifdef ORIGAMI_NV_HAVE_MODEL
#include "model/selector.hpp"
#endif

namespace origami_ops {
namespace {

using origami::DType;
using origami::Family;
using origami::KernelEntry;
using origami::TileConfig;

int64_t round_up(int64_t v, int64_t a) { return (v + a - 1) / a * a; }

void check_cuda(cudaError_t e, const char* what) {
  TORCH_CHECK(e == cudaSuccess, "origami_nv: ", what, " failed: ", cudaGetErrorString(e));
}

int device_cc(int dev) {
  int major = 0, minor = 0;
  check_cuda(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev), "cudaDeviceGetAttribute");
  check_cuda(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev), "cudaDeviceGetAttribute");
  return major * 10 + minor;
}

// Can this compiled kernel run on this device at all? (architecture, opt-in shared memory)
bool runs_on(const KernelEntry& e, int cc, int smem_optin) {
  if (cc < e.min_cc) return false;
  if (e.config.family == Family::Wgmma && cc != 90) return false;  // sm_90a code runs on sm_90 only
  return e.smem_bytes <= smem_optin;
}

int smem_optin_bytes(int dev) {
  int v = 0;
  check_cuda(cudaDeviceGetAttribute(&v, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev), "cudaDeviceGetAttribute");
  return v;
}

// Does some TF32 kernel run on `dev`? (the wgmma tf32 kernels on sm_90, the mma.sync tf32 kernels from sm_80 on).
// Asked once per device.
bool tf32_kernels_on(int dev) {
  static std::atomic<signed char> known[64];  // 0 unknown, 1 yes, -1 no
  std::atomic<signed char>& k = known[dev & 63];
  signed char v = k.load(std::memory_order_relaxed);
  if (v == 0) {
    const int cc = device_cc(dev), optin = smem_optin_bytes(dev);
    v = -1;
    for (const KernelEntry& e : origami::compiled_kernels())
      if (e.dtype == DType::TFloat32 && runs_on(e, cc, optin)) v = 1;
    k.store(v, std::memory_order_relaxed);
  }
  return v > 0;
}

// The math the op runs for a tensor dtype on `dev`: float32 becomes TFloat32 (the tf32 kernels) where torch allows
// TF32 and the device has them; elsewhere (before sm_80) exact fp32 on the CUDA cores, which TF32 permits.
DType to_dtype(at::ScalarType t, int dev) {
  if (t == at::kHalf) return DType::Float16;
  if (t == at::kBFloat16) return DType::BFloat16;
  return tf32_allowed() && tf32_kernels_on(dev) ? DType::TFloat32 : DType::Float32;
}

// ---- operands --------------------------------------------------------------------------------------
// A 3-D view (batch, R, C) of an operand, as the kernel will read it.
struct Operand {
  at::Tensor keep;        // owns the storage read (the input, or a padded copy)
  const void* ptr = nullptr;
  bool first_contig = false;  // A: K-contiguous / B: K-contiguous
  int64_t ld = 0;         // stride of the non-contiguous matrix dimension
  int64_t batch_stride = 0;
  bool copied = false;
};

bool aligned_ptr(const void* p) { return (reinterpret_cast<uintptr_t>(p) & 15u) == 0; }

// ORIGAMI_NV_REALIGN=0 (read once): no realigning kernel in any plan or in the model's kernels.
bool realign_enabled() {
  static const bool on = [] {
    const char* v = std::getenv("ORIGAMI_NV_REALIGN");
    return !(v != nullptr && v[0] == '0');
  }();
  return on;
}

// ORIGAMI_NV_MULTICAST (read once): 0 = no 2-CTA multicast twin (KernelEntry::multicast) in any plan or in the model's
// kernels (a diagnostic for timing the two launches against each other; same bits either way: the twin runs the same
// tile in the same K order); 2 = every unsplit launch of a config with a twin runs the twin, an explicit config's too
// (for testing every twin through the op); unset or 1 = where the model's plan for the pick says so.
int multicast_mode() {
  static const int mode = [] {
    const char* v = std::getenv("ORIGAMI_NV_MULTICAST");
    return v == nullptr || v[0] == '\0' ? 1 : v[0] == '0' ? 0 : v[0] == '2' ? 2 : 1;
  }();
  return mode;
}
bool multicast_enabled() { return multicast_mode() != 0; }

// Whether a realigning kernel may run here: switched on, and without local memory (the register filter's rule, as
// device_resources applies it for the model; every compiled one has none: tests/test_kernels_registry.py). Asked once
// per (device, kernel): a new plan scans the variants, and the driver query is not free.
bool realign_usable(const KernelEntry& e, int dev) {
  if (!realign_enabled()) return false;
  return origami::per_device_kernel_memo(dev, e, [&e] {
    const origami::DeviceKernelResources d = origami::query_device_resources(e);  // the current device (the guard's)
    return d.error == cudaSuccess && d.local_size_bytes == 0 && d.max_active_blocks_per_sm > 0;
  });
}

// t: (batch, D0, D1). Try reading it with D1 contiguous (layout "D1"), with ld = stride of D0. align: the kernel's
// alignment_elems, which the data pointer must meet in bytes too (16 bytes for the aligned kernels, one element for
// the realigning ones).
bool try_layout(const at::Tensor& t, int d_contig, int d_lead, int64_t align, Operand& op) {
  const int64_t n_contig = t.size(d_contig), n_lead = t.size(d_lead);
  if (!(t.stride(d_contig) == 1 || n_contig == 1)) return false;
  int64_t ld = n_lead == 1 ? round_up(std::max<int64_t>(n_contig, 1), align) : t.stride(d_lead);
  if (ld % align != 0 || ld <= 0) return false;
  int64_t bs = t.size(0) == 1 ? 0 : t.stride(0);
  if (bs % align != 0) return false;
  if (reinterpret_cast<uintptr_t>(t.data_ptr()) % static_cast<uintptr_t>(align * t.element_size()) != 0) return false;
  op.keep = t;
  op.ptr = t.data_ptr();
  op.ld = ld;
  op.batch_stride = bs;
  op.copied = false;
  return true;
}

// Rows of a copied operand start on 128-byte boundaries (64 16-bit elements), not just on the kernels'
// 16-byte minimum: a TMA box row (wgmma) or a warp's cp.async row (mma_sync) that straddles two 128-byte
// lines costs a second L2 request. Measured on the H100 (n^3 fp16, row-major, in place): n = 3000 (rows of
// 6000 B) vs 3008 (6016 B = 47 x 128 B), same tiles and ragged edges: wgmma 128x256 340 vs 534 TFLOP/s,
// 128x128 287 vs 542, mma_sync 128x128 245 vs 292 (benchmarks/results/split_k_probes_h100.md, issue 13).
constexpr int64_t kCopyRowAlignElems = 64;

// The op chains its operand copies (row_copy.hpp: programmatic dependent launch into and out of the copy) only for
// problems of at most this many flops (2 x batch x M x N x K), where launch latency is a large part of the op's time.
// Measured on the H100 (fifty-seventh session, benchmarks/results/copy_chain_h100.md: vs_cublas.py sets `misaligned`
// and `odd`, every copy chained against none, alternated, same process per arm): the 10 gen-train shapes, which set the
// bound, gained 1.003-1.18x up to 10.9 GFLOP and lost 0.98x at 220 GFLOP; shapes of the other sets lost up to 0.72x
// above it (333x4096x12289: 33.5 GFLOP, a 128-CTA persistent grid of 193 K-iterations per CTA after the copy; the
// loss is not explained, like pdl.hpp's fill rule) and gained 1.01-1.20x below it but for one 0.98x.
constexpr double kCopyChainMaxFlop = 16e9;  // python/origami_nv/bench/configs.py COPY_CHAIN_MAX_FLOP: the same

// Copy t (batch, D0, D1) into a fresh buffer with dimension `d_contig` contiguous, leading dimension
// padded to a multiple of kCopyRowAlignElems (and of the kernel's `align`). `chain`: a chained copy (row_copy.hpp),
// which overlaps the kernel before it by the GEMMs' rule (follows_library_kernels) and which the GEMM after it may
// overlap.
Operand padded_copy(const at::Tensor& t, int d_contig, int64_t align, bool chain) {
  const int d_lead = d_contig == 1 ? 2 : 1;
  const int64_t B = t.size(0), n_lead = t.size(d_lead), n_contig = t.size(d_contig);
  const int64_t ld = round_up(round_up(std::max<int64_t>(n_contig, 1), align), kCopyRowAlignElems);
  at::Tensor buf = at::empty({B, n_lead, ld}, t.options());
  // A source whose copied rows are contiguous (the usual reason for the copy: an odd leading dimension or a
  // misaligned base) goes through the realigning row copy (cpp/kernels/row_copy.cu, ~2.5x torch's element-wise
  // copy there); one contiguous along the other dimension (a transposing copy) through the tiled transpose of
  // row_copy.cu; anything else (neither dimension contiguous) through torch's copy_.
  const int64_t elem = t.element_size();
  const bool rows_contiguous = t.stride(d_contig) == 1 || n_contig == 1;
  const bool transposed = !rows_contiguous && t.stride(d_lead) == 1;
  if (t.is_cuda() && (elem == 2 || elem == 4) && (rows_contiguous || transposed)) {
    const cudaStream_t stream = c10::cuda::getCurrentCUDAStream(t.get_device()).stream();
    const bool overlap = chain && origami::follows_library_kernels(stream);
    if (rows_contiguous) {
      int sms = 0;  // the row copy's grid-stride loop sizes its grid by the SMs; the transpose does not
      check_cuda(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, t.get_device()), "cudaDeviceGetAttribute");
      check_cuda(origami::launch_row_copy(t.data_ptr(), t.stride(d_lead), t.stride(0), buf.data_ptr(), ld, B, n_lead,
                                          n_contig, static_cast<int>(elem), sms, stream, chain, overlap),
                 "row copy");
    } else {
      check_cuda(origami::launch_transpose_copy(t.data_ptr(), t.stride(d_contig), t.stride(0), buf.data_ptr(), ld, B,
                                                n_lead, n_contig, static_cast<int>(elem), stream, chain, overlap),
                 "transpose copy");
    }
  } else {
    at::Tensor view = buf.narrow(2, 0, n_contig);
    view.copy_(d_contig == 2 ? t : t.transpose(1, 2));
  }
  Operand op;
  op.keep = buf;
  op.ptr = buf.data_ptr();
  op.ld = ld;
  op.batch_stride = B == 1 ? 0 : n_lead * ld;
  op.copied = true;
  return op;
}

// A is (batch, M, K): K-contiguous = dim 2 contiguous. B is (batch, K, N): K-contiguous = dim 1.
// force_layout: copy (padded_copy, `chain` as there) where the operand cannot be read in place as wanted.
Operand prepare(const at::Tensor& t, bool is_a, bool want_k_contig, bool force_layout, int64_t align, bool& ok,
                bool chain = false) {
  const int d_k = is_a ? 2 : 1;
  const int d_other = is_a ? 1 : 2;
  const int d_contig = want_k_contig ? d_k : d_other;
  const int d_lead = want_k_contig ? d_other : d_k;
  Operand op;
  ok = try_layout(t, d_contig, d_lead, align, op);
  if (!ok && force_layout) {
    op = padded_copy(t, d_contig, align, chain);
    ok = true;
  }
  op.first_contig = want_k_contig;
  return op;
}

// ---- model / selector ------------------------------------------------------------------------------
[[maybe_unused]] origami::DeviceProperties device_properties(int dev) {
  cudaDeviceProp p{};
  check_cuda(cudaGetDeviceProperties(&p, dev), "cudaGetDeviceProperties");
  auto attr = [dev](cudaDeviceAttr a) {
    int v = 0;
    check_cuda(cudaDeviceGetAttribute(&v, a, dev), "cudaDeviceGetAttribute");
    return v;
  };
  origami::DeviceProperties d;
  d.name = p.name;
  d.cc_major = p.major;
  d.cc_minor = p.minor;
  d.sm_count = p.multiProcessorCount;
  d.l2_bytes = p.l2CacheSize;
  d.smem_per_block_optin_bytes = static_cast<int>(p.sharedMemPerBlockOptin);
  d.smem_per_sm_bytes = static_cast<int>(p.sharedMemPerMultiprocessor);
  d.regs_per_sm = p.regsPerMultiprocessor;
  d.regs_per_block = p.regsPerBlock;
  d.max_threads_per_sm = p.maxThreadsPerMultiProcessor;
  d.max_blocks_per_sm = p.maxBlocksPerMultiProcessor;
  // clockRate/memoryClockRate left cudaDeviceProp in CUDA 13: ask the attributes.
  d.sm_clock_khz = attr(cudaDevAttrClockRate);
  d.mem_clock_khz = attr(cudaDevAttrMemoryClockRate);
  d.mem_bus_width_bits = attr(cudaDevAttrGlobalMemoryBusWidth);
  return d;
}

// The driver's view of the compiled kernels on `dev`, one KernelResources per (config, dtype): the worst
// (largest) value over the operand-layout variants, so any layout of a selected config is admissible.
// The driver reports local memory per thread (stack + spills) but not spills separately; it is recorded
// as spill bytes too, since these kernels have no stack frame unless they spill (see the ptxas table).
[[maybe_unused]] std::vector<origami::KernelResources> device_resources(int dev, DType dtype) {
  c10::cuda::CUDAGuard guard(static_cast<c10::DeviceIndex>(dev));
  const int cc = device_cc(dev);
  const int optin = smem_optin_bytes(dev);
  std::vector<origami::KernelResources> out;
  std::vector<std::pair<const KernelEntry*, origami::DeviceKernelResources>> realigning, twins;
  for (const KernelEntry& e : origami::compiled_kernels()) {
    if (e.dtype != dtype || !runs_on(e, cc, optin)) continue;
    if (e.realign && !realign_enabled()) continue;
    if (e.multicast && !multicast_enabled()) continue;
    origami::DeviceKernelResources d = origami::query_device_resources(e);
    if (d.error != cudaSuccess || d.max_active_blocks_per_sm == 0) continue;
    if (e.realign || e.multicast) {  // below: their layouts only, not their resources (the plan alone runs them)
      (e.realign ? realigning : twins).emplace_back(&e, d);
      continue;
    }
    origami::KernelResources* r = nullptr;
    for (auto& x : out)
      if (x.config.same_kernel(e.config)) r = &x;
    if (!r) {
      out.emplace_back();
      r = &out.back();
      r->config = e.config;
      r->config.group_size_m = 1;
      r->layouts = 0;
      r->dtype = e.dtype;
      r->threads = e.threads;
      r->smem_bytes = e.smem_bytes;
      r->arch = "sm_" + std::to_string(cc);
      r->source = "cudaFuncGetAttributes";
    }
    r->layouts |= origami::layout_bit(e.a_k_contiguous, e.b_k_contiguous);
    // The kernel's ping-pong schedule (KernelEntry::ping_pong_kernel), where its launcher may run it and it has no
    // local memory (as _kernels.py marks the build's table): the model then predicts the schedule that runs.
    if (e.ping_pong_kernel != nullptr && origami::ping_pong_enabled()) {
      cudaFuncAttributes pp{};
      if (cudaFuncGetAttributes(&pp, e.ping_pong_kernel) != cudaSuccess)
        (void)cudaGetLastError();  // not marked: the model predicts the cooperative schedule
      else if (pp.localSizeBytes == 0)
        r->ping_pong_layouts |= origami::layout_bit(e.a_k_contiguous, e.b_k_contiguous);
    }
    r->registers_per_thread = std::max(r->registers_per_thread, d.num_regs);
    r->local_bytes = std::max(r->local_bytes, d.local_size_bytes);
    r->spill_store_bytes = std::max(r->spill_store_bytes, d.local_size_bytes);
    r->spill_load_bytes = std::max(r->spill_load_bytes, d.local_size_bytes);
  }
  // A realigning kernel marks its layout in its config's record (KernelResources::realign_layouts) when it has no
  // local memory (the register filter's rule; make_plan skips such a kernel too), as _kernels.py does with the
  // build's table.
  // (A multicast twin the same way: KernelResources::multicast_layouts.)
  for (auto [variants, mask] : {std::make_pair(&realigning, &origami::KernelResources::realign_layouts),
                                std::make_pair(&twins, &origami::KernelResources::multicast_layouts)})
    for (const auto& [e, d] : *variants) {
      if (d.local_size_bytes > 0) continue;
      for (auto& x : out)
        if (x.config.same_kernel(e->config)) x.*mask |= origami::layout_bit(e->a_k_contiguous, e->b_k_contiguous);
    }
  return out;
}

#ifdef ORIGAMI_NV_HAVE_MODEL
const origami::Selector& selector_for(int dev, DType dtype) {
  static std::mutex mu;
  static std::map<std::pair<int, int>, std::unique_ptr<origami::Selector>> cache;
  std::lock_guard<std::mutex> lock(mu);
  auto key = std::make_pair(dev, static_cast<int>(dtype));
  auto it = cache.find(key);
  if (it != cache.end()) return *it->second;
  origami::DeviceProperties props = device_properties(dev);
  std::vector<origami::KernelResources> res = device_resources(dev, dtype);
  TORCH_CHECK(!res.empty(), "origami_nv: no compiled kernel for ", origami::dtype_name(dtype),
              " can run on device ", num(dev), " (", props.name, ")");
  origami::HardwareParams hw;
  try {
    hw = origami::resolve_hardware(&props);
  } catch (const std::exception& ex) {
    TORCH_CHECK(false, "origami_nv: resolving the hardware parameters of ", props.name, " failed: ", ex.what());
  }
  // ORIGAMI_NV_PITCH_COPY=0 in the environment (read once): the model without its term for rows off 128-byte lines
  // (NvModelConstants::wgmma_tma_off_line_row_cost = 0), so no operand is copied for it: the picks and launches of
  // before the term, a diagnostic for timing the two against each other.
  static const bool pitch_term = [] {
    const char* v = std::getenv("ORIGAMI_NV_PITCH_COPY");
    return !(v != nullptr && v[0] == '0');
  }();
  origami::ModelOptions options;
  if (!pitch_term) options.nv.wgmma_tma_off_line_row_cost = 0.0;
  auto sel = std::make_unique<origami::Selector>(std::move(hw), std::move(res), options);
  const origami::Selector& ref = *sel;
  cache.emplace(key, std::move(sel));
  return ref;
}
#endif

#ifdef ORIGAMI_NV_HAVE_MODEL
const origami::Selection& selection_for(int dev, const origami::Problem& p) {
  return selector_for(dev, p.dtype).select(p);
}
#endif

TileConfig select_for(int dev, const origami::Problem& p) {
#ifdef ORIGAMI_NV_HAVE_MODEL
  return selection_for(dev, p).config;
#else
  (void)dev; (void)p;
  TORCH_CHECK(false, "origami_nv.matmul: this build has no model library (cpp/model); use matmul_config");
#endif
}

// Numbers via std::to_string only (see matmul_shapes.hpp: ostream integer formatting crashed on the GPU image).
std::string config_string(const TileConfig& c) {
  return "(block_m=" + num(c.block_m) + ", block_n=" + num(c.block_n) + ", block_k=" + num(c.block_k) +
         ", group_size_m=" + num(c.group_size_m) + ", stages=" + num(c.stages) + ", warps=" + num(c.warps) +
         ", family=" + origami::family_name(c.family) +
         (c.split_k > 1 ? ", split_k=" + num(c.split_k) : std::string()) + (c.swap_ab ? ", swap_ab=True" : "") + ")";
}

// ---- the launch plan ---------------------------------------------------------------------------------
// What the op decides for one (device, dtype, shape, operand strides and alignment, requested config): the
// compiled kernel variant, which operands it copies first, and the config (with split-K). Deciding it scans
// the kernel list and, for a new shape, runs the selector; launching it is a hash lookup. Plans live in a
// per-thread table (no lock on the hot path: torch may call the op from several threads at once).
struct PlanKey {
  int dev = 0;
  int dtype = 0;
  int64_t batch = 0, M = 0, N = 0, K = 0;
  int64_t a_strides[3] = {0, 0, 0}, b_strides[3] = {0, 0, 0};  // of the 3-D views (batch, rows, cols)
  int align = 0;                     // bit 0: A's data pointer 16-byte aligned, bit 1: B's
  bool bias = false;                 // a fused bias (the model's epilogue term)
  TileConfig config;                 // the requested config (explicit); block_m == 0: the model picks
  bool operator==(const PlanKey& o) const {
    return dev == o.dev && dtype == o.dtype && batch == o.batch && M == o.M && N == o.N && K == o.K &&
           std::equal(a_strides, a_strides + 3, o.a_strides) && std::equal(b_strides, b_strides + 3, o.b_strides) &&
           align == o.align && bias == o.bias && config == o.config;
  }
};

struct PlanKeyHash {
  size_t operator()(const PlanKey& k) const {
    uint64_t h = 1469598103934665603ull;  // FNV-1a over the fields
    auto mix = [&h](int64_t v) {
      h ^= static_cast<uint64_t>(v);
      h *= 1099511628211ull;
    };
    mix(k.dev); mix(k.dtype); mix(k.batch); mix(k.M); mix(k.N); mix(k.K);
    for (int i = 0; i < 3; ++i) { mix(k.a_strides[i]); mix(k.b_strides[i]); }
    mix(k.align);
    mix(k.bias ? 1 : 0);
    mix(k.config.block_m); mix(k.config.block_n); mix(k.config.block_k); mix(k.config.group_size_m);
    mix(k.config.stages); mix(k.config.warps); mix(static_cast<int>(k.config.family)); mix(k.config.split_k);
    mix(k.config.swap_ab ? 1 : 0);
    return static_cast<size_t>(h);
  }
};

// The clusters of a kernel resident at once (make_split_plan: where a split launch's tiles fit them as one wave and
// its slices are short, they reduce in the cluster). ORIGAMI_NV_CLUSTER_SPLIT=0 in the environment (read once) makes
// every split launch use the reduction kernel: a diagnostic, for measuring the two forms against each other (same
// bits either way; the model prices the cluster form where the plan takes it). None for the swapped-operand kernels:
// their in-cluster reduction would store C^T's rows (gemm_wgmma.cuh); their slices reduce through the workspace.
origami::ClusterSlots cluster_slots_of(const KernelEntry& e) {
  static const bool allowed = [] {
    const char* v = std::getenv("ORIGAMI_NV_CLUSTER_SPLIT");
    return !(v != nullptr && v[0] == '0');
  }();
  return allowed && !e.config.swap_ab ? origami::cluster_slots(e) : origami::ClusterSlots{};
}

struct Plan {
  const KernelEntry* entry = nullptr;
  TileConfig config;          // what runs (group_size_m and split_k included)
  bool copy_a = false, copy_b = false;
  // The model's pick copies an operand that the kernel could read in place, to put its rows on 128-byte lines
  // (LatencyBreakdown::pitch_copy_a/b; NvModelConstants::wgmma_tma_off_line_row_cost).
  bool pitch_copy_a = false, pitch_copy_b = false;
  int64_t workspace_elems = 0;  // split-K fp32 workspace (0: none)
  int64_t split_slots = 0;      // the split-K schedule's wave (resident_slots of the kernel)
  origami::ClusterSlots cluster_slots;  // cluster_slots_of the kernel (split launches only)
  bool pdl_capable = false;   // compute capability >= 9.0
};

// The problem as the kernels will see it: layout and alignment from the operands' strides and pointers.
origami::Problem problem_of(const at::Tensor& a3, const at::Tensor& b3, const MatmulShape& s, DType dtype, bool bias) {
  origami::Problem p;
  p.M = s.M; p.N = s.N; p.K = s.K; p.batch = s.batch; p.dtype = dtype; p.bias = bias;
  bool ok = false;
  // KernelEntry::alignment_elems of every family: 16-byte chunks (8 elements of 16-bit data, 4 of fp32).
  const int64_t kAlign = 16 / origami::dtype_bytes(dtype);
  Operand probe;
  if (try_layout(a3, 2, 1, kAlign, probe)) { p.a_k_contiguous = true; ok = true; }
  else if (try_layout(a3, 1, 2, kAlign, probe)) { p.a_k_contiguous = false; ok = true; }
  if (ok) p.a_ld = probe.ld;  // the pitch of its rows (the model's rows off 128-byte lines)
  // A misaligned operand is copied whatever the kernel: its layout is the dimension of unit stride, the one a copy
  // into a kernel that reads that layout keeps (streamed rows; any other copy is a gather).
  if (!ok) p.a_k_contiguous = !(a3.stride(1) == 1 && a3.size(1) > 1 && a3.stride(2) != 1);
  p.a_aligned = ok;
  ok = false;
  if (try_layout(b3, 2, 1, kAlign, probe)) { p.b_k_contiguous = false; ok = true; }   // B (K, N): N contiguous
  else if (try_layout(b3, 1, 2, kAlign, probe)) { p.b_k_contiguous = true; ok = true; }
  if (ok) p.b_ld = probe.ld;
  if (!ok) p.b_k_contiguous = b3.stride(1) == 1 && b3.size(1) > 1 && b3.stride(2) != 1;
  p.b_aligned = ok;
  return p;
}

Plan make_plan(const PlanKey& key, const at::Tensor& a3, const at::Tensor& b3, const MatmulShape& s,
               const TileConfig* explicit_config, const char* op) {
  const int dev = key.dev;
  const DType dtype = static_cast<DType>(key.dtype);
  const int cc = device_cc(dev);
  TORCH_CHECK(cc >= 80, op, ": needs a GPU of compute capability 8.0 or newer, device ", num(dev), " is ",
              num(cc / 10), ".", num(cc % 10));
  const int optin = smem_optin_bytes(dev);
  Plan plan;
  plan.pdl_capable = cc >= 90;
#ifdef ORIGAMI_NV_HAVE_MODEL
  bool pitch_a = false, pitch_b = false, multicast = false;
  if (explicit_config) {
    plan.config = *explicit_config;
  } else {
    const origami::Selection& sel = selection_for(dev, problem_of(a3, b3, s, dtype, key.bias));
    plan.config = sel.config;
    pitch_a = sel.final_breakdown.pitch_copy_a;
    pitch_b = sel.final_breakdown.pitch_copy_b;
    multicast = sel.final_breakdown.multicast_b;
  }
#else
  plan.config = explicit_config ? *explicit_config : select_for(dev, problem_of(a3, b3, s, dtype, key.bias));
#endif
  const TileConfig& cfg = plan.config;

  // Every compiled layout variant of this config that runs here (the realigning ones unless switched off, and only
  // where they run without local memory: the model's rule, device_resources).
  std::vector<const KernelEntry*> variants;
  for (const KernelEntry& e : origami::compiled_kernels())
    if (e.config.same_kernel(cfg) && e.dtype == dtype && runs_on(e, cc, optin)) {
      if (e.realign && !realign_usable(e, dev)) continue;
      if (e.multicast) continue;  // below: the chosen variant's twin, where the model's plan says so
      variants.push_back(&e);
    }
  if (variants.empty()) {
    bool compiled = false;
    for (const KernelEntry& e : origami::compiled_kernels())
      if (e.config.same_kernel(cfg) && e.dtype == dtype) compiled = true;
    std::string msg = std::string(op) + ": config " + config_string(cfg);
    if (compiled) {
      msg += " is compiled but cannot run on device " + num(dev) + " (compute capability " + num(cc) + ", " +
             num(optin) + " B opt-in shared memory)";
    } else {
      msg += std::string(" is not compiled for ") + origami::dtype_name(dtype);
      // float32 tensors run as float32 (exact) or tfloat32 (TF32 allowed): name the switch when the other has it.
      if (dtype == DType::Float32 || dtype == DType::TFloat32) {
        const DType other = dtype == DType::Float32 ? DType::TFloat32 : DType::Float32;
        for (const KernelEntry& e : origami::compiled_kernels())
          if (e.config.same_kernel(cfg) && e.dtype == other) {
            msg += std::string(" (it is compiled for ") + origami::dtype_name(other) +
                   ": float32 tensors run it when torch's float32 matmul precision " +
                   (other == DType::TFloat32 ? "allows TF32, e.g. torch.backends.cuda.matmul.allow_tf32 = True)"
                                             : "is \"highest\" (TF32 off))");
            break;
          }
      }
      msg += ". Closest compiled configs: ";
      for (const std::string& c : origami::closest_compiled_configs(cfg, dtype)) msg += c + "; ";
      msg += "see origami_nv.kernels() for the full list";
    }
    TORCH_CHECK(false, msg);
  }
  // The variant that reads both operands in place; else the one whose copies cost least (e.g. A and B both
  // column-major: the M-contiguous-A x K-contiguous-B mma_sync variant is not compiled, so the smaller of
  // the two operands is copied to the layout of a compiled variant). A copy that keeps the operand's
  // contiguous dimension streams rows; one that transposes it counts origami::kTransposingCopyFactor times its
  // elements (cpp/model/types.hpp has the measurement, taken on the strided gather the tiled transpose replaced, and
  // the tiled transpose's own; the model charges the same: operand_copies in cpp/model/model.cpp).
  auto copy_cost = [](const at::Tensor& t, bool is_a, bool want_k_contig) -> int64_t {
    const int d_contig = want_k_contig ? (is_a ? 2 : 1) : (is_a ? 1 : 2);
    const bool keeps = t.stride(d_contig) == 1 || t.size(d_contig) == 1;
    return keeps ? t.numel() : static_cast<int64_t>(static_cast<double>(t.numel()) * origami::kTransposingCopyFactor);
  };
  // A realigning variant (alignment_elems 1) reads a misaligned operand in place, so it wins where an aligned
  // variant would copy; on a tie of copy cost the aligned variant runs (an aligned problem never runs a realigning
  // kernel: those load through registers, the aligned ones by cp.async).
  int64_t best_copy_elems = -1;
  bool best_realign = false;
  // TF32 with B row-major: the swapped kernel only up to origami::kSwappedTf32MaxM rows (types.hpp; the model's
  // copy plan follows the same rule); above it B is copied into the K-major layout. ORIGAMI_NV_SWAPPED_TF32_MAX_M
  // in the environment (read once) moves the bound for the op alone: a diagnostic for timing the two paths
  // against each other at one size (the model keeps the constant).
  static const int64_t swapped_max_m = [] {
    const char* v = std::getenv("ORIGAMI_NV_SWAPPED_TF32_MAX_M");
    return v != nullptr && v[0] != '\0' ? std::strtoll(v, nullptr, 10) : origami::kSwappedTf32MaxM;
  }();
  const bool skip_swapped = dtype == DType::TFloat32 && a3.size(1) > swapped_max_m &&
                            std::any_of(variants.begin(), variants.end(),
                                        [](const KernelEntry* e) { return e->b_k_contiguous; });
  for (const KernelEntry* e : variants) {
    if (skip_swapped && !e->b_k_contiguous) continue;
    bool ok_a = false, ok_b = false;
    prepare(a3, true, e->a_k_contiguous, false, e->alignment_elems, ok_a);
    prepare(b3, false, e->b_k_contiguous, false, e->alignment_elems, ok_b);
    const int64_t copy_elems = (ok_a ? 0 : copy_cost(a3, true, e->a_k_contiguous)) +
                               (ok_b ? 0 : copy_cost(b3, false, e->b_k_contiguous));
    if (best_copy_elems < 0 || copy_elems < best_copy_elems ||
        (copy_elems == best_copy_elems && best_realign && !e->realign)) {
      best_copy_elems = copy_elems;
      best_realign = e->realign;
      plan.entry = e;
      plan.copy_a = !ok_a;
      plan.copy_b = !ok_b;
    }
  }
#ifdef ORIGAMI_NV_HAVE_MODEL
  // (an operand the chosen variant copies anyway already gets rows on lines)
  plan.pitch_copy_a = pitch_a && !plan.copy_a;
  plan.pitch_copy_b = pitch_b && !plan.copy_b;
  // The chosen variant's 2-CTA multicast twin (same config, dtype and layouts; KernelEntry::multicast) where the
  // model's plan for the pick launches it (LatencyBreakdown::multicast_b: the model saw the same twins,
  // device_resources). The twins have no split-K and no realigning form; a plan without the twin keeps the variant.
  if ((multicast || multicast_mode() == 2) && multicast_enabled() && cfg.split_k <= 1 && !plan.entry->realign) {
    for (const KernelEntry& e : origami::compiled_kernels())
      if (e.multicast && e.config.same_kernel(cfg) && e.dtype == dtype && runs_on(e, cc, optin) &&
          e.a_k_contiguous == plan.entry->a_k_contiguous && e.b_k_contiguous == plan.entry->b_k_contiguous &&
          e.alignment_elems == plan.entry->alignment_elems) {
        plan.entry = &e;
        break;
      }
  }
#endif
  if (cfg.split_k > 1) {
    plan.split_slots = origami::resident_slots(*plan.entry);
    TORCH_CHECK(plan.split_slots > 0, op, ": could not query the occupancy of ", origami::describe_kernel(*plan.entry),
                " for its split-K schedule");
    origami::GemmArgs g;
    g.M = s.M; g.N = s.N; g.K = s.K; g.batch = s.batch; g.split_k = cfg.split_k; g.split_slots = plan.split_slots;
    plan.cluster_slots = cluster_slots_of(*plan.entry);
    g.cluster_slots = plan.cluster_slots;
    const TileConfig& k = plan.entry->config;
    plan.workspace_elems = origami::split_k_workspace_elems(g, k.block_m, k.block_n, k.block_k);
  }
  return plan;
}

// Plans of this thread. Bounded: a process that sees ever new shapes (dynamic shapes) starts over rather
// than growing without limit; a re-plan costs one selection (cached in the selector) and a kernel-list scan.
const Plan& plan_for(const PlanKey& key, const at::Tensor& a3, const at::Tensor& b3, const MatmulShape& s,
                     const TileConfig* explicit_config, const char* op) {
  thread_local std::unordered_map<PlanKey, Plan, PlanKeyHash> plans;
  auto it = plans.find(key);
  if (it != plans.end()) return it->second;
  Plan plan = make_plan(key, a3, b3, s, explicit_config, op);  // may throw: nothing is cached then
  if (plans.size() >= 4096) plans.clear();
  return plans.emplace(key, plan).first->second;
}

// ---- the launch --------------------------------------------------------------------------------------
// Whether the kernels can write C straight into `out` (the out= forms), and with which row and batch strides: rows
// of N contiguous elements; rows, and batches, that do not interleave (the dims ordered by stride, each past the
// extent of the one below it: a (heads, tokens, head_dim) result stored tokens-major qualifies); a 16-byte aligned
// base and row / batch strides of whole 16-byte units (what the families' vector and TMA stores take for granted,
// gemm_args.hpp; each kernel checks its own finer rules). A contiguous out is written as a fresh result is (the
// kernels choose their store path from ldc = N); a folded N-D result (N-D @ 2-D) only where contiguous.
bool c_strides_in_place(const at::Tensor& out, const MatmulShape& s, int64_t& ldc, int64_t& batch_stride) {
  if (reinterpret_cast<uintptr_t>(out.data_ptr()) % 16 != 0) return false;
  if (out.is_contiguous()) {
    ldc = s.N;
    batch_stride = s.M * s.N;
    return true;
  }
  const int64_t d = out.dim();
  if (!(d == 2 || (d == 3 && s.batched))) return false;
  const int64_t unit = 16 / static_cast<int64_t>(out.element_size());
  if (s.N > 1 && out.stride(d - 1) != 1) return false;
  // A dimension of size 1 has no stride of consequence: give it one that keeps the others' rules.
  const int64_t row_span = round_up(s.N, unit);
  ldc = s.M > 1 ? out.stride(d - 2) : row_span;
  batch_stride = (d == 3 && s.batch > 1) ? out.stride(0) : ldc * s.M;
  if (ldc % unit != 0 || batch_stride % unit != 0) return false;
  if (s.M > 1 && ldc < s.N) return false;
  if (s.batch > 1) {
    const bool batches_after = batch_stride >= (s.M - 1) * ldc + s.N;        // each batch's rows, then the next
    const bool rows_after = batch_stride >= s.N && ldc >= (s.batch - 1) * batch_stride + s.N;  // interleaved
    if (!batches_after && !rows_after) return false;
  }
  return true;
}

// out: where C goes (the dispatcher path's out= forms, aten_route.cpp): the call's result shape and dtype on a's device,
// no element repeated, any strides (written in place where c_strides_in_place says so, else copied in); nullptr: a
// new tensor.
at::Tensor run(const at::Tensor& a_in, const at::Tensor& b_in, const at::Tensor* bias_in,
               const TileConfig* explicit_config, const char* op, const at::Tensor* out = nullptr) {
  // A negative-bit view (torch._neg_view, the conjugate/negation views autograd makes) has storage that holds
  // the negated values: the kernels read raw storage, so it is materialised first (a copy, as torch does).
  const at::Tensor a = a_in.is_neg() ? a_in.resolve_neg() : a_in;
  const at::Tensor b = b_in.is_neg() ? b_in.resolve_neg() : b_in;
  at::Tensor bias_resolved;
  const at::Tensor* bias = bias_in;
  if (bias_in && bias_in->is_neg()) {
    bias_resolved = bias_in->resolve_neg();
    bias = &bias_resolved;
  }
  const MatmulShape s = check_and_shape(a, b, op);
  if (bias) check_bias(*bias, a, s, op);
  TORCH_CHECK(a.is_cuda(), op, ": expected CUDA tensors");
  c10::cuda::CUDAGuard guard(a.device());
  if (out) {
    TORCH_CHECK(out->sizes() == at::IntArrayRef(s.out_sizes) && out->scalar_type() == a.scalar_type() &&
                    out->device() == a.device() && at::has_internal_overlap(*out) != at::MemOverlap::Yes,
                op, ": out must be a ", a.scalar_type(), " tensor of the result's shape on ", a.device(),
                " with no element repeated");
    if (s.M == 0 || s.N == 0 || s.batch == 0) return *out;
    if (s.K == 0) return bias ? out->copy_(bias->expand(s.out_sizes)) : out->zero_();
  }
  if (s.M == 0 || s.N == 0 || s.batch == 0) return at::empty(s.out_sizes, a.options());
  if (s.K == 0) return bias ? bias->expand(s.out_sizes).clone(at::MemoryFormat::Contiguous)
                            : at::zeros(s.out_sizes, a.options());
  TORCH_CHECK(s.M <= INT32_MAX && s.N <= INT32_MAX && s.K <= INT32_MAX, op, ": M, N, K must each be < 2^31, got M=",
              num(s.M), " N=", num(s.N), " K=", num(s.K));
  if (explicit_config) {
    TORCH_CHECK(explicit_config->split_k >= 1, op, ": split_k must be >= 1, got ", num(explicit_config->split_k));
  }

  const at::Tensor a3 = a_as_3d(a, s);
  const at::Tensor b3 = b_as_3d(b, s);
  PlanKey key;
  key.dev = a.get_device();
  key.dtype = static_cast<int>(to_dtype(a.scalar_type(), key.dev));
  key.batch = s.batch; key.M = s.M; key.N = s.N; key.K = s.K;
  for (int i = 0; i < 3; ++i) {
    key.a_strides[i] = a3.stride(i);
    key.b_strides[i] = b3.stride(i);
  }
  key.align = (aligned_ptr(a3.data_ptr()) ? 1 : 0) | (aligned_ptr(b3.data_ptr()) ? 2 : 0);
  key.bias = bias != nullptr;
  if (explicit_config) key.config = *explicit_config;
  const Plan& plan = plan_for(key, a3, b3, s, explicit_config, op);
  const KernelEntry* chosen = plan.entry;

  // The plan was made for these strides and alignment, so an operand it reads in place still reads in place.
  // An operand the model copies to put its rows on 128-byte lines (Plan::pitch_copy_a/b) goes through the same
  // padded copy as a misaligned one.
  bool ok = false;
  const bool pdl = plan.pdl_capable && programmatic_dependent_launch_enabled();
  const bool chain = pdl && 2.0 * static_cast<double>(s.batch) * static_cast<double>(s.M) * static_cast<double>(s.N) *
                                    static_cast<double>(s.K) <= kCopyChainMaxFlop;
  Operand A = plan.pitch_copy_a ? padded_copy(a3, chosen->a_k_contiguous ? 2 : 1, chosen->alignment_elems, chain)
                                : prepare(a3, true, chosen->a_k_contiguous, true, chosen->alignment_elems, ok, chain);
  Operand B = plan.pitch_copy_b ? padded_copy(b3, chosen->b_k_contiguous ? 1 : 2, chosen->alignment_elems, chain)
                                : prepare(b3, false, chosen->b_k_contiguous, true, chosen->alignment_elems, ok, chain);
  A.first_contig = chosen->a_k_contiguous;
  B.first_contig = chosen->b_k_contiguous;

  // C: into out where its strides are ones the kernels write (c_strides_in_place), else a fresh contiguous result
  // (batch x M rows of N) copied into out after the launch.
  int64_t ldc = s.N, c_batch_stride = s.M * s.N;
  const bool in_place = out && c_strides_in_place(*out, s, ldc, c_batch_stride);
  at::Tensor c = in_place ? *out : at::empty(s.out_sizes, a.options());
  if (out && !in_place) { ldc = s.N; c_batch_stride = s.M * s.N; }
  // Split-K partials: from the caching allocator on the current stream (graph-capture safe, no sync).
  at::Tensor workspace;
  if (plan.workspace_elems > 0) workspace = at::empty({plan.workspace_elems}, a.options().dtype(at::kFloat));
  origami::GemmArgs g;
  g.a = A.ptr;
  g.b = B.ptr;
  g.c = c.data_ptr();
  g.M = s.M; g.N = s.N; g.K = s.K;
  g.batch = s.batch;
  if (A.first_contig) { g.a_stride_k = 1; g.a_stride_m = A.ld; } else { g.a_stride_m = 1; g.a_stride_k = A.ld; }
  if (B.first_contig) { g.b_stride_k = 1; g.b_stride_n = B.ld; } else { g.b_stride_n = 1; g.b_stride_k = B.ld; }
  g.a_stride_batch = A.batch_stride;
  g.b_stride_batch = B.batch_stride;
  g.c_stride_m = ldc;
  g.c_stride_batch = c_batch_stride;
  g.group_size_m = plan.config.group_size_m;
  g.split_k = plan.config.split_k;
  g.split_slots = plan.split_slots;
  g.cluster_slots = plan.cluster_slots;
  g.workspace = plan.workspace_elems > 0 ? workspace.data_ptr<float>() : nullptr;
  at::Tensor bias_c;
  if (bias) {
    bias_c = bias->contiguous();
    g.bias = bias_c.data_ptr();
  }
  g.stream = c10::cuda::getCurrentCUDAStream(static_cast<c10::DeviceIndex>(key.dev)).stream();
  g.programmatic_dependent_launch = pdl;
  // (while a CUDA graph is captured: only after one of our kernels; registry.hpp says why)
  g.overlap_previous_kernel = g.programmatic_dependent_launch && origami::follows_library_kernels(g.stream);
  const cudaError_t err = origami::launch_gemm(*chosen, g);
  if (err == cudaSuccess) count_gemm_launch(g.overlap_previous_kernel);
  TORCH_CHECK(err == cudaSuccess, op, ": launching ", origami::describe_kernel(*chosen),
              plan.config.split_k > 1 ? " (split-K " + num(plan.config.split_k) + ")" : std::string(), " failed: ",
              cudaGetErrorString(err));
  if (out && !in_place) out->copy_(c);
  return out ? *out : c;
}

}  // namespace

bool op_runs_on_cuda(int dev, at::ScalarType t) {
#ifdef ORIGAMI_NV_HAVE_MODEL
  if (dev < 0 || dev >= 64 || (t != at::kHalf && t != at::kBFloat16 && t != at::kFloat)) return false;
  const DType d = to_dtype(t, dev);  // float32: TF32 or exact, as a call now would run it
  static std::atomic<signed char> known[64][4];  // [device][DType]: 0 unknown, 1 yes, -1 no
  std::atomic<signed char>& k = known[dev][static_cast<int>(d) & 3];
  signed char v = k.load(std::memory_order_relaxed);
  if (v == 0) {
    const int cc = device_cc(dev), optin = smem_optin_bytes(dev);
    v = -1;
    for (const KernelEntry& e : origami::compiled_kernels())
      if (e.dtype == d && runs_on(e, cc, optin)) v = 1;
    k.store(v, std::memory_order_relaxed);
  }
  return v > 0;
#else
  (void)dev; (void)t;
  return false;  // no model library: the op selects nothing (matmul_config only)
#endif
}

at::Tensor matmul_cuda(const at::Tensor& a, const at::Tensor& b) {
  return run(a, b, nullptr, nullptr, "origami_nv.matmul");
}

at::Tensor matmul_bias_cuda(const at::Tensor& a, const at::Tensor& b, const at::Tensor& bias) {
  return run(a, b, &bias, nullptr, "origami_nv.matmul_bias");
}

void matmul_cuda_into(const at::Tensor& a, const at::Tensor& b, const at::Tensor* bias, const at::Tensor& out) {
  run(a, b, bias, nullptr, bias ? "origami_nv.matmul_bias" : "origami_nv.matmul", &out);
}

at::Tensor matmul_config_cuda(const at::Tensor& a, const at::Tensor& b, int64_t block_m, int64_t block_n,
                              int64_t block_k, int64_t group_size_m, int64_t stages, int64_t warps, int64_t family,
                              int64_t split_k, const std::optional<at::Tensor>& bias, bool swap_ab) {
  check_config_args(block_m, block_n, block_k, group_size_m, stages, warps, family, split_k, swap_ab);
  TileConfig c;
  c.block_m = static_cast<int>(block_m);
  c.block_n = static_cast<int>(block_n);
  c.block_k = static_cast<int>(block_k);
  c.group_size_m = static_cast<int>(group_size_m);
  c.stages = static_cast<int>(stages);
  c.warps = static_cast<int>(warps);
  c.family = static_cast<Family>(family);  // check_config_args: 0, 1 or 2
  c.split_k = static_cast<int>(split_k);
  c.swap_ab = swap_ab;
  return run(a, b, bias.has_value() ? &*bias : nullptr, &c, "origami_nv.matmul_config");
}

std::vector<int64_t> select_config_cuda(int64_t M, int64_t N, int64_t K, const std::string& dtype, int64_t batch,
                                        const std::string& layout, bool bias, bool a_aligned, bool b_aligned) {
  const origami::Problem p = problem_from_args(M, N, K, dtype, batch, layout, bias, a_aligned, b_aligned);
  int dev = 0;
  check_cuda(cudaGetDevice(&dev), "cudaGetDevice");
  const TileConfig c = select_for(dev, p);
  return {c.block_m, c.block_n, c.block_k, c.group_size_m, c.stages, c.warps, static_cast<int64_t>(c.family),
          c.split_k, c.swap_ab ? 1 : 0};
}

// [clusters of 2, 3, ..., kMaxClusterSlices CTAs resident at once] (all 0 for families without clusters).
static std::string cluster_slots_json(const origami::ClusterSlots& cs) {
  std::string j = "[";
  for (int size = 2; size <= origami::kMaxClusterSlices; ++size)
    j += (size > 2 ? ", " : "") + num(cs.clusters[size]);
  return j + "]";
}

std::string device_kernel_resources_cuda() {
  int dev = 0;
  check_cuda(cudaGetDevice(&dev), "cudaGetDevice");
  const int cc = device_cc(dev);
  auto b = [](bool v) { return std::string(v ? "true" : "false"); };
  std::string j = "{\"device\": " + num(dev) + ", \"arch\": \"sm_" + num(cc) + "\", \"kernels\": [";
  bool first = true;
  for (const KernelEntry& e : origami::compiled_kernels()) {
    origami::DeviceKernelResources d;
    if (cc >= e.min_cc && !(e.config.family == Family::Wgmma && cc != 90)) {
      d = origami::query_device_resources(e);
    } else {
      d.error = cudaErrorNoKernelImageForDevice;
    }
    if (!first) j += ", ";
    first = false;
    j += std::string("{\"name\": \"") + e.name + "\", \"family\": \"" +
         origami::family_name(e.config.family) + "\", \"config\": {\"block_m\": " +
         num(e.config.block_m) + ", \"block_n\": " + num(e.config.block_n) + ", \"block_k\": " +
         num(e.config.block_k) + ", \"stages\": " + num(e.config.stages) + ", \"warps\": " + num(e.config.warps) +
         (e.config.swap_ab ? ", \"swap_ab\": true" : "") + "}, \"dtype\": \"" + origami::dtype_name(e.dtype) + "\", \"a_k_contiguous\": " + b(e.a_k_contiguous) +
         ", \"b_k_contiguous\": " + b(e.b_k_contiguous) + ", \"realign\": " + b(e.realign) +
         ", \"multicast\": " + b(e.multicast) + ", \"ping_pong\": " + b(e.ping_pong_kernel != nullptr) +
         ", \"alignment_elems\": " + num(e.alignment_elems) + ", \"threads\": " + num(e.threads) +
         ", \"smem_bytes\": " + num(e.smem_bytes) + ", \"num_regs\": " + num(d.num_regs) +
         ", \"local_size_bytes\": " + num(d.local_size_bytes) + ", \"max_threads_per_block\": " +
         num(d.max_threads_per_block) + ", \"max_dynamic_smem_bytes\": " + num(d.max_dynamic_smem_bytes) +
         ", \"max_active_blocks_per_sm\": " + num(d.max_active_blocks_per_sm) + ", \"cluster_slots\": " +
         cluster_slots_json(d.error == cudaSuccess ? origami::cluster_slots(e) : origami::ClusterSlots{}) +
         ", \"error\": " +
         (d.error == cudaSuccess ? std::string("null") : "\"" + std::string(cudaGetErrorString(d.error)) + "\"") +
         ", \"source\": \"cudaFuncGetAttributes\"}";
  }
  return j + "]}";
}

}  // namespace origami_ops
