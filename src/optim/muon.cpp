// torch.optim.Muon: momentum SGD whose update is orthogonalised by a quintic Newton-Schulz iteration in bfloat16
// (2-D parameters only). torch's single-tensor math op by op, as tensor ops (any device).
#include <algorithm>
#include <cmath>

#include "ember/creation.h"
#include "ember/linalg.h"
#include "ember/ops.h"
#include "ember/optim/optimizer.h"
#include "ember/reduce.h"
#include "ember/type_promotion.h"
#include "options.h"
#include "state.h"

namespace ember::optim {

using detail::lazy;
using detail::merged;
using detail::repr;

namespace {

// The update's "zeroth power" U S' V^T, S' roughly in [0.5, 1.5]: normalised to spectral norm <= 1, then ns_steps
// of X <- a X + (b G + c G^2) X with G = X X^T, on the wide orientation of the matrix.
Tensor orthogonalised(const Tensor& update, const Dict& o) {
  const int64_t steps = int64_t(o.number("ns_steps"));
  EMBER_CHECK(steps < 100, ValueError, "Number of steps must be less than 100 for computational efficiency");
  const auto* coefficients = std::get_if<std::vector<double>>(&o.at("ns_coefficients"));
  EMBER_CHECK(coefficients && coefficients->size() == 3, ValueError, "Coefficients must be a tuple of exactly 3 values");
  const double a = (*coefficients)[0], b = (*coefficients)[1], c = (*coefficients)[2];
  const bool tall = update.size(0) > update.size(1);
  Tensor x = update.to(kBFloat16);  // update itself when it is bfloat16 (its buffer is then scaled in place, as torch)
  if (tall) x = x.t();
  x.div_(norm(x).clamp(std::optional<Scalar>(o.number("eps"))));
  for (int64_t i = 0; i < steps; ++i) {
    Tensor gram = matmul(x, x.t());
    x = addmm(x, addmm(gram, gram, gram, b, c), x, a);
  }
  return tall ? x.t() : x;
}

// lr scaled for the matrix's shape (torch's _adjust_lr).
double adjusted_lr(double lr, const Value& fn, IntArrayRef shape) {
  const double rows = double(shape[0]), cols = double(shape[1]);
  const std::string* name = std::get_if<std::string>(&fn);
  if (!name || *name == "original") return lr * std::sqrt(std::max(1.0, rows / cols));
  return lr * 0.2 * std::sqrt(std::max(rows, cols));  // "match_rms_adamw"
}

}  // namespace

const Dict& Muon::default_options() {
  static const Dict d{{"lr", 1e-3},       {"weight_decay", 0.1}, {"momentum", 0.95},
                      {"nesterov", true},  {"ns_coefficients", std::vector<double>{3.4445, -4.775, 2.0315}},
                      {"eps", 1e-7},       {"ns_steps", int64_t(5)}, {"adjust_lr_fn", {}}};
  return d;
}
Muon::Muon(Params params, const Dict& options) : Optimizer(std::move(params), merged<Muon>(options)) {
  for (const auto& g : param_groups())
    for (const Tensor& p : group_params(*g))
      EMBER_CHECK(p.dim() == 2, ValueError, "Muon only supports 2D parameters whereas we found a parameter with size: "
                  "torch.Size(", int_list(p.sizes()), ")");
}
const std::vector<std::string>& Muon::positional() {
  static const std::vector<std::string> names{"lr",  "weight_decay", "momentum", "nesterov", "ns_coefficients",
                                              "eps", "ns_steps",     "adjust_lr_fn"};
  return names;
}
void Muon::validate(const Dict& o) {  // torch's messages, in its order
  EMBER_CHECK(o.number("lr") >= 0, ValueError, "Learning rate should be >= 0 but is: ", repr(o.at("lr")));
  EMBER_CHECK(o.number("momentum") >= 0, ValueError, "momentum should be >= 0 but is: ", repr(o.at("momentum")));
  EMBER_CHECK(o.number("weight_decay") >= 0, ValueError, "weight decay should be >= 0 but is: ",
              repr(o.at("weight_decay")));
  const Value& fn = o.at("adjust_lr_fn");
  if (std::holds_alternative<std::monostate>(fn)) return;
  const std::string* name = std::get_if<std::string>(&fn);
  EMBER_CHECK(name && (*name == "original" || *name == "match_rms_adamw"), ValueError, "Adjust learning rate function ",
              name ? *name : repr(fn), " is not supported");
}

void Muon::step_group(ParamGroup& o, const std::vector<Tensor>& params, const std::vector<Tensor>& grads) {
  const double lr = o.number("lr"), momentum = o.number("momentum");
  std::vector<Tensor> buffers;  // made for every parameter first, as torch's _init_group
  for (size_t i = 0; i < params.size(); ++i)
    buffers.push_back(lazy(state(params[i]), "momentum_buffer", [&] { return zeros_like(grads[i]); }));
  for (size_t i = 0; i < params.size(); ++i) {
    Tensor p = params[i];
    const Tensor& grad = grads[i];
    EMBER_CHECK(grad.dim() == 2, ValueError, "Param gradient must be a 2D matrix");
    buffers[i].lerp_(grad, wrapped_scalar(1 - momentum));
    Tensor update = o.flag("nesterov") ? grad.lerp(buffers[i], wrapped_scalar(momentum)) : buffers[i];
    update = orthogonalised(update, o);
    p.mul_(1 - lr * o.number("weight_decay"));
    p.add_(update, -adjusted_lr(lr, o.at("adjust_lr_fn"), p.sizes()));
  }
}

}  // namespace ember::optim
