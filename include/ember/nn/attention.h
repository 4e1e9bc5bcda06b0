// torch.nn.functional.scaled_dot_product_attention: torch's math path (softmax(q k^T * scale + mask) v) on Ember's
// batched GEMM.
#pragma once
#include <optional>

#include "ember/tensor.h"

namespace ember::nn::functional {

// query (..., L, E), key (..., S, E), value (..., S, Ev) -> (..., L, Ev). attn_mask: bool (true takes part) or
// additive float, broadcast to (..., L, S); is_causal: the lower-triangular mask; dropout_p drops attention weights
// (torch's masks for a seed); scale defaults to 1 / sqrt(E); enable_gqa repeats key/value heads (dim -3) to the
// query's. Fully masked rows give zeros (torch's _safe_softmax).
Tensor scaled_dot_product_attention(const Tensor& query, const Tensor& key, const Tensor& value,
                                    const std::optional<Tensor>& attn_mask = {}, double dropout_p = 0.0,
                                    bool is_causal = false, std::optional<double> scale = {}, bool enable_gqa = false);

}  // namespace ember::nn::functional
