// Tensor creation: empty, zeros, ones, full, arange, linspace, eye, *_like, from data.
#pragma once
#include <initializer_list>
#include <optional>
#include <vector>

#include "ember/tensor.h"

namespace ember {

Tensor empty(IntArrayRef sizes, const TensorOptions& options = {});
Tensor empty(IntArrayRef sizes, const TensorOptions& options, MemoryFormat format);
Tensor empty_strided(IntArrayRef sizes, IntArrayRef strides, const TensorOptions& options = {});
Tensor zeros(IntArrayRef sizes, const TensorOptions& options = {});
Tensor ones(IntArrayRef sizes, const TensorOptions& options = {});
// dtype defaults to the one the fill value implies (bool, int64 or the default float).
Tensor full(IntArrayRef sizes, const Scalar& fill_value, const TensorOptions& options = {});

Tensor empty_like(const Tensor& t, const TensorOptions& options);
Tensor empty_like(const Tensor& t);
// Preserve: t's strides when t is dense, else dense strides in t's dim order (torch's empty_like).
Tensor empty_like(const Tensor& t, const TensorOptions& options, MemoryFormat format);
Tensor zeros_like(const Tensor& t, std::optional<ScalarType> dtype = std::nullopt);
Tensor ones_like(const Tensor& t, std::optional<ScalarType> dtype = std::nullopt);
Tensor full_like(const Tensor& t, const Scalar& fill_value, std::optional<ScalarType> dtype = std::nullopt);

// arange infers int64 when start, end and step are all integers.
Tensor arange(const Scalar& end, const TensorOptions& options = {});
Tensor arange(const Scalar& start, const Scalar& end, const Scalar& step = 1,
              const TensorOptions& options = {});
Tensor linspace(const Scalar& start, const Scalar& end, int64_t steps, const TensorOptions& options = {});
Tensor logspace(const Scalar& start, const Scalar& end, int64_t steps, double base = 10.0,
                const TensorOptions& options = {});
Tensor eye(int64_t n, std::optional<int64_t> m = std::nullopt, const TensorOptions& options = {});

// Builds a tensor that owns a copy of `values`, shaped `sizes`.
template <typename T>
Tensor tensor(const std::vector<T>& values, IntArrayRef sizes, const TensorOptions& options = {});
template <typename T>
Tensor tensor(std::initializer_list<T> values, const TensorOptions& options = {}) {
  std::vector<T> v(values);
  int64_t n = int64_t(v.size());
  return tensor(v, IntArrayRef(&n, 1), options);
}
Tensor scalar_tensor(const Scalar& value, const TensorOptions& options = {});

// A tensor over memory the caller keeps alive (or frees through `deleter(ctx)`).
Tensor from_blob(void* data, IntArrayRef sizes, IntArrayRef strides, ScalarType dtype,
                 Device device = kCPU, void* ctx = nullptr, DataPtr::Deleter deleter = nullptr);

}  // namespace ember
