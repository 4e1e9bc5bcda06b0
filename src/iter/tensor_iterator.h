// The tensor iterator: solves broadcasting, type promotion, output layout and aliasing once for
// every elementwise op. Kernels then see operands of one dtype, expanded to one shape.
#pragma once
#include <span>
#include <vector>

#include "strided_plan.h"
#include "ember/tensor.h"

namespace ember {

struct ElementwiseConfig {
  bool bool_output = false;   // comparisons: the output is bool, inputs promote among themselves
  bool int_to_float = false;  // true division: integer inputs compute in the default float dtype
  bool contiguous_output = false;  // a fresh output is contiguous whatever the inputs' layout (pow(number, t))
};

class TensorIterator {
 public:
  // `out` may be undefined (a new output of torch's layout is allocated) or the out=/in-place target.
  TensorIterator(const Tensor& out, std::span<const Tensor> inputs, ElementwiseConfig config = {});

  ScalarType common_dtype() const { return common_; }
  const Tensor& output() const { return compute_out_; }
  const Tensor& input(size_t i) const { return inputs_[i]; }
  size_t ninputs() const { return inputs_.size(); }
  int64_t numel() const { return compute_out_.numel(); }
  DeviceType device_type() const { return compute_out_.device().type; }

  // The output followed by the inputs, planned for a strided pass.
  template <int N>
  StridedPlan<N> plan() const {
    std::array<IntArrayRef, N> strides;
    std::array<int64_t, N> itemsize;
    std::array<char*, N> base;
    for (int k = 0; k < N; ++k) {
      const Tensor& t = k == 0 ? compute_out_ : inputs_[size_t(k - 1)];
      strides[k] = t.strides();
      itemsize[k] = int64_t(t.element_size());
      base[k] = static_cast<char*>(t.data_ptr());
    }
    return make_plan<N>(compute_out_.sizes(), strides, itemsize, base);
  }

  // After the kernel ran: copies into `out` when it needed a dtype conversion; returns the result.
  Tensor finish();

 private:
  // Strides of a fresh output: dense, in the inputs' memory order (torch's fast setups when no input broadcasts).
  DimVector fresh_strides(IntArrayRef shape, bool same_shape) const;
  Tensor out_;          // what the caller gets (given or allocated)
  Tensor compute_out_;  // what kernels write: out_, or a temporary of the computed dtype
  std::vector<Tensor> inputs_;
  ScalarType common_;
};

// The device an elementwise op runs on: its tensors' one device, where a CPU 0-dim tensor (a wrapped number)
// joins any device, as in torch; an out= tensor (if defined) must be on it too.
Device common_device(std::span<const Tensor> inputs, const Tensor& out = {});

// `r`, an elementwise result composed of several ops, in the layout one TensorIterator over `inputs` would give
// it (torch computes clamp and lerp in one pass); copied only when the layouts differ.
Tensor in_elementwise_layout(const Tensor& r, std::span<const Tensor> inputs);

}  // namespace ember
