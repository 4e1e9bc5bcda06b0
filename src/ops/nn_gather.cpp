// Separable gathers along dims: index_select per axis, and the weighted sum of two for linear interpolation.
#include "nn_gather.h"

#include "ember/ops.h"

namespace ember::nn::functional {

Tensor gather_axes(const Tensor& x, const std::vector<autograd::GatherAxis>& axes) {
  Tensor out = x;
  for (const autograd::GatherAxis& a : axes) {
    Tensor first = index_select(out, a.dim, a.index0);
    out = a.weight0.defined() ? add(mul(first, a.weight0), mul(index_select(out, a.dim, a.index1), a.weight1)) : first;
  }
  return out.contiguous();
}

}  // namespace ember::nn::functional
