// The CUDA kernels of the nn families (activations, losses, normalisation, pooling; contracts in
// src/dispatch/kernels.h), one file per family in this folder.
#pragma once
#include "../../dispatch/kernels.h"

namespace ember::cuda_backend {

// An optional tensor's elements for a kernel: null where it is undefined (no weight, no bias).
template <typename T>
const T* data_or_null(const Tensor& t) {
  return t.defined() ? static_cast<const T*>(t.data_ptr()) : nullptr;
}

// Fills the CUDA column of the nn kernel tables (called by register_kernels()).
void register_nn_kernels();

void activation_kernel(Activation op, const TensorIterator& it, const ActivationParams& p);
void activation_backward_kernel(Activation op, const TensorIterator& it, const ActivationParams& p, bool from_result);

std::optional<int64_t> nll_loss_kernel(const Tensor& logp, const Tensor& lse, const Tensor& target,
                                       const Tensor& weight, int64_t ignore_index, Reduction reduction,
                                       const Tensor& out, const Tensor& total_weight);
void nll_loss_backward_kernel(const Tensor& grad, const Tensor& target, const Tensor& weight, int64_t ignore_index,
                              Reduction reduction, const Tensor& total_weight, const Tensor& coef,
                              const Tensor& dense);
void row_logsumexp_kernel(const Tensor& x, const Tensor& lse);
void cross_entropy_backward_kernel(const Tensor& x, const Tensor& lse, const Tensor& target, const Tensor& coef,
                                   const Tensor& gx);

void norm_stats_kernel(const Tensor& x, const Tensor& mean, const Tensor& var);
void norm_affine_kernel(const Tensor& x, const Tensor& mean, const Tensor& scale, const Tensor& shift,
                        const Tensor& w, const Tensor& b, const Tensor& y);
void norm_grad_sums_kernel(const Tensor& dy, const Tensor& x, const Tensor& w, const Tensor& sum_dy,
                           const Tensor& sum_dy_x);
void norm_grad_input_kernel(const Tensor& dy, const Tensor& x, const Tensor& w, const Tensor& a, const Tensor& b,
                            const Tensor& e, const Tensor& dx);

void max_pool_kernel(const Tensor& input, const Tensor& output, const Tensor& indices, const PoolAxis& h,
                     const PoolAxis& w);
void avg_pool_kernel(const Tensor& input, const Tensor& output, const PoolAxis& h, const PoolAxis& w,
                     int64_t divisor);
void max_pool_backward_kernel(const Tensor& grad_output, const Tensor& indices, const Tensor& grad_input);
void avg_pool_backward_kernel(const Tensor& grad_output, const Tensor& grad_input, const PoolAxis& h,
                              const PoolAxis& w, int64_t divisor);

}  // namespace ember::cuda_backend
