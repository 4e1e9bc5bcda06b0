// Arithmetic and comparison ops: module functions, Tensor methods, operators and in-place forms.
#include <algorithm>
#include <tuple>
#include <vector>

#include "bindings.h"

namespace ember::py {

namespace {

// A tensor operand from a Tensor or a Python number (a wrapped number); nullopt for anything else.
std::optional<Tensor> operand(nb::handle h) {
  if (nb::isinstance<Tensor>(h)) return nb::cast<Tensor>(h);
  if (is_unsupported_number(h.ptr())) raise_unsupported_number(h.ptr());
  Scalar s;
  if (nb::try_cast<Scalar>(h, s)) return wrapped_scalar(s);
  return std::nullopt;
}

Tensor require_operand(nb::handle h, const char* op) {
  auto t = operand(h);
  EMBER_CHECK(t, TypeError, op, "(): argument 'other' must be Tensor or Number, not ", Py_TYPE(h.ptr())->tp_name);
  return *t;
}

// Argument `other` (Python position `pos`) of an op whose torch signature takes a Tensor there (no Scalar overload,
// not on torch's numbers-as-tensors list): torch's TypeError for a number or anything else.
const Tensor& require_tensor(nb::handle h, const char* op, int pos) {
  EMBER_CHECK(nb::isinstance<Tensor>(h), TypeError, op, "(): argument 'other' (position ", pos,
              ") must be Tensor, not ", Py_TYPE(h.ptr())->tp_name);
  return nb::cast<const Tensor&>(h);
}

// One binary op: fn(a, b, alpha) and out_fn(out, a, b, alpha); alpha is 1 where the op has none.
struct BinaryDef {
  const char* name;
  Tensor (*fn)(const Tensor&, const Tensor&, const Scalar&);
  Tensor& (*out_fn)(Tensor&, const Tensor&, const Tensor&, const Scalar&);
  const char* op = nullptr;        // __op__
  const char* rop = nullptr;       // __rop__
  const char* iop = nullptr;       // __iop__
  const char* inplace = nullptr;   // name_
  bool commutative = false;        // x.__rop__(y) computes x op y, as torch (the graph keeps x first)
  Tensor (*reflected)(const Tensor&, const Tensor&) = nullptr;  // x.__rop__(y) when not fn(y, x)
  // torch's signature: `other` takes a Python number (a Scalar overload or torch's numbers-as-tensors rule),
  // and the op has alpha= (add, sub); otherwise a number or alpha= is a TypeError.
  bool number_other = true;
  bool has_alpha = false;
};

// torch's CPU kernel of the binary ops that take a complex number but have no complex kernel.
const char* real_only_kernel(std::string_view op) {
  static const std::pair<std::string_view, const char*> kernels[] = {
      {"remainder", "remainder"}, {"floor_divide", "div_floor"}, {"fmod", "fmod"}, {"copysign", "copysign"},
      {"xlogy", "xlogy"}, {"bitwise_and", "bitwise_and"}, {"bitwise_or", "bitwise_or"}, {"bitwise_xor", "bitwise_xor"},
      {"bitwise_left_shift", "lshift"}, {"bitwise_right_shift", "rshift"}, {"lt", "lt"}, {"le", "le"}, {"gt", "gt"},
      {"ge", "ge"}};
  for (auto [name, kernel] : kernels) {
    if (name == op) return kernel;
  }
  return nullptr;
}

// A complex `other` promotes self to a complex dtype first: torch's NotImplementedError where op d has no such kernel.
void check_complex_other(const BinaryDef& d, const Tensor& self, nb::handle h) {
  if (!PyComplex_Check(h.ptr())) return;
  const char* kernel = real_only_kernel(d.name);
  if (!kernel) return;
  ScalarType t = self.scalar_type();
  const char* complex = t == kFloat64 ? "ComplexDouble" : t == kFloat16 ? "ComplexHalf" : "ComplexFloat";
  throw NotImplementedError(str("\"", kernel, "_cpu\" not implemented for '", complex, "'"));
}

// Operators give NotImplemented for operands they do not know, so Python can try the other side.
template <bool Reflected>
nb::object apply_operator(const BinaryDef& d, const Tensor& self, nb::handle other) {
  check_complex_other(d, self, other);
  auto t = operand(other);
  if (!t) return nb::borrow(Py_NotImplemented);
  if (Reflected && d.reflected) return nb::cast(d.reflected(self, *t));
  return nb::cast(Reflected && !d.commutative ? d.fn(*t, self, 1) : d.fn(self, *t, 1));
}

// `other` of op d at Python position `pos` (2 in ember.name, 1 in the methods).
Tensor other_operand(const BinaryDef& d, const Tensor& self, nb::handle h, const char* name, int pos) {
  if (d.number_other) check_complex_other(d, self, h);
  return d.number_other ? require_operand(h, name) : require_tensor(h, name, pos);
}

void def_binary(nb::module_& m, nb::class_<Tensor>& cls, const BinaryDef& d) {
  auto fn = [d](const Tensor& a, nb::handle b, const Scalar& alpha, nb::handle out) -> nb::object {
    Tensor other = other_operand(d, a, b, d.name, 2);
    if (out.is_none()) return nb::cast(d.fn(a, other, alpha));
    d.out_fn(nb::cast<Tensor&>(out), a, other, alpha);
    return nb::borrow(out);  // torch returns the out tensor itself
  };
  auto method = [d](const Tensor& a, nb::handle b, const Scalar& alpha) { return d.fn(a, other_operand(d, a, b, d.name, 1), alpha); };
  auto in_place = [d](nb::handle self, nb::handle other, const Scalar& alpha) {
    Tensor& t = nb::cast<Tensor&>(self);
    d.out_fn(t, t, other_operand(d, t, other, d.inplace, 1), alpha);
    return nb::borrow(self);
  };
  if (d.has_alpha) {
    m.def(d.name, fn, nb::arg("input"), nb::arg("other").none(), nb::kw_only(), nb::arg("alpha") = 1, nb::arg("out") = nb::none());
    cls.def(d.name, method, nb::arg("other").none(), nb::kw_only(), nb::arg("alpha") = 1);
    if (d.inplace) cls.def(d.inplace, in_place, nb::arg("other").none(), nb::kw_only(), nb::arg("alpha") = 1);
  } else {
    m.def(d.name, [fn](const Tensor& a, nb::handle b, nb::handle out) { return fn(a, b, 1, out); },
          nb::arg("input"), nb::arg("other").none(), nb::kw_only(), nb::arg("out") = nb::none());
    cls.def(d.name, [method](const Tensor& a, nb::handle b) { return method(a, b, 1); }, nb::arg("other").none());
    if (d.inplace) {
      cls.def(d.inplace, [in_place](nb::handle self, nb::handle b) { return in_place(self, b, 1); }, nb::arg("other").none());
    }
  }
  if (d.op) cls.def(d.op, [d](const Tensor& a, nb::handle b) { return apply_operator<false>(d, a, b); }, nb::arg("other").none());
  if (d.rop) cls.def(d.rop, [d](const Tensor& a, nb::handle b) { return apply_operator<true>(d, a, b); }, nb::arg("other").none());
  if (d.iop) cls.def(d.iop, [in_place](nb::handle self, nb::handle other) { return in_place(self, other, 1); }, nb::arg("other"));
}

Tensor reflected_sub(const Tensor& self, const Tensor& other) { return rsub(self, other); }

// y / x for a number y is reciprocal(x) * y in torch (so its graph reads ReciprocalBackward0, MulBackward0).
Tensor reflected_div(const Tensor& self, const Tensor& other) {
  if (!other.impl()->is_wrapped_number || !self.is_floating_point()) return div(other, self);
  return mul(reciprocal(self), other);
}

#define EMBER_UNPACK(...) __VA_ARGS__

// Every row of binary_ops.def as a BinaryDef, then torch's aliases (arctan2, multiply, divide, subtract, less, ...).
std::vector<BinaryDef> binary_defs() {
  using namespace binary_flags;
  using Fn = Tensor (*)(const Tensor&, const Tensor&, const Scalar&);
  using OutFn = Tensor& (*)(Tensor&, const Tensor&, const Tensor&, const Scalar&);
  // alpha is passed on to the Alpha ops only (a generic lambda, so the other branch is never instantiated)
  std::vector<BinaryDef> defs = {
#define EMBER_BINARY_OP(name, Op, kind, expr, python, flags)                                                        \
  BinaryDef{#name,                                                                                                  \
            Fn([](const Tensor& a, const Tensor& b, const auto& alpha) {                                           \
              if constexpr (((flags) & Alpha) != 0) return name(a, b, alpha); else return name(a, b);              \
            }),                                                                                                     \
            OutFn([](Tensor& o, const Tensor& a, const Tensor& b, const auto& alpha) -> Tensor& {                  \
              if constexpr (((flags) & Alpha) != 0) return name##_out(o, a, b, alpha); else return name##_out(o, a, b); \
            }),                                                                                                     \
            EMBER_UNPACK python, ((flags) & InPlace) ? #name "_" : nullptr, ((flags) & Commutative) != 0, nullptr,  \
            ((flags) & TensorOther) == 0, ((flags) & Alpha) != 0},
#include "ember/binary_ops.def"
#undef EMBER_BINARY_OP
#undef EMBER_UNPACK
  };
  auto find = [&](std::string_view name) -> BinaryDef& {
    return *std::find_if(defs.begin(), defs.end(), [&](const BinaryDef& d) { return d.name == name; });
  };
  find("sub").reflected = &reflected_sub;
  find("div").reflected = &reflected_div;
  for (auto [alias, inplace, name] : {std::tuple{"arctan2", "arctan2_", "atan2"}, {"multiply", "multiply_", "mul"},
                                       {"divide", "divide_", "div"}, {"true_divide", "true_divide_", "div"},
                                       {"subtract", "subtract_", "sub"}, {"not_equal", "not_equal_", "ne"},
                                       {"greater", "greater_", "gt"}, {"greater_equal", "greater_equal_", "ge"},
                                       {"less", "less_", "lt"}, {"less_equal", "less_equal_", "le"}}) {
    BinaryDef d = find(name);
    d.name = alias;
    d.inplace = inplace;
    d.op = d.rop = d.iop = nullptr;
    defs.push_back(d);
  }
  return defs;
}

}  // namespace

void init_ops(nb::module_& m, nb::class_<Tensor>& cls) {
  const std::vector<BinaryDef> defs = binary_defs();
  for (const BinaryDef& d : defs) def_binary(m, cls, d);
  // div/divide(..., rounding_mode=None|'trunc'|'floor'): an overload beside the plain forms above.
  for (std::string name : {"div", "divide"}) {
    using Mode = std::optional<std::string>;
    m.def(name.c_str(), [](const Tensor& a, nb::handle b, Mode mode, nb::handle out) -> nb::object {
      Tensor other = require_operand(b, "div");
      if (out.is_none()) return nb::cast(div(a, other, mode));
      div_out(nb::cast<Tensor&>(out), a, other, mode);
      return nb::borrow(out);
    }, nb::arg("input"), nb::arg("other"), nb::kw_only(), nb::arg("rounding_mode").none(), nb::arg("out") = nb::none());
    cls.def(name.c_str(), [](const Tensor& a, nb::handle b, Mode mode) { return div(a, require_operand(b, "div"), mode); },
            nb::arg("other"), nb::kw_only(), nb::arg("rounding_mode").none());
    cls.def((name + "_").c_str(), [](nb::handle self, nb::handle b, Mode mode) {
      Tensor& t = nb::cast<Tensor&>(self);
      div_out(t, t, require_operand(b, "div_"), mode);
      return nb::borrow(self);
    }, nb::arg("other"), nb::kw_only(), nb::arg("rounding_mode").none());
  }

  // Unary ops from unary_ops.def: ember.name(x, *, out=None), x.name(), x.name_(). Not bound: the two gelu forms
  // (reached through gelu(approximate=...)) and the derivatives' helpers. relu has no out= (torch has no relu.out).
  auto bound = [](std::string_view name) { return name.rfind("gelu_", 0) != 0 && name != "trigamma" && name != "i1"; };
#define EMBER_UNARY_OP(name, kind, expr)                                                            \
  if (std::string_view(#name) == "relu") {                                                          \
    m.def(#name, [](const Tensor& x) { return name(x); }, nb::arg("input"));                        \
  } else if (bound(#name)) {                                                                        \
    m.def(#name, [](const Tensor& x, nb::handle out) -> nb::object {                                \
      if (out.is_none()) return nb::cast(name(x));                                                  \
      name##_out(nb::cast<Tensor&>(out), x);                                                        \
      return nb::borrow(out);                                                                       \
    }, nb::arg("input"), nb::kw_only(), nb::arg("out") = nb::none());                               \
  }                                                                                                 \
  if (bound(#name)) {                                                                               \
    cls.def(#name, [](const Tensor& x) { return name(x); });                                        \
    cls.def(#name "_", [](nb::handle self) {                                                        \
      name##_(nb::cast<Tensor&>(self));                                                             \
      return nb::borrow(self);                                                                      \
    });                                                                                             \
  }
#include "ember/unary_ops.def"
#undef EMBER_UNARY_OP
  // torch's aliases of unary ops: the same functions and methods under a second name.
  for (auto [alias, name] : {std::pair{"arccos", "acos"}, {"arcsin", "asin"}, {"arctan", "atan"}, {"arccosh", "acosh"},
                             {"arcsinh", "asinh"}, {"arctanh", "atanh"}, {"absolute", "abs"}, {"negative", "neg"},
                             {"fix", "trunc"}}) {
    m.attr(alias) = m.attr(name);
    cls.attr(alias) = cls.attr(name);
    cls.attr((std::string(alias) + "_").c_str()) = cls.attr((std::string(name) + "_").c_str());
  }
  // +x: x itself (bool refused), as torch.positive
  auto positive = [](nb::handle x) {
    EMBER_CHECK(nb::cast<const Tensor&>(x).dtype() != kBool, Error, "The `+` operator, on a bool tensor is not supported.");
    return nb::borrow(x);
  };
  m.def("positive", positive, nb::arg("input"));
  cls.def("positive", positive);
  cls.def("__pos__", positive);
  cls.def("__neg__", [](const Tensor& x) { return neg(x); });
  cls.def("__abs__", [](const Tensor& x) { return abs(x); });
  cls.def("__invert__", [](const Tensor& x) {
    EMBER_CHECK(!x.is_floating_point(), TypeError, "~ (operator.invert) is only implemented on integer and Boolean-type tensors");
    return bitwise_not(x);
  });
  m.def("logical_not", [](const Tensor& x, nb::handle out) -> nb::object {
    if (out.is_none()) return nb::cast(logical_not(x));
    logical_not_out(nb::cast<Tensor&>(out), x);
    return nb::borrow(out);
  }, nb::arg("input"), nb::kw_only(), nb::arg("out") = nb::none());
  cls.def("logical_not", &logical_not);

  // clamp/clip: bounds are numbers or tensors; the in-place forms write back into the tensor.
  // A number bound selects torch's clamp(Tensor, Scalar?, Scalar?): a 0-dim tensor bound is then a number too.
  auto is_number = [](nb::handle h) { return !h.is_none() && !nb::isinstance<Tensor>(h); };
  auto number_bound = [](nb::handle h, nb::handle other) -> std::optional<Scalar> {
    if (h.is_none()) return std::nullopt;
    if (nb::isinstance<Tensor>(h)) {
      const Tensor& t = nb::cast<const Tensor&>(h);
      EMBER_CHECK(t.dim() == 0 && !t.requires_grad(), TypeError, "clamp() received an invalid combination of "
                  "arguments - got a Tensor bound of ", t.dim(), " dims", t.requires_grad() ? " that requires grad" : "",
                  " and a ", nb::inst_name(other).c_str(), " bound, but expected one of:\n"
                  " * (Tensor input, Tensor min = None, Tensor max = None, *, Tensor out = None)\n"
                  " * (Tensor input, Number min = None, Number max = None, *, Tensor out = None)\n");
      return t.item();
    }
    return require_operand(h, "clamp").item();  // torch's TypeError for what is no number
  };
  auto tensor_bound = [](nb::handle h) { return h.is_none() ? std::nullopt : std::optional<Tensor>(nb::cast<Tensor>(h)); };
  for (const char* name : {"clamp", "clip"}) {
    auto impl = [=](const Tensor& x, nb::handle min, nb::handle max) {
      if (is_number(min) || is_number(max)) return clamp(x, number_bound(min, max), number_bound(max, min));
      return clamp(x, tensor_bound(min), tensor_bound(max));
    };
    m.def(name, [=](const Tensor& x, nb::handle min, nb::handle max, nb::handle out) {
      return fn_or_out(out, [&] { return impl(x, min, max); }, [&](Tensor& o) {
        if (is_number(min) || is_number(max)) clamp_out(o, x, number_bound(min, max), number_bound(max, min));
        else clamp_out(o, x, tensor_bound(min), tensor_bound(max));
      });
    }, nb::arg("input"), nb::arg("min") = nb::none(), nb::arg("max") = nb::none(), nb::kw_only(),
       nb::arg("out") = nb::none());
    cls.def(name, impl, nb::arg("min") = nb::none(), nb::arg("max") = nb::none());
    cls.def((std::string(name) + "_").c_str(), [=](nb::handle self, nb::handle min, nb::handle max) {
      Tensor& x = nb::cast<Tensor&>(self);
      if (is_number(min) || is_number(max)) clamp_(x, number_bound(min, max), number_bound(max, min));
      else clamp_(x, tensor_bound(min), tensor_bound(max));
      return nb::borrow(self);
    }, nb::arg("min") = nb::none(), nb::arg("max") = nb::none());
  }
  auto lerp_impl = [](const Tensor& a, const Tensor& b, nb::handle w) { return lerp(a, b, require_operand(w, "lerp")); };
  m.def("lerp", [](const Tensor& a, const Tensor& b, nb::handle w, nb::handle out) {
    Tensor weight = require_operand(w, "lerp");
    return fn_or_out(out, [&] { return lerp(a, b, weight); }, [&](Tensor& o) { lerp_out(o, a, b, weight); });
  }, nb::arg("input"), nb::arg("end"), nb::arg("weight"), nb::kw_only(), nb::arg("out") = nb::none());
  cls.def("lerp", lerp_impl, nb::arg("end"), nb::arg("weight"));
  auto nan_impl = [](const Tensor& x, double nan, std::optional<double> posinf, std::optional<double> neginf) {
    return nan_to_num(x, nan, posinf, neginf);
  };
  m.def("nan_to_num", [](const Tensor& x, double nan, std::optional<double> posinf, std::optional<double> neginf,
                         nb::handle out) -> nb::object {
    if (out.is_none()) return nb::cast(nan_to_num(x, nan, posinf, neginf));
    nan_to_num_out(nb::cast<Tensor&>(out), x, nan, posinf, neginf);
    return nb::borrow(out);
  }, nb::arg("input"), nb::arg("nan") = 0.0, nb::arg("posinf") = nb::none(), nb::arg("neginf") = nb::none(),
        nb::kw_only(), nb::arg("out") = nb::none());
  cls.def("nan_to_num", nan_impl, nb::arg("nan") = 0.0, nb::arg("posinf") = nb::none(), nb::arg("neginf") = nb::none());
  m.def("gelu", [](const Tensor& x, const std::string& approximate, nb::handle out) {
    EMBER_CHECK(approximate == "none" || approximate == "tanh", ValueError, "approximate argument must be either none or tanh.");
    bool tanh = approximate == "tanh";
    return fn_or_out(out, [&] { return gelu(x, tanh); }, [&](Tensor& o) { gelu_out(o, x, tanh); });
  }, nb::arg("input"), nb::arg("approximate") = "none", nb::kw_only(), nb::arg("out") = nb::none());
  m.def("softplus", [](const Tensor& x, double beta, double threshold, nb::handle out) {
    return fn_or_out(out, [&] { return softplus(x, beta, threshold); },
                     [&](Tensor& o) { softplus_out(o, x, beta, threshold); });
  }, nb::arg("input"), nb::arg("beta") = 1.0, nb::arg("threshold") = 20.0, nb::kw_only(), nb::arg("out") = nb::none());
  auto round_impl = [](const Tensor& x, int64_t decimals) { return round(x, decimals); };
  m.def("round", [](const Tensor& x, int64_t decimals, nb::handle out) {
    return fn_or_out(out, [&] { return round(x, decimals); }, [&](Tensor& o) { round_out(o, x, decimals); });
  }, nb::arg("input"), nb::kw_only(), nb::arg("decimals") = 0, nb::arg("out") = nb::none());
  cls.def("round", round_impl, nb::kw_only(), nb::arg("decimals") = 0);
  // isclose(Tensor input, Tensor other, ...): no Scalar overload in torch
  auto close_impl = [](int pos) {
    return [pos](const Tensor& a, nb::handle b, double rtol, double atol, bool equal_nan) {
      return isclose(a, require_tensor(b, "isclose", pos), rtol, atol, equal_nan);
    };
  };
  m.def("isclose", close_impl(2), nb::arg("input"), nb::arg("other").none(), nb::arg("rtol") = 1e-5, nb::arg("atol") = 1e-8,
        nb::arg("equal_nan") = false);
  cls.def("isclose", close_impl(1), nb::arg("other").none(), nb::arg("rtol") = 1e-5, nb::arg("atol") = 1e-8,
          nb::arg("equal_nan") = false);
  m.def("allclose", &allclose, nb::arg("input"), nb::arg("other"), nb::arg("rtol") = 1e-5, nb::arg("atol") = 1e-8,
        nb::arg("equal_nan") = false);
  cls.def("allclose", &allclose, nb::arg("other"), nb::arg("rtol") = 1e-5, nb::arg("atol") = 1e-8,
          nb::arg("equal_nan") = false);
  m.def("equal", &equal, nb::arg("input"), nb::arg("other"));
  cls.def("equal", &equal, nb::arg("other"));

  m.def("where", [](const Tensor& c, nb::handle a, nb::handle b, nb::handle out) {
    if (!out.is_none()) {  // torch's where.self_out takes tensors only
      int pos = 2;
      for (auto [h, arg] : {std::pair{a, "input"}, std::pair{b, "other"}}) {
        EMBER_CHECK(nb::isinstance<Tensor>(h), TypeError, "where(): argument '", arg, "' (position ", pos, ") must be "
                    "Tensor, not ", nb::inst_name(h).c_str());
        ++pos;
      }
    }
    Tensor x = require_operand(a, "where"), y = require_operand(b, "where");
    return fn_or_out(out, [&] { return where(c, x, y); }, [&](Tensor& o) { where_out(o, c, x, y); });
  }, nb::arg("condition"), nb::arg("input"), nb::arg("other"), nb::kw_only(), nb::arg("out") = nb::none());
  cls.def("where", [](const Tensor& self, const Tensor& c, nb::handle b) { return where(c, self, require_operand(b, "where")); },
          nb::arg("condition"), nb::arg("other"));
  for (auto [name, fn] : {std::pair{"isnan", &isnan}, std::pair{"isinf", &isinf}, std::pair{"isfinite", &isfinite}}) {
    m.def(name, fn, nb::arg("input"));
    cls.def(name, fn);
  }

  // Joining: a sequence of tensors; out= is resized and written like the elementwise ops' out=.
  using Join = Tensor (*)(std::span<const Tensor>, int64_t);
  using JoinOut = Tensor& (*)(Tensor&, std::span<const Tensor>, int64_t);
  auto join = [](Join fn, JoinOut out_fn, const char* name) {
    return [fn, out_fn, name](nb::handle tensors, int64_t dim, nb::handle out) -> nb::object {
      EMBER_CHECK(nb::isinstance<nb::sequence>(tensors) && !nb::isinstance<Tensor>(tensors), TypeError, name,
                  "(): argument 'tensors' (position 1) must be tuple of Tensors, not ", Py_TYPE(tensors.ptr())->tp_name);
      std::vector<Tensor> list;
      for (nb::handle t : tensors) list.push_back(tensor_element(t, list.size()));
      if (out.is_none()) return nb::cast(fn(list, dim));
      out_fn(nb::cast<Tensor&>(out), list, dim);
      return nb::borrow(out);
    };
  };
  for (const char* name : {"cat", "concat", "concatenate"}) {
    m.def(name, join(&cat, &cat_out, "cat"), nb::arg("tensors"), nb::arg("dim") = 0, nb::kw_only(), nb::arg("out") = nb::none());
  }
  m.def("stack", join(&stack, &stack_out, "stack"), nb::arg("tensors"), nb::arg("dim") = 0, nb::kw_only(), nb::arg("out") = nb::none());

  m.def("result_type", [](nb::handle a, nb::handle b) {
    const Tensor ops[2] = {require_operand(a, "result_type"), require_operand(b, "result_type")};
    return result_type(ops);
  }, nb::arg("tensor1"), nb::arg("tensor2"));
  m.def("promote_types", &promote_types, nb::arg("type1"), nb::arg("type2"));
  m.def("can_cast", &can_cast, nb::arg("from_"), nb::arg("to"));
}

}  // namespace ember::py
