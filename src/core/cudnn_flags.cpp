// The cuDNN switches (include/ember/cudnn.h), read by the CUDA backend's convolutions as they choose algorithms.
#include <atomic>

#include "ember/cudnn.h"

namespace ember::cudnn {

namespace {
std::atomic<bool> g_cudnn_tf32{true}, g_benchmark{false}, g_deterministic{false};
}  // namespace

bool allow_tf32() { return g_cudnn_tf32.load(std::memory_order_relaxed); }
void set_allow_tf32(bool allow) { g_cudnn_tf32.store(allow, std::memory_order_relaxed); }
bool benchmark() { return g_benchmark.load(std::memory_order_relaxed); }
void set_benchmark(bool benchmark) { g_benchmark.store(benchmark, std::memory_order_relaxed); }
bool deterministic() { return g_deterministic.load(std::memory_order_relaxed); }
void set_deterministic(bool deterministic) { g_deterministic.store(deterministic, std::memory_order_relaxed); }

}  // namespace ember::cudnn
