// Attention and transformer layers: F.multi_head_attention_forward and torch.nn.MultiheadAttention (with its
// NonDynamicallyQuantizableLinear out_proj), TransformerEncoderLayer and TransformerEncoder.
#pragma once
#include <functional>
#include <optional>
#include <string>
#include <utility>

#include "ember/nn/container.h"
#include "ember/nn/linear.h"
#include "ember/nn/module.h"
#include "ember/nn/modules_misc.h"  // AssertionError

namespace ember::nn {

using OptTensor = std::optional<Tensor>;

namespace functional {
// torch's _canonical_mask: a bool mask (true masks out) as an additive mask of dtype `type`; a float one kept.
// `name` names the mask in the dtype error.
OptTensor canonical_mask(const OptTensor& mask, const char* name, ScalarType type);
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

// A feed-forward activation: a function, or a module (then registered as the child "activation", as torch does).
struct Activation {
  std::function<Tensor(const Tensor&)> fn;
  ModulePtr module;
  std::string name;  // "relu" or "gelu" when given by name
};
// "relu" or "gelu" (else torch's RuntimeError).
Activation activation_from_name(const std::string& name);

// torch's TransformerEncoderLayer: self-attention and a feed-forward block, each residual, with the LayerNorm
// before (norm_first) or after.
class TransformerEncoderLayer : public Module {
 public:
  struct Options {
    int64_t d_model, nhead, dim_feedforward = 2048;
    double dropout = 0.1;
    Activation activation = activation_from_name("relu");
    double layer_norm_eps = 1e-5;
    bool batch_first = false, norm_first = false, bias = true;
    LayerOptions factory;
  };
  explicit TransformerEncoderLayer(Options options);
  TransformerEncoderLayer(int64_t d_model, int64_t nhead, int64_t dim_feedforward = 2048, double dropout = 0.1,
                          const std::string& activation = "relu")
      : TransformerEncoderLayer(Options{.d_model = d_model, .nhead = nhead, .dim_feedforward = dim_feedforward,
                                        .dropout = dropout, .activation = activation_from_name(activation),
                                        .factory = {}}) {}
  using Module::forward;
  Tensor forward(const Tensor& src) override { return forward(src, {}, {}, false); }
  Tensor forward(const Tensor& src, const OptTensor& src_mask, const OptTensor& src_key_padding_mask,
                 bool is_causal = false);
  // A new layer of the same options and the same parameter values (torch's deepcopy in TransformerEncoder);
  // it draws no random numbers.
  std::shared_ptr<TransformerEncoderLayer> clone() const;
  Options options;
  std::shared_ptr<MultiheadAttention> self_attn;
  std::shared_ptr<Linear> linear1, linear2;
  ModulePtr dropout, norm1, norm2, dropout1, dropout2;
  bool norm_first;
};

// num_layers clones of encoder_layer, then the optional norm (torch's TransformerEncoder).
class TransformerEncoder : public Module {
 public:
  TransformerEncoder(const TransformerEncoderLayer& encoder_layer, int64_t num_layers, ModulePtr norm = nullptr);
  using Module::forward;
  Tensor forward(const Tensor& src) override { return forward(src, {}, {}, std::nullopt); }
  // is_causal none: true when mask is the square causal mask (torch's _detect_is_causal_mask).
  Tensor forward(const Tensor& src, const OptTensor& mask, const OptTensor& src_key_padding_mask,
                 std::optional<bool> is_causal = std::nullopt);
  std::shared_ptr<ModuleList> layers;
  ModulePtr norm;
  int64_t num_layers;
};

// torch's TransformerDecoderLayer: self-attention, attention over the memory and a feed-forward block, each residual
// with its LayerNorm before (norm_first) or after.
class TransformerDecoderLayer : public Module {
 public:
  using Options = TransformerEncoderLayer::Options;
  explicit TransformerDecoderLayer(Options options);
  using Module::forward;
  Tensor forward(const Tensor& tgt, const Tensor& memory, const OptTensor& tgt_mask = {},
                 const OptTensor& memory_mask = {}, const OptTensor& tgt_key_padding_mask = {},
                 const OptTensor& memory_key_padding_mask = {}, bool tgt_is_causal = false,
                 bool memory_is_causal = false);
  std::shared_ptr<TransformerDecoderLayer> clone() const;  // as TransformerEncoderLayer::clone
  Options options;
  std::shared_ptr<MultiheadAttention> self_attn, multihead_attn;
  std::shared_ptr<Linear> linear1, linear2;
  ModulePtr dropout, norm1, norm2, norm3, dropout1, dropout2, dropout3;
  bool norm_first;
};

// num_layers clones of decoder_layer, then the optional norm (torch's TransformerDecoder).
class TransformerDecoder : public Module {
 public:
  TransformerDecoder(const TransformerDecoderLayer& decoder_layer, int64_t num_layers, ModulePtr norm = nullptr);
  using Module::forward;
  // tgt_is_causal none: true when tgt_mask is the square causal mask.
  Tensor forward(const Tensor& tgt, const Tensor& memory, const OptTensor& tgt_mask = {},
                 const OptTensor& memory_mask = {}, const OptTensor& tgt_key_padding_mask = {},
                 const OptTensor& memory_key_padding_mask = {}, std::optional<bool> tgt_is_causal = std::nullopt,
                 bool memory_is_causal = false);
  std::shared_ptr<ModuleList> layers;
  ModulePtr norm;
  int64_t num_layers;
};

// torch's Transformer: an encoder and a decoder stack (each with a final LayerNorm) or custom ones; every
// parameter of more than one dim re-initialised xavier_uniform_ (torch's _reset_parameters).
class Transformer : public Module {
 public:
  struct Options {
    int64_t d_model = 512, nhead = 8, num_encoder_layers = 6, num_decoder_layers = 6, dim_feedforward = 2048;
    double dropout = 0.1;
    Activation activation = activation_from_name("relu");
    std::shared_ptr<TransformerEncoder> custom_encoder;
    std::shared_ptr<TransformerDecoder> custom_decoder;
    double layer_norm_eps = 1e-5;
    bool batch_first = false, norm_first = false, bias = true;
    LayerOptions factory;
  };
  explicit Transformer(Options options);
  using Module::forward;
  Tensor forward(const Tensor& src, const Tensor& tgt, const OptTensor& src_mask = {}, const OptTensor& tgt_mask = {},
                 const OptTensor& memory_mask = {}, const OptTensor& src_key_padding_mask = {},
                 const OptTensor& tgt_key_padding_mask = {}, const OptTensor& memory_key_padding_mask = {},
                 std::optional<bool> src_is_causal = std::nullopt, std::optional<bool> tgt_is_causal = std::nullopt,
                 bool memory_is_causal = false);
  std::shared_ptr<TransformerEncoder> encoder;
  std::shared_ptr<TransformerDecoder> decoder;
  int64_t d_model, nhead;
  bool batch_first;
};

// torch's Transformer.generate_square_subsequent_mask: -inf above the diagonal, 0 elsewhere.
Tensor generate_square_subsequent_mask(int64_t sz, const TensorOptions& options = {});

}  // namespace ember::nn
