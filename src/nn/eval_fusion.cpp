// Sequential's fused inference path. Where no gradient is needed, a run of built-in modules Conv2d [-> BatchNorm2d in
// eval with running stats] [-> ReLU], then more such units, MaxPool2d (no indices, dilation 1) and eval
// Dropout/Dropout2d/Identity, runs as one oneDNN chain (cpu/nn/eval_chain.h): BatchNorm folded into the convolution's
// weight and bias (cached while the tensors and their versions are unchanged), ReLU a post-op, activations kept in
// oneDNN's blocked layout between the modules. Only float32 CPU NCHW-contiguous inputs whose values provably stay far
// from overflow through the chain, exactly the built-in classes (no Python subclass), no hooks; anything else runs
// module by module. Values equal the unfused path's within
// float rounding (the folded weights round differently); set_eval_fusion(false) turns it off.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <deque>
#include <limits>
#include <mutex>
#include <tuple>
#include <typeinfo>

#include "../cpu/nn/conv_kernel.h"
#include "../cpu/nn/eval_chain.h"
#include "eval_fusion.h"
#include "fusion_common.h"
#include "ember/autocast.h"
#include "ember/autograd.h"
#include "ember/creation.h"
#include "ember/nn/container.h"
#include "ember/nn/linear.h"
#include "ember/nn/modules_activation.h"
#include "ember/nn/modules_conv.h"
#include "ember/nn/modules_norm.h"
#include "ember/parallel.h"

