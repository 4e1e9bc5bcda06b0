// Sequential's fused training path. Where gradients are recorded, a run of built-in Conv2d -> BatchNorm2d (training,
// batch statistics) -> ReLU units, each optionally followed by a MaxPool2d of 2x2 windows at stride 2 and then a
// Dropout2d, runs as one chain (cpu/nn/train_chain.h): activations stay in oneDNN's nChw8c layout between the layers,
// BatchNorm's affine map and ReLU are one pass (with the pooling), their gradients two, and the whole chain is one
// autograd node named as the last module's (MaxPool2DWithIndicesBackward0, MulBackward0 or ReluBackward0) with edges
// to the input and every parameter. Running statistics
// and num_batches_tracked are updated as BatchNorm's forward does. Only float32 CPU NCHW-contiguous inputs of more
// than one sample, exact built-in classes without hooks, groups 1, zeros padding, channel counts a multiple of 8
// after each convolution; anything else runs module by module. set_train_fusion(false) turns it off. 3x3 convolutions
// run as Winograd F(2x2, 3x3) where it fits (cpu/nn/conv_winograd.h) unless set_winograd(false).
#include <atomic>
#include <cmath>

#include "../autograd/function.h"
#include "../cpu/nn/train_chain.h"
#include "ember/autocast.h"
#include "ember/creation.h"
#include "ember/nn/container.h"
#include "ember/nn/modules_activation.h"
#include "ember/nn/modules_conv.h"
#include "ember/nn/modules_norm.h"
#include "ember/ops.h"
#include "ember/type_promotion.h"
#include "fusion_common.h"
#include "train_fusion.h"

