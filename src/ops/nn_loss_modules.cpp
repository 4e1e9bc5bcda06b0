// torch.nn.functional.triplet_margin_with_distance_loss: a composite of the distance function and min/clamp.
#include "ember/math_ops.h"
#include "ember/nn/distance.h"
#include "ember/nn/repr.h"
#include "ember/nn/modules_loss.h"
#include "ember/operators.h"
#include "ember/ops.h"
#include "ember/reduce.h"

namespace ember::nn::functional {

Tensor triplet_margin_with_distance_loss(const Tensor& anchor, const Tensor& positive, const Tensor& negative,
                                         const DistanceFunction& distance_function, double margin, bool swap,
                                         Reduction reduction) {
  EMBER_CHECK(margin > 0, ValueError, "margin must be greater than 0, got ", repr_float(margin));
  int64_t a = anchor.dim(), p = positive.dim(), n = negative.dim();
  EMBER_CHECK(a == p && p == n, Error, "The anchor, positive, and negative tensors are expected to have the same "
              "number of dimensions, but got: anchor ", a, "D, positive ", p, "D, and negative ", n, "D inputs");
  auto dist = [&](const Tensor& x, const Tensor& y) {
    return distance_function ? distance_function(x, y) : pairwise_distance(x, y);
  };
  Tensor d_pos = dist(anchor, positive), d_neg = dist(anchor, negative);
  if (swap) d_neg = d_neg.min(dist(positive, negative));
  Tensor loss = (d_pos - d_neg + margin).clamp(std::optional<Scalar>(0));
  if (reduction == Reduction::Mean) return loss.mean();
  if (reduction == Reduction::Sum) return loss.sum();
  return loss;
}

}  // namespace ember::nn::functional
