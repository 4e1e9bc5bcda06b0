// The CPU backend's column of every kernel table (src/dispatch/kernels.h), filled when the library loads.
#include "binary/binary_kernels.h"
#include "copy_kernel.h"
#include "fused_pointwise_kernel.h"
#include "gemm.h"
#include "index_kernel.h"
#include "quantize_kernel.h"
#include "reduce_kernels.h"
#include "scatter_kernel.h"
#include "softmax_kernel.h"
#include "sort_kernel.h"
#include "svd_kernel.h"
#include "lapack_kernels.h"
#include "../dispatch/linalg_kernels.h"
#include "unary_kernels.h"
#include "where_kernel.h"
#include "../dispatch/reduce_all.h"
#include "shape_utils_kernel.h"
#include "nn/normalization_kernel.h"
#include "nn/conv_kernel.h"
#include "nn/pool_kernel.h"

namespace ember::cpu {

namespace {

bool register_kernels() {
  constexpr DeviceType cpu = DeviceType::CPU;
  kernels::binary.set(cpu, &binary_kernel);
  kernels::pow_scalar.set(cpu, &pow_scalar_kernel);
#define EMBER_UNARY_OP(name, kind, expr) kernels::name.set(cpu, &name##_kernel);
#include "ember/unary_ops.def"
#undef EMBER_UNARY_OP
  kernels::copy.set(cpu, &copy_kernel);
  kernels::fill.set(cpu, &fill_kernel);
  kernels::where.set(cpu, &where_kernel);
  kernels::fused_pointwise.set(cpu, &fused_pointwise_kernel);
  kernels::quantize.set(cpu, &quantize_kernel);
  kernels::dequantize.set(cpu, &dequantize_kernel);
  kernels::reduce.set(cpu, &reduce_kernel);
  // The CPU's general reduce folds a whole tensor in one parallel pass already.
  kernels::reduce_all.set(cpu, [](ReduceOp, const Tensor&, ScalarType, double) { return Tensor(); });
  kernels::arg_extremum.set(cpu, &arg_extremum_kernel);
  kernels::softmax.set(cpu, &softmax_kernel);
  kernels::gemm.set(cpu, &gemm);
  kernels::gemm_batched.set(cpu, &gemm_batched);
  kernels::index_gather.set(cpu, &index_gather);
  kernels::index_scatter.set(cpu, &index_scatter);
  kernels::triangle.set(cpu, &triangle_kernel);
  kernels::scatter.set(cpu, &scatter_kernel);
  kernels::masked_select.set(cpu, &masked_select_kernel);
  kernels::sort.set(cpu, &sort_kernel);
  kernels::topk.set(cpu, &topk_kernel);
  kernels::row_stat.set(cpu, &row_stat_kernel);
  kernels::cum_extremum.set(cpu, &cum_extremum_kernel);
  kernels::searchsorted.set(cpu, &searchsorted_kernel);
  kernels::scan.set(cpu, &scan_kernel);
  kernels::histc.set(cpu, &histc_kernel);
  kernels::unique_runs.set(cpu, &unique_runs_kernel);
  kernels::svd.set(cpu, &svd_kernel);
  kernels::lu_factor.set(cpu, &lu_factor_kernel);
  kernels::lu_solve.set(cpu, &lu_solve_kernel);
  kernels::triangular_solve.set(cpu, &triangular_solve_kernel);
  kernels::cholesky.set(cpu, &cholesky_kernel);
  kernels::qr.set(cpu, &qr_kernel);
  kernels::eigh.set(cpu, &eigh_kernel);
  register_normalization_kernels();
  kernels::conv_forward.set(cpu, &conv_forward_kernel);
  kernels::conv_backward_data.set(cpu, &conv_backward_data_kernel);
  kernels::conv_backward_weights.set(cpu, &conv_backward_weights_kernel);
  kernels::conv_backward.set(cpu, &conv_backward_kernel);
  kernels::max_pool.set(cpu, &max_pool_kernel);
  kernels::avg_pool.set(cpu, &avg_pool_kernel);
  kernels::max_pool_backward.set(cpu, &max_pool_backward_kernel);
  kernels::avg_pool_backward.set(cpu, &avg_pool_backward_kernel);
  return true;
}

const bool registered = register_kernels();

}  // namespace

}  // namespace ember::cpu

// nn activations and losses (issue 11).
#include "unary/nn_activation.h"
#include "unary/nn_loss.h"

namespace ember::cpu {
namespace {

bool register_nn_act_loss_kernels() {
  constexpr DeviceType cpu = DeviceType::CPU;
  kernels::activation.set(cpu, &activation_kernel);
  kernels::activation_backward.set(cpu, &activation_backward_kernel);
  kernels::nll_loss.set(cpu, &nll_loss_kernel);
  kernels::nll_loss_backward.set(cpu, &nll_loss_backward_kernel);
  kernels::row_logsumexp.set(cpu, &row_logsumexp_kernel);
  kernels::cross_entropy_backward.set(cpu, &cross_entropy_backward_kernel);
  return true;
}

const bool nn_act_loss_registered = register_nn_act_loss_kernels();

}  // namespace
}  // namespace ember::cpu
