// Batched matrix multiply: one gemm per batch.
#include "ember/parallel.h"
#include "gemm.h"

namespace ember::cpu {

void gemm_batched(const Tensor& a, const Tensor& b, const Tensor& out, double alpha, double beta) {
  int64_t B = out.sizes()[0];
  // Many small products run one per thread; few large ones split inside gemm instead.
  int64_t grain = out.sizes()[1] * out.sizes()[2] * a.sizes()[2] >= (1 << 18) ? B : 1;
  parallel_for(0, B, grain, [&](int64_t s, int64_t e) {
    for (int64_t i = s; i < e; ++i) gemm(a.select(0, i), b.select(0, i), out.select(0, i), alpha, beta);
  });
}

}  // namespace ember::cpu
