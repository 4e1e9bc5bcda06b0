// Embedding lookups (an index_select of rows, EmbeddingBackward0), the in-place renorm of max_norm, and one_hot.
#include "ember/nn/embedding.h"

#include <algorithm>
#include <vector>

#include "ember/creation.h"
#include "ember/ops.h"
#include "ember/reduce.h"
#include "ember/scatter.h"
#include "ember/type_promotion.h"
#include "../autograd/formulas.h"

namespace ember {

namespace {

void check_indices(const Tensor& indices, int arg, const char* fn) {
  EMBER_CHECK(indices.dtype() == kInt64 || indices.dtype() == kInt32, Error, "Expected tensor for argument #", arg,
              " 'indices' to have one of the following scalar types: Long, Int; but got torch.",
              dtype_info(indices.dtype()).legacy_name, "Tensor instead (while checking arguments for ", fn, ")");
}

}  // namespace

Tensor embedding(const Tensor& weight, const Tensor& indices, int64_t padding_idx, bool scale_grad_by_freq,
                 bool sparse) {
  EMBER_CHECK(weight.dim() == 2, Error, "'weight' must be 2-D");
  check_indices(indices, 1, "embedding");
  EMBER_CHECK(!sparse || !weight.requires_grad(), NotImplementedError,
              "embedding: sparse gradients are not supported (Ember has no sparse tensors)");
  Tensor result = autograd::untracked([&] {
    DimVector shape(indices.sizes());
    shape.push_back(weight.size(1));
    return index_select(weight, 0, indices.reshape({-1})).view(shape);
  });
  if (autograd::needs_grad({&weight})) autograd::record_embedding(result, weight, indices, padding_idx, scale_grad_by_freq);
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