namespace ember::nn {

namespace {

using fusion::float32;
using fusion::float32_or_none;
using fusion::needs_grad;
using fusion::plain;
using fusion::window_out;

std::atomic<bool> g_eval_fusion{true};

// max(a, b), +inf when either is nan (a nan weight or statistic must stop the fusion, not vanish from a bound).
double larger(double a, double b) { return a != a || b != b ? std::numeric_limits<double>::infinity() : std::max(a, b); }

// A convolution's weight and bias with a BatchNorm folded in, kept while its sources are the same tensors at the same
// data and version. Sources are held weakly, so a dropped model's entry goes.
struct Folded {
  struct Source {
    bool defined;
    std::weak_ptr<TensorImpl> impl;
    void* data;
    uint32_t version;
  };
  std::vector<Source> sources;
  double eps;
  Tensor weight, bias;
  // For inputs bounded by m, every value the stage computes, fused or module by module, is at most bound(m): the
  // convolution's m * raw_gain + raw_bias, BatchNorm's (that + mean) * scale + shift, the folded convolution's
  // m * gain + bias_bound (gains: the largest sum of |weights| of an output channel; the rest: largest magnitudes).
  double raw_gain = 0, raw_bias = 0, mean = 0, scale = 0, shift = 0, gain = 0, bias_bound = 0;
  double bound(double m) const {
    double conv = m * raw_gain + raw_bias;
    return larger(larger(conv, (conv + mean) * scale + shift), m * gain + bias_bound);
  }
};

// The largest sum of |w| over an output channel's weights, and the largest |b|.
std::pair<double, double> growth(const Tensor& weight, const Tensor& bias) {
  const float* w = weight.data_ptr<float>();
  int64_t out = weight.size(0), per = weight.numel() / std::max<int64_t>(out, 1);
  double gain = 0, offset = 0;
  for (int64_t o = 0; o < out; ++o) {
    double row = 0;
    for (int64_t i = 0; i < per; ++i) row += std::fabs(double(w[o * per + i]));
    gain = larger(gain, row);
    if (bias.defined()) offset = larger(offset, std::fabs(double(bias.data_ptr<float>()[o])));
  }
  return {gain, offset};
}

bool same_source(const Folded::Source& s, const Tensor& t) {
  if (!t.defined()) return !s.defined;
  return s.defined && s.impl.lock() == t.shared_impl() && s.data == t.data_ptr() && s.version == t.version();
}

// y = conv(x) * a + b per channel, a = gamma / sqrt(var + eps), b = beta - mean * a: the weights scaled by a, the
// bias (bias - mean) * a + beta. Without a BatchNorm the weights are copied.
Folded fold(const ConvNd& conv, const NormBase* bn, const std::vector<Tensor>& sources) {
  Folded f;
  for (const Tensor& t : sources) {
    if (t.defined()) f.sources.push_back({true, t.shared_impl(), t.data_ptr(), t.version()});
    else f.sources.push_back({false, {}, nullptr, 0});
  }
  f.eps = bn ? bn->eps : 0.0;
  f.weight = conv.weight.detach().clone(MemoryFormat::Contiguous);
  int64_t out = f.weight.size(0), per = f.weight.numel() / std::max<int64_t>(out, 1);
  f.bias = conv.bias.defined() ? conv.bias.detach().clone() : Tensor();
  std::tie(f.raw_gain, f.raw_bias) = growth(f.weight, f.bias);
  if (bn) {
    if (!f.bias.defined()) f.bias = zeros({out}, conv.weight.options());
    auto values = [](const Tensor& t) { return t.defined() ? t.detach().contiguous() : Tensor(); };
    Tensor gamma = values(bn->weight), beta = values(bn->bias), mean = values(bn->running_mean),
           var = values(bn->running_var);
    float* w = f.weight.data_ptr<float>();
    float* b = f.bias.data_ptr<float>();
    for (int64_t o = 0; o < out; ++o) {
      double a = (gamma.defined() ? double(gamma.data_ptr<float>()[o]) : 1.0) /
                 std::sqrt(double(var.data_ptr<float>()[o]) + bn->eps);
      double m = double(mean.data_ptr<float>()[o]), shift = beta.defined() ? double(beta.data_ptr<float>()[o]) : 0.0;
      for (int64_t i = 0; i < per; ++i) w[o * per + i] = float(double(w[o * per + i]) * a);
      b[o] = float((double(b[o]) - m) * a + shift);
      f.mean = larger(f.mean, std::fabs(m));
      f.scale = larger(f.scale, std::fabs(a));
      f.shift = larger(f.shift, std::fabs(shift));
    }
  }
  std::tie(f.gain, f.bias_bound) = growth(f.weight, f.bias);
  return f;
}

Folded folded(const ConvNd& conv, const NormBase* bn) {
  static std::mutex mutex;
  static auto& cache = *new std::deque<Folded>;  // never destroyed (see cached_weights in cpu/nn/onednn_support)
  std::vector<Tensor> sources{conv.weight, conv.bias};
  if (bn) sources.insert(sources.end(), {bn->weight, bn->bias, bn->running_mean, bn->running_var});
  double eps = bn ? bn->eps : 0.0;
  std::lock_guard lock(mutex);
  std::erase_if(cache, [](const Folded& f) { return f.sources[0].impl.expired(); });
  for (auto& f : cache) {
    bool same = f.eps == eps && f.sources.size() == sources.size();
    for (size_t k = 0; same && k < sources.size(); ++k) same = same_source(f.sources[k], sources[k]);
    if (same) return f;
  }
  cache.push_front(fold(conv, bn, sources));
  if (cache.size() > 64) cache.pop_back();
  return cache.front();
}

// A chain runs fused only while its values stay this far below float's overflow (3.4e38), so no inf appears and no
// nan can meet oneDNN's ReLU post-op (which gives 0 where torch keeps nan): bounds allow for rounding and summation.
constexpr double kNoOverflow = 1e30;

// A convolution unit from items[i] on (C, *S) = shape: its stage and how many modules it covers, or 0.
size_t conv_unit(const SequenceItems& items, size_t i, const DimVector& shape, bool grad, double& bound,
                 cpu::ChainStage& stage) {
  auto* conv = plain<Conv2d>(items[i]->value);
  if (!conv || conv->padding_mode != "zeros" || (!conv->padding_string.empty() && conv->padding_string != "valid") ||
      !float32(conv->weight) || !conv->weight.is_contiguous() || !float32_or_none(conv->bias) ||
      conv->weight.dim() != 4 || shape[0] != conv->weight.size(1) * conv->groups)
    return 0;
  if (grad && (needs_grad(conv->weight) || needs_grad(conv->bias))) return 0;
  size_t n = 1;
  NormBase* bn = i + 1 < items.size() ? plain<BatchNorm2d>(items[i + 1]->value) : nullptr;
  if (bn && (bn->is_training() || !float32(bn->running_mean) || !float32(bn->running_var) ||
             !float32_or_none(bn->weight) || !float32_or_none(bn->bias) || bn->num_features != conv->weight.size(0) ||
             bn->running_mean.numel() != bn->num_features || bn->running_var.numel() != bn->num_features ||
             (grad && (needs_grad(bn->weight) || needs_grad(bn->bias)))))
    bn = nullptr;
  n += bn != nullptr;
  stage.relu = i + n < items.size() && plain<ReLU>(items[i + n]->value);
  n += stage.relu;
  stage.conv = {conv->stride, conv->padding_string == "valid" ? DimVector(2, 0) : conv->padding, conv->dilation,
                conv->groups};
  for (int64_t d = 0; d < 2; ++d) {
    stage.out.push_back(window_out(shape[size_t(d) + 1], conv->weight.size(d + 2), stage.conv.stride[size_t(d)],
                                   stage.conv.padding[size_t(d)], stage.conv.dilation[size_t(d)], false));
    if (stage.out.back() < 1) return 0;
  }
  Folded f = folded(*conv, bn);
  bound = f.bound(bound);
  if (!(bound <= kNoOverflow)) return 0;  // also false for nan
  stage.weight = f.weight;
  stage.bias = f.bias;
  return n;
}

// A max pooling from m on (C, *S) = shape, or false.
bool pool_stage(const ModulePtr& m, const DimVector& shape, cpu::ChainStage& stage) {
  auto* pool = plain<MaxPool2d>(m);
  if (!pool || pool->return_indices) return false;
  stage.pool = true;
  stage.kernel = pool->kernel_size.expand(2);
  stage.stride = pool->stride.expand(2);
  stage.padding = pool->padding.expand(2);
  DimVector dilation = pool->dilation.expand(2);
  if (stage.kernel.size() != 2 || stage.stride.size() != 2 || stage.padding.size() != 2 || dilation.size() != 2)
    return false;
  for (size_t d = 0; d < 2; ++d) {
    int64_t k = stage.kernel[d], s = stage.stride[d], p = stage.padding[d], in = shape[d + 1];
    if (dilation[d] != 1 || k < 1 || s < 1 || p < 0 || 2 * p > k) return false;
    stage.out.push_back(window_out(in, k, s, p, 1, pool->ceil_mode));
    int64_t pad_r = (stage.out[d] - 1) * s + k - in - p;
    if (stage.out[d] < 1 || pad_r < 0 || pad_r >= k) return false;
  }
  return true;
}

bool identity_in_eval(const ModulePtr& m) {
  if (plain<Identity>(m)) return true;
  return (plain<Dropout>(m) || plain<Dropout2d>(m)) && !m->is_training();
}

}  // namespace

bool eval_fusion_enabled() { return g_eval_fusion.load(std::memory_order_relaxed); }
void set_eval_fusion(bool enabled) { g_eval_fusion.store(enabled, std::memory_order_relaxed); }

size_t run_fused_eval(const SequenceItems& items, size_t first, Tensor& x) {
  if (!eval_fusion_enabled() || !items[first]->value || typeid(*items[first]->value) != typeid(Conv2d)) return 0;
  bool grad = autograd::is_grad_enabled();
  if (!float32(x) || x.dim() != 4 || !x.is_contiguous() || x.numel() == 0 || x.size(0) < get_num_threads() ||
      (grad && x.requires_grad()) || autocast::is_enabled(DeviceType::CPU))
    return 0;
  double bound = cpu::max_abs_float32(x);  // of every value so far
  if (!(bound <= kNoOverflow)) return 0;
  std::vector<cpu::ChainStage> stages;
  DimVector shape{x.size(1), x.size(2), x.size(3)};
  size_t i = first;
  while (i < items.size()) {
    cpu::ChainStage stage;
    size_t n = conv_unit(items, i, shape, grad, bound, stage);
    if (n == 0 && pool_stage(items[i]->value, shape, stage)) n = 1;
    if (n == 0 && identity_in_eval(items[i]->value)) {
      ++i;
      continue;
    }
    if (n == 0) break;
    shape = {stage.pool ? shape[0] : stage.weight.size(0), stage.out[0], stage.out[1]};
    stages.push_back(std::move(stage));
    i += n;
  }
  if (stages.empty()) return 0;
  Tensor out = empty({x.size(0), shape[0], shape[1], shape[2]}, x.options());
  cpu::onednn_eval_chain(x, stages, out);
  x = out;
  return i - first;
}

}  // namespace ember::nn
