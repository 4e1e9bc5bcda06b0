// select_scatter, slice_scatter and diagonal_scatter: input copied (its strides and offset kept), one view of it
// overwritten.
#include "ember/view_scatter.h"

#include <algorithm>
#include <functional>

#include "../autograd/function.h"
#include "ember/creation.h"
#include "ember/str.h"

namespace ember {

namespace {

using View = std::function<Tensor(const Tensor&)>;

// The copy of input with view(copy) = src, recorded as `node`: input's gradient is g with the view zeroed,
// src's the view of g.
Tensor embed(const char* node, const Tensor& input, const Tensor& src, const View& view) {
  Tensor slot = view(input);  // the view's own index checks first
  EMBER_CHECK(std::ranges::equal(slot.sizes(), src.sizes()), Error, "expected src to have a size equal to the slice "
              "of self. src size = ", int_list(src.sizes()), ", slice size = ", int_list(slot.sizes()));
  Tensor r = autograd::untracked([&] {
    // input's geometry on a copy of its whole storage (torch's clone_preserve_strides), unless a zero stride makes
    // its elements overlap: then a clone
    bool overlaps = false;
    for (int64_t d = 0; d < input.dim(); ++d) overlaps = overlaps || (input.stride(d) == 0 && input.size(d) > 1);
    int64_t storage_numel = int64_t(input.storage().nbytes() / input.element_size());
    Tensor out = overlaps ? input.clone()
                          : input.as_strided({storage_numel}, {1}, 0).clone().as_strided(
                                input.sizes(), input.strides(), input.storage_offset());
    view(out).copy_(src);
    return out;
  });
  if (autograd::needs_grad({&input, &src})) {
    autograd::record(node, r, {&input, &src}, {}, [view](const autograd::BackwardContext& c) {
      const Tensor& g = c.grads[0];
      Tensor rest;
      if (c.needs(0)) {
        rest = g.clone();
        view(rest).zero_();
      }
      return autograd::TensorList{rest, c.needs(1) ? view(g).clone() : Tensor()};
    });
  }
  return r;
}

}  // namespace

Tensor select_scatter(const Tensor& input, const Tensor& src, int64_t dim, int64_t index) {
  return embed("SelectScatterBackward0", input, src, [=](const Tensor& t) { return t.select(dim, index); });
}

Tensor slice_scatter(const Tensor& input, const Tensor& src, int64_t dim, std::optional<int64_t> start,
                     std::optional<int64_t> end, int64_t step) {
  EMBER_CHECK(step > 0, Error, "slice step must be positive");
  return embed("SliceScatterBackward0", input, src, [=](const Tensor& t) { return t.slice(dim, start, end, step); });
}

Tensor diagonal_scatter(const Tensor& input, const Tensor& src, int64_t offset, int64_t dim1, int64_t dim2) {
  return embed("DiagonalScatterBackward0", input, src, [=](const Tensor& t) { return t.diagonal(offset, dim1, dim2); });
}

}  // namespace ember
