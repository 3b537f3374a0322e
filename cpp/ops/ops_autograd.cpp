// Autograd for origami_nv::matmul, matmul_bias and matmul_config, in C++.
//
// Why C++ and not torch.library.register_autograd: a Python autograd kernel runs on every call of the op
// whose inputs are not in inference mode, requiring grad or not (it looks for a tensor that requires grad,
// then redispatches below autograd): a few microseconds of Python per GEMM, which made an eager call of the
// op cost more host time than torch.matmul (issue 13, point 4). Registered for the Autograd key, this kernel
// costs one C++ check when no input requires grad.
//
// The backward runs the same op (so the model picks a tile for the gradient GEMMs too) on transposed views,
// which the kernels read in place for row- and column-major operands:
//   dA = dC @ B^T,  dB = A^T @ dC            (2-D, and 3-D @ 3-D per batch)
//   N-D @ 2-D (nn.Linear: the leading dims of A fold into M): dA = dC @ B^T, dB = A_2d^T @ dC_2d
//   d(bias) = dC summed over every row, accumulated in fp32, rounded once to the dtype
// The gradient is cast to the operands' dtype first (the op takes one dtype). Higher-order gradients work:
// the backward calls the op through the dispatcher, with autograd.
#include <torch/autograd.h>
#include <torch/library.h>
#include <ATen/ATen.h>

#include <initializer_list>
#include <optional>

namespace origami_ops {
namespace {

using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

const c10::TypedOperatorHandle<at::Tensor(const at::Tensor&, const at::Tensor&)>& matmul_op() {
  static const auto op = c10::Dispatcher::singleton()
                             .findSchemaOrThrow("origami_nv::matmul", "")
                             .typed<at::Tensor(const at::Tensor&, const at::Tensor&)>();
  return op;
}

const c10::TypedOperatorHandle<at::Tensor(const at::Tensor&, const at::Tensor&, const at::Tensor&)>& matmul_bias_op() {
  static const auto op = c10::Dispatcher::singleton()
                             .findSchemaOrThrow("origami_nv::matmul_bias", "")
                             .typed<at::Tensor(const at::Tensor&, const at::Tensor&, const at::Tensor&)>();
  return op;
}

using ConfigSig = at::Tensor(const at::Tensor&, const at::Tensor&, int64_t, int64_t, int64_t, int64_t, int64_t,
                             int64_t, int64_t, int64_t, const std::optional<at::Tensor>&, bool);
const c10::TypedOperatorHandle<ConfigSig>& matmul_config_op() {
  static const auto op =
      c10::Dispatcher::singleton().findSchemaOrThrow("origami_nv::matmul_config", "").typed<ConfigSig>();
  return op;
}

// dA, dB of C = A @ B (undefined where not needed).
std::pair<at::Tensor, at::Tensor> operand_grads(const at::Tensor& a, const at::Tensor& b, const at::Tensor& grad_in,
                                                bool need_a, bool need_b) {
  const at::Tensor grad = grad_in.scalar_type() == a.scalar_type() ? grad_in : grad_in.to(a.scalar_type());
  at::Tensor ga, gb;
  if (a.dim() == 2 || (a.dim() == 3 && b.dim() == 3)) {
    if (need_a) ga = matmul_op().call(grad, b.transpose(-1, -2));
    if (need_b) gb = matmul_op().call(a.transpose(-1, -2), grad);
  } else {  // N-D @ 2-D: the leading dims of A (and of dC) fold into M
    if (need_a) ga = matmul_op().call(grad, b.t());
    if (need_b) {
      const int64_t k = b.size(0), n = b.size(1);
      gb = matmul_op().call(a.reshape({-1, k}).t(), grad.reshape({-1, n}));
    }
  }
  return {ga, gb};
}

at::Tensor bias_grad(const at::Tensor& grad, c10::ScalarType dtype) {
  return grad.reshape({-1, grad.size(-1)}).to(at::kFloat).sum(0).to(dtype);
}

class MatmulFunction : public torch::autograd::Function<MatmulFunction> {
 public:
  static at::Tensor forward(AutogradContext* ctx, const at::Tensor& a, const at::Tensor& b) {
    ctx->save_for_backward({a, b});
    at::AutoDispatchBelowADInplaceOrView below;
    return matmul_op().call(a, b);
  }
  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    const auto saved = ctx->get_saved_variables();
    auto [ga, gb] = operand_grads(saved[0], saved[1], grads[0], ctx->needs_input_grad(0), ctx->needs_input_grad(1));
    return {ga, gb};
  }
};

class MatmulBiasFunction : public torch::autograd::Function<MatmulBiasFunction> {
 public:
  static at::Tensor forward(AutogradContext* ctx, const at::Tensor& a, const at::Tensor& b, const at::Tensor& bias) {
    ctx->save_for_backward({a, b});
    ctx->saved_data["bias_dtype"] = static_cast<int64_t>(bias.scalar_type());
    at::AutoDispatchBelowADInplaceOrView below;
    return matmul_bias_op().call(a, b, bias);
  }
  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    const auto saved = ctx->get_saved_variables();
    auto [ga, gb] = operand_grads(saved[0], saved[1], grads[0], ctx->needs_input_grad(0), ctx->needs_input_grad(1));
    at::Tensor gbias;
    if (ctx->needs_input_grad(2))
      gbias = bias_grad(grads[0], static_cast<c10::ScalarType>(ctx->saved_data["bias_dtype"].toInt()));
    return {ga, gb, gbias};
  }
};

