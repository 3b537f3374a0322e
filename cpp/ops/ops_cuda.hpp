// The CUDA implementation of the op (ops_cuda.cpp). Host code only: kernels are launched through
// the registry's launchers (cpp/kernels), on at::cuda::getCurrentCUDAStream().
#pragma once
#include <ATen/ATen.h>

#include <optional>
#include <string>
#include <vector>

namespace origami_ops {
// Whether the op (its selection) has a compiled kernel for this tensor dtype that runs on CUDA device `dev` (float32 as
// torch's matmul precision makes it now). Asked once per (device, math dtype).
bool op_runs_on_cuda(int dev, at::ScalarType t);
at::Tensor matmul_cuda(const at::Tensor& a, const at::Tensor& b);
at::Tensor matmul_bias_cuda(const at::Tensor& a, const at::Tensor& b, const at::Tensor& bias);
// The same into `out` (contiguous, the result's shape and dtype, on a's device; checked): the dispatcher path's out= forms.
void matmul_cuda_into(const at::Tensor& a, const at::Tensor& b, const at::Tensor* bias, const at::Tensor& out);
at::Tensor matmul_config_cuda(const at::Tensor& a, const at::Tensor& b, int64_t block_m, int64_t block_n,
                              int64_t block_k, int64_t group_size_m, int64_t stages, int64_t warps, int64_t family,
                              int64_t split_k, const std::optional<at::Tensor>& bias, bool swap_ab);
std::vector<int64_t> select_config_cuda(int64_t M, int64_t N, int64_t K, const std::string& dtype, int64_t batch,
                                        const std::string& layout, bool bias, bool a_aligned, bool b_aligned);
std::string device_kernel_resources_cuda();
}  // namespace origami_ops
