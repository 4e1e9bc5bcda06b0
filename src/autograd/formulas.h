// Derivative formulas, one record_* per op family: each op calls its record_* with its result
// and inputs; it attaches a grad_fn when autograd::needs_grad holds.
#pragma once
#include <optional>
#include <vector>

#include "../dispatch/kernels.h"
#include "function.h"

namespace ember::autograd {

void record_binary(BinaryOp op, const Tensor& result, const Tensor& a, const Tensor& b, const Scalar& alpha);
// An in-place comparison (eq_, ..., ge_) of a graph input: EqBackward0/1 ..., a zero gradient.
void record_comparison(BinaryOp op, const Tensor& result, const Tensor& a, const Tensor& b);
// div(a, b, rounding_mode=None): true division recorded as torch's div.Tensor_mode node, DivBackward2.
void record_div_mode(const Tensor& result, const Tensor& a, const Tensor& b);
// a / number, as torch's C++ composites divide (div.Scalar): DivBackward1, the gradient g / number.
void record_div_scalar(const Tensor& result, const Tensor& a, double b);
// a * number, as torch's C++ composites multiply (mul.Scalar): MulBackward1, the gradient g * number.
void record_mul_scalar(const Tensor& result, const Tensor& a, double b);

// g * s, or g itself where s is 1 (alpha= and beta= of the binary and matrix-product ops).
Tensor scaled(const Tensor& g, const Scalar& s);

// A reduction's result (or gradient) with its reduced dims (all for empty `dims`) back as size 1.
Tensor keep_dims(const Tensor& t, IntArrayRef in_sizes, IntArrayRef dims, bool keepdim);

void record_rsub(const Tensor& result, const Tensor& self, const Tensor& other, const Scalar& alpha);
void record_sum(const Tensor& result, const Tensor& x, IntArrayRef dims, bool keepdim);
void record_mean(const Tensor& result, const Tensor& x, IntArrayRef dims, bool keepdim);
void record_prod(const Tensor& result, const Tensor& x, IntArrayRef dims, bool keepdim);
// amax/amin: the gradient is split evenly among tied extremes.
void record_extremes(const char* name, const Tensor& result, const Tensor& x, IntArrayRef dims, bool keepdim);
// max/min along a dim: the gradient goes to the element at `indices`.
void record_max_dim(const char* name, const Tensor& values, const Tensor& indices, const Tensor& x, int64_t dim,
                    bool keepdim);
void record_softmax(bool log, const Tensor& result, const Tensor& x, int64_t dim);
void record_cumsum(const Tensor& result, const Tensor& x, int64_t dim);
void record_cumprod(const Tensor& result, const Tensor& x, int64_t dim);

void record_mm(const Tensor& result, const Tensor& a, const Tensor& b);
void record_bmm(const Tensor& result, const Tensor& a, const Tensor& b);
void record_mv(const Tensor& result, const Tensor& m, const Tensor& v);
void record_dot(const Tensor& result, const Tensor& a, const Tensor& b);
void record_addmm(const Tensor& result, const Tensor& input, const Tensor& m1, const Tensor& m2, const Scalar& beta,
                  const Scalar& alpha);
void record_addmv(const Tensor& result, const Tensor& input, const Tensor& m, const Tensor& v, const Scalar& beta,
                  const Scalar& alpha);
void record_baddbmm(const Tensor& r, const Tensor& input, const Tensor& b1, const Tensor& b2, const Scalar& beta,
                    const Scalar& alpha);
// Indexing (formulas_indexing.cpp). An empty `indices` for gather: an empty index, a zero gradient.
void record_index(const Tensor& result, const Tensor& self, const std::vector<Tensor>& indices);
void record_index_put(const Tensor& result, const Tensor& self, const Tensor& values, const std::vector<Tensor>& indices,
                      bool accumulate);
void record_gather(const Tensor& result, const Tensor& self, const std::vector<Tensor>& indices);
void record_index_select(const Tensor& result, const Tensor& self, const std::vector<Tensor>& indices);
void record_masked_fill(const Tensor& result, const Tensor& self, const Tensor& mask);  // a number value
void record_masked_fill(const Tensor& result, const Tensor& self, const Tensor& mask, const Tensor& value);

// Copies and writes (formulas_copy.cpp). A copy or conversion passes the gradient through (the engine casts it back
// to the input's dtype); an overwrite of `self` gives its old history a zero gradient (node `name`); fill_ with a
// 0-dim `value` gives it the sum of the gradient (FillBackward3).
void record_copy(const char* name, const Tensor& result, const Tensor& input);
void record_overwrite(const char* name, const Tensor& result, const Tensor& self);
void record_fill(const Tensor& result, const Tensor& self, const Tensor& value);
// self.copy_(src) as torch's one CopyBackwards node: none to self's old values, the gradient summed to src's shape
// in src's dtype.
void record_copy_into(const Tensor& result, const Tensor& self, const Tensor& src);

// Joins, where and the shape ops with several outputs or a copy (formulas_shape.cpp).
void record_cat(const Tensor& result, std::span<const Tensor> inputs, int64_t dim);
void record_stack(const Tensor& result, std::span<const Tensor> inputs, int64_t dim);
void record_where(const Tensor& result, const Tensor& cond, const Tensor& a, const Tensor& b);
void record_unsafe_view(const Tensor& result, const Tensor& copy, IntArrayRef in_sizes);
void record_split(const char* name, const std::vector<Tensor>& pieces, const Tensor& t, IntArrayRef lengths, int64_t dim);
void record_unbind(const std::vector<Tensor>& slices, const Tensor& t, int64_t dim);

// Ops built from others, recorded as one node (formulas_composite.cpp).
void record_clamp(const Tensor& result, const Tensor& x, const std::optional<Tensor>& min, const std::optional<Tensor>& max);
void record_lerp(const Tensor& result, const Tensor& start, const Tensor& end, const Tensor& weight);
void record_nan_to_num(const Tensor& result, const Tensor& x);
void record_softplus(const Tensor& result, const Tensor& x, double beta, double threshold);
void record_var_std(bool is_std, const Tensor& result, const Tensor& x, IntArrayRef dims, double correction, bool keepdim);
void record_var_std_mean(bool is_std, const Tensor& first, const Tensor& mean, const Tensor& x, IntArrayRef dims,
                         double correction, bool keepdim);
// node: torch.norm's; at::norm (which pairwise_distance calls) records NormBackward1.
void record_norm(const Tensor& result, const Tensor& x, double p, IntArrayRef dims, bool keepdim,
                 const char* node = "LinalgVectorNormBackward0");
void record_logsumexp(const Tensor& result, const Tensor& x, IntArrayRef dims, bool keepdim);
// The gradient of a p-norm of x over dims (all for none) that came out as `norm`.
Tensor norm_backward(const Tensor& grad, const Tensor& x, const Tensor& norm, double p, IntArrayRef dims, bool keepdim);

// Math ops (formulas_math.cpp).
void record_logit(const Tensor& result, const Tensor& x, std::optional<double> eps);
void record_nansum(const Tensor& result, const Tensor& x, IntArrayRef dims, bool keepdim);
void record_logcumsumexp(const Tensor& result, const Tensor& x, int64_t dim);
void record_cross(const Tensor& result, const Tensor& a, const Tensor& b, int64_t dim);
void record_dist(const Tensor& result, const Tensor& a, const Tensor& b, double p);
void record_cdist(const Tensor& result, const Tensor& x1, const Tensor& x2, double p);
// linalg.svd's three outputs (formulas_svd.cpp).
void record_svd(const Tensor& U, const Tensor& S, const Tensor& Vh, const Tensor& a);

// Order statistics (formulas_sorting.cpp). record_selected: values picked from x along dim at `indices` (sort,
// topk, cummax, and the keepdim-able reductions kthvalue/median/mode); the gradient goes back to those elements.
void record_selected(const char* name, const Tensor& values, const Tensor& indices, const Tensor& x, int64_t dim,
                     bool keepdim = true);
// median/nanmedian of all elements: the gradient is split evenly among the elements equal to the result.
void record_evenly(const char* name, const Tensor& result, const Tensor& x);

#define EMBER_UNARY_OP(name, kind, expr) void record_##name(const Tensor& result, const Tensor& self);
#include "ember/unary_ops.def"
#undef EMBER_UNARY_OP

// Shape utilities (formulas_shape_utils.cpp): flip, roll, rot90, repeat, tril/triu, diag_embed, diagonal copy,
// trace, block_diag (a roll without dims is over the flattened tensor).
void record_flip(const Tensor& result, const Tensor& self, IntArrayRef dims);
void record_roll(const Tensor& result, const Tensor& self, IntArrayRef shifts, IntArrayRef dims);
void record_rot90(const Tensor& result, const Tensor& self, int64_t k, IntArrayRef dims);
void record_repeat(const Tensor& result, const Tensor& self, IntArrayRef repeats);
void record_triangle(bool upper, const Tensor& result, const Tensor& self, int64_t diagonal);
void record_diag_embed(const Tensor& result, const Tensor& self, int64_t offset, int64_t dim1, int64_t dim2);
void record_diagonal_copy(const Tensor& result, const Tensor& self, int64_t offset, int64_t dim1, int64_t dim2);
void record_trace(const Tensor& result, const Tensor& self);
void record_block_diag(const Tensor& result, std::span<const Tensor> inputs);

// An op torch does not differentiate (torch::autograd::NotImplemented, raising in backward); b may be undefined.
void record_not_implemented(const char* op, const Tensor& result, const Tensor& a, const Tensor& b);
// An in-place op torch has no formula for: `node` (e.g. AcoshBackward1) raises NotImplementedError in backward.
void record_in_place_not_implemented(const char* op, const char* node, const Tensor& result, const Tensor& self);
// An op torch records without a formula (`node`, e.g. Unique2Backward0): backward raises torch's
// "the derivative for 'op' is not implemented." NotImplementedError.
void record_without_derivative(const std::string& op, const char* node, const Tensor& result, const Tensor& self);

// The scatter family (formulas_scatter.cpp). dim is wrapped; src null: a value (ScatterBackward1).
void record_scatter(const Tensor& result, const Tensor& self, int64_t dim, const Tensor& index, const Tensor* src);
void record_scatter_add(const Tensor& result, const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src);
void record_scatter_reduce(const Tensor& result, const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                           std::string_view reduce, bool include_self);
void record_index_add(const Tensor& result, const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source,
                      const Scalar& alpha);
void record_index_copy(const Tensor& result, const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source);
// positions: the filled ones (wrapped); value null: a number (IndexFillBackward0), else IndexFillBackward1.
void record_index_fill(const Tensor& result, const Tensor& self, int64_t dim, const Tensor& positions, const Tensor* value);
void record_index_reduce(const Tensor& result, const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source,
                         std::string_view reduce, bool include_self);
void record_take(const Tensor& result, const Tensor& self, const Tensor& index);
void record_put(const Tensor& result, const Tensor& self, const Tensor& index, const Tensor& source, bool accumulate);
void record_masked_select(const Tensor& result, const Tensor& self, const Tensor& mask);
void record_masked_scatter(const Tensor& result, const Tensor& self, const Tensor& mask, const Tensor& source);

}  // namespace ember::autograd

