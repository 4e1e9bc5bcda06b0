// MultiheadAttention, TransformerEncoderLayer and TransformerEncoder of ember/nn/transformer.h.
#include "ember/nn/transformer.h"

#include "ember/creation.h"
#include "ember/nn/activation.h"
#include "ember/nn/init.h"

namespace ember::nn {

namespace {
Tensor& optional_parameter(Module& m, const char* name, bool on, IntArrayRef sizes, const LayerOptions& options) {
  return m.register_parameter(name, on ? empty(sizes, options.tensor_options()) : Tensor());
}
int64_t checked_head_dim(int64_t embed_dim, int64_t num_heads) {
  EMBER_CHECK(embed_dim > 0 && num_heads > 0, ValueError, "embed_dim and num_heads must be greater than 0, got "
              "embed_dim=", embed_dim, " and num_heads=", num_heads, " instead");
  EMBER_CHECK(embed_dim % num_heads == 0, AssertionError, "embed_dim must be divisible by num_heads");
  return embed_dim / num_heads;
}
OptTensor opt(const Tensor& t) { return t.defined() ? OptTensor(t) : std::nullopt; }
OptTensor opt(const Tensor* t) { return t ? opt(*t) : std::nullopt; }
}  // namespace

MultiheadAttention::MultiheadAttention(int64_t embed_dim, int64_t num_heads, double dropout, bool bias,
                                       bool add_bias_kv, bool add_zero_attn, std::optional<int64_t> kdim,
                                       std::optional<int64_t> vdim, bool batch_first, const LayerOptions& options)
    : Module("MultiheadAttention"),
      embed_dim(embed_dim),
      kdim(kdim.value_or(embed_dim)),
      vdim(vdim.value_or(embed_dim)),
      num_heads(num_heads),
      head_dim(checked_head_dim(embed_dim, num_heads)),
      dropout(dropout),
      batch_first(batch_first),
      add_zero_attn(add_zero_attn),
      qkv_same_embed_dim(this->kdim == embed_dim && this->vdim == embed_dim),
      // state_dict order as torch's: in_proj_weight or q/k/v_proj_weight, then in_proj_bias
      in_proj_weight(optional_parameter(*this, "in_proj_weight", qkv_same_embed_dim, {3 * embed_dim, embed_dim},
                                        options)),
      q_proj_weight(optional_parameter(*this, "q_proj_weight", !qkv_same_embed_dim, {embed_dim, embed_dim}, options)),
      k_proj_weight(optional_parameter(*this, "k_proj_weight", !qkv_same_embed_dim, {embed_dim, this->kdim}, options)),
      v_proj_weight(optional_parameter(*this, "v_proj_weight", !qkv_same_embed_dim, {embed_dim, this->vdim}, options)),
      in_proj_bias(optional_parameter(*this, "in_proj_bias", bias, {3 * embed_dim}, options)) {
  out_proj = register_module("out_proj", std::make_shared<NonDynamicallyQuantizableLinear>(embed_dim, embed_dim,
                                                                                          bias, options));
  if (add_bias_kv) {
    bias_k = &register_parameter("bias_k", empty({1, 1, embed_dim}, options.tensor_options()));
    bias_v = &register_parameter("bias_v", empty({1, 1, embed_dim}, options.tensor_options()));
  }
  reset_parameters();
}

void MultiheadAttention::reset_parameters() {
  for (Tensor* w : {&in_proj_weight, &q_proj_weight, &k_proj_weight, &v_proj_weight})
    if (w->defined()) init::xavier_uniform_(*w);
  if (in_proj_bias.defined()) {
    init::constant_(in_proj_bias, 0.0);
    init::constant_(out_proj->bias, 0.0);
  }
  if (bias_k) init::xavier_normal_(*bias_k);
  if (bias_v) init::xavier_normal_(*bias_v);
}

std::pair<Tensor, Tensor> MultiheadAttention::forward(const Tensor& query, const Tensor& key, const Tensor& value,
                                                      const OptTensor& key_padding_mask, bool need_weights,
                                                      const OptTensor& attn_mask, bool average_attn_weights,
                                                      bool is_causal) {
  bool batched = query.dim() == 3;
  Tensor q = query, k = key, v = value;
  if (batch_first && batched) {  // (N, L, E) -> (L, N, E), keeping which of them are the same tensor
    q = query.transpose(1, 0);
    k = key.is_same(query) ? q : key.transpose(1, 0);
    v = value.is_same(key) ? k : value.is_same(query) ? q : value.transpose(1, 0);
  }
  auto [out, weights] = functional::multi_head_attention_forward(
      q, k, v, embed_dim, num_heads, opt(in_proj_weight), opt(in_proj_bias), opt(bias_k), opt(bias_v), add_zero_attn,
      dropout, out_proj->weight, opt(out_proj->bias), is_training(), key_padding_mask, need_weights, attn_mask,
      !qkv_same_embed_dim, opt(q_proj_weight), opt(k_proj_weight), opt(v_proj_weight), std::nullopt, std::nullopt,
      average_attn_weights, is_causal);
  if (batch_first && batched) out = out.transpose(1, 0);
  return {out, weights};
}

}  // namespace ember::nn
