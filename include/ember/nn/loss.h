// Loss functions of torch.nn.functional (ember::nn::functional), with torch's names, argument order and defaults;
// `reduction` is the Reduction enum (ember/nn/reduction.h), kl_div's also takes "batchmean".
#pragma once
#include <optional>
#include <string_view>

#include "ember/nn/reduction.h"
#include "ember/tensor.h"

namespace ember::nn::functional {

// Class-index targets (N) / (N, d1, ...) with optional class weights and ignore_index, or class probabilities
// (target of input's shape); input (C), (N, C) or (N, C, d1, ...).
Tensor cross_entropy(const Tensor& input, const Tensor& target, const std::optional<Tensor>& weight = {},
                     int64_t ignore_index = -100, Reduction reduction = Reduction::Mean, double label_smoothing = 0.0);
Tensor nll_loss(const Tensor& input, const Tensor& target, const std::optional<Tensor>& weight = {},
                int64_t ignore_index = -100, Reduction reduction = Reduction::Mean);
// weight (input's shape): torch 2.13's weighted forms, whose 'mean' divides by the weights' sum (huber's: the mean).
Tensor mse_loss(const Tensor& input, const Tensor& target, Reduction reduction = Reduction::Mean,
                const std::optional<Tensor>& weight = {});
Tensor l1_loss(const Tensor& input, const Tensor& target, Reduction reduction = Reduction::Mean,
               const std::optional<Tensor>& weight = {});
Tensor smooth_l1_loss(const Tensor& input, const Tensor& target, Reduction reduction = Reduction::Mean,
                      double beta = 1.0);
Tensor huber_loss(const Tensor& input, const Tensor& target, Reduction reduction = Reduction::Mean, double delta = 1.0,
                  const std::optional<Tensor>& weight = {});
Tensor binary_cross_entropy(const Tensor& input, const Tensor& target, const std::optional<Tensor>& weight = {},
                            Reduction reduction = Reduction::Mean);
Tensor binary_cross_entropy_with_logits(const Tensor& input, const Tensor& target,
                                        const std::optional<Tensor>& weight = {}, Reduction reduction = Reduction::Mean,
                                        const std::optional<Tensor>& pos_weight = {});
// reduction: "none", "mean", "sum" or "batchmean".
Tensor kl_div(const Tensor& input, const Tensor& target, std::string_view reduction = "mean", bool log_target = false);
Tensor cosine_embedding_loss(const Tensor& input1, const Tensor& input2, const Tensor& target, double margin = 0.0,
                             Reduction reduction = Reduction::Mean);
Tensor margin_ranking_loss(const Tensor& input1, const Tensor& input2, const Tensor& target, double margin = 0.0,
                           Reduction reduction = Reduction::Mean);
Tensor triplet_margin_loss(const Tensor& anchor, const Tensor& positive, const Tensor& negative, double margin = 1.0,
                           double p = 2.0, double eps = 1e-6, bool swap = false, Reduction reduction = Reduction::Mean);
Tensor gaussian_nll_loss(const Tensor& input, const Tensor& target, const Tensor& var, bool full = false,
                         double eps = 1e-6, Reduction reduction = Reduction::Mean);
Tensor poisson_nll_loss(const Tensor& input, const Tensor& target, bool log_input = true, bool full = false,
                        double eps = 1e-8, Reduction reduction = Reduction::Mean);
Tensor soft_margin_loss(const Tensor& input, const Tensor& target, Reduction reduction = Reduction::Mean);
Tensor multilabel_soft_margin_loss(const Tensor& input, const Tensor& target, const std::optional<Tensor>& weight = {},
                                   Reduction reduction = Reduction::Mean);
// input (C) or (N, C), target class indices (N); p 1 or 2, weight (C).
Tensor multi_margin_loss(const Tensor& input, const Tensor& target, int64_t p = 1, double margin = 1.0,
                         const std::optional<Tensor>& weight = {}, Reduction reduction = Reduction::Mean);
Tensor hinge_embedding_loss(const Tensor& input, const Tensor& target, double margin = 1.0,
                            Reduction reduction = Reduction::Mean);

}  // namespace ember::nn::functional
