// The derivative of softmax(scale * q k^T + mask) v for torch's flash attention node: dV = P^T g,
// dS = P * (g v^T - rowsum(g v^T * P)), dQ = scale * dS k, dK = scale * dS^T q.
#include "ember/linalg.h"
#include "ember/ops.h"
#include "ember/reduce.h"
#include "ember/type_promotion.h"
#include "formulas.h"

namespace ember::autograd {

namespace {

// t's heads (dim 1) repeated to `heads`, or a gradient of such a tensor summed back to t's heads.
Tensor repeat_heads(const Tensor& t, int64_t heads) {
  return heads == t.size(1) ? t : t.repeat_interleave(heads / t.size(1), 1);
}
Tensor sum_heads(const Tensor& g, int64_t heads) {
  if (heads == g.size(1)) return g;
  return sum(g.reshape({g.size(0), heads, g.size(1) / heads, g.size(2), g.size(3)}), {2});
}

}  // namespace

void record_flash_attention(const Tensor& result, const Tensor& query, const Tensor& key, const Tensor& value,
                            const Tensor& weights, double scale,
                            std::function<Tensor(const Tensor&, const Tensor&)> weights_of) {
  record("ScaledDotProductFlashAttentionForCpuBackward0", result, {&query, &key, &value},
         {&query, &key, &value, &weights}, [scale, weights_of](const BackwardContext& c) {
    const Tensor &g = c.grads[0], &q = c.saved[0], &key = c.saved[1], &value = c.saved[2];
    int64_t heads = q.size(1);
    Tensor k = repeat_heads(key, heads), v = repeat_heads(value, heads);
    Tensor p = is_grad_enabled() ? weights_of(q, k) : c.saved[3];  // create_graph: P as a function of q and k
    Tensor dp = matmul(g, v.transpose(-2, -1));
    Tensor ds = mul(p, sub(dp, sum(mul(dp, p), {-1}, true)));
    TensorList out(3);
    if (c.needs(0)) out[0] = mul(matmul(ds, k), wrapped_scalar(scale));
    if (c.needs(1)) out[1] = sum_heads(mul(matmul(ds.transpose(-2, -1), q), wrapped_scalar(scale)), key.size(1));
    if (c.needs(2)) out[2] = sum_heads(matmul(p.transpose(-2, -1), g), value.size(1));
    return out;
  });
}

}  // namespace ember::autograd
