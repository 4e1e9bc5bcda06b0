// Distances and normalisation of vectors: torch.nn.functional's normalize, cosine_similarity and pairwise_distance
// (also torch.cosine_similarity and torch.pairwise_distance). Composites of norms, so their nodes are torch's.
#pragma once

#include "ember/tensor.h"

namespace ember::nn::functional {

// input / max(||input||_p along dim, eps).
Tensor normalize(const Tensor& input, double p = 2.0, int64_t dim = 1, double eps = 1e-12);
Tensor& normalize_out(Tensor& out, const Tensor& input, double p = 2.0, int64_t dim = 1, double eps = 1e-12);
// sum over dim of (x1 / max(||x1||, eps)) * (x2 / max(||x2||, eps)), broadcasting x1 and x2.
Tensor cosine_similarity(const Tensor& x1, const Tensor& x2, int64_t dim = 1, double eps = 1e-8);
// ||x1 - x2 + eps||_p over the last dim.
Tensor pairwise_distance(const Tensor& x1, const Tensor& x2, double p = 2.0, double eps = 1e-6, bool keepdim = false);

}  // namespace ember::nn::functional
