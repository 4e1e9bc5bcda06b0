// Products beside the matmul family: inner, vdot, addr, addbmm and the in-place fused products (ember/products.h).
#include "ember/products.h"

#include <algorithm>
#include <array>
#include <functional>

#include "../autograd/formulas_products.h"
#include "../iter/tensor_iterator.h"
#include "in_place_composite.h"
#include "ember/creation.h"
#include "ember/linalg.h"
#include "ember/math_ops.h"
#include "ember/ops.h"
#include "ember/type_promotion.h"

namespace ember {

namespace {

// An in-place fused product: self keeps its dtype and its shape (torch's "Bad in-place call"; addbmm_ resizes self
// instead, as torch's); recorded through record_in_place where self or an input is in the graph, so self takes the
// product's node.
Tensor& product_in_place(Tensor& self, std::initializer_list<const Tensor*> inputs,
                         const std::function<Tensor()>& compute, bool resizes = false) {
  return write_in_place(self, inputs, [&] {
    Tensor r = compute();
    if (resizes && !std::ranges::equal(r.sizes(), self.sizes())) self.resize_(r.sizes());
    EMBER_CHECK(std::ranges::equal(r.sizes(), self.sizes()), Error, "Bad in-place call: input tensor size ",
                int_list(self.sizes()), " and output tensor size ", int_list(r.sizes()), " should match");
    return r;
  });
}

// torch's check of beta/alpha for integer results.
void check_integral_factors(ScalarType dtype, const Scalar& beta, const Scalar& alpha) {
  if (is_floating_point(dtype) || dtype == kBool) return;
  for (auto [s, name] : {std::pair{&beta, "beta"}, std::pair{&alpha, "alpha"}}) {
    EMBER_CHECK(!s->is_floating_point(), Error, "For integral input tensors, argument ", name,
                " must not be a floating point number.");
  }
}

}  // namespace

Tensor inner(const Tensor& a, const Tensor& b) {
  if (a.dim() == 0 || b.dim() == 0) return mul(a, b);
  EMBER_CHECK(a.sizes().back() == b.sizes().back(), Error, "inner() the last dimension must match on both input "
              "tensors but got shapes ", int_list(a.sizes()), " and ", int_list(b.sizes()));
  if (a.dim() == 1 && b.dim() == 1) return dot(a, b).view(IntArrayRef());  // torch's tensordot: a view of dot
  const int64_t da = a.dim() - 1, db = b.dim() - 1;
  return tensordot(a, b, IntArrayRef(da), IntArrayRef(db));
}

Tensor vdot(const Tensor& a, const Tensor& b) {
  Tensor r = autograd::untracked([&] { return dot(a, b); });
  if (autograd::needs_grad({&a, &b})) autograd::record_vdot(r, a, b);
  return r;
}

Tensor addr(const Tensor& input, const Tensor& vec1, const Tensor& vec2, const Scalar& beta, const Scalar& alpha) {
  for (auto [v, name] : {std::pair{&vec1, "vec1"}, std::pair{&vec2, "vec2"}}) {
    EMBER_CHECK(v->dim() == 1, Error, "addr: Expected 1-D argument ", name, ", but got ", v->dim(), "-D");
  }
  const std::array operands{input, vec1, vec2};
  ScalarType dtype = result_type(operands);
  check_integral_factors(dtype, beta, alpha);
  Tensor r = autograd::untracked([&] {
    Tensor in = input.expand({vec1.size(0), vec2.size(0)}).to(dtype);
    Tensor outer = mul(vec1.unsqueeze(1), vec2.unsqueeze(0)).to(dtype);
    if (dtype == kBool) {  // beta and alpha act as truth values
      Tensor kept = beta.to_double() != 0 ? in : zeros_like(in);
      const Tensor layout[1] = {in};
      return in_elementwise_layout(logical_or(kept, alpha.to_double() != 0 ? outer : zeros_like(outer)), layout);
    }
    Tensor product = mul(outer, wrapped_scalar(alpha));
    // beta 0 ignores input (its NaNs too), as torch; the result takes input's layout, as torch's iterator
    Tensor sum = beta.to_double() == 0 ? product : add(mul(in, wrapped_scalar(beta)), product);
    const Tensor layout[1] = {in};
    return in_elementwise_layout(sum, layout);
  });
  if (autograd::needs_grad({&input, &vec1, &vec2})) autograd::record_addr(r, input, vec1, vec2, beta, alpha);
  return r;
}

// One addmm of batch1 laid side by side (n, B k) with batch2 stacked (B k, p): the sum over the batch.
Tensor addbmm(const Tensor& input, const Tensor& batch1, const Tensor& batch2, const Scalar& beta, const Scalar& alpha) {
  // torch expands input to (batch1.size(1), batch2.size(2)) first
  input.expand({batch1.size(1), batch2.size(2)});
  Tensor r = autograd::untracked([&] {
    bmm(batch1.narrow(0, 0, std::min<int64_t>(batch1.size(0), 1)),  // bmm's shape and dtype checks and messages
        batch2.narrow(0, 0, std::min<int64_t>(batch2.size(0), 1)));
    EMBER_CHECK(batch1.size(0) == batch2.size(0), Error, "batch1 and batch2 must have same number of batches, got ",
                batch1.size(0), " and ", batch2.size(0));
    int64_t b = batch1.size(0), n = batch1.size(1), k = batch1.size(2), p = batch2.size(2);
    Tensor side = batch1.permute({1, 0, 2}).reshape({n, b * k}), stacked = batch2.reshape({b * k, p});
    return addmm(input, side, stacked, beta, alpha);
  });
  if (autograd::needs_grad({&input, &batch1, &batch2})) autograd::record_addbmm(r, input, batch1, batch2, beta, alpha);
  return r;
}

// torch checks an in-place product's shape before its dtypes.
void check_in_place_shape(const Tensor& self, std::initializer_list<int64_t> sizes) {
  EMBER_CHECK(std::ranges::equal(self.sizes(), sizes), Error, "Bad in-place call: input tensor size ",
              int_list(self.sizes()), " and output tensor size ", int_list(IntArrayRef(sizes.begin(), sizes.size())),
              " should match");
}

Tensor& addmm_(Tensor& self, const Tensor& m1, const Tensor& m2, const Scalar& beta, const Scalar& alpha) {
  if (m1.dim() == 2 && m2.dim() == 2) check_in_place_shape(self, {m1.size(0), m2.size(1)});
  return product_in_place(self, {&m1, &m2}, [&] { return addmm(self, m1, m2, beta, alpha); });
}
Tensor& addmv_(Tensor& self, const Tensor& m, const Tensor& v, const Scalar& beta, const Scalar& alpha) {
  if (m.dim() == 2) check_in_place_shape(self, {m.size(0)});
  return product_in_place(self, {&m, &v}, [&] { return addmv(self, m, v, beta, alpha); });
}
Tensor& baddbmm_(Tensor& self, const Tensor& b1, const Tensor& b2, const Scalar& beta, const Scalar& alpha) {
  if (b1.dim() == 3 && b2.dim() == 3) check_in_place_shape(self, {b1.size(0), b1.size(1), b2.size(2)});
  return product_in_place(self, {&b1, &b2}, [&] { return baddbmm(self, b1, b2, beta, alpha); });
}
Tensor& addr_(Tensor& self, const Tensor& vec1, const Tensor& vec2, const Scalar& beta, const Scalar& alpha) {
  EMBER_CHECK(self.dim() == 2, Error, "2D tensor expected, got ", self.dim(), "D tensor for input");
  return product_in_place(self, {&vec1, &vec2}, [&] { return addr(self, vec1, vec2, beta, alpha); });
}
Tensor& addbmm_(Tensor& self, const Tensor& b1, const Tensor& b2, const Scalar& beta, const Scalar& alpha) {
  return product_in_place(self, {&b1, &b2}, [&] { return addbmm(self, b1, b2, beta, alpha); }, true);
}

}  // namespace ember
