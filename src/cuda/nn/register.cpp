// The CUDA column of the nn kernel tables.
#include "nn_kernels.h"

namespace ember::cuda_backend {

void register_nn_kernels() {
  constexpr DeviceType cuda = DeviceType::CUDA;
  kernels::activation.set(cuda, activation_kernel);
  kernels::activation_backward.set(cuda, activation_backward_kernel);
  kernels::nll_loss.set(cuda, nll_loss_kernel);
  kernels::nll_loss_backward.set(cuda, nll_loss_backward_kernel);
  kernels::row_logsumexp.set(cuda, row_logsumexp_kernel);
  kernels::cross_entropy_backward.set(cuda, cross_entropy_backward_kernel);
  kernels::norm_stats.set(cuda, norm_stats_kernel);
  kernels::norm_affine.set(cuda, norm_affine_kernel);
  kernels::norm_grad_sums.set(cuda, norm_grad_sums_kernel);
  kernels::norm_grad_input.set(cuda, norm_grad_input_kernel);
  kernels::max_pool.set(cuda, max_pool_kernel);
  kernels::avg_pool.set(cuda, avg_pool_kernel);
  kernels::max_pool_backward.set(cuda, max_pool_backward_kernel);
  kernels::avg_pool_backward.set(cuda, avg_pool_backward_kernel);
}

}  // namespace ember::cuda_backend
