// Elementwise arithmetic and comparisons with broadcasting and torch's type promotion.
#pragma once
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "ember/tensor.h"

namespace ember {

// Flags of binary_ops.def rows.
namespace binary_flags {
enum : unsigned { Alpha = 1, Commutative = 2, InPlace = 4, TensorOther = 8, WideScalar = 16, Float8 = 32 };
}

// Binary ops from binary_ops.def: name(a, b) and name_out(out, a, b), with broadcasting and type promotion.
#define EMBER_BINARY_OP(name, Op, kind, expr, python, flags) \
  Tensor name(const Tensor& a, const Tensor& b);             \
  Tensor& name##_out(Tensor& out, const Tensor& a, const Tensor& b);
#include "ember/binary_ops.def"
#undef EMBER_BINARY_OP
// The Alpha ops: a + alpha * b, a - alpha * b.
Tensor add(const Tensor& a, const Tensor& b, const Scalar& alpha);
Tensor sub(const Tensor& a, const Tensor& b, const Scalar& alpha);
Tensor& add_out(Tensor& out, const Tensor& a, const Tensor& b, const Scalar& alpha);
Tensor& sub_out(Tensor& out, const Tensor& a, const Tensor& b, const Scalar& alpha);
// other - alpha * self (torch.rsub; what `number - tensor` computes).
Tensor rsub(const Tensor& self, const Tensor& other, const Scalar& alpha = 1);
// rounding_mode "trunc" or "floor" (or none: true division), as torch.div.
Tensor div(const Tensor& a, const Tensor& b, std::optional<std::string_view> rounding_mode);
Tensor& div_out(Tensor& out, const Tensor& a, const Tensor& b, std::optional<std::string_view> rounding_mode);
Tensor logical_not(const Tensor& x);  // bool result, any input dtype (nonzero is true)
Tensor& logical_not_out(Tensor& out, const Tensor& x);

// Joining: tensors of one rank, equal except along `dim` (cat) or equal (stack, a new dim).
Tensor cat(std::span<const Tensor> tensors, int64_t dim = 0);
Tensor stack(std::span<const Tensor> tensors, int64_t dim = 0);

// Advanced indexing (x[idx], x[mask] = v). Each entry of `indices` indexes the next dim of self
// (undefined: the whole dim); integer tensors pick along their dim and broadcast together; a bool
// mask selects the elements of as many dims as it has. Results follow torch's shape rules.
Tensor index(const Tensor& self, const std::vector<Tensor>& indices);
Tensor index_put(const Tensor& self, const std::vector<Tensor>& indices, const Tensor& values, bool accumulate = false);
Tensor& index_put_(Tensor& self, const std::vector<Tensor>& indices, const Tensor& values, bool accumulate = false);
// Indices of the nonzero elements: (count, ndim), row-major order.
Tensor nonzero(const Tensor& x);
// out[..., i, ...] = self[..., index[..., i, ...], ...] along dim (index has self's rank).
Tensor gather(const Tensor& self, int64_t dim, const Tensor& index);
// The slices of self at `index` (a vector) along dim.
Tensor index_select(const Tensor& self, int64_t dim, const Tensor& index);
// self with `value` where mask (broadcast to self) is true.
Tensor masked_fill(const Tensor& self, const Tensor& mask, const Scalar& value);
Tensor& masked_fill_(Tensor& self, const Tensor& mask, const Scalar& value);
// A 0-dim tensor value: differentiable w.r.t. it (it gets the sum of the masked gradient), as torch.
Tensor masked_fill(const Tensor& self, const Tensor& mask, const Tensor& value);
Tensor& masked_fill_(Tensor& self, const Tensor& mask, const Tensor& value);

// Elements of a where cond is true, else of b; a and b promote together.
Tensor where(const Tensor& cond, const Tensor& a, const Tensor& b);
Tensor isnan(const Tensor& x);
Tensor isinf(const Tensor& x);
Tensor isfinite(const Tensor& x);

// Unary ops from unary_ops.def: name(x), the in-place name_(x) and name_out(out, x).
#define EMBER_UNARY_OP(name, kind, expr) \
  Tensor name(const Tensor& self);        \
  Tensor& name##_(Tensor& self);          \
  Tensor& name##_out(Tensor& out, const Tensor& self);
#include "ember/unary_ops.def"
#undef EMBER_UNARY_OP

// Composite elementwise ops.
Tensor clamp(const Tensor& x, const std::optional<Tensor>& min, const std::optional<Tensor>& max);
Tensor& clamp_(Tensor& self, const std::optional<Tensor>& min, const std::optional<Tensor>& max);
Tensor lerp(const Tensor& start, const Tensor& end, const Tensor& weight);
Tensor& lerp_(Tensor& self, const Tensor& end, const Tensor& weight);
Tensor nan_to_num(const Tensor& x, double nan = 0.0, std::optional<double> posinf = {}, std::optional<double> neginf = {});
Tensor& nan_to_num_out(Tensor& out, const Tensor& x, double nan = 0.0, std::optional<double> posinf = {},
                       std::optional<double> neginf = {});
Tensor gelu(const Tensor& x, bool tanh_approximation);
Tensor softplus(const Tensor& x, double beta = 1.0, double threshold = 20.0);
Tensor round(const Tensor& x, int64_t decimals);
Tensor isclose(const Tensor& a, const Tensor& b, double rtol = 1e-5, double atol = 1e-8, bool equal_nan = false);
bool allclose(const Tensor& a, const Tensor& b, double rtol = 1e-5, double atol = 1e-8, bool equal_nan = false);
bool equal(const Tensor& a, const Tensor& b);
// out= forms (src/ops/out_forms.cpp). lerp and clamp with tensor bounds cast their result to out's dtype; the others
// need out of the result's dtype exactly, as torch.
Tensor& gather_out(Tensor& out, const Tensor& self, int64_t dim, const Tensor& index);
Tensor& index_select_out(Tensor& out, const Tensor& self, int64_t dim, const Tensor& index);
Tensor& where_out(Tensor& out, const Tensor& cond, const Tensor& a, const Tensor& b);
Tensor& clamp_out(Tensor& out, const Tensor& x, const std::optional<Tensor>& min, const std::optional<Tensor>& max);
Tensor& lerp_out(Tensor& out, const Tensor& start, const Tensor& end, const Tensor& weight);
Tensor& gelu_out(Tensor& out, const Tensor& x, bool tanh_approximation);
Tensor& softplus_out(Tensor& out, const Tensor& x, double beta = 1.0, double threshold = 20.0);
Tensor& round_out(Tensor& out, const Tensor& x, int64_t decimals);

// Operators; a Scalar operand acts as a Python number would (a "wrapped number").
Tensor operator+(const Tensor& a, const Tensor& b);
Tensor operator-(const Tensor& a, const Tensor& b);
Tensor operator*(const Tensor& a, const Tensor& b);
Tensor operator/(const Tensor& a, const Tensor& b);
Tensor operator+(const Tensor& a, const Scalar& b);
Tensor operator-(const Tensor& a, const Scalar& b);
Tensor operator*(const Tensor& a, const Scalar& b);
Tensor operator/(const Tensor& a, const Scalar& b);

// cat/stack into out (resized as torch's out= tensors; the result's dtype must cast to out's).
Tensor& cat_out(Tensor& out, std::span<const Tensor> tensors, int64_t dim = 0);
Tensor& stack_out(Tensor& out, std::span<const Tensor> tensors, int64_t dim = 0);

}  // namespace ember
