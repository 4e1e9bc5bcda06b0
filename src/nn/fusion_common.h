// What Sequential's fused paths (eval_fusion.cpp, train_fusion.cpp) share: matching exact built-in modules and sizing
// their windows.
#pragma once
#include <typeinfo>

#include "ember/nn/module.h"

namespace ember::nn::fusion {

// m if it is exactly a T (not a subclass) called without hooks.
template <typename T>
T* plain(const ModulePtr& m) {
  if (!m || typeid(*m) != typeid(T) || m->has_forward_hooks() || m->uses_call_override()) return nullptr;
  return static_cast<T*>(m.get());
}

inline bool float32(const Tensor& t) { return t.defined() && t.dtype() == kFloat32 && t.device().is_cpu(); }
inline bool needs_grad(const Tensor& t) { return t.defined() && t.requires_grad(); }
inline bool float32_or_none(const Tensor& t) { return !t.defined() || float32(t); }

// The output size along one dim of a convolution or pooling window (torch's pooling_output_shape with ceil_mode).
inline int64_t window_out(int64_t in, int64_t k, int64_t s, int64_t p, int64_t d, bool ceil_mode) {
  int64_t span = in + 2 * p - d * (k - 1) - 1;
  if (span < 0) return 0;
  int64_t out = (span + (ceil_mode ? s - 1 : 0)) / s + 1;
  if (ceil_mode && (out - 1) * s >= in + p) --out;
  return out;
}

}  // namespace ember::nn::fusion
