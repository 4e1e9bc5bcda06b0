// Streaming (non-temporal) stores for large float outputs: they bypass the cache, so the
// destination is not read first (a third less memory traffic for an output written once).
#pragma once
#include <cstdint>

#ifdef __AVX2__
#include <immintrin.h>
#endif

namespace ember::cpu {

// Outputs from this size on are worth streaming; smaller ones are likely read again from cache.
inline constexpr int64_t kStreamBytes = 1 << 20;

// o[i] = value(i) for i < n, the 32-byte-aligned middle through streaming stores (fenced before
// returning, so other threads see the values). Returns false, writing nothing, without AVX2.
template <typename F>
bool store_streaming(float* o, int64_t n, F&& value) {
#ifdef __AVX2__
  int64_t i = 0;
  for (; i < n && (reinterpret_cast<uintptr_t>(o + i) & 31); ++i) o[i] = value(i);
  for (; i + 8 <= n; i += 8) {
    alignas(32) float block[8];
    for (int k = 0; k < 8; ++k) block[k] = value(i + k);
    _mm256_stream_ps(o + i, _mm256_load_ps(block));
  }
  for (; i < n; ++i) o[i] = value(i);
  _mm_sfence();
  return true;
#else
  return false;
#endif
}

}  // namespace ember::cpu
