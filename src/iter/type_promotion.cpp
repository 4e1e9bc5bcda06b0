#include "ember/type_promotion.h"

#include "ember/creation.h"

namespace ember {

namespace {

enum class Category { None = -1, Bool = 0, Integral = 1, Floating = 2 };

Category category(ScalarType t) {
  return t == kBool ? Category::Bool : is_floating_point(t) ? Category::Floating : Category::Integral;
}


// torch's combine_categories over possibly-undefined results.
std::optional<ScalarType> combine(std::optional<ScalarType> higher, std::optional<ScalarType> lower) {
  if (!higher) return lower;
  if (!lower) return higher;
  if (is_floating_point(*higher)) return higher;
  if (*higher == kBool || is_floating_point(*lower)) return promote_types(*higher, *lower);
  return higher;
}

std::optional<ScalarType> promote_opt(std::optional<ScalarType> a, ScalarType b) {
  return a ? promote_types(*a, b) : b;
}

}  // namespace

ScalarType promote_types(ScalarType a, ScalarType b) {
  if (a == b) return a;
  EMBER_CHECK(!is_quantized(a) && !is_quantized(b), Error, "promoteTypes with quantized numbers is not handled yet; "
              "figure out what the correct rules should be, offending types: ", legacy_name(a), " ", legacy_name(b));
  EMBER_CHECK(!is_float8(a) && !is_float8(b), TypeError, "Promotion for Float8 Types is not supported, attempted to promote ",
              legacy_name(a), " and ", legacy_name(b));
  if (a == kBool) return b;
  if (b == kBool) return a;
  Category ca = category(a), cb = category(b);
  if (ca != cb) return ca == Category::Floating ? a : b;
  if (ca == Category::Floating) {
    if ((a == kFloat16 && b == kBFloat16) || (a == kBFloat16 && b == kFloat16)) return kFloat32;
    return element_size(a) >= element_size(b) ? a : b;
  }
  if (a == kUInt8 || b == kUInt8) {  // uint8 with a signed type needs a wider signed one
    ScalarType other = a == kUInt8 ? b : a;
    return element_size(other) >= 2 ? other : kInt16;
  }
  return element_size(a) >= element_size(b) ? a : b;
}

ScalarType result_type(std::span<const Tensor> operands) {
  std::optional<ScalarType> dim_result, zero_result, wrapped_result;
  for (const Tensor& t : operands) {
    if (t.impl()->is_wrapped_number) {
      // A Python float counts as the default dtype, an int as int64, a bool as bool.
      ScalarType w = is_floating_point(t.dtype()) ? default_dtype() : t.dtype();
      wrapped_result = promote_opt(wrapped_result, w);
    } else if (t.dim() == 0) {
      zero_result = promote_opt(zero_result, t.dtype());
    } else {
      dim_result = promote_opt(dim_result, t.dtype());
    }
  }
  return *combine(dim_result, combine(zero_result, wrapped_result));
}

bool can_cast(ScalarType from, ScalarType to) {
  if (is_floating_point(from) && is_integral(to, false)) return false;
  return !(from != kBool && to == kBool);
}

void check_result_fits_output(ScalarType result, ScalarType out) {
  EMBER_CHECK(can_cast(result, out), Error, "result type ", legacy_name(result),
              " can't be cast to the desired output type ", legacy_name(out));
}

Tensor wrapped_scalar(const Scalar& value) {
  ScalarType t = value.is_floating_point() ? kFloat64 : value.is_bool() ? kBool : kInt64;
  Tensor s = full({}, value, TensorOptions(t).device(kCPU));  // a CPU 0-dim, as torch wraps numbers
  s.impl()->is_wrapped_number = true;
  return s;
}

ScalarType opmath_dtype(ScalarType t) { return t == kFloat16 || t == kBFloat16 ? kFloat32 : t; }

void check_wrapped_fits(const Tensor& t, ScalarType dtype) {
  if (t.impl()->is_wrapped_number) t.item().check_fits(dtype);
}

}  // namespace ember