namespace ember::nn {

namespace {

using fusion::float32;
using fusion::needs_grad;
using fusion::plain;

std::atomic<bool> g_train_fusion{true}, g_winograd{true};

bool float32_param(const Tensor& t, int64_t n) {
  return !t.defined() || (float32(t) && t.is_contiguous() && t.numel() == n);
}

// One Conv2d -> BatchNorm2d -> ReLU unit of the chain, optionally followed by a 2x2/2 MaxPool2d and then a
// Dropout2d.
struct UnitModules {
  ConvNd* conv;
  NormBase* bn;
  bool pool = false;
  DropoutBase* drop = nullptr;
};

// The unit at items[i] on (N, C, H, W) = dims, its output dims into `out`; false where the modules do not fit.
bool match_unit(const SequenceItems& items, size_t i, const DimVector& dims, UnitModules& u, DimVector& out) {
  if (i + 2 >= items.size()) return false;
  auto* conv = plain<Conv2d>(items[i]->value);
  auto* bn = plain<BatchNorm2d>(items[i + 1]->value);
  if (!conv || !bn || !plain<ReLU>(items[i + 2]->value) || !bn->is_training()) return false;
  const Tensor& w = conv->weight;
  if (conv->padding_mode != "zeros" || (!conv->padding_string.empty() && conv->padding_string != "valid") ||
      conv->groups != 1 || !float32(w) || !w.is_contiguous() || w.dim() != 4 || w.size(1) != dims[1] ||
      w.size(0) % 8 != 0 || !float32_param(conv->bias, w.size(0)))
    return false;
  int64_t c = w.size(0);
  if (bn->num_features != c || !float32_param(bn->weight, c) || !float32_param(bn->bias, c)) return false;
  if (bn->track_running_stats && (!float32_param(bn->running_mean, c) || !float32_param(bn->running_var, c)))
    return false;
  bool valid = conv->padding_string == "valid";
  out = {dims[0], c};
  for (size_t d = 0; d < 2; ++d) {
    out.push_back(fusion::window_out(dims[d + 2], w.size(int64_t(d) + 2), conv->stride[d], valid ? 0 : conv->padding[d],
                                     conv->dilation[d], false));
    if (out.back() < 1) return false;
  }
  if (out[0] * out[2] * out[3] <= 1) return false;  // batch_norm's "more than 1 value per channel" error
  u = {conv, bn};
  return true;
}

bool pool_2x2(const ModulePtr& m, const DimVector& dims) {
  auto* pool = plain<MaxPool2d>(m);
  if (!pool || pool->return_indices || pool->ceil_mode || dims[2] < 2 || dims[3] < 2) return false;
  return pool->kernel_size.expand(2) == DimVector{2, 2} && pool->stride.expand(2) == DimVector{2, 2} &&
         pool->padding.expand(2) == DimVector{0, 0} && pool->dilation.expand(2) == DimVector{1, 1};
}

// The chain from items[first] on x's dims: its units, each unit's input dims and convolution output dims; how many
// modules it covers.
struct Chain {
  std::vector<UnitModules> units;
  std::vector<DimVector> in_dims, conv_dims;
  DimVector out_dims;
  size_t modules = 0;
};

Chain match_chain(const SequenceItems& items, size_t first, const Tensor& x) {
  Chain ch;
  DimVector dims(x.sizes()), out;
  size_t i = first;
  for (UnitModules u; match_unit(items, i, dims, u, out);) {
    ch.in_dims.push_back(dims);
    ch.conv_dims.push_back(out);
    dims = out;
    i += 3;
    if (i < items.size() && pool_2x2(items[i]->value, dims)) {
      u.pool = true;
      dims[2] /= 2;
      dims[3] /= 2;
      u.drop = ++i < items.size() ? plain<Dropout2d>(items[i]->value) : nullptr;
      i += u.drop != nullptr;
    }
    ch.units.push_back(u);
  }
  ch.out_dims = dims;
  ch.modules = i - first;
  return ch;
}

// BatchNorm's forward bookkeeping: num_batches_tracked and the running averages (in double, as batch_norm's).
void update_running(NormBase& bn, const Tensor& mean, const Tensor& var, double count) {
  if (!bn.track_running_stats) return;
  autograd::NoGradGuard no_grad;
  double factor = bn.momentum.value_or(0.0);
  if (bn.num_batches_tracked.defined()) {
    bn.num_batches_tracked.add_(1);
    if (!bn.momentum) factor = 1.0 / double(bn.num_batches_tracked.item<int64_t>());
  }
  auto update = [&](Tensor& running, const Tensor& stat, double scale) {
    if (!running.defined()) return;
    running.copy_(add(mul(stat.to(kFloat64), wrapped_scalar(factor * scale)),
                      mul(running.to(kFloat64), wrapped_scalar(1 - factor))));
  };
  update(bn.running_mean, mean, 1.0);
  update(bn.running_var, var, count / (count - 1));
}

// A unit's forward: its convolution, the convolution's output (nChw8c), the batch statistics and BatchNorm's map
// x * scale + shift (float32, per channel), Dropout2d's scaled mask (float32 (N, C); undefined: none).
struct Unit {
  cpu::TrainConv c;
  Tensor conv, mean, invstd, scale, shift, mask;
};

// What backward needs of unit u beside its saved tensors.
struct UnitMeta {
  ConvGeometry geometry;
  bool src_blocked, pool, winograd;
  DimVector src_dims, out_dims;
};

// The saved tensors of a unit, in this order.
enum Saved { kWeight, kBias, kGamma, kSrc, kConv, kMean, kInvstd, kScale, kShift, kMask, kPerUnit };

// Unit u's convolution and batch statistics on src (running stats updated); BatchNorm's map into t.
void conv_bn(const UnitModules& m, const Tensor& src, bool blocked, const DimVector& in, const DimVector& out,
             Unit& t) {
  TensorOptions f32(kFloat32);
  ConvNd& conv = *m.conv;
  NormBase& bn = *m.bn;
  bool valid = conv.padding_string == "valid";
  t.c = {conv.weight.detach(), conv.bias.defined() ? conv.bias.detach() : Tensor(),
         {conv.stride, valid ? DimVector(2, 0) : conv.padding, conv.dilation, 1}, src, blocked, in, out,
         winograd_enabled()};
  int64_t ch = out[1], numel = ch * out[0] * out[2] * out[3];
  t.conv = empty({numel}, f32);
  cpu::train_conv_forward(t.c, t.conv);
  Tensor var = empty({ch}, f32);
  t.mean = empty({ch}, f32);
  cpu::blocked_stats(t.conv, out, t.mean, var);
  update_running(bn, t.mean, var, double(numel / ch));
  // batch_norm's map x * scale + shift in float: scale = gamma * invstd, shift = beta - mean * scale (a constant
  // channel's invstd from the double variance, its shift rounded once)
  t.invstd = empty({ch}, f32);
  t.scale = empty({ch}, f32);
  t.shift = empty({ch}, f32);
  const float *pm = t.mean.data_ptr<float>(), *pv = var.data_ptr<float>();
  const float* pw = bn.weight.defined() ? bn.weight.data_ptr<float>() : nullptr;
  const float* pb = bn.bias.defined() ? bn.bias.data_ptr<float>() : nullptr;
  float *pi = t.invstd.data_ptr<float>(), *psc = t.scale.data_ptr<float>(), *psh = t.shift.data_ptr<float>();
  for (int64_t c = 0; c < ch; ++c) {
    bool constant = pv[c] == 0;
    pi[c] = constant ? float(1 / std::sqrt(double(bn.eps))) : 1.f / std::sqrt(pv[c] + float(bn.eps));
    psc[c] = pw ? pw[c] * pi[c] : pi[c];
    float beta = pb ? pb[c] : 0.f;
    psh[c] = constant ? float(double(beta) - double(pm[c]) * double(psc[c])) : beta - pm[c] * psc[c];
  }
}

// Dropout2d's scaled noise for an (N, C, ...) input, drawn as the module draws it (the same random numbers): the
// module's function on ones of shape (N, C, 1, 1).
Tensor dropout_mask(DropoutBase& drop, int64_t n, int64_t c) {
  autograd::NoGradGuard no_grad;
  return drop(ones({n, c, 1, 1}, TensorOptions(kFloat32).device(kCPU))).contiguous();
}

// The node's name: the chain's last module's backward, as module by module.
const char* node_name(const UnitModules& last) {
  if (last.drop && last.drop->is_training() && last.drop->p > 0) return "MulBackward0";
  return last.pool ? "MaxPool2DWithIndicesBackward0" : "ReluBackward0";
}

autograd::TensorList chain_backward(const autograd::BackwardContext& c, const std::vector<UnitMeta>& meta,
                                    const DimVector& out_dims) {
  size_t units = meta.size();
  autograd::TensorList grads(1 + 4 * units);
  Tensor g = c.grads[0];
  if (!g.defined()) return grads;
  autograd::GradModeGuard off(false);
  auto saved = [&](size_t u, Saved s) { return c.saved[1 + u * kPerUnit + s]; };
  // how far back gradients are needed: the first unit whose input or a parameter upstream needs one
  size_t first_needed = units;
  for (size_t u = units; u-- > 0;) {
    for (size_t k = 0; k < 4; ++k)
      if (c.needs(1 + 4 * u + k)) first_needed = u;
  }
  bool input_needed = c.needs(0);
  if (input_needed) first_needed = 0;
  // the gradient of the last unit's output, nChw8c: a pooled unit's passes send it to the windows' largest elements
  Tensor gp = g.to(kFloat32).contiguous();
  Tensor gout = empty({gp.numel()}, gp.options());
  cpu::to_blocked(gp, gout.view(out_dims));
  for (size_t u = units; u-- > first_needed;) {
    const UnitMeta& m = meta[u];
    int64_t ch = m.out_dims[1];
    double count = double(m.out_dims[0] * m.out_dims[2] * m.out_dims[3]);
    Tensor conv = saved(u, kConv), mean = saved(u, kMean), inv = saved(u, kInvstd);
    Tensor scale = saved(u, kScale), shift = saved(u, kShift), gamma = saved(u, kGamma), mask = saved(u, kMask);
    if (mask.defined()) cpu::blocked_scale_planes(gout, m.pool ? DimVector{m.out_dims[0], ch, m.out_dims[2] / 2,
                                                                           m.out_dims[3] / 2} : m.out_dims, mask);
    Tensor sum_g = empty({ch}, gp.options()), dot = empty({ch}, gp.options());
    cpu::blocked_relu_grad_sums(gout, m.pool, conv, m.out_dims, scale, shift, mean, sum_g, dot);
    if (c.needs(1 + 4 * u + 2)) grads[1 + 4 * u + 2] = mul(dot, inv);
    if (c.needs(1 + 4 * u + 3)) grads[1 + 4 * u + 3] = sum_g;
    bool src_needed = u > 0 ? u > first_needed : input_needed;
    if (!src_needed && !c.needs(1 + 4 * u) && !c.needs(1 + 4 * u + 1)) continue;
    // batch_norm's input gradient k * g + b * x + e, its coefficients in float as its formula's ops round them
    Tensor k = empty({ch}, gp.options()), b = empty({ch}, gp.options()), e = empty({ch}, gp.options());
    const float *pw = gamma.defined() ? gamma.data_ptr<float>() : nullptr, *pi = inv.data_ptr<float>();
    const float *pd = dot.data_ptr<float>(), *ps = sum_g.data_ptr<float>(), *pm = mean.data_ptr<float>();
    float *pk = k.data_ptr<float>(), *pb = b.data_ptr<float>(), *pe = e.data_ptr<float>();
    for (int64_t i = 0; i < ch; ++i) {
      pk[i] = pw ? pw[i] * pi[i] : pi[i];
      pb[i] = -(pk[i] * (pi[i] * pi[i]) * pd[i] / float(count));
      pe[i] = -(pk[i] * ps[i] / float(count)) - pb[i] * pm[i];
    }
    Tensor grad_conv = m.pool ? empty({conv.numel()}, gp.options()) : gout;
    cpu::blocked_relu_bn_grad(gout, m.pool, conv, m.out_dims, scale, shift, k, b, e, grad_conv);
    cpu::TrainConv unit{saved(u, kWeight), saved(u, kBias), m.geometry, saved(u, kSrc), m.src_blocked, m.src_dims,
                        m.out_dims, m.winograd};
    Tensor grad_src = src_needed ? empty({m.src_dims[0] * m.src_dims[1] * m.src_dims[2] * m.src_dims[3]},
                                         gp.options())
                                 : Tensor();
    Tensor gw = c.needs(1 + 4 * u) ? empty_like(unit.weight) : Tensor();
    Tensor gb = c.needs(1 + 4 * u + 1) ? empty_like(unit.bias) : Tensor();
    cpu::train_conv_backward(unit, grad_conv, grad_src, gw, gb);
    grads[1 + 4 * u] = gw;
    grads[1 + 4 * u + 1] = gb;
    gout = grad_src;
    if (u == 0 && input_needed) {
      if (m.src_blocked) {
        grads[0] = empty(m.src_dims, gp.options());
        cpu::from_blocked(grad_src, grads[0]);
      } else {
        grads[0] = grad_src.view(m.src_dims);
      }
    }
  }
  return grads;
}

}  // namespace

bool train_fusion_enabled() { return g_train_fusion.load(std::memory_order_relaxed); }
void set_train_fusion(bool enabled) { g_train_fusion.store(enabled, std::memory_order_relaxed); }
bool winograd_enabled() { return g_winograd.load(std::memory_order_relaxed); }
void set_winograd(bool enabled) { g_winograd.store(enabled, std::memory_order_relaxed); }

size_t run_fused_train(const SequenceItems& items, size_t first, Tensor& x) {
  if (!train_fusion_enabled() || !items[first]->value || typeid(*items[first]->value) != typeid(Conv2d) ||
      !autograd::is_grad_enabled())
    return 0;
  if (!float32(x) || x.dim() != 4 || !x.is_contiguous() || x.numel() == 0 || x.size(0) < 2 ||
      autocast::is_enabled(DeviceType::CPU))
    return 0;
  Chain chain = match_chain(items, first, x);
  bool grad = needs_grad(x);
  for (const UnitModules& u : chain.units) {
    for (const Tensor* t : {&u.conv->weight, &u.conv->bias, &u.bn->weight, &u.bn->bias}) grad = grad || needs_grad(*t);
  }
  if (chain.units.empty() || !grad) return 0;
  // forward: each unit's output (its ReLU's, or pooled, then dropped) is the next one's input, nChw8c
  TensorOptions f32(kFloat32);
  std::vector<Unit> units(chain.units.size());
  Tensor src = x;
  bool blocked = x.size(1) % 8 == 0;
  if (blocked) {
    src = empty({x.numel()}, f32);
    cpu::to_blocked(x, src.view(x.sizes()));
  }
  for (size_t u = 0; u < units.size(); ++u) {
    const UnitModules& m = chain.units[u];
    Unit& t = units[u];
    const DimVector& out = chain.conv_dims[u];
    conv_bn(m, src, blocked, chain.in_dims[u], out, t);
    if (m.pool) {  // straight from the convolution's output: the activation is never written
      src = empty({t.conv.numel() / 4}, f32);
      cpu::blocked_affine_relu_pool(t.conv, out, t.scale, t.shift, src);
      if (m.drop && m.drop->is_training() && m.drop->p > 0) {
        t.mask = dropout_mask(*m.drop, out[0], out[1]);
        cpu::blocked_scale_planes(src, {out[0], out[1], out[2] / 2, out[3] / 2}, t.mask);
      }
    } else {
      src = empty({t.conv.numel()}, f32);
      cpu::blocked_affine_relu(t.conv, out, t.scale, t.shift, src);
    }
    blocked = true;
  }
  Tensor result = empty(chain.out_dims, f32);
  cpu::from_blocked(src, result);
  // the graph: one node, edges to x and each unit's conv weight, conv bias, bn weight, bn bias
  std::vector<UnitMeta> meta;
  for (size_t u = 0; u < units.size(); ++u) {
    const cpu::TrainConv& t = units[u].c;
    meta.push_back({t.geometry, t.src_blocked, chain.units[u].pool, t.winograd, t.src_dims, t.out_dims});
  }
  auto node = std::make_shared<autograd::FunctionNode>(
      node_name(chain.units.back()), [meta = std::move(meta), out_dims = chain.out_dims](const autograd::BackwardContext& c) {
        return chain_backward(c, meta, out_dims);
      });
  autograd::add_edge(*node, x);
  for (const UnitModules& u : chain.units) {
    for (const Tensor* t : {&u.conv->weight, &u.conv->bias, &u.bn->weight, &u.bn->bias}) autograd::add_edge(*node, *t);
  }
  autograd::add_output(node, result);
  node->saved.emplace_back(x, false);
  for (size_t u = 0; u < units.size(); ++u) {
    const Unit& t = units[u];
    const UnitModules& m = chain.units[u];
    for (const Tensor& s : {m.conv->weight, m.conv->bias, m.bn->weight, t.c.src, t.conv, t.mean, t.invstd, t.scale,
                            t.shift, t.mask})
      node->saved.emplace_back(s, false);
  }
  // ReLU's node saves its result: writing into the output in place then fails backward, as module by module
  if (!chain.units.back().pool) node->saved.emplace_back(result, true);
  x = result;
  return chain.modules;
}

}  // namespace ember::nn
