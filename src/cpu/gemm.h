// Matrix multiply on the serial OpenBLAS, split across Ember's thread pool (so no second pool of
// BLAS threads competes with ours).
#pragma once
#include "ember/tensor.h"

namespace ember::cpu {

// out (M, N, contiguous) = alpha * a (M, K) @ b (K, N) + beta * out, for 2-D tensors of one dtype.
// Float and double go to BLAS; float16/bfloat16 compute in float32; integers use a plain loop.
void gemm(const Tensor& a, const Tensor& b, const Tensor& out, double alpha, double beta);
// The same per batch of 3-D tensors (kernels::gemm_batched); the caller keeps autograd off (it takes views).
void gemm_batched(const Tensor& a, const Tensor& b, const Tensor& out, double alpha, double beta);

}  // namespace ember::cpu
