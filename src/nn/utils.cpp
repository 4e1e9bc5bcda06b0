// torch.nn.utils: clip_grad_norm_, clip_grad_value_, parameters_to_vector, vector_to_parameters.
#include "ember/nn/utils.h"

#include <cmath>

#include "ember/autograd.h"
#include "ember/creation.h"
#include "ember/math_ops.h"
#include "ember/nn/module.h"
#include "ember/operators.h"
#include "ember/ops.h"

namespace ember::nn::utils {

namespace {

std::vector<Tensor> grads_of(const std::vector<Tensor>& parameters) {
  std::vector<Tensor> grads;
  for (const Tensor& p : parameters)
    if (Tensor g = p.grad(); g.defined()) grads.push_back(g);
  return grads;
}

}  // namespace

Tensor clip_grad_norm_(const std::vector<Tensor>& parameters, double max_norm, double norm_type,
                       bool error_if_nonfinite) {
  autograd::NoGradGuard no_grad;
  std::vector<Tensor> grads = grads_of(parameters);
  if (grads.empty()) return scalar_tensor(0.0);
  std::vector<Tensor> norms;
  for (const Tensor& g : grads) norms.push_back(linalg_vector_norm(g, norm_type));
  Tensor total = linalg_vector_norm(stack(norms), norm_type);
  if (error_if_nonfinite) {
    double v = total.item<double>();
    std::string order = std::isinf(norm_type) ? (norm_type > 0 ? "inf" : "-inf")
                        : norm_type == std::floor(norm_type) ? str(int64_t(norm_type), ".0") : str(norm_type);
    EMBER_CHECK(std::isfinite(v), Error, "The total norm of order ", order,
                " for gradients from `parameters` is non-finite, so it cannot be clipped. To disable this error and "
                "scale the gradients by the non-finite norm anyway, set `error_if_nonfinite=False`");
  }
  Tensor coef = (max_norm / (total + 1e-6)).clamp(std::nullopt, Scalar(1.0));
  for (Tensor& g : grads) g.mul_(coef);
  return total;
}

void clip_grad_value_(const std::vector<Tensor>& parameters, double clip_value) {
  autograd::NoGradGuard no_grad;
  for (Tensor& g : grads_of(parameters)) g.clamp_(std::optional<Scalar>(-clip_value), std::optional<Scalar>(clip_value));
}

Tensor parameters_to_vector(const std::vector<Tensor>& parameters) {
  std::vector<Tensor> flat;
  for (const Tensor& p : parameters) flat.push_back(p.view({-1}));
  return cat(flat);
}

void vector_to_parameters(const Tensor& vec, const std::vector<Tensor>& parameters) {
  int64_t offset = 0;
  for (const Tensor& p : parameters) {
    set_data(p, vec.slice(0, offset, offset + p.numel()).view(p.sizes()).detach());
    offset += p.numel();
  }
}

}  // namespace ember::nn::utils
