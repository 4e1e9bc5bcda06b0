// Operators besides ops.h's Tensor op Tensor/Scalar: a number on the left (2.0 * x), %, & | ^, and comparisons
// (bool tensors, as torch: x == y compares elements; Tensor::is_same tells identity). A Scalar acts as a
// Python number would. -x, ~x, x[i] and += -= *= /= are members (tensor_methods.h).
#pragma once
#include <optional>

#include "ember/tensor.h"

namespace ember {

Tensor operator+(const Scalar& a, const Tensor& b);
Tensor operator-(const Scalar& a, const Tensor& b);
Tensor operator*(const Scalar& a, const Tensor& b);
Tensor operator/(const Scalar& a, const Tensor& b);
#define EMBER_DECLARE_OPERATOR(op)                    \
  Tensor operator op(const Tensor& a, const Tensor& b); \
  Tensor operator op(const Tensor& a, const Scalar& b); \
  Tensor operator op(const Scalar& a, const Tensor& b);
EMBER_DECLARE_OPERATOR(%)
EMBER_DECLARE_OPERATOR(&)
EMBER_DECLARE_OPERATOR(|)
EMBER_DECLARE_OPERATOR(^)
EMBER_DECLARE_OPERATOR(==)
EMBER_DECLARE_OPERATOR(!=)
EMBER_DECLARE_OPERATOR(<)
EMBER_DECLARE_OPERATOR(<=)
EMBER_DECLARE_OPERATOR(>)
EMBER_DECLARE_OPERATOR(>=)
#undef EMBER_DECLARE_OPERATOR

// clamp with number bounds (clamp(x, -1, 1)), as torch's clamp(Tensor, Scalar?, Scalar?).
Tensor clamp(const Tensor& x, const std::optional<Scalar>& min, const std::optional<Scalar>& max = std::nullopt);
Tensor& clamp_(Tensor& self, const std::optional<Scalar>& min, const std::optional<Scalar>& max = std::nullopt);
// Into out, which must have the result's dtype (src/ops/out_forms.cpp).
Tensor& clamp_out(Tensor& out, const Tensor& x, const std::optional<Scalar>& min,
                  const std::optional<Scalar>& max = std::nullopt);

}  // namespace ember
