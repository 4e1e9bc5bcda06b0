// Measures the machine's float32 FMA throughput, the roofline that GEMM benchmarks report against.
#include "ember/parallel.h"

#include <atomic>
#include <chrono>

namespace ember {

namespace {

// The widest float32 vector the build targets (GCC's vector extensions: AVX-512 where the compiler may use it, else
// AVX2); a multiply-add of them compiles to one FMA (GNU C++ contracts).
#ifdef __AVX512F__
constexpr int kLanes = 16;
#else
constexpr int kLanes = 8;
#endif
typedef float Vec __attribute__((vector_size(kLanes * sizeof(float))));

// Twelve independent FMA chains: enough to cover two FMA ports at 4-6 cycles of latency.
int64_t fma_burst(int64_t iterations) {
  Vec acc[12];
  for (int k = 0; k < 12; ++k) acc[k] = float(k) - Vec{};
  const Vec mul = 0.999999f - Vec{}, shift = 1e-7f - Vec{};
  for (int64_t i = 0; i < iterations; ++i) {
    for (int k = 0; k < 12; ++k) acc[k] = acc[k] * mul + shift;
  }
  Vec sum = acc[0];
  for (int k = 1; k < 12; ++k) sum += acc[k];
  // The result feeds the return value, so the loop cannot be removed.
  return sum[0] != 0 ? iterations * 12 * kLanes * 2 : 0;
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
