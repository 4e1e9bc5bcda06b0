#include "tensor_iterator.h"

#include <algorithm>

#include "ember/sparse.h"
#include "ember/autograd.h"
#include "ember/creation.h"
#include "ember/layout.h"
#include "ember/type_promotion.h"

namespace ember {

Device common_device(std::span<const Tensor> inputs, const Tensor& out) {
  auto on_cpu = [](const Tensor& t) { return t.device().is_cpu(); };
  if (std::all_of(inputs.begin(), inputs.end(), on_cpu) && (!out.defined() || on_cpu(out))) return kCPU;  // the usual case
  const Tensor* first = nullptr;
  for (const Tensor& t : inputs) {
    if (t.device().is_cpu() && t.dim() == 0) continue;
    if (!first) {
      first = &t;
    } else if (t.device() != first->device()) {
      throw Error(str("Expected all tensors to be on the same device, but found at least two devices, ",
                      first->device().str(), " and ", t.device().str(), "!"));
    }
  }
  Device device = first ? first->device() : out.defined() ? out.device() : inputs.empty() ? kCPU : inputs[0].device();
  if (out.defined() && out.device() != device) {
    throw Error(str("Expected all tensors to be on the same device, but found at least two devices, ",
                    device.str(), " and ", out.device().str(), "!"));
  }
  return device;
}

TensorIterator::TensorIterator(const Tensor& out, std::span<const Tensor> inputs, ElementwiseConfig config) {
  autograd::GradModeGuard untracked(false);  // the op records itself; its casts and expands must not
  DimVector shape;
  for (const Tensor& t : inputs) {
    if (t.has_sparse_layout()) [[unlikely]] throw_sparse_unsupported(t);
    shape = broadcast_shapes(shape, t.sizes());
  }
  if (out.defined() && out.has_sparse_layout()) [[unlikely]] throw_sparse_unsupported(out);
  Device device = common_device(inputs, out);
  common_ = result_type(inputs);
  // A quantized op is refused here, but with a number operand torch first converts the number to the quantized
  // dtype, which raises its RuntimeError (the conversion below does the same).
  bool number = std::ranges::any_of(inputs, [](const Tensor& t) { return t.impl()->is_wrapped_number; });
  if (is_quantized(common_) && !number) [[unlikely]] throw_quantized_unsupported(common_);
  if (config.int_to_float && !is_floating_point(common_)) common_ = default_dtype();
  ScalarType result_dtype = config.bool_output ? kBool : common_;

  bool all_contiguous = true, same_shape = true;
  inputs_.reserve(inputs.size());
  for (const Tensor& t : inputs) {
    Tensor converted = t.dtype() == common_ ? t : t.to(common_);
    bool full = std::equal(t.sizes().begin(), t.sizes().end(), shape.begin(), shape.end());
    same_shape &= full;
    all_contiguous &= full && converted.is_contiguous();
    inputs_.push_back(full ? converted : broadcast_operand(converted, shape));
  }
  all_contiguous |= config.contiguous_output;  // then the output is allocated contiguous

  if (!out.defined()) {
    TensorOptions options = TensorOptions(result_dtype).with_device(device);
    out_ = all_contiguous ? empty(shape, options) : empty_strided(shape, fresh_strides(shape, same_shape), options);
    compute_out_ = out_;
    return;
  }
  out_ = out;
  check_result_fits_output(result_dtype, out.dtype());
  if (!std::equal(out.sizes().begin(), out.sizes().end(), shape.begin(), shape.end())) {
    // An in-place op cannot change its tensor's shape; a separate out= tensor is resized as in torch.
    bool in_place = std::any_of(inputs.begin(), inputs.end(), [&](const Tensor& t) { return t.is_same(out); });
    EMBER_CHECK(!in_place, Error, "output with shape ", int_list(out.sizes()), " doesn't match the broadcast shape ",
                int_list(shape));
    resize_output(out_, shape);
    if (!all_contiguous) {  // a resized output takes the layout a fresh one would have, as in torch
      out_.impl()->strides = fresh_strides(shape, same_shape);
      out_.impl()->refresh_metadata();
    }
  }
  check_no_internal_overlap(out);
  for (const Tensor& t : inputs) check_no_partial_overlap(out, t);
  compute_out_ = out.dtype() == result_dtype ? out : empty_like(out, out.options().with_dtype(result_dtype));
  out.bump_version();
}

DimVector TensorIterator::fresh_strides(IntArrayRef shape, bool same_shape) const {
  return elementwise_strides(shape, inputs_, same_shape);
}

Tensor TensorIterator::finish() {
  if (!compute_out_.is_same(out_)) out_.copy_(compute_out_);
  return out_;
}

Tensor in_elementwise_layout(const Tensor& r, std::span<const Tensor> inputs) {
  bool contiguous = std::all_of(inputs.begin(), inputs.end(), [&](const Tensor& t) {
    return t.is_contiguous() && std::equal(t.sizes().begin(), t.sizes().end(), r.sizes().begin(), r.sizes().end());
  });
  if (contiguous && r.is_contiguous()) return r;
  Tensor out = TensorIterator({}, inputs).output();
  if (std::equal(out.strides().begin(), out.strides().end(), r.strides().begin(), r.strides().end())) return r;
  autograd::GradModeGuard untracked(false);
  Tensor laid_out = empty_strided(r.sizes(), out.strides(), r.options());
  laid_out.copy_(r);
  return laid_out;
}

}  // namespace ember
