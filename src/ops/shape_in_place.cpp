// In-place shape ops (self takes its view's geometry) and sum_to_size (ember/shape_in_place.h).
#include "ember/sparse.h"
#include "ember/shape_in_place.h"

#include <algorithm>
#include <functional>

#include "../autograd/function.h"
#include "ember/autograd.h"
#include "ember/reduce.h"
#include "ember/str.h"

namespace ember {

namespace {

// self becomes view(self): its sizes, strides and offset; in the graph, self takes the view's node under torch's
// name for the in-place op (`node`, e.g. SqueezeBackward4), after the leaf check.
Tensor& restride(Tensor& self, const char* node, const std::function<Tensor(const Tensor&)>& view) {
  if (self.has_sparse_layout()) [[unlikely]] throw_sparse_unsupported(self, node);
  bool graph = autograd::needs_grad({&self});
  if (graph) autograd::check_in_place(self);
  Tensor v = view(self);
  TensorImpl& impl = *self.impl();
  impl.sizes = DimVector(v.sizes());
  impl.strides = DimVector(v.strides());
  impl.storage_offset = v.storage_offset();
  impl.quantizer = v.impl()->quantizer;  // a per-channel axis moves with its dim
  impl.refresh_metadata();
  if (graph) {
    auto& meta = *v.impl()->autograd;
    if (auto* fn = dynamic_cast<autograd::FunctionNode*>(meta.grad_fn.get())) fn->rename(node);
    autograd::set_history(self, meta.grad_fn, meta.output_nr);
  }
  return self;
}

}  // namespace

Tensor& squeeze_(Tensor& self, std::optional<IntArrayRef> dims) {
  return restride(self, dims ? "SqueezeBackward5" : "SqueezeBackward3",
                  [&](const Tensor& t) { return dims ? t.squeeze(*dims) : t.squeeze(); });
}
Tensor& squeeze_(Tensor& self, int64_t dim) {
  return restride(self, "SqueezeBackward4", [&](const Tensor& t) { return t.squeeze(dim); });
}
Tensor& unsqueeze_(Tensor& self, int64_t dim) {
  return restride(self, "UnsqueezeBackward1", [&](const Tensor& t) { return t.unsqueeze(dim); });
}
Tensor& transpose_(Tensor& self, int64_t dim0, int64_t dim1) {
  return restride(self, "TransposeBackward1", [&](const Tensor& t) { return t.transpose(dim0, dim1); });
}
Tensor& t_(Tensor& self) {
  EMBER_CHECK(self.dim() <= 2, Error, "t_() expects a tensor with <= 2 dimensions, but self is ", self.dim(), "D");
  return restride(self, "TBackward1", [](const Tensor& t) { return t.t(); });
}

Tensor sum_to_size(const Tensor& self, IntArrayRef sizes) {
  int64_t lead = self.dim() - int64_t(sizes.size());
  bool expandable = lead >= 0;
  DimVector leading, ones;  // the dims summed away, the dims summed to size 1
  for (int64_t d = 0; expandable && d < self.dim(); ++d) {
    if (d < lead) {
      leading.push_back(d);
      continue;
    }
    int64_t want = sizes[size_t(d - lead)];
    expandable = want == self.size(d) || want == 1;
    if (want == 1 && self.size(d) != 1) ones.push_back(d);
  }
  EMBER_CHECK(expandable, Error, "size {", int_list(sizes), "} is not expandable to size {", int_list(self.sizes()), "}.");
  if (std::ranges::equal(sizes, self.sizes())) return self;
  Tensor r = ones.empty() ? self : sum(self, ones, true);
  return leading.empty() ? r : sum(r, leading, false);
}

}  // namespace ember
