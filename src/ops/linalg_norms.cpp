// torch.linalg's vector and matrix norms, linalg.norm, dist and cdist.
#include "../core/autocast_policy.h"
#include <cmath>
#include <string>

#include "../autograd/formulas.h"
#include "ember/creation.h"
#include "ember/layout.h"
#include "ember/linalg.h"
#include "ember/math_ops.h"
#include "ember/ops.h"
#include "ember/reduce.h"
#include "ember/type_promotion.h"
#include "linalg_svd.h"

namespace ember {

namespace {

// dims as torch prints a std::vector ("0 1 1") or, bracketed, an IntArrayRef ("[0, 1, 1]").
std::string dims_str(IntArrayRef dims, bool bracketed) {
  std::string s;
  for (size_t i = 0; i < dims.size(); ++i) s += (i ? (bracketed ? ", " : " ") : "") + std::to_string(dims[i]);
  return bracketed ? "[" + s + "]" : s;
}

void check_floating_norm(const Tensor& x, const char* fn) {
  EMBER_CHECK(x.is_floating_point(), Error, fn, ": Expected a floating point or complex tensor as input. Got ",
              legacy_name(x.dtype()));
}

// The input of a norm with dtype=: converted first (a floating dtype only).
Tensor norm_input(const Tensor& x, std::optional<ScalarType> dtype, const char* fn) {
  check_floating_norm(x, fn);
  if (!dtype) return x;
  EMBER_CHECK(is_floating_point(*dtype), Error, fn, ": dtype should be floating point or complex. Got ",
              legacy_name(*dtype));
  return x.to(*dtype);
}

// The matrix norms of singular values: torch refuses float16 / bfloat16 input before any dtype= conversion.
Tensor svd_norm(const Tensor& a, SingularValueNorm which, const DimVector& d, bool keepdim,
                std::optional<ScalarType> dtype) {
  EMBER_CHECK(a.dtype() != kFloat16 && a.dtype() != kBFloat16, Error,
              "linalg.matrix_norm: Low precision dtypes not supported. Got ", legacy_name(a.dtype()));
  return singular_value_norm(norm_input(a, dtype, "linalg.matrix_norm"), which, d[0], d[1], keepdim);
}

// torch's checks of A and dims (after ord's): a floating matrix (batch), two different dims.
DimVector matrix_dims(const Tensor& a, IntArrayRef dims) {
  EMBER_CHECK(a.dim() >= 2, Error, "linalg.matrix_norm: The input tensor A must have at least 2 dimensions.");
  check_floating_norm(a, "linalg.matrix_norm");
  EMBER_CHECK(dims.size() == 2, Error, "linalg.matrix_norm: dim must be a 2-tuple. Got ", dims_str(dims, false));
  DimVector d = {wrap_dim(dims[0], a.dim()), wrap_dim(dims[1], a.dim())};
  EMBER_CHECK(d[0] != d[1], Error, "linalg.matrix_norm: dims must be different. Got (", d[0], ", ", d[1], ")");
  return d;
}

// The pairwise differences x1[.., i, :] - x2[.., j, :] as (.., R1, R2, M).
Tensor pairwise_differences(const Tensor& x1, const Tensor& x2) { return sub(x1.unsqueeze(-2), x2.unsqueeze(-3)); }

// torch's _euclidean_dist: |x1|^2 - 2 x1.x2 + |x2|^2 through one matmul, clamped at 1e-30, square-rooted.
Tensor euclidean_dist(const Tensor& x1, const Tensor& x2) {
  Tensor n1 = sum(pow(x1, wrapped_scalar(2)), {-1}, true), n2 = sum(pow(x2, wrapped_scalar(2)), {-1}, true);
  const Tensor left[3] = {mul(x1, wrapped_scalar(-2)), n1, ones_like(n1)};
  const Tensor right[3] = {x2, ones_like(n2), n2};
  Tensor d2 = matmul(cat(left, -1), cat(right, -1).transpose(-1, -2));
  return sqrt(clamp(d2, wrapped_scalar(1e-30), std::nullopt));
}

}  // namespace

Tensor linalg_vector_norm(const Tensor& x, double ord, OptionalIntArrayRef dims, bool keepdim,
                          std::optional<ScalarType> dtype) {
  Tensor input = norm_input(x, dtype, "linalg.vector_norm");
  DimVector d = dims.has_value() ? DimVector(*dims) : DimVector();
  return norm(input, ord, d, keepdim);
}

Tensor linalg_matrix_norm(const Tensor& a, double ord, IntArrayRef dims, bool keepdim, std::optional<ScalarType> dtype) {
  double abs_ord = std::abs(ord);
  EMBER_CHECK(abs_ord == 2 || abs_ord == 1 || std::isinf(abs_ord), Error,
              "linalg.matrix_norm: Order ", ord, " not supported.");
  DimVector d = matrix_dims(a, dims);
  if (abs_ord == 2) {
    return svd_norm(a, ord > 0 ? SingularValueNorm::Largest : SingularValueNorm::Smallest, d, keepdim, dtype);
  }
  if (std::isinf(abs_ord)) std::swap(d[0], d[1]);  // the inf norm is the 1 norm of the transpose
  if (!keepdim && d[0] < d[1]) --d[1];              // the first reduction removes d[0]
  Tensor col = linalg_vector_norm(a, 1, {d[0]}, keepdim, dtype);
  return ord > 0 ? amax(col, {d[1]}, keepdim) : amin(col, {d[1]}, keepdim);
}

Tensor linalg_matrix_norm(const Tensor& a, std::string_view ord, IntArrayRef dims, bool keepdim,
                          std::optional<ScalarType> dtype) {
  EMBER_CHECK(ord == "fro" || ord == "nuc", Error, "linalg.matrix_norm: Order ", ord, " not supported.");
  DimVector d = matrix_dims(a, dims);
  if (ord == "nuc") {
    return svd_norm(a, SingularValueNorm::Nuclear, d, keepdim, dtype);
  }
  return linalg_vector_norm(a, 2, d, keepdim, dtype);
}

Tensor linalg_norm(const Tensor& a, std::optional<double> ord, OptionalIntArrayRef dims, bool keepdim,
                   std::optional<ScalarType> dtype) {
  if (dims.has_value()) {
    EMBER_CHECK((*dims).size() == 1 || (*dims).size() == 2, Error, "linalg.norm: If dim is specified, it must be of "
                "length 1 or 2. Got ", dims_str(*dims, true));
  } else if (ord) {
    EMBER_CHECK(a.dim() == 1 || a.dim() == 2, Error, "linalg.norm: If dim is not specified but ord is, the input must "
                "be 1D or 2D. Got ", a.dim(), "D.");
  }
  if (ord && (dims.has_value() ? (*dims).size() == 2 : a.dim() == 2)) {
    return linalg_matrix_norm(a, *ord, dims.has_value() ? DimVector(*dims) : DimVector{0, 1}, keepdim, dtype);
  }
  return linalg_vector_norm(a, ord.value_or(2), dims, keepdim, dtype);
}

Tensor linalg_norm(const Tensor& a, std::string_view ord, OptionalIntArrayRef dims, bool keepdim,
                   std::optional<ScalarType> dtype) {
  if (dims.has_value()) {
    EMBER_CHECK((*dims).size() == 1 || (*dims).size() == 2, Error, "linalg.norm: If dim is specified, it mut be of "
                "length 1 or 2. Got ", dims_str(*dims, true));
  } else {
    EMBER_CHECK(a.dim() == 1 || a.dim() == 2, Error, "linalg.norm: If dim is not specified but ord is, the input must "
                "be 1D or 2D. Got ", a.dim(), "D.");
  }
  return linalg_matrix_norm(a, ord, dims.has_value() ? DimVector(*dims) : DimVector{0, 1}, keepdim, dtype);
}

Tensor dist(const Tensor& a, const Tensor& b, double p) {
  EMBER_AUTOCAST(fp32, kCUDA, dist, a, b, p);
  Tensor r = autograd::untracked([&] {
    Tensor d = sub(a, b);
    EMBER_CHECK(d.is_floating_point(), Error, "norm(): input dtype should be either floating point or complex. Got ",
                legacy_name(d.dtype()), " instead.");
    return norm(d, p);
  });
  if (autograd::needs_grad({&a, &b})) autograd::record_dist(r, a, b, p);
  return r;
}

Tensor cdist(const Tensor& x1, const Tensor& x2, double p, std::optional<int64_t> compute_mode) {
  EMBER_AUTOCAST(fp32, kBoth, cdist, x1, x2, p, compute_mode);
  EMBER_CHECK(x1.dim() >= 2, Error, "cdist only supports at least 2D tensors, X1 got: ", x1.dim(), "D");
  EMBER_CHECK(x2.dim() >= 2, Error, "cdist only supports at least 2D tensors, X2 got: ", x2.dim(), "D");
  EMBER_CHECK(x1.sizes().back() == x2.sizes().back(), Error, "X1 and X2 must have the same number of columns. X1: ",
              x1.sizes().back(), " X2: ", x2.sizes().back());
  for (auto [x, name] : {std::pair{&x1, "X1"}, std::pair{&x2, "X2"}}) {
    EMBER_CHECK(x->is_floating_point(), Error, "cdist only supports floating-point dtypes, ", name, " got: ",
                legacy_name(x->dtype()));
  }
  EMBER_CHECK(p >= 0, Error, "cdist only supports non-negative p values");
  int64_t mode = compute_mode.value_or(0);
  EMBER_CHECK(mode >= 0 && mode <= 2, Error, "possible modes: 0, 1, 2, but was: ", mode);
  int64_t r1 = x1.sizes()[size_t(x1.dim() - 2)], r2 = x2.sizes()[size_t(x2.dim() - 2)];
  DimVector batch = broadcast_shapes(IntArrayRef(x1.sizes().data(), size_t(x1.dim() - 2)),
                                     IntArrayRef(x2.sizes().data(), size_t(x2.dim() - 2)));
  DimVector out_shape(batch);
  out_shape.push_back(r1), out_shape.push_back(r2);
  bool empty_input = x1.numel() == 0 || x2.numel() == 0;
  if (!empty_input && p == 2 && (mode == 1 || (mode == 0 && (r1 > 25 || r2 > 25)))) {  // torch's matmul path
    return euclidean_dist(x1, x2).view(out_shape);
  }
  if (!empty_input) {  // torch answers empty inputs before its kernel's dtype dispatch
    EMBER_CHECK(x1.dtype() == x2.dtype(), Error, "expected scalar type ", legacy_name(x1.dtype()), " but found ",
                legacy_name(x2.dtype()));
    EMBER_CHECK(x1.dtype() == kFloat32 || x1.dtype() == kFloat64, NotImplementedError, "\"cdist\" not implemented for '",
                legacy_name(x1.dtype()), "'");
  }
  Tensor r = autograd::untracked([&] {
    if (empty_input || x1.sizes().back() == 0) return zeros(out_shape, x1.options());
    return norm(pairwise_differences(x1, x2), p, {-1}, false).contiguous();
  });
  if (autograd::needs_grad({&x1, &x2})) autograd::record_cdist(r, x1, x2, p);
  return r;
}

}  // namespace ember
