// torch.optim.Adafactor: Adam's second moment kept factored (a row and a column average of g^2 for each matrix in
// the last two dims; the full average for a vector), a relative step size and update clipping. torch's
// single-tensor math op by op, as tensor ops (any device).
#include <algorithm>
#include <cmath>

#include "ember/creation.h"
#include "ember/dtype.h"
#include "ember/linalg.h"
#include "ember/ops.h"
#include "ember/optim/optimizer.h"
#include "ember/reduce.h"
#include "ember/type_promotion.h"
#include "options.h"
#include "state.h"

namespace ember::optim {

using detail::bump_step;
using detail::lazy;
using detail::merged;
using detail::repr;
using detail::zero_step;

namespace {

// torch.finfo(dtype).eps: the gap between 1 and the next float of the dtype.
double machine_epsilon(ScalarType t) {
  switch (t) {
    case kFloat16: return std::ldexp(1.0, -10);
    case kBFloat16: return std::ldexp(1.0, -7);
    case kFloat32: return std::ldexp(1.0, -23);
    default: return std::ldexp(1.0, -52);
  }
}

}  // namespace

const Dict& Adafactor::default_options() {
  static const Dict d{{"lr", 1e-2},          {"beta2_decay", -0.8}, {"eps", std::vector<double>{NAN, 1e-3}},
                      {"d", 1.0},            {"weight_decay", 0.0}, {"foreach", {}},
                      {"maximize", false}};
  return d;
}
Adafactor::Adafactor(Params params, const Dict& options)
    : Optimizer(std::move(params), merged<Adafactor>(options)) {}
const std::vector<std::string>& Adafactor::positional() {
  static const std::vector<std::string> names{"lr", "beta2_decay", "eps", "d", "weight_decay"};
  return names;
}
void Adafactor::validate(const Dict& o) {  // torch's messages, in its order
  auto check = [&](bool ok, const char* what, const char* bound, const Value& v) {
    EMBER_CHECK(ok, ValueError, what, " should be ", bound, " but is: ", repr(v));
  };
  check(o.number("lr") >= 0, "Learning rate", ">= 0", o.at("lr"));
  check(o.number("beta2_decay") <= 0, "beta2_decay", "<= 0", o.at("beta2_decay"));
  const double eps1 = o.element("eps", 0), eps2 = o.element("eps", 1);
  check(std::isnan(eps1) || eps1 >= 0, "epsilon1", ">= 0", eps1);  // NaN: None, the dtype's eps
  check(eps2 >= 0, "epsilon2", ">= 0", eps2);
  check(o.number("d") >= 1, "Clipping threshold d", ">= 1", o.at("d"));
  check(o.number("weight_decay") >= 0, "weight_decay", ">= 0", o.at("weight_decay"));
}

void Adafactor::step_group(ParamGroup& o, const std::vector<Tensor>& params, const std::vector<Tensor>& grads) {
  const double lr = o.number("lr"), decay = o.number("beta2_decay"), eps2 = o.element("eps", 1), d = o.number("d"),
               weight_decay = o.number("weight_decay");
  for (size_t i = 0; i < params.size(); ++i) {
    Tensor p = params[i], grad = o.flag("maximize") ? neg(grads[i]) : grads[i];
    Dict& s = state(p);
    Tensor step_t = lazy(s, "step", zero_step);
    const bool factored = grad.dim() > 1;
    Tensor row_var, col_var, variance;
    if (factored) {  // (..., rows, 1) and (..., 1, cols)
      DimVector row_shape(grad.sizes()), col_shape(grad.sizes());
      row_shape.back() = 1, col_shape[col_shape.size() - 2] = 1;
      row_var = lazy(s, "row_var", [&] { return zeros(row_shape, grad.options()); });
      col_var = lazy(s, "col_var", [&] { return zeros(col_shape, grad.options()); });
    } else {
      variance = lazy(s, "variance", [&] { return zeros_like(grad); });
    }
    // torch divides by sqrt(numel) in Python floats: an empty parameter raises
    EMBER_CHECK(p.numel() != 0, ZeroDivisionError, "float division by zero");
    const double eps1 = std::isnan(o.element("eps", 0)) ? machine_epsilon(p.dtype()) : o.element("eps", 0);
    const double step = bump_step(step_t);
    const Tensor w = wrapped_scalar(std::pow(step, decay));  // 1 - beta2_t
    const double rho = std::min(lr, 1 / std::sqrt(step));
    const double alpha = std::max(eps2, norm(p).item<double>() / std::sqrt(double(p.numel()))) * rho;
    if (weight_decay != 0) p.mul_(1 - lr * weight_decay);
    Tensor estimate;
    if (factored) {  // mean of g^2 along the last dim and the one before, as norms squared over the size
      row_var.lerp_(norm(grad, 2, {-1}, true).square_().div_(grad.size(-1)), w);
      col_var.lerp_(norm(grad, 2, {-2}, true).square_().div_(grad.size(-2)), w);
      estimate = matmul(row_var, col_var).div_(mean(row_var, {-2}, true).clamp_(eps1));
    } else {
      variance.lerp_(mul(grad, grad), w);
      estimate = variance.clone();
    }
    Tensor update = estimate.clamp_(eps1 * eps1).rsqrt_().mul_(grad);
    const double denom = std::max(1.0, norm(update).item<double>() / (std::sqrt(double(update.numel())) * d));
    p.add_(update, -alpha / denom);
  }
}

}  // namespace ember::optim
