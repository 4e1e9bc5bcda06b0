// out= forms of the products, indexing and composite elementwise ops (declared beside each op): computed out of place,
// then copied (composite_out: resize as torch's out= tensors, refusal under autograd). Most need out of the result's
// dtype exactly, each with the message torch's kernel gives; the input checks run first, as torch's.
#include <string>

#include "ember/linalg.h"
#include "ember/math_ops.h"
#include "ember/operators.h"
#include "ember/ops.h"
#include "ember/products.h"
#include "ember/type_promotion.h"

namespace ember {

namespace {

// How an op words out's wrong dtype (torch's kernels differ).
enum class Mismatch {
  Structured,   // Expected out tensor to have dtype float, but got double instead
  Iterator,     // Found dtype Double but expected Float
  DotResult,    // result dtype Double does not match input dtype Float
  Where,        // Expected out type to be Float but got Double
  IndexSelect,  // index_select(): self and result must have the same scalar type
  Tensordot,    // tensordot: Expected the output tensor to have dtype Float, but got ... with dtype Double
};

void check_exact(Mismatch kind, const Tensor& out, ScalarType expected) {
  if (out.dtype() == expected) return;
  ScalarType got = out.dtype();
  switch (kind) {
    case Mismatch::Structured: check_out_dtype(out, expected); return;
    case Mismatch::Iterator: throw Error(str("Found dtype ", legacy_name(got), " but expected ",
                                         legacy_name(expected)));
    case Mismatch::DotResult:
      throw Error(str("result dtype ", legacy_name(got), " does not match input dtype ", legacy_name(expected)));
    case Mismatch::Where: throw Error(str("Expected out type to be ", legacy_name(expected), " but got ",
                                      legacy_name(got)));
    case Mismatch::IndexSelect: throw Error("index_select(): self and result must have the same scalar type");
    case Mismatch::Tensordot:
      throw Error(str("tensordot: Expected the output tensor to have dtype ", legacy_name(expected),
                      ", but got an output tensor with dtype ", legacy_name(got)));
  }
}

// compute() into out, which must have the result's dtype. `known`: that dtype where the inputs tell it: torch checks
// out after the inputs' shapes and dims but before its kernel refuses a dtype, so a NotImplementedError of compute()
// yields to a wrong out.
Tensor& exact_out(Mismatch kind, Tensor& out, std::initializer_list<const Tensor*> inputs, const char* name,
                  const std::function<Tensor()>& compute, std::optional<ScalarType> known = {}) {
  return composite_out(out, inputs, name, [&] {
    Tensor r;
    try {
      r = compute();
    } catch (const NotImplementedError&) {
      if (known) check_exact(kind, out, *known);
      throw;
    }
    check_exact(kind, out, r.dtype());
    return r;
  });
}

// An optional operand for composite_out's autograd check (an undefined tensor when absent).
const Tensor* maybe(const std::optional<Tensor>& t) {
  static const Tensor absent;
  return t ? &*t : &absent;
}

}  // namespace

Tensor& matmul_out(Tensor& out, const Tensor& a, const Tensor& b) {
  Mismatch kind = a.dim() == 1 && b.dim() == 1 ? Mismatch::DotResult : Mismatch::Structured;
  return exact_out(kind, out, {&a, &b}, "matmul", [&] { return matmul(a, b); }, a.dtype());
}
Tensor& mm_out(Tensor& out, const Tensor& a, const Tensor& b) {
  return exact_out(Mismatch::Structured, out, {&a, &b}, "mm", [&] { return mm(a, b); }, a.dtype());
}
Tensor& bmm_out(Tensor& out, const Tensor& a, const Tensor& b) {
  return exact_out(Mismatch::Structured, out, {&a, &b}, "bmm", [&] { return bmm(a, b); }, a.dtype());
}
Tensor& mv_out(Tensor& out, const Tensor& m, const Tensor& v) {
  return exact_out(Mismatch::Structured, out, {&m, &v}, "mv", [&] { return mv(m, v); }, m.dtype());
}
Tensor& dot_out(Tensor& out, const Tensor& a, const Tensor& b) {
  return exact_out(Mismatch::DotResult, out, {&a, &b}, "dot", [&] { return dot(a, b); }, a.dtype());
}
Tensor& vdot_out(Tensor& out, const Tensor& a, const Tensor& b) {
  return exact_out(Mismatch::DotResult, out, {&a, &b}, "vdot", [&] { return vdot(a, b); }, a.dtype());
}
Tensor& inner_out(Tensor& out, const Tensor& a, const Tensor& b) {
  return exact_out(Mismatch::Tensordot, out, {&a, &b}, "inner", [&] { return inner(a, b); });  // checked after, as torch
}
Tensor& outer_out(Tensor& out, const Tensor& a, const Tensor& b) {
  return composite_out(out, {&a, &b}, "outer", [&] { return outer(a, b); });
}
Tensor& addmm_out(Tensor& out, const Tensor& input, const Tensor& m1, const Tensor& m2, const Scalar& beta,
                  const Scalar& alpha) {
  return exact_out(Mismatch::Structured, out, {&input, &m1, &m2}, "addmm",
                   [&] { return addmm(input, m1, m2, beta, alpha); }, input.dtype());
}
Tensor& addmv_out(Tensor& out, const Tensor& input, const Tensor& m, const Tensor& v, const Scalar& beta,
                  const Scalar& alpha) {
  return exact_out(Mismatch::Structured, out, {&input, &m, &v}, "addmv", [&] { return addmv(input, m, v, beta, alpha); },
                   input.dtype());
}
Tensor& baddbmm_out(Tensor& out, const Tensor& input, const Tensor& b1, const Tensor& b2, const Scalar& beta,
                    const Scalar& alpha) {
  return exact_out(Mismatch::Structured, out, {&input, &b1, &b2}, "baddbmm",
                   [&] { return baddbmm(input, b1, b2, beta, alpha); }, input.dtype());
}
Tensor& addr_out(Tensor& out, const Tensor& input, const Tensor& vec1, const Tensor& vec2, const Scalar& beta,
                 const Scalar& alpha) {
  return composite_out(out, {&input, &vec1, &vec2}, "addr", [&] { return addr(input, vec1, vec2, beta, alpha); });
}
Tensor& addbmm_out(Tensor& out, const Tensor& input, const Tensor& b1, const Tensor& b2, const Scalar& beta,
                   const Scalar& alpha) {
  // torch checks out (its "self") against batch2 before anything else
  EMBER_CHECK(out.dtype() == b2.dtype(), Error, "self and mat2 must have the same dtype, but got ",
              legacy_name(out.dtype()),
              " and ", legacy_name(b2.dtype()));
  return composite_out(out, {&input, &b1, &b2}, "addbmm", [&] { return addbmm(input, b1, b2, beta, alpha); });
}

Tensor& gather_out(Tensor& out, const Tensor& self, int64_t dim, const Tensor& index) {
  return exact_out(Mismatch::Structured, out, {&self}, "gather", [&] { return gather(self, dim, index); },
                   self.dtype());
}
Tensor& index_select_out(Tensor& out, const Tensor& self, int64_t dim, const Tensor& index) {
  return exact_out(Mismatch::IndexSelect, out, {&self}, "index_select", [&] { return index_select(self, dim, index); },
                   self.dtype());
}
Tensor& where_out(Tensor& out, const Tensor& cond, const Tensor& a, const Tensor& b) {
  return exact_out(Mismatch::Where, out, {&a, &b}, "where", [&] { return where(cond, a, b); });
}
Tensor& clamp_out(Tensor& out, const Tensor& x, const std::optional<Tensor>& min, const std::optional<Tensor>& max) {
  return composite_out(out, {&x, maybe(min), maybe(max)}, "clamp", [&] { return clamp(x, min, max); });
}
Tensor& clamp_out(Tensor& out, const Tensor& x, const std::optional<Scalar>& min, const std::optional<Scalar>& max) {
  return exact_out(Mismatch::Iterator, out, {&x}, "clamp", [&] { return clamp(x, min, max); });
}
Tensor& lerp_out(Tensor& out, const Tensor& start, const Tensor& end, const Tensor& weight) {
  // checked before the kernel refuses integers, as torch; a number weight (lerp.Scalar) takes no part
  const Tensor operands[3] = {start, end, weight};
  bool number = weight.impl()->is_wrapped_number;
  check_result_fits_output(result_type(std::span(operands, number ? 2 : 3)), out.dtype());
  return composite_out(out, {&start, &end, &weight}, "lerp", [&] { return lerp(start, end, weight); });
}
Tensor& gelu_out(Tensor& out, const Tensor& x, bool tanh_approximation) {
  return exact_out(Mismatch::Iterator, out, {&x}, "gelu", [&] { return gelu(x, tanh_approximation); }, x.dtype());
}
Tensor& softplus_out(Tensor& out, const Tensor& x, double beta, double threshold) {
  return exact_out(Mismatch::Iterator, out, {&x}, "softplus", [&] { return softplus(x, beta, threshold); },
                   x.dtype());
}
Tensor& round_out(Tensor& out, const Tensor& x, int64_t decimals) {
  return exact_out(Mismatch::Iterator, out, {&x}, "round", [&] { return round(x, decimals); }, x.dtype());
}

}  // namespace ember
