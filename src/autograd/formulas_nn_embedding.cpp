// EmbeddingBackward0: the output's gradient rows added into the weight's rows they came from (torch's dense
// embedding backward): padding_idx's row gets nothing; scale_grad_by_freq divides each by its index's count.
#include "ember/creation.h"
#include "ember/ops.h"
#include "ember/scatter.h"
#include "ember/sorting.h"
#include "ember/type_promotion.h"
#include "formulas.h"

namespace ember::autograd {

void record_embedding(const Tensor& result, const Tensor& weight, const Tensor& indices, int64_t padding_idx,
                      bool scale_grad_by_freq) {
  record("EmbeddingBackward0", result, {&weight}, {&indices},
         [rows = weight.size(0), padding_idx, scale_grad_by_freq](const BackwardContext& c) {
    const Tensor& idx = c.saved[0];
    Tensor flat = idx.reshape({-1}).to(kInt64);
    Tensor g = c.grads[0].reshape({flat.numel(), c.grads[0].size(-1)});
    if (scale_grad_by_freq) {
      Tensor counts = index_select(bincount(flat, {}, rows), 0, flat).to(g.dtype());
      g = div(g, counts.unsqueeze(1));
    }
    if (padding_idx >= 0) g = where(ne(flat, wrapped_scalar(padding_idx)).unsqueeze(1), g, zeros({}, g.options()));
    return TensorList{index_add(zeros({rows, g.size(1)}, g.options()), 0, flat, g)};
  });
}

}  // namespace ember::autograd
