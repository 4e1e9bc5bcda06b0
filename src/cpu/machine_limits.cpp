// Measures the machine's float32 FMA throughput, the roofline that GEMM benchmarks report against.
#include "ember/parallel.h"

#include <immintrin.h>

#include <atomic>
#include <chrono>

namespace ember {

namespace {

// The widest float32 vector the build targets (AVX-512 where the compiler may use it, else AVX2).
#ifdef __AVX512F__
using Vec = __m512;
constexpr int kLanes = 16;
inline Vec splat(float v) { return _mm512_set1_ps(v); }
inline Vec fmadd(Vec a, Vec b, Vec c) { return _mm512_fmadd_ps(a, b, c); }
inline Vec add(Vec a, Vec b) { return _mm512_add_ps(a, b); }
inline void store(float* p, Vec v) { _mm512_storeu_ps(p, v); }
#else
using Vec = __m256;
constexpr int kLanes = 8;
inline Vec splat(float v) { return _mm256_set1_ps(v); }
inline Vec fmadd(Vec a, Vec b, Vec c) { return _mm256_fmadd_ps(a, b, c); }
inline Vec add(Vec a, Vec b) { return _mm256_add_ps(a, b); }
inline void store(float* p, Vec v) { _mm256_storeu_ps(p, v); }
#endif

// Twelve independent FMA chains: enough to cover two FMA ports at 4-6 cycles of latency.
int64_t fma_burst(int64_t iterations) {
  Vec acc[12];
  for (int k = 0; k < 12; ++k) acc[k] = splat(float(k));
  const Vec mul = splat(0.999999f), shift = splat(1e-7f);
  for (int64_t i = 0; i < iterations; ++i) {
    for (int k = 0; k < 12; ++k) acc[k] = fmadd(acc[k], mul, shift);
  }
  Vec sum = acc[0];
  for (int k = 1; k < 12; ++k) sum = add(sum, acc[k]);
  float lanes[kLanes];
  store(lanes, sum);
  // The result feeds the return value, so the loop cannot be removed.
  return lanes[0] != 0 ? iterations * 12 * kLanes * 2 : 0;
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
