// torch.optim's optimizers: options with torch's defaults and checks, lazy per-parameter state as
// torch's, and each group's step as one fused pass (the element math follows torch's CPU default,
// the single-tensor implementation, op by op in the parameter's dtype).
#include <array>
#include <cmath>

#include "ember/autograd.h"
#include "ember/creation.h"
#include "ember/linalg.h"
#include "ember/ops.h"
#include "ember/optim/functional.h"
#include "ember/optim/optimizer.h"
#include "fused.h"
#include "options.h"
#include "state.h"

namespace ember::optim {
namespace {

using detail::bump_step;
using detail::check_betas;
using detail::check_like;
using detail::check_min;
using detail::lazy;
using detail::merged;
using detail::repr;
using detail::run_step;
using detail::zero_step;

// The Adam family's checks, in torch's order: lr, eps, betas, weight_decay.
void check_adam_options(const Dict& o) {
  check_min(o, "lr");
  check_min(o, "eps");
  check_betas(o);
  check_min(o, "weight_decay");
}

// The state tensors `keys` of every parameter (made as zeros like it when missing), one list per key,
// and the incremented step counters.
struct GroupState {
  std::vector<std::vector<Tensor>> lists;
  std::vector<double> steps;
};
GroupState gather(Optimizer& opt, const std::vector<Tensor>& params, const std::vector<std::string>& keys,
                  bool counted = true) {
  GroupState gs{std::vector<std::vector<Tensor>>(keys.size()), {}};
  for (size_t i = 0; i < params.size(); ++i) {
    Dict& s = opt.state(params[i]);
    if (counted) gs.steps.push_back(bump_step(lazy(s, "step", zero_step)));
    for (size_t k = 0; k < keys.size(); ++k) {
      gs.lists[k].push_back(lazy(s, keys[k], [&] { return zeros_like(params[i]); }));
      check_like(gs.lists[k].back(), params[i], keys[k].c_str(), i);
    }
  }
  return gs;
}

void check_params(const std::vector<Tensor>& params, const std::vector<Tensor>& grads) {
  for (size_t i = 0; i < params.size(); ++i) {
    check_like(params[i], params[i], "param", i);
    check_like(grads[i], params[i], "grad", i);
  }
}

void adam_group(Optimizer& opt, ParamGroup& o, const std::vector<Tensor>& params, const std::vector<Tensor>& grads) {
  const bool amsgrad = o.flag("amsgrad"), capturable = o.flag("capturable");
  std::vector<Tensor> m, v, vmax, steps;
  for (const Tensor& p : params) {
    Dict& s = opt.state(p);
    // capturable: the counter lives on the parameter's device, as torch's
    steps.push_back(lazy(s, "step", [&] {
      return capturable ? zeros({}, TensorOptions(kFloat32).with_device(p.device())) : zero_step();
    }));
    m.push_back(lazy(s, "exp_avg", [&] { return zeros_like(p); }));
    v.push_back(lazy(s, "exp_avg_sq", [&] { return zeros_like(p); }));
    vmax.push_back(amsgrad ? lazy(s, "max_exp_avg_sq", [&] { return zeros_like(p); }) : Tensor());
  }
  functional::AdamOptions options{o.number("lr"),           o.element("betas", 0), o.element("betas", 1),
                                  o.number("eps"),          o.number("weight_decay"), amsgrad,
                                  o.flag("maximize"),       o.flag("decoupled_weight_decay")};
  if (capturable) functional::adam_capturable(params, grads, m, v, vmax, steps, options);
  else functional::adam(params, grads, m, v, vmax, steps, options);
}

const std::vector<double> kBetas{0.9, 0.999};

}  // namespace

#define EMBER_OPTIMIZER_BASICS(Name, ...)                                                                 \
  Name::Name(Params params, const Dict& options) : Optimizer(std::move(params), merged<Name>(options)) {}    \
  const std::vector<std::string>& Name::positional() {                                                      \
    static const std::vector<std::string> names{__VA_ARGS__};                                               \
    return names;                                                                                           \
  }

// ---- SGD
const Dict& SGD::default_options() {
  static const Dict d{{"lr", 1e-3},       {"momentum", int64_t(0)}, {"dampening", int64_t(0)},
                      {"weight_decay", int64_t(0)}, {"nesterov", false}, {"maximize", false},
                      {"foreach", {}},     {"differentiable", false}, {"fused", {}}};
  return d;
}
EMBER_OPTIMIZER_BASICS(SGD, "lr", "momentum", "dampening", "weight_decay", "nesterov")
void SGD::validate(const Dict& o) {
  for (const char* k : {"lr", "momentum", "weight_decay"}) check_min(o, k);
  EMBER_CHECK(!o.flag("nesterov") || (o.number("momentum") > 0 && o.number("dampening") == 0), ValueError,
              "Nesterov momentum requires a momentum and zero dampening");
}

void SGD::step_group(ParamGroup& o, const std::vector<Tensor>& params, const std::vector<Tensor>& grads) {
  const bool momentum = o.number("momentum") != 0;  // as torch: state entries only with momentum
  std::vector<Tensor> bufs;
  for (const Tensor& p : params) {
    const Value* b = has_state(p) ? state(p).find("momentum_buffer") : nullptr;
    bufs.push_back(b && std::holds_alternative<Tensor>(*b) ? std::get<Tensor>(*b) : Tensor());
  }
  functional::sgd(params, grads, bufs,
                  {o.number("lr"), o.number("momentum"), o.number("dampening"), o.number("weight_decay"),
                   o.flag("nesterov"), o.flag("maximize")});
  if (momentum)
    for (size_t i = 0; i < params.size(); ++i) state(params[i])["momentum_buffer"] = bufs[i];
}

// ---- Adam, AdamW (Adam with decoupled weight decay)
const Dict& Adam::default_options() {
  static const Dict d{{"lr", 1e-3},          {"betas", kBetas},         {"eps", 1e-8},
                      {"weight_decay", int64_t(0)}, {"amsgrad", false}, {"maximize", false},
                      {"foreach", {}},        {"capturable", false},     {"differentiable", false},
                      {"fused", {}},          {"decoupled_weight_decay", false}};
  return d;
}
const Dict& AdamW::default_options() {
  static const Dict d = [] {
    Dict d = Adam::default_options();
    d["weight_decay"] = 1e-2;
    d["decoupled_weight_decay"] = true;
    return d;
  }();
  return d;
}
EMBER_OPTIMIZER_BASICS(Adam, "lr", "betas", "eps", "weight_decay", "amsgrad")
EMBER_OPTIMIZER_BASICS(AdamW, "lr", "betas", "eps", "weight_decay", "amsgrad")
void Adam::validate(const Dict& o) { check_adam_options(o); }
void AdamW::validate(const Dict& o) { Adam::validate(o); }
void Adam::step_group(ParamGroup& o, const std::vector<Tensor>& params, const std::vector<Tensor>& grads) {
  adam_group(*this, o, params, grads);
}
void AdamW::step_group(ParamGroup& o, const std::vector<Tensor>& params, const std::vector<Tensor>& grads) {
  adam_group(*this, o, params, grads);
}

// ---- SparseAdam: options and checks (the step: sparse_steps.cpp)
const Dict& SparseAdam::default_options() {
  static const Dict d{{"lr", 1e-3}, {"betas", kBetas}, {"eps", 1e-8}, {"maximize", false}};
  return d;
}
SparseAdam::SparseAdam(Params params, const Dict& options) : Optimizer(std::move(params), merged<SparseAdam>(options)) {
  std::string sparse;  // torch's check: "Sparse params at indices [[0, 0]]: ..."
  for (size_t g = 0; g < param_groups().size(); ++g) {
    const std::vector<Tensor>& ps = group_params(*param_groups()[g]);
    for (size_t i = 0; i < ps.size(); ++i)
      if (ps[i].has_sparse_layout()) sparse += str(sparse.empty() ? "" : ", ", "[", g, ", ", i, "]");
  }
  EMBER_CHECK(sparse.empty(), ValueError, "Sparse params at indices [", sparse,
              "]: SparseAdam requires dense parameter tensors");
}
const std::vector<std::string>& SparseAdam::positional() {
  static const std::vector<std::string> names{"lr", "betas", "eps", "maximize"};
  return names;
}
void SparseAdam::validate(const Dict& o) {
  EMBER_CHECK(o.number("lr") > 0, ValueError, "Invalid learning rate: ", repr(o.at("lr")));
  EMBER_CHECK(o.number("eps") > 0, ValueError, "Invalid epsilon value: ", repr(o.at("eps")));
  check_betas(o);
}

// ---- Adagrad: sum += g^2; param -= lr / (1 + (step - 1) lr_decay) * g / (sqrt(sum) + eps)
const Dict& Adagrad::default_options() {
  static const Dict d{{"lr", 1e-2},   {"lr_decay", int64_t(0)}, {"eps", 1e-10}, {"weight_decay", int64_t(0)},
                      {"initial_accumulator_value", int64_t(0)}, {"foreach", {}}, {"maximize", false},
                      {"differentiable", false}, {"fused", {}}};
  return d;
}
Adagrad::Adagrad(Params params, const Dict& options) : Optimizer(std::move(params), merged<Adagrad>(options)) {
  for (const auto& g : param_groups())  // torch makes Adagrad's state here, not on the first step
    for (const Tensor& p : group_params(*g)) {
      Dict& s = state(p);
      s["step"] = zero_step();
      s["sum"] = full_like(p, g->number("initial_accumulator_value"));
    }
}
const std::vector<std::string>& Adagrad::positional() {
  static const std::vector<std::string> names{"lr", "lr_decay", "weight_decay", "initial_accumulator_value", "eps"};
  return names;
}
void Adagrad::validate(const Dict& o) {
  for (const char* k : {"lr", "lr_decay", "weight_decay", "initial_accumulator_value", "eps"}) check_min(o, k);
}
void Adagrad::step_group(ParamGroup& o, const std::vector<Tensor>& params, const std::vector<Tensor>& grads) {
  check_params(params, grads);
  std::vector<Tensor> sums;
  std::vector<functors::TensorScalars> clr;  // lr / (1 + (step - 1) lr_decay)
  for (const Tensor& p : params) {
    Dict& s = state(p);  // made at construction; a parameter added later gets it here
    double step = bump_step(lazy(s, "step", zero_step));
    sums.push_back(lazy(s, "sum", [&] { return full_like(p, o.number("initial_accumulator_value")); }));
    check_like(sums.back(), p, "sum", sums.size() - 1);
    clr.push_back({{o.number("lr") / (1 + (step - 1) * o.number("lr_decay"))}});
  }
  run_step(functors::AdagradStep{o.number("eps"), o.number("weight_decay"), o.flag("maximize")}, params, grads, {&sums},
           clr);
}

// ---- RMSprop: square_avg = alpha sa + (1 - alpha) g^2; centered subtracts the mean grad's square
const Dict& RMSprop::default_options() {
  static const Dict d{{"lr", 1e-2},          {"momentum", int64_t(0)}, {"alpha", 0.99},  {"eps", 1e-8},
                      {"centered", false},    {"weight_decay", int64_t(0)}, {"capturable", false},
                      {"foreach", {}},        {"maximize", false},     {"differentiable", false}};
  return d;
}
EMBER_OPTIMIZER_BASICS(RMSprop, "lr", "alpha", "eps", "weight_decay", "momentum", "centered")
void RMSprop::validate(const Dict& o) {
  for (const char* k : {"lr", "eps", "momentum", "weight_decay", "alpha"}) check_min(o, k);
}
void RMSprop::step_group(ParamGroup& o, const std::vector<Tensor>& params, const std::vector<Tensor>& grads) {
  check_params(params, grads);
  const bool momentum = o.number("momentum") > 0, centered = o.flag("centered");
  std::vector<std::string> keys{"square_avg"};
  if (momentum) keys.push_back("momentum_buffer");
  if (centered) keys.push_back("grad_avg");
  GroupState gs = gather(*this, params, keys);
  run_step(functors::RMSpropStep{o.number("lr"), o.number("alpha"), o.number("eps"), o.number("weight_decay"),
                                 o.number("momentum"), centered, o.flag("maximize")},
           params, grads, {&gs.lists[0], momentum ? &gs.lists[1] : nullptr, centered ? &gs.lists.back() : nullptr});
}

// ---- Adamax: exp_inf = max(beta2 exp_inf, |g| + eps); param -= lr / (1 - beta1^t) exp_avg / exp_inf
const Dict& Adamax::default_options() {
  static const Dict d{{"lr", 2e-3}, {"betas", kBetas}, {"eps", 1e-8}, {"weight_decay", int64_t(0)}, {"foreach", {}},
                      {"maximize", false}, {"differentiable", false}, {"capturable", false}};
  return d;
}
EMBER_OPTIMIZER_BASICS(Adamax, "lr", "betas", "eps", "weight_decay")
void Adamax::validate(const Dict& o) { check_adam_options(o); }
void Adamax::step_group(ParamGroup& o, const std::vector<Tensor>& params, const std::vector<Tensor>& grads) {
  check_params(params, grads);
  GroupState gs = gather(*this, params, {"exp_avg", "exp_inf"});
  const std::vector<Tensor>&m = gs.lists[0], &u = gs.lists[1];
  const double lr = o.number("lr"), b1 = o.element("betas", 0);
  std::vector<functors::TensorScalars> clr;  // lr / (1 - beta1^t)
  for (double t : gs.steps) clr.push_back({{lr / (1 - std::pow(b1, t))}});
  run_step(functors::AdamaxStep{b1, o.element("betas", 1), o.number("eps"), o.number("weight_decay"), o.flag("maximize")},
           params, grads, {&m, &u}, clr);
}

// ---- NAdam: Adam with Nesterov momentum, mu_t = beta1 (1 - 0.5 * 0.96^(t momentum_decay))
const Dict& NAdam::default_options() {
  static const Dict d{{"lr", 2e-3},       {"betas", kBetas},      {"eps", 1e-8},   {"weight_decay", int64_t(0)},
                      {"momentum_decay", 4e-3}, {"decoupled_weight_decay", false}, {"maximize", false},
                      {"foreach", {}},     {"capturable", false},  {"differentiable", false}};
  return d;
}
EMBER_OPTIMIZER_BASICS(NAdam, "lr", "betas", "eps", "weight_decay", "momentum_decay", "decoupled_weight_decay")
void NAdam::validate(const Dict& o) {
  check_adam_options(o);
  check_min(o, "momentum_decay");
}
namespace {
// mu_product *= mu, returned. A float32 CPU tensor as torch keeps it; torch's load_state_dict moves it to the
// parameter's device and dtype, where the product is a tensor op.
double advance_mu_product(Tensor mu_product, double mu) {
  EMBER_CHECK(mu_product.numel() == 1 && mu_product.is_floating_point(), Error,
              "optimizer: 'mu_product' must be a one-element floating-point tensor");
  if (!mu_product.device().is_cpu() || mu_product.dtype() != kFloat32) return mu_product.mul_(mu).item<double>();
  float& prod = *mu_product.data_ptr<float>();
  prod = prod * float(mu);
  mu_product.bump_version();
  return prod;
}
}  // namespace

void NAdam::step_group(ParamGroup& o, const std::vector<Tensor>& params, const std::vector<Tensor>& grads) {
  check_params(params, grads);
  const double lr = o.number("lr"), b1 = o.element("betas", 0), b2 = o.element("betas", 1),
               psi = o.number("momentum_decay");
  std::vector<Tensor> m, v;
  std::vector<functors::TensorScalars> k(params.size());  // grad coefficient, exp_avg coefficient, 1 - beta2^t
  for (size_t i = 0; i < params.size(); ++i) {
    Dict& s = state(params[i]);
    double t = bump_step(lazy(s, "step", zero_step));
    Tensor mu_product = lazy(s, "mu_product", [] { return ones({}, TensorOptions(kFloat32).device(kCPU)); });
    m.push_back(lazy(s, "exp_avg", [&] { return zeros_like(params[i]); }));
    v.push_back(lazy(s, "exp_avg_sq", [&] { return zeros_like(params[i]); }));
    check_like(m.back(), params[i], "exp_avg", i);
    check_like(v.back(), params[i], "exp_avg_sq", i);
    const double mu = b1 * (1 - 0.5 * std::pow(0.96, t * psi)), mu_next = b1 * (1 - 0.5 * std::pow(0.96, (t + 1) * psi));
    const double prod = advance_mu_product(mu_product, mu);
    k[i].s = {-lr * (1 - mu) / (1 - prod), -lr * mu_next / (1 - prod * mu_next), 1 - std::pow(b2, t)};
  }
  run_step(functors::NAdamStep{lr, b1, b2, o.number("eps"), o.number("weight_decay"), o.flag("decoupled_weight_decay"),
                               o.flag("maximize")},
           params, grads, {&m, &v}, k);
}

// ---- RAdam: Adam rectified by the variance of the adaptive lr (plain momentum while rho_t <= 5)
const Dict& RAdam::default_options() {
  static const Dict d{{"lr", 1e-3},   {"betas", kBetas},       {"eps", 1e-8},    {"weight_decay", int64_t(0)},
                      {"maximize", false}, {"foreach", {}},    {"capturable", false},
                      {"decoupled_weight_decay", false},       {"differentiable", false}};
  return d;
}
EMBER_OPTIMIZER_BASICS(RAdam, "lr", "betas", "eps", "weight_decay", "decoupled_weight_decay")
void RAdam::validate(const Dict& o) { check_adam_options(o); }
void RAdam::step_group(ParamGroup& o, const std::vector<Tensor>& params, const std::vector<Tensor>& grads) {
  check_params(params, grads);
  GroupState gs = gather(*this, params, {"exp_avg", "exp_avg_sq"});
  const std::vector<Tensor>&m = gs.lists[0], &v = gs.lists[1];
  const double lr = o.number("lr"), b1 = o.element("betas", 0), b2 = o.element("betas", 1), eps = o.number("eps");
  const double rho_inf = 2 / (1 - b2) - 1;
  std::vector<functors::TensorScalars> k;  // 1 - beta1^t, sqrt(1 - beta2^t), the rectification; flag: rho_t > 5
  for (double t : gs.steps) {
    const double bc1 = 1 - std::pow(b1, t), bc2 = 1 - std::pow(b2, t);
    const double rho_t = rho_inf - 2 * t * std::pow(b2, t) / bc2;
    const bool rectified = rho_t > 5;
    const double rect =
        rectified ? std::sqrt((rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t)) : 0;
    k.push_back({{bc1, std::sqrt(bc2), rect}, rectified});
  }
  run_step(functors::RAdamStep{lr, b1, b2, eps, o.number("weight_decay"), o.flag("decoupled_weight_decay"),
                               o.flag("maximize")},
           params, grads, {&m, &v}, k);
}

// ---- Adadelta: delta = sqrt(acc_delta + eps) / sqrt(square_avg + eps) g; acc_delta averages delta^2
const Dict& Adadelta::default_options() {
  static const Dict d{{"lr", 1.0}, {"rho", 0.9}, {"eps", 1e-6}, {"weight_decay", int64_t(0)}, {"maximize", false},
                      {"capturable", false}, {"foreach", {}}, {"differentiable", false}};
  return d;
}
EMBER_OPTIMIZER_BASICS(Adadelta, "lr", "rho", "eps", "weight_decay")
void Adadelta::validate(const Dict& o) {
  check_min(o, "lr");
  double rho = o.number("rho");
  EMBER_CHECK(rho >= 0 && rho <= 1, ValueError, "Invalid rho value: ", repr(o.at("rho")));
  check_min(o, "eps");
  check_min(o, "weight_decay");
}
void Adadelta::step_group(ParamGroup& o, const std::vector<Tensor>& params, const std::vector<Tensor>& grads) {
  check_params(params, grads);
  GroupState gs = gather(*this, params, {"square_avg", "acc_delta"});
  run_step(functors::AdadeltaStep{o.number("lr"), o.number("rho"), o.number("eps"), o.number("weight_decay"),
                                  o.flag("maximize")},
           params, grads, {&gs.lists[0], &gs.lists[1]});
}

// ---- ASGD: SGD with a decaying step eta and the running average ax of the iterates (from step t0 on)
const Dict& ASGD::default_options() {
  static const Dict d{{"lr", 1e-2},          {"lambd", 1e-4},       {"alpha", 0.75},      {"t0", 1e6},
                      {"weight_decay", int64_t(0)}, {"foreach", {}}, {"maximize", false}, {"differentiable", false},
                      {"capturable", false}};
  return d;
}
EMBER_OPTIMIZER_BASICS(ASGD, "lr", "lambd", "alpha", "t0", "weight_decay")
void ASGD::validate(const Dict& o) {
  check_min(o, "lr");
  check_min(o, "weight_decay");
}
void ASGD::step_group(ParamGroup& o, const std::vector<Tensor>& params, const std::vector<Tensor>& grads) {
  check_params(params, grads);
  const double lr = o.number("lr"), lambd = o.number("lambd");
  const TensorOptions scalar = TensorOptions(default_dtype() == kFloat64 ? kFloat64 : kFloat32).device(kCPU);
  std::vector<Tensor> ax;
  std::vector<functors::TensorScalars> k;  // eta, mu; flag: mu is 1 (ax copies the parameter)
  std::vector<std::pair<Tensor, Tensor>> next;  // each parameter's eta and mu, advanced after the step
  for (size_t i = 0; i < params.size(); ++i) {
    Dict& s = state(params[i]);
    Tensor step = lazy(s, "step", [&] { return zeros({}, scalar); });
    Tensor eta = lazy(s, "eta", [&] { return full({}, lr, scalar); });
    Tensor mu = lazy(s, "mu", [&] { return ones({}, scalar); });
    ax.push_back(lazy(s, "ax", [&] { return zeros_like(params[i]); }));
    check_like(ax.back(), params[i], "ax", i);
    const double t = step.add_(1).item<double>(), eta_value = eta.item<double>(), mu_value = mu.item<double>();
    k.push_back({{eta_value, mu_value}, mu_value == 1});
    eta.fill_(lr / std::pow(1 + lambd * lr * t, o.number("alpha")));
    mu.fill_(1 / std::max(1.0, t - o.number("t0")));
  }
  run_step(functors::ASGDStep{lambd, o.number("weight_decay"), o.flag("maximize")}, params, grads, {&ax}, k);
}

// ---- Rprop: each element's step grows by etaplus while its gradient keeps its sign, shrinks by etaminus when it flips
const Dict& Rprop::default_options() {
  static const Dict d{{"lr", 1e-2},           {"etas", std::vector<double>{0.5, 1.2}},
                      {"step_sizes", std::vector<double>{1e-6, 50}}, {"capturable", false},
                      {"foreach", {}},         {"maximize", false},   {"differentiable", false}};
  return d;
}
EMBER_OPTIMIZER_BASICS(Rprop, "lr", "etas", "step_sizes")
#undef EMBER_OPTIMIZER_BASICS
void Rprop::validate(const Dict& o) {
  check_min(o, "lr");
  const double minus = o.element("etas", 0), plus = o.element("etas", 1);
  EMBER_CHECK(0 < minus && minus < 1 && 1 < plus, ValueError, "Invalid eta values: ", repr(minus), ", ", repr(plus));
}
void Rprop::step_group(ParamGroup& o, const std::vector<Tensor>& params, const std::vector<Tensor>& grads) {
  check_params(params, grads);
  std::vector<Tensor> prev, step_size;
  for (size_t i = 0; i < params.size(); ++i) {
    Dict& s = state(params[i]);
    bump_step(lazy(s, "step", zero_step));
    prev.push_back(lazy(s, "prev", [&] { return zeros_like(params[i]); }));
    step_size.push_back(lazy(s, "step_size", [&] { return full_like(grads[i], o.number("lr")); }));
    check_like(prev.back(), params[i], "prev", i);
    check_like(step_size.back(), params[i], "step_size", i);
  }
  run_step(functors::RpropStep{o.element("etas", 0), o.element("etas", 1), o.element("step_sizes", 0),
                               o.element("step_sizes", 1), o.flag("maximize")},
           params, grads, {&prev, &step_size});
}

}  // namespace ember::optim
