// Special functions of the unary rows (include/ember/unary/special.def) in double, written once for every device:
// digamma, trigamma (its derivative), erfinv, and the modified Bessel functions i0 and i1.
#pragma once
#include <cmath>

#include "ember/host_device.h"

namespace ember::functors {

constexpr double kSpecialPi = 3.14159265358979323846;

// digamma for x > 0: the recurrence psi(x) = psi(x + 1) - 1/x up to x >= 10, then the asymptotic series.
EMBER_HOST_DEVICE inline double digamma_positive(double x) {
  double shift = 0;
  for (; x < 10; x += 1) shift -= 1 / x;
  if (x == 10) return shift + 2.25175258906672110764;  // digamma(10): integers exact, as torch's
  double z = 1 / (x * x);
  double series = z * (1.0 / 12 - z * (1.0 / 120 - z * (1.0 / 252 - z * (1.0 / 240 - z * (1.0 / 132 - z * 691.0 / 32760)))));
  return shift + std::log(x) - 0.5 / x - series;
}

// digamma(x): -inf at 0 (+inf at -0, as torch), NaN at the negative integers; reflection below 0.
EMBER_HOST_DEVICE inline double digamma_value(double x) {
  if (x == 0) return std::signbit(x) ? INFINITY : -INFINITY;
  if (x < 0) {
    if (x == std::floor(x)) return NAN;
    return digamma_positive(1 - x) - kSpecialPi / std::tan(kSpecialPi * x);  // torch's rounding of pi x
  }
  return x == INFINITY ? x : digamma_positive(x);
}

// trigamma(x) = d digamma / dx, with torch's truncation (reflection below 1/2, six recurrence steps, the series to
// its x^-7 term: about 1e-9 relative), so digamma's gradient agrees with torch's.
EMBER_HOST_DEVICE inline double trigamma_value(double x) {
  double sign = 1, reflected = 0;
  if (x < 0.5) {  // psi1(x) = pi^2 / sin^2(pi x) - psi1(1 - x)
    double s = std::sin(kSpecialPi * x);
    reflected = kSpecialPi * kSpecialPi / (s * s);
    sign = -1;
    x = 1 - x;
  }
  double shift = 0;
  for (int i = 0; i < 6; ++i, x += 1) shift += 1 / (x * x);
  double z = 1 / (x * x);
  double series = (1 + 1 / (2 * x) + z * (1.0 / 6 - z * (1.0 / 30 - z / 42))) / x;
  return sign * (shift + series) + reflected;
}

// erfinv: a closed-form first guess (relative error ~2e-3), then three Halley steps on erf (erfc for |x| > 0.5,
// whose 1 - |x| is exact), converging cubically to double precision.
EMBER_HOST_DEVICE inline double erfinv_value(double x) {
  double ax = std::fabs(x);
  if (!(ax <= 1)) return NAN;
  if (ax == 1) return std::copysign(INFINITY, x);
  if (x == 0) return x;
  constexpr double a = 0.147, two_over_sqrt_pi = 1.12837916709551257390;
  double w = std::log((1 - ax) * (1 + ax));
  double t = 2 / (kSpecialPi * a) + w / 2;
  double y = std::sqrt(std::sqrt(t * t - w / a) - t);
  for (int i = 0; i < 3; ++i) {
    double f = ax <= 0.5 ? std::erf(y) - ax : (1 - ax) - std::erfc(y);  // erf(y) - |x|
    double d = two_over_sqrt_pi * std::exp(-y * y);
    y -= f / (d + y * f);
  }
  return std::copysign(y, x);
}

// The modified Bessel functions of the first kind, orders 0 and 1, by their power series in q = x^2 / 4 (positive
// terms: no cancellation). The terms shrink past k ~ |x| / 2; 1000 terms cover every finite double result.
EMBER_HOST_DEVICE inline double bessel_series(double x, int order) {
  double q = x * x / 4, term = order == 0 ? 1.0 : x / 2, sum = term;
  for (int k = 1; k < 1000 && !(std::fabs(term) <= std::fabs(sum) * 1e-17); ++k) {
    term *= q / (double(k) * double(k + order));
    sum += term;
  }
  return sum;
}
// NaN at +-inf, as torch's.
EMBER_HOST_DEVICE inline double bessel_i0(double x) { return std::isfinite(x) ? bessel_series(x, 0) : NAN; }
EMBER_HOST_DEVICE inline double bessel_i1(double x) { return std::isfinite(x) ? bessel_series(x, 1) : NAN; }

// sin(pi x) / (pi x), 1 at 0.
template <typename C>
EMBER_HOST_DEVICE C sinc_value(C x) {
  if (x == C(0)) return C(1);
  C px = C(kSpecialPi) * x;
  return std::sin(px) / px;
}

}  // namespace ember::functors
