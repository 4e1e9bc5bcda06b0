// Measures the machine's float32 FMA throughput, the roofline that GEMM benchmarks report against.
#include "ember/parallel.h"

#include <immintrin.h>

#include <atomic>
#include <chrono>

namespace ember {

namespace {

// Twelve independent 8-wide FMA chains: enough to cover two FMA ports at 4-6 cycles of latency.
int64_t fma_burst(int64_t iterations) {
  __m256 acc[12];
  for (int k = 0; k < 12; ++k) acc[k] = _mm256_set1_ps(float(k));
  const __m256 mul = _mm256_set1_ps(0.999999f), add = _mm256_set1_ps(1e-7f);
  for (int64_t i = 0; i < iterations; ++i) {
    for (int k = 0; k < 12; ++k) acc[k] = _mm256_fmadd_ps(acc[k], mul, add);
  }
  __m256 sum = acc[0];
  for (int k = 1; k < 12; ++k) sum = _mm256_add_ps(sum, acc[k]);
  float lanes[8];
  _mm256_storeu_ps(lanes, sum);
  // The result feeds the return value, so the loop cannot be removed.
  return lanes[0] != 0 ? iterations * 12 * 8 * 2 : 0;
}

}  // namespace

double measured_fma_peak_gflops(double seconds) {
  int threads = get_num_threads();
  std::atomic<int64_t> flops = 0;
  auto start = std::chrono::steady_clock::now();
  parallel_for(0, threads, 1, [&](int64_t b, int64_t e) {
    for (int64_t t = b; t < e; ++t) {
      auto deadline = start + std::chrono::duration<double>(seconds);
      while (std::chrono::steady_clock::now() < deadline) flops += fma_burst(100000);
    }
  });
  double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return double(flops.load()) / elapsed / 1e9;
}

}  // namespace ember
