// The CUDA column of the kernel tables.
#include "kernels.h"
#include "optim/adam_capturable.h"
#include "optim/optim.h"
#include "random.h"
#include "reduce_all.h"
#include "nn/nn_kernels.h"
#include "nn/conv.h"
#include "order/linalg_host.h"
#include "order/order.h"

namespace ember::cuda_backend {

void register_kernels() {
  constexpr DeviceType cuda = DeviceType::CUDA;
  kernels::fill.set(cuda, fill_kernel);
  kernels::gemm.set(cuda, gemm_kernel);
  kernels::gemm_batched.set(cuda, gemm_batched_kernel);
  kernels::index_gather.set(cuda, index_gather_kernel);
  kernels::index_scatter.set(cuda, index_scatter_kernel);
  kernels::reduce.set(cuda, reduce_kernel);
  kernels::reduce_all.set(cuda, reduce_all_kernel);
  kernels::arg_extremum.set(cuda, arg_extremum_kernel);
  kernels::softmax.set(cuda, softmax_kernel);
  kernels::binary.set(cuda, binary_kernel);
  kernels::pow_scalar.set(cuda, pow_scalar_kernel);
#define EMBER_UNARY_OP(name, kind, expr) kernels::name.set(cuda, name##_kernel);
#include "ember/unary_ops.def"
#undef EMBER_UNARY_OP
  kernels::copy.set(cuda, copy_kernel);
  kernels::where.set(cuda, where_kernel);
  kernels::fused_pointwise.set(cuda, fused_pointwise_kernel);
  kernels::random_fill.set(cuda, random_fill_kernel);
  register_nn_kernels();
  register_conv_kernels();
  register_optim_kernels();
  register_adam_capturable();
  register_order_kernels();
  register_linalg_host_kernels();
}

}  // namespace ember::cuda_backend
