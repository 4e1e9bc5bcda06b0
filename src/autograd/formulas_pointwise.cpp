// Derivatives of the ops of ember/pointwise.h and aminmax (broadcast gradients are summed back by the engine).
#include "formulas_pointwise.h"

#include <cmath>

#include "ember/creation.h"
#include "ember/ops.h"
#include "ember/reduce.h"
#include "ember/type_promotion.h"
#include "formulas.h"

namespace ember::autograd {

void record_addc(bool divide, const Tensor& r, const Tensor& self, const Tensor& t1, const Tensor& t2,
                 const Scalar& value) {
  Tensor v = wrapped_scalar(value);
  auto formula = [divide, v](const BackwardContext& c) {
    const Tensor &g = c.grads[0], &t1 = c.saved[0], &t2 = c.saved[1];
    Tensor scaled = mul(g, v);
    if (!divide) {
      return TensorList{g, c.needs(1) ? mul(scaled, t2) : Tensor(), c.needs(2) ? mul(scaled, t1) : Tensor()};
    }
    return TensorList{g, c.needs(1) ? div(scaled, t2) : Tensor(),
                      c.needs(2) ? neg(div(mul(scaled, t1), mul(t2, t2))) : Tensor()};
  };
  record(divide ? "AddcdivBackward0" : "AddcmulBackward0", r, {&self, &t1, &t2}, {&t1, &t2}, formula);
}

void record_clamp_one(bool is_min, const Tensor& r, const Tensor& x, const Tensor& bound) {
  // x's gradient passes where x is inside its bound (not at a NaN x); the bound's where x is beyond it
  auto inside = [is_min](const Tensor& x, const Tensor& b) { return is_min ? ge(x, b) : le(x, b); };
  if (bound.impl()->is_wrapped_number) {
    return record(is_min ? "ClampMinBackward0" : "ClampMaxBackward0", r, {&x}, {&x, &bound},
                  [inside](const BackwardContext& c) {
      const Tensor& g = c.grads[0];
      return TensorList{where(inside(c.saved[0], c.saved[1]), g, zeros_like(g))};
    });
  }
  record(is_min ? "ClampMinBackward1" : "ClampMaxBackward1", r, {&x, &bound}, {&x, &bound},
         [inside, is_min](const BackwardContext& c) {
    const Tensor &g = c.grads[0], &x = c.saved[0], &b = c.saved[1];
    Tensor zero = zeros_like(g);
    Tensor beyond = is_min ? lt(x, b) : gt(x, b);
    return TensorList{where(inside(x, b), g, zero), c.needs(1) ? where(beyond, g, zero) : Tensor()};
  });
}

// d/dx = 2^other, d/dother = x 2^other ln 2.
void record_ldexp(const Tensor& r, const Tensor& x, const Tensor& other) {
  record("LdexpBackward0", r, {&x, &other}, {&x, &other}, [](const BackwardContext& c) {
    const Tensor &g = c.grads[0], &x = c.saved[0], &other = c.saved[1];
    Tensor scale = pow(wrapped_scalar(2.0), other);
    return TensorList{c.needs(0) ? mul(g, scale) : Tensor(), c.needs(1) ? mul(mul(g, x), scale) * M_LN2 : Tensor()};
  });
}

void record_frexp(const Tensor& mantissa, const Tensor& exponent, const Tensor& x) {
  record("FrexpBackward0", mantissa, {&x}, {&exponent}, [](const BackwardContext& c) {
    return TensorList{div(c.grads[0], pow(wrapped_scalar(2.0), c.saved[0]))};
  });
}

void record_aminmax(const Tensor& min, const Tensor& max, const Tensor& x, std::optional<int64_t> dim, bool keepdim) {
  record_multi("AminmaxBackward0", {min, max}, {&x}, {&x, &min, &max}, [dim, keepdim](const BackwardContext& c) {
    const Tensor& x = c.saved[0];
    if (x.dim() == 0) return TensorList{add(c.grads[0], c.grads[1])};  // both extremes are x itself
    DimVector dims;
    if (dim) dims.push_back(*dim);
    // each defined gradient split evenly among the elements equal to its extreme (amin/amax's rule)
    auto share = [&](const Tensor& g, const Tensor& extreme) {
      Tensor mask = eq(x, keep_dims(extreme, x.sizes(), dims, keepdim)).to(g.dtype());
      Tensor count = sum(mask, dim ? IntArrayRef(dims) : IntArrayRef(), true);
      return mul(mask, div(keep_dims(g, x.sizes(), dims, keepdim), count));
    };
    Tensor grad;
    for (size_t i = 0; i < 2; ++i) {
      if (!c.grads[i].defined()) continue;
      Tensor part = share(c.grads[i], c.saved[i + 1]);
      grad = grad.defined() ? add(grad, part) : part;
    }
    return TensorList{grad.defined() ? grad : zeros_like(x)};
  });
}

}  // namespace ember::autograd
