// The TORCH_LIBRARY op origami_nv::matmul and friends: schema, the CPU implementation and the
// device-independent entry points. The CUDA implementation is in ops_cuda.cpp (built only when torch is
// a CUDA build and nvcc is present: ORIGAMI_NV_TORCH_CUDA).
//
// CPU implementation: the same contract as the CUDA kernels (fp16/bf16 in, fp32 accumulation, result
// rounded once to the input dtype): upcast both operands to fp32, torch's CPU bmm, cast back. It exists so
// the op runs (and is testable, opcheck-able, torch.compile-able) everywhere; it is not tuned.
#include <torch/library.h>
#include <ATen/ATen.h>

#include <execinfo.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <locale>
#include <optional>

#include <ATen/Context.h>
#include <ATen/ops/bmm_cpu_dispatch.h>
#include <torch/version.h>

#include "matmul_shapes.hpp"

#ifdef ORIGAMI_NV_TORCH_CUDA
#include "ops_cuda.hpp"
#endif

namespace origami_ops {

bool tf32_allowed() {
  if (at::NoTF32Guard::should_disable_tf32()) return false;
#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 11)
  // The fp32_precision API (in torch 2.11 and 2.13, the versions this was built against): the legacy getter
  // (allowTF32CuBLAS) throws once the new setter has been used.
  const at::Float32Precision p = at::globalContext().float32Precision(at::Float32Backend::CUDA, at::Float32Op::MATMUL);
  return p == at::Float32Precision::TF32 || p == at::Float32Precision::BF16;
#else
  return at::globalContext().allowTF32CuBLAS();
#endif
}

static at::Tensor matmul_cpu_impl(const at::Tensor& a, const at::Tensor& b, const at::Tensor* bias, const char* op) {
  const MatmulShape s = check_and_shape(a, b, op);
  if (bias) check_bias(*bias, a, s, op);
  const at::Tensor a3 = a_as_3d(a, s).to(at::kFloat);
  const at::Tensor b3 = b_as_3d(b, s).to(at::kFloat);
  // torch's CPU kernel itself, not the dispatcher: with the dispatcher path on (aten_route.cpp) aten::bmm is ours.
  at::Tensor c32 = at::cpu::bmm(a3, b3);  // K = 0 gives zeros
  if (bias) c32 = c32 + bias->to(at::kFloat);  // in fp32, then one rounding, as the kernels do
  return c32.to(a.scalar_type()).reshape(s.out_sizes).contiguous();
}

static at::Tensor matmul_cpu(const at::Tensor& a, const at::Tensor& b) {
  return matmul_cpu_impl(a, b, nullptr, "origami_nv.matmul");
}

static at::Tensor matmul_bias_cpu(const at::Tensor& a, const at::Tensor& b, const at::Tensor& bias) {
  return matmul_cpu_impl(a, b, &bias, "origami_nv.matmul_bias");
}

// The CPU op for the dispatcher path (aten_route.cpp).
at::Tensor matmul_cpu_routed(const at::Tensor& a, const at::Tensor& b) { return matmul_cpu(a, b); }
at::Tensor matmul_bias_cpu_routed(const at::Tensor& a, const at::Tensor& b, const at::Tensor& bias) {
  return matmul_bias_cpu(a, b, bias);
}
int64_t set_aten_route(int64_t devices);                 // aten_route.cpp
int64_t aten_route_devices();                            // aten_route.cpp
std::vector<int64_t> aten_route_counts(bool reset);      // aten_route.cpp

// The CPU result does not depend on the tile; the config is still validated so a bad config fails
// the same way on every device (whether it is compiled is only known to the CUDA side).
static at::Tensor matmul_config_cpu(const at::Tensor& a, const at::Tensor& b, int64_t block_m, int64_t block_n,
                                    int64_t block_k, int64_t group_size_m, int64_t stages, int64_t warps,
                                    int64_t family, int64_t split_k, const std::optional<at::Tensor>& bias,
                                    bool swap_ab) {
  check_config_args(block_m, block_n, block_k, group_size_m, stages, warps, family, split_k, swap_ab);
  return matmul_cpu_impl(a, b, bias.has_value() ? &*bias : nullptr, "origami_nv.matmul_config");
}

static std::vector<int64_t> select_config(int64_t M, int64_t N, int64_t K, const std::string& dtype, int64_t batch,
                                          const std::string& layout, bool bias, bool a_aligned, bool b_aligned) {
#ifdef ORIGAMI_NV_TORCH_CUDA
  return select_config_cuda(M, N, K, dtype, batch, layout, bias, a_aligned, b_aligned);
#else
  (void)problem_from_args(M, N, K, dtype, batch, layout, bias, a_aligned, b_aligned);  // the same argument errors as on a GPU build
  TORCH_CHECK(false, "origami_nv.select_config: this build of origami_nv has no CUDA op (torch or nvcc was CPU-only "
                     "at build time); use origami_nv.select() for the model's choice without a GPU");
#endif
}

static std::string device_kernel_resources() {
#ifdef ORIGAMI_NV_TORCH_CUDA
  return device_kernel_resources_cuda();
#else
  TORCH_CHECK(false, "origami_nv.device_kernel_resources: this build of origami_nv has no CUDA kernels");
#endif
}

namespace {
std::atomic<bool>& pdl_setting() {
  static std::atomic<bool> on([] {
    const char* v = std::getenv("ORIGAMI_NV_PDL");
    return !(v != nullptr && v[0] == '0');
  }());
  return on;
}
}  // namespace
bool programmatic_dependent_launch_enabled() { return pdl_setting().load(std::memory_order_relaxed); }
// Returns the previous setting. Affects launches on sm_90+ only (pdl.hpp); a no-op setting without CUDA.
static bool set_programmatic_dependent_launch(bool enabled) {
  return pdl_setting().exchange(enabled, std::memory_order_relaxed);
}

namespace {
std::atomic<int64_t> gemm_launches{0}, overlapping_launches{0};
}  // namespace
void count_gemm_launch(bool overlapping) {
  gemm_launches.fetch_add(1, std::memory_order_relaxed);
  if (overlapping) overlapping_launches.fetch_add(1, std::memory_order_relaxed);
}
static std::vector<int64_t> gemm_launch_counts() {
  return {gemm_launches.load(std::memory_order_relaxed), overlapping_launches.load(std::memory_order_relaxed)};
}

// Debug aid for crashes Python's faulthandler cannot see into: with ORIGAMI_NV_SEGV_BACKTRACE=1 in the
// environment when _C.so is loaded, a SIGSEGV/SIGBUS/SIGABRT prints the native backtrace (symbols of
// exported functions; `c++filt` demangles) to stderr, then the default action runs.
namespace {
void print_native_backtrace(int sig) {
  void* frames[64];
  const int n = backtrace(frames, 64);
  const char head[] = "\norigami_nv: fatal signal, native backtrace:\n";
  ssize_t ignored = write(STDERR_FILENO, head, sizeof(head) - 1);
  (void)ignored;
  backtrace_symbols_fd(frames, n, STDERR_FILENO);
  signal(sig, SIG_DFL);
  raise(sig);
}
const bool kBacktraceInstalled = [] {
  const char* v = std::getenv("ORIGAMI_NV_SEGV_BACKTRACE");
  if (v == nullptr || v[0] == '\0' || v[0] == '0') return false;
  void* warm[1];
  backtrace(warm, 1);  // load libgcc's unwinder now, not inside the signal handler
  for (int sig : {SIGSEGV, SIGBUS, SIGABRT}) signal(sig, print_native_backtrace);
  return true;
}();
// Defensive: put the process's global C++ locale back to "C" if something changed it
// (ORIGAMI_NV_KEEP_LOCALE=1 leaves it alone). The crash we saw on the GPU image (integer insertion into
// a std::ostream from our code killed the process once torch's CUDA libraries were loaded) is explained
// in cpp/model/text.hpp and avoided there and in matmul_shapes.hpp by never formatting numbers through
// iostreams; this reset only guards c10::str in our messages against a foreign global locale.
const bool kClassicLocale = [] {
  const char* keep = std::getenv("ORIGAMI_NV_KEEP_LOCALE");
  if (keep != nullptr && keep[0] == '1') return false;
  try {
    if (std::locale().name() != "C") std::locale::global(std::locale::classic());
  } catch (...) {
  }
  return true;
}();
}  // namespace

}  // namespace origami_ops

