// scaled_dot_product_attention as torch's _scaled_dot_product_attention_math: q and k each scaled by sqrt(scale),
// matmul, the mask added, a softmax that leaves fully masked rows at 0, dropout, matmul.
#include "../core/autocast_policy.h"
#include "ember/nn/attention.h"

#include <cmath>
#include <limits>

#include <algorithm>

#include "ember/autograd.h"
#include "ember/creation.h"
#include "ember/linalg.h"
#include "ember/nn/dropout.h"
#include "ember/ops.h"
#include "ember/reduce.h"
#include "ember/shape_utils.h"
#include "ember/type_promotion.h"
#include "../autograd/formulas.h"

namespace ember::nn::functional {

namespace {

// The C++ type name torch's sdpa checks print (caffe2's TypeMeta names).
const char* dtype_str(ScalarType t) {
  switch (t) {
    case kFloat32: return "float";
    case kFloat64: return "double";
    case kFloat16: return "c10::Half";
    case kBFloat16: return "c10::BFloat16";
    case kInt64: return "long int";
    case kInt32: return "int";
    case kInt16: return "short int";
    case kInt8: return "signed char";
    case kUInt8: return "unsigned char";
    case kBool: return "bool";
    default: return dtype_info(t).name.data();
  }
}

// a @ b, as one bmm over the flattened batch dims when both have the same ones (Ember's matmul broadcasts through
// more copies); the result's view recorded as torch's matmul records it (UnsafeViewBackward0).
Tensor product(const Tensor& a, const Tensor& b) {
  if (a.dim() < 3 || a.dim() != b.dim() ||
      !std::equal(a.sizes().begin(), a.sizes().end() - 2, b.sizes().begin())) {
    return matmul(a, b);
  }
  int64_t m = a.size(-2), k = a.size(-1), n = b.size(-1);
  Tensor flat = bmm(a.reshape({-1, m, k}), b.reshape({-1, k, n}));
  DimVector shape(a.sizes());
  shape.back() = n;
  Tensor result = autograd::untracked([&] { return flat.view(shape); });
  if (autograd::needs_grad({&flat})) autograd::record_unsafe_view(result, flat, flat.sizes());
  return result;
}

// softmax(q k^T * factor + mask) with q already scaled, as torch's math path with its _safe_softmax: a row whose
// scores are all -inf (masked everywhere, or a -inf input) is 0, not NaN, and passes no gradient.
Tensor attention_weights(const Tensor& q, const Tensor& k, const std::optional<Tensor>& mask, double factor) {
  Tensor attn = product(q, mul(k.transpose(-2, -1), wrapped_scalar(factor)));
  double neg_inf = -std::numeric_limits<double>::infinity();
  if (mask && mask->dtype() == kBool) attn.masked_fill_(logical_not(*mask), Scalar(neg_inf));  // adding 0 / -inf
  else if (mask) attn.add_(*mask);
  Tensor dead;
  {
    autograd::NoGradGuard no_grad;
    dead = eq(amax(attn, IntArrayRef{-1}, true), wrapped_scalar(neg_inf));
  }
  if (!any(dead).item<bool>()) return ember::softmax(attn, -1);
  Tensor zero = zeros({}, attn.options());
  return where(dead, zero, ember::softmax(where(dead, zero, attn), -1));
}

}  // namespace

Tensor scaled_dot_product_attention(const Tensor& query, const Tensor& key, const Tensor& value,
                                    const std::optional<Tensor>& attn_mask, double dropout_p, bool is_causal,
                                    std::optional<double> scale, bool enable_gqa) {
  EMBER_AUTOCAST(lower, kBoth, scaled_dot_product_attention, query, key, value, attn_mask, dropout_p, is_causal, scale, enable_gqa);
  EMBER_CHECK(query.dtype() == key.dtype() && query.dtype() == value.dtype(), Error,
              "Expected query, key, and value to have the same dtype, but got query.dtype: ", dtype_str(query.dtype()),
              " key.dtype: ", dtype_str(key.dtype()), " and value.dtype: ", dtype_str(value.dtype()), " instead.");
  EMBER_CHECK(query.dim() >= 2 && key.dim() >= 2 && value.dim() >= 2, Error, "Expected query, key, and value to all "
              "be  at least 2 dimensional, but got query.dim: ", query.dim(), " key.dim: ", key.dim(),
              " and value.dim: ", value.dim(), " instead.");
  if (attn_mask) {
    ScalarType m = attn_mask->dtype();
    EMBER_CHECK(m == kBool || m == kFloat32 || m == query.dtype(), Error, "Expected attn_mask dtype to be bool or float "
                "or to match query dtype, but got attn_mask.dtype: ", dtype_str(m), " and  query.dtype: ",
                dtype_str(query.dtype()), " instead.");
  }
  EMBER_CHECK(!is_causal || !attn_mask, Error,
              "_scaled_dot_product_attention: Explicit attn_mask should not be set when is_causal=True");
  bool negative = scale && *scale < 0;
  double s = scale ? std::abs(*scale) : 1.0 / std::sqrt(double(query.size(-1)));
  double factor = std::sqrt(s);
  std::optional<Tensor> mask = attn_mask;
  if (is_causal) mask = tril(ones({query.size(-2), key.size(-2)}, query.options().with_dtype(kBool)));
  Tensor k = key, v = value;
  if (enable_gqa && query.dim() >= 3 && key.dim() >= 3) {
    int64_t qh = query.size(-3), kh = key.size(-3), vh = value.size(-3);
    EMBER_CHECK(kh > 0 && vh > 0 && qh % kh == 0 && qh % vh == 0, Error, "Number of heads in key and value must "
                "divide the number of heads in query");
    if (qh != kh) k = k.repeat_interleave(qh / kh, -3);
    if (qh != vh) v = v.repeat_interleave(qh / vh, -3);
  }
  auto weights_of = [mask, factor, negative](const Tensor& query_, const Tensor& key_) {
    return attention_weights(mul(query_, wrapped_scalar(negative ? -factor : factor)), key_, mask, factor);
  };
  // torch runs its flash kernel (a node of its own) for 4-D inputs with one head size and dense rows, no dropout.
  bool flash = dropout_p == 0 && query.dim() == 4 && k.dim() == 4 && v.dim() == 4 && k.size(-1) == query.size(-1) &&
               v.size(-1) == query.size(-1) && query.stride(-1) == 1 && key.stride(-1) == 1 && value.stride(-1) == 1 &&
               query.size(0) == k.size(0) && k.size(0) == v.size(0) && query.size(1) == k.size(1) &&
               k.size(1) == v.size(1) && query.size(-2) > 0 && k.size(-2) > 0;
  if (flash && autograd::needs_grad({&query, &key, &value})) {
    Tensor weights, out;
    autograd::untracked([&] {
      weights = weights_of(query, k);
      out = product(weights, v);
    });
    autograd::record_flash_attention(out, query, key, value, weights, negative ? -s : s, weights_of);
    return out;
  }
  Tensor weights = weights_of(query, k);
  if (dropout_p > 0) weights = ember::dropout(weights, dropout_p, true);
  return product(weights, v);
}

}  // namespace ember::nn::functional
