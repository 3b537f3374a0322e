// The switch's dispatcher path (origami_nv.enable(dispatcher=True), python/origami_nv/_dispatch.py): torch's own
// aten::mm, aten::bmm and aten::addmm kernels at the CPU and CUDA dispatch keys are replaced by ones that run
// origami_nv's op where it computes the call with torch's meaning, and call torch's kernel otherwise (at::cuda::mm,
// at::cpu::mm, ...: the kernel itself, not the dispatcher, so there is no recursion and nothing else changes).
//
// Why: the TorchFunctionMode switch runs Python for every torch call of its thread, matmul or not; in an eager
// decode step that is most of the step (H200, Llama-3.2-1B eager decode through the mode 0.77 of cuBLAS, 1.02 with
// the modules swapped: benchmarks/results/e2e_llama_h200_session16/). Here no Python runs per call, and only the three
// GEMM ops pay a branch. What reaches these kernels: torch.mm/bmm/addmm, @ / torch.matmul (which fold into mm or
// bmm), F.linear and nn.Linear (addmm with a bias, matmul without), in eager mode, in CUDA graphs and in autograd's
// backward (the derivatives of mm are mm calls). Their out= forms (aten::mm.out, bmm.out, addmm.out) too: the GEMMs
// torch.compile's generated code leaves to torch (Inductor's extern kernels: `extern_kernels.mm(a, b, out=buf)`) reach
// the op through them, written into Inductor's buffer where it is contiguous and of the result's shape and dtype
// (otherwise, or where it overlaps an operand, torch's out= kernel). GEMMs Inductor writes itself (its Triton or C++
// templates under max-autotune) stay its own.
//
// Routed: both operands plain strided tensors (no negative or conjugate bit) of one dtype the op computes (fp16, bf16;
// fp32 on CUDA, where the op follows torch's float32 matmul precision), M, N, K in 1 .. 2^31 - 1; addmm with beta = alpha
// = 1 and a bias of N elements (1-D, or (1, N)) of the same dtype, fused in the kernel's epilogue. Everything else
// (other dtypes, alpha/beta, a full (M, N) input, empty dimensions) calls torch's kernel. Results: the op's contract
// (fp32 accumulation, one rounding to the dtype), deterministic.
//
// The replacement kernels are registered once, at the first enable, with torch's "overriding a previously registered
// kernel" warnings silenced (they are the point); while routing is off they call torch's kernel directly. The setting
// is process-wide (an autograd backward runs on another thread), unlike the mode, which is per thread.
#include <torch/library.h>
#include <ATen/ATen.h>
#include <ATen/ops/addmm_cpu_dispatch.h>
#include <ATen/ops/bmm_cpu_dispatch.h>
#include <ATen/ops/mm_cpu_dispatch.h>
#include <ATen/MemoryOverlap.h>
#include <c10/util/Exception.h>

#include <atomic>
#include <climits>
#include <mutex>

#include "matmul_shapes.hpp"

#ifdef ORIGAMI_NV_TORCH_CUDA
#include <ATen/ops/addmm_cuda_dispatch.h>
#include <ATen/ops/bmm_cuda_dispatch.h>
#include <ATen/ops/mm_cuda_dispatch.h>

#include "ops_cuda.hpp"
#endif

