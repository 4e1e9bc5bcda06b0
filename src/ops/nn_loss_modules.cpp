// torch.nn.functional.triplet_margin_with_distance_loss and multilabel_margin_loss, composites of existing ops.
#include "../core/autocast_policy.h"
#include "ember/creation.h"
#include "ember/math_ops.h"
#include "ember/nn/distance.h"
#include "ember/nn/repr.h"
#include "ember/nn/modules_loss.h"
#include "ember/operators.h"
#include "ember/ops.h"
#include "ember/reduce.h"
#include "ember/type_promotion.h"

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

Tensor multilabel_margin_loss(const Tensor& input, const Tensor& target, Reduction reduction) {
  EMBER_AUTOCAST(fp32, kBoth, multilabel_margin_loss, input, target, reduction);
  EMBER_CHECK(target.dtype() == kInt64, Error, "expected scalar type Long but found ", target.dtype());
  int64_t d = input.dim();
  EMBER_CHECK((d == 1 && input.numel() > 0) || d == 2, Error,
              "Expected non-empty vector or matrix with optional 0-dim batch size, but got: ", int_list(input.sizes()));
  EMBER_CHECK(DimVector(target.sizes()) == DimVector(input.sizes()), Error, "inconsistent target size: ",
              int_list(target.sizes()), " for input of size: ", int_list(input.sizes()));
  Tensor x = d == 1 ? input.unsqueeze(0) : input, y = d == 1 ? target.unsqueeze(0) : target;
  int64_t c = x.size(1);
  if (y.numel() > 0) {
    EMBER_CHECK(y.min().item().to<int64_t>() >= -1 && y.max().item().to<int64_t>() < c, Error,
                "argument #2 'target' is out of range");
  }
  // valid[n, j]: position j comes before the first -1; is_target[n, i]: class i is one of the valid targets.
  Tensor valid = ne(y, wrapped_scalar(-1)).cumprod(1).to(kBool);
  Tensor idx = y.clamp(std::optional<Scalar>(0));
  Tensor classes = arange(c, TensorOptions(kInt64).device(y.device()));
  Tensor is_target = logical_and(eq(idx.unsqueeze(2), classes), valid.unsqueeze(2)).any(1);
  Tensor hinge = (1.0 - x.gather(1, idx).unsqueeze(2) + x.unsqueeze(1)).clamp(std::optional<Scalar>(0));
  Tensor pairs = logical_and(valid.unsqueeze(2), is_target.logical_not().unsqueeze(1));
  Tensor loss = (hinge * pairs.to(x.dtype())).sum({1, 2}) / double(c);
  if (d == 1) loss = loss.squeeze(0);
  if (reduction == Reduction::Mean) return loss.mean();
  if (reduction == Reduction::Sum) return loss.sum();
  return loss;
}

}  // namespace ember::nn::functional
