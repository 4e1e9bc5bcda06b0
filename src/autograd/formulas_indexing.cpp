// Derivatives of the indexing ops: index, index_put, gather, index_select, masked_fill. Each scatters the
// gradient back through the same indices (index_put with accumulate), so repeated indices add up.
#include "ember/creation.h"
#include "ember/ops.h"
#include "ember/reduce.h"
#include "ember/type_promotion.h"
#include "formulas.h"

namespace ember::autograd {

namespace {

// Zeros of `in` (one element for a 0-dim input, viewed back) with `g` added at `indices`.
Tensor scatter_add_back(IntArrayRef in, const std::vector<Tensor>& indices, const Tensor& g) {
  Tensor z = zeros(in.empty() ? DimVector{1} : DimVector(in), g.options());
  return index_put(z, indices, g, true).view(in);
}

}  // namespace

void record_index(const Tensor& r, const Tensor& self, const std::vector<Tensor>& indices) {
  record("IndexBackward0", r, {&self}, {}, [in = DimVector(self.sizes()), indices](const BackwardContext& c) {
    return TensorList{index_put(zeros(in, c.grads[0].options()), indices, c.grads[0], true)};
  });
}

void record_index_put(const Tensor& r, const Tensor& self, const Tensor& values, const std::vector<Tensor>& indices,
                      bool accumulate) {
  record("IndexPutBackward0", r, {&self, &values}, {}, [indices, accumulate](const BackwardContext& c) {
    const Tensor& g = c.grads[0];
    Tensor to_self = accumulate ? g : index_put(g, indices, zeros({}, g.options()), false);
    return TensorList{to_self, c.needs(1) ? index(g, indices) : Tensor()};
  });
}

void record_gather(const Tensor& r, const Tensor& self, const std::vector<Tensor>& indices) {
  // self is saved unread, as torch's node saves it: an in-place change of self fails backward there too
  record("GatherBackward0", r, {&self}, {&self}, [in = DimVector(self.sizes()), indices](const BackwardContext& c) {
    if (indices.empty()) return TensorList{zeros(in, c.grads[0].options())};  // an empty index
    return TensorList{scatter_add_back(in, indices, c.grads[0])};
  });
}

void record_index_select(const Tensor& r, const Tensor& self, const std::vector<Tensor>& indices) {
  record("IndexSelectBackward0", r, {&self}, {}, [in = DimVector(self.sizes()), indices](const BackwardContext& c) {
    const Tensor& g = c.grads[0];
    return TensorList{scatter_add_back(in, indices, in.empty() ? g.reshape({-1}) : g)};
  });
}

void record_masked_fill(const Tensor& r, const Tensor& self, const Tensor& mask) {
  record("MaskedFillBackward0", r, {&self}, {&mask}, [in = DimVector(self.sizes())](const BackwardContext& c) {
    return TensorList{sum_to(where(c.saved[0], wrapped_scalar(0), c.grads[0]), in)};
  });
}

void record_masked_fill(const Tensor& r, const Tensor& self, const Tensor& mask, const Tensor& value) {
  // mask may broadcast self (or be broadcast): the engine sums self's gradient back to its shape
  record("MaskedFillBackward1", r, {&self, &value}, {&mask}, [dtype = value.dtype()](const BackwardContext& c) {
    const Tensor &g = c.grads[0], &m = c.saved[0];
    return TensorList{where(m, wrapped_scalar(0), g), sum(where(m, g, wrapped_scalar(0))).to(dtype)};
  });
}

}  // namespace ember::autograd
