// Matrix multiply (oneDNN's sgemm for float32, serial BLIS for double, oneDNN's matmul for bfloat16), split across
// Ember's thread pool (so no second pool of BLAS threads competes with ours).
#pragma once
#include "ember/tensor.h"

namespace ember::cpu {

// out (M, N, contiguous) = alpha * a (M, K) @ b (K, N) + beta * out, for 2-D tensors of one dtype.
// float16 (and bfloat16 with alpha or beta) compute in float32; integers use a plain loop.
void gemm(const Tensor& a, const Tensor& b, const Tensor& out, double alpha, double beta);
// A matrix operand as BLAS sees it: row-major data, optionally transposed, with a leading dim.
struct Operand {
  const void* data;
  bool trans;
  int64_t ld;
};
// Describes `m` (rows, cols) without copying when it is row- or column-major; copies into `keep` otherwise.
Operand as_operand(const Tensor& m, Tensor& keep);
// Whether oneDNN has a bfloat16 matmul for this CPU (AVX512_BF16 or AMX; not under ONEDNN_MAX_CPU_ISA=AVX2, as the
// tests pin it). out (M, N, bfloat16, contiguous) = a (M, K) @ b (K, N) on it (src/cpu/gemm_bf16.cpp).
bool has_onednn_bf16_matmul();
void onednn_bf16_gemm(const Operand& a, const Operand& b, void* out, int64_t M, int64_t N, int64_t K);
// The same per batch of 3-D tensors (kernels::gemm_batched); the caller keeps autograd off (it takes views).
void gemm_batched(const Tensor& a, const Tensor& b, const Tensor& out, double alpha, double beta);

}  // namespace ember::cpu
