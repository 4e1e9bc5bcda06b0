// The CPU kernels of the nn losses (kernels::nll_loss, nll_loss_backward, row_logsumexp, cross_entropy_backward);
// in src/cpu/unary/ for its -fno-math-errno.
#pragma once
#include "../../dispatch/kernels.h"

namespace ember::cpu {

std::optional<int64_t> nll_loss_kernel(const Tensor& logp, const Tensor& lse, const Tensor& target, const Tensor& weight,
                                       int64_t ignore_index, Reduction reduction, const Tensor& out,
                                       const Tensor& total_weight);
void nll_loss_backward_kernel(const Tensor& grad, const Tensor& target, const Tensor& weight, int64_t ignore_index,
                              Reduction reduction, const Tensor& total_weight, const Tensor& coef, const Tensor& dense);
void row_logsumexp_kernel(const Tensor& x, const Tensor& lse);
void cross_entropy_backward_kernel(const Tensor& x, const Tensor& lse, const Tensor& target, const Tensor& coef,
                                   const Tensor& gx);

}  // namespace ember::cpu
