// The losses of ember::nn::functional. nll_loss and cross_entropy run their own kernels (cross_entropy: one row
// pass for logsumexp, the loss read from it, and a fused backward); pointwise losses compute with the basic ops and
// record torch's one node; the rest are torch's composites.
#include "../core/autocast_policy.h"
#include "ember/nn/loss.h"

#include <cmath>
#include <numbers>

#include "../autograd/formulas.h"
#include "../dispatch/kernels.h"
#include "../iter/tensor_iterator.h"
#include "ember/creation.h"
#include "ember/errors.h"
#include "ember/layout.h"
#include "ember/nn/activation.h"
#include "ember/operators.h"
#include "ember/ops.h"
#include "ember/reduce.h"
#include "ember/scatter.h"
#include "ember/shape_utils.h"
#include "ember/type_promotion.h"

namespace ember {

namespace nn {

Reduction reduction_from_string(std::string_view reduction) {
  if (reduction == "none") return Reduction::None;
  if (reduction == "mean") return Reduction::Mean;
  if (reduction == "sum") return Reduction::Sum;
  if (reduction == "elementwise_mean") {
    warn("reduction='elementwise_mean' is deprecated. Please use reduction='mean' instead.");
    return Reduction::Mean;
  }
  throw ValueError(str(reduction, " is not a valid value for reduction"));
}

std::string legacy_reduction(std::optional<bool> size_average, std::optional<bool> reduce, bool emit_warning) {
  bool average = size_average.value_or(true), reduced = reduce.value_or(true);
  std::string r = average && reduced ? "mean" : reduced ? "sum" : "none";
  if (emit_warning) warn(str("size_average and reduce args will be deprecated, please use reduction='", r, "' instead."));
  return r;
}

}  // namespace nn

namespace nn::functional {

namespace {

namespace ag = autograd;

bool same_sizes(IntArrayRef a, IntArrayRef b) { return std::equal(a.begin(), a.end(), b.begin(), b.end()); }

Tensor reduce(const Tensor& loss, Reduction reduction) {
  return reduction == Reduction::None ? loss : reduction == Reduction::Mean ? mean(loss) : sum(loss);
}

void check_loss_dtype(ScalarType t, const char* kernel) {
  EMBER_CHECK(is_floating_point(t) && !is_float8(t), NotImplementedError, "\"", kernel, "\" not implemented for '",
              legacy_name(t), "'");
}

// torch's F-level check and warning for losses that broadcast target against input; both expanded.
std::pair<Tensor, Tensor> broadcast_pair(const Tensor& input, const Tensor& target) {
  if (!same_sizes(input.sizes(), target.sizes())) {
    warn(str("Using a target size (torch.Size(", int_list(target.sizes()), ")) that is different to the input size "
             "(torch.Size(", int_list(input.sizes()), ")). This will likely lead to incorrect results due to "
             "broadcasting. Please ensure they have the same size."));
  }
  const Tensor pair[2] = {input, target};
  std::vector<Tensor> b = broadcast_tensors(pair);
  return {b[0], b[1]};
}

// torch's refusal of a gradient for an argument its loss does not differentiate.
void check_not_differentiable(const char* fn, const char* arg, const Tensor& t) {
  EMBER_CHECK(!t.defined() || !autograd::is_grad_enabled() || !t.requires_grad(), Error, "The function '", fn,
              "' is not differentiable with respect to argument '", arg, "'. This input cannot have requires_grad True.");
}

// Class-index targets as the kernels read them: int64, contiguous.
Tensor long_target(const Tensor& target) {
  EMBER_CHECK(target.dtype() == kInt64 || target.dtype() == kUInt8, Error,
              "expected target dtype to be Long or Byte, but got ", legacy_name(target.dtype()));
  return target.to(kInt64).contiguous();
}

Tensor class_weight(const std::optional<Tensor>& weight) { return weight ? weight->contiguous() : Tensor(); }

// After the shape checks, as torch: the weight's dtype is the input's.
void check_weight_dtype(const Tensor& weight, const Tensor& input) {
  EMBER_CHECK(!weight.defined() || weight.dtype() == input.dtype(), Error, "expected scalar type ",
              legacy_name(input.dtype()), " but found ", legacy_name(weight.dtype()));
}

// nll over logp read as (N, C, S) with target (N, S); the 'none' result has shape `none_shape`.
Tensor nll_run(const char* node, const Tensor& logp, IntArrayRef ncs, const Tensor& target, const Tensor& weight,
               int64_t ignore_index, Reduction reduction, IntArrayRef none_shape) {
  check_not_differentiable(ncs[2] == 1 && logp.dim() <= 2 ? "nll_loss_forward" : "nll_loss2d_forward", "weight",
                           weight);
  Tensor x = logp.contiguous();
  Tensor out = empty(reduction == Reduction::None ? DimVector(none_shape) : DimVector{}, x.options());
  Tensor total_weight = zeros({}, x.options());
  std::optional<int64_t> bad;
  if (x.numel() > 0 || reduction != Reduction::None) {
    bad = kernels::nll_loss[x.device().type](x.view(ncs), Tensor(), target.view({ncs[0], ncs[2]}), weight,
                                             ignore_index, reduction, out, total_weight);
  }
  EMBER_CHECK(!bad, IndexError, "Target ", *bad, " is out of bounds.");
  if (ag::needs_grad({&logp})) {
    ag::record_nll_loss(node, out, logp, target.view({ncs[0], ncs[2]}), weight, ignore_index, reduction, total_weight);
  }
  return out;
}

// torch's checks of a (C) or (N, C) input against its target; returns (N, C).
std::pair<int64_t, int64_t> check_nll_1d_2d(const Tensor& input, const Tensor& target, const Tensor& weight) {
  EMBER_CHECK(target.dim() <= 1, Error, "0D or 1D target tensor expected, multi-target not supported");
  if (input.dim() == 1 && target.dim() == 1) {
    EMBER_CHECK(target.sizes()[0] == 1, ValueError, "For 1D input, 1D target must have size 1, but got target size: ",
                target.sizes()[0]);
  }
  int64_t C = input.sizes().back();
  EMBER_CHECK(!weight.defined() || (weight.dim() == 1 && weight.numel() == C), Error,
              "weight tensor should be defined either for all ", C,
              " classes or no classes but got weight tensor of shape: ", int_list(weight.sizes()));
  check_weight_dtype(weight, input);
  return {input.dim() == 1 ? 1 : input.sizes()[0], C};
}

// The batch size check of torch's nll_loss_nd (a 0-dim target counts as batch 0).
void check_batch(const Tensor& input, const Tensor& target) {
  EMBER_CHECK(input.dim() >= 1, ValueError, "Expected 1 or more dimensions (got ", input.dim(), ")");
  int64_t tb = target.dim() == 0 ? 0 : target.sizes()[0];
  EMBER_CHECK(input.dim() == 1 || input.sizes()[0] == tb, ValueError, "Expected input batch_size (", input.sizes()[0],
              ") to match target batch_size (", tb, ").");
}

Tensor nll_2d_spatial(const Tensor& input, const Tensor& target, const Tensor& weight, int64_t ignore_index,
                      Reduction reduction) {
  EMBER_CHECK(target.dim() == 3, Error,
              "only batches of spatial targets supported (3D tensors) but got targets of dimension: ", target.dim());
  EMBER_CHECK(!weight.defined() || weight.numel() == input.sizes()[1], Error,
              "weight tensor should be defined either for all or no classes");
  auto s = input.sizes();
  EMBER_CHECK(s[0] == target.sizes()[0] && s[2] == target.sizes()[1] && s[3] == target.sizes()[2], Error,
              "size mismatch (got input: ", int_list(s), " , target: ", int_list(target.sizes()));
  check_weight_dtype(weight, input);
  check_loss_dtype(input.dtype(), "nll_loss2d_forward_out_frame");
  Tensor t = long_target(target);
  DimVector ncs{s[0], s[1], s[2] * s[3]}, none_shape{s[0], s[2], s[3]};
  return nll_run("NllLoss2DBackward0", input, ncs, t, weight, ignore_index, reduction, none_shape);
}

}  // namespace

Tensor nll_loss(const Tensor& input, const Tensor& target, const std::optional<Tensor>& weight_opt,
                int64_t ignore_index, Reduction reduction) {
  EMBER_AUTOCAST(fp32, kBoth, nll_loss, input, target, weight_opt, ignore_index, reduction);
  check_batch(input, target);
  Tensor weight = class_weight(weight_opt);
  if (input.dim() <= 2) {
    auto [N, C] = check_nll_1d_2d(input, target, weight);
    check_loss_dtype(input.dtype(), "nll_loss_out_frame");
    Tensor t = long_target(target);
    DimVector ncs{N, C, 1};
    DimVector none_shape = input.dim() == 1 ? DimVector{} : DimVector{N};
    return nll_run("NllLossBackward0", input, ncs, t, weight, ignore_index, reduction, none_shape);
  }
  if (input.dim() == 4) return nll_2d_spatial(input, target, weight, ignore_index, reduction);
  // (N, C, d1, ...) other than 4-D: as torch, viewed as (N, C, 1, d1 * ...) for the 2-d loss.
  auto s = input.sizes();
  DimVector expected{s[0]};
  for (size_t i = 2; i < s.size(); ++i) expected.push_back(s[i]);
  EMBER_CHECK(same_sizes(target.sizes(), expected), Error, "Expected target size ", int_list(expected), ", got ",
              int_list(target.sizes()));
  bool any = input.numel() > 0;
  Tensor x4 = any ? input.contiguous().view({s[0], s[1], 1, -1}) : input.view({s[0], s[1], 0, 0});
  Tensor t3 = any ? target.contiguous().view({s[0], 1, -1}) : target.view({s[0], 0, 0});
  Tensor r = nll_2d_spatial(x4, t3, weight, ignore_index, reduction);
  return reduction == Reduction::None ? r.view(expected) : r;
}

Tensor cross_entropy(const Tensor& input, const Tensor& target, const std::optional<Tensor>& weight_opt,
                     int64_t ignore_index, Reduction reduction, double label_smoothing) {
  EMBER_AUTOCAST(fp32, kBoth, cross_entropy, input, target, weight_opt, ignore_index, reduction, label_smoothing);
  int64_t class_dim = input.dim() == 1 ? 0 : 1;
  if (same_sizes(input.sizes(), target.sizes())) {  // class probabilities
    EMBER_CHECK(target.is_floating_point(), Error, "Expected floating point type for target with class probabilities, "
                "got ", legacy_name(target.dtype()));
    EMBER_CHECK(ignore_index < 0, Error, "ignore_index is not supported for floating point target");
    int64_t C = input.sizes()[size_t(class_dim)];
    EMBER_CHECK(!weight_opt || (weight_opt->dim() == 1 && weight_opt->numel() == C), Error,
                "cross_entropy: weight tensor should be defined either for all ", C,
                " classes or no classes but got weight tensor of shape: ", int_list(weight_opt->sizes()));
    Tensor logp = ember::log_softmax(input, class_dim, input.dtype());
    Tensor t = target;
    if (label_smoothing > 0) {
      EMBER_CHECK(label_smoothing <= 1.0, Error, "label_smoothing must be between 0.0 and 1.0. Got: ", label_smoothing);
      t = t * (1 - label_smoothing) + label_smoothing / double(C);
    }
    Tensor prod = mul(logp, t);
    if (weight_opt) {
      DimVector shape(size_t(input.dim()), 1);
      shape[size_t(class_dim)] = C;
      prod = mul(prod, input.dim() > 1 ? weight_opt->view(shape) : *weight_opt);
    }
    if (reduction == Reduction::None) return neg(sum(prod, {class_dim}));
    Tensor total = neg(sum(prod));
    if (reduction == Reduction::Sum) return total;
    if (input.numel() == 0) return full_like(total, NAN);
    double count = double(input.numel() / C);
    Tensor mean = autograd::untracked([&] { return div(total, wrapped_scalar(count)); });
    if (autograd::needs_grad({&total})) autograd::record_div_scalar(mean, total, count);  // torch's div by a number
    return mean;
  }
  if (label_smoothing > 0) {
    EMBER_CHECK(label_smoothing <= 1.0, Error, "label_smoothing must be between 0.0 and 1.0. Got: ", label_smoothing);
    Tensor logp = ember::log_softmax(input, class_dim, input.dtype());
    Tensor nll = nll_loss(logp, target, weight_opt, ignore_index, reduction);
    int64_t C = logp.sizes()[size_t(class_dim)];
    Tensor smooth;
    if (weight_opt) {
      DimVector shape(size_t(input.dim()), 1);
      shape[size_t(class_dim)] = C;
      smooth = neg(sum(mul(logp, input.dim() > 1 ? weight_opt->view(shape) : *weight_opt), {class_dim}));
    } else {
      smooth = neg(sum(logp, {class_dim}));
    }
    Tensor ignored = eq(target, wrapped_scalar(ignore_index));
    smooth = masked_fill(smooth, ignored, 0.0);
    Tensor ret = smooth;
    if (reduction == Reduction::Sum) {
      ret = sum(smooth);
    } else if (reduction == Reduction::Mean) {
      Tensor kept = logical_not(ignored);
      ret = weight_opt ? div(sum(smooth), sum(index_select(*weight_opt, 0, masked_select(target, kept).flatten())))
                       : div(sum(smooth), sum(kept));
    }
    return add(mul(nll, wrapped_scalar(1 - label_smoothing)), mul(ret, wrapped_scalar(label_smoothing / double(C))));
  }
  bool fused = input.dim() == 2 && (input.dtype() == kFloat32 || input.dtype() == kFloat64) && target.dim() == 1 &&
               input.sizes()[0] == target.sizes()[0] && input.sizes()[1] > 0;
  if (!fused) return nll_loss(ember::log_softmax(input, class_dim, input.dtype()), target, weight_opt, ignore_index,
                              reduction);
  // Fused: logsumexp per row, the loss read as x[n, t] - lse[n]; log_softmax is never written.
  Tensor weight = class_weight(weight_opt);
  check_nll_1d_2d(input, target, weight);
  check_not_differentiable("nll_loss_forward", "weight", weight);
  Tensor t = long_target(target);
  Tensor x = input.contiguous();
  const int64_t N = x.sizes()[0];
  Tensor lse = empty({N}, x.options());
  kernels::row_logsumexp[x.device().type](x, lse);
  masked_fill_(lse, eq(lse, wrapped_scalar(INFINITY)), NAN);  // a +inf logit makes torch's log_softmax row all nan
  Tensor out = empty(reduction == Reduction::None ? DimVector{N} : DimVector{}, x.options());
  Tensor total_weight = zeros({}, x.options());
  auto bad = kernels::nll_loss[x.device().type](x.view({N, x.sizes()[1], 1}), lse, t.view({N, 1}), weight,
                                                ignore_index, reduction, out, total_weight);
  EMBER_CHECK(!bad, IndexError, "Target ", *bad, " is out of bounds.");
  if (ag::needs_grad({&input})) {
    ag::record_cross_entropy(out, input, lse, t.view({N, 1}), weight, ignore_index, reduction, total_weight);
  }
  return out;
}

namespace {

// A pointwise loss of two same-shape floating tensors: the elementwise loss `elems` (computed untracked), reduced,
// recorded as node `name`. Unreduced, it is laid out as torch's kernels iterate over (input, target), unless
// `own_layout` (elems computes in place as torch's composite does).
template <typename Elems>
Tensor pointwise_loss(const char* name, const Tensor& x, const Tensor& y, Reduction reduction, Elems elems,
                      ag::LossDerivative dx, ag::LossDerivative dy = {}, bool own_layout = false) {
  Tensor r = ag::untracked([&] {
    if (reduction != Reduction::None) return reduce(elems(x, y), reduction);
    const Tensor operands[2] = {x, y};
    return own_layout ? elems(x, y) : in_elementwise_layout(elems(x, y), operands);
  });
  if (ag::needs_grad({&x, &y})) ag::record_pointwise_loss(name, r, x, y, reduction, std::move(dx), std::move(dy));
  return r;
}

// torch's loss kernels compute in the promoted dtype, except in float for the one reduced dtype whose vector kernel
// converts (`upcast`: huber float16, smooth_l1 bfloat16), and round to `out`.
template <typename Elems>
auto as_torch_kernel(Elems elems, ScalarType out, ScalarType upcast) {
  return [elems, out, upcast](const Tensor& a, const Tensor& b) {
    ScalarType math = promote_types(a.dtype(), b.dtype());
    if (math == upcast) math = kFloat32;
    return elems(a.to(math), b.to(math)).to(out);
  };
}

// A result dtype both inputs promote to must be floating for the kernel.
void check_pair_floating(const Tensor& a, const Tensor& b, const char* kernel) {
  check_loss_dtype(promote_types(a.dtype(), b.dtype()), kernel);
}

Tensor clamp_min0(const Tensor& x) {  // clamp_min(x, 0), as torch's ClampMinBackward0
  Tensor r = ag::untracked([&] { return clamp(x, wrapped_scalar(0), std::nullopt); });
  if (ag::needs_grad({&x})) ag::record_clamp_min(r, x, 0);
  return r;
}

}  // namespace

namespace {

void check_weight(const Tensor& input, const Tensor& weight) {
  EMBER_CHECK(same_sizes(weight.sizes(), input.sizes()), ValueError, "Weights and input must have the same size.");
}

// torch 2.13's weighted forms: elems * weight, 'mean' over the weights' sum (or the plain mean for huber).
Tensor weighted(const Tensor& elems, const Tensor& weight, Reduction reduction, bool plain_mean) {
  Tensor w = mul(elems, weight);
  if (reduction == Reduction::Mean && !plain_mean) return div(sum(w), sum(weight));
  return reduce(w, reduction);
}

}  // namespace

Tensor mse_loss(const Tensor& input, const Tensor& target, Reduction reduction, const std::optional<Tensor>& weight) {
  EMBER_AUTOCAST(fp32, kBoth, mse_loss, input, target, reduction, weight);
  auto [x, y] = broadcast_pair(input, target);
  if (weight) {
    check_weight(input, *weight);
    return weighted(pow(sub(x, y), wrapped_scalar(2)), *weight, reduction, false);
  }
  check_pair_floating(x, y, "mse_cpu");
  return pointwise_loss("MseLossBackward0", x, y, reduction, [](const Tensor& a, const Tensor& b) {
    Tensor d = sub(a, b);
    return mul(d, d);
  }, [](const Tensor& a, const Tensor& b) { return mul(sub(a, b), wrapped_scalar(2)); });
}

Tensor l1_loss(const Tensor& input, const Tensor& target, Reduction reduction, const std::optional<Tensor>& weight) {
  EMBER_AUTOCAST(fp32, kBoth, l1_loss, input, target, reduction, weight);
  auto [x, y] = broadcast_pair(input, target);
  if (weight) {
    check_weight(input, *weight);
    return weighted(abs(sub(x, y)), *weight, reduction, false);
  }
  return reduce(abs(sub(x, y)), reduction);
}

Tensor smooth_l1_loss(const Tensor& input, const Tensor& target, Reduction reduction, double beta) {
  EMBER_AUTOCAST(fp32, kBoth, smooth_l1_loss, input, target, reduction, beta);
  auto [x, y] = broadcast_pair(input, target);
  EMBER_CHECK(beta >= 0, Error, "smooth_l1_loss does not support negative values for beta.");
  if (beta == 0.0) return reduce(abs(sub(x, y)), reduction);  // torch's F calls l1_loss then
  check_pair_floating(x, y, "smooth_l1_cpu");
  auto elems = [beta](const Tensor& a, const Tensor& b) {
    Tensor d = abs(sub(a, b));
    return where(lt(d, wrapped_scalar(beta)), div(mul(d, d), wrapped_scalar(2 * beta)), sub(d, wrapped_scalar(beta / 2)));
  };
  auto math = as_torch_kernel(elems, promote_types(x.dtype(), y.dtype()), kBFloat16);
  return pointwise_loss("SmoothL1LossBackward0", x, y, reduction, math, [beta](const Tensor& a, const Tensor& b) {
    Tensor d = sub(a, b);
    return where(lt(abs(d), wrapped_scalar(beta)), div(d, wrapped_scalar(beta)), sign(d));
  });
}

Tensor huber_loss(const Tensor& input, const Tensor& target, Reduction reduction, double delta,
                  const std::optional<Tensor>& weight) {
  EMBER_AUTOCAST(fp32, kBoth, huber_loss, input, target, reduction, delta, weight);
  auto [x, y] = broadcast_pair(input, target);
  if (weight) {
    check_weight(input, *weight);
    return weighted(huber_loss(x, y, Reduction::None, delta), *weight, reduction, true);
  }
  EMBER_CHECK(delta > 0, Error, "huber_loss does not support non-positive values for delta.");
  check_pair_floating(x, y, "huber_cpu");
  // torch writes into a result of the input's dtype
  check_result_fits_output(promote_types(x.dtype(), y.dtype()), input.dtype());
  auto elems = [delta](const Tensor& a, const Tensor& b) {
    Tensor d = abs(sub(a, b));
    return where(lt(d, wrapped_scalar(delta)), mul(mul(d, d), wrapped_scalar(0.5)),
                 mul(sub(d, wrapped_scalar(delta / 2)), wrapped_scalar(delta)));
  };
  auto kernel = as_torch_kernel(elems, input.dtype(), kFloat16);
  auto math = [kernel](const Tensor& a, const Tensor& b) {  // torch writes into empty_like(input)
    Tensor out = empty_like(a);
    return out.copy_(kernel(a, b));
  };
  return pointwise_loss("HuberLossBackward0", x, y, reduction, math, [delta](const Tensor& a, const Tensor& b) {
    // torch's backward kernel takes no mixed dtypes (its forward does)
    EMBER_CHECK(a.dtype() == b.dtype(), Error, "Found dtype ", legacy_name(b.dtype()), " but expected ",
                legacy_name(a.dtype()));
    return clamp(sub(a, b), wrapped_scalar(-delta), wrapped_scalar(delta));
  }, {}, true);
}

Tensor binary_cross_entropy(const Tensor& input, const Tensor& target, const std::optional<Tensor>& weight,
                            Reduction reduction) {
  EMBER_CHECK(!autocast::active() || !autocast::device_of(autocast::kCUDA, input), Error,
              "torch.nn.functional.binary_cross_entropy and torch.nn.BCELoss are unsafe to autocast.\n"
              "Many models use a sigmoid layer right before the binary cross entropy layer.\n"
              "In this case, combine the two layers using torch.nn.functional.binary_cross_entropy_with_logits\n"
              "or torch.nn.BCEWithLogitsLoss.  binary_cross_entropy_with_logits and BCEWithLogits are\n"
              "safe to autocast.");
  EMBER_AUTOCAST(fp32, kCPU, binary_cross_entropy, input, target, weight, reduction);
  EMBER_CHECK(same_sizes(input.sizes(), target.sizes()), ValueError, "Using a target size (torch.Size(", int_list(target.sizes()),
              ")) that is different to the input size (torch.Size(", int_list(input.sizes()),
              ")) is deprecated. Please ensure they have the same size.");
  check_loss_dtype(input.dtype(), "binary_cross_entropy");
  EMBER_CHECK(target.dtype() == input.dtype(), Error, "Found dtype ", legacy_name(target.dtype()),
              " but expected ", legacy_name(input.dtype()));
  check_not_differentiable("binary_cross_entropy", "weight", weight.value_or(Tensor()));
  Tensor w = weight ? weight->expand(broadcast_shapes(std::vector<DimVector>{target.sizes(), weight->sizes()})) : Tensor();
  auto in_unit_range = [](const Tensor& t) {  // false for nan, as torch's check
    return ag::untracked([&] {
      return all(logical_and(ge(t, wrapped_scalar(0)), le(t, wrapped_scalar(1)))).item().to_bool();
    });
  };
  EMBER_CHECK(in_unit_range(input), Error, "all elements of input should be between 0 and 1");
  EMBER_CHECK(in_unit_range(target), Error, "all elements of target should be between 0 and 1");
  auto elems = [w](const Tensor& x, const Tensor& y) {
    Tensor lx = clamp(log(x), wrapped_scalar(-100), std::nullopt);
    Tensor l1x = clamp(log1p(neg(x)), wrapped_scalar(-100), std::nullopt);
    Tensor l = neg(add(mul(y, lx), mul(sub(wrapped_scalar(1), y), l1x)));
    return w.defined() ? mul(l, w) : l;
  };
  auto dx = [w](const Tensor& x, const Tensor& y) {  // torch's EPSILON is the float 1e-12
    Tensor d = div(sub(x, y), clamp(mul(sub(wrapped_scalar(1), x), x), wrapped_scalar(double(1e-12f)), std::nullopt));
    return w.defined() ? mul(d, w) : d;
  };
  auto dy = [w](const Tensor& x, const Tensor&) {
    Tensor d = sub(log1p(neg(x)), log(x));
    return w.defined() ? mul(d, w) : d;
  };
  return pointwise_loss("BinaryCrossEntropyBackward0", input, target, reduction, elems, dx, dy);
}

Tensor binary_cross_entropy_with_logits(const Tensor& input, const Tensor& target, const std::optional<Tensor>& weight,
                                        Reduction reduction, const std::optional<Tensor>& pos_weight) {
  EMBER_AUTOCAST(fp32, kBoth, binary_cross_entropy_with_logits, input, target, weight, reduction, pos_weight);
  EMBER_CHECK(same_sizes(input.sizes(), target.sizes()), ValueError, "Target size (torch.Size(", int_list(target.sizes()),
              ")) must be the same as input size (torch.Size(", int_list(input.sizes()), "))");
  check_loss_dtype(input.dtype(), "log_sigmoid_cpu");
  Tensor w = weight ? *weight : Tensor(), pw = pos_weight ? *pos_weight : Tensor();
  check_not_differentiable("binary_cross_entropy_with_logits", "weight", w);
  check_not_differentiable("binary_cross_entropy_with_logits", "pos_weight", pw);
  auto log_weight = [pw](const Tensor& y) { return add(mul(sub(pw, wrapped_scalar(1)), y), wrapped_scalar(1)); };
  // torch's composite computes in place into 1 - target: the loss has the target's dtype and layout.
  auto elems = [w, pw, log_weight](const Tensor& x, const Tensor& y) {
    Tensor l = rsub(y, wrapped_scalar(1));
    l.mul_(x).sub_(pw.defined() ? log_weight(y).mul_(logsigmoid(x)) : logsigmoid(x));
    return w.defined() ? l.mul_(w) : l;
  };
  auto dx = [w, pw, log_weight](const Tensor& x, const Tensor& y) {
    Tensor d = pw.defined() ? sub(mul(log_weight(y), ember::sigmoid(x)), mul(pw, y)) : sub(ember::sigmoid(x), y);
    return w.defined() ? mul(d, w) : d;
  };
  auto dy = [w, pw](const Tensor& x, const Tensor&) {
    Tensor d = pw.defined() ? sub(neg(x), mul(sub(pw, wrapped_scalar(1)), logsigmoid(x))) : neg(x);
    return w.defined() ? mul(d, w) : d;
  };
  return pointwise_loss("BinaryCrossEntropyWithLogitsBackward0", input, target, reduction, elems, dx, dy, true);
}

Tensor kl_div(const Tensor& input, const Tensor& target, std::string_view reduction, bool log_target) {
  EMBER_AUTOCAST(fp32, kBoth, kl_div, input, target, reduction, log_target);
  if (reduction == "mean") {
    warn("reduction: 'mean' divides the total loss by both the batch size and the support size.'batchmean' divides "
         "only by the batch size, and aligns with the KL div math definition.'mean' will be changed to behave the "
         "same as 'batchmean' in the next major release.");
  }
  EMBER_CHECK(input.is_floating_point() && target.is_floating_point(), Error, "kl_div: Integral inputs not supported.");
  bool batchmean = reduction == "batchmean";
  Reduction r = reduction_from_string(batchmean ? "sum" : reduction);
  Tensor elems = log_target ? mul(exp(target), sub(target, input)) : sub(xlogy(target, target), mul(target, input));
  Tensor reduced = reduce(elems, r);
  return batchmean && input.dim() != 0 ? div(reduced, wrapped_scalar(input.sizes()[0])) : reduced;
}

Tensor cosine_embedding_loss(const Tensor& input1, const Tensor& input2, const Tensor& target, double margin,
                             Reduction reduction) {
  EMBER_AUTOCAST(fp32, kBoth, cosine_embedding_loss, input1, input2, target, margin, reduction);
  int64_t d = target.dim();
  EMBER_CHECK(d <= 1, Error, "0D or 1D target tensor expected, multi-target not supported");
  if (d == 1) {
    EMBER_CHECK(input1.dim() == 2 && input2.dim() == 2, Error, "1D target tensor expects 2D input tensors, but found "
                "inputs with sizes ", int_list(input1.sizes()), " and ", int_list(input2.sizes()), ".");
  } else {
    EMBER_CHECK(input1.dim() == 1 && input2.dim() == 1, Error, "0D target tensor expects 1D input tensors, but found "
                "inputs with sizes ", int_list(input1.sizes()), " and ", int_list(input2.sizes()), ".");
  }
  constexpr double kEps = 1e-12;
  Tensor prod_sum = sum(mul(input1, input2), {d});
  Tensor mag1 = add(sum(mul(input1, input1), {d}), wrapped_scalar(kEps));
  Tensor mag2 = add(sum(mul(input2, input2), {d}), wrapped_scalar(kEps));
  Tensor cos = div(prod_sum, sqrt(mul(mag1, mag2)));
  Tensor zeros = zeros_like(cos);
  Tensor pos = sub(wrapped_scalar(1), cos);
  Tensor negative = clamp_min0(sub(cos, wrapped_scalar(margin)));
  Tensor out = add(where(eq(target, wrapped_scalar(1)), pos, zeros), where(eq(target, wrapped_scalar(-1)), negative, zeros));
  return reduce(out, reduction);
}

Tensor margin_ranking_loss(const Tensor& input1, const Tensor& input2, const Tensor& target, double margin,
                           Reduction reduction) {
  EMBER_AUTOCAST(fp32, kBoth, margin_ranking_loss, input1, input2, target, margin, reduction);
  EMBER_CHECK(input1.dim() == input2.dim() && input1.dim() == target.dim(), Error,
              "margin_ranking_loss : All input tensors should have same dimension but got sizes: input1: torch.Size(",
              int_list(input1.sizes()), "), input2: torch.Size(", int_list(input2.sizes()), "), target: torch.Size(",
              int_list(target.sizes()), ") ");
  return reduce(clamp_min0(add(mul(neg(target), sub(input1, input2)), wrapped_scalar(margin))), reduction);
}

Tensor triplet_margin_loss(const Tensor& anchor, const Tensor& positive, const Tensor& negative, double margin,
                           double p, double eps, bool swap, Reduction reduction) {
  EMBER_AUTOCAST(fp32, kBoth, triplet_margin_loss, anchor, positive, negative, margin, p, eps, swap, reduction);
  EMBER_CHECK(margin > 0, ValueError, "margin must be greater than 0, got ", margin, margin == std::trunc(margin) ? ".0" : "");
  int64_t a = anchor.dim(), pd = positive.dim(), nd = negative.dim();
  EMBER_CHECK(a == pd && a == nd, Error, "The anchor, positive, and negative tensors are expected to have the same "
              "number of dimensions, but got: anchor ", a, "D, positive ", pd, "D, and negative ", nd, "D inputs");
  auto distance = [p, eps](const Tensor& x1, const Tensor& x2) {  // torch's pairwise_distance
    int64_t dim = std::max(x1.dim(), x2.dim()) - 1;
    return norm(add(sub(x1, x2), wrapped_scalar(eps)), p, {dim}, false);
  };
  Tensor dist_pos = distance(anchor, positive), dist_neg = distance(anchor, negative);
  if (swap) dist_neg = minimum(dist_neg, distance(positive, negative));
  return reduce(clamp_min0(sub(add(dist_pos, wrapped_scalar(margin)), dist_neg)), reduction);
}

Tensor gaussian_nll_loss(const Tensor& input, const Tensor& target, const Tensor& var_in, bool full, double eps,
                         Reduction reduction) {
  Tensor var = var_in;
  bool negative = ag::untracked([&] { return any(lt(var, wrapped_scalar(0))).item().to_bool(); });
  EMBER_CHECK(!negative, ValueError, "var has negative entry/entries");
  if (!same_sizes(var.sizes(), input.sizes())) {
    auto in = input.sizes();
    if (in.size() >= 1 && same_sizes(IntArrayRef(in.data(), in.size() - 1), var.sizes())) {
      var = var.unsqueeze(-1);
    } else {
      int64_t mismatched = 0;
      if (input.dim() == var.dim()) {
        for (size_t i = 0; i < in.size(); ++i) mismatched += in[i] != var.sizes()[i] ? var.sizes()[i] : 0;
      }
      EMBER_CHECK(input.dim() == var.dim() && mismatched == 1, ValueError, "var is of incorrect size");
    }
  }
  var = var.clone();
  ag::untracked([&] { clamp_(var, wrapped_scalar(eps), std::nullopt); });
  Tensor d = sub(input, target);
  Tensor loss = mul(add(log(var), div(mul(d, d), var)), wrapped_scalar(0.5));
  if (full) loss = add(loss, wrapped_scalar(0.5 * std::log(2 * std::numbers::pi)));
  return reduce(loss, reduction);
}

Tensor poisson_nll_loss(const Tensor& input, const Tensor& target, bool log_input, bool full, double eps,
                        Reduction reduction) {
  EMBER_AUTOCAST(fp32, kBoth, poisson_nll_loss, input, target, log_input, full, eps, reduction);
  Tensor loss = log_input ? sub(exp(input), mul(target, input))
                          : sub(input, mul(target, log(add(input, wrapped_scalar(eps)))));
  if (full) {
    Tensor stirling = add(sub(mul(target, log(target)), target),
                          mul(log(mul(target, wrapped_scalar(2 * std::numbers::pi))), wrapped_scalar(0.5)));
    loss = add(loss, masked_fill(stirling, le(target, wrapped_scalar(1)), 0.0));
  }
  return reduce(loss, reduction);
}

Tensor soft_margin_loss(const Tensor& input, const Tensor& target, Reduction reduction) {
  EMBER_AUTOCAST(fp32, kBoth, soft_margin_loss, input, target, reduction);
  // torch computes into the input's dtype: an integral one cannot hold the result
  EMBER_CHECK(input.dtype() != kBool, Error, "Negation, the `-` operator, on a bool tensor is not supported. If you "
              "are trying to invert a mask, use the `~` or `logical_not()` operator instead.");
  EMBER_CHECK(input.is_floating_point(), Error, "result type Float can't be cast to the desired output type ",
              legacy_name(input.dtype()));
  check_not_differentiable("soft_margin_loss", "target", target);
  DimVector shape = broadcast_shapes(input.sizes(), target.sizes());
  EMBER_CHECK(same_sizes(shape, input.sizes()), Error, "output with shape ", int_list(input.sizes()),
              " doesn't match the broadcast shape ", int_list(shape));
  Tensor y = target.to(input.dtype());
  // torch computes in place into a tensor like the input (its dtype, and its layout where dense)
  return pointwise_loss("SoftMarginLossBackward0", input, y, reduction, [](const Tensor& x, const Tensor& y) {
    Tensor out = empty_like(x);
    return out.copy_(y).neg_().mul_(x).exp_().log1p_();
  }, [](const Tensor& x, const Tensor& y) {
    Tensor z = exp(neg(mul(y, x)));
    return div(mul(neg(y), z), add(z, wrapped_scalar(1)));
  }, {}, true);
}

Tensor multilabel_soft_margin_loss(const Tensor& input, const Tensor& target, const std::optional<Tensor>& weight,
                                   Reduction reduction) {
  Tensor positive = logsigmoid(input);
  Tensor loss = neg(add(mul(target, positive), mul(sub(wrapped_scalar(1), target), logsigmoid(neg(input)))));
  if (weight) loss = mul(loss, *weight);
  int64_t class_dim = input.dim() - 1;
  loss = div(sum(loss, {class_dim}), wrapped_scalar(input.sizes()[size_t(class_dim)]));
  return reduce(loss, reduction);
}

Tensor multi_margin_loss(const Tensor& input, const Tensor& target, int64_t p, double margin,
                         const std::optional<Tensor>& weight_opt, Reduction reduction) {
  EMBER_AUTOCAST(fp32, kBoth, multi_margin_loss, input, target, p, margin, weight_opt, reduction);
  EMBER_CHECK(p == 1 || p == 2, ValueError, "only p == 1 and p == 2 supported");
  int64_t nd = input.dim();
  EMBER_CHECK((nd == 2 && input.sizes()[1] != 0) || (nd == 1 && input.sizes()[0] != 0) || nd == 0, Error,
              "Expected non-empty vector or matrix with optional 0-dim batch size, but got: ", int_list(input.sizes()));
  int64_t frames = nd <= 1 ? 1 : input.sizes()[0], dim = nd == 0 ? 1 : input.sizes()[size_t(nd - 1)];
  EMBER_CHECK(target.dim() <= 1 && target.numel() == frames, Error, "multi_margin_loss: target tensor should be 1-D "
              "with size equal to the number of input samples (batch size). Expected target size [", frames,
              "], but got ", int_list(target.sizes()), ". Input has shape ", int_list(input.sizes()), ".");
  Tensor weight = class_weight(weight_opt);
  EMBER_CHECK(!weight.defined() || (weight.dim() <= 1 && weight.numel() == dim), Error,
              "inconsistent weight size, expected ", dim, " but got ", int_list(weight.sizes()));
  EMBER_CHECK(input.dtype() == kFloat32 || input.dtype() == kFloat64, NotImplementedError,
              "\"multi_margin_loss_cpu_kernel\" not implemented for '", legacy_name(input.dtype()), "'");
  check_not_differentiable("multi_margin_loss", "weight", weight);
  EMBER_CHECK(target.dtype() == kInt64, Error, "expected scalar type Long but found ",
              legacy_name(target.dtype()));
  Tensor t = target.reshape({frames, 1});
  bool in_range = ag::untracked([&] {
    return t.numel() == 0 || all(logical_and(ge(t, wrapped_scalar(0)), lt(t, wrapped_scalar(dim)))).item().to_bool();
  });
  EMBER_CHECK(in_range, Error, "target out of range");
  Tensor w = weight.defined() ? weight.to(input.dtype()).reshape({-1}) : Tensor();
  Tensor r = ag::untracked([&] {
    Tensor loss = sum(ag::multi_margin_terms(input.reshape({frames, dim}), t, p, margin, w, false), {1});
    if (reduction == Reduction::None) return target.dim() > 0 ? loss : loss.view({});
    return reduction == Reduction::Mean ? mean(loss) : sum(loss);
  });
  if (ag::needs_grad({&input})) ag::record_multi_margin(r, input, t, p, margin, w, reduction);
  return r;
}

Tensor hinge_embedding_loss(const Tensor& input, const Tensor& target, double margin, Reduction reduction) {
  EMBER_AUTOCAST(fp32, kBoth, hinge_embedding_loss, input, target, margin, reduction);
  Tensor zeros = zeros_like(input);
  Tensor margin_clamp = clamp_min0(sub(full_like(input, margin), input));  // torch's margin - self: in self's dtype
  Tensor output_margin = where(ne(target, wrapped_scalar(1)), margin_clamp, zeros);
  Tensor output_self = where(ne(target, wrapped_scalar(-1)), input, zeros);
  return reduce(add(output_margin, output_self), reduction);
}

}  // namespace nn::functional

}  // namespace ember
