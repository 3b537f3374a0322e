// Argument checks and shape folding shared by the CPU and CUDA implementations of the op, so both
// accept exactly the same inputs and raise the same errors.
//
// Accepted forms (a: ... x M x K, b: ... x K x N):
//   2-D @ 2-D              (M,K) @ (K,N)         -> (M,N)
//   3-D @ 3-D, batched     (B,M,K) @ (B,K,N)     -> (B,M,N)        (equal batch sizes, no broadcasting)
//   N-D @ 2-D, N >= 3      (*,M,K) @ (K,N)       -> (*,M,N)        leading dims folded into M (nn.Linear),
//                                                                   except exactly 3-D @ 3-D which is batched
#pragma once
#include <torch/library.h>
#include <ATen/ATen.h>

#include <string>
#include <vector>

#include "model/types.hpp"

namespace origami_ops {

// Numbers in messages are formatted with std::to_string, never by streaming them into a std::ostream:
// on the GPU image, formatting an integer through an ostream (num_put of the stream's locale) crashed
// the process (SIGSEGV) while streaming strings worked: the same symptom as pytorch/pytorch#109923 and
// pybind/pybind11#3206, where a locale/facet from another libstdc++ copy ends up in the process. c10::str
// then only concatenates strings.
inline std::string num(int64_t v) { return std::to_string(v); }
inline std::string shape_str(const at::Tensor& t) {
  std::string s = "[";
  for (int64_t d = 0; d < t.dim(); ++d) s += (d ? ", " : "") + std::to_string(t.size(d));
  return s + "]";
}

// Programmatic dependent launch of the CUDA kernels (cpp/kernels/pdl.hpp): on unless ORIGAMI_NV_PDL=0 was
// in the environment when the library loaded; the op set_programmatic_dependent_launch switches it at
// run time (benchmarks A/B it). Defined in ops.cpp.
bool programmatic_dependent_launch_enabled();
// The op's GEMM launches on the GPU, and those of them made to overlap the previous kernel (PDL with
// GemmArgs::overlap_previous_kernel), since the library loaded: count_gemm_launch records one; the op
// gemm_launch_counts() -> [launches, overlapping] reads them (tests check the capture rule with it). "Overlapping" is
// the op's permission: a wgmma launcher still declines it for long-running grids of 51-85 % of the SMs
// (pdl_suits_sm_filling_grid, cpp/kernels/pdl.hpp). Defined in ops.cpp.
void count_gemm_launch(bool overlapping);

inline std::string supported_dtype_list() { return "torch.float16, torch.bfloat16, torch.float32"; }

inline bool dtype_supported(at::ScalarType t) { return t == at::kHalf || t == at::kBFloat16 || t == at::kFloat; }

struct MatmulShape {
  int64_t batch = 1;        // 1 unless 3-D @ 3-D
  int64_t M = 0, N = 0, K = 0;
  bool batched = false;     // 3-D @ 3-D
  bool folded = false;      // N-D @ 2-D with N >= 3
  std::vector<int64_t> out_sizes;
};

inline MatmulShape check_and_shape(const at::Tensor& a, const at::Tensor& b, const char* op) {
  TORCH_CHECK_TYPE(a.scalar_type() == b.scalar_type(), op, ": dtype mismatch: a is ", a.scalar_type(),
                   " and b is ", b.scalar_type(), " (both must be the same; supported: ", supported_dtype_list(), ")");
  TORCH_CHECK_TYPE(dtype_supported(a.scalar_type()), op, ": unsupported dtype ", a.scalar_type(),
                   "; supported: ", supported_dtype_list());
  TORCH_CHECK(a.device() == b.device(), op, ": a and b must be on the same device, got a on ", a.device(),
              " and b on ", b.device());
  TORCH_CHECK(!a.is_complex() && a.layout() == at::kStrided && b.layout() == at::kStrided, op,
              ": only dense (strided) tensors are supported");
  const int64_t ra = a.dim(), rb = b.dim();
  MatmulShape s;
  if (ra == 2 && rb == 2) {
    s.M = a.size(0); s.K = a.size(1); s.N = b.size(1);
    TORCH_CHECK(b.size(0) == s.K, op, ": inner dimensions do not match: a is ", shape_str(a), " and b is ",
                shape_str(b), " (a.shape[-1]=", num(s.K), " != b.shape[0]=", num(b.size(0)), ")");
    s.out_sizes = {s.M, s.N};
  } else if (ra == 3 && rb == 3) {
    TORCH_CHECK(a.size(0) == b.size(0), op, ": batch sizes differ: a is ", shape_str(a), " and b is ", shape_str(b),
                " (batched 3-D @ 3-D needs equal batch sizes; broadcasting is not supported)");
    s.batched = true;
    s.batch = a.size(0); s.M = a.size(1); s.K = a.size(2); s.N = b.size(2);
    TORCH_CHECK(b.size(1) == s.K, op, ": inner dimensions do not match: a is ", shape_str(a), " and b is ",
                shape_str(b), " (a.shape[-1]=", num(s.K), " != b.shape[-2]=", num(b.size(1)), ")");
    s.out_sizes = {s.batch, s.M, s.N};
  } else if (ra >= 3 && rb == 2) {
    s.folded = true;
    s.K = a.size(-1); s.N = b.size(1);
    TORCH_CHECK(b.size(0) == s.K, op, ": inner dimensions do not match: a is ", shape_str(a), " and b is ",
                shape_str(b), " (a.shape[-1]=", num(s.K), " != b.shape[0]=", num(b.size(0)), ")");
    s.M = 1;
    for (int64_t d = 0; d < ra - 1; ++d) {
      s.M *= a.size(d);
      s.out_sizes.push_back(a.size(d));
    }
    s.out_sizes.push_back(s.N);
  } else {
    TORCH_CHECK(false, op, ": unsupported ranks a.dim()=", num(ra), ", b.dim()=", num(rb),
                "; supported: 2-D @ 2-D, 3-D @ 3-D (batched), N-D @ 2-D (N >= 3, leading dims folded into M)");
  }
  return s;
}

// A fused bias: 1-D, N elements, the dtype and device of the operands (broadcast over every row).
inline void check_bias(const at::Tensor& bias, const at::Tensor& a, const MatmulShape& s, const char* op) {
  TORCH_CHECK(bias.dim() == 1 && bias.size(0) == s.N, op, ": bias must be 1-D with N = ", num(s.N),
              " elements (added to every row), got shape ", shape_str(bias));
  TORCH_CHECK_TYPE(bias.scalar_type() == a.scalar_type(), op, ": bias dtype ", bias.scalar_type(),
                   " differs from the operands' ", a.scalar_type());
  TORCH_CHECK(bias.device() == a.device(), op, ": bias must be on ", a.device(), ", got ", bias.device());
}

// The 3-D views (batch, M, K) and (batch, K, N) of the operands. Folding N-D into M is a view when
// the leading dims are jointly strided like one dimension, else reshape copies (documented).
inline at::Tensor a_as_3d(const at::Tensor& a, const MatmulShape& s) {
  if (s.batched) return a;
  if (s.folded) return a.reshape({s.M, s.K}).unsqueeze(0);
  return a.unsqueeze(0);
}
inline at::Tensor b_as_3d(const at::Tensor& b, const MatmulShape& s) { return s.batched ? b : b.unsqueeze(0); }

inline void check_config_args(int64_t block_m, int64_t block_n, int64_t block_k, int64_t group_size_m,
                              int64_t stages, int64_t warps, int64_t family, int64_t split_k, bool swap_ab) {
  TORCH_CHECK(split_k >= 1 && split_k <= 65535, "origami_nv.matmul_config: split_k must be in [1, 65535], got ",
              num(split_k));
  TORCH_CHECK(block_m > 0 && block_n > 0 && block_k > 0 && stages > 0 && warps > 0, "origami_nv.matmul_config: ",
              "block sizes, stages and warps must be positive, got block_m=", num(block_m), " block_n=", num(block_n),
              " block_k=", num(block_k), " stages=", num(stages), " warps=", num(warps));
  TORCH_CHECK(group_size_m >= 1, "origami_nv.matmul_config: group_size_m must be >= 1, got ", num(group_size_m));
  TORCH_CHECK(family >= 0 && family <= 2,
              "origami_nv.matmul_config: family must be 0 (mma_sync), 1 (wgmma) or 2 (simt), got ", num(family));
  TORCH_CHECK(!swap_ab || family == 1, "origami_nv.matmul_config: swap_ab (the swapped-operand kernels) exists for the "
              "wgmma family (1) only, got family ", num(family));
}

// The Problem select_config describes (the same checks on every device).
inline origami::Problem problem_from_args(int64_t M, int64_t N, int64_t K, const std::string& dtype, int64_t batch,
                                          const std::string& layout, bool bias = false, bool a_aligned = true,
                                          bool b_aligned = true) {
  auto dt = origami::parse_dtype(dtype);
  TORCH_CHECK(dt.has_value(), "origami_nv.select_config: unsupported dtype '", dtype, "'; supported: ",
              origami::supported_dtypes());
  TORCH_CHECK(M >= 0 && N >= 0 && K >= 0, "origami_nv.select_config: M, N, K must be >= 0");
  TORCH_CHECK(batch >= 1, "origami_nv.select_config: batch must be >= 1, got ", num(batch));
  origami::Problem p;
  TORCH_CHECK(origami::parse_layout(layout, p.a_k_contiguous, p.b_k_contiguous),
              "origami_nv.select_config: layout must be one of nn, nt, tn, tt, got '", layout, "'");
  p.M = std::max<int64_t>(M, 1); p.N = std::max<int64_t>(N, 1); p.K = std::max<int64_t>(K, 1);
  p.dtype = *dt;
  p.batch = batch;
  p.bias = bias;
  p.a_aligned = a_aligned;  // false: the op copies that operand first (16-byte rule), keeping its layout
  p.b_aligned = b_aligned;
  return p;
}

// torch's float32 matmul precision as cuBLAS reads it at each call: true where "high"/"medium" precision (or
// allow_tf32 / fp32_precision = "tf32") lets float32 GEMMs run on the TF32 tensor cores; false at "highest", the
// default (exact fp32). The CUDA op then runs float32 as DType::TFloat32; the CPU op is exact either way, as
// torch's own CPU matmul is. Exposed as origami_nv::tf32_allowed() so Python asks the same rule (ops.cpp).
bool tf32_allowed();

}  // namespace origami_ops
