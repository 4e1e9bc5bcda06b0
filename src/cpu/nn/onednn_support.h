// What Ember's oneDNN kernels share (conv_onednn.cpp, eval_chain_onednn.cpp, train_chain_onednn.cpp,
// ../gemm_bf16.cpp): the engine, the thread split that keeps oneDNN off its own OpenMP team, user scratchpads,
// reorders, and caches of primitives and reordered weights.
#pragma once
#include <algorithm>
#include <map>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>
#include <dnnl.hpp>

#include "ember/parallel.h"
#include "ember/tensor.h"
#include "../single_omp_thread.h"

namespace ember::cpu::onednn {

using dnnl::memory;
using Tag = memory::format_tag;

dnnl::engine& cpu_engine();

// Runs fn(first, count, part) over `parts` parts of [0, size) in steps of `unit`, one per Ember thread, each with
// oneDNN on one OpenMP thread: oneDNN never starts an OpenMP team, so no OpenMP threads spin beside Ember's pool
// (measured: an idle team's spinning made a following max_pool2d of a 1x64x32x32 conv output take 60 ms, not 0.1).
template <typename Fn>
void over_parts(int64_t size, int64_t unit, Fn&& fn) {
  const int64_t units = (size + unit - 1) / unit, parts = std::min<int64_t>(get_num_threads(), units);
  parallel_for(0, parts, 1, [&](int64_t p0, int64_t p1) {
    SingleOmpThread one_thread;
    for (int64_t p = p0; p < p1; ++p) {
      int64_t first = p * units / parts * unit, end = std::min(size, (p + 1) * units / parts * unit);
      fn(first, end - first, p);
    }
  });
}

// Over the batch (a batch smaller than the pool runs whole, on one thread).
template <typename Fn>
void over_batch(int64_t batch, Fn&& fn) {
  if (batch < get_num_threads()) {
    SingleOmpThread one_thread;
    return fn(int64_t(0), batch, int64_t(0));
  }
  over_parts(batch, 1, fn);
}

memory::dims dims_of(const Tensor& t);
// A float32 tensor as it lies in memory (a chunk of a batch or of channels is a strided view).
memory::desc strided_desc(const Tensor& t);
memory::desc plain_desc(const memory::dims& dims);
memory::desc any_desc(const memory::dims& dims);

// Primitives take their scratchpad from us: oneDNN's shared library scratchpad is unsafe when primitives run
// concurrently, as the batch chunks do.
const dnnl::primitive_attr& user_scratchpad();

// Executes p on args plus a scratchpad (`scratch`, from Ember's allocator); CPU execution returns when done.
void run(const dnnl::primitive& p, const memory::desc& scratch, std::unordered_map<int, memory> args,
         dnnl::stream& stream);
void reorder(memory from, memory to, dnnl::stream& stream);

// A primitive and the layouts it wants its arguments in, cached by kind and shape key.
struct Cached {
  dnnl::primitive primitive;
  std::map<int, memory::desc> wanted;
  memory::desc scratchpad;
  bool reference = false;  // oneDNN's reference implementation (no jit kernel for the layouts)
};

// Shared, so a caller keeps its primitive while another thread clears a full cache (many shapes: a varying batch).
template <typename Make>
std::shared_ptr<const Cached> cached_primitive(int kind, const std::vector<int64_t>& key, Make make) {
  static std::mutex mutex;
  static std::map<std::pair<int, std::vector<int64_t>>, std::shared_ptr<const Cached>> cache;
  std::lock_guard lock(mutex);
  auto it = cache.find({kind, key});
  if (it != cache.end()) return it->second;
  if (cache.size() >= 512) cache.clear();
  return cache.emplace(std::pair{kind, key}, std::make_shared<const Cached>(make())).first->second;
}

// The kinds of cached primitives.
enum Kind { Forward, BackwardData, BackwardWeights, FusedForward, MaxPoolForward, TrainForward, TrainBackwardData,
            TrainBackwardWeights, Matmul };

// `w` (given as `given`) in layout `want`, reordered once and kept while the tensor's storage, offset and version
// are unchanged.
memory cached_weights(memory given, const Tensor& w, const memory::desc& want, dnnl::stream& stream);

}  // namespace ember::cpu::onednn
