// where(cond, a, b) and the float predicates isnan, isinf, isfinite.
#include "../autograd/formulas.h"
#include "../dispatch/kernels.h"
#include "ember/creation.h"
#include "ember/layout.h"
#include "ember/ops.h"
#include "ember/type_promotion.h"

namespace ember {

namespace {

Tensor where_impl(const Tensor& cond, const Tensor& a, const Tensor& b) {
  EMBER_CHECK(cond.dtype() == kBool, Error, "where expected condition to be a boolean tensor, but got a tensor with dtype ",
              legacy_name(cond.dtype()));
  DimVector shape = broadcast_shapes(broadcast_shapes(cond.sizes(), a.sizes()), b.sizes());
  const Tensor values[2] = {a, b};
  ScalarType common = result_type(values);
  if (common != kFloat16 && common != kBFloat16) {  // torch checks number operands except for these two
    for (const Tensor& v : values) check_wrapped_fits(v, common);
  }
  Tensor c = broadcast_operand(cond, shape), av = broadcast_operand(a.to(common), shape),
         bv = broadcast_operand(b.to(common), shape);
  const Tensor operands[3] = {c, av, bv};
  auto full = [&](const Tensor& t) { return std::equal(t.sizes().begin(), t.sizes().end(), shape.begin(), shape.end()); };
  bool same_shape = full(cond) && full(a) && full(b);  // TensorIterator's layout, fast setups included
  const Tensor inputs[3] = {cond, a, b};
  Tensor out = empty_strided(shape, elementwise_strides(shape, operands, same_shape),
                            a.options().with_dtype(common).with_device(common_device(inputs)));
  kernels::where[out.device()](out, c, av, bv);
  return out;
}

}  // namespace

Tensor where(const Tensor& cond, const Tensor& a, const Tensor& b) {
  Tensor r = autograd::untracked([&] { return where_impl(cond, a, b); });
  if (autograd::needs_grad({&a, &b})) autograd::record_where(r, cond, a, b);
  return r;
}

Tensor isnan(const Tensor& x) { return x.is_floating_point() ? ne(x, x) : zeros_like(x, kBool); }

Tensor isinf(const Tensor& x) {
  return x.is_floating_point() ? eq(abs(x), wrapped_scalar(INFINITY)) : zeros_like(x, kBool);
}

Tensor isfinite(const Tensor& x) {  // x - x is 0 exactly when x is finite
  return x.is_floating_point() ? eq(sub(x, x), wrapped_scalar(0)) : ones_like(x, kBool);
}

}  // namespace ember
