// Derivatives of the unary ops of unary_ops.def, one line each:
// EMBER_UNARY_GRAD(op, node name, saves input, saves result, formula in g (incoming), x, r (result)).
#include <cmath>

#include "ember/creation.h"
#include "ember/ops.h"
#include "ember/type_promotion.h"
#include "formulas.h"
#include "unary_grad.h"

namespace ember::autograd {

namespace {

Tensor one_minus(const Tensor& t) { return sub(wrapped_scalar(1), t); }
Tensor non_differentiable(const Tensor& g) { return zeros_like(g); }
[[noreturn]] Tensor unsupported_derivative(const char* what) {
  throw NotImplementedError(str("the derivative of ", what, " is not implemented"));
}

// d/dx sin(pi x) / (pi x) = (cos(pi x) - sinc(x)) / x, 0 at x = 0 (and for tiny x, where both terms are 1).
Tensor sinc_grad(const Tensor& x) {
  Tensor d = div(sub(cos(x * M_PI), sinc(x)), x);
  return where(eq(x, wrapped_scalar(0)), wrapped_scalar(0), d);
}

// 0.5 (1 + t) + 0.5 x (1 - t^2) k (1 + 3 c x^2), with t = tanh(k x (1 + c x^2)).
Tensor gelu_tanh_grad(const Tensor& g, const Tensor& x) {
  constexpr double k = 0.79788456080286535588, cubic = 0.044715;
  Tensor x2 = mul(x, x);
  Tensor t = tanh(mul(x, x2 * cubic + 1) * k);
  Tensor inner = (x2 * (3 * cubic) + 1) * k;
  return mul(g, add((t + 1) * 0.5, mul(mul(x * 0.5, one_minus(mul(t, t))), inner)));
}

// Records a unary op whose formula reads the input x and/or the result r.
void record_unary(const char* node, const Tensor& result, const Tensor& self, bool saves_x, bool saves_r,
                  BackwardFormula formula) {
  if (saves_x && saves_r) record(node, result, {&self}, {&self, &result}, std::move(formula));
  else if (saves_x) record(node, result, {&self}, {&self}, std::move(formula));
  else if (saves_r) record(node, result, {&self}, {&result}, std::move(formula));
  else record(node, result, {&self}, {}, std::move(formula));
}

}  // namespace

// The input (x) or result (r) a formula reads, where its row declares it saved; else a NotSaved, whose use in
// the formula does not compile (a formula cannot read what its node does not keep).
struct NotSaved {};
template <bool Saved>
decltype(auto) saved_operand(const BackwardContext& c, size_t i) {
  if constexpr (Saved) return (c.saved[i]);
  else return NotSaved{};
}

#define EMBER_UNARY_GRAD(op, node, saves_x, saves_r, formula)                                   \
  void record_##op(const Tensor& result, const Tensor& self) {                                  \
    record_unary(node, result, self, saves_x, saves_r, [](const BackwardContext& c) {            \
      [[maybe_unused]] const Tensor& g = c.grads[0];                                            \
      [[maybe_unused]] decltype(auto) x = saved_operand<saves_x>(c, 0);                         \
      [[maybe_unused]] decltype(auto) r = saved_operand<saves_r>(c, saves_x ? 1 : 0);           \
      return TensorList{formula};                                                               \
    });                                                                                         \
  }                                                                                             \
  bool saves_input_##op() { return saves_x; }

constexpr double kLn2 = 0.69314718055994530942, kLn10 = 2.30258509299404568402;
constexpr double kTwoOverSqrtPi = 1.12837916709551257390;

EMBER_UNARY_GRAD(exp, "ExpBackward0", false, true, mul(g, r))
EMBER_UNARY_GRAD(exp2, "Exp2Backward0", false, true, mul(g, r * kLn2))
EMBER_UNARY_GRAD(expm1, "Expm1Backward0", false, true, mul(g, r + 1))
EMBER_UNARY_GRAD(log, "LogBackward0", true, false, div(g, x))
EMBER_UNARY_GRAD(log2, "Log2Backward0", true, false, div(g, x * kLn2))
EMBER_UNARY_GRAD(log10, "Log10Backward0", true, false, div(g, x * kLn10))
EMBER_UNARY_GRAD(log1p, "Log1PBackward0", true, false, div(g, x + 1))
EMBER_UNARY_GRAD(sqrt, "SqrtBackward0", false, true, div(g, r * 2))
EMBER_UNARY_GRAD(rsqrt, "RsqrtBackward0", false, true, mul(g, mul(r, mul(r, r)) * -0.5))
EMBER_UNARY_GRAD(sin, "SinBackward0", true, false, mul(g, cos(x)))
EMBER_UNARY_GRAD(cos, "CosBackward0", true, false, mul(g, neg(sin(x))))
EMBER_UNARY_GRAD(tan, "TanBackward0", false, true, mul(g, mul(r, r) + 1))
EMBER_UNARY_GRAD(asin, "AsinBackward0", true, false, div(g, sqrt(one_minus(mul(x, x)))))
EMBER_UNARY_GRAD(acos, "AcosBackward0", true, false, neg(div(g, sqrt(one_minus(mul(x, x))))))
EMBER_UNARY_GRAD(atan, "AtanBackward0", true, false, div(g, mul(x, x) + 1))
EMBER_UNARY_GRAD(sinh, "SinhBackward0", true, false, mul(g, cosh(x)))
EMBER_UNARY_GRAD(cosh, "CoshBackward0", true, false, mul(g, sinh(x)))
EMBER_UNARY_GRAD(tanh, "TanhBackward0", false, true, mul(g, one_minus(mul(r, r))))
EMBER_UNARY_GRAD(sigmoid, "SigmoidBackward0", false, true, mul(g, mul(r, one_minus(r))))
EMBER_UNARY_GRAD(silu, "SiluBackward0", true, false,  // one fused pass outside double backward
                 !is_grad_enabled() ? activation_backward(Activation::Silu, g, x, {}, false)
                 : mul(g, mul(sigmoid(x), add(mul(x, one_minus(sigmoid(x))), wrapped_scalar(1)))))
