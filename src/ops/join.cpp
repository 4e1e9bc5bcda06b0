// Joining tensors: cat and stack (results are contiguous, or channels-last when all inputs are, as torch;
// inputs promote to one dtype).
#include <algorithm>

#include "../core/autocast_policy.h"
#include "../autograd/formulas.h"
#include "ember/creation.h"
#include "ember/layout.h"
#include "ember/ops.h"
#include "ember/quantized.h"
#include "ember/type_promotion.h"

namespace ember {

namespace {

Tensor cat_impl(std::span<const Tensor> tensors, int64_t dim) {
  EMBER_CHECK(!tensors.empty(), ValueError, "torch.cat(): expected a non-empty list of Tensors");
  auto quantized = [](const Tensor& t) { return t.is_quantized(); };
  if (std::ranges::any_of(tensors, quantized)) return quantized_cat(tensors, dim);
  // torch skips legacy empty 1-D tensors of shape [0] when other inputs have a different rank.
  const Tensor* ref = nullptr;
  for (const Tensor& t : tensors) {
    if (!(t.dim() == 1 && t.numel() == 0)) { ref = &t; break; }
  }
  for (size_t i = 0; i < tensors.size(); ++i) {
    EMBER_CHECK(tensors[i].dim() > 0, Error, "zero-dimensional tensor (at position ", i, ") cannot be concatenated");
  }
  // all of them skipped: an empty result, whatever `dim` says, as torch
  if (!ref) return empty({0}, tensors[0].options().with_dtype(result_type(tensors)));
  int64_t d = wrap_dim(dim, ref->dim());
  DimVector shape(ref->sizes());
  shape[size_t(d)] = 0;
  for (size_t i = 0; i < tensors.size(); ++i) {
    const Tensor& t = tensors[i];
    if (t.dim() == 1 && t.numel() == 0 && ref->dim() != 1) continue;
    EMBER_CHECK(t.dim() == ref->dim(), Error, "Tensors must have same number of dimensions: got ", ref->dim(), " and ",
                t.dim());
    for (int64_t k = 0; k < t.dim(); ++k) {
      EMBER_CHECK(k == d || t.sizes()[size_t(k)] == ref->sizes()[size_t(k)], Error, "Sizes of tensors must match except in "
                  "dimension ", d, ". Expected size ", ref->sizes()[size_t(k)], " but got size ", t.sizes()[size_t(k)],
                  " for tensor number ", i, " in the list.");
    }
    shape[size_t(d)] += t.sizes()[size_t(d)];
  }
  TensorOptions options = ref->options().with_dtype(result_type(tensors));
  bool channels_last = std::all_of(tensors.begin(), tensors.end(), [](const Tensor& t) {
    return is_channels_last_like(t.sizes(), t.strides());
  });
  Tensor out = channels_last ? empty_strided(shape, channels_last_strides(shape), options) : empty(shape, options);
  int64_t offset = 0;
  for (const Tensor& t : tensors) {
    if (t.dim() == 1 && t.numel() == 0 && ref->dim() != 1) continue;
    int64_t n = t.sizes()[size_t(d)];
    out.narrow(d, offset, n).copy_(t);
    offset += n;
  }
  return out;
}

}  // namespace

Tensor cat(std::span<const Tensor> tensors, int64_t dim) {
  EMBER_AUTOCAST(promote, kBoth, cat, tensors, dim);
  Tensor out = autograd::untracked([&] { return cat_impl(tensors, dim); });
  // inputs that are all legacy empty 1-D tensors: dim is never wrapped, their gradients split along dim 0
  bool legacy_skipped = std::all_of(tensors.begin(), tensors.end(), [](const Tensor& t) {
    return t.dim() == 1 && t.numel() == 0;
  });
  if (autograd::is_grad_enabled()) {
    for (const Tensor& t : tensors) {
      if (t.requires_grad()) {
        autograd::record_cat(out, tensors, legacy_skipped ? 0 : wrap_dim(dim, out.dim()));
        break;
      }
    }
  }
  return out;
}

Tensor stack(std::span<const Tensor> tensors, int64_t dim) {
  EMBER_AUTOCAST(promote, kBoth, stack, tensors, dim);
  EMBER_CHECK(!tensors.empty(), Error, "stack expects a non-empty TensorList");
  int64_t d = wrap_dim(dim, tensors[0].dim() + 1);  // before the sizes, as torch
  for (size_t i = 1; i < tensors.size(); ++i) {
    EMBER_CHECK(std::equal(tensors[i].sizes().begin(), tensors[i].sizes().end(), tensors[0].sizes().begin(),
                           tensors[0].sizes().end()),
                Error, "stack expects each tensor to be equal size, but got ", int_list(tensors[0].sizes()),
                " at entry 0 and ", int_list(tensors[i].sizes()), " at entry ", i);
  }
  Tensor out = autograd::untracked([&] {
    if (d < tensors[0].dim()) {  // torch: a cat along d split by a view, so the layout is cat's
      DimVector sizes(tensors[0].sizes());
      sizes.insert(size_t(d), int64_t(tensors.size()));
      return cat_impl(tensors, d).view(sizes);
    }
    std::vector<Tensor> expanded;
    for (const Tensor& t : tensors) expanded.push_back(t.unsqueeze(d));
    return cat_impl(expanded, d);
  });
  if (autograd::is_grad_enabled()) {
    for (const Tensor& t : tensors) {
      if (t.requires_grad()) {
        autograd::record_stack(out, tensors, d);
        break;
      }
    }
  }
  return out;
}

namespace {

// out= of a join: the result written into out, resized as torch's out= tensors are.
Tensor& join_out(Tensor& out, const Tensor& result, const char* name) {
  EMBER_CHECK(can_cast(result.dtype(), out.dtype()), TypeError, "torch.", name, "(): input types can't be cast to the "
              "desired output type ", legacy_name(out.dtype()));
  resize_output(out, result.sizes());
  return out.copy_(result);
}

}  // namespace

Tensor& cat_out(Tensor& out, std::span<const Tensor> tensors, int64_t dim) { return join_out(out, cat(tensors, dim), "cat"); }
Tensor& stack_out(Tensor& out, std::span<const Tensor> tensors, int64_t dim) {
  return join_out(out, stack(tensors, dim), "stack");
}

}  // namespace ember
