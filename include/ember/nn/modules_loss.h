// Loss modules (torch.nn.MSELoss ... HingeEmbeddingLoss) over the functional forms of ember/nn/loss.h. `reduction` is torch's string, checked when
// the loss is called; class weights are buffers (torch's state_dict).
#pragma once
#include <functional>
#include <optional>
#include <string>

#include "ember/nn/module.h"
#include "ember/nn/reduction.h"

namespace ember::nn {

namespace functional {
// torch.nn.functional.triplet_margin_with_distance_loss: distance_function defaults to pairwise_distance; margin > 0.
using DistanceFunction = std::function<Tensor(const Tensor&, const Tensor&)>;
Tensor triplet_margin_with_distance_loss(const Tensor& anchor, const Tensor& positive, const Tensor& negative,
                                         const DistanceFunction& distance_function = nullptr, double margin = 1.0,
                                         bool swap = false, Reduction reduction = Reduction::Mean);
// torch.nn.functional.multilabel_margin_loss: input (C) or (N, C); target int64 of input's shape holding class
// indices up to the first -1. Sums hinge(1 - (x[y_j] - x[i])) over targets y_j and non-target classes i, over C.
Tensor multilabel_margin_loss(const Tensor& input, const Tensor& target, Reduction reduction = Reduction::Mean);
}  // namespace functional

// torch's _Loss: the reduction string (legacy size_average/reduce mapped by legacy_reduction).
class Loss : public Module {
 public:
  Loss(std::string name, std::string reduction) : Module(std::move(name)), reduction(std::move(reduction)) {}
  std::string reduction;

 protected:
  Reduction reduction_kind() const { return reduction_from_string(reduction); }
};

// torch's _WeightedLoss: the class weights as buffer "weight" (None when undefined).
class WeightedLoss : public Loss {
 public:
  WeightedLoss(std::string name, const Tensor& weight, std::string reduction)
      : Loss(std::move(name), std::move(reduction)), weight(register_buffer("weight", weight)) {}
  Tensor& weight;

 protected:
  std::optional<Tensor> weight_opt() const { return optional_tensor(weight); }
};

// Losses of (input, target) that take only the reduction.
class PlainLoss : public Loss {
 public:
  using Fn = Tensor (*)(const Tensor&, const Tensor&, Reduction);
  PlainLoss(std::string name, Fn fn, std::string reduction) : Loss(std::move(name), std::move(reduction)), fn_(fn) {}
  using Module::forward;
  Tensor forward(const Tensor& input, const Tensor& target) { return fn_(input, target, reduction_kind()); }

 private:
  Fn fn_;
};

struct MSELoss : PlainLoss { explicit MSELoss(std::string reduction = "mean"); };
struct L1Loss : PlainLoss { explicit L1Loss(std::string reduction = "mean"); };
struct SoftMarginLoss : PlainLoss { explicit SoftMarginLoss(std::string reduction = "mean"); };
struct MultiLabelMarginLoss : PlainLoss { explicit MultiLabelMarginLoss(std::string reduction = "mean"); };

class CrossEntropyLoss : public WeightedLoss {
 public:
  explicit CrossEntropyLoss(const Tensor& weight = {}, int64_t ignore_index = -100, std::string reduction = "mean",
                            double label_smoothing = 0.0)
      : WeightedLoss("CrossEntropyLoss", weight, std::move(reduction)),
        ignore_index(ignore_index),
        label_smoothing(label_smoothing) {}
  using Module::forward;
  Tensor forward(const Tensor& input, const Tensor& target);
  int64_t ignore_index;
  double label_smoothing;
};

class NLLLoss : public WeightedLoss {
 public:
  explicit NLLLoss(const Tensor& weight = {}, int64_t ignore_index = -100, std::string reduction = "mean")
      : WeightedLoss("NLLLoss", weight, std::move(reduction)), ignore_index(ignore_index) {}
  using Module::forward;
  Tensor forward(const Tensor& input, const Tensor& target);
  int64_t ignore_index;
};

class SmoothL1Loss : public Loss {
 public:
  explicit SmoothL1Loss(std::string reduction = "mean", double beta = 1.0)
      : Loss("SmoothL1Loss", std::move(reduction)), beta(beta) {}
  using Module::forward;
  Tensor forward(const Tensor& input, const Tensor& target);
  double beta;
};

class HuberLoss : public Loss {
 public:
  explicit HuberLoss(std::string reduction = "mean", double delta = 1.0)
      : Loss("HuberLoss", std::move(reduction)), delta(delta) {}
  using Module::forward;
  Tensor forward(const Tensor& input, const Tensor& target);
  double delta;
};

class BCELoss : public WeightedLoss {
 public:
  explicit BCELoss(const Tensor& weight = {}, std::string reduction = "mean")
      : WeightedLoss("BCELoss", weight, std::move(reduction)) {}
  using Module::forward;
  Tensor forward(const Tensor& input, const Tensor& target);
};

class BCEWithLogitsLoss : public Loss {
 public:
  explicit BCEWithLogitsLoss(const Tensor& weight = {}, std::string reduction = "mean", const Tensor& pos_weight = {})
      : Loss("BCEWithLogitsLoss", std::move(reduction)),
        weight(register_buffer("weight", weight)),
        pos_weight(register_buffer("pos_weight", pos_weight)) {}
  using Module::forward;
  Tensor forward(const Tensor& input, const Tensor& target);
  Tensor& weight;
  Tensor& pos_weight;
};

class KLDivLoss : public Loss {
 public:
  explicit KLDivLoss(std::string reduction = "mean", bool log_target = false)
      : Loss("KLDivLoss", std::move(reduction)), log_target(log_target) {}
  using Module::forward;
  Tensor forward(const Tensor& input, const Tensor& target);
  bool log_target;
};

// Losses of (input1, input2, target) with a margin: CosineEmbeddingLoss, MarginRankingLoss.
class PairMarginLoss : public Loss {
 public:
  using Fn = Tensor (*)(const Tensor&, const Tensor&, const Tensor&, double, Reduction);
  PairMarginLoss(std::string name, Fn fn, double margin, std::string reduction)
      : Loss(std::move(name), std::move(reduction)), margin(margin), fn_(fn) {}
  using Module::forward;
  Tensor forward(const Tensor& input1, const Tensor& input2, const Tensor& target) {
    return fn_(input1, input2, target, margin, reduction_kind());
  }
  double margin;

