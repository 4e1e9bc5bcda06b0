// Binary elementwise ops: each plans a TensorIterator and runs one kernel.
#include "../autograd/formulas.h"
#include "../dispatch/kernels.h"
#include "ember/sparse.h"
#include "ember/creation.h"
#include "ember/layout.h"
#include "ember/ops.h"
#include "ember/quantized.h"
#include "ember/reduce.h"
#include "ember/type_promotion.h"

namespace ember {

namespace {

using namespace binary_flags;

Tensor run(BinaryOp op, const Tensor& out, const Tensor& a, const Tensor& b, const Scalar& alpha = 1);

// An in-place comparison with an input in the graph (`a` of any dtype): torch records EqBackward0 (number `b`) or
// EqBackward1 (tensor `b`), whose gradient is zero.
Tensor compare_recorded(BinaryOp op, const Tensor& a, const Tensor& b) {
  // An integer or bool `a` still gets the node (torch's result then requires grad): recorded on a float copy.
  Tensor r = run(op, {}, a, b).to(a.is_floating_point() ? a.dtype() : kFloat32);
  autograd::record_comparison(op, r, a, b);
  return r;
}

// out= and in-place forms when autograd is involved: in place on `a` is recorded; out= is refused, except for ops
// whose result is not differentiable (comparisons, logical and bitwise ops) and floor_divide (NotImplemented), as torch.
Tensor run_out(BinaryOp op, Tensor& out, const Tensor& a, const Tensor& b, const Scalar& alpha, const char* name) {
  if (!autograd::needs_grad({&a, &b, &out})) return run(op, out, a, b, alpha);
  BinaryKind kind = binary_kind(op);
  bool comparison = kind == BinaryKind::Compare;
  bool differentiable = kind != BinaryKind::Bitwise && !comparison && kind != BinaryKind::Logical;
  bool records = out.is_same(a) ? differentiable || comparison : differentiable;  // in place: any dtype of `a`
  if (!records) {
    // logical ops skip the version check, as torch
    if (out.is_same(a) && kind != BinaryKind::Logical) autograd::check_in_place(out);
    // untracked: the history of `out` is kept through a non-differentiable in-place op, as torch
    return autograd::untracked([&] { return run(op, out, a, b, alpha); });
  }
  // The recorded form computes out of place, then copies: check the aliasing the kernel would have refused.
  for (const Tensor* input : {&a, &b}) check_no_partial_overlap(out, *input);
  if (op == BinaryOp::FloorDivide && !out.is_same(a)) {  // no gradient: torch's NotImplemented node on out
    return autograd::record_out_not_implemented(out, name, {&a, &b}, [&] { return run(op, {}, a, b, alpha); });
  }
  return autograd::record_out(out, a, name, [&] {
    if (comparison) return compare_recorded(op, a, b);  // written into any dtype of `a`
    Tensor r = run(op, {}, a, b, alpha);
    check_result_fits_output(r.dtype(), out.dtype());
    return r;
  });
}

Scalar negated(const Scalar& alpha) {
  return alpha.is_floating_point() ? Scalar(-alpha.to_double()) : Scalar(-alpha.to_int());
}

// A binary op with a sparse operand: add, sub, mul and div have sparse forms (ember/sparse.h); the result is
// written to `out` (in place or out=) when one is given.
Tensor run_sparse(BinaryOp op, const Tensor& out, const Tensor& a, const Tensor& b, const Scalar& alpha) {
  const Tensor& sparse = a.has_sparse_layout() ? a : b.has_sparse_layout() ? b : out;
  if ((op == BinaryOp::Add || op == BinaryOp::Sub) && out.is_same(a) && !a.has_sparse_layout() &&
      a.dtype() != kBool && promote_types(a.dtype(), b.dtype()) == a.dtype() &&
      std::ranges::equal(a.sizes(), b.sizes())) {  // dense += sparse: only the entries' elements change
    Tensor target = out;
    add_sparse_into(target, b, op == BinaryOp::Sub ? negated(alpha) : alpha);
    return out;
  }
  Tensor r;
  switch (op) {
    case BinaryOp::Add: r = sparse_add(a, b, alpha); break;
    case BinaryOp::Sub: r = sparse_add(a, b, negated(alpha)); break;
    case BinaryOp::Mul: r = sparse_mul(a, b); break;
    case BinaryOp::Div: r = sparse_div(a, b); break;
    case BinaryOp::DivTrunc: r = sparse_div(a, b, "trunc"); break;
    case BinaryOp::DivFloor: case BinaryOp::FloorDivide: r = sparse_div(a, b, "floor"); break;
    case BinaryOp::Pow:  // a number exponent only; in place is torch's missing pow_ kernel
      if (!a.has_sparse_layout() || !b.impl()->is_wrapped_number || out.is_same(a))
        throw_sparse_unsupported(sparse, out.is_same(a)                    ? "pow_.Scalar"
                                         : a.impl()->is_wrapped_number ? "pow.Scalar"
                                                                       : "pow.Tensor_Tensor");
      r = sparse_pow(a, b.item());
      break;
    default:
      EMBER_CHECK(!sparse.is_sparse_csr(), Error, "unsupported tensor layout: SparseCsr");
      throw_sparse_unsupported(sparse, binary_op_name(op));
  }
  if (!out.defined()) return r;
  Tensor target = out;
  if (out.has_sparse_layout() != r.has_sparse_layout()) sparse_copy_(target, r);  // torch's dense/sparse copy_ error
  if (out.has_sparse_layout()) {
    check_result_fits_output(r.dtype(), out.dtype());
    sparse_copy_(target, r);
  } else {
    target.copy_(r);
  }
  return out;
}

// The one-element second operand of a float16/bfloat16 mul or division at its own precision (as float), which
// torch's kernels use instead of its value rounded to the common dtype. Only a CPU operand is read so (torch's CUDA
// kernels read a one-element device operand as an element, with no sync).
std::optional<float> wide_scalar(BinaryOp op, const TensorIterator& it, const Tensor& b) {
  ScalarType t = it.common_dtype();
  if ((t != kFloat16 && t != kBFloat16) || b.numel() != 1 || !(binary_op_flags(op) & WideScalar) ||
      !b.device().is_cpu()) {
    return std::nullopt;
  }
  Scalar v = b.item();
  return v.is_floating_point() ? float(v.to_double()) : float(v.to_int());
}

Tensor run(BinaryOp op, const Tensor& out, const Tensor& a, const Tensor& b, const Scalar& alpha) {
  if (a.has_sparse_layout() || b.has_sparse_layout() || (out.defined() && out.has_sparse_layout())) [[unlikely]] {
    Tensor r = run_sparse(op, out, a, b, alpha);
    // sparse_pow records its own node
    if (!out.defined() && op != BinaryOp::Pow && autograd::needs_grad({&a, &b}))
      autograd::record_binary(op, r, a, b, alpha);
    return r;
  }
  if ((a.is_quantized() || b.is_quantized()) && binary_kind(op) == BinaryKind::Compare &&
      !(out.defined() && out.is_quantized())) [[unlikely]] {
    // torch compares quantized tensors by their dequantized values
    auto real = [](const Tensor& t) { return t.is_quantized() ? dequantize(t) : t; };
    return run(op, out, real(a), real(b), alpha);
  }
  if (op == BinaryOp::Sub) {
    EMBER_CHECK(!(a.dtype() == kBool && b.dtype() == kBool), Error,
                "Subtraction, the `-` operator, with two bool tensors is not supported. Use the `^` or "
                "`logical_xor()` operator instead.");
    EMBER_CHECK(a.dtype() != kBool && b.dtype() != kBool, Error,
                "Subtraction, the `-` operator, with a bool tensor is not supported. If you are trying to invert a "
                "mask, use the `~` or `logical_not()` operator instead.");
  }
  const Tensor inputs[2] = {a, b};
  ElementwiseConfig config;
  BinaryKind kind = binary_kind(op);
  config.bool_output = kind == BinaryKind::Compare || kind == BinaryKind::Logical;
  // hypot and logaddexp(2) refuse integers, after the checks
  bool float_only = op == BinaryOp::Hypot || op == BinaryOp::Logaddexp || op == BinaryOp::Logaddexp2;
  config.int_to_float = kind == BinaryKind::Float && !float_only;
  // torch's pow(number, tensor) allocates its result contiguous, not in the exponent's layout
  config.contiguous_output = op == BinaryOp::Pow && a.impl()->is_wrapped_number && !b.impl()->is_wrapped_number;
  TensorIterator it(out, inputs, config);
  EMBER_CHECK(!float_only || is_floating_point(it.common_dtype()), NotImplementedError, "\"", binary_op_name(op),
              "_cpu\" not implemented for '", legacy_name(it.common_dtype()), "'");
  EMBER_CHECK((op != BinaryOp::Gcd && op != BinaryOp::Lcm) || it.common_dtype() != kBool, NotImplementedError, "\"",
              binary_op_name(op), "_cpu\" not implemented for 'Bool'");
  bool shift = op == BinaryOp::ShiftLeft || op == BinaryOp::ShiftRight;
  if (kind == BinaryKind::Bitwise && (is_floating_point(it.common_dtype()) || (shift && it.common_dtype() == kBool))) {
    throw NotImplementedError(str("\"", shift ? (op == BinaryOp::ShiftLeft ? "lshift" : "rshift") : binary_op_name(op),
                                  "_cpu\" not implemented for '", legacy_name(it.common_dtype()), "'"));
  }
  bool float8 = is_float8(it.common_dtype());
  EMBER_CHECK(!float8 || (binary_op_flags(op) & Float8), NotImplementedError, "\"", binary_op_name(op),
              "_cpu\" not implemented for '", legacy_name(it.common_dtype()), "'");
  // x ** 1 and x ** 0 are a copy and a fill, allowed for bool x, as in torch
  bool identity_pow = op == BinaryOp::Pow && b.impl()->is_wrapped_number &&
                      (b.item().to_double() == 1.0 || b.item().to_double() == 0.0);
  if (it.common_dtype() == kBool && !identity_pow) {
    const char* kernel = op == BinaryOp::Pow ? "pow" : op == BinaryOp::Remainder ? "remainder_cpu"
                       : op == BinaryOp::FloorDivide || op == BinaryOp::DivFloor ? "div_floor_cpu"
                       : op == BinaryOp::DivTrunc ? "div_trunc_cpu" : op == BinaryOp::Fmod ? "fmod_cpu" : nullptr;
    EMBER_CHECK(!kernel, NotImplementedError, "\"", kernel ? kernel : "", "\" not implemented for 'Bool'");
  }
  bool integral = !is_floating_point(it.common_dtype());
  if (integral && kind == BinaryKind::Divide) {
    // Checked before writing anything, so a failing in-place op leaves its tensor as it was.
    EMBER_CHECK(!any(eq(it.input(1), wrapped_scalar(0))).item().to_bool(), Error, "ZeroDivisionError");
  }
  if (op == BinaryOp::Pow) {  // a number exponent must fit the result dtype (float32/64 take a double), as torch
    if (it.common_dtype() != kFloat32 && it.common_dtype() != kFloat64) check_wrapped_fits(b, it.common_dtype());
    EMBER_CHECK(!(integral && b.impl()->is_wrapped_number && b.item().to_int() < 0), Error,
                "Integers to negative integer powers are not allowed.");
  }
  if (op == BinaryOp::Add || op == BinaryOp::Sub) {
    EMBER_CHECK(!alpha.is_bool() || it.common_dtype() == kBool, Error, "Boolean alpha only supported for Boolean results.");
    EMBER_CHECK(!integral || !alpha.is_floating_point(), Error,
                "For integral input tensors, argument alpha must not be a floating point number.");
    if (alpha.is_floating_point() || alpha.to_int() != 1) alpha.check_fits(it.common_dtype());  // 1 fits every dtype
  }
  bool special_pow = false;
  if (op == BinaryOp::Pow && b.impl()->is_wrapped_number && it.numel() > 0) {
    double exp = b.item().to_double();
    if (exp == 1) {  // x ** 1 is x exactly, as torch's copy (a device's pow may round it)
      if (!it.output().is_same(it.input(0))) kernels::copy[it.device_type()](it.output(), it.input(0));
      special_pow = true;
    } else {
      special_pow = kernels::pow_scalar[it.device_type()](it, exp);
    }
  }
  if (!special_pow) kernels::binary[it.device_type()](op, it, alpha, wide_scalar(op, it, b));
  Tensor result = it.finish();
  if (!out.defined() && autograd::needs_grad({&a, &b})) autograd::record_binary(op, result, a, b, alpha);
  return result;
}

}  // namespace

Tensor add(const Tensor& a, const Tensor& b, const Scalar& alpha) { return run(BinaryOp::Add, {}, a, b, alpha); }
Tensor sub(const Tensor& a, const Tensor& b, const Scalar& alpha) { return run(BinaryOp::Sub, {}, a, b, alpha); }

Tensor rsub(const Tensor& self, const Tensor& other, const Scalar& alpha) {
  if (self.has_sparse_layout() || other.has_sparse_layout()) [[unlikely]] {
    throw_sparse_unsupported(self.has_sparse_layout() ? self : other, "rsub.Tensor");
  }
  Tensor r = autograd::untracked([&] { return run(BinaryOp::Sub, {}, other, self, alpha); });
  if (autograd::needs_grad({&self, &other})) autograd::record_rsub(r, self, other, alpha);
  return r;
}

Tensor& add_out(Tensor& out, const Tensor& a, const Tensor& b, const Scalar& alpha) {
  run_out(BinaryOp::Add, out, a, b, alpha, "add");
  return out;
}
Tensor& sub_out(Tensor& out, const Tensor& a, const Tensor& b, const Scalar& alpha) {
  run_out(BinaryOp::Sub, out, a, b, alpha, "sub");
  return out;
}

// name(a, b) and name_out(out, a, b) for every row of binary_ops.def.
#define EMBER_BINARY_OP(name, Op, kind, expr, python, flags)                               \
  Tensor name(const Tensor& a, const Tensor& b) { return run(BinaryOp::Op, {}, a, b); }   \
  Tensor& name##_out(Tensor& out, const Tensor& a, const Tensor& b) {                     \
    run_out(BinaryOp::Op, out, a, b, 1, #name);                                          \
    if (BinaryOp::Op == BinaryOp::Mul && out.is_sparse() && out.is_same(a)) [[unlikely]] {  \
      out.impl()->sparse->coalesced = out._nnz() <= 1;  /* torch's in-place sparse mul */ \
    }                                                                                     \
    return out;                                                                           \
  }
#include "ember/binary_ops.def"
#undef EMBER_BINARY_OP

namespace {

BinaryOp rounded_div_op(std::optional<std::string_view> rounding_mode) {
  if (!rounding_mode) return BinaryOp::Div;
  EMBER_CHECK(*rounding_mode == "trunc" || *rounding_mode == "floor", Error,
              "div expected rounding_mode to be one of None, 'trunc', or 'floor' but found '", *rounding_mode, "'");
  return *rounding_mode == "trunc" ? BinaryOp::DivTrunc : BinaryOp::DivFloor;
}

}  // namespace

Tensor div(const Tensor& a, const Tensor& b, std::optional<std::string_view> rounding_mode) {
  if (rounding_mode) return run(rounded_div_op(rounding_mode), {}, a, b);
  Tensor r = autograd::untracked([&] { return run(BinaryOp::Div, {}, a, b); });
  if (autograd::needs_grad({&a, &b})) autograd::record_div_mode(r, a, b);
  return r;
}
Tensor& div_out(Tensor& out, const Tensor& a, const Tensor& b, std::optional<std::string_view> rounding_mode) {
  if (!rounding_mode && autograd::needs_grad({&a, &b, &out})) {  // recorded as div(a, b, None): DivBackward2
    autograd::record_out(out, a, "div", [&] {
      Tensor r = div(a, b, rounding_mode);
      check_result_fits_output(r.dtype(), out.dtype());
      return r;
    });
    return out;
  }
  run_out(rounded_div_op(rounding_mode), out, a, b, 1, "div");
  return out;
}

Tensor operator+(const Tensor& a, const Tensor& b) { return add(a, b); }
Tensor operator-(const Tensor& a, const Tensor& b) { return sub(a, b); }
Tensor operator*(const Tensor& a, const Tensor& b) { return mul(a, b); }
Tensor operator/(const Tensor& a, const Tensor& b) { return div(a, b); }
Tensor operator+(const Tensor& a, const Scalar& b) { return add(a, wrapped_scalar(b)); }
Tensor operator-(const Tensor& a, const Scalar& b) { return sub(a, wrapped_scalar(b)); }
Tensor operator*(const Tensor& a, const Scalar& b) { return mul(a, wrapped_scalar(b)); }
Tensor operator/(const Tensor& a, const Scalar& b) { return div(a, wrapped_scalar(b)); }

}  // namespace ember
