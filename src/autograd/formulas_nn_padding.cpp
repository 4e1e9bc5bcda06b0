// Derivatives of the pads: constant_pad_nd's gradient is the opposite constant pad (a crop); a gathered pad's is
// the gradient added back along each gathered dim, last gather first.
#include "ember/creation.h"
#include "ember/nn/padding.h"
#include "ember/scatter.h"
#include "formulas.h"

namespace ember::autograd {

void record_constant_pad(const Tensor& result, const Tensor& self, IntArrayRef pad) {
  DimVector negated;
  for (int64_t p : pad) negated.push_back(-p);
  record("ConstantPadNdBackward0", result, {&self}, {}, [negated](const BackwardContext& c) {
    return TensorList{constant_pad_nd(c.grads[0], negated, 0)};
  });
}

void record_index_pad(const char* name, const Tensor& result, const Tensor& self,
                      const std::vector<std::pair<int64_t, Tensor>>& gathers) {
  record(name, result, {&self}, {}, [gathers, in = DimVector(self.sizes())](const BackwardContext& c) {
    // The sizes before each gather: the input's, with the earlier gathers' dims already at their output sizes.
    std::vector<DimVector> before{in};
    for (auto& [d, idx] : gathers) {
      before.push_back(before.back());
      before.back()[size_t(d)] = idx.numel();
    }
    Tensor g = c.grads[0];
    for (size_t i = gathers.size(); i-- > 0;) {
      auto& [d, idx] = gathers[i];
      g = index_add(zeros(before[i], g.options()), d, idx, g);
    }
    return TensorList{g};
  });
}

}  // namespace ember::autograd
