// Creation ops: empty, zeros, ones, full, arange, linspace, logspace, eye, *_like, from data.
#include "ember/sparse.h"
#include "ember/creation.h"

#include <algorithm>
#include <cmath>

#include "ember/layout.h"
#include "ember/parallel.h"
#include "../dispatch/kernels.h"

namespace ember {

namespace {

Tensor finish(Tensor t, const TensorOptions& options) {
  if (options.requires_grad()) t.requires_grad_(true);
  return t;
}

// The ops that compute their values on the host make them on the CPU; this moves them to options' device.
Tensor finish_host(const Tensor& t, const TensorOptions& options) { return finish(t.to(options.device()), options); }

template <typename Fn>
void fill_with(Tensor& t, Fn&& value_at) {
  visit_dtype(t.dtype(), [&]<typename T>(T) {
    T* p = t.data_ptr<T>();
    for (int64_t i = 0, n = t.numel(); i < n; ++i) p[i] = value_at.template operator()<T>(i);
  });
}

// As torch: a negative size is reported before an overflowing storage size.
void check_size_nonnegative(IntArrayRef sizes) {
  if (std::any_of(sizes.begin(), sizes.end(), [](int64_t s) { return s < 0; })) checked_numel(sizes);  // raises
}

// Device memory, or page-locked host memory for pin_memory=True.
Storage allocate_storage(size_t nbytes, const TensorOptions& options) {
  if (!options.pinned_memory()) return Storage::allocate(nbytes, options.device());
  EMBER_CHECK(options.device().is_cpu(), Error, "Only dense CPU tensors can be pinned");
  return Storage::allocate_pinned(nbytes);
}

}  // namespace

Tensor empty(IntArrayRef sizes, const TensorOptions& options) {
  check_size_nonnegative(sizes);
  ScalarType dtype = options.dtype_or_default();
  size_t nbytes = storage_nbytes(sizes, element_size(dtype));
  DimVector strides = contiguous_strides(sizes);
  Storage storage = allocate_storage(nbytes, options);
  return finish(Tensor::make(std::move(storage), DimVector(sizes), std::move(strides), 0, dtype), options);
}

Tensor empty(IntArrayRef sizes, const TensorOptions& options, MemoryFormat format) {
  if (format == MemoryFormat::Contiguous) return empty(sizes, options);
  check_size_nonnegative(sizes);
  return empty_strided(sizes, memory_format_strides(sizes, format), options);
}

Tensor empty_strided(IntArrayRef sizes, IntArrayRef strides, const TensorOptions& options) {
  EMBER_CHECK(sizes.size() == strides.size(), Error, "mismatch in length of strides and shape");
  check_size_nonnegative(sizes);
  ScalarType dtype = options.dtype_or_default();
  Storage storage = allocate_storage(storage_nbytes(sizes, strides, element_size(dtype)), options);
  return finish(Tensor::make(std::move(storage), DimVector(sizes), DimVector(strides), 0, dtype), options);
}

Tensor zeros(IntArrayRef sizes, const TensorOptions& options) {
  for (int64_t s : sizes) EMBER_CHECK(s >= 0, Error, "zeros: Dimension size must be non-negative.");
  return full(sizes, 0, options.with_dtype(options.dtype_or_default())); }
Tensor ones(IntArrayRef sizes, const TensorOptions& options) { return full(sizes, 1, options.with_dtype(options.dtype_or_default())); }

Tensor full(IntArrayRef sizes, const Scalar& fill_value, const TensorOptions& options) {
  TensorOptions o = options.with_dtype(options.dtype_opt().value_or(fill_value.natural_dtype()));
  Tensor t = empty(sizes, o.with_requires_grad(false));
  kernels::fill[t.device()](t, fill_value);  // not Tensor::fill_: a new tensor starts at version 0, as torch's
  return finish(t, options);
}

Tensor empty_like(const Tensor& t, const TensorOptions& options) {
  if (t.has_sparse_layout()) return sparse_empty_like(t, options.dtype_opt());
  TensorOptions o = options;
  if (!o.has_dtype()) o = o.dtype(t.dtype());
  // A dense tensor's strides are kept exactly, size-1 dims included, as in torch (later layouts depend on them).
  if (t.is_contiguous() || is_non_overlapping_and_dense(t.sizes(), t.strides())) {
    return empty_strided(t.sizes(), t.strides(), o);
  }
  return empty_strided(t.sizes(), infer_dense_strides(t.sizes(), t.strides()), o);
}

Tensor empty_like(const Tensor& t, const TensorOptions& options, MemoryFormat format) {
  if (format == MemoryFormat::Preserve) return empty_like(t, options);
  return empty(t.sizes(), options.has_dtype() ? options : options.dtype(t.dtype()), format);
}

Tensor empty_like(const Tensor& t) { return empty_like(t, TensorOptions(t.dtype()).with_device(t.device())); }

Tensor zeros_like(const Tensor& t, std::optional<ScalarType> dtype) {
  return t.has_sparse_layout() ? sparse_zeros_like(t, dtype) : full_like(t, 0, dtype);
}
Tensor ones_like(const Tensor& t, std::optional<ScalarType> dtype) { return full_like(t, 1, dtype); }

Tensor full_like(const Tensor& t, const Scalar& fill_value, std::optional<ScalarType> dtype) {
  Tensor out = empty_like(t, TensorOptions(dtype.value_or(t.dtype())).with_device(t.device()));
  kernels::fill[out.device()](out, fill_value);
  return out;
}

Tensor arange(const Scalar& end, const TensorOptions& options) { return arange(0, end, 1, options); }

namespace {

// torch's Scalar::to<int64_t>: a float out of range raises instead of wrapping.
int64_t to_int64_checked(const Scalar& v) {
  EMBER_CHECK(!v.is_floating_point() || (v.to_double() >= -0x1p63 && v.to_double() < 0x1p63), Error,
              "value cannot be converted to type int64_t without overflow");
  return v.to_int();
}

}  // namespace

// As torch: bounds are checked in double; the size is exact for int64 (start, end and step truncated
// to integers, wrapping as torch's) and ceil((end - start) / step) in double otherwise; element i is
// start + step * i computed in int64 for integer dtypes (so a fractional step truncates), float for
// 2-byte floats and double for the rest.
Tensor arange(const Scalar& start, const Scalar& end, const Scalar& step, const TensorOptions& options) {
  bool all_int = !start.is_floating_point() && !end.is_floating_point() && !step.is_floating_point();
  ScalarType dtype = options.dtype_opt().value_or(all_int ? kInt64 : default_dtype());
  EMBER_CHECK(dtype != kBool, NotImplementedError, "\"arange_cpu\" not implemented for 'Bool'");
  double xstart = start.to_double(), xend = end.to_double(), xstep = step.to_double();
  EMBER_CHECK(xstep != 0, Error, "step must be nonzero");
  EMBER_CHECK(std::isfinite(xstart) && std::isfinite(xend), Error, "unsupported range: ", xstart, " -> ", xend);
  EMBER_CHECK((xstep > 0 && xend >= xstart) || (xstep < 0 && xend <= xstart), Error,
              "upper bound and lower bound inconsistent with step sign");
  double size_d;
  if (dtype == kInt64) {
    uint64_t s = uint64_t(to_int64_checked(start)), e = uint64_t(to_int64_checked(end));
    int64_t st = to_int64_checked(step);
    EMBER_CHECK(st != 0, ValueError, "step must be nonzero");
    int64_t sgn = (st > 0) - (st < 0);
    __int128 span = int64_t(e - s + uint64_t(st) - uint64_t(sgn));
    size_d = double(span / st);
  } else {
    size_d = std::ceil((xend - xstart) / xstep);
  }
  EMBER_CHECK(size_d >= 0 && size_d < 0x1p63, Error, "invalid size, possible overflow?");
  int64_t n = int64_t(size_d);
  Tensor t = empty(DimVector{n}, options.with_dtype(dtype).with_device(kCPU).with_requires_grad(false));
  visit_dtype(dtype, [&]<typename T>(T) {
    T* p = t.data_ptr<T>();
    if constexpr (std::is_integral_v<T>) {
      uint64_t s = uint64_t(to_int64_checked(start)), st = uint64_t(to_int64_checked(step));
      for (int64_t i = 0; i < n; ++i) p[i] = convert<T>(int64_t(s + st * uint64_t(i)));
    } else {
      using Acc = std::conditional_t<sizeof(T) < 4, float, double>;
      Acc s = Acc(xstart), st = Acc(xstep);
      // fused multiply-adds, as the release build contracts them (so every build rounds the same)
      auto value = [&](int64_t i) { return convert<T>(Acc(std::fma(st, Acc(i), s))); };
      // torch fills 32-byte SIMD vectors, two per step, over each thread's share (parallel_for, grain 32768): a
      // vector's first value is rounded to T and the others add i * step to it; a share's tail goes per element.
      constexpr int64_t w = 32 / int64_t(sizeof(T));
      int64_t parts = n > 32768 ? std::min<int64_t>(get_num_threads(), (n + 32767) / 32768) : 1;
      int64_t chunk = parts > 1 ? (n + parts - 1) / parts : n;
      for (int64_t begin = 0; begin < n; begin += chunk) {
        int64_t end = std::min(n, begin + chunk), i = begin;
        for (; i + 2 * w <= end; i += 2 * w) {
          for (int64_t v = i; v < i + 2 * w; v += w) {
            Acc base = Acc(value(v));
            for (int64_t k = 0; k < w; ++k) p[v + k] = convert<T>(Acc(std::fma(Acc(k), st, base)));
          }
        }
        for (; i < end; ++i) p[i] = value(i);
      }
    }
  });
  return finish_host(t, options);
}

Tensor linspace(const Scalar& start, const Scalar& end, int64_t steps, const TensorOptions& options) {
  EMBER_CHECK(steps >= 0, Error, "number of steps must be non-negative");
  Tensor t = empty(DimVector{steps}, options.with_device(kCPU).with_requires_grad(false));
  if (steps == 1) t.fill_(start);  // as torch (fill_'s checks and conversion)
  if (steps < 2) return finish_host(t, options);
  EMBER_CHECK(t.dtype() != kBool, NotImplementedError, "\"linspace_cpu\" not implemented for 'Bool'");
  start.check_fits(t.dtype());  // torch's kernel converts both ends to the dtype, checked
  end.check_fits(t.dtype());
  // As torch: the first half counts up from start, the second half down from end.
  visit_dtype(t.dtype(), [&]<typename T>(T) {
    using Step = std::conditional_t<std::is_same_v<T, double>, double, std::conditional_t<std::is_integral_v<T>, double, float>>;
    T* p = t.data_ptr<T>();
    // Integer dtypes convert start and end to the dtype first, as torch.
    auto bound = [](const Scalar& v) { return std::is_integral_v<T> ? Step(convert<T>(v.to_double())) : Step(v.to_double()); };
    Step s = bound(start), e = bound(end);
    Step step = (e - s) / Step(steps - 1);
    int64_t half = steps / 2;
    for (int64_t i = 0; i < steps; ++i) {
      // Fused as torch's build fuses them (linspace(-1, 1, 7)[3] is -3e-8), whatever our -O level contracts.
      if constexpr (!std::is_integral_v<T>) {
        p[i] = convert<T>(i < half ? std::fma(step, Step(i), s) : std::fma(-step, Step(steps - i - 1), e));
      } else {
        p[i] = convert<T>(i < half ? Step(s + step * Step(i)) : Step(e - step * Step(steps - i - 1)));
      }
    }
  });
  return finish_host(t, options);
}

Tensor logspace(const Scalar& start, const Scalar& end, int64_t steps, double base, const TensorOptions& options) {
  EMBER_CHECK(steps >= 0, Error, "number of steps must be non-negative");
  Tensor t = empty(DimVector{steps}, options.with_device(kCPU).with_requires_grad(false));
  double s = start.to_double(), e = end.to_double();
  double step = steps > 1 ? (e - s) / double(steps - 1) : 0.0;
  int64_t half = steps / 2;
  fill_with(t, [&]<typename T>(int64_t i) {
    double exponent = i < half ? s + step * double(i) : e - step * double(steps - i - 1);
    return convert<T>(std::pow(base, steps == 1 ? s : exponent));
  });
  return finish_host(t, options);
}

Tensor eye(int64_t n, std::optional<int64_t> m_opt, const TensorOptions& options) {
  EMBER_CHECK(n >= 0, Error, "n must be greater or equal to 0, got ", n);
  int64_t m = m_opt.value_or(n);
  EMBER_CHECK(m >= 0, Error, "m must be greater or equal to 0, got ", m);
  Tensor t = zeros(DimVector{n, m}, options.with_requires_grad(false));
  kernels::fill[t.device()](t.diagonal(), 1);
  return finish(t, options);
}

template <typename T>
Tensor tensor(const std::vector<T>& values, IntArrayRef sizes, const TensorOptions& options) {
  EMBER_CHECK(checked_numel(sizes) == int64_t(values.size()), ValueError, "tensor: ", values.size(),
              " values cannot fill shape ", IntList{sizes.data(), sizes.size()});
  Tensor t = empty(sizes, options.with_dtype(options.dtype_opt().value_or(scalar_type_of<T>)).with_device(kCPU)
                              .with_requires_grad(false));
  fill_with(t, [&]<typename D>(int64_t i) { return convert<D>(values[size_t(i)]); });
  return finish_host(t, options);
}

#define EMBER_INSTANTIATE_TENSOR(T) \
  template Tensor tensor<T>(const std::vector<T>&, IntArrayRef, const TensorOptions&);
EMBER_INSTANTIATE_TENSOR(uint8_t)
EMBER_INSTANTIATE_TENSOR(int8_t)
EMBER_INSTANTIATE_TENSOR(int16_t)
EMBER_INSTANTIATE_TENSOR(int32_t)
EMBER_INSTANTIATE_TENSOR(int64_t)
EMBER_INSTANTIATE_TENSOR(float)
EMBER_INSTANTIATE_TENSOR(double)
#undef EMBER_INSTANTIATE_TENSOR

Tensor scalar_tensor(const Scalar& value, const TensorOptions& options) {
  return full(DimVector{}, value, options);
}

Tensor from_blob(void* data, IntArrayRef sizes, IntArrayRef strides, ScalarType dtype, Device device, void* ctx,
                 DataPtr::Deleter deleter) {
  DataPtr ptr(data, ctx, deleter, device);  // owns ctx from here, even if the geometry is refused
  size_t nbytes = storage_nbytes(sizes, strides, element_size(dtype));
  Storage storage = Storage::borrow(std::move(ptr), nbytes);
  return Tensor::make(std::move(storage), DimVector(sizes), DimVector(strides), 0, dtype);
}

}  // namespace ember
