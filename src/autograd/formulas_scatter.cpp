// Derivatives of the scatter family (torch's derivatives.yaml and FunctionsManual): scatter, scatter_add,
// scatter_reduce, index_add/copy/fill/reduce, take, put, masked_select, masked_scatter.
#include "ember/creation.h"
#include "ember/layout.h"
#include "ember/ops.h"
#include "ember/reduce.h"
#include "ember/scatter.h"
#include "ember/type_promotion.h"
#include "formulas.h"

namespace ember::autograd {

namespace {

// How a reduction addresses its source: scatter_reduce's index (gather / scatter_add / scatter) or index_reduce's
// slices (index_select / index_add / index_fill); `again` reruns the forward on other values.
struct Addressing {
  std::function<Tensor(const Tensor&)> pick;
  std::function<Tensor(const Tensor&, const Tensor&)> add;
  std::function<Tensor(const Tensor&)> clear;
  std::function<Tensor(const Tensor&, const Tensor&)> again;
};

// torch's scatter_reduce_backward / index_reduce_backward: the gradients of self and source.
TensorList reduce_backward(const Addressing& a, std::string_view reduce, bool include_self, const Tensor& g,
                           const Tensor& self, const Tensor& src, const Tensor& result) {
  Tensor grad_self, grad_src;
  ScalarType t = self.dtype();
  if (reduce == "sum") {
    grad_self = g;
    grad_src = a.pick(g);
  } else if (reduce == "prod") {
    // the exclusive product where self or a single source element is 0 (dividing would lose it)
    Tensor masked_self = masked_fill(self, eq(self, wrapped_scalar(0)), 1);
    grad_self = div(mul(g, a.again(masked_self, src)), masked_self);
    Tensor src_zero = eq(src, wrapped_scalar(0));
    Tensor src_zeros = a.pick(a.add(zeros_like(self), src_zero.to(t)));
    Tensor single_zero = logical_and(src_zero, eq(src_zeros, wrapped_scalar(1)));
    Tensor masked_src_result = a.again(self, masked_fill(src, single_zero, 1));
    grad_src = where(single_zero, a.pick(mul(g, masked_src_result)),
                     div(a.pick(mul(g, result)), masked_fill(src, src_zero, 1)));
  } else if (reduce == "mean") {
    Tensor n = a.add(include_self ? ones_like(g) : zeros_like(g), ones_like(src));
    n = masked_fill(n, eq(n, wrapped_scalar(0)), 1);
    grad_self = div(g, n);
    grad_src = div(a.pick(g), a.pick(n));
  } else if (reduce == "amax" || reduce == "amin") {
    // the gradient is split evenly among the elements equal to the result
    Tensor self_is = eq(self, result).to(t), src_is = eq(src, a.pick(result)).to(t);
    Tensor distributed = div(g, a.add(self_is, src_is));
    grad_self = mul(self_is, distributed);
    grad_src = mul(src_is, a.pick(distributed));
  } else {
    throw Error(str("Expected 'reduce' to be one of 'sum', 'prod', 'mean', 'amax', 'amin' but got ", reduce, "."));
  }
  if (!include_self) grad_self = a.clear(grad_self);
  return {grad_self, grad_src};
}

Tensor times(const Tensor& t, const Scalar& alpha) { return alpha.to_double() == 1 ? t : mul(t, wrapped_scalar(alpha)); }

}  // namespace

void record_scatter(const Tensor& r, const Tensor& self, int64_t dim, const Tensor& index, const Tensor* src) {
  if (!src) {
    record("ScatterBackward1", r, {&self}, {&index}, [dim](const BackwardContext& c) {
      return TensorList{scatter(c.grads[0], dim, c.saved[0], 0)};
    });
    return;
  }
  record("ScatterBackward0", r, {&self, src}, {&index}, [dim](const BackwardContext& c) {
    const Tensor &g = c.grads[0], &index = c.saved[0];
    return TensorList{c.needs(0) ? scatter(g, dim, index, 0) : Tensor(), c.needs(1) ? gather(g, dim, index) : Tensor()};
  });
}

void record_scatter_add(const Tensor& r, const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) {
  record("ScatterAddBackward0", r, {&self, &src}, {&index}, [dim](const BackwardContext& c) {
    return TensorList{c.grads[0], c.needs(1) ? gather(c.grads[0], dim, c.saved[0]) : Tensor()};
  });
}

void record_scatter_reduce(const Tensor& r, const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                           std::string_view reduce, bool include_self) {
  record("ScatterReduceBackward0", r, {&self, &src}, {&self, &src, &index, &r},
         [dim, reduce = std::string(reduce), include_self](const BackwardContext& c) {
           const Tensor& index = c.saved[2];
           Addressing a{[&](const Tensor& t) { return gather(t, dim, index); },
                        [&](const Tensor& t, const Tensor& s) { return scatter_add(t, dim, index, s); },
                        [&](const Tensor& t) { return scatter(t, dim, index, 0); },
                        [&](const Tensor& t, const Tensor& s) { return scatter_reduce(t, dim, index, s, reduce, include_self); }};
           return reduce_backward(a, reduce, include_self, c.grads[0], c.saved[0], c.saved[1], c.saved[3]);
         });
}

void record_index_add(const Tensor& r, const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source,
                      const Scalar& alpha) {
  record("IndexAddBackward0", r, {&self, &source}, {&index}, [dim, alpha](const BackwardContext& c) {
    const Tensor& g = c.grads[0];
    return TensorList{g, c.needs(1) ? times(index_select(g, dim, c.saved[0]), alpha) : Tensor()};
  });
}

void record_index_copy(const Tensor& r, const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source) {
  record("IndexCopyBackward0", r, {&self, &source}, {&index}, [dim](const BackwardContext& c) {
    const Tensor &g = c.grads[0], &index = c.saved[0];
    return TensorList{c.needs(0) ? index_fill(g, dim, index, 0) : Tensor(),
                      c.needs(1) ? index_select(g, dim, index) : Tensor()};
  });
}

void record_index_fill(const Tensor& r, const Tensor& self, int64_t dim, const Tensor& positions, const Tensor* value) {
  if (!value) {
    record("IndexFillBackward0", r, {&self}, {&positions}, [dim](const BackwardContext& c) {
      return TensorList{index_fill(c.grads[0], dim, c.saved[0], 0)};
    });
    return;
  }
  record("IndexFillBackward1", r, {&self, value}, {&positions}, [dim](const BackwardContext& c) {
    const Tensor &g = c.grads[0], &positions = c.saved[0];
    Tensor filled = index_fill(zeros_like(g, kBool), dim, positions, true);  // each filled element once
    return TensorList{c.needs(0) ? index_fill(g, dim, positions, 0) : Tensor(),
                      c.needs(1) ? sum(where(filled, g, wrapped_scalar(0))) : Tensor()};
  });
}

void record_index_reduce(const Tensor& r, const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source,
                         std::string_view reduce, bool include_self) {
  record("IndexReduceBackward0", r, {&self, &source}, {&self, &source, &index, &r},
         [dim, reduce = std::string(reduce), include_self](const BackwardContext& c) {
           const Tensor& index = c.saved[2];
           Addressing a{[&](const Tensor& t) { return index_select(t, dim, index); },
                        [&](const Tensor& t, const Tensor& s) { return index_add(t, dim, index, s); },
                        [&](const Tensor& t) { return index_fill(t, dim, index, 0); },
                        [&](const Tensor& t, const Tensor& s) { return index_reduce(t, dim, index, s, reduce, include_self); }};
           return reduce_backward(a, reduce, include_self, c.grads[0], c.saved[0], c.saved[1], c.saved[3]);
         });
}

void record_take(const Tensor& r, const Tensor& self, const Tensor& index) {
  record("TakeBackward0", r, {&self}, {&index}, [in = DimVector(self.sizes())](const BackwardContext& c) {
    return TensorList{put(zeros(in, c.grads[0].options()), c.saved[0], c.grads[0], true)};
  });
}

void record_put(const Tensor& r, const Tensor& self, const Tensor& index, const Tensor& source, bool accumulate) {
  record("PutBackward0", r, {&self, &source}, {&index}, [accumulate, in = DimVector(source.sizes())](const BackwardContext& c) {
    const Tensor &g = c.grads[0], &index = c.saved[0];
    Tensor to_self = accumulate ? g : put(g, index, zeros(in, g.options()), false);
    return TensorList{to_self, c.needs(1) ? take(g, index).reshape(in) : Tensor()};
  });
}

void record_masked_select(const Tensor& r, const Tensor& self, const Tensor& mask) {
  record("MaskedSelectBackward0", r, {&self}, {&mask}, [in = DimVector(self.sizes())](const BackwardContext& c) {
    const Tensor& mask = c.saved[0];
    return TensorList{masked_scatter(zeros(broadcast_shapes(in, mask.sizes()), c.grads[0].options()), mask, c.grads[0])};
  });
}

void record_masked_scatter(const Tensor& r, const Tensor& self, const Tensor& mask, const Tensor& source) {
  record("MaskedScatterBackward0", r, {&self, &source}, {&mask}, [in = DimVector(source.sizes())](const BackwardContext& c) {
    const Tensor &g = c.grads[0], &mask = c.saved[0];
    Tensor to_source;
    if (c.needs(1)) {  // the selected gradient, padded with zeros to source's size
      Tensor picked = masked_select(g, mask);
      int64_t n = checked_numel(in);
      if (picked.numel() < n) {
        Tensor parts[2] = {picked, zeros({n - picked.numel()}, g.options())};
        picked = cat(parts);
      }
      to_source = picked.view(in);
    }
    return TensorList{masked_fill(g, mask, 0), to_source};
  });
}

}  // namespace ember::autograd
