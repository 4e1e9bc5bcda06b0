// The loss and distance modules of ember/nn/modules_loss.h.
#include "ember/nn/modules_loss.h"

#include "ember/nn/distance.h"
#include "ember/nn/loss.h"
#include "ember/nn/modules_misc.h"
#include "ember/nn/repr.h"

namespace ember::nn {

namespace F = functional;

MSELoss::MSELoss(std::string reduction)
    : PlainLoss("MSELoss", [](const Tensor& i, const Tensor& t, Reduction r) { return F::mse_loss(i, t, r); },
                std::move(reduction)) {}
L1Loss::L1Loss(std::string reduction)
    : PlainLoss("L1Loss", [](const Tensor& i, const Tensor& t, Reduction r) { return F::l1_loss(i, t, r); },
                std::move(reduction)) {}
SoftMarginLoss::SoftMarginLoss(std::string reduction)
    : PlainLoss("SoftMarginLoss", &F::soft_margin_loss, std::move(reduction)) {}
MultiLabelMarginLoss::MultiLabelMarginLoss(std::string reduction)
    : PlainLoss("MultiLabelMarginLoss", &F::multilabel_margin_loss, std::move(reduction)) {}

Tensor CrossEntropyLoss::forward(const Tensor& input, const Tensor& target) {
  return F::cross_entropy(input, target, weight_opt(), ignore_index, reduction_kind(), label_smoothing);
}

Tensor NLLLoss::forward(const Tensor& input, const Tensor& target) {
  return F::nll_loss(input, target, weight_opt(), ignore_index, reduction_kind());
}

Tensor SmoothL1Loss::forward(const Tensor& input, const Tensor& target) {
  return F::smooth_l1_loss(input, target, reduction_kind(), beta);
}

Tensor HuberLoss::forward(const Tensor& input, const Tensor& target) {
  return F::huber_loss(input, target, reduction_kind(), delta);
}

Tensor BCELoss::forward(const Tensor& input, const Tensor& target) {
  return F::binary_cross_entropy(input, target, weight_opt(), reduction_kind());
}

Tensor BCEWithLogitsLoss::forward(const Tensor& input, const Tensor& target) {
  return F::binary_cross_entropy_with_logits(input, target, optional_tensor(weight), reduction_kind(),
                                             optional_tensor(pos_weight));
}

Tensor KLDivLoss::forward(const Tensor& input, const Tensor& target) {
  return F::kl_div(input, target, reduction, log_target);
}

CosineEmbeddingLoss::CosineEmbeddingLoss(double margin, std::string reduction)
    : PairMarginLoss("CosineEmbeddingLoss", &F::cosine_embedding_loss, margin, std::move(reduction)) {}
MarginRankingLoss::MarginRankingLoss(double margin, std::string reduction)
    : PairMarginLoss("MarginRankingLoss", &F::margin_ranking_loss, margin, std::move(reduction)) {}

Tensor HingeEmbeddingLoss::forward(const Tensor& input, const Tensor& target) {
  return F::hinge_embedding_loss(input, target, margin, reduction_kind());
}

Tensor TripletMarginLoss::forward(const Tensor& anchor, const Tensor& positive, const Tensor& negative) {
  return F::triplet_margin_loss(anchor, positive, negative, margin, p, eps, swap, reduction_kind());
}

TripletMarginWithDistanceLoss::TripletMarginWithDistanceLoss(F::DistanceFunction distance_function, double margin,
                                                             bool swap, std::string reduction)
    : Loss("TripletMarginWithDistanceLoss", std::move(reduction)),
      distance_function(std::move(distance_function)),
      margin(margin),
      swap(swap) {
  EMBER_CHECK(margin > 0, ValueError, "TripletMarginWithDistanceLoss: expected margin to be greater than 0, got ",
              repr_float(margin), " instead");
  if (this->distance_function) return;
  auto pd = register_module("distance_function", std::make_shared<PairwiseDistance>());
  this->distance_function = [pd = pd.get()](const Tensor& a, const Tensor& b) { return pd->forward(a, b); };
}

Tensor TripletMarginWithDistanceLoss::forward(const Tensor& anchor, const Tensor& positive, const Tensor& negative) {
  return F::triplet_margin_with_distance_loss(anchor, positive, negative, distance_function, margin, swap,
                                              reduction_kind());
}

Tensor GaussianNLLLoss::forward(const Tensor& input, const Tensor& target, const Tensor& var) {
  return F::gaussian_nll_loss(input, target, var, full, eps, reduction_kind());
}

Tensor PoissonNLLLoss::forward(const Tensor& log_input, const Tensor& target) {
  return F::poisson_nll_loss(log_input, target, this->log_input, full, eps, reduction_kind());
}

Tensor MultiLabelSoftMarginLoss::forward(const Tensor& input, const Tensor& target) {
  return F::multilabel_soft_margin_loss(input, target, weight_opt(), reduction_kind());
}

MultiMarginLoss::MultiMarginLoss(int64_t p, double margin, const Tensor& weight, std::string reduction)
    : WeightedLoss("MultiMarginLoss", weight, std::move(reduction)), p(p), margin(margin) {
  EMBER_CHECK(p == 1 || p == 2, ValueError, "only p == 1 and p == 2 supported");
  EMBER_CHECK(!weight.defined() || weight.dim() == 1, ValueError,
              "MultiMarginLoss: expected weight to be None or 1D tensor, got ", weight.dim(), "D instead");
}

Tensor MultiMarginLoss::forward(const Tensor& input, const Tensor& target) {
  return F::multi_margin_loss(input, target, p, margin, weight_opt(), reduction_kind());
}

}  // namespace ember::nn
