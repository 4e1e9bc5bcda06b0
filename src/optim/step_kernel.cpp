// The CPU column of optim_step: 32K-element chunks over all tensors that the pool's threads claim as they go
// (GIL released for a large step), each a loop over the update functor specialised on its flags, with restrict
// streams and the functor by value so that it vectorises with no branch and no runtime alias check.
#include <atomic>

#include "../dispatch/optim_kernels.h"
#include "ember/parallel.h"

namespace ember::optim {
namespace {

constexpr int64_t kChunk = 1 << 15;  // elements per task: a few L2-sized slices of each stream

// Out of line: GCC honours restrict parameters in a function of its own (inlined, the loop gets runtime alias checks).
template <typename F, typename T>
[[gnu::noinline]] void update_loop(const F f, T* __restrict p, const T* __restrict g, T* __restrict a, T* __restrict b,
                                   T* __restrict c, int64_t n) {
  for (int64_t k = 0; k < n; ++k) f(k, p, g, a, b, c);
}

template <typename T>
void update_chunk(const functors::OptimUpdate& update, const OptimTensor& t, int64_t begin, int64_t end) {
  auto at = [&](size_t j) { return t.data[j] ? static_cast<T*>(t.data[j]) + begin : nullptr; };
  functors::visit_update<T>(update, t.scalars,
                            [&](const auto& f) { update_loop(f, at(0), at(1), at(2), at(3), at(4), end - begin); });
}

void cpu_optim_step(const OptimStep& step) {
  struct Chunk { size_t i; int64_t begin, end; };
  std::vector<Chunk> chunks;
  int64_t total = 0;
  for (size_t i = 0; i < step.tensors.size(); ++i) {
    const int64_t n = step.tensors[i].numel;
    for (int64_t b = 0; b < n; b += kChunk) chunks.push_back({i, b, std::min(b + kChunk, n)});
    total += n;
  }
  // Threads claim chunks as they go, so a thread the OS holds back (a loaded machine) delays no one.
  const bool parallel = total >= kUnlockElements && chunks.size() > 1;
  Unlocked unlocked(parallel);
  std::atomic<size_t> next = 0;
  parallel_for(0, parallel ? get_num_threads() : 1, 1, [&](int64_t, int64_t) {
    for (size_t c; (c = next.fetch_add(1, std::memory_order_relaxed)) < chunks.size();) {
      const OptimTensor& t = step.tensors[chunks[c].i];
      if (t.dtype == kFloat32) update_chunk<float>(step.update, t, chunks[c].begin, chunks[c].end);
      else update_chunk<double>(step.update, t, chunks[c].begin, chunks[c].end);
    }
  });
}

const bool registered = [] {
  kernels::optim_step.set(DeviceType::CPU, cpu_optim_step);
  return true;
}();

}  // namespace
}  // namespace ember::optim
