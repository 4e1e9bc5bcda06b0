// torch.optim's optimizers: options with torch's defaults and checks, lazy per-parameter state as
// torch's, and each group's step as one fused pass (the element math follows torch's CPU default,
// the single-tensor implementation, op by op in the parameter's dtype).
#include <array>
#include <charconv>
#include <cmath>

#include "ember/autograd.h"
#include "ember/creation.h"
#include "ember/linalg.h"
#include "ember/ops.h"
#include "ember/optim/functional.h"
#include "ember/optim/optimizer.h"
#include "fused.h"
#include "state.h"

namespace ember::optim {
namespace {

using detail::bump_step;
using detail::check_like;
using detail::lazy;
using detail::run_step;
using detail::zero_step;

// A number as Python prints it (torch's messages show the value given): 1.0, 1e-05, -1.
std::string repr(const Value& v) {
  if (auto* i = std::get_if<int64_t>(&v)) return std::to_string(*i);
  if (auto* b = std::get_if<bool>(&v)) return *b ? "True" : "False";
  auto* d = std::get_if<double>(&v);
  if (!d) return "<value>";
  if (!std::isfinite(*d)) return std::isnan(*d) ? "nan" : (*d > 0 ? "inf" : "-inf");
  char buf[64];
  int exp = *d == 0 ? 0 : int(std::floor(std::log10(std::abs(*d))));
  auto fmt = exp < -4 || exp >= 16 ? std::chars_format::scientific : std::chars_format::fixed;
  std::string s(buf, std::to_chars(buf, buf + sizeof buf, *d, fmt).ptr);
  if (fmt == std::chars_format::fixed && s.find('.') == std::string::npos) s += ".0";
  return s;
}

// The options a constructor is given, over the optimizer's defaults; unknown names are refused.
template <typename Opt>
Dict merged(const Dict& options) {
  Dict d = Opt::default_options();
  for (const auto& [k, v] : options) {
    EMBER_CHECK(d.contains(k), TypeError, "unexpected optimizer option '", k, "'");
    d[k] = v;
  }
  Opt::validate(d);
  return d;
}

// torch's range checks: "Invalid learning rate: -1", "Invalid epsilon value: ...", "Invalid <name> value: ...".
void check_min(const Dict& o, const std::string& key, double lo = 0) {
  if (o.number(key) >= lo) return;
  std::string label = key == "lr" ? "learning rate" : key == "eps" ? "epsilon value" : key + " value";
  throw ValueError(str("Invalid ", label, ": ", repr(o.at(key))));
}
void check_betas(const Dict& o) {
  for (size_t i = 0; i < 2; ++i) {
    double b = o.element("betas", i);
    EMBER_CHECK(b >= 0 && b < 1, ValueError, "Invalid beta parameter at index ", i, ": ", repr(b));
  }
}
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
EMBER_OPTIMIZER_BASICS(Adagrad, "lr", "lr_decay", "weight_decay", "initial_accumulator_value", "eps")
void Adagrad::validate(const Dict& o) {
  for (const char* k : {"lr", "lr_decay", "weight_decay", "initial_accumulator_value", "eps"}) check_min(o, k);
}
void Adagrad::step_group(ParamGroup& o, const std::vector<Tensor>& params, const std::vector<Tensor>& grads) {
  check_params(params, grads);
  std::vector<Tensor> sums;
  std::vector<functors::TensorScalars> clr;  // lr / (1 + (step - 1) lr_decay)
  for (const Tensor& p : params) {
    // torch makes Adagrad's state at construction; here on the first step, with the same values
    Dict& s = state(p);
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
#undef EMBER_OPTIMIZER_BASICS
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

// ---- LBFGS
const Dict& LBFGS::default_options() {
  static const Dict d{{"lr", int64_t(1)},          {"max_iter", int64_t(20)},   {"max_eval", {}},
                      {"tolerance_grad", 1e-7},     {"tolerance_change", 1e-9},  {"history_size", int64_t(100)},
                      {"line_search_fn", {}}};
  return d;
}
LBFGS::LBFGS(Params params, const Dict& options)
    : Optimizer(std::move(params), [&] {
        Dict d = merged<LBFGS>(options);
        if (std::holds_alternative<std::monostate>(d.at("max_eval")))  // torch's default: max_iter * 5 // 4
          d["max_eval"] = int64_t(d.number("max_iter")) * 5 / 4;
        return d;
      }()) {}
const std::vector<std::string>& LBFGS::positional() {
  static const std::vector<std::string> names{"lr",         "max_iter",     "max_eval",      "tolerance_grad",
                                              "tolerance_change", "history_size", "line_search_fn"};
  return names;
}
void LBFGS::validate(const Dict& o) { check_min(o, "lr"); }

namespace {

// The minimiser of the cubic through (x1, f1) and (x2, f2) with slopes g1 and g2, clamped to [lo, hi]; their midpoint
// where the cubic has no minimum (Nocedal & Wright, eq. 3.59).
double cubic_minimum(double x1, double f1, double g1, double x2, double f2, double g2, double lo, double hi) {
  double d1 = g1 + g2 - 3 * (f1 - f2) / (x1 - x2);
  double d2_square = d1 * d1 - g1 * g2;
  if (d2_square < 0) return (lo + hi) / 2;
  double d2 = std::sqrt(d2_square);
  double at = x1 <= x2 ? x2 - (x2 - x1) * ((g2 + d2 - d1) / (g2 - g1 + 2 * d2))
                       : x1 - (x1 - x2) * ((g1 + d2 - d1) / (g1 - g2 + 2 * d2));
  return std::min(std::max(at, lo), hi);
}
double cubic_minimum(double x1, double f1, double g1, double x2, double f2, double g2) {
  return cubic_minimum(x1, f1, g1, x2, f2, g2, std::min(x1, x2), std::max(x1, x2));
}

// A point of the line search: the step, the loss there, its gradient and the slope along d.
struct LinePoint {
  double t, f;
  Tensor g;
  double gtd;
};

// A step along d meeting the strong Wolfe conditions (sufficient decrease c1, curvature c2), by bracketing then
// zooming with cubic interpolation (Nocedal & Wright, algorithms 3.5 and 3.6; torch's _strong_wolfe, whose choices it
// follows). `at(t)` evaluates the loss and gradient at x + t d. Returns the accepted point and the evaluations made.
std::pair<LinePoint, int64_t> strong_wolfe(const std::function<LinePoint(double)>& at, const LinePoint& start,
                                           double t, double d_norm) {
  constexpr double c1 = 1e-4, c2 = 0.9, tolerance_change = 1e-9;  // torch's (not the optimizer's tolerance_change)
  constexpr int64_t max_ls = 25;
  const double f0 = start.f, gtd0 = start.gtd;
  LinePoint prev{0, f0, start.g, gtd0}, now = at(t);
  int64_t evals = 1, iter = 0;
  std::vector<LinePoint> bracket;
  bool done = false;
  while (iter < max_ls) {
    if (now.f > f0 + c1 * now.t * gtd0 || (iter > 1 && now.f >= prev.f)) {
      bracket = {prev, now};
      break;
    }
    if (std::abs(now.gtd) <= -c2 * gtd0) {
      bracket = {now};
      done = true;
      break;
    }
    if (now.gtd >= 0) {
      bracket = {prev, now};
      break;
    }
    double next = cubic_minimum(prev.t, prev.f, prev.gtd, now.t, now.f, now.gtd, now.t + 0.01 * (now.t - prev.t),
                                now.t * 10);
    prev = now;
    now = at(next);
    ++evals, ++iter;
  }
  if (iter == max_ls) bracket = {LinePoint{0, f0, start.g, gtd0}, now};
  // Zoom: shrink the bracket [low, high] (low: the lower loss) until a point meets both conditions.
  auto order = [&] { return bracket.front().f <= bracket.back().f ? std::pair{0, 1} : std::pair{1, 0}; };
  auto [low, high] = order();
  bool insufficient_progress = false;
  while (!done && iter < max_ls) {
    LinePoint &a = bracket[0], &b = bracket[1];
    if (std::abs(b.t - a.t) * d_norm < tolerance_change) break;
    double next = cubic_minimum(a.t, a.f, a.gtd, b.t, b.f, b.gtd);
    double lo = std::min(a.t, b.t), hi = std::max(a.t, b.t), eps = 0.1 * (hi - lo);
    if (std::min(hi - next, next - lo) < eps) {  // too close to an end: step back from it, unless progress is being made
      if (insufficient_progress || next >= hi || next <= lo) {
        next = std::abs(next - hi) < std::abs(next - lo) ? hi - eps : lo + eps;
        insufficient_progress = false;
      } else {
        insufficient_progress = true;
      }
    } else {
      insufficient_progress = false;
    }
    LinePoint p = at(next);
    ++evals, ++iter;
    if (p.f > f0 + c1 * p.t * gtd0 || p.f >= bracket[size_t(low)].f) {
      bracket[size_t(high)] = p;
      std::tie(low, high) = order();
    } else {
      if (std::abs(p.gtd) <= -c2 * gtd0) done = true;
      else if (p.gtd * (bracket[size_t(high)].t - bracket[size_t(low)].t) >= 0) bracket[size_t(high)] = bracket[size_t(low)];
      bracket[size_t(low)] = p;
    }
  }
  return {bracket[size_t(low)], evals};
}

}  // namespace

Tensor LBFGS::step(const std::function<Tensor()>& closure) {
  EMBER_CHECK(closure, TypeError, "LBFGS.step() missing 1 required positional argument: 'closure'");
  EMBER_CHECK(param_groups().size() == 1, ValueError, "LBFGS doesn't support per-parameter options (parameter groups)");
  ParamGroup& g = *param_groups()[0];
  const std::vector<Tensor>& params = group_params(g);
  const double lr = g.number("lr"), tol_grad = g.number("tolerance_grad"), tol_change = g.number("tolerance_change");
  const int64_t max_iter = int64_t(g.number("max_iter")), history = int64_t(g.number("history_size"));
  const int64_t max_eval = int64_t(g.number("max_eval"));
  const Value& search = g.at("line_search_fn");
  const bool line_search = !std::holds_alternative<std::monostate>(search);
  auto evaluate = [&] {
    autograd::GradModeGuard enable(true);
    return closure();
  };
  auto flat_grad = [&] {  // every parameter's grad as one vector (zeros for a missing grad)
    std::vector<Tensor> parts;
    for (const Tensor& p : params) {
      Tensor gr = p.grad();
      if (gr.defined() && gr.has_sparse_layout()) gr = gr.to_dense();
      parts.push_back(gr.defined() ? gr.reshape({-1}) : zeros({p.numel()}, p.options()));
    }
    return cat(parts);
  };
  autograd::NoGradGuard no_grad;
  auto move = [&](double t, const Tensor& d) {  // params += t d
    int64_t offset = 0;
    for (const Tensor& p : params) {
      Tensor(p).add_(d.narrow(0, offset, p.numel()).view(p.sizes()).mul(t));
      offset += p.numel();
    }
  };
  auto max_abs = [](const Tensor& t) { return t.abs().max().item<double>(); };
  Dict& s = state(params[0]);
  auto counter = [&](const char* k) -> int64_t& {
    Value& v = s[k];
    if (!std::holds_alternative<int64_t>(v)) v = int64_t(0);
    return std::get<int64_t>(v);
  };

  Tensor orig_loss = evaluate();
  double loss = orig_loss.item<double>();
  int64_t evals = 1;
  counter("func_evals") += 1;
  Tensor grad = flat_grad();
  if (max_abs(grad) <= tol_grad) return orig_loss;

  Tensor d = s.contains("d") ? std::get<Tensor>(s["d"]) : Tensor();
  double t = s.contains("t") ? s.number("t") : lr;
  std::vector<Tensor> dirs, stps, ro;
  if (auto* v = std::get_if<std::vector<Tensor>>(s.find("old_dirs") ? s.find("old_dirs") : &s["old_dirs"])) dirs = *v;
  if (auto* v = std::get_if<std::vector<Tensor>>(s.find("old_stps") ? s.find("old_stps") : &s["old_stps"])) stps = *v;
  if (auto* v = std::get_if<std::vector<Tensor>>(s.find("ro") ? s.find("ro") : &s["ro"])) ro = *v;
  Tensor h_diag = s.contains("H_diag") && std::holds_alternative<Tensor>(s["H_diag"]) ? std::get<Tensor>(s["H_diag"])
                                                                                        : Tensor();
  Tensor prev_grad = s.contains("prev_flat_grad") && std::holds_alternative<Tensor>(s["prev_flat_grad"])
                         ? std::get<Tensor>(s["prev_flat_grad"])
                         : Tensor();
  double prev_loss = s.contains("prev_loss") && !std::holds_alternative<std::monostate>(s["prev_loss"])
                         ? s.number("prev_loss")
                         : 0;
  for (int64_t n = 1; n <= max_iter; ++n) {
    const int64_t total_iters = counter("n_iter") += 1;
    if (total_iters == 1) {  // steepest descent
      d = grad.neg();
      dirs.clear(), stps.clear(), ro.clear();
      h_diag = ones({}, grad.options());
    } else {  // the two-loop recursion over the kept (y, s) pairs
      Tensor y = grad - prev_grad, st = d.mul(t);
      Tensor ys = y.dot(st);
      if (ys.item<double>() > 1e-10) {
        if (int64_t(dirs.size()) == history) {
          dirs.erase(dirs.begin()), stps.erase(stps.begin()), ro.erase(ro.begin());
        }
        dirs.push_back(y), stps.push_back(st), ro.push_back(ones_like(ys) / ys);
        h_diag = ys / y.dot(y);
      }
      std::vector<Tensor> al(dirs.size());
      Tensor q = grad.neg();
      for (size_t i = dirs.size(); i-- > 0;) {
        al[i] = stps[i].dot(q) * ro[i];
        q.sub_(dirs[i].mul(al[i].item()));
      }
      d = q * h_diag;
      for (size_t i = 0; i < dirs.size(); ++i) {
        Tensor be = dirs[i].dot(d) * ro[i];
        d.add_(stps[i].mul((al[i] - be).item()));
      }
    }
    prev_grad = grad.clone();
    prev_loss = loss;
    t = total_iters == 1 ? std::min(1.0, (ones({}, grad.options()) / grad.abs().sum()).item<double>()) * lr : lr;
    const double gtd = grad.dot(d).item<double>();
    if (gtd > -tol_change) break;
    int64_t ls_evals = 0;
    if (line_search) {  // checked where torch checks it: a step that stops before searching does not raise
      EMBER_CHECK(std::holds_alternative<std::string>(search) && std::get<std::string>(search) == "strong_wolfe", Error,
                  "only 'strong_wolfe' is supported");
      std::vector<Tensor> x;
      for (const Tensor& p : params) x.push_back(p.clone());
      auto at = [&](double step) {  // loss and gradient at x + step d, the parameters left at x
        move(step, d);
        LinePoint p{step, evaluate().item<double>(), flat_grad(), 0};
        p.gtd = p.g.dot(d).item<double>();
        for (size_t i = 0; i < params.size(); ++i) Tensor(params[i]).copy_(x[i]);
        return p;
      };
      auto [found, evals_made] = strong_wolfe(at, LinePoint{0, loss, grad, gtd}, t, max_abs(d));
      move(found.t, d);
      t = found.t, loss = found.f, grad = found.g, ls_evals = evals_made;
    } else {
      move(t, d);
      if (n != max_iter) {
        loss = evaluate().item<double>();
        grad = flat_grad();
        ls_evals = 1;
      }
    }
    evals += ls_evals;
    counter("func_evals") += ls_evals;
    if (n == max_iter || evals >= max_eval || max_abs(grad) <= tol_grad) break;
    if (max_abs(d.mul(t)) <= tol_change || std::abs(loss - prev_loss) < tol_change) break;
  }
  s["d"] = d;
  s["t"] = t;
  s["old_dirs"] = dirs;
  s["old_stps"] = stps;
  s["ro"] = ro;
  s["H_diag"] = h_diag;
  s["prev_flat_grad"] = prev_grad;
  s["prev_loss"] = prev_loss;
  count_step();
  return orig_loss;
}

}  // namespace ember::optim
