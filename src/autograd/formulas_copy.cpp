// Derivatives of the copies and writes (src/ops/copy.cpp): conversions pass the gradient through, an overwritten
// tensor's old values get none, a filled-in 0-dim value gets the sum.
#include "ember/creation.h"
#include "ember/reduce.h"
#include "formulas.h"

namespace ember::autograd {

void record_copy(const char* name, const Tensor& out, const Tensor& input) {
  record(name, out, {&input}, {}, [](const BackwardContext& c) { return c.grads; });
}

void record_overwrite(const char* name, const Tensor& result, const Tensor& self) {
  record(name, result, {&self}, {}, [](const BackwardContext& c) { return TensorList{zeros_like(c.grads[0])}; });
}

void record_copy_into(const Tensor& result, const Tensor& self, const Tensor& src) {
  DimVector src_sizes(src.sizes());
  ScalarType src_dtype = src.dtype();
  record("torch::autograd::CopyBackwards", result, {&self, &src}, {}, [src_sizes, src_dtype](const BackwardContext& c) {
    return TensorList{zeros_like(c.grads[0]), sum_to(c.grads[0], src_sizes).to(src_dtype)};
  });
}

void record_fill(const Tensor& result, const Tensor& self, const Tensor& value) {
  record("FillBackward3", result, {&self, &value}, {}, [](const BackwardContext& c) {
    return TensorList{zeros_like(c.grads[0]), sum(c.grads[0])};
  });
}

}  // namespace ember::autograd
