// Attention and transformer layers: F.multi_head_attention_forward and torch.nn.MultiheadAttention (with its
// NonDynamicallyQuantizableLinear out_proj), TransformerEncoderLayer and TransformerEncoder.
#pragma once
#include <functional>
#include <optional>
#include <string>
#include <utility>

#include "ember/nn/linear.h"
#include "ember/nn/module.h"

namespace ember::nn {

struct AssertionError : Error { using Error::Error; };  // Python's AssertionError (torch's asserts)

using OptTensor = std::optional<Tensor>;

namespace functional {
// torch.nn.functional.multi_head_attention_forward: query (L, N, E) or (L, E), key/value (S, N, *) or (S, *).
// Returns the output (L, N, E) and, when need_weights, the attention weights (N, L, S) averaged over heads or
// (N, H, L, S); else an undefined tensor. Masks: bool (true is masked out) or additive float.
std::pair<Tensor, Tensor> multi_head_attention_forward(
    const Tensor& query, const Tensor& key, const Tensor& value, int64_t embed_dim_to_check, int64_t num_heads,
    const OptTensor& in_proj_weight, const OptTensor& in_proj_bias, const OptTensor& bias_k, const OptTensor& bias_v,
    bool add_zero_attn, double dropout_p, const Tensor& out_proj_weight, const OptTensor& out_proj_bias,
    bool training = true, const OptTensor& key_padding_mask = {}, bool need_weights = true,
    const OptTensor& attn_mask = {}, bool use_separate_proj_weight = false, const OptTensor& q_proj_weight = {},
    const OptTensor& k_proj_weight = {}, const OptTensor& v_proj_weight = {}, const OptTensor& static_k = {},
    const OptTensor& static_v = {}, bool average_attn_weights = true, bool is_causal = false);
}  // namespace functional

// torch's Linear under another name (MultiheadAttention.out_proj).
class NonDynamicallyQuantizableLinear : public Linear {
 public:
  NonDynamicallyQuantizableLinear(int64_t in_features, int64_t out_features, bool bias = true,
                                  const LayerOptions& options = {})
      : Linear(in_features, out_features, bias, options) {
    name_ = "NonDynamicallyQuantizableLinear";
  }
};

class MultiheadAttention : public Module {
 public:
  // kdim/vdim default to embed_dim; when either differs, q/k/v_proj_weight replace in_proj_weight (torch's).
  MultiheadAttention(int64_t embed_dim, int64_t num_heads, double dropout = 0.0, bool bias = true,
                     bool add_bias_kv = false, bool add_zero_attn = false, std::optional<int64_t> kdim = std::nullopt,
                     std::optional<int64_t> vdim = std::nullopt, bool batch_first = false,
                     const LayerOptions& options = {});
  using Module::forward;
  // (output, weights): weights undefined unless need_weights.
  std::pair<Tensor, Tensor> forward(const Tensor& query, const Tensor& key, const Tensor& value,
                                    const OptTensor& key_padding_mask = {}, bool need_weights = true,
                                    const OptTensor& attn_mask = {}, bool average_attn_weights = true,
                                    bool is_causal = false);
  void reset_parameters();  // torch's _reset_parameters: xavier_uniform_ projections, zero biases, xavier_normal_ bias_k/v
  int64_t embed_dim, kdim, vdim, num_heads, head_dim;
  double dropout;
  bool batch_first, add_zero_attn, qkv_same_embed_dim;
  Tensor &in_proj_weight, &q_proj_weight, &k_proj_weight, &v_proj_weight, &in_proj_bias;
  Tensor *bias_k = nullptr, *bias_v = nullptr;  // registered only with add_bias_kv (else torch's plain None)
  std::shared_ptr<NonDynamicallyQuantizableLinear> out_proj;
};

}  // namespace ember::nn
