// Derivatives of the joins (cat, stack), where, and the shape ops that are not single views (split and unbind,
// with several outputs; the copying reshape).
#include "ember/creation.h"
#include "ember/ops.h"
#include "formulas.h"

namespace ember::autograd {

void record_where(const Tensor& r, const Tensor& cond, const Tensor& a, const Tensor& b) {
  record("WhereBackward0", r, {&a, &b}, {&cond}, [](const BackwardContext& c) {
    const Tensor &g = c.grads[0], &cond = c.saved[0];
    Tensor zero = zeros_like(g);
    return TensorList{c.needs(0) ? where(cond, g, zero) : Tensor(), c.needs(1) ? where(cond, zero, g) : Tensor()};
  });
}

namespace {

// One node over any number of inputs (cat, stack): edges to each, formula from the output gradient.
void record_join(const char* name, const Tensor& result, std::span<const Tensor> inputs, BackwardFormula formula) {
  auto node = std::make_shared<FunctionNode>(name, std::move(formula));
  for (const Tensor& t : inputs) add_edge(*node, t);
  add_output(node, result);
  as_new_tensor(result);
}

}  // namespace

void record_cat(const Tensor& result, std::span<const Tensor> inputs, int64_t dim) {
  DimVector lengths;  // -1: a skipped legacy empty input
  for (const Tensor& t : inputs) lengths.push_back(t.dim() == 1 && t.numel() == 0 && result.dim() != 1 ? -1 : t.sizes()[size_t(dim)]);
  record_join("CatBackward0", result, inputs, [lengths, dim](const BackwardContext& c) {
    TensorList grads;
    int64_t offset = 0;
    for (int64_t n : lengths) {
      grads.push_back(n < 0 ? Tensor() : c.grads[0].narrow(dim, offset, n));
      offset += std::max<int64_t>(n, 0);
    }
    return grads;
  });
}

void record_stack(const Tensor& result, std::span<const Tensor> inputs, int64_t dim) {
  record_join("StackBackward0", result, inputs, [dim](const BackwardContext& c) {
    TensorList grads = c.grads[0].unbind(dim);
    return grads;
  });
}

void record_unsafe_view(const Tensor& r, const Tensor& copy, IntArrayRef in_sizes) {
  record("UnsafeViewBackward0", r, {&copy}, {}, [in = DimVector(in_sizes)](const BackwardContext& c) {
    return TensorList{c.grads[0].reshape(in)};
  });
}

void record_split(const char* name, const std::vector<Tensor>& pieces, const Tensor& t, IntArrayRef lengths, int64_t dim) {
  record_multi(name, pieces, {&t}, {}, [in = DimVector(t.sizes()), lengths = DimVector(lengths), dim](const BackwardContext& c) {
    Tensor z = zeros(in, c.grads[0].options());
    int64_t start = 0;
    for (size_t i = 0; i < lengths.size(); ++i) {
      z.narrow(dim, start, lengths[i]).copy_(c.grads[i]);
      start += lengths[i];
    }
    return TensorList{z};
  });
}

void record_unbind(const std::vector<Tensor>& slices, const Tensor& t, int64_t dim) {
  record_multi("UnbindBackward0", slices, {&t}, {}, [in = DimVector(t.sizes()), dim](const BackwardContext& c) {
    Tensor z = zeros(in, c.grads[0].options());
    for (size_t i = 0; i < c.grads.size(); ++i) z.select(dim, int64_t(i)).copy_(c.grads[i]);
    return TensorList{z};
  });
}

}  // namespace ember::autograd
