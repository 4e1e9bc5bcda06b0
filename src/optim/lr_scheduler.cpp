#include "ember/optim/lr_scheduler.h"

#include <algorithm>
#include <cmath>
#include <numbers>

#include "ember/errors.h"

namespace ember::optim::lr_scheduler {
namespace {

constexpr double kPi = std::numbers::pi;

const char* kStepOrderWarning =
    "Detected call of `lr_scheduler.step()` before `optimizer.step()`. In PyTorch 1.1.0 and later, you should call "
    "them in the opposite order: `optimizer.step()` before `lr_scheduler.step()`.  Failure to do this will result in "
    "PyTorch skipping the first value of the learning rate schedule. See more details at "
    "https://pytorch.org/docs/stable/optim.html#how-to-adjust-learning-rate";
const char* kEpochWarning =
    "The epoch parameter in `scheduler.step()` was not necessary and is being deprecated where possible. Please use "
    "`scheduler.step()` to step the scheduler. During the deprecation, if epoch is different from None, the closed "
    "form is used instead of the new chainable form, where available. Please open an issue if you are unable to "
    "replicate your use case: https://github.com/pytorch/pytorch/issues/new/choose.";

// One value per group: a single value is repeated; else there must be one per group.
std::vector<double> per_group(const std::vector<double>& v, size_t n, const char* what) {
  if (v.size() == 1) return std::vector<double>(n, v[0]);
  EMBER_CHECK(v.size() == n, ValueError, "expected ", n, " values for ", what, ", got ", v.size());
  return v;
}

std::vector<double> list(const Dict& d, const std::string& key) { return std::get<std::vector<double>>(d.at(key)); }

// A group's momentum: "momentum", or betas[0] for Adam-like optimizers.
void set_momentum(ParamGroup& g, bool beta1, double m) {
  if (beta1) std::get<std::vector<double>>(g["betas"])[0] = m;
  else g["momentum"] = m;
}

// Whether the optimizer has a momentum to cycle (torch's error when not); true: it is betas[0].
bool uses_beta1(Optimizer& opt) {
  EMBER_CHECK(opt.defaults().contains("momentum") || opt.defaults().contains("betas"), ValueError,
              "optimizer must support momentum or beta1 with `cycle_momentum` option enabled");
  return opt.defaults().contains("betas");
}

}  // namespace

// ---- base
LRScheduler::LRScheduler(Optimizer& opt, int64_t last_epoch) : opt_(opt), last_epoch_(last_epoch) {
  for (size_t i = 0; i < groups(); ++i) {
    ParamGroup& g = *opt.param_groups()[i];
    if (last_epoch == -1 && !g.contains("initial_lr")) g["initial_lr"] = g.number("lr");
    EMBER_CHECK(g.contains("initial_lr"), KeyError, "param 'initial_lr' is not specified in param_groups[", i,
                "] when resuming scheduler with last_epoch >= 0.\nThis typically happens when:\n1. You're trying to "
                "resume training from a checkpoint but haven't properly loaded the optimizer state\n2. You're using "
                "last_epoch >= 0 for a fresh training run (not recommended)");
    base_lrs_.push_back(g.number("initial_lr"));
  }
}

void LRScheduler::initial_step() {
  step_count_ = 0;
  step();
}

std::vector<double> LRScheduler::group_lrs() const {
  std::vector<double> lrs;
  for (const auto& g : opt_.param_groups()) lrs.push_back(g->number("lr"));
  return lrs;
}

void LRScheduler::apply(const std::vector<double>& lrs) {
  for (size_t i = 0; i < groups(); ++i) (*opt_.param_groups()[i])["lr"] = lrs[i];
  last_lr_ = group_lrs();
}

void LRScheduler::step() {
  if (++step_count_ == 2 && opt_.step_count() == 0) warn(kStepOrderWarning);
  ++last_epoch_;
  apply(get_lr());
}

void LRScheduler::step(int64_t epoch) {
  warn(kEpochWarning);
  ++step_count_;
  last_epoch_ = epoch;
  auto closed = closed_form();
  apply(closed ? *closed : get_lr());
}

Dict LRScheduler::state_dict() const {
  Dict d = hp;
  d["base_lrs"] = base_lrs_;
  d["last_epoch"] = last_epoch_;
  d["_step_count"] = step_count_;
  d["_is_initial"] = false;  // torch's flags, false between steps
  d["_get_lr_called_within_step"] = false;
  d["_last_lr"] = last_lr_;
  return d;
}

void LRScheduler::load_state_dict(const Dict& sd) {
  for (const auto& [k, v] : sd) {
    if (k == "base_lrs") base_lrs_ = std::get<std::vector<double>>(v);
    else if (k == "_last_lr") last_lr_ = std::get<std::vector<double>>(v);
    else if (k == "last_epoch") last_epoch_ = int64_t(sd.number(k));
    else if (k == "_step_count") step_count_ = int64_t(sd.number(k));
    else if (hp.contains(k)) hp[k] = v;
  }
}

// ---- LambdaLR, MultiplicativeLR
LambdaLR::LambdaLR(Optimizer& opt, std::vector<LrLambda> lr_lambdas, int64_t last_epoch)
    : LambdaLR(opt, std::move(lr_lambdas), last_epoch, true) {}
LambdaLR::LambdaLR(Optimizer& opt, std::vector<LrLambda> lr_lambdas, int64_t last_epoch, bool first_step)
    : LRScheduler(opt, last_epoch), lambdas_(std::move(lr_lambdas)) {
  if (lambdas_.size() == 1) lambdas_.resize(groups(), lambdas_[0]);
  EMBER_CHECK(lambdas_.size() == groups(), ValueError, "Expected ", groups(), " lr_lambdas, but got ",
              lambdas_.size());
  if (first_step) initial_step();
}
std::vector<double> LambdaLR::get_lr() {
  std::vector<double> lrs;
  for (size_t i = 0; i < groups(); ++i) lrs.push_back(base_lrs_[i] * lambdas_[i](last_epoch_));
  return lrs;
}

MultiplicativeLR::MultiplicativeLR(Optimizer& opt, std::vector<LrLambda> lr_lambdas, int64_t last_epoch)
    : LambdaLR(opt, std::move(lr_lambdas), last_epoch, false) {
  initial_step();
}
std::vector<double> MultiplicativeLR::get_lr() {
  std::vector<double> lrs = group_lrs();
  if (last_epoch_ > 0)
    for (size_t i = 0; i < groups(); ++i) lrs[i] *= lambdas_[i](last_epoch_);
  return lrs;
}

// ---- StepLR: lr *= gamma every step_size epochs
StepLR::StepLR(Optimizer& opt, int64_t step_size, double gamma, int64_t last_epoch) : LRScheduler(opt, last_epoch) {
  hp = {{"step_size", step_size}, {"gamma", gamma}};
  initial_step();
}
std::vector<double> StepLR::get_lr() {
  std::vector<double> lrs = group_lrs();
  const int64_t e = last_epoch_, size = int64_t(hp.number("step_size"));
  if (e != 0 && e % size == 0)
    for (double& lr : lrs) lr *= hp.number("gamma");
  return lrs;
}
std::optional<std::vector<double>> StepLR::closed_form() {
  std::vector<double> lrs;
  const double n = std::floor(double(last_epoch_) / hp.number("step_size"));
  for (double b : base_lrs_) lrs.push_back(b * std::pow(hp.number("gamma"), n));
  return lrs;
}

// ---- MultiStepLR: lr *= gamma at each milestone (repeated milestones count repeatedly)
MultiStepLR::MultiStepLR(Optimizer& opt, std::vector<int64_t> milestones, double gamma, int64_t last_epoch)
    : LRScheduler(opt, last_epoch) {
  std::ranges::sort(milestones);
  std::vector<double> m(milestones.begin(), milestones.end());
  hp = {{"milestones", m}, {"gamma", gamma}};
  initial_step();
}
std::vector<double> MultiStepLR::get_lr() {
  std::vector<double> lrs = group_lrs(), m = list(hp, "milestones");
  const auto hits = std::ranges::count(m, double(last_epoch_));
  for (double& lr : lrs) lr *= std::pow(hp.number("gamma"), double(hits));
  return lrs;
}
std::optional<std::vector<double>> MultiStepLR::closed_form() {
  std::vector<double> lrs, m = list(hp, "milestones");
  const auto n = std::ranges::upper_bound(m, double(last_epoch_)) - m.begin();
  for (double b : base_lrs_) lrs.push_back(b * std::pow(hp.number("gamma"), double(n)));
  return lrs;
}

// ---- ConstantLR: lr * factor until total_iters
ConstantLR::ConstantLR(Optimizer& opt, double factor, int64_t total_iters, int64_t last_epoch)
    : LRScheduler(opt, last_epoch) {
  EMBER_CHECK(factor <= 1 && factor >= 0, ValueError,
              "Constant multiplicative factor expected to be between 0 and 1.");
  hp = {{"factor", factor}, {"total_iters", total_iters}};
  initial_step();
}
std::vector<double> ConstantLR::get_lr() {
  std::vector<double> lrs = group_lrs();
  const double f = hp.number("factor");
  const int64_t n = int64_t(hp.number("total_iters"));
  for (double& lr : lrs) {
    if (last_epoch_ == 0) lr *= f;
    else if (last_epoch_ == n) lr *= 1 / f;
  }
  return lrs;
}
std::optional<std::vector<double>> ConstantLR::closed_form() {
  std::vector<double> lrs;
  const double f = hp.number("factor");
  for (double b : base_lrs_) lrs.push_back(b * (f + (last_epoch_ >= int64_t(hp.number("total_iters"))) * (1 - f)));
  return lrs;
}

// ---- LinearLR: the factor goes linearly from start_factor to end_factor over total_iters
LinearLR::LinearLR(Optimizer& opt, double start_factor, double end_factor, int64_t total_iters, int64_t last_epoch)
    : LRScheduler(opt, last_epoch) {
  EMBER_CHECK(start_factor <= 1 && start_factor > 0, ValueError,
              "Starting multiplicative factor expected to be greater than 0 and less or equal to 1.");
  EMBER_CHECK(end_factor <= 1 && end_factor >= 0, ValueError,
              "Ending multiplicative factor expected to be between 0 and 1.");
  hp = {{"start_factor", start_factor}, {"end_factor", end_factor}, {"total_iters", total_iters}};
  initial_step();
}
std::vector<double> LinearLR::get_lr() {
  std::vector<double> lrs = group_lrs();
  const double s = hp.number("start_factor"), e = hp.number("end_factor"), n = hp.number("total_iters");
  for (double& lr : lrs) {
    if (last_epoch_ == 0) lr *= s;
    else if (double(last_epoch_) <= n) lr *= 1 + (e - s) / (n * s + (double(last_epoch_) - 1) * (e - s));
  }
  return lrs;
}
std::optional<std::vector<double>> LinearLR::closed_form() {
  std::vector<double> lrs;
  const double s = hp.number("start_factor"), e = hp.number("end_factor"), n = hp.number("total_iters");
  for (double b : base_lrs_) lrs.push_back(b * (s + (e - s) * std::min(n, double(last_epoch_)) / n));
  return lrs;
}

// ---- ExponentialLR: lr *= gamma every epoch
ExponentialLR::ExponentialLR(Optimizer& opt, double gamma, int64_t last_epoch) : LRScheduler(opt, last_epoch) {
  hp = {{"gamma", gamma}};
  initial_step();
}
std::vector<double> ExponentialLR::get_lr() {
  std::vector<double> lrs = group_lrs();
  if (last_epoch_ != 0)
    for (double& lr : lrs) lr *= hp.number("gamma");
  return lrs;
}
std::optional<std::vector<double>> ExponentialLR::closed_form() {
  std::vector<double> lrs;
  for (double b : base_lrs_) lrs.push_back(b * std::pow(hp.number("gamma"), double(last_epoch_)));
  return lrs;
}

// ---- PolynomialLR: base_lr (1 - epoch / total_iters)^power
PolynomialLR::PolynomialLR(Optimizer& opt, int64_t total_iters, double power, int64_t last_epoch)
    : LRScheduler(opt, last_epoch) {
  hp = {{"total_iters", total_iters}, {"power", power}};
  initial_step();
}
std::vector<double> PolynomialLR::get_lr() {
  std::vector<double> lrs = group_lrs();
  const double n = hp.number("total_iters"), e = double(last_epoch_);
  if (last_epoch_ == 0 || e > n) return lrs;
  const double f = std::pow((1 - e / n) / (1 - (e - 1) / n), hp.number("power"));
  for (double& lr : lrs) lr *= f;
  return lrs;
}
std::optional<std::vector<double>> PolynomialLR::closed_form() {
  std::vector<double> lrs;
  const double n = hp.number("total_iters");
  for (double b : base_lrs_) lrs.push_back(b * std::pow(1 - std::min(n, double(last_epoch_)) / n, hp.number("power")));
  return lrs;
}

// ---- CosineAnnealingLR: eta_min + (base - eta_min)(1 + cos(pi epoch / T_max)) / 2, as a recurrence
CosineAnnealingLR::CosineAnnealingLR(Optimizer& opt, int64_t T_max, double eta_min, int64_t last_epoch)
    : LRScheduler(opt, last_epoch) {
  hp = {{"T_max", T_max}, {"eta_min", eta_min}};
  initial_step();
}
std::vector<double> CosineAnnealingLR::get_lr() {
  std::vector<double> lrs = group_lrs();
  const double t = hp.number("T_max"), m = hp.number("eta_min"), e = double(last_epoch_);
  if (last_epoch_ == 0) return lrs;
  for (size_t i = 0; i < lrs.size(); ++i) {
    const double b = base_lrs_[i];
    if (step_count_ == 1) lrs[i] = m + (b - m) * (1 + std::cos(e * kPi / t)) / 2;  // resumed: the closed form
    else if (std::fmod(e - 1 - t, 2 * t) == 0) lrs[i] += (b - m) * (1 - std::cos(kPi / t)) / 2;
    else lrs[i] = (1 + std::cos(kPi * e / t)) / (1 + std::cos(kPi * (e - 1) / t)) * (lrs[i] - m) + m;
  }
  return lrs;
}
std::optional<std::vector<double>> CosineAnnealingLR::closed_form() {
  std::vector<double> lrs;
  const double t = hp.number("T_max"), m = hp.number("eta_min");
  for (double b : base_lrs_) lrs.push_back(m + (b - m) * (1 + std::cos(kPi * double(last_epoch_) / t)) / 2);
  return lrs;
}

// ---- CosineAnnealingWarmRestarts
CosineAnnealingWarmRestarts::CosineAnnealingWarmRestarts(Optimizer& opt, int64_t T_0, int64_t T_mult, double eta_min,
                                                         int64_t last_epoch)
    : LRScheduler(opt, last_epoch) {
  EMBER_CHECK(T_0 > 0, ValueError, "Expected positive integer T_0, but got ", T_0);
  EMBER_CHECK(T_mult >= 1, ValueError, "Expected integer T_mult >= 1, but got ", T_mult);
  hp = {{"T_0", T_0}, {"T_i", T_0}, {"T_mult", T_mult}, {"eta_min", eta_min}, {"T_cur", double(last_epoch)}};
  initial_step();
}
std::vector<double> CosineAnnealingWarmRestarts::get_lr() {
  std::vector<double> lrs;
  const double m = hp.number("eta_min"), t = hp.number("T_cur"), ti = hp.number("T_i");
  for (double b : base_lrs_) lrs.push_back(m + (b - m) * (1 + std::cos(kPi * t / ti)) / 2);
  return lrs;
}
void CosineAnnealingWarmRestarts::step() {
  if (last_epoch_ < 0) return step_to(0);
  ++step_count_;
  double t = hp.number("T_cur") + 1, ti = hp.number("T_i");
  if (t >= ti) {
    t -= ti;
    hp["T_i"] = int64_t(ti * hp.number("T_mult"));
  }
  hp["T_cur"] = t;
  ++last_epoch_;
  apply(get_lr());
}
void CosineAnnealingWarmRestarts::step_to(double epoch) {
  EMBER_CHECK(epoch >= 0, ValueError, "Expected non-negative epoch, but got ", epoch);
  ++step_count_;
  const double t0 = hp.number("T_0"), mult = hp.number("T_mult");
  if (epoch >= t0) {
    if (mult == 1) {
      hp["T_cur"] = std::fmod(epoch, t0);
    } else {
      const double n = std::floor(std::log(epoch / t0 * (mult - 1) + 1) / std::log(mult));
      hp["T_cur"] = epoch - t0 * (std::pow(mult, n) - 1) / (mult - 1);
      hp["T_i"] = int64_t(t0 * std::pow(mult, n));
    }
  } else {
    hp["T_i"] = int64_t(t0);
    hp["T_cur"] = epoch;
  }
  last_epoch_ = int64_t(std::floor(epoch));
  apply(get_lr());
}

// ---- CyclicLR
CyclicLR::CyclicLR(Optimizer& opt, std::vector<double> base_lr, std::vector<double> max_lr, Options o,
                   int64_t last_epoch)
    : LRScheduler((
                      [&] {  // the groups start at base_lr (before the base records initial_lr)
                        if (last_epoch == -1) {
                          auto lrs = per_group(base_lr, opt.param_groups().size(), "base_lr");
                          for (size_t i = 0; i < lrs.size(); ++i) (*opt.param_groups()[i])["lr"] = lrs[i];
                        }
                      }(),
                      opt),
                  last_epoch) {
  const double up = double(o.step_size_up), down = o.step_size_down ? double(*o.step_size_down) : up;
  if (!o.scale_fn) {
    EMBER_CHECK(o.mode == "triangular" || o.mode == "triangular2" || o.mode == "exp_range", ValueError,
                "mode is invalid and scale_fn is None");
    const double gamma = o.gamma;
    if (o.mode == "triangular") scale_fn_ = [](double) { return 1.0; };
    else if (o.mode == "triangular2") scale_fn_ = [](double x) { return 1 / std::pow(2.0, x - 1); };
    else scale_fn_ = [gamma](double x) { return std::pow(gamma, x); };
    o.scale_mode = o.mode == "exp_range" ? "iterations" : "cycle";
  } else {
    scale_fn_ = o.scale_fn;
  }
  hp = {{"max_lrs", per_group(max_lr, groups(), "max_lr")},
        {"total_size", up + down},
        {"step_ratio", up / (up + down)},
        {"mode", o.mode},
        {"gamma", o.gamma},
        {"scale_mode", o.scale_mode},
        {"cycle_momentum", o.cycle_momentum},
        {"use_beta1", false}};
  if (o.cycle_momentum) {
    const bool beta1 = uses_beta1(opt);
    auto base_m = per_group(o.base_momentum, groups(), "base_momentum");
    auto max_m = per_group(o.max_momentum, groups(), "max_momentum");
    if (last_epoch == -1)
      for (size_t i = 0; i < groups(); ++i) {
        ParamGroup& g = *opt.param_groups()[i];
        set_momentum(g, beta1, max_m[i]);
        g["max_momentum"] = max_m[i];
        g["base_momentum"] = base_m[i];
      }
    hp["use_beta1"] = beta1;
    hp["base_momentums"] = base_m;
    hp["max_momentums"] = max_m;
  }
  initial_step();
}
std::vector<double> CyclicLR::get_lr() {
  const double total = hp.number("total_size"), ratio = hp.number("step_ratio"), e = double(last_epoch_);
  const double cycle = std::floor(1 + e / total), x = 1 + e / total - cycle;
  const double f = x <= ratio ? x / ratio : (x - 1) / (ratio - 1);
  const double scale = scale_fn_(std::get<std::string>(hp.at("scale_mode")) == "cycle" ? cycle : e);
  std::vector<double> lrs, max_lrs = list(hp, "max_lrs");
  for (size_t i = 0; i < groups(); ++i) lrs.push_back(base_lrs_[i] + (max_lrs[i] - base_lrs_[i]) * f * scale);
  if (hp.flag("cycle_momentum")) {
    std::vector<double> base_m = list(hp, "base_momentums"), max_m = list(hp, "max_momentums");
    for (size_t i = 0; i < groups(); ++i)
      set_momentum(*opt_.param_groups()[i], hp.flag("use_beta1"), max_m[i] - (max_m[i] - base_m[i]) * f * scale);
  }
  return lrs;
}

// ---- OneCycleLR
OneCycleLR::OneCycleLR(Optimizer& opt, std::vector<double> max_lr, Options o, int64_t last_epoch)
    : LRScheduler((
                      [&] {  // initial, max and min lr in the groups (before the base reads initial_lr)
                        EMBER_CHECK(!o.total_steps || *o.total_steps > 0, ValueError,
                                    "Expected positive integer total_steps, but got ", o.total_steps.value_or(0));
                        EMBER_CHECK(o.total_steps || (o.epochs && o.steps_per_epoch), ValueError,
                                    "You must define either total_steps OR (epochs AND steps_per_epoch)");
                        EMBER_CHECK(o.total_steps || *o.epochs > 0, ValueError,
                                    "Expected positive integer epochs, but got ", *o.epochs);
                        EMBER_CHECK(o.total_steps || *o.steps_per_epoch > 0, ValueError,
                                    "Expected positive integer steps_per_epoch, but got ", *o.steps_per_epoch);
                        EMBER_CHECK(o.pct_start >= 0 && o.pct_start <= 1, ValueError,
                                    "Expected float between 0 and 1 pct_start, but got ", o.pct_start);
                        EMBER_CHECK(o.anneal_strategy == "cos" || o.anneal_strategy == "linear", ValueError,
                                    "anneal_strategy must be one of 'cos' or 'linear', instead got ",
                                    o.anneal_strategy);
                        if (last_epoch == -1) {
                          auto max = per_group(max_lr, opt.param_groups().size(), "max_lr");
                          for (size_t i = 0; i < max.size(); ++i) {
                            ParamGroup& g = *opt.param_groups()[i];
                            g["initial_lr"] = max[i] / o.div_factor;
                            g["max_lr"] = max[i];
                            g["min_lr"] = max[i] / o.div_factor / o.final_div_factor;
                          }
                        }
                      }(),
                      opt),
                  last_epoch) {
  const int64_t total = o.total_steps ? *o.total_steps : *o.epochs * *o.steps_per_epoch;
  const double up = o.pct_start * double(total) - 1;
  if (o.three_phase)
    phases_ = {{up, "initial_lr", "max_lr", "max_momentum", "base_momentum"},
               {2 * o.pct_start * double(total) - 2, "max_lr", "initial_lr", "base_momentum", "max_momentum"},
               {double(total) - 1, "initial_lr", "min_lr", "max_momentum", "max_momentum"}};
  else
    phases_ = {{up, "initial_lr", "max_lr", "max_momentum", "base_momentum"},
               {double(total) - 1, "max_lr", "min_lr", "base_momentum", "max_momentum"}};
  hp = {{"total_steps", total}, {"_anneal_func_type", o.anneal_strategy}, {"cycle_momentum", o.cycle_momentum},
        {"use_beta1", false}};
  if (o.cycle_momentum) {
    const bool beta1 = uses_beta1(opt);
    hp["use_beta1"] = beta1;
    if (last_epoch == -1) {
      auto base_m = per_group(o.base_momentum, groups(), "base_momentum");
      auto max_m = per_group(o.max_momentum, groups(), "max_momentum");
      for (size_t i = 0; i < groups(); ++i) {
        ParamGroup& g = *opt.param_groups()[i];
        set_momentum(g, beta1, max_m[i]);
        g["max_momentum"] = max_m[i];
        g["base_momentum"] = base_m[i];
      }
    }
  }
  initial_step();
}
std::vector<double> OneCycleLR::get_lr() {
  const int64_t total = int64_t(hp.number("total_steps"));
  EMBER_CHECK(last_epoch_ <= total, ValueError, "Tried to step ", last_epoch_, " times. The specified number of total "
              "steps is ", total);
  const bool cosine = std::get<std::string>(hp.at("_anneal_func_type")) == "cos";
  auto anneal = [&](double start, double end, double pct) {
    return cosine ? end + (start - end) / 2.0 * (std::cos(kPi * pct) + 1) : (end - start) * pct + start;
  };
  std::vector<double> lrs;
  const double e = double(last_epoch_);
  for (const auto& gp : opt_.param_groups()) {
    ParamGroup& g = *gp;
    double start = 0;
    for (size_t i = 0; i < phases_.size(); ++i) {
      const Phase& p = phases_[i];
      if (e <= p.end_step || i + 1 == phases_.size()) {
        EMBER_CHECK(p.end_step != start, ZeroDivisionError, "float division by zero");  // a phase of no steps
        const double pct = (e - start) / (p.end_step - start);
        lrs.push_back(anneal(g.number(p.start_lr), g.number(p.end_lr), pct));
        if (hp.flag("cycle_momentum"))
          set_momentum(g, hp.flag("use_beta1"), anneal(g.number(p.start_momentum), g.number(p.end_momentum), pct));
        break;
      }
      start = p.end_step;
    }
  }
  return lrs;
}

// ---- SequentialLR
SequentialLR::SequentialLR(Optimizer& opt, std::vector<std::shared_ptr<LRScheduler>> schedulers,
                           std::vector<int64_t> milestones, int64_t last_epoch)
    : LRScheduler(opt, -1), schedulers_(std::move(schedulers)), milestones_(std::move(milestones)) {
  EMBER_CHECK(!schedulers_.empty(), ValueError, "SequentialLR expects at least one scheduler, but got no scheduler.");
  for (size_t i = 0; i < schedulers_.size(); ++i)
    EMBER_CHECK(&schedulers_[i]->optimizer() == &opt, ValueError,
                "SequentialLR expects all schedulers to belong to the same optimizer, but got scheduler at index ", i,
                " to be different than the optimizer passed in.");
  EMBER_CHECK(milestones_.size() == schedulers_.size() - 1, ValueError,
              "Sequential Schedulers expects number of schedulers provided to be one more than the number of "
              "milestone points, but got number of schedulers ", schedulers_.size(),
              " and the number of milestones to be equal to ", milestones_.size());
  last_epoch_ = last_epoch + 1;
  // Start over: the groups at their initial rates, the first scheduler at its first epoch.
  for (const auto& g : opt.param_groups()) (*g)["lr"] = g->number("initial_lr");
  for (const auto& s : schedulers_) --s->last_epoch_;
  schedulers_[0]->initial_step();
  last_lr_ = schedulers_[0]->get_last_lr();
}
void SequentialLR::step() {
  ++last_epoch_;
  const size_t idx = std::ranges::upper_bound(milestones_, last_epoch_) - milestones_.begin();
  LRScheduler& s = *schedulers_[idx];
  if (idx > 0 && milestones_[idx - 1] == last_epoch_) {  // a new scheduler starts at its epoch 0
    ++s.step_count_;
    s.last_epoch_ = 0;
    auto closed = s.closed_form();
    s.apply(closed ? *closed : s.get_lr());
  } else {
    s.step();
  }
  last_lr_ = s.get_last_lr();
}
Dict SequentialLR::state_dict() const {
  return {{"_milestones", std::vector<double>(milestones_.begin(), milestones_.end())},
          {"last_epoch", last_epoch_},
          {"_last_lr", last_lr_}};
}
void SequentialLR::load_state_dict(const Dict& sd) {
  last_epoch_ = int64_t(sd.number("last_epoch"));
  last_lr_ = list(sd, "_last_lr");
}

// ---- ChainedScheduler
ChainedScheduler::ChainedScheduler(std::vector<std::shared_ptr<LRScheduler>> schedulers, Optimizer* opt)
    : LRScheduler(([&]() -> Optimizer& {
                    EMBER_CHECK(!schedulers.empty(), ValueError,
                                "ChainedScheduler expects at least one scheduler to be chained, but got no scheduler.");
                    return opt ? *opt : schedulers[0]->optimizer();
                  })()),
      schedulers_(std::move(schedulers)) {
  for (size_t i = 0; i < schedulers_.size(); ++i)
    EMBER_CHECK(&schedulers_[i]->optimizer() == &opt_, ValueError,
                "ChainedScheduler expects all schedulers to belong to the same optimizer, but got scheduler ", i,
                " to be different than the optimizer passed in.");
  last_lr_ = schedulers_.back()->group_lrs();
}
void ChainedScheduler::step() {
  for (const auto& s : schedulers_) s->step();
  last_lr_ = schedulers_.back()->group_lrs();
}
Dict ChainedScheduler::state_dict() const { return Dict{{"_last_lr", last_lr_}}; }
void ChainedScheduler::load_state_dict(const Dict& sd) { last_lr_ = list(sd, "_last_lr"); }

// ---- ReduceLROnPlateau
ReduceLROnPlateau::ReduceLROnPlateau(Optimizer& opt, Options o) : LRScheduler(opt) {
  EMBER_CHECK(o.factor < 1, ValueError, "Factor should be < 1.0.");
  EMBER_CHECK(o.min_lr.size() == 1 || o.min_lr.size() == groups(), ValueError, "expected ", groups(),
              " min_lrs, got ", o.min_lr.size());
  EMBER_CHECK(o.mode == "min" || o.mode == "max", ValueError, "mode ", o.mode, " is unknown!");
  EMBER_CHECK(o.threshold_mode == "rel" || o.threshold_mode == "abs", ValueError, "threshold mode ",
              o.threshold_mode, " is unknown!");
  min_lrs_ = per_group(o.min_lr, groups(), "min_lr");
  const double worse = o.mode == "min" ? INFINITY : -INFINITY;
  hp = {{"factor", o.factor},     {"min_lrs", min_lrs_},     {"patience", o.patience},
        {"cooldown", o.cooldown}, {"eps", o.eps},            {"mode_worse", worse},
        {"mode", o.mode},         {"threshold", o.threshold}, {"threshold_mode", o.threshold_mode},
        {"best", worse},          {"cooldown_counter", int64_t(0)}, {"num_bad_epochs", int64_t(0)}};
  last_lr_ = group_lrs();
}
Dict ReduceLROnPlateau::state_dict() const {
  Dict d = hp;
  d["default_min_lr"] = min_lrs_.size() == 1 || std::ranges::all_of(min_lrs_, [&](double m) { return m == min_lrs_[0]; })
                            ? Value(min_lrs_[0])
                            : Value();
  d["last_epoch"] = last_epoch_;
  d["_last_lr"] = last_lr_;
  return d;
}

void ReduceLROnPlateau::step(double metric) {
  ++last_epoch_;
  const bool min = std::get<std::string>(hp.at("mode")) == "min";
  const bool rel = std::get<std::string>(hp.at("threshold_mode")) == "rel";
  const double best = hp.number("best"), th = hp.number("threshold");
  const bool better = min ? (rel ? metric < best * (1 - th) : metric < best - th)
                          : (rel ? metric > best * (th + 1) : metric > best + th);
  int64_t bad = better ? 0 : int64_t(hp.number("num_bad_epochs")) + 1;
  if (better) hp["best"] = metric;
  if (int64_t cooldown = int64_t(hp.number("cooldown_counter")); cooldown > 0) {
    hp["cooldown_counter"] = cooldown - 1;
    bad = 0;
  }
  if (bad > int64_t(hp.number("patience"))) {
    std::vector<double> min_lrs = list(hp, "min_lrs");
    for (size_t i = 0; i < groups(); ++i) {
      ParamGroup& g = *opt_.param_groups()[i];
      const double old = g.number("lr"), lr = std::max(old * hp.number("factor"), min_lrs[i]);
      if (old - lr > hp.number("eps")) g["lr"] = lr;
    }
    hp["cooldown_counter"] = hp.at("cooldown");
    bad = 0;
  }
  hp["num_bad_epochs"] = bad;
  last_lr_ = group_lrs();
}

}  // namespace ember::optim::lr_scheduler
