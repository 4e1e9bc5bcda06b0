// Matrix multiply (oneDNN's sgemm for float32, serial BLIS for double, oneDNN's matmul for bfloat16), split across
// Ember's thread pool (so no second pool of BLAS threads competes with ours).
#pragma once
#include "ember/tensor.h"

namespace ember::cpu {

// out (M, N, contiguous) = alpha * a (M, K) @ b (K, N) + beta * out, for 2-D tensors of one dtype.
// float16 (and bfloat16 with alpha or beta) compute in float32; integers use a plain loop.
void gemm(const Tensor& a, const Tensor& b, const Tensor& out, double alpha, double beta);
// out (bfloat16, contiguous) = a @ b on oneDNN's matmul when a and b are row- or column-major; false otherwise.
bool onednn_bf16_gemm(const Tensor& a, const Tensor& b, const Tensor& out);
// The same per batch of 3-D tensors (kernels::gemm_batched); the caller keeps autograd off (it takes views).
void gemm_batched(const Tensor& a, const Tensor& b, const Tensor& out, double alpha, double beta);

}  // namespace ember::cpu
