// Derivatives of the view ops whose gradient needs more than a reshape of g: unfold and as_strided.
#include "formulas_views.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "ember/host.h"
#include "ember/ops.h"

namespace ember::autograd::view_grad {

// Whether no two indices of (sizes, strides) reach one element: with dims sorted by stride, each stride must pass
// the span of all smaller ones.
bool distinct_elements(IntArrayRef sizes, IntArrayRef strides) {
  std::vector<std::pair<int64_t, int64_t>> dims;  // (stride, size) of dims with more than one index
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i] == 0) return true;  // no elements, none shared
    if (sizes[i] > 1) dims.push_back({strides[i], sizes[i]});
  }
  std::sort(dims.begin(), dims.end());
  int64_t span = 0;
  for (auto [stride, size] : dims) {
    if (stride <= span) return false;
    span += stride * (size - 1);
  }
  return true;
}

namespace {

// Elements of storage a (sizes, strides) geometry spans from its first one (0 when empty).
int64_t extent(IntArrayRef sizes, IntArrayRef strides) {
  int64_t span = 1;
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i] == 0) return 0;
    span += (sizes[i] - 1) * strides[i];
  }
  return span;
}

}  // namespace

ViewBackward unfold(IntArrayRef in_sizes, int64_t d, int64_t size, int64_t step) {
  return [in = DimVector(in_sizes), d, size, step](const Tensor& g) {
    if (in.empty()) return g.reshape(in);
    Tensor z = zeros(in, g.options());
    for (int64_t w = 0; w < g.sizes()[size_t(d)]; ++w) {
      Tensor span = z.narrow(d, w * step, size);
      add_out(span, span, g.select(d, w).movedim({-1}, {d}));
    }
    return z;
  };
}

ViewBackward as_strided(const Tensor& input, IntArrayRef sizes, IntArrayRef strides, int64_t offset) {
  bool supported = distinct_elements(input.sizes(), input.strides());
  return [in = DimVector(input.sizes()), in_strides = DimVector(input.strides()), out_sizes = DimVector(sizes),
          out_strides = DimVector(strides), rel = offset - input.storage_offset(), supported](const Tensor& g) {
    EMBER_CHECK(supported, NotImplementedError, "the derivative of as_strided over an input whose elements overlap "
                "is not implemented in Ember yet");
    // a flat buffer over the storage both geometries reach: the input starts at -lo, the view at rel - lo
    int64_t lo = std::min<int64_t>(0, rel);
    int64_t hi = std::max(extent(in, in_strides), rel + extent(out_sizes, out_strides));
    auto as_input = [&](const Tensor& buffer) { return buffer.as_strided(in, in_strides, buffer.storage_offset() - lo); };
    Tensor z = zeros({hi - lo}, g.options());
    if (distinct_elements(out_sizes, out_strides)) {
      z.as_strided(out_sizes, out_strides, z.storage_offset() + rel - lo).copy_(g);
      return as_input(z);
    }
    EMBER_CHECK(!is_grad_enabled() || !g.requires_grad(), NotImplementedError, "double backward through an "
                "overlapping as_strided view is not implemented in Ember yet");
    Tensor sum = zeros({hi - lo}, g.options().with_dtype(kFloat64).with_device(kCPU));  // summed on the host
    Tensor flat_g = host_copy(g).to(kFloat64).contiguous();
    double* dst = sum.data_ptr<double>() + (rel - lo);
    const double* src = flat_g.data_ptr<double>();
    DimVector index(out_sizes.size(), 0);
    for (int64_t i = 0; i < flat_g.numel(); ++i) {  // walk the view in row-major order
      int64_t at = 0;
      for (size_t k = 0; k < index.size(); ++k) at += index[k] * out_strides[k];
      dst[at] += src[i];
      for (size_t k = index.size(); k-- > 0;) {
        if (++index[k] < out_sizes[k]) break;
        index[k] = 0;
      }
    }
    return as_input(sum.to(g.dtype()).to(g.device()));
  };
}

}  // namespace ember::autograd::view_grad
