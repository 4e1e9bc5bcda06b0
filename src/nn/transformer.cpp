// MultiheadAttention, TransformerEncoderLayer and TransformerEncoder of ember/nn/transformer.h.
#include "ember/nn/transformer.h"

#include <limits>

#include "ember/creation.h"
#include "ember/nn/activation.h"
#include "ember/nn/init.h"
#include "ember/nn/modules_norm.h"
#include "ember/math_ops.h"
#include "ember/operators.h"
#include "ember/ops.h"
#include "ember/random.h"
#include "ember/reduce.h"
#include "ember/shape_utils.h"

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
OptTensor optional_at(const Tensor* t) { return t ? optional_tensor(*t) : std::nullopt; }
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
      q, k, v, embed_dim, num_heads, optional_tensor(in_proj_weight), optional_tensor(in_proj_bias),
      optional_at(bias_k), optional_at(bias_v), add_zero_attn, dropout, out_proj->weight,
      optional_tensor(out_proj->bias), is_training(), key_padding_mask, need_weights, attn_mask, !qkv_same_embed_dim,
      optional_tensor(q_proj_weight), optional_tensor(k_proj_weight), optional_tensor(v_proj_weight), std::nullopt,
      std::nullopt,
      average_attn_weights, is_causal);
  if (batch_first && batched) out = out.transpose(1, 0);
  return {out, weights};
}

}  // namespace ember::nn

