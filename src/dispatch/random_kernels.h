// Counter-based random fills for devices (the CPU draws from its mt19937 in src/ops/random.cpp): element i of a
// contiguous tensor gets a draw from Philox4x32-10 keyed by the generator's seed at counter offset + i, so a seed
// gives the same numbers on every run, whatever the launch geometry.
#pragma once
#include <cstdint>
#include <utility>

#include "kernel_table.h"
#include "ember/tensor.h"

namespace ember {

enum class RandomDist {
  Uniform,    // [p0, p1): 24 random bits (53 for float64), as the CPU
  Normal,     // mean p0, std p1: Box-Muller
  Bernoulli,  // p1 where a 53-bit uniform is below p0, else 0 (dropout's scaled noise)
  Integer,    // from + r mod range, r 64 random bits
};

struct RandomDraw {
  RandomDist dist = RandomDist::Uniform;
  double p0 = 0, p1 = 0;
  int64_t from = 0;
  uint64_t range = 0;
  uint64_t seed = 0, offset = 0;
  // Under a graph capture: the device's {seed, base offset}, written before each replay; `offset` counts from it.
  const uint64_t* philox_args = nullptr;
};

class Generator;

// Fills `self` on its device from the default generator: a Philox draw at the generator's device offset, which it
// advances. False, doing nothing, for a CPU tensor or an explicit generator (those draw from the CPU's mt19937).
bool draw_on_device(const Tensor& self, Generator* gen, RandomDraw draw);

// Graph captures of device draws (src/cuda/graph.cpp). While a capture of `stream` on `device` is registered, draws
// queued there read seed and base offset from `philox_args` (device memory) and take offsets 0, 1, ... after it,
// leaving the generator alone; end_random_capture returns how many the capture took.
void begin_random_capture(int device, uintptr_t stream, const uint64_t* philox_args);
uint64_t end_random_capture(int device, uintptr_t stream);
// For one replay: the default generator's seed and device offset, which then moves past the n offsets it takes.
std::pair<uint64_t, uint64_t> reserve_device_offsets(uint64_t n);

namespace kernels {
using RandomFillFn = void (*)(const Tensor& dst, const RandomDraw& draw);
extern KernelTable<RandomFillFn> random_fill;
}  // namespace kernels

}  // namespace ember
