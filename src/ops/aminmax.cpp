// torch.aminmax: the min and max over one dim or every element, with torch's checks, as one node.
#include "../autograd/formulas_pointwise.h"
#include "ember/reduce.h"
#include "reduction_support.h"

namespace ember {

std::pair<Tensor, Tensor> aminmax(const Tensor& x, std::optional<int64_t> dim, bool keepdim) {
  DimVector dims;
  if (dim) {
    int64_t d = wrap_dim(*dim, x.dim());
    EMBER_CHECK(x.dim() == 0 || x.size(d) != 0, IndexError, "aminmax: Expected reduction dim ", d,
                " to have non-zero size.");
    if (x.dim() > 0) dims.push_back(d);
  } else {
    EMBER_CHECK(x.numel() != 0, Error, "aminmax(): cannot compute aminmax over an empty dimension as the operation "
                "has no identity.");
  }
  check_not_float8(x, "aminmax_cpu");
  auto [lo, hi] = autograd::untracked([&] { return std::pair{amin(x, dims, keepdim), amax(x, dims, keepdim)}; });
  if (autograd::needs_grad({&x})) autograd::record_aminmax(lo, hi, x, dims.empty() ? std::nullopt : dim, keepdim);
  return {lo, hi};
}

}  // namespace ember