namespace ember::nn {

namespace {
std::shared_ptr<LayerNorm> layer_norm(const TransformerEncoderLayer::Options& o) {
  return std::make_shared<LayerNorm>(DimVector{o.d_model}, o.layer_norm_eps, true, o.bias, o.factory);
}
// The feed-forward block: linear2(dropout(activation(linear1(x)))), then the block's own dropout.
Tensor feed_forward(const Tensor& x, const TransformerEncoderLayer::Options& o, Linear& linear1, Module& dropout,
                    Linear& linear2, Module& out_dropout) {
  Tensor h = linear1(x);
  h = o.activation.module ? (*o.activation.module)(h) : o.activation.fn(h);
  return out_dropout(linear2(dropout(h)));
}

// A copy of `layer` (same options, same parameter values) built without moving the default random stream.
template <typename Layer>
std::shared_ptr<Layer> clone_layer(const Layer& layer) {
  Tensor rng = default_generator().get_state();
  auto copy = std::make_shared<Layer>(layer.options);
  default_generator().set_state(rng);
  copy->norm_first = layer.norm_first;
  copy->train(layer.is_training());
  copy->load_state_dict(layer.state_dict());
  return copy;
}

// torch's _detect_is_causal_mask: a given flag, else whether `mask` is the square causal mask.
bool detect_causal(const OptTensor& mask, std::optional<bool> is_causal) {
  if (is_causal || !mask) return is_causal.value_or(false);
  Tensor expected = generate_square_subsequent_mask(mask->size(-2), TensorOptions(mask->dtype()).device(mask->device()));
  return DimVector(mask->sizes()) == DimVector(expected.sizes()) && mask->eq(expected).all().item().to<bool>();
}

std::shared_ptr<ModuleList> clones(int64_t n, const std::function<ModulePtr()>& make) {
  std::vector<ModulePtr> out;
  for (int64_t i = 0; i < n; ++i) out.push_back(make());
  return std::make_shared<ModuleList>(out);
}

}  // namespace

Activation activation_from_name(const std::string& name) {
  if (name == "relu") return {[](const Tensor& x) { return functional::relu(x); }, nullptr, name};
  if (name == "gelu") return {[](const Tensor& x) { return functional::gelu(x); }, nullptr, name};
  throw Error(str("activation should be relu/gelu, not ", name));
}

TransformerEncoderLayer::TransformerEncoderLayer(Options o)
    : Module("TransformerEncoderLayer"), options(std::move(o)), norm_first(options.norm_first) {
  const Options& op = options;
  self_attn = register_module("self_attn", std::make_shared<MultiheadAttention>(
      op.d_model, op.nhead, op.dropout, op.bias, false, false, std::nullopt, std::nullopt, op.batch_first, op.factory));
  linear1 = register_module("linear1", std::make_shared<Linear>(op.d_model, op.dim_feedforward, op.bias, op.factory));
  dropout = register_module("dropout", std::make_shared<Dropout>(op.dropout));
  linear2 = register_module("linear2", std::make_shared<Linear>(op.dim_feedforward, op.d_model, op.bias, op.factory));
  norm1 = register_module("norm1", layer_norm(op));
  norm2 = register_module("norm2", layer_norm(op));
  dropout1 = register_module("dropout1", std::make_shared<Dropout>(op.dropout));
  dropout2 = register_module("dropout2", std::make_shared<Dropout>(op.dropout));
  if (op.activation.module) register_module("activation", op.activation.module);
}

Tensor TransformerEncoderLayer::forward(const Tensor& src, const OptTensor& src_mask,
                                        const OptTensor& src_key_padding_mask, bool is_causal) {
  OptTensor kpm = functional::canonical_mask(src_key_padding_mask, "src_key_padding_mask", src.dtype());
  OptTensor mask = functional::canonical_mask(src_mask, "src_mask", src.dtype());
  auto self_attention = [&](const Tensor& x) {
    return (*dropout1)(self_attn->forward(x, x, x, kpm, false, mask, true, is_causal).first);
  };
  auto ff = [&](const Tensor& x) { return feed_forward(x, options, *linear1, *dropout, *linear2, *dropout2); };
  if (norm_first) {
    Tensor x = src + self_attention((*norm1)(src));
    return x + ff((*norm2)(x));
  }
  Tensor x = (*norm1)(src + self_attention(src));
  return (*norm2)(x + ff(x));
}

std::shared_ptr<TransformerEncoderLayer> TransformerEncoderLayer::clone() const { return clone_layer(*this); }

TransformerEncoder::TransformerEncoder(const TransformerEncoderLayer& encoder_layer, int64_t num_layers,
                                       ModulePtr norm)
    : Module("TransformerEncoder"), num_layers(num_layers) {
  layers = register_module("layers", clones(num_layers, [&] { return encoder_layer.clone(); }));
  if (norm) this->norm = register_module("norm", std::move(norm));  // torch keeps a None norm unregistered
}

Tensor TransformerEncoder::forward(const Tensor& src, const OptTensor& mask, const OptTensor& src_key_padding_mask,
                                   std::optional<bool> is_causal) {
  OptTensor kpm = functional::canonical_mask(src_key_padding_mask, "src_key_padding_mask", src.dtype());
  OptTensor m = functional::canonical_mask(mask, "mask", src.dtype());
  bool causal = detect_causal(m, is_causal);
  Tensor out = src;
  for (const ModulePtr& child : layers->children()) {
    auto layer = std::dynamic_pointer_cast<TransformerEncoderLayer>(child);
    EMBER_CHECK(layer, TypeError, "TransformerEncoder.layers holds a ", child->name(), ", not a TransformerEncoderLayer");
    out = layer->forward(out, m, kpm, causal);
  }
  return norm ? (*norm)(out) : out;
}

TransformerDecoderLayer::TransformerDecoderLayer(Options o)
    : Module("TransformerDecoderLayer"), options(std::move(o)), norm_first(options.norm_first) {
  const Options& op = options;
  auto attention = [&] {
    return std::make_shared<MultiheadAttention>(op.d_model, op.nhead, op.dropout, op.bias, false, false, std::nullopt,
                                                std::nullopt, op.batch_first, op.factory);
  };
  self_attn = register_module("self_attn", attention());
  multihead_attn = register_module("multihead_attn", attention());
  linear1 = register_module("linear1", std::make_shared<Linear>(op.d_model, op.dim_feedforward, op.bias, op.factory));
  dropout = register_module("dropout", std::make_shared<Dropout>(op.dropout));
  linear2 = register_module("linear2", std::make_shared<Linear>(op.dim_feedforward, op.d_model, op.bias, op.factory));
  norm1 = register_module("norm1", layer_norm(op));
  norm2 = register_module("norm2", layer_norm(op));
  norm3 = register_module("norm3", layer_norm(op));
  dropout1 = register_module("dropout1", std::make_shared<Dropout>(op.dropout));
  dropout2 = register_module("dropout2", std::make_shared<Dropout>(op.dropout));
  dropout3 = register_module("dropout3", std::make_shared<Dropout>(op.dropout));
  if (op.activation.module) register_module("activation", op.activation.module);
}

Tensor TransformerDecoderLayer::forward(const Tensor& tgt, const Tensor& memory, const OptTensor& tgt_mask,
                                        const OptTensor& memory_mask, const OptTensor& tgt_key_padding_mask,
                                        const OptTensor& memory_key_padding_mask, bool tgt_is_causal,
                                        bool memory_is_causal) {
  auto sa = [&](const Tensor& x) {
    return (*dropout1)(self_attn->forward(x, x, x, tgt_key_padding_mask, false, tgt_mask, true, tgt_is_causal).first);
  };
  auto mha = [&](const Tensor& x) {
    return (*dropout2)(multihead_attn->forward(x, memory, memory, memory_key_padding_mask, false, memory_mask, true,
                                               memory_is_causal).first);
  };
  auto ff = [&](const Tensor& x) { return feed_forward(x, options, *linear1, *dropout, *linear2, *dropout3); };
  if (norm_first) {
    Tensor x = tgt + sa((*norm1)(tgt));
    x = x + mha((*norm2)(x));
    return x + ff((*norm3)(x));
  }
  Tensor x = (*norm1)(tgt + sa(tgt));
  x = (*norm2)(x + mha(x));
  return (*norm3)(x + ff(x));
}

std::shared_ptr<TransformerDecoderLayer> TransformerDecoderLayer::clone() const { return clone_layer(*this); }

TransformerDecoder::TransformerDecoder(const TransformerDecoderLayer& decoder_layer, int64_t num_layers,
                                       ModulePtr norm)
    : Module("TransformerDecoder"), num_layers(num_layers) {
  layers = register_module("layers", clones(num_layers, [&] { return decoder_layer.clone(); }));
  if (norm) this->norm = register_module("norm", std::move(norm));
}

Tensor TransformerDecoder::forward(const Tensor& tgt, const Tensor& memory, const OptTensor& tgt_mask,
                                   const OptTensor& memory_mask, const OptTensor& tgt_key_padding_mask,
                                   const OptTensor& memory_key_padding_mask, std::optional<bool> tgt_is_causal,
                                   bool memory_is_causal) {
  bool causal = detect_causal(tgt_mask, tgt_is_causal);
  Tensor out = tgt;
  for (const ModulePtr& child : layers->children()) {
    auto layer = std::dynamic_pointer_cast<TransformerDecoderLayer>(child);
    EMBER_CHECK(layer, TypeError, "TransformerDecoder.layers holds a ", child->name(), ", not a TransformerDecoderLayer");
    out = layer->forward(out, memory, tgt_mask, memory_mask, tgt_key_padding_mask, memory_key_padding_mask, causal,
                         memory_is_causal);
  }
  return norm ? (*norm)(out) : out;
}

Transformer::Transformer(Options o)
    : Module("Transformer"), d_model(o.d_model), nhead(o.nhead), batch_first(o.batch_first) {
  TransformerEncoderLayer::Options layer{o.d_model, o.nhead, o.dim_feedforward, o.dropout, o.activation,
                                         o.layer_norm_eps, o.batch_first, o.norm_first, o.bias, o.factory};
  encoder = o.custom_encoder;
  if (!encoder)
    encoder = std::make_shared<TransformerEncoder>(TransformerEncoderLayer(layer), o.num_encoder_layers,
                                                   layer_norm(layer));
  register_module("encoder", encoder);
  decoder = o.custom_decoder;
  if (!decoder)
    decoder = std::make_shared<TransformerDecoder>(TransformerDecoderLayer(layer), o.num_decoder_layers,
                                                   layer_norm(layer));
  register_module("decoder", decoder);
  for (Tensor& p : parameters())
    if (p.dim() > 1) init::xavier_uniform_(p);
}

Tensor Transformer::forward(const Tensor& src, const Tensor& tgt, const OptTensor& src_mask, const OptTensor& tgt_mask,
                            const OptTensor& memory_mask, const OptTensor& src_key_padding_mask,
                            const OptTensor& tgt_key_padding_mask, const OptTensor& memory_key_padding_mask,
                            std::optional<bool> src_is_causal, std::optional<bool> tgt_is_causal,
                            bool memory_is_causal) {
  int64_t batch_dim = batch_first ? 0 : 1;
  EMBER_CHECK(src.dim() != 3 || src.size(batch_dim) == tgt.size(batch_dim), Error,
              "the batch number of src and tgt must be equal");
  EMBER_CHECK(src.size(-1) == d_model && tgt.size(-1) == d_model, Error,
              "the feature number of src and tgt must be equal to d_model");
  Tensor memory = encoder->forward(src, src_mask, src_key_padding_mask, src_is_causal);
  return decoder->forward(tgt, memory, tgt_mask, memory_mask, tgt_key_padding_mask, memory_key_padding_mask,
                          tgt_is_causal, memory_is_causal);
}

Tensor generate_square_subsequent_mask(int64_t sz, const TensorOptions& options) {
  return full({sz, sz}, -std::numeric_limits<double>::infinity(), options).triu(1);
}

}  // namespace ember::nn