namespace origami_ops {
at::Tensor matmul_cpu_routed(const at::Tensor& a, const at::Tensor& b);                           // ops.cpp
at::Tensor matmul_bias_cpu_routed(const at::Tensor& a, const at::Tensor& b, const at::Tensor& bias);  // ops.cpp

namespace {
enum DeviceBit : int { kCpuBit = 1, kCudaBit = 2 };
std::atomic<int> g_devices{0};

// Per op: [routed, fell back] while routing was on for the call's device (the order of aten_route_counts()).
enum Op : int { kMm = 0, kBmm = 1, kAddmm = 2, kMmOut = 3, kBmmOut = 4, kAddmmOut = 5, kOps = 6 };
std::atomic<int64_t> g_counts[kOps][2];

// A routed call that reaches one of these kernels again goes to torch (defensive: the op calls no GEMM through the
// dispatcher; its CPU implementation calls torch's CPU bmm kernel directly).
thread_local int t_inside = 0;
struct Inside {
  Inside() { ++t_inside; }
  ~Inside() { --t_inside; }
};

bool on_for(const at::Tensor& t) {
  const int bit = t.is_cuda() ? kCudaBit : t.is_cpu() ? kCpuBit : 0;
  return t_inside == 0 && (g_devices.load(std::memory_order_relaxed) & bit) != 0;
}

bool plain(const at::Tensor& t) { return t.layout() == at::kStrided && !t.is_neg() && !t.is_conj(); }

bool dtype_routed(const at::Tensor& t) {
  const at::ScalarType s = t.scalar_type();
  // The op's dtypes (matmul_shapes.hpp); on the CPU 16-bit only (for fp32 the CPU op is torch's own fp32 kernel).
  return dtype_supported(s) && (t.is_cuda() || s != at::kFloat);
}

bool extent_ok(int64_t v) { return v >= 1 && v <= INT_MAX; }

// a (.., M, K) @ b (.., K, N) of `dims` dimensions with equal leading extents: the op computes it.
bool routable(const at::Tensor& a, const at::Tensor& b, int64_t dims) {
  if (a.dim() != dims || b.dim() != dims || !plain(a) || !plain(b)) return false;
  if (a.scalar_type() != b.scalar_type() || a.device() != b.device() || !dtype_routed(a)) return false;
  if (dims == 3 && (a.size(0) != b.size(0) || !extent_ok(a.size(0)))) return false;
#ifdef ORIGAMI_NV_TORCH_CUDA
  if (a.is_cuda() && !op_runs_on_cuda(a.get_device(), a.scalar_type())) return false;  // e.g. before sm_80
#endif
  return a.size(-1) == b.size(-2) && extent_ok(a.size(-2)) && extent_ok(a.size(-1)) && extent_ok(b.size(-1));
}

void count(Op op, bool routed) { g_counts[op][routed ? 0 : 1].fetch_add(1, std::memory_order_relaxed); }

// The op on a's device, with the bias fused where given.
at::Tensor run_op(const at::Tensor& a, const at::Tensor& b, const at::Tensor* bias = nullptr) {
  Inside inside;
#ifdef ORIGAMI_NV_TORCH_CUDA
  if (a.is_cuda()) return bias ? matmul_bias_cuda(a, b, *bias) : matmul_cuda(a, b);
#endif
  return bias ? matmul_bias_cpu_routed(a, b, *bias) : matmul_cpu_routed(a, b);
}

// An out= call's buffer the op can put C into: plain, the result's shape and a's dtype and device, no element
// written twice (torch raises there), and sharing no memory with an operand (a result written over its own inputs is
// torch's to define). Any strides: the CUDA op writes rows of N contiguous elements in place and computes anything
// else beside it and copies it in (run() in ops_cuda.cpp; Inductor allocates some bmm outputs permuted, e.g. the
// (heads, tokens, head_dim) result stored tokens-major for the transpose that follows), the CPU path copies.
bool out_writable(const at::Tensor& out, const at::Tensor& a, const at::Tensor& b, const at::Tensor* self,
                  at::IntArrayRef sizes) {
  // (torch's overlap test gives up on tensors that are not dense: apart then means another storage)
  auto apart = [&](const at::Tensor& t) {
    const at::MemOverlapStatus o = at::get_overlap_status(out, t);
    return o == at::MemOverlapStatus::No || (o == at::MemOverlapStatus::TooHard && !out.storage().is_alias_of(t.storage()));
  };
  return plain(out) && out.scalar_type() == a.scalar_type() && out.device() == a.device() && out.sizes() == sizes &&
         at::has_internal_overlap(out) != at::MemOverlap::Yes && apart(a) && apart(b) && (!self || apart(*self));
}

// The op into out (the CUDA op writes it; the CPU op's result is copied in: the CPU path is torch's own fp32 GEMM).
at::Tensor& run_op_into(const at::Tensor& a, const at::Tensor& b, const at::Tensor* bias, at::Tensor& out) {
#ifdef ORIGAMI_NV_TORCH_CUDA
  if (a.is_cuda()) {
    Inside inside;
    matmul_cuda_into(a, b, bias, out);
    return out;
  }
#endif
  out.copy_(run_op(a, b, bias));
  return out;
}

// Torch's own kernels of one backend, called directly (not through the dispatcher, where ours stand in for them).
struct CpuKernels {
  static at::Tensor mm(const at::Tensor& a, const at::Tensor& b) { return at::cpu::mm(a, b); }
  static at::Tensor bmm(const at::Tensor& a, const at::Tensor& b) { return at::cpu::bmm(a, b); }
  static at::Tensor addmm(const at::Tensor& s, const at::Tensor& a, const at::Tensor& b, const at::Scalar& beta,
                          const at::Scalar& alpha) {
    return at::cpu::addmm(s, a, b, beta, alpha);
  }
  static at::Tensor& mm_out(const at::Tensor& a, const at::Tensor& b, at::Tensor& out) {
    return at::cpu::mm_outf(a, b, out);
  }
  static at::Tensor& bmm_out(const at::Tensor& a, const at::Tensor& b, at::Tensor& out) {
    return at::cpu::bmm_outf(a, b, out);
  }
  static at::Tensor& addmm_out(const at::Tensor& s, const at::Tensor& a, const at::Tensor& b, const at::Scalar& beta,
                               const at::Scalar& alpha, at::Tensor& out) {
    return at::cpu::addmm_outf(s, a, b, beta, alpha, out);
  }
};
#ifdef ORIGAMI_NV_TORCH_CUDA
struct CudaKernels {
  static at::Tensor mm(const at::Tensor& a, const at::Tensor& b) { return at::cuda::mm(a, b); }
  static at::Tensor bmm(const at::Tensor& a, const at::Tensor& b) { return at::cuda::bmm(a, b); }
  static at::Tensor addmm(const at::Tensor& s, const at::Tensor& a, const at::Tensor& b, const at::Scalar& beta,
                          const at::Scalar& alpha) {
    return at::cuda::addmm(s, a, b, beta, alpha);
  }
  static at::Tensor& mm_out(const at::Tensor& a, const at::Tensor& b, at::Tensor& out) {
    return at::cuda::mm_outf(a, b, out);
  }
  static at::Tensor& bmm_out(const at::Tensor& a, const at::Tensor& b, at::Tensor& out) {
    return at::cuda::bmm_outf(a, b, out);
  }
  static at::Tensor& addmm_out(const at::Tensor& s, const at::Tensor& a, const at::Tensor& b, const at::Scalar& beta,
                               const at::Scalar& alpha, at::Tensor& out) {
    return at::cuda::addmm_outf(s, a, b, beta, alpha, out);
  }
};
#endif

template <class Torch>
at::Tensor mm_routed(const at::Tensor& a, const at::Tensor& b) {
  if (!on_for(a)) return Torch::mm(a, b);
  const bool r = routable(a, b, 2);
  count(kMm, r);
  return r ? run_op(a, b) : Torch::mm(a, b);
}

template <class Torch>
at::Tensor bmm_routed(const at::Tensor& a, const at::Tensor& b) {
  if (!on_for(a)) return Torch::bmm(a, b);
  const bool r = routable(a, b, 3);
  count(kBmm, r);
  return r ? run_op(a, b) : Torch::bmm(a, b);
}

bool is_one(const at::Scalar& s) { return !s.isComplex() && s.toDouble() == 1.0; }

// addmm's input as the op's fused bias: a row of N elements (1-D, or (1, N)) of a's dtype and device, beta = alpha = 1.
bool bias_row(const at::Tensor& self, const at::Tensor& a, const at::Tensor& b, const at::Scalar& beta,
              const at::Scalar& alpha) {
  const int64_t n = b.dim() == 2 ? b.size(1) : -1;
  return plain(self) && self.scalar_type() == a.scalar_type() && self.device() == a.device() && is_one(beta) &&
         is_one(alpha) && ((self.dim() == 1 && self.size(0) == n) || (self.dim() == 2 && self.size(0) == 1 && self.size(1) == n));
}

template <class Torch>
at::Tensor addmm_routed(const at::Tensor& self, const at::Tensor& a, const at::Tensor& b, const at::Scalar& beta,
                        const at::Scalar& alpha) {
  if (!on_for(a)) return Torch::addmm(self, a, b, beta, alpha);
  const bool r = bias_row(self, a, b, beta, alpha) && routable(a, b, 2);
  count(kAddmm, r);
  if (!r) return Torch::addmm(self, a, b, beta, alpha);
  const at::Tensor bias = self.reshape({b.size(1)});
  return run_op(a, b, &bias);
}

// ---- out= forms --------------------------------------------------------------------------------------------------
template <class Torch>
at::Tensor& mm_out_routed(const at::Tensor& a, const at::Tensor& b, at::Tensor& out) {
  if (!on_for(a)) return Torch::mm_out(a, b, out);
  const bool r = routable(a, b, 2) && out_writable(out, a, b, nullptr, {a.size(0), b.size(1)});
  count(kMmOut, r);
  return r ? run_op_into(a, b, nullptr, out) : Torch::mm_out(a, b, out);
}

template <class Torch>
at::Tensor& bmm_out_routed(const at::Tensor& a, const at::Tensor& b, at::Tensor& out) {
  if (!on_for(a)) return Torch::bmm_out(a, b, out);
  const bool r = routable(a, b, 3) && out_writable(out, a, b, nullptr, {a.size(0), a.size(1), b.size(2)});
  count(kBmmOut, r);
  return r ? run_op_into(a, b, nullptr, out) : Torch::bmm_out(a, b, out);
}

template <class Torch>
at::Tensor& addmm_out_routed(const at::Tensor& self, const at::Tensor& a, const at::Tensor& b, const at::Scalar& beta,
                             const at::Scalar& alpha, at::Tensor& out) {
  if (!on_for(a)) return Torch::addmm_out(self, a, b, beta, alpha, out);
  const bool r = bias_row(self, a, b, beta, alpha) && routable(a, b, 2) &&
                 out_writable(out, a, b, &self, {a.size(0), b.size(1)});
  count(kAddmmOut, r);
  if (!r) return Torch::addmm_out(self, a, b, beta, alpha, out);
  const at::Tensor bias = self.reshape({b.size(1)});
  return run_op_into(a, b, &bias, out);
}

template <class Torch>
void register_backend(torch::Library& lib, c10::DispatchKey key) {
  lib.impl("mm", torch::dispatch(key, TORCH_FN(mm_routed<Torch>)));
  lib.impl("bmm", torch::dispatch(key, TORCH_FN(bmm_routed<Torch>)));
  lib.impl("addmm", torch::dispatch(key, TORCH_FN(addmm_routed<Torch>)));
  lib.impl("mm.out", torch::dispatch(key, TORCH_FN(mm_out_routed<Torch>)));
  lib.impl("bmm.out", torch::dispatch(key, TORCH_FN(bmm_out_routed<Torch>)));
  lib.impl("addmm.out", torch::dispatch(key, TORCH_FN(addmm_out_routed<Torch>)));
}

struct Silent : c10::WarningHandler {
  void process(const c10::Warning&) override {}
};

void register_once() {
  static std::once_flag once;
  std::call_once(once, [] {
    Silent silent;
    c10::WarningUtils::WarningHandlerGuard quiet(&silent);
    // Never destroyed: the replacements stay registered for the life of the process (off = torch's kernel called).
    auto* lib = new torch::Library(torch::Library::IMPL, "aten", std::nullopt, __FILE__, __LINE__);
    register_backend<CpuKernels>(*lib, c10::DispatchKey::CPU);
#ifdef ORIGAMI_NV_TORCH_CUDA
    register_backend<CudaKernels>(*lib, c10::DispatchKey::CUDA);
#endif
  });
}
}  // namespace

// devices: bit 1 CPU, bit 2 CUDA (0: off). Returns the previous setting.
int64_t set_aten_route(int64_t devices) {
  TORCH_CHECK(devices >= 0 && devices <= (kCpuBit | kCudaBit), "set_aten_route: devices must be a mask of 1 (CPU) and 2 "
              "(CUDA), got ", devices);
  if (devices != 0) register_once();
  return g_devices.exchange(static_cast<int>(devices));
}

int64_t aten_route_devices() { return g_devices.load(); }

// [mm routed, mm to torch, bmm routed, bmm to torch, addmm routed, addmm to torch, then the same for mm.out, bmm.out,
// addmm.out] since the last reset.
std::vector<int64_t> aten_route_counts(bool reset) {
  std::vector<int64_t> out;
  for (auto& op : g_counts)
    for (auto& c : op) out.push_back(reset ? c.exchange(0) : c.load());
  return out;
}
}  // namespace origami_ops
