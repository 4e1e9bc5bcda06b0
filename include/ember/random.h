// Random numbers: a Generator (mt19937, the same stream as torch's CPU generator) and sampling ops.
#pragma once
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <random>

#include "ember/tensor.h"

namespace ember {

struct GeneratorState {
  std::mutex mutex;
  std::mt19937 engine;
  uint64_t seed = 0;
  std::optional<double> next_double_normal;  // Box-Muller's cached second sample
  std::optional<float> next_float_normal;
  uint64_t device_offset = 0;  // device draws: Philox keyed by `seed`, at this counter (advanced by each draw)
};

class Generator {
 public:
  explicit Generator(uint64_t seed = 67280421310721ULL);
  void manual_seed(uint64_t seed);
  uint64_t initial_seed() const { return state_->seed; }
  uint64_t seed();  // reseeds from a non-deterministic source, returns the seed
  Tensor get_state() const;
  void set_state(const Tensor& state);
  GeneratorState& state() const { return *state_; }
  bool operator==(const Generator& o) const { return state_ == o.state_; }

 private:
  std::shared_ptr<GeneratorState> state_;
};

Generator& default_generator();

// While in scope, default_generator() on this thread is `gen`: a C++ DataLoader worker thread's own generator,
// as each torch worker process has its own default generator.
class DefaultGeneratorGuard {
 public:
  explicit DefaultGeneratorGuard(Generator& gen);
  ~DefaultGeneratorGuard();
  DefaultGeneratorGuard(const DefaultGeneratorGuard&) = delete;
  DefaultGeneratorGuard& operator=(const DefaultGeneratorGuard&) = delete;

 private:
  Generator* previous_;
};
void manual_seed(uint64_t seed);
uint64_t initial_seed();

Tensor rand(IntArrayRef sizes, const TensorOptions& options = {}, Generator* gen = nullptr);
Tensor randn(IntArrayRef sizes, const TensorOptions& options = {}, Generator* gen = nullptr);
Tensor randint(int64_t low, int64_t high, IntArrayRef sizes, const TensorOptions& options = {},
               Generator* gen = nullptr);
Tensor randperm(int64_t n, const TensorOptions& options = {}, Generator* gen = nullptr);
Tensor normal(double mean, double std, IntArrayRef sizes, const TensorOptions& options = {},
              Generator* gen = nullptr);

// In-place samplers on an existing tensor.
Tensor& uniform_(Tensor& self, double from = 0.0, double to = 1.0, Generator* gen = nullptr);
Tensor& normal_(Tensor& self, double mean = 0.0, double std = 1.0, Generator* gen = nullptr);
Tensor& random_(Tensor& self, int64_t from, int64_t to, Generator* gen = nullptr);

}  // namespace ember
