// F.multi_head_attention_forward: the in-projection, optional bias_k/bias_v and zero-attention columns, the masks
// made additive, then attention (explicit weights when asked for, else scaled_dot_product_attention) and out_proj.
#include <cmath>
#include <limits>

#include "ember/creation.h"
#include "ember/linalg.h"
#include "ember/nn/attention.h"
#include "ember/nn/dropout.h"
#include "ember/nn/linear.h"
#include "ember/nn/padding.h"
#include "ember/nn/transformer.h"
#include "ember/ops.h"
#include "ember/reduce.h"

namespace ember::nn::functional {

namespace {

std::string torch_size(IntArrayRef s) { return str("torch.Size(", int_list(s), ")"); }

std::string py_tuple(std::initializer_list<int64_t> v) {
  std::string out = "(";
  size_t i = 0;
  for (int64_t x : v) out += (i++ ? ", " : "") + std::to_string(x);
  return out + ")";
}

// One column more on the last dim of a mask (bias_k/bias_v, add_zero_attn).
OptTensor pad_column(const OptTensor& mask) {
  if (!mask) return mask;
  return pad(*mask, DimVector{0, 1});
}

OptTensor chunk(const OptTensor& t, int64_t i, int64_t e) {
  if (!t || !t->defined()) return std::nullopt;
  return t->narrow(0, i * e, e);
}

}  // namespace

std::pair<Tensor, Tensor> multi_head_attention_forward(
    const Tensor& query_in, const Tensor& key_in, const Tensor& value_in, int64_t embed_dim_to_check,
    int64_t num_heads, const OptTensor& in_proj_weight, const OptTensor& in_proj_bias, const OptTensor& bias_k,
    const OptTensor& bias_v, bool add_zero_attn, double dropout_p, const Tensor& out_proj_weight,
    const OptTensor& out_proj_bias, bool training, const OptTensor& key_padding_mask_in, bool need_weights,
    const OptTensor& attn_mask_in, bool use_separate_proj_weight, const OptTensor& q_proj_weight,
    const OptTensor& k_proj_weight, const OptTensor& v_proj_weight, const OptTensor& static_k,
    const OptTensor& static_v, bool average_attn_weights, bool is_causal) {
  // ---- batching: an unbatched (L, E) query works as a batch of one
  int64_t qd = query_in.dim(), kd = key_in.dim(), vd = value_in.dim();
  EMBER_CHECK(qd == 2 || qd == 3, AssertionError, "query should be unbatched 2D or batched 3D tensor but received ", qd,
              "-D query tensor");
  const bool batched = qd == 3;
  const char* form = batched ? "batched (3-D)" : "unbatched (2-D)";
  EMBER_CHECK(kd == qd && vd == qd, AssertionError, "For ", form, " `query`, expected `key` and `value` to be ", qd,
              "-D but found ", kd, "-D and ", vd, "-D tensors respectively");
  EMBER_CHECK(!key_padding_mask_in || key_padding_mask_in->dim() == qd - 1, AssertionError, "For ", form,
              " `query`, expected `key_padding_mask` to be `None` or ", qd - 1, "-D but found ",
              key_padding_mask_in->dim(), "-D tensor instead");
  EMBER_CHECK(!attn_mask_in || attn_mask_in->dim() == 2 || attn_mask_in->dim() == 3, AssertionError, "For ", form,
              " `query`, expected `attn_mask` to be `None`, 2-D or 3-D but found ", attn_mask_in->dim(),
              "-D tensor instead");
  Tensor query = batched ? query_in : query_in.unsqueeze(1);
  Tensor key = batched ? key_in : key_in.unsqueeze(1);
  Tensor value = batched ? value_in : value_in.unsqueeze(1);
  OptTensor key_padding_mask = key_padding_mask_in;
  if (!batched && key_padding_mask) key_padding_mask = key_padding_mask->unsqueeze(0);

  int64_t tgt_len = query.size(0), bsz = query.size(1), embed_dim = query.size(2);
  int64_t src_len = key.size(0);
  ScalarType type = query.dtype();
  key_padding_mask = canonical_mask(key_padding_mask, "key_padding_mask", type);
  if (is_causal && !attn_mask_in)
    throw Error("Need attn_mask if specifying the is_causal hint. You may use the Transformer module method "
                "`generate_square_subsequent_mask` to create this mask.");
  OptTensor attn_mask;
  if (is_causal && !key_padding_mask && !need_weights) {
    attn_mask = std::nullopt;  // scaled_dot_product_attention builds the causal mask itself
  } else {
    attn_mask = canonical_mask(attn_mask_in, "attn_mask", type);
    if (key_padding_mask) is_causal = false;
  }
  EMBER_CHECK(embed_dim == embed_dim_to_check, AssertionError, "was expecting embedding dimension of ",
              embed_dim_to_check, ", but got ", embed_dim);
  int64_t head_dim = embed_dim / num_heads;
  EMBER_CHECK(head_dim * num_heads == embed_dim, AssertionError, "embed_dim ", embed_dim, " not divisible by num_heads ",
              num_heads);
  if (use_separate_proj_weight) {
    EMBER_CHECK(key.size(0) == value.size(0) && key.size(1) == value.size(1), AssertionError,
                "key's sequence and batch dims ", torch_size(DimVector{key.size(0), key.size(1)}),
                " do not match value's ", torch_size(DimVector{value.size(0), value.size(1)}));
  } else {
    EMBER_CHECK(DimVector(key.sizes()) == DimVector(value.sizes()), AssertionError, "key shape ", torch_size(key.sizes()),
                " does not match value shape ", torch_size(value.sizes()));
  }

  // ---- in-projection
  Tensor q, k, v;
  if (!use_separate_proj_weight) {
    EMBER_CHECK(in_proj_weight && in_proj_weight->defined(), AssertionError,
                "use_separate_proj_weight is False but in_proj_weight is None");
    const Tensor& w = *in_proj_weight;
    if (query.is_same(key) && key.is_same(value)) {  // one GEMM for all three
      Tensor proj = linear(query, w, in_proj_bias && in_proj_bias->defined() ? in_proj_bias : std::nullopt);
      q = proj.narrow(-1, 0, embed_dim).contiguous();
      k = proj.narrow(-1, embed_dim, embed_dim).contiguous();
      v = proj.narrow(-1, 2 * embed_dim, embed_dim).contiguous();
    } else {
      q = linear(query, w.narrow(0, 0, embed_dim), chunk(in_proj_bias, 0, embed_dim));
      k = linear(key, w.narrow(0, embed_dim, embed_dim), chunk(in_proj_bias, 1, embed_dim));
      v = linear(value, w.narrow(0, 2 * embed_dim, embed_dim), chunk(in_proj_bias, 2, embed_dim));
    }
  } else {
    EMBER_CHECK(q_proj_weight && q_proj_weight->defined(), AssertionError,
                "use_separate_proj_weight is True but q_proj_weight is None");
    EMBER_CHECK(k_proj_weight && k_proj_weight->defined(), AssertionError,
                "use_separate_proj_weight is True but k_proj_weight is None");
    EMBER_CHECK(v_proj_weight && v_proj_weight->defined(), AssertionError,
                "use_separate_proj_weight is True but v_proj_weight is None");
    q = linear(query, *q_proj_weight, chunk(in_proj_bias, 0, embed_dim));
    k = linear(key, *k_proj_weight, chunk(in_proj_bias, 1, embed_dim));
    v = linear(value, *v_proj_weight, chunk(in_proj_bias, 2, embed_dim));
  }

  // ---- masks and extra key/value columns
  if (attn_mask) {
    if (attn_mask->dim() == 2) {
      EMBER_CHECK(attn_mask->size(0) == tgt_len && attn_mask->size(1) == src_len, Error, "The shape of the 2D "
                  "attn_mask is ", torch_size(attn_mask->sizes()), ", but should be ", py_tuple({tgt_len, src_len}),
                  ".");
      attn_mask = attn_mask->unsqueeze(0);
    } else if (attn_mask->dim() == 3) {
      EMBER_CHECK(attn_mask->size(0) == bsz * num_heads && attn_mask->size(1) == tgt_len &&
                  attn_mask->size(2) == src_len, Error, "The shape of the 3D attn_mask is ",
                  torch_size(attn_mask->sizes()), ", but should be ", py_tuple({bsz * num_heads, tgt_len, src_len}),
                  ".");
    } else {
      throw Error(str("attn_mask's dimension ", attn_mask->dim(), " is not supported"));
    }
  }
  bool has_bias_k = bias_k && bias_k->defined(), has_bias_v = bias_v && bias_v->defined();
  if (has_bias_k && has_bias_v) {
    EMBER_CHECK(!static_k, AssertionError, "bias cannot be added to static key.");
    EMBER_CHECK(!static_v, AssertionError, "bias cannot be added to static value.");
    k = cat(std::vector<Tensor>{k, bias_k->repeat({1, bsz, 1})}, 0);
    v = cat(std::vector<Tensor>{v, bias_v->repeat({1, bsz, 1})}, 0);
    attn_mask = pad_column(attn_mask);
    key_padding_mask = pad_column(key_padding_mask);
  } else {
    EMBER_CHECK(!has_bias_k && !has_bias_v, AssertionError, "bias_k and bias_v must both be given or both be None");
  }
  int64_t bh = bsz * num_heads;
  q = q.view({tgt_len, bh, head_dim}).transpose(0, 1);
  auto heads = [&](const Tensor& t, const OptTensor& fixed, const char* name) {
    if (!fixed) return t.view({t.size(0), bh, head_dim}).transpose(0, 1);
    EMBER_CHECK(fixed->size(0) == bh, AssertionError, "expecting ", name, ".size(0) of ", bh, ", but got ",
                fixed->size(0));
    EMBER_CHECK(fixed->size(2) == head_dim, AssertionError, "expecting ", name, ".size(2) of ", head_dim,
                ", but got ", fixed->size(2));
    return *fixed;
  };
  k = heads(k, static_k, "static_k");
  v = heads(v, static_v, "static_v");
  if (add_zero_attn) {
    k = cat(std::vector<Tensor>{k, zeros({bh, 1, head_dim}, TensorOptions(k.dtype()).device(k.device()))}, 1);
    v = cat(std::vector<Tensor>{v, zeros({bh, 1, head_dim}, TensorOptions(v.dtype()).device(v.device()))}, 1);
    attn_mask = pad_column(attn_mask);
    key_padding_mask = pad_column(key_padding_mask);
  }
  src_len = k.size(1);
  if (key_padding_mask) {
    EMBER_CHECK(key_padding_mask->size(0) == bsz, AssertionError, "Expected key_padded_mask.shape[0] to be ", bsz,
                ", but got ", key_padding_mask->size(0));
    EMBER_CHECK(key_padding_mask->size(1) == src_len, AssertionError, "Expected key_padded_mask.shape[1] to be ",
                src_len, ", but got ", key_padding_mask->size(1));
    Tensor kpm = key_padding_mask->view({bsz, 1, 1, src_len}).expand({-1, num_heads, -1, -1}).reshape({bh, 1, src_len});
    attn_mask = attn_mask ? *attn_mask + kpm : kpm;
  }
  if (!training) dropout_p = 0.0;

  // ---- attention and out-projection
  Tensor out, weights;
  if (need_weights) {
    Tensor q_scaled = q * std::sqrt(1.0 / double(head_dim));
    weights = attn_mask ? baddbmm(*attn_mask, q_scaled, k.transpose(-2, -1)) : bmm(q_scaled, k.transpose(-2, -1));
    weights = ember::softmax(weights, -1);
    if (dropout_p > 0.0) weights = dropout(weights, dropout_p);
    out = bmm(weights, v).transpose(0, 1).contiguous().view({tgt_len * bsz, embed_dim});
    out = linear(out, out_proj_weight, out_proj_bias).view({tgt_len, bsz, embed_dim});
    weights = weights.view({bsz, num_heads, tgt_len, src_len});
    if (average_attn_weights) weights = weights.mean({1});
    if (!batched) {
      out = out.squeeze(1);
      weights = weights.squeeze(0);
    }
    return {out, weights};
  }
  if (attn_mask) {
    attn_mask = attn_mask->size(0) == 1 && attn_mask->dim() == 3 ? attn_mask->unsqueeze(0)
                                                                 : attn_mask->view({bsz, num_heads, -1, src_len});
  }
  q = q.view({bsz, num_heads, tgt_len, head_dim});
  k = k.view({bsz, num_heads, src_len, head_dim});
  v = v.view({bsz, num_heads, src_len, head_dim});
  out = scaled_dot_product_attention(q, k, v, attn_mask, dropout_p, is_causal);
  out = out.permute({2, 0, 1, 3}).contiguous().view({bsz * tgt_len, embed_dim});
  out = linear(out, out_proj_weight, out_proj_bias).view({tgt_len, bsz, embed_dim});
  if (!batched) out = out.squeeze(1);
  return {out, Tensor()};
}

OptTensor canonical_mask(const OptTensor& mask, const char* name, ScalarType type) {
  if (!mask || !mask->defined()) return std::nullopt;
  EMBER_CHECK(mask->dtype() == kBool || mask->is_floating_point(), AssertionError, "only bool and floating types of ",
              name, " are supported");
  if (mask->dtype() != kBool) return mask;
  return zeros(mask->sizes(), TensorOptions(type).device(mask->device()))
      .masked_fill(*mask, -std::numeric_limits<double>::infinity());
}

}  // namespace ember::nn::functional
