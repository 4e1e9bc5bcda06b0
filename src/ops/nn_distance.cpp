// normalize, cosine_similarity and pairwise_distance, written as torch writes them (F.normalize in Python,
// at::cosine_similarity and at::pairwise_distance in ATen).
#include "../core/autocast_policy.h"
#include "ember/nn/distance.h"

#include <algorithm>

#include "ember/autograd.h"
#include "ember/layout.h"
#include "ember/linalg.h"
#include "ember/math_ops.h"
#include "ember/operators.h"
#include "ember/ops.h"
#include "ember/reduce.h"
#include "ember/type_promotion.h"
#include "../autograd/formulas.h"

namespace ember::nn::functional {

namespace {

Tensor normalize_denominator(const Tensor& input, double p, int64_t dim, double eps) {
  return clamp(norm(input, p, {dim}, true), Scalar(eps)).expand_as(input);
}

}  // namespace

Tensor normalize(const Tensor& input, double p, int64_t dim, double eps) {
  return div(input, normalize_denominator(input, p, dim, eps));
}

Tensor& normalize_out(Tensor& out, const Tensor& input, double p, int64_t dim, double eps) {
  return div_out(out, input, normalize_denominator(input, p, dim, eps));
}

Tensor cosine_similarity(const Tensor& x1_, const Tensor& x2_, int64_t dim, double eps) {
  EMBER_AUTOCAST(fp32, kCUDA, cosine_similarity, x1_, x2_, dim, eps);
  // torch promotes the dtypes as such: a 0-dim operand counts as much as the other (both are broadcast first)
  ScalarType common = promote_types(x1_.dtype(), x2_.dtype());
  EMBER_CHECK(is_floating_point(common), Error, "expected common dtype to be floating point, yet common dtype is ",
              legacy_name(common));
  Tensor x1 = x1_.to(common), x2 = x2_.to(common);
  DimVector shape = broadcast_shapes(x1.sizes(), x2.sizes());
  x1 = x1.expand(shape);
  x2 = x2.expand(shape);
  // Each vector divided by its norm first (the result stays within [-1, 1]); the clamps are not differentiated.
  Tensor n1 = linalg_vector_norm(x1, 2, IntArrayRef{dim}, true).clone();
  Tensor n2 = linalg_vector_norm(x2, 2, IntArrayRef{dim}, true).clone();
  {
    autograd::NoGradGuard no_grad;
    clamp_(n1, Scalar(eps));
    clamp_(n2, Scalar(eps));
  }
  return sum(mul(div(x1, n1), div(x2, n2)), {dim});
}

Tensor pairwise_distance(const Tensor& x1, const Tensor& x2, double p, double eps, bool keepdim) {
  DimVector dims{std::max(x1.dim(), x2.dim()) - 1};
  Tensor d = add(sub(x1, x2), wrapped_scalar(eps));
  Tensor r = autograd::untracked([&] { return norm(d, p, dims, keepdim); });
  if (autograd::needs_grad({&d})) autograd::record_norm(r, d, p, dims, keepdim, "NormBackward1");  // at::norm's node
  return r;
}

}  // namespace ember::nn::functional
