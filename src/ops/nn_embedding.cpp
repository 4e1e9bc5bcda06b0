// Embedding lookups (an index_select of rows, EmbeddingBackward0), bags of them (embedding_bag), the in-place renorm
// of max_norm, and one_hot.
#include "ember/nn/embedding.h"

#include <algorithm>
#include <vector>

#include "ember/creation.h"
#include "ember/ops.h"
#include "ember/reduce.h"
#include "ember/operators.h"
#include "ember/scatter.h"
#include "ember/sorting.h"
#include "ember/type_promotion.h"
#include "../autograd/formulas.h"

namespace ember {

namespace {

void check_indices(const Tensor& indices, int arg, const char* fn) {
  EMBER_CHECK(indices.dtype() == kInt64 || indices.dtype() == kInt32, Error, "Expected tensor for argument #", arg,
              " 'indices' to have one of the following scalar types: Long, Int; but got torch.",
              legacy_name(indices.dtype()), "Tensor instead (while checking arguments for ", fn, ")");
}

}  // namespace

Tensor embedding(const Tensor& weight, const Tensor& indices, int64_t padding_idx, bool scale_grad_by_freq,
                 bool sparse) {
  EMBER_CHECK(weight.dim() == 2, Error, "'weight' must be 2-D");
  check_indices(indices, 1, "embedding");
  Tensor result = autograd::untracked([&] {
    DimVector shape(indices.sizes());
    shape.push_back(weight.size(1));
    return index_select(weight, 0, indices.reshape({-1})).view(shape);
  });
  if (autograd::needs_grad({&weight}))
    autograd::record_embedding(result, weight, indices, padding_idx, scale_grad_by_freq, sparse);
  return result;
}

Tensor& embedding_renorm_(Tensor& self, const Tensor& indices, double max_norm, double norm_type) {
  EMBER_CHECK(self.dim() == 2, Error, "Expected 2-dimensional tensor, but got ", self.dim(),
              "-dimensional tensor for argument #1 'self' (while checking arguments for embedding_renorm_)");
  check_indices(indices, 2, "embedding_renorm_");
  // torch's loop: each distinct index once, in sorted order; a row above max_norm is scaled by max_norm / (norm + 1e-7).
  Tensor idx = indices.to(kInt64).contiguous().to(kCPU);
  std::vector<int64_t> sorted(idx.data_ptr<int64_t>(), idx.data_ptr<int64_t>() + idx.numel());
  std::sort(sorted.begin(), sorted.end());
  sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
  autograd::NoGradGuard no_grad;
  for (int64_t i : sorted) {
    Tensor row = self.select(0, i);
    double n = norm(row, norm_type).item<double>();
    if (n > max_norm) row.mul_(wrapped_scalar(max_norm / (n + 1e-7)));
  }
  return self;
}

}  // namespace ember