TORCH_LIBRARY(origami_nv, m) {
  m.def("matmul(Tensor a, Tensor b) -> Tensor");
  m.def("matmul_bias(Tensor a, Tensor b, Tensor bias) -> Tensor");
  m.def("matmul_config(Tensor a, Tensor b, int block_m, int block_n, int block_k, int group_size_m, int stages, "
        "int warps, int family, int split_k=1, Tensor? bias=None, bool swap_ab=False) -> Tensor");
  m.def("select_config(int M, int N, int K, str dtype, int batch=1, str layout=\"nn\", bool bias=False, "
        "bool a_aligned=True, bool b_aligned=True) -> int[]",
        &origami_ops::select_config);
  m.def("device_kernel_resources() -> str", &origami_ops::device_kernel_resources);
  m.def("set_programmatic_dependent_launch(bool enabled) -> bool", &origami_ops::set_programmatic_dependent_launch);
  m.def("gemm_launch_counts() -> int[]", &origami_ops::gemm_launch_counts);
  m.def("tf32_allowed() -> bool", &origami_ops::tf32_allowed);
  m.def("set_aten_route(int devices) -> int", &origami_ops::set_aten_route);
  m.def("aten_route_devices() -> int", &origami_ops::aten_route_devices);
  m.def("aten_route_counts(bool reset=False) -> int[]", &origami_ops::aten_route_counts);
}

TORCH_LIBRARY_IMPL(origami_nv, CPU, m) {
  m.impl("matmul", &origami_ops::matmul_cpu);
  m.impl("matmul_bias", &origami_ops::matmul_bias_cpu);
  m.impl("matmul_config", &origami_ops::matmul_config_cpu);
}

#ifdef ORIGAMI_NV_TORCH_CUDA
TORCH_LIBRARY_IMPL(origami_nv, CUDA, m) {
  m.impl("matmul", &origami_ops::matmul_cuda);
  m.impl("matmul_bias", &origami_ops::matmul_bias_cuda);
  m.impl("matmul_config", &origami_ops::matmul_config_cuda);
}
#endif
