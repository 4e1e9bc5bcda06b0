// Derivatives of the order statistics: a selected value's gradient goes back to the element it was taken from
// (scattered with index_put, accumulating where cummax/cummin repeat an index); a whole-tensor median's is
// split evenly among the elements equal to it (torch's evenly_distribute_backward).
#include "ember/creation.h"
#include "ember/ops.h"
#include "ember/reduce.h"
#include "ember/type_promotion.h"
#include "formulas.h"

namespace ember::autograd {

namespace {

// zeros of sizes `in` with g added at indices[..., i, ...] along dim (g and indices of one shape, in's rank).
Tensor scatter_along(IntArrayRef in, int64_t dim, const Tensor& indices, const Tensor& g) {
  if (in.empty()) return g.reshape({});
  std::vector<Tensor> where_to;
  for (int64_t d = 0; d < int64_t(in.size()); ++d) {
    if (d == dim) {
      where_to.push_back(indices);
      continue;
    }
    DimVector shape(in.size(), 1);
    shape[size_t(d)] = indices.sizes()[size_t(d)];
    where_to.push_back(arange(indices.sizes()[size_t(d)]).view(shape));
  }
  return index_put(zeros(in, g.options()), where_to, g, true);
}

}  // namespace

void record_selected(const char* name, const Tensor& values, const Tensor& indices, const Tensor& x, int64_t dim,
                     bool keepdim) {
  record(name, values, {&x}, {&indices}, [in = DimVector(x.sizes()), dim, keepdim](const BackwardContext& c) {
    Tensor idx = c.saved[0], g = c.grads[0];
    if (!keepdim && !in.empty()) {
      idx = idx.unsqueeze(dim);
      g = g.unsqueeze(dim);
    }
    return TensorList{scatter_along(in, in.empty() ? 0 : wrap_dim(dim, int64_t(in.size())), idx, g)};
  });
}

void record_evenly(const char* name, const Tensor& result, const Tensor& x) {
  record(name, result, {&x}, {&x, &result}, [](const BackwardContext& c) {
    const Tensor &input = c.saved[0], &value = c.saved[1];
    Tensor mask = isnan(value).item().to_bool() ? isnan(input) : eq(input, value);
    Tensor share = div(c.grads[0], sum(mask));
    return TensorList{where(mask, share, zeros_like(input))};
  });
}

}  // namespace ember::autograd
