// EmbeddingBackward0: the output's gradient rows added into the weight's rows they came from (torch's dense
// embedding backward): padding_idx's row gets nothing; scale_grad_by_freq divides each by its index's count.
// EmbeddingBagBackward0 likewise per kept position of each bag (scaled, divided by the bag's count, or to the
// maxima's rows). With sparse=True the weight's gradient is a sparse COO tensor holding one row per kept position,
// in input order and uncoalesced (torch's embedding_sparse_backward).
#include "ember/creation.h"
#include "ember/operators.h"
#include "ember/ops.h"
#include "ember/reduce.h"
#include "ember/scatter.h"
#include "ember/sorting.h"
#include "ember/sparse.h"
#include "ember/type_promotion.h"
#include "formulas.h"

namespace ember::autograd {
namespace {

// A (rows, dim) sparse gradient holding row g[k] at row flat[k]; padding_idx's positions left out.
Tensor sparse_rows_gradient(Tensor flat, Tensor g, int64_t rows, int64_t padding_idx) {
  if (padding_idx >= 0) {
    Tensor kept = nonzero(ne(flat, wrapped_scalar(padding_idx))).reshape({-1});
    flat = index_select(flat, 0, kept), g = index_select(g, 0, kept);
  }
  return sparse_coo_tensor(flat.reshape({1, -1}), g, std::vector<int64_t>{rows, g.size(1)});
}

}  // namespace

void record_embedding(const Tensor& result, const Tensor& weight, const Tensor& indices, int64_t padding_idx,
                      bool scale_grad_by_freq, bool sparse) {
  record("EmbeddingBackward0", result, {&weight}, {&indices},
         [rows = weight.size(0), padding_idx, scale_grad_by_freq, sparse](const BackwardContext& c) {
    const Tensor& idx = c.saved[0];
    Tensor flat = idx.reshape({-1}).to(kInt64);
    Tensor g = c.grads[0].reshape({flat.numel(), c.grads[0].size(-1)});
    if (sparse) {
      EMBER_CHECK(!scale_grad_by_freq, Error,
                  "embedding_backward: scale_grad_by_freq not supported with sparse gradients");
      return TensorList{sparse_rows_gradient(flat, g, rows, padding_idx)};
    }
    if (scale_grad_by_freq) {
      Tensor counts = index_select(bincount(flat, {}, rows), 0, flat).to(g.dtype());
      g = div(g, counts.unsqueeze(1));
    }
    if (padding_idx >= 0) g = where(ne(flat, wrapped_scalar(padding_idx)).unsqueeze(1), g, zeros({}, g.options()));
    return TensorList{index_add(zeros({rows, g.size(1)}, g.options()), 0, flat, g)};
  });
}

void record_embedding_bag(const Tensor& result, const Tensor& weight, const Tensor& per_sample_weights,
                          const EmbeddingBag& bag, bool max_mode, bool sparse) {
  DimVector psw_sizes = per_sample_weights.defined() ? DimVector(per_sample_weights.sizes()) : DimVector();
  record("EmbeddingBagBackward0", result, {&weight, &per_sample_weights}, {&result},
         [bag, max_mode, sparse, rows = weight.size(0), psw_sizes](const BackwardContext& c) {
    const Tensor &g = c.grads[0], &out = c.saved[0];
    int64_t k = bag.indices.numel(), dim = g.size(1);
    Tensor gk = index_select(g, 0, bag.bags);  // each kept position's bag gradient
    TensorList grads(2);
    if (c.needs(0) && max_mode) {
      // Each (bag, column) maximum's gradient goes to the first kept position holding it.
      Tensor positions = arange(k, bag.bags.options()).unsqueeze(1).expand({k, dim});
      Tensor hit = eq(bag.rows, index_select(out, 0, bag.bags));
      Tensor first = scatter_reduce(full(out.sizes(), Scalar(k), bag.bags.options()), 0,
                                    bag.bags.unsqueeze(1).expand({k, dim}),
                                    where(hit, positions, full({}, Scalar(k), bag.bags.options())), "amin", true);
      Tensor valid = lt(first, wrapped_scalar(k));
      Tensor safe = where(valid, first, zeros({}, first.options()));
      Tensor target = index_select(bag.indices, 0, safe.reshape({-1})).view(out.sizes());
      Tensor contrib = where(valid, g, zeros({}, g.options()));
      grads[0] = scatter_add(zeros({rows, dim}, g.options()), 0, target, contrib);
    } else if (c.needs(0)) {
      Tensor contrib = bag.weights.defined() ? mul(gk, bag.weights.unsqueeze(1)) : gk;
      if (bag.counts.defined()) contrib = div(contrib, clamp(index_select(bag.counts, 0, bag.bags), Scalar(1)).unsqueeze(1));
      grads[0] = sparse ? sparse_rows_gradient(bag.indices, contrib, rows, -1)
                        : index_add(zeros({rows, dim}, g.options()), 0, bag.indices, contrib);
    }
    if (c.needs(1)) {
      Tensor per_position = sum(mul(gk, bag.rows), {1});
      int64_t n = 1;
      for (int64_t s : psw_sizes) n *= s;
      grads[1] = index_add(zeros({n}, g.options()), 0, bag.positions, per_position).view(psw_sizes);
    }
    return grads;
  });
}

}  // namespace ember::autograd
