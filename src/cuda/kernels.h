// The CUDA kernels this backend registers in the core's kernel tables (src/dispatch/kernels.h), one file per family.
#pragma once
#include "../dispatch/kernels.h"

namespace ember::cuda_backend {

// Fills the CUDA column of every kernel table (register_kernels.cpp).
void register_kernels();

void fill_kernel(const Tensor& dst, const Scalar& value);
void gemm_kernel(const Tensor& a, const Tensor& b, const Tensor& out, double alpha, double beta);
void gemm_batched_kernel(const Tensor& a, const Tensor& b, const Tensor& out, double alpha, double beta);
void index_gather_kernel(const Tensor& src, int64_t base_offset, IntArrayRef rest_sizes, IntArrayRef rest_strides,
                         const Tensor& offsets, const Tensor& core);
void index_scatter_kernel(const Tensor& dst, int64_t base_offset, IntArrayRef rest_sizes, IntArrayRef rest_strides,
                          const Tensor& offsets, const Tensor& core, bool accumulate);
void reduce_kernel(ReduceOp op, const Tensor& acc, const Tensor& input);
void arg_extremum_kernel(bool is_max, const Tensor& x, const Tensor& values, const Tensor& indices);
void softmax_kernel(const Tensor& x, const Tensor& out, bool log, ScalarType source);

// Elementwise kernels (src/cuda/binary/, src/cuda/unary/, copy.cu, where.cu, fused_pointwise.cu).
void binary_kernel(BinaryOp op, const TensorIterator& it, const Scalar& alpha, std::optional<float> wide_b);
bool pow_scalar_kernel(const TensorIterator& it, double exp);
#define EMBER_UNARY_OP(name, kind, expr) void name##_kernel(const TensorIterator& it);
#include "ember/unary_ops.def"
#undef EMBER_UNARY_OP
void copy_kernel(const Tensor& dst, const Tensor& src);
void where_kernel(const Tensor& out, const Tensor& cond, const Tensor& a, const Tensor& b);
void fused_pointwise_kernel(FusedPointwise op, const TensorIterator& it, std::span<const Scalar> values);

}  // namespace ember::cuda_backend