namespace ember::autograd {
// Normalisation (formulas_nn_normalization.cpp): NativeBatchNormBackward0, NativeLayerNormBackward0,
// NativeGroupNormBackward0. mean and invstd (rstd) are the statistics the forward used (compute dtype: float64 for
// float64 inputs, else float32); weight and bias may be undefined.
void record_batch_norm(const Tensor& result, const Tensor& input, const Tensor& weight, const Tensor& bias,
                       const Tensor& mean, const Tensor& invstd, bool training, double eps);
void record_layer_norm(const Tensor& result, const Tensor& input, int64_t normalized_ndim, const Tensor& weight,
                       const Tensor& bias, const Tensor& mean, const Tensor& rstd, double eps);
void record_group_norm(const Tensor& result, const Tensor& input, int64_t groups, const Tensor& weight,
                       const Tensor& bias, const Tensor& mean, const Tensor& rstd, double eps);
}  // namespace ember::autograd

namespace ember::autograd {
// Padding (formulas_nn_padding.cpp): ConstantPadNdBackward0 (the gradient cropped by the opposite pads).
void record_constant_pad(const Tensor& result, const Tensor& self, IntArrayRef pad);
// One axis of a separable gather (reflection / replication pads, upsampling): along `dim`,
// out = x[index0] * weight0 + x[index1] * weight1, or x[index0] where the weights are undefined. Weights have the
// output's size along dim and 1 elsewhere.
struct GatherAxis {
  int64_t dim;
  Tensor index0, weight0, index1, weight1;
};
// The gathers' node `name`: the gradient added back along each axis, the last first.
void record_gathers(const char* name, const Tensor& result, const Tensor& self, const std::vector<GatherAxis>& axes);
// embedding (formulas_nn_embedding.cpp): EmbeddingBackward0, rows of padding_idx get no gradient.
void record_embedding(const Tensor& result, const Tensor& weight, const Tensor& indices, int64_t padding_idx,
                      bool scale_grad_by_freq, bool sparse);
// embedding_bag: EmbeddingBagBackward0 for weight and per_sample_weights (undefined when none). bag: the kept
// positions' indices, bags, per-sample weights (or undefined), positions in the input, gathered rows, and each bag's
// count (mean mode; else undefined).
struct EmbeddingBag {
  Tensor indices, bags, weights, positions, rows, counts;
};
void record_embedding_bag(const Tensor& result, const Tensor& weight, const Tensor& per_sample_weights,
                          const EmbeddingBag& bag, bool max_mode, bool sparse);
}  // namespace ember::autograd

