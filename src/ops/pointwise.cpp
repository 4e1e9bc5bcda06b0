// Pointwise ops: lerp and addcmul/addcdiv (fused kernels), and composed from the elementwise tables: one-sided
// clamps, heaviside, ldexp, float_power, isneginf/isposinf (ember/pointwise.h).
#include "ember/pointwise.h"

#include <array>

#include "../autograd/formulas.h"
#include "../autograd/formulas_pointwise.h"
#include "../iter/tensor_iterator.h"
#include "fused.h"
#include "in_place_composite.h"
#include "ember/creation.h"
#include "ember/layout.h"
#include "ember/math_ops.h"
#include "ember/numerics.h"
#include "ember/operators.h"
#include "ember/ops.h"
#include "ember/reduce.h"
#include "ember/type_promotion.h"

namespace ember {

namespace {

// self + value * (t1 op t2), op mul or div, in the promoted dtype (float16/bfloat16 in float32, rounded once), into
// `out` (undefined: a new tensor).
Tensor addc_into(bool divide, const Tensor& out, const Tensor& self, const Tensor& t1, const Tensor& t2,
                 const Scalar& value) {
  const std::array operands{self, t1, t2};
  ScalarType dtype = result_type(operands);
  EMBER_CHECK(divide || dtype != kBool, NotImplementedError, "\"addcmul_cpu_out\" not implemented for 'Bool'");
  EMBER_CHECK(!divide || t1.is_floating_point() || t2.is_floating_point(), Error,
              "Integer division with addcdiv is no longer supported, and in a future  release addcdiv will perform a "
              "true division of tensor1 and tensor2. The historic addcdiv behavior can be implemented as "
              "(input + value * torch.trunc(tensor1 / tensor2)).to(input.dtype) for integer inputs and as (input + "
              "value * tensor1 / tensor2) for float inputs. The future addcdiv behavior is just the latter "
              "implementation: (input + value * tensor1 / tensor2), for all dtypes.");
  EMBER_CHECK(!is_float8(dtype), NotImplementedError, "\"", divide ? "addcdiv" : "addcmul",
              "_cpu_out\" not implemented for '", legacy_name(dtype), "'");
  return run_fused(divide ? FusedPointwise::Addcdiv : FusedPointwise::Addcmul, out, operands, {value});
}

Tensor addc(bool divide, const Tensor& self, const Tensor& t1, const Tensor& t2, const Scalar& value) {
  Tensor r = autograd::untracked([&] { return addc_into(divide, Tensor(), self, t1, t2, value); });
  if (autograd::needs_grad({&self, &t1, &t2})) autograd::record_addc(divide, r, self, t1, t2, value);
  return r;
}

Tensor& addc_out(bool divide, Tensor& out, const Tensor& self, const Tensor& t1, const Tensor& t2,
                 const Scalar& value) {
  auto compute = [&] { return addc(divide, self, t1, t2, value); };
  if (out.is_same(self)) {
    return write_in_place(out, {&t1, &t2}, compute, [&] { addc_into(divide, out, out, t1, t2, value); });
  }
  return composite_out(out, {&self, &t1, &t2}, divide ? "addcdiv" : "addcmul", compute);
}

// torch's lerp, exact at both ends, into `out` (undefined: a new tensor); float16/bfloat16 compute in float32.
Tensor lerp_into(const Tensor& out, const Tensor& start, const Tensor& end, const Tensor& weight) {
  bool number = weight.impl()->is_wrapped_number;
  // torch's order: the dtypes (a 0-dim weight may differ, as a number), the shapes, then the kernel's dtype
  for (auto [t, name] : {std::pair{&end, "end"}, std::pair{weight.dim() == 0 ? &start : &weight, "weight"}}) {
    EMBER_CHECK(t->dtype() == start.dtype(), Error, "expected dtype ", dtype_info(start.dtype()).cpp_name, " for `",
                name, "` but got dtype ", dtype_info(t->dtype()).cpp_name);
  }
  broadcast_shapes(broadcast_shapes(start.sizes(), end.sizes()), weight.sizes());
  const Tensor operands[3] = {start, end, weight};  // torch's iterator leaves out a number weight
  ScalarType dtype = number ? start.dtype() : result_type(operands);  // a 0-dim weight takes part in promotion
  EMBER_CHECK(is_floating_point(dtype) && !is_float8(dtype), NotImplementedError, "\"lerp_kernel_",
              number ? "scalar" : "tensor", "\" not implemented for '", legacy_name(dtype), "'");
  check_wrapped_fits(weight, opmath_dtype(dtype));
  if (number) return run_fused(FusedPointwise::LerpScalar, out, std::span(operands, 2), {weight.item()});
  return run_fused(FusedPointwise::Lerp, out, operands);
}

// clamp with one bound, recorded as torch's ClampMin/ClampMax nodes.
Tensor clamp_one(bool is_min, const Tensor& x, const Tensor& bound) {
  Tensor r = autograd::untracked([&] {
    return is_min ? clamp(x, bound, std::nullopt) : clamp(x, std::nullopt, bound);
  });
  if (autograd::needs_grad({&x, &bound})) autograd::record_clamp_one(is_min, r, x, bound);
  return r;
}

// clamp_'s message (the C++ type name of x's dtype), as torch's clamp_min_/clamp_max_
Tensor clamp_one_in_place(bool is_min, const Tensor& x, const Tensor& bound) {
  Tensor r = clamp_one(is_min, x, bound);
  EMBER_CHECK(can_cast(r.dtype(), x.dtype()), Error, "result type ", legacy_name(r.dtype()),
              " can't be cast to the desired output type ", dtype_info(x.dtype()).cpp_name);
  return r;
}

}  // namespace

Tensor addcmul(const Tensor& self, const Tensor& t1, const Tensor& t2, const Scalar& value) {
  return addc(false, self, t1, t2, value);
}
Tensor& addcmul_out(Tensor& out, const Tensor& self, const Tensor& t1, const Tensor& t2, const Scalar& value) {
  return addc_out(false, out, self, t1, t2, value);
}
Tensor addcdiv(const Tensor& self, const Tensor& t1, const Tensor& t2, const Scalar& value) {
  return addc(true, self, t1, t2, value);
}
Tensor& addcdiv_out(Tensor& out, const Tensor& self, const Tensor& t1, const Tensor& t2, const Scalar& value) {
  return addc_out(true, out, self, t1, t2, value);
}

Tensor clamp_min(const Tensor& x, const Tensor& min) { return clamp_one(true, x, min); }
Tensor clamp_max(const Tensor& x, const Tensor& max) { return clamp_one(false, x, max); }
Tensor& clamp_min_(Tensor& x, const Tensor& min) {
  return write_in_place(x, {&min}, [&] { return clamp_one_in_place(true, x, min); });
}
Tensor& clamp_max_(Tensor& x, const Tensor& max) {
  return write_in_place(x, {&max}, [&] { return clamp_one_in_place(false, x, max); });
}

Tensor lerp(const Tensor& start, const Tensor& end, const Tensor& weight) {
  Tensor r = autograd::untracked([&] { return lerp_into(Tensor(), start, end, weight); });
  if (autograd::needs_grad({&start, &end, &weight})) autograd::record_lerp(r, start, end, weight);
  return r;
}
Tensor& lerp_(Tensor& self, const Tensor& end, const Tensor& weight) {
  return write_in_place(self, {&end, &weight}, [&] { return lerp(self, end, weight); },
                        [&] { lerp_into(self, self, end, weight); });
}

Tensor heaviside(const Tensor& x, const Tensor& values) {
  EMBER_CHECK(x.dtype() == values.dtype(), Error, "heaviside is not yet implemented for tensors with different dtypes.");
  const Tensor operands[2] = {x, values};
  Tensor r = autograd::untracked([&] {
    Tensor positive = gt(x, wrapped_scalar(0)).to(x.dtype());
    return in_elementwise_layout(where(eq(x, wrapped_scalar(0)), values, positive), operands);
  });
  if (autograd::needs_grad({&x, &values})) autograd::record_not_implemented("heaviside", r, x, values);
  return r;
}
Tensor& heaviside_out(Tensor& out, const Tensor& x, const Tensor& values) {
  EMBER_CHECK(out.dtype() == x.dtype(), Error, "heaviside is not yet implemented for tensors with different dtypes.");
  if (out.is_same(x)) return write_in_place(out, {&values}, [&] { return heaviside(x, values); });
  if (autograd::needs_grad({&x, &values, &out})) {
    return autograd::record_out_not_implemented(out, "heaviside", {&x, &values}, [&] { return heaviside(x, values); });
  }
  return composite_out(out, {&x, &values}, "heaviside", [&] { return heaviside(x, values); });
}

namespace {

// x * 2^e for a floating x and an int64 e, rounded once as std::ldexp (0 * 2^200 is 0, not 0 * inf). Narrower
// dtypes scale exactly in float64 (e clamped where every result saturates); float64 scales its frexp mantissa m
// (in [0.5, 1)) by 2^t, t clamped to [-1075, 1025]: 2^-1075 is 0 (m * 2^-1075 is below half the smallest
// subnormal) and 2^1024, 2^1025 are 2^1023 times 2 or 4 (m * 2^1025 overflows).
Tensor scale_by_power_of_two(const Tensor& x, const Tensor& e) {
  if (x.dtype() != kFloat64) {
    Tensor power = pow(wrapped_scalar(2.0), clamp(e, Scalar(-400), Scalar(400)).to(kFloat64));
    return mul(x.to(kFloat64), power).to(x.dtype());
  }
  auto [mantissa, exponent] = frexp(x);
  // frexp gives 0, inf and nan exponent 0; their own exponent must not enter (inf * 2^-1075 would be nan)
  Tensor t = where(isfinite(x), add(exponent.to(kInt64), e), wrapped_scalar(0)).to(kFloat64);
  Tensor power = pow(wrapped_scalar(2.0), clamp(t, Scalar(-1075), Scalar(1023)));
  Tensor above = pow(wrapped_scalar(2.0), clamp(sub(t, wrapped_scalar(1023)), Scalar(0), Scalar(2)));
  return mul(mul(mantissa, power), above);
}

}  // namespace

// x * 2^other in the promoted dtype (integers in the default float dtype), as torch; an integer exponent of a
// floating x is std::ldexp's (taken as int32, wrapping); 2^other is rounded to a floating other's own dtype first
// (as torch's); a bool exponent of a floating x is refused by torch's kernel.
Tensor ldexp(const Tensor& x, const Tensor& other) {
  broadcast_shapes(x.sizes(), other.sizes());  // torch checks the shapes first
  EMBER_CHECK(!(x.is_floating_point() && other.dtype() == kBool), NotImplementedError,
              "\"ldexp_cpu_exp\" not implemented for 'Bool'");
  const Tensor operands[2] = {x, other};
  ScalarType dtype = result_type(operands);
  if (!is_floating_point(dtype)) dtype = default_dtype();
  // torch's result takes the operands' elementwise layout for a float16, bfloat16 or float64 `other` (measured;
  // float32 and integer exponents give pow's contiguous layout)
  bool follows = other.is_floating_point() && other.dtype() != kFloat32;
  Tensor r = autograd::untracked([&] {
    if (x.is_floating_point() && !other.is_floating_point())
      return scale_by_power_of_two(x, other.to(kInt32).to(kInt64));
    Tensor exponent = other.is_floating_point() ? other : other.to(dtype);  // two integers compute in float
    Tensor power = pow(wrapped_scalar(2.0), exponent);
    Tensor product = mul(x, power).to(dtype);
    return follows ? in_elementwise_layout(product, operands) : product;
  });
  if (autograd::needs_grad({&x, &other})) autograd::record_ldexp(r, x, other);
  return r;
}
Tensor& ldexp_out(Tensor& out, const Tensor& x, const Tensor& other) {
  if (out.is_same(x)) return write_in_place(out, {&other}, [&] { return ldexp(x, other); });
  const Tensor operands[2] = {x, other};
  ScalarType dtype = result_type(operands);
  // torch checks out's dtype before the exponent's (a bool exponent into an integer out names the cast)
  EMBER_CHECK(can_cast(is_floating_point(dtype) ? dtype : default_dtype(), out.dtype()), Error,
              "ldexp can't be cast to the desired output type ", legacy_name(out.dtype()));
  return composite_out(out, {&x, &other}, "ldexp", [&] { return ldexp(x, other); });
}

// torch's composite: pow of the operands converted to float64 (a number stays a number, as a double).
Tensor float_power(const Tensor& x, const Tensor& exponent) {
  auto wide = [](const Tensor& t) {
    return t.impl()->is_wrapped_number ? wrapped_scalar(t.item().to_double()) : t.to(kFloat64);
  };
  return pow(wide(x), wide(exponent));
}
Tensor& float_power_out(Tensor& out, const Tensor& x, const Tensor& exponent) {
  bool in_place = out.is_same(x);
  EMBER_CHECK(out.dtype() == kFloat64, Error, "the ", in_place ? "base given to float_power_" : "output given to float_power",
              " has dtype ", legacy_name(out.dtype()), " but the operation's result requires dtype Double");
  if (in_place) return write_in_place(out, {&exponent}, [&] { return float_power(x, exponent); });
  return composite_out(out, {&x, &exponent}, "float_power", [&] { return float_power(x, exponent); });
}

namespace {

// cumsum_/cumprod_: a dtype= must be x's own
void check_scan_dtype(const Tensor& x, std::optional<ScalarType> dtype) {
  EMBER_CHECK(!dtype || *dtype == x.dtype(), Error, "Bad in-place call: input tensor dtype ",
              dtype_info(x.dtype()).cpp_name, " and output tensor dtype ", dtype_info(*dtype).cpp_name, " should match");
}

}  // namespace

Tensor& cumsum_(Tensor& x, int64_t dim, std::optional<ScalarType> dtype) {
  check_scan_dtype(x, dtype);
  return write_in_place(x, {}, [&] { return cumsum(x, dim, x.dtype()); });
}
Tensor& cumprod_(Tensor& x, int64_t dim, std::optional<ScalarType> dtype) {
  check_scan_dtype(x, dtype);
  return write_in_place(x, {}, [&] { return cumprod(x, dim, x.dtype()); });
}
// Not recorded at all, as torch's: x keeps its history (a leaf that requires grad may be written).
Tensor& logical_not_(Tensor& x) {
  autograd::GradModeGuard off(false);
  return x.copy_(logical_not(x));
}
Tensor& nan_to_num_(Tensor& x, double nan, std::optional<double> posinf, std::optional<double> neginf) {
  if (!x.is_floating_point()) return x;  // nothing to replace: torch copies x onto itself, a no-op
  return write_in_place(x, {}, [&] { return nan_to_num(x, nan, posinf, neginf); });
}

namespace {

// All false in the layout torch's iterator gives: x's (dense strides inferred where x is not dense), contiguous
// when x is empty.
Tensor none_of(const Tensor& x) {
  if (x.numel() == 0) return zeros(x.sizes(), TensorOptions().dtype(kBool).device(x.device()));
  return zeros_like(x, kBool);
}

}  // namespace

Tensor isneginf(const Tensor& x) {
  if (!x.is_floating_point()) return none_of(x);
  return eq(x, wrapped_scalar(-INFINITY));
}
Tensor isposinf(const Tensor& x) {
  if (!x.is_floating_point()) return none_of(x);
  return eq(x, wrapped_scalar(INFINITY));
}

}  // namespace ember