namespace ember::nn::functional {

Tensor embedding(const Tensor& input, const Tensor& weight, std::optional<int64_t> padding_idx,
                 std::optional<double> max_norm, double norm_type, bool scale_grad_by_freq, bool sparse) {
  int64_t pad = -1;
  if (padding_idx) {
    int64_t rows = weight.dim() > 0 ? weight.size(0) : 0;
    EMBER_CHECK(*padding_idx < rows && *padding_idx >= -rows, Error, "Padding_idx must be within num_embeddings");
    pad = *padding_idx < 0 ? rows + *padding_idx : *padding_idx;
  }
  if (max_norm) {
    Tensor w = weight;
    embedding_renorm_(w, input.contiguous(), *max_norm, norm_type);
  }
  return ember::embedding(weight, input, pad, scale_grad_by_freq, sparse);
}

Tensor embedding_bag(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& offsets_opt,
                     std::optional<double> max_norm, double norm_type, bool scale_grad_by_freq, std::string_view mode,
                     bool sparse, const std::optional<Tensor>& psw, bool include_last_offset,
                     std::optional<int64_t> padding_idx) {
  // torch.nn.functional.embedding_bag's checks.
  EMBER_CHECK(!psw || std::ranges::equal(psw->sizes(), input.sizes()), ValueError, "embedding_bag: If per_sample_weights (torch.Size(",
              psw ? psw->sizes() : IntArrayRef(), ")) is not None, then it must have the same shape as the input "
              "(torch.Size(", input.sizes(), "))");
  EMBER_CHECK(weight.dim() == 2, ValueError, "weight has to be a 2D Tensor, but got Tensor of dimension ", weight.dim());
  Tensor offsets;
  if (input.dim() == 2) {
    EMBER_CHECK(!offsets_opt, ValueError, "if input is 2D, then offsets has to be None, as input is treated is a "
                "mini-batch of fixed length sequences. However, found offsets of type <class 'torch.Tensor'>");
    offsets = arange(0, input.numel(), std::max<int64_t>(input.size(1), 1), input.options());
    include_last_offset = false;
  } else {
    EMBER_CHECK(input.dim() == 1, ValueError, "input has to be 1D or 2D Tensor, but got Tensor of dimension ",
                input.dim());
    EMBER_CHECK(offsets_opt, ValueError, "offsets has to be a 1D Tensor but got None");
    EMBER_CHECK(offsets_opt->dim() == 1, ValueError, "offsets has to be a 1D Tensor");
    offsets = *offsets_opt;
  }
  EMBER_CHECK(mode == "sum" || mode == "mean" || mode == "max", ValueError, "mode has to be one of sum, mean or max");
  EMBER_CHECK(!scale_grad_by_freq || mode != "max", ValueError,
              "max mode does not support scaling the gradient by the frequency");
  EMBER_CHECK(!sparse || mode != "max", ValueError, "max mode does not support sparse weights");
  EMBER_CHECK(!psw || mode == "sum", NotImplementedError, "embedding_bag: per_sample_weights was not None. "
              "per_sample_weights is only supported for mode='sum' (got mode='", mode, "'). Please open a feature "
              "request on GitHub.");
  // torch's CPU kernel pairs the frequencies with the gradient rows in an order of its own; not reproduced yet.
  EMBER_CHECK(!scale_grad_by_freq, NotImplementedError, "embedding_bag: scale_grad_by_freq is not implemented in Ember");
  check_indices(input, 1, "embedding_bag");
  EMBER_CHECK(weight.is_floating_point(), Error, "Expected tensor for argument #1 'weight' to have one of the following "
              "scalar types: Half, BFloat16, Float, Double; but got ", weight.dtype() == kBool ? "CPUBoolType" :
              str("torch.", legacy_name(weight.dtype()), "Tensor"), " instead (while checking arguments for "
              "embedding_bag)");
  int64_t rows = weight.size(0), pad = -1;
  if (padding_idx) {
    EMBER_CHECK(*padding_idx < rows && *padding_idx >= -rows, Error, "padding_idx must be within the number of "
                "embeddings, ", -rows, " through ", rows - 1, ", but got ", *padding_idx);
    pad = *padding_idx < 0 ? rows + *padding_idx : *padding_idx;
  }
  if (max_norm) {
    Tensor w = weight;
    embedding_renorm_(w, input.contiguous(), *max_norm, norm_type);
  }
  Tensor idx = input.reshape({-1}).to(kInt64), off = offsets.to(kInt64);
  int64_t n = idx.numel(), bags = include_last_offset ? std::max<int64_t>(off.numel() - 1, 0) : off.numel();
  EMBER_CHECK(off.numel() == 0 || off[0].item<int64_t>() == 0, Error, "offsets[0] has to be 0, i.e., the first sequence "
              "in the mini-batch has to start from position 0. However, got ", off[0].item<int64_t>());
  Tensor outside = nonzero(logical_or(lt(idx, wrapped_scalar(0)), ge(idx, wrapped_scalar(rows))));
  if (outside.numel()) {  // torch's RuntimeError (embedding's own is an IndexError)
    int64_t at = outside[0][0].item<int64_t>();
    throw Error(str("embedding_bag: index ", at, " of input takes value ", idx[at].item<int64_t>(),
                    " which is not in the valid range [0, ", rows, ")"));
  }
  // Each position's bag (positions past the last bag's end belong to none), and the positions that count.
  Tensor bag = sub(searchsorted(off, arange(n, off.options()), false, true), wrapped_scalar(1));
  Tensor keep = lt(bag, wrapped_scalar(bags));
  if (pad >= 0) keep = logical_and(keep, ne(idx, wrapped_scalar(pad)));
  Tensor pos = nonzero(keep).reshape({-1});
  Tensor ki = index_select(idx, 0, pos), kb = index_select(bag, 0, pos);
  Tensor kw = psw ? index_select(psw->reshape({-1}), 0, pos) : Tensor();
  int64_t dim = weight.size(1);
  // The bags are the kept rows added (scaled) into their bag, divided by the counts, or their column-wise maxima.
  Tensor gathered, out, counts;
  autograd::untracked([&] {
    gathered = index_select(weight, 0, ki);
    if (mode == "max") {
      out = scatter_reduce(zeros({bags, dim}, weight.options()), 0, kb.unsqueeze(1).expand({kb.numel(), dim}),
                           gathered, "amax", false);
      return;
    }
    out = index_add(zeros({bags, dim}, weight.options()), 0, kb, kw.defined() ? mul(gathered, kw.unsqueeze(1)) : gathered);
    if (mode == "mean") {
      counts = index_add(zeros({bags}, weight.options()), 0, kb, ones({kb.numel()}, weight.options()));
      out = div(out, clamp(counts, Scalar(1)).unsqueeze(1));
    }
  });
  const Tensor& w_in = psw ? *psw : Tensor();
  if (autograd::needs_grad({&weight, &w_in})) {
    autograd::record_embedding_bag(out, weight, w_in, {ki, kb, kw, pos, gathered, counts}, mode == "max", sparse);
  }
  return out;
}

Tensor one_hot(const Tensor& self, int64_t num_classes) {
  EMBER_CHECK(self.dtype() == kInt64, Error, "one_hot is only applicable to index tensor of type LongTensor.");
  DimVector shape(self.sizes());
  if (self.numel() == 0) {
    EMBER_CHECK(num_classes > 0, Error, "Can not infer total number of classes from empty tensor.");
    shape.push_back(num_classes);
    return zeros(shape, self.options());
  }
  EMBER_CHECK(min(self).item<int64_t>() >= 0, Error, "Class values must be non-negative.");
  int64_t top = max(self).item<int64_t>();
  if (num_classes == -1) num_classes = top + 1;
  else EMBER_CHECK(num_classes > top, Error, "Class values must be smaller than num_classes.");
  return eq(self.unsqueeze(-1), arange(num_classes, self.options())).to(kInt64);
}

}  // namespace ember::nn::functional