class MatmulConfigFunction : public torch::autograd::Function<MatmulConfigFunction> {
 public:
  static at::Tensor forward(AutogradContext* ctx, const at::Tensor& a, const at::Tensor& b, int64_t block_m,
                            int64_t block_n, int64_t block_k, int64_t group_size_m, int64_t stages, int64_t warps,
                            int64_t family, int64_t split_k, const std::optional<at::Tensor>& bias, bool swap_ab) {
    ctx->save_for_backward({a, b});
    ctx->saved_data["bias_dtype"] =
        bias.has_value() ? static_cast<int64_t>(bias->scalar_type()) : static_cast<int64_t>(-1);
    at::AutoDispatchBelowADInplaceOrView below;
    return matmul_config_op().call(a, b, block_m, block_n, block_k, group_size_m, stages, warps, family, split_k,
                                   bias, swap_ab);
  }
  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    const auto saved = ctx->get_saved_variables();
    // The gradient GEMMs have other shapes: the model picks their tiles (the forward's config is for the forward).
    auto [ga, gb] = operand_grads(saved[0], saved[1], grads[0], ctx->needs_input_grad(0), ctx->needs_input_grad(1));
    const int64_t bias_dtype = ctx->saved_data["bias_dtype"].toInt();
    at::Tensor gbias;
    // needs_input_grad counts the tensor arguments only (a, b, bias); the returned list has one entry per argument.
    if (bias_dtype >= 0 && ctx->needs_input_grad(2))
      gbias = bias_grad(grads[0], static_cast<c10::ScalarType>(bias_dtype));
    variable_list out(12);
    out[0] = ga;
    out[1] = gb;
    out[10] = gbias;
    return out;
  }
};

// No graph to record (grad mode off, or no input requires grad): straight to the device kernel, no node.
bool records_graph(std::initializer_list<const at::Tensor*> inputs) {
  if (!at::GradMode::is_enabled()) return false;
  for (const at::Tensor* t : inputs)
    if (t != nullptr && t->defined() && t->requires_grad()) return true;
  return false;
}

at::Tensor matmul_autograd(const at::Tensor& a, const at::Tensor& b) {
  if (!records_graph({&a, &b})) {
    at::AutoDispatchBelowADInplaceOrView below;
    return matmul_op().call(a, b);
  }
  return MatmulFunction::apply(a, b);
}

at::Tensor matmul_bias_autograd(const at::Tensor& a, const at::Tensor& b, const at::Tensor& bias) {
  if (!records_graph({&a, &b, &bias})) {
    at::AutoDispatchBelowADInplaceOrView below;
    return matmul_bias_op().call(a, b, bias);
  }
  return MatmulBiasFunction::apply(a, b, bias);
}

at::Tensor matmul_config_autograd(const at::Tensor& a, const at::Tensor& b, int64_t block_m, int64_t block_n,
                                  int64_t block_k, int64_t group_size_m, int64_t stages, int64_t warps, int64_t family,
                                  int64_t split_k, const std::optional<at::Tensor>& bias, bool swap_ab) {
  if (!records_graph({&a, &b, bias.has_value() ? &*bias : nullptr})) {
    at::AutoDispatchBelowADInplaceOrView below;
    return matmul_config_op().call(a, b, block_m, block_n, block_k, group_size_m, stages, warps, family, split_k, bias,
                                   swap_ab);
  }
  return MatmulConfigFunction::apply(a, b, block_m, block_n, block_k, group_size_m, stages, warps, family, split_k,
                                     bias, swap_ab);
}

}  // namespace
}  // namespace origami_ops

TORCH_LIBRARY_IMPL(origami_nv, Autograd, m) {
  m.impl("matmul", &origami_ops::matmul_autograd);
  m.impl("matmul_bias", &origami_ops::matmul_bias_autograd);
  m.impl("matmul_config", &origami_ops::matmul_config_autograd);
}