 private:
  Fn fn_;
};

struct CosineEmbeddingLoss : PairMarginLoss {
  explicit CosineEmbeddingLoss(double margin = 0.0, std::string reduction = "mean");
};
struct MarginRankingLoss : PairMarginLoss {
  explicit MarginRankingLoss(double margin = 0.0, std::string reduction = "mean");
};

class HingeEmbeddingLoss : public Loss {
 public:
  explicit HingeEmbeddingLoss(double margin = 1.0, std::string reduction = "mean")
      : Loss("HingeEmbeddingLoss", std::move(reduction)), margin(margin) {}
  using Module::forward;
  Tensor forward(const Tensor& input, const Tensor& target);
  double margin;
};

class TripletMarginLoss : public Loss {
 public:
  explicit TripletMarginLoss(double margin = 1.0, double p = 2.0, double eps = 1e-6, bool swap = false,
                             std::string reduction = "mean")
      : Loss("TripletMarginLoss", std::move(reduction)), margin(margin), p(p), eps(eps), swap(swap) {}
  using Module::forward;
  Tensor forward(const Tensor& anchor, const Tensor& positive, const Tensor& negative);
  double margin, p, eps;
  bool swap;
};

// distance_function: a callable, or none for a PairwiseDistance child named "distance_function" (torch's).
class TripletMarginWithDistanceLoss : public Loss {
 public:
  explicit TripletMarginWithDistanceLoss(functional::DistanceFunction distance_function = nullptr, double margin = 1.0,
                                         bool swap = false, std::string reduction = "mean");
  using Module::forward;
  Tensor forward(const Tensor& anchor, const Tensor& positive, const Tensor& negative);
  functional::DistanceFunction distance_function;
  double margin;
  bool swap;
};

class GaussianNLLLoss : public Loss {
 public:
  explicit GaussianNLLLoss(bool full = false, double eps = 1e-6, std::string reduction = "mean")
      : Loss("GaussianNLLLoss", std::move(reduction)), full(full), eps(eps) {}
  using Module::forward;
  Tensor forward(const Tensor& input, const Tensor& target, const Tensor& var);
  bool full;
  double eps;
};

class PoissonNLLLoss : public Loss {
 public:
  explicit PoissonNLLLoss(bool log_input = true, bool full = false, double eps = 1e-8, std::string reduction = "mean")
      : Loss("PoissonNLLLoss", std::move(reduction)), log_input(log_input), full(full), eps(eps) {}
  using Module::forward;
  Tensor forward(const Tensor& log_input, const Tensor& target);
  bool log_input, full;
  double eps;
};

class MultiLabelSoftMarginLoss : public WeightedLoss {
 public:
  explicit MultiLabelSoftMarginLoss(const Tensor& weight = {}, std::string reduction = "mean")
      : WeightedLoss("MultiLabelSoftMarginLoss", weight, std::move(reduction)) {}
  using Module::forward;
  Tensor forward(const Tensor& input, const Tensor& target);
};

class MultiMarginLoss : public WeightedLoss {
 public:
  // p is 1 or 2 and weight none or 1-d, else torch's ValueError.
  explicit MultiMarginLoss(int64_t p = 1, double margin = 1.0, const Tensor& weight = {},
                           std::string reduction = "mean");
  using Module::forward;
  Tensor forward(const Tensor& input, const Tensor& target);
  int64_t p;
  double margin;
};

}  // namespace ember::nn
