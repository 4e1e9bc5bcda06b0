// Derivatives of the pads and gathers: constant_pad_nd's gradient is the opposite constant pad (a crop); a separable
// gather's is the gradient added back along each gathered dim, the last gather first.
#include "ember/creation.h"
#include "ember/nn/padding.h"
#include "ember/ops.h"
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

void record_gathers(const char* name, const Tensor& result, const Tensor& self, const std::vector<GatherAxis>& axes) {
  record(name, result, {&self}, {}, [axes, in = DimVector(self.sizes())](const BackwardContext& c) {
    // The sizes before each gather: the input's, with the earlier gathers' dims already at their output sizes.
    std::vector<DimVector> before{in};
    for (const GatherAxis& a : axes) {
      before.push_back(before.back());
      before.back()[size_t(a.dim)] = a.index0.numel();
    }
    Tensor g = c.grads[0];
    for (size_t i = axes.size(); i-- > 0;) {
      const GatherAxis& a = axes[i];
      Tensor back = zeros(before[i], g.options());
      if (!a.weight0.defined()) {
        g = index_add(back, a.dim, a.index0, g);
      } else {
        g = index_add(index_add(back, a.dim, a.index0, mul(g, a.weight0)), a.dim, a.index1, mul(g, a.weight1));
      }
    }
    return TensorList{g};
  });
}

}  // namespace ember::autograd
