#include "tensor_iterator.h"

#include <algorithm>

#include "ember/creation.h"
#include "ember/layout.h"
#include "ember/type_promotion.h"

namespace ember {

namespace {

IntList list(IntArrayRef r) { return {r.data(), r.size()}; }

}  // namespace

TensorIterator::TensorIterator(const Tensor& out, std::span<const Tensor> inputs, ElementwiseConfig config) {
  DimVector shape;
  for (const Tensor& t : inputs) shape = broadcast_shapes(shape, t.sizes());
  common_ = result_type(inputs);
  if (config.int_to_float && !is_floating_point(common_)) common_ = default_dtype();
  ScalarType result_dtype = config.bool_output ? kBool : common_;

  bool all_contiguous = true;
  inputs_.reserve(inputs.size());
  for (const Tensor& t : inputs) {
    Tensor converted = t.dtype() == common_ ? t : t.to(common_);
    bool full = std::equal(t.sizes().begin(), t.sizes().end(), shape.begin(), shape.end());
    all_contiguous &= full && converted.is_contiguous();
    inputs_.push_back(full ? converted : converted.expand(shape));
  }

  if (!out.defined()) {
    TensorOptions options = TensorOptions(result_dtype).with_device(inputs.empty() ? kCPU : inputs[0].device());
    std::vector<IntArrayRef> strides;
    for (const Tensor& t : inputs_) strides.push_back(t.strides());
    out_ = all_contiguous ? empty(shape, options) : empty_strided(shape, infer_dense_strides(shape, strides), options);
    compute_out_ = out_;
    return;
  }
  out_ = out;
  EMBER_CHECK(std::equal(out.sizes().begin(), out.sizes().end(), shape.begin(), shape.end()), Error,
              "output with shape ", list(out.sizes()), " doesn't match the broadcast shape ", list(shape));
  EMBER_CHECK(can_cast(result_dtype, out.dtype()), Error, "result type ", dtype_info(result_dtype).legacy_name,
              " can't be cast to the desired output type ", dtype_info(out.dtype()).legacy_name);
  check_no_internal_overlap(out);
  for (const Tensor& t : inputs) {
    EMBER_CHECK(overlap(out, t) != Overlap::Partial, Error,
                "unsupported operation: some elements of the input tensor and the written-to tensor refer to a "
                "single memory location. Please clone() the tensor before performing the operation.");
  }
  compute_out_ = out.dtype() == result_dtype ? out : empty_like(out, TensorOptions(result_dtype));
}

Tensor TensorIterator::finish() {
  if (!compute_out_.is_same(out_)) out_.copy_(compute_out_);
  return out_;
}

}  // namespace ember
