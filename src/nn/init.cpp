// torch.nn.init (torch/nn/init.py): the same arithmetic in double, the same draws from the generator.
#include "ember/nn/init.h"

#include <cmath>
#include <numbers>
#include <vector>

#include "ember/autograd.h"
#include "ember/creation.h"
#include "ember/indexing.h"
#include "ember/ops.h"
#include "ember/reduce.h"
#include "ember/shape_utils.h"

namespace ember::nn::init {

namespace {

int64_t correct_fan(const Tensor& tensor, std::string_view mode) {
  EMBER_CHECK(mode == "fan_in" || mode == "fan_out", ValueError, "Mode ", mode,
              " not supported, please use one of ['fan_in', 'fan_out']");
  auto [fan_in, fan_out] = calculate_fan_in_and_fan_out(tensor);
  return mode == "fan_in" ? fan_in : fan_out;
}

bool has_zero_dim(const Tensor& t) {
  for (int64_t s : t.sizes())
    if (s == 0) return true;
  return false;
}

}  // namespace

double calculate_gain(std::string_view nonlinearity, std::optional<double> param) {
  for (const char* linear : {"linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
                             "conv_transpose3d", "sigmoid"})
    if (nonlinearity == linear) return 1;
  if (nonlinearity == "tanh") return 5.0 / 3;
  if (nonlinearity == "relu") return std::sqrt(2.0);
  if (nonlinearity == "leaky_relu") return std::sqrt(2.0 / (1 + std::pow(param.value_or(0.01), 2.0)));
  if (nonlinearity == "selu") return 3.0 / 4;
  throw ValueError(str("Unsupported nonlinearity ", nonlinearity));
}

std::pair<int64_t, int64_t> calculate_fan_in_and_fan_out(const Tensor& tensor) {
  EMBER_CHECK(tensor.dim() >= 2, ValueError,
              "Fan in and fan out can not be computed for tensor with fewer than 2 dimensions");
  int64_t receptive_field = 1;
  for (int64_t i = 2; i < tensor.dim(); ++i) receptive_field *= tensor.size(i);
  return {tensor.size(1) * receptive_field, tensor.size(0) * receptive_field};
}

Tensor uniform_(const Tensor& tensor, double a, double b, Generator* generator) {
  autograd::NoGradGuard no_grad;
  Tensor t = tensor;
  return ember::uniform_(t, a, b, generator);
}

Tensor normal_(const Tensor& tensor, double mean, double std, Generator* generator) {
  autograd::NoGradGuard no_grad;
  Tensor t = tensor;
  return ember::normal_(t, mean, std, generator);
}

// torch 2.13's sampler: rejection from normal draws when [a, b] holds over 30% of the mass, else uniform
// proposals on [a, b] accepted with the normal density relative to its peak there.
Tensor trunc_normal_(const Tensor& tensor, double mean, double std, double a, double b, Generator* generator) {
  auto norm_cdf = [](double x) { return (1.0 + std::erf(x / std::sqrt(2.0))) / 2.0; };
  if (mean < a - 2 * std || mean > b + 2 * std)
    warn("mean is more than 2 std from [a, b] in nn.init.trunc_normal_. The distribution of values may be incorrect.");
  autograd::NoGradGuard no_grad;
  Tensor t = tensor;
  if (norm_cdf((b - mean) / std) - norm_cdf((a - mean) / std) > 0.3) {
    Scalar lo = full({}, a, t.options()).item(), hi = full({}, b, t.options()).item();  // the bounds in t's dtype
    Tensor result = ember::normal_(t, mean, std, generator);
    for (;;) {
      Tensor mask = logical_or(result.lt(lo), result.gt(hi));
      if (!mask.any().item<bool>()) break;
      Tensor fresh = empty_like(result);
      result = where(mask, ember::normal_(fresh, mean, std, generator), result);
    }
    if (!result.is_same(t)) t.copy_(result);
    return t;
  }
  double mode = std::max(a, std::min(mean, b));
  double log_peak = -0.5 * std::pow((mode - mean) / std, 2.0);
  Tensor accept = empty_like(t);
  auto log_density = [&](Tensor c) { return c.sub_(mean).div_(std).pow_(2).mul_(-0.5).sub_(log_peak); };
  auto rejected = [&](const Tensor& c) { return gt(ember::uniform_(accept, 0, 1, generator).log_(), c); };
  ember::uniform_(t, a, b, generator);
  Tensor pending = rejected(log_density(t.clone()));
  Tensor result = t;
  Tensor candidates = empty_like(t);
  while (pending.any().item<bool>()) {
    ember::uniform_(candidates, a, b, generator);
    result = where(pending, candidates, result);
    pending = where(pending, rejected(log_density(candidates)), pending);
  }
  if (!result.is_same(t)) t.copy_(result);
  return t;
}

Tensor constant_(const Tensor& tensor, const Scalar& val) {
  autograd::NoGradGuard no_grad;
  return Tensor(tensor).fill_(val);
}

Tensor ones_(const Tensor& tensor) { return constant_(tensor, 1); }
Tensor zeros_(const Tensor& tensor) { return constant_(tensor, 0); }

Tensor eye_(const Tensor& tensor) {
  EMBER_CHECK(tensor.dim() == 2, ValueError, "Only tensors with 2 dimensions are supported");
  autograd::NoGradGuard no_grad;
  return Tensor(tensor).copy_(eye(tensor.size(0), tensor.size(1), tensor.options()));
}

Tensor dirac_(const Tensor& tensor, int64_t groups) {
  int64_t dims = tensor.dim();
  EMBER_CHECK(dims >= 3 && dims <= 5, ValueError, "Only tensors with 3, 4, or 5 dimensions are supported");
  EMBER_CHECK(tensor.size(0) % groups == 0, ValueError, "dim 0 must be divisible by groups");
  int64_t per_group = tensor.size(0) / groups, min_dim = std::min(per_group, tensor.size(1));
  autograd::NoGradGuard no_grad;
  Tensor t = tensor;
  t.zero_();
  for (int64_t g = 0; g < groups; ++g) {
    for (int64_t d = 0; d < min_dim; ++d) {
      std::vector<indexing::TensorIndex> index{g * per_group + d, d};
      for (int64_t i = 2; i < dims; ++i) index.emplace_back(t.size(i) / 2);
      t.index_put_(index, 1);
    }
  }
  return t;
}

Tensor xavier_uniform_(const Tensor& tensor, double gain, Generator* generator) {
  auto [fan_in, fan_out] = calculate_fan_in_and_fan_out(tensor);
  double std = gain * std::sqrt(2.0 / double(fan_in + fan_out));
  double a = std::sqrt(3.0) * std;
  return uniform_(tensor, -a, a, generator);
}

Tensor xavier_normal_(const Tensor& tensor, double gain, Generator* generator) {
  auto [fan_in, fan_out] = calculate_fan_in_and_fan_out(tensor);
  double std = gain * std::sqrt(2.0 / double(fan_in + fan_out));
  return normal_(tensor, 0.0, std, generator);
}

Tensor kaiming_uniform_(const Tensor& tensor, double a, std::string_view mode, std::string_view nonlinearity,
                        Generator* generator) {
  if (has_zero_dim(tensor)) {
    warn("Initializing zero-element tensors is a no-op");
    return tensor;
  }
  double std = calculate_gain(nonlinearity, a) / std::sqrt(double(correct_fan(tensor, mode)));
  double bound = std::sqrt(3.0) * std;
  return uniform_(tensor, -bound, bound, generator);
}

Tensor kaiming_normal_(const Tensor& tensor, double a, std::string_view mode, std::string_view nonlinearity,
                       Generator* generator) {
  if (has_zero_dim(tensor)) {
    warn("Initializing zero-element tensors is a no-op");
    return tensor;
  }
  double std = calculate_gain(nonlinearity, a) / std::sqrt(double(correct_fan(tensor, mode)));
  return normal_(tensor, 0.0, std, generator);
}

Tensor orthogonal_(const Tensor& tensor, double gain, Generator* generator) {
  EMBER_CHECK(tensor.dim() >= 2, ValueError, "Only tensors with 2 or more dimensions are supported");
  if (tensor.numel() == 0) return tensor;
  autograd::NoGradGuard no_grad;
  int64_t rows = tensor.size(0), cols = tensor.numel() / rows;
  Tensor flat = empty({rows, cols}, tensor.options().with_device(kCPU));  // factored on the host, then copied in
  ember::normal_(flat, 0, 1, generator);
  if (rows < cols) flat = flat.t();
  // Householder QR of the (m, n) matrix a, m >= n, in double; Q's columns take the signs of R's diagonal.
  int64_t m = flat.size(0), n = flat.size(1);
  Tensor a64 = flat.to(kFloat64).contiguous().clone();
  double* a = a64.data_ptr<double>();
  std::vector<std::vector<double>> vs;
  std::vector<double> sign(n);
  for (int64_t k = 0; k < n; ++k) {
    std::vector<double> v(m - k);
    double norm = 0;
    for (int64_t i = k; i < m; ++i) norm += a[i * n + k] * a[i * n + k];
    norm = std::sqrt(norm);
    double alpha = a[k * n + k] > 0 ? -norm : norm;  // R's diagonal entry
    for (int64_t i = k; i < m; ++i) v[i - k] = a[i * n + k];
    v[0] -= alpha;
    double vnorm = 0;
    for (double x : v) vnorm += x * x;
    if (vnorm > 0)
      for (int64_t j = k; j < n; ++j) {  // a[k:, j] -= 2 v (v . a[k:, j]) / |v|^2
        double dot = 0;
        for (int64_t i = k; i < m; ++i) dot += v[i - k] * a[i * n + j];
        for (int64_t i = k; i < m; ++i) a[i * n + j] -= 2 * dot / vnorm * v[i - k];
      }
    sign[k] = a[k * n + k] > 0 ? 1.0 : a[k * n + k] < 0 ? -1.0 : 0.0;
    vs.push_back(vnorm > 0 ? v : std::vector<double>());
  }
  Tensor q64 = zeros({m, n}, kFloat64);
  double* q = q64.data_ptr<double>();
  for (int64_t j = 0; j < n; ++j) q[j * n + j] = 1;
  for (int64_t k = n - 1; k >= 0; --k) {  // Q = H_0 ... H_{n-1} E
    const auto& v = vs[k];
    if (v.empty()) continue;
    double vnorm = 0;
    for (double x : v) vnorm += x * x;
    for (int64_t j = 0; j < n; ++j) {
      double dot = 0;
      for (int64_t i = k; i < m; ++i) dot += v[i - k] * q[i * n + j];
      for (int64_t i = k; i < m; ++i) q[i * n + j] -= 2 * dot / vnorm * v[i - k];
    }
  }
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) q[i * n + j] *= sign[j];
  Tensor result = q64.to(tensor.dtype());
  if (rows < cols) result = result.t();
  Tensor t = tensor;
  t.view(result.sizes()).copy_(result);
  return t.mul_(gain);
}

Tensor sparse_(const Tensor& tensor, double sparsity, double std, Generator* generator) {
  EMBER_CHECK(tensor.dim() == 2, ValueError, "Only tensors with 2 dimensions are supported");
  int64_t rows = tensor.size(0), cols = tensor.size(1);
  auto num_zeros = int64_t(std::ceil(sparsity * double(rows)));
  autograd::NoGradGuard no_grad;
  Tensor t = tensor;
  ember::normal_(t, 0, std, generator);
  for (int64_t col = 0; col < cols; ++col) {
    Tensor zero_rows = randperm(rows, kInt64).slice(0, 0, num_zeros);
    t.index_put_({indexing::TensorIndex(zero_rows), indexing::TensorIndex(col)}, 0);
  }
  return t;
}

}  // namespace ember::nn::init