EMBER_UNARY_GRAD(erf, "ErfBackward0", true, false, mul(g, exp(neg(mul(x, x))) * kTwoOverSqrtPi))
EMBER_UNARY_GRAD(erfc, "ErfcBackward0", true, false, mul(g, exp(neg(mul(x, x))) * -kTwoOverSqrtPi))
EMBER_UNARY_GRAD(reciprocal, "ReciprocalBackward0", false, true, neg(mul(g, mul(r, r))))
EMBER_UNARY_GRAD(abs, "AbsBackward0", true, false, mul(g, sign(x)))
EMBER_UNARY_GRAD(neg, "NegBackward0", false, false, neg(g))
// relu and gelu: one fused kernel pass, or (create_graph) ops that differentiate again. NaN passes g.
EMBER_UNARY_GRAD(relu, "ReluBackward0", false, true,
                 is_grad_enabled() ? where(le(r, wrapped_scalar(0)), wrapped_scalar(0), g)
                                   : activation_backward(Activation::Threshold, g, r, {}, true))
EMBER_UNARY_GRAD(floor, "FloorBackward0", false, false, non_differentiable(g))
EMBER_UNARY_GRAD(ceil, "CeilBackward0", false, false, non_differentiable(g))
EMBER_UNARY_GRAD(trunc, "TruncBackward0", false, false, non_differentiable(g))
EMBER_UNARY_GRAD(round, "RoundBackward0", false, false, non_differentiable(g))
EMBER_UNARY_GRAD(sign, "SignBackward0", false, false, non_differentiable(g))
EMBER_UNARY_GRAD(square, "PowBackward0", true, false, mul(g, x * 2))  // torch's square is pow(x, 2)
EMBER_UNARY_GRAD(frac, "FracBackward0", false, false, g)
EMBER_UNARY_GRAD(gelu_erf, "GeluBackward0", true, false,
                 !is_grad_enabled() ? activation_backward(Activation::GeluErf, g, x, {}, false)
                 : mul(g, add(mul(erf(x * M_SQRT1_2) + 1, wrapped_scalar(0.5)),
                              mul(x, exp(mul(x, x) * -0.5) * (0.5 * kTwoOverSqrtPi * M_SQRT1_2)))))
EMBER_UNARY_GRAD(gelu_tanh, "GeluBackward0", true, false,
                 is_grad_enabled() ? gelu_tanh_grad(g, x) : activation_backward(Activation::GeluTanh, g, x, {}, false))
EMBER_UNARY_GRAD(bitwise_not, "BitwiseNotBackward0", false, false, non_differentiable(g))
EMBER_UNARY_GRAD(asinh, "AsinhBackward0", true, false, mul(g, rsqrt(mul(x, x) + 1)))
EMBER_UNARY_GRAD(acosh, "AcoshBackward0", true, false, mul(g, rsqrt(mul(x, x) - 1)))
EMBER_UNARY_GRAD(atanh, "AtanhBackward0", true, false, div(g, one_minus(mul(x, x))))
EMBER_UNARY_GRAD(deg2rad, "Deg2RadBackward0", false, false, g * (M_PI / 180))
EMBER_UNARY_GRAD(rad2deg, "Rad2DegBackward0", false, false, g * (180 / M_PI))
EMBER_UNARY_GRAD(sinc, "SincBackward0", true, false, mul(g, sinc_grad(x)))
EMBER_UNARY_GRAD(sgn, "SgnBackward0", false, false, non_differentiable(g))
EMBER_UNARY_GRAD(lgamma, "LgammaBackward0", true, false, mul(g, digamma(x)))
EMBER_UNARY_GRAD(digamma, "DigammaBackward0", true, false, mul(g, trigamma(x)))
EMBER_UNARY_GRAD(trigamma, "PolygammaBackward0", false, false, unsupported_derivative("polygamma(1, x)"))
EMBER_UNARY_GRAD(erfinv, "ErfinvBackward0", false, true, mul(g, exp(mul(r, r)) * (0.5 * std::sqrt(M_PI))))
EMBER_UNARY_GRAD(i0, "I0Backward0", true, false, mul(g, i1(x)))
// i1' = i0 - i1 / x, 1/2 at 0 (and at NaN, as torch's)
EMBER_UNARY_GRAD(i1, "SpecialI1Backward0", true, false,
                 mul(g, where(logical_or(eq(x, wrapped_scalar(0)), isnan(x)), wrapped_scalar(0.5),
                              sub(i0(x), div(i1(x), x)))))
#undef EMBER_UNARY_GRAD

}  // namespace ember::autograd