namespace ember::autograd {
// scaled_dot_product_attention where torch runs its CPU flash kernel (formulas_nn_attention.cpp):
// ScaledDotProductFlashAttentionForCpuBackward0. weights: the softmax (saved); scale: q k^T's factor (signed);
// weights_of(q, k with value's heads) recomputes them differentiably under create_graph. Key/value heads fewer
// than the query's (enable_gqa) were repeated, their gradients are summed back.
void record_flash_attention(const Tensor& result, const Tensor& query, const Tensor& key, const Tensor& value,
                            const Tensor& weights, double scale,
                            std::function<Tensor(const Tensor&, const Tensor&)> weights_of);
}  // namespace ember::autograd

namespace ember::autograd {
// pixel_shuffle (shuffle) / pixel_unshuffle by factor r (formulas_nn_vision.cpp): each other's gradient.
void record_pixel_shuffle(const Tensor& result, const Tensor& self, int64_t r, bool shuffle);
}  // namespace ember::autograd

namespace ember::autograd {
// A linear map of self (unfold, fold): its gradient is its adjoint applied to the incoming gradient (node `name`).
void record_adjoint(const char* name, const Tensor& result, const Tensor& self,
                    std::function<Tensor(const Tensor&)> adjoint);
}  // namespace ember::autograd

