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
void record_norm(const Tensor& result, const Tensor& x, double p, IntArrayRef dims, bool keepdim);
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

#define EMBER_UNARY_OP(name, kind, expr) void record_##name(const Tensor& result, const Tensor& self);
#include "ember/unary_ops.def"
#undef EMBER_UNARY_OP

}  // namespace ember::autograd
