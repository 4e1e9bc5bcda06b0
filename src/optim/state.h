// Per-parameter optimizer state the step files share: lazily made entries and torch's float32 step counters.
#pragma once
#include <string>
#include <variant>

#include "ember/creation.h"
#include "ember/optim/optimizer.h"

namespace ember::optim::detail {

// A state entry, made by `make` the first time.
template <typename Make>
Tensor& lazy(Dict& s, const std::string& key, Make&& make) {
  Value& v = s[key];
  if (!std::holds_alternative<Tensor>(v)) v = make();
  return std::get<Tensor>(v);
}
inline Tensor zero_step() { return zeros({}, TensorOptions(kFloat32).device(kCPU)); }  // on the CPU, as torch

// Increments a parameter's step counter (a one-element float32 tensor, as torch) and returns it.
inline double bump_step(const Tensor& step) {
  EMBER_CHECK(step.numel() == 1 && step.dtype() == kFloat32 && step.device().is_cpu(), Error,
              "optimizer: 'step' must be a one-element float32 CPU tensor");
  float& s = *step.data_ptr<float>();
  s += 1;
  step.bump_version();
  return s;
}

}  // namespace ember::optim::detail
