// torch.optim.LBFGS: the two-loop recursion over a flat view of every parameter, with torch's strong Wolfe line search.
#include <cmath>

#include "ember/autograd.h"
#include "ember/creation.h"
#include "ember/ops.h"
#include "ember/optim/optimizer.h"
#include "options.h"

namespace ember::optim {

using detail::check_min;
using detail::merged;

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
