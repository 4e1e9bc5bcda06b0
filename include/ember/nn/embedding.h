// Embeddings: torch.nn.functional.embedding (padding_idx, max_norm renormalising the weight in place,
// scale_grad_by_freq), embedding_bag and one_hot, plus torch.embedding / torch.embedding_renorm_.
#pragma once
#include <optional>
#include <string_view>

#include "ember/tensor.h"

namespace ember::nn::functional {

// Rows of weight (num_embeddings, dim) picked by the integer input: input.shape + (dim,). padding_idx's row gets no
// gradient; with max_norm, the rows used whose norm_type-norm exceeds it are first scaled down to it in place.
// sparse: the weight's gradient is a sparse COO tensor with one row per looked-up index (not with scale_grad_by_freq).
Tensor embedding(const Tensor& input, const Tensor& weight, std::optional<int64_t> padding_idx = {},
                 std::optional<double> max_norm = {}, double norm_type = 2.0, bool scale_grad_by_freq = false,
                 bool sparse = false);
// Sums, means or maxima of bags of embeddings: input 2-D (each row a bag) or 1-D with offsets (each bag's start;
// with include_last_offset the last offset ends the last bag). per_sample_weights (mode "sum" only) scale the rows;
// padding_idx rows are left out (and not counted by mean); an empty bag gives zeros. (bags, dim). sparse (not in
// mode "max"): the weight's gradient is sparse COO, one row per kept position.
Tensor embedding_bag(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& offsets = {},
                     std::optional<double> max_norm = {}, double norm_type = 2.0, bool scale_grad_by_freq = false,
                     std::string_view mode = "mean", bool sparse = false,
                     const std::optional<Tensor>& per_sample_weights = {}, bool include_last_offset = false,
                     std::optional<int64_t> padding_idx = {});
// int64 (…, num_classes) with a 1 at each value's class; num_classes -1: the largest value + 1.
Tensor one_hot(const Tensor& tensor, int64_t num_classes = -1);

}  // namespace ember::nn::functional

namespace ember {

// torch.embedding(weight, indices, padding_idx, scale_grad_by_freq, sparse): padding_idx -1 is none.
Tensor embedding(const Tensor& weight, const Tensor& indices, int64_t padding_idx = -1, bool scale_grad_by_freq = false,
                 bool sparse = false);
Tensor& embedding_renorm_(Tensor& self, const Tensor& indices, double max_norm, double norm_type);

}  // namespace ember