// nn activations (formulas_nn_activation.cpp): the gradient of an Activation kernel (not differentiable again:
// under create_graph it records a NotImplemented node), and its recording as node `name` saving the input x, or
// the result where `from_result` (the in-place forms).
namespace ember::autograd {
Tensor activation_backward(Activation op, const Tensor& grad, const Tensor& saved, const ActivationParams& p,
                           bool from_result);
void record_activation(const char* name, Activation op, const ActivationParams& p, const Tensor& result,
                       const Tensor& x, bool from_result);
void record_glu(const Tensor& result, const Tensor& x, int64_t dim);
void record_prelu(const Tensor& result, const Tensor& x, const Tensor& weight);
void record_rrelu_noise(const char* name, const Tensor& result, const Tensor& x, const Tensor& noise);
}  // namespace ember::autograd

// nn losses (formulas_nn_loss.cpp).
namespace ember::autograd {
// nll_loss's node `name` (NllLossBackward0 / NllLoss2DBackward0) on logp, seen as (N, C, S) by the kernels (tgt
// (N, S) int64, weight (C) or undefined, total_weight 0-dim).
void record_nll_loss(const char* name, const Tensor& result, const Tensor& logp, const Tensor& target,
                     const Tensor& weight, int64_t ignore_index, Reduction reduction, const Tensor& total_weight);
// cross_entropy's fused forward (x (N, C), lse (N)): LogSoftmaxBackward0 under NllLossBackward0, as torch's graph;
// their backward runs as one kernel pass when nothing else reads the gradient between them.
void record_cross_entropy(const Tensor& result, const Tensor& x, const Tensor& lse, const Tensor& target,
                          const Tensor& weight, int64_t ignore_index, Reduction reduction, const Tensor& total_weight);
// A pointwise loss node of x and y (same shape): the elementwise loss's derivative in x is `dx(x, y)`, in y `dy(x, y)`
// (null: -dx).
using LossDerivative = std::function<Tensor(const Tensor& x, const Tensor& y)>;
void record_pointwise_loss(const char* name, const Tensor& result, const Tensor& x, const Tensor& y,
                           Reduction reduction, LossDerivative dx, LossDerivative dy);
// multi_margin_loss of x (N, C) viewed from `input`, target (N, 1) int64, weight (C) or undefined.
void record_multi_margin(const Tensor& result, const Tensor& input, const Tensor& target, int64_t p, double margin,
                         const Tensor& weight, Reduction reduction);
// The per-element margin terms of multi_margin_loss (N, C): max(0, margin - x[t] + x[i])^p w[t] / C, 0 at t; with
// `derivative`, their derivative in x[i] instead.
Tensor multi_margin_terms(const Tensor& x, const Tensor& target, int64_t p, double margin, const Tensor& weight,
                          bool derivative);
// clamp_min(x, 0) as torch's ClampMinBackward0.
void record_clamp_min(const Tensor& result, const Tensor& x, double min);
}  // namespace ember::autograd
