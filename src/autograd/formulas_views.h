// Derivatives of the single-view ops (src/ops/shape.cpp records them through make_view): each maker returns the
// function from the view's gradient to its base's.
#pragma once
#include <functional>

#include "ember/creation.h"
#include "ember/tensor.h"
#include "function.h"

namespace ember::autograd::view_grad {

using ViewBackward = std::function<Tensor(const Tensor&)>;

inline auto identity() {  // alias
  return [](const Tensor& g) { return g; };
}
inline auto reshape_to(IntArrayRef in) {  // view, reshape, squeeze, flatten
  return [in = DimVector(in)](const Tensor& g) { return g.reshape(in); };
}
inline auto transpose(int64_t dim0, int64_t dim1) {
  return [dim0, dim1](const Tensor& g) { return g.transpose(dim0, dim1); };
}
inline auto t() {
  return [](const Tensor& g) { return g.t(); };
}
inline auto permute(DimVector inverse) {  // `inverse`: the permutation that undoes the view's
  return [inverse = std::move(inverse)](const Tensor& g) { return g.permute(inverse); };
}
inline auto unsqueeze(int64_t d) {
  return [d](const Tensor& g) { return g.squeeze(DimVector{d}); };
}
inline auto expand(IntArrayRef in) {  // broadcast dims summed back
  return [in = DimVector(in)](const Tensor& g) { return sum_to(g, in); };
}

// A view that picks some of base's elements (select, slice, diagonal): zeros with g where `pick` selects.
template <typename Pick>
auto scatter(const Tensor& base, Pick pick) {
  return [sizes = DimVector(base.sizes()), pick](const Tensor& g) {
    Tensor z = zeros(sizes, g.options());
    pick(z).copy_(g);
    return z;
  };
}

// unfold: windows may overlap, so each one's gradient is added into its span of the input.
ViewBackward unfold(IntArrayRef in, int64_t d, int64_t size, int64_t step);

// Whether no two indices of (sizes, strides) reach one element.
bool distinct_elements(IntArrayRef sizes, IntArrayRef strides);

// as_strided: g added into zeros over the storage the input (whose elements must be distinct) and the view reach,
// element by element where the view may reach one element several times; the gradient is the input's geometry of it.
ViewBackward as_strided(const Tensor& input, IntArrayRef sizes, IntArrayRef strides, int64_t offset);

}  // namespace ember::autograd::view_grad
