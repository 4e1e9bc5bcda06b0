// Dropout: torch's _dropout_impl (a bernoulli noise tensor, scaled, multiplied in), so node names (MulBackward0,
// AddBackward0) and masks are torch's.
#include "ember/nn/dropout.h"

#include <cmath>
#include <mutex>

#include "ember/creation.h"
#include "ember/ops.h"
#include "ember/parallel.h"
#include "ember/random.h"
#include "ember/type_promotion.h"
#include "../dispatch/random_kernels.h"

namespace ember {

namespace {

// A dense noise tensor filled as torch's CPU bernoulli_(keep) then div_(keep): value where a 53-bit uniform drawn per
// element in memory order is below keep, else 0. torch's serial kernel (its MKL one runs on Intel CPUs only). A device
// tensor draws on its device (draw_on_device), never through a host pointer.
void fill_bernoulli(const Tensor& noise, double keep, double value) {
  if (draw_on_device(noise, nullptr, {.dist = RandomDist::Bernoulli, .p0 = keep, .p1 = value})) return;
  GeneratorState& g = default_generator().state();
  visit_dtype(noise.dtype(), [&]<typename T>(T) {
    if constexpr (std::is_floating_point_v<T> || std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>) {
      T* p = noise.data_ptr<T>();
      const T one = T(value), zero = T(0);
      Unlocked unlocked(noise.numel() > kUnlockElements);
      std::lock_guard<std::mutex> lock(g.mutex);
      for (int64_t i = 0, n = noise.numel(); i < n; ++i) {
        uint64_t hi = g.engine(), lo = g.engine();
        double u = double(((hi << 32) | lo) & ((uint64_t(1) << 53) - 1)) * (1.0 / double(uint64_t(1) << 53));
        p[i] = u < keep ? one : zero;
      }
    }
  });
}

// input * noise (or, in place, input.mul_(noise)).
Tensor multiply(const Tensor& input, const Tensor& noise, bool inplace) {
  if (!inplace) return mul(input, noise);
  Tensor self = input;
  return self.mul_(noise);
}

Tensor dropout_impl(const Tensor& input, double p, bool train, bool feature, bool alpha, bool inplace) {
  EMBER_CHECK(p >= 0 && p <= 1, Error, "dropout probability has to be between 0 and 1, but got ", p);
  if (p == 0 || !train || input.numel() == 0) return input;
  if (p == 1) return multiply(input, zeros({}, input.options()), inplace);
  Tensor noise;
  if (feature) {
    EMBER_CHECK(input.dim() >= 2, Error, "Feature dropout requires at least 2 dimensions in the input");
    DimVector shape(size_t(input.dim()), 1);
    shape[0] = input.size(0);
    shape[1] = input.size(1);
    noise = empty(shape, input.options().with_requires_grad(false));
  } else {
    noise = empty_like(input, input.options().with_requires_grad(false));
  }
  // torch draws integer noise too, then fails to scale it in place.
  EMBER_CHECK(noise.is_floating_point(), Error, "result type Float can't be cast to the desired output type ",
              legacy_name(noise.dtype()));
  double keep = 1 - p;
  if (!alpha) {
    // torch's noise.div_(1 - p): 1 / (1 - p) in the dtype's compute precision, rounded to the dtype.
    double value = noise.dtype() == kFloat64 ? 1.0 / keep : double(1.0f / float(keep));
    fill_bernoulli(noise, keep, value);
    return multiply(input, noise, inplace);
  }
  fill_bernoulli(noise, keep, 1.0);
  constexpr double kAlpha = 1.7580993408473766;
  double a = 1. / std::sqrt((kAlpha * kAlpha * p + 1) * (1 - p));
  Tensor b = add(mul(add(noise, wrapped_scalar(-1)), wrapped_scalar(kAlpha * a)), wrapped_scalar(kAlpha * a * p));
  noise = mul(noise, wrapped_scalar(a));
  Tensor r = multiply(input, noise, inplace);
  return inplace ? r.add_(b) : add(r, b);
}

}  // namespace

Tensor dropout(const Tensor& input, double p, bool train) { return dropout_impl(input, p, train, false, false, false); }
Tensor& dropout_(Tensor& input, double p, bool train) {
  dropout_impl(input, p, train, false, false, true);
  return input;
}
Tensor feature_dropout(const Tensor& input, double p, bool train) {
  return dropout_impl(input, p, train, true, false, false);
}
Tensor& feature_dropout_(Tensor& input, double p, bool train) {
  dropout_impl(input, p, train, true, false, true);
  return input;
}
Tensor alpha_dropout(const Tensor& input, double p, bool train) {
  return dropout_impl(input, p, train, false, true, false);
}
Tensor& alpha_dropout_(Tensor& input, double p, bool train) {
  dropout_impl(input, p, train, false, true, true);
  return input;
}
Tensor feature_alpha_dropout(const Tensor& input, double p, bool train) {
  return dropout_impl(input, p, train, true, true, false);
}
Tensor& feature_alpha_dropout_(Tensor& input, double p, bool train) {
  dropout_impl(input, p, train, true, true, true);
  return input;
}

}  // namespace ember

