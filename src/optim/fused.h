// Shared pieces of the fused optimizer steps: checks, the chunked parallel loop, float dispatch.
#pragma once
#include <algorithm>
#include <atomic>
#include <type_traits>
#include <vector>

#include "ember/errors.h"
#include "ember/parallel.h"
#include "ember/tensor.h"

namespace ember::optim::detail {

inline constexpr int64_t kChunk = 1 << 15;  // elements per task: a few L2-sized slices of each stream

// Checks one state tensor against its parameter: same dtype, shape, contiguous CPU storage.
inline void check_like(const Tensor& t, const Tensor& param, const char* what, size_t i) {
  EMBER_CHECK(t.defined(), Error, "optimizer: ", what, " of parameter ", i, " is missing");
  EMBER_CHECK(t.device().is_cpu() && param.device().is_cpu(), NotImplementedError,
              "optimizer: fused step runs on CPU tensors only");
  EMBER_CHECK(t.dtype() == param.dtype() && std::ranges::equal(t.sizes(), param.sizes()), Error, "optimizer: ", what,
              " of parameter ", i, " has dtype ", t.dtype(), " and shape ", t.sizes(), " but the parameter has ",
              param.dtype(), " and ", param.sizes());
  EMBER_CHECK(t.is_contiguous(), Error, "optimizer: ", what, " of parameter ", i, " is not contiguous");
}

// The parameter's dtype as a C++ type: float or double.
template <typename Fn>
void visit_float(const Tensor& p, Fn&& fn) {
  if (p.dtype() == kFloat32) fn(float{});
  else if (p.dtype() == kFloat64) fn(double{});
  else throw NotImplementedError(str("optimizer: fused step supports float32 and float64 parameters, got ", p.dtype()));
}

// Calls fn with each runtime flag as a std::bool_constant, so a loop specialised on them has no branches
// (and vectorises): static_flags(fn, a, b) calls fn(bool_constant<a>{}, bool_constant<b>{}).
template <typename Fn>
void static_flags(Fn&& fn) {
  fn();
}
template <typename Fn, typename... Rest>
void static_flags(Fn&& fn, bool flag, Rest... rest) {
  auto bind = [&]<bool B>(std::bool_constant<B> b) {
    static_flags([&](auto... more) { fn(b, more...); }, rest...);
  };
  if (flag) bind(std::true_type{});
  else bind(std::false_type{});
}

// Runs fn(i, begin, end) over all parameters in chunks, in parallel when the step is large (GIL
// released), then bumps the version of every tensor in `written` (the step wrote them in place).
template <typename Fn>
void for_each_chunk(const std::vector<Tensor>& params, std::initializer_list<const std::vector<Tensor>*> written,
                    Fn&& fn) {
  struct Chunk { size_t i; int64_t begin, end; };
  std::vector<Chunk> chunks;
  int64_t total = 0;
  for (size_t i = 0; i < params.size(); ++i) {
    for (int64_t b = 0; b < params[i].numel(); b += kChunk) chunks.push_back({i, b, std::min(b + kChunk, params[i].numel())});
    total += params[i].numel();
  }
  {
    // Threads claim chunks as they go, so a thread the OS holds back (a loaded machine) delays no one.
    const bool parallel = total >= kUnlockElements && chunks.size() > 1;
    Unlocked unlocked(parallel);
    std::atomic<size_t> next = 0;
    parallel_for(0, parallel ? get_num_threads() : 1, 1, [&](int64_t, int64_t) {
      for (size_t c; (c = next.fetch_add(1, std::memory_order_relaxed)) < chunks.size();)
        fn(chunks[c].i, chunks[c].begin, chunks[c].end);
    });
  }
  for (const Tensor& p : params) p.bump_version();
  for (const std::vector<Tensor>* ts : written)
    for (const Tensor& t : *ts)
      if (t.defined()) t.bump_version();
}

}  // namespace ember::optim::detail