namespace ember::nn::functional {

namespace {

void check_p(double p) {
  EMBER_CHECK(p >= 0 && p <= 1, ValueError, "dropout probability has to be between 0 and 1, but got ", p);
}

// feature_dropout, with a batch dim added first when add_batch (unbatched dropout1d/3d inputs).
Tensor feature_batched(const Tensor& input, double p, bool training, bool inplace, bool add_batch) {
  Tensor x = add_batch ? input.unsqueeze(0) : input;
  if (inplace) {
    feature_dropout_(x, p, training);
    return input;
  }
  Tensor r = feature_dropout(x, p, training);
  return add_batch ? r.squeeze(0) : r;
}

}  // namespace

Tensor dropout(const Tensor& input, double p, bool training, bool inplace) {
  check_p(p);
  Tensor x = input;
  return inplace ? dropout_(x, p, training) : ember::dropout(input, p, training);
}

Tensor dropout1d(const Tensor& input, double p, bool training, bool inplace) {
  check_p(p);
  int64_t d = input.dim();
  EMBER_CHECK(d == 2 || d == 3, Error, "dropout1d: Expected 2D or 3D input, but received a ", d, "D input. Note that "
              "dropout1d exists to provide channel-wise dropout on inputs with 1 spatial dimension, a channel "
              "dimension, and an optional batch dimension (i.e. 2D or 3D inputs).");
  return feature_batched(input, p, training, inplace, d == 2);
}

Tensor dropout2d(const Tensor& input, double p, bool training, bool inplace) {
  check_p(p);
  int64_t d = input.dim();
  if (d != 3 && d != 4) {
    warn(str("dropout2d: Received a ", d, "-D input to dropout2d, which is deprecated and will result in an error in a "
             "future release. To retain the behavior and silence this warning, please use dropout instead. Note that "
             "dropout2d exists to provide channel-wise dropout on inputs with 2 spatial dimensions, a channel "
             "dimension, and an optional batch dimension (i.e. 3D or 4D inputs)."));
  }
  if (d == 3) {
    warn("dropout2d: Received a 3D input to dropout2d and assuming that channel-wise 1D dropout behavior is desired - "
         "input is interpreted as shape (N, C, L), where C is the channel dim. This behavior will change in a future "
         "release to interpret the input as one without a batch dimension, i.e. shape (C, H, W). To maintain the 1D "
         "channel-wise dropout behavior, please switch to using dropout1d instead.");
  }
  return feature_batched(input, p, training, inplace, false);
}

Tensor dropout3d(const Tensor& input, double p, bool training, bool inplace) {
  check_p(p);
  int64_t d = input.dim();
  if (d != 4 && d != 5) {
    warn(str("dropout3d: Received a ", d, "-D input to dropout3d, which is deprecated and will result in an error in a "
             "future release. To retain the behavior and silence this warning, please use dropout instead. Note that "
             "dropout3d exists to provide channel-wise dropout on inputs with 3 spatial dimensions, a channel "
             "dimension, and an optional batch dimension (i.e. 4D or 5D inputs)."));
  }
  return feature_batched(input, p, training, inplace, d != 5);
}

Tensor alpha_dropout(const Tensor& input, double p, bool training, bool inplace) {
  check_p(p);
  Tensor x = input;
  return inplace ? alpha_dropout_(x, p, training) : ember::alpha_dropout(input, p, training);
}

Tensor feature_alpha_dropout(const Tensor& input, double p, bool training, bool inplace) {
  check_p(p);
  Tensor x = input;
  return inplace ? feature_alpha_dropout_(x, p, training) : ember::feature_alpha_dropout(input, p, training);
}

}  // namespace ember::nn::functional
