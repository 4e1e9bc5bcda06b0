// Bindings of ember/pointwise.h, aminmax and lerp_: module functions (with out= where torch has it), Tensor methods
// and in-place forms.
#include "bindings.h"

namespace ember::py {

namespace {

// A Tensor argument `arg` of `fn` at Python position `pos`: torch's TypeError for anything else.
const Tensor& tensor_arg(nb::handle h, const char* fn, const char* arg, int pos) {
  EMBER_CHECK(nb::isinstance<Tensor>(h), TypeError, fn, "(): argument '", arg, "' (position ", pos,
              ") must be Tensor, not ", Py_TYPE(h.ptr())->tp_name);
  return nb::cast<const Tensor&>(h);
}

// A Tensor or a Python number (a wrapped number), as torch's Tensor-or-Scalar overloads.
Tensor tensor_or_number(nb::handle h, const char* fn, const char* arg, int pos) {
  if (nb::isinstance<Tensor>(h)) return nb::cast<Tensor>(h);
  return wrapped_scalar(number_arg(h, fn, arg, pos));
}

nb::object aminmax_result(std::pair<Tensor, Tensor> r) {
  return nb::module_::import_("ember.return_types").attr("aminmax")(r.first, r.second);
}

// Two-tensor ops (name(input, other, *, out=None), input.name(other), input.name_(other)): `arg` names `other`.
using Binary = Tensor (*)(const Tensor&, const Tensor&);
using BinaryOut = Tensor& (*)(Tensor&, const Tensor&, const Tensor&);
void def_tensor_pair(nb::module_& m, nb::class_<Tensor>& cls, const char* name, const char* arg, Binary fn,
                     BinaryOut out_fn, bool number_other) {
  auto other = [name, arg, number_other](nb::handle h, int pos) {
    return number_other ? tensor_or_number(h, name, arg, pos) : tensor_arg(h, name, arg, pos);
  };
  m.def(name, [=](const Tensor& x, nb::handle b, nb::handle out) {
    Tensor o = other(b, 2);
    return fn_or_out(out, [&] { return fn(x, o); }, [&](Tensor& t) { out_fn(t, x, o); });
  }, nb::arg("input"), nb::arg(arg).none(), nb::kw_only(), nb::arg("out") = nb::none());
  cls.def(name, [=](const Tensor& x, nb::handle b) { return fn(x, other(b, 1)); }, nb::arg(arg).none());
  cls.def((std::string(name) + "_").c_str(), [=](nb::handle self, nb::handle b) {
    Tensor& x = nb::cast<Tensor&>(self);
    out_fn(x, x, other(b, 1));
    return nb::borrow(self);
  }, nb::arg(arg).none());
}

}  // namespace

void init_pointwise(nb::module_& m, nb::class_<Tensor>& cls) {
  using AddcOut = Tensor& (*)(Tensor&, const Tensor&, const Tensor&, const Tensor&, const Scalar&);
  for (auto [name, out_fn] : {std::pair<const char*, AddcOut>{"addcmul", &addcmul_out}, {"addcdiv", &addcdiv_out}}) {
    auto fn = std::string_view(name) == "addcmul" ? &addcmul : &addcdiv;
    m.def(name, [=](const Tensor& x, const Tensor& t1, const Tensor& t2, const Scalar& value, nb::handle out) {
      return fn_or_out(out, [&] { return fn(x, t1, t2, value); }, [&](Tensor& o) { out_fn(o, x, t1, t2, value); });
    }, nb::arg("input"), nb::arg("tensor1"), nb::arg("tensor2"), nb::kw_only(), nb::arg("value") = 1,
       nb::arg("out") = nb::none());
    cls.def(name, fn, nb::arg("tensor1"), nb::arg("tensor2"), nb::kw_only(), nb::arg("value") = 1);
    cls.def((std::string(name) + "_").c_str(), [=](nb::handle self, const Tensor& t1, const Tensor& t2, const Scalar& value) {
      Tensor& x = nb::cast<Tensor&>(self);
      out_fn(x, x, t1, t2, value);
      return nb::borrow(self);
    }, nb::arg("tensor1"), nb::arg("tensor2"), nb::kw_only(), nb::arg("value") = 1);
  }

  // clamp_min/clamp_max: a number or a tensor bound.
  using Clamp = Tensor (*)(const Tensor&, const Tensor&);
  using ClampInPlace = Tensor& (*)(Tensor&, const Tensor&);
  for (auto [name, arg, fn, in_place] : {std::tuple<const char*, const char*, Clamp, ClampInPlace>{
                                             "clamp_min", "min", &clamp_min, &clamp_min_},
                                         {"clamp_max", "max", &clamp_max, &clamp_max_}}) {
    auto bound = [name, arg](nb::handle h) { return tensor_or_number(h, name, arg, 2); };
    m.def(name, [=](const Tensor& x, nb::handle b, nb::handle out) {
      Tensor t = bound(b);
      return fn_or_out(out, [&] { return fn(x, t); }, [&](Tensor& o) {
        Tensor r = fn(x, t);  // torch's structured out=: exactly the result's dtype
        EMBER_CHECK(o.dtype() == r.dtype(), Error, "Found dtype ", legacy_name(o.dtype()), " but expected ",
                    legacy_name(r.dtype()));
        composite_out(o, {&x, &t}, name, [&] { return r; });
      });
    }, nb::arg("input"), nb::arg(arg), nb::kw_only(), nb::arg("out") = nb::none());
    cls.def(name, [=](const Tensor& x, nb::handle b) { return fn(x, bound(b)); }, nb::arg(arg));
    cls.def((std::string(name) + "_").c_str(), [=](nb::handle self, nb::handle b) {
      in_place(nb::cast<Tensor&>(self), bound(b));
      return nb::borrow(self);
    }, nb::arg(arg));
  }

  def_tensor_pair(m, cls, "heaviside", "values", &heaviside, &heaviside_out, false);
  def_tensor_pair(m, cls, "ldexp", "other", &ldexp, &ldexp_out, false);
  def_tensor_pair(m, cls, "float_power", "exponent", &float_power, &float_power_out, true);
  // float_power(number, tensor): a number base
  m.def("float_power", [](nb::handle base, const Tensor& exponent, nb::handle out) {
    Tensor b = tensor_or_number(base, "float_power", "input", 1);
    return fn_or_out(out, [&] { return float_power(b, exponent); }, [&](Tensor& o) { float_power_out(o, b, exponent); });
  }, nb::arg("input"), nb::arg("exponent"), nb::kw_only(), nb::arg("out") = nb::none());

  for (auto [name, fn] : {std::pair{"isneginf", &isneginf}, std::pair{"isposinf", &isposinf}}) {
    m.def(name, [name, fn](const Tensor& x, nb::handle out) {
      return fn_or_out(out, [&] { return fn(x); }, [&](Tensor& o) {
        EMBER_CHECK(o.dtype() == kBool, Error, name, " does not support non-boolean outputs.");
        Tensor r = fn(x);
        resize_output_like(o, r);
        o.copy_(r);
      });
    }, nb::arg("input"), nb::kw_only(), nb::arg("out") = nb::none());
    cls.def(name, fn);
  }

  auto aminmax_impl = [](const Tensor& x, std::optional<int64_t> dim, bool keepdim) {
    return aminmax_result(aminmax(x, dim, keepdim));
  };
  m.def("aminmax", aminmax_impl, nb::arg("input"), nb::kw_only(), nb::arg("dim") = nb::none(), nb::arg("keepdim") = false);
  cls.def("aminmax", aminmax_impl, nb::kw_only(), nb::arg("dim") = nb::none(), nb::arg("keepdim") = false);

  // polygamma(n, x) for n = 0 (digamma) and 1 (trigamma, a row of unary_ops.def); torch.special.i1 as _special_i1
  auto polygamma_fn = [](int64_t n) {
    EMBER_CHECK(n >= 0, Error, "polygamma(n, x) does not support negative n.");
    EMBER_CHECK(n <= 1, NotImplementedError, "polygamma(n, x) is implemented for n = 0 and 1 only, got n = ", n);
    return n == 0 ? std::pair{&digamma, &digamma_out} : std::pair{&trigamma, &trigamma_out};
  };
  m.def("polygamma", [=](int64_t n, const Tensor& x, nb::handle out) {
    auto [fn, out_fn] = polygamma_fn(n);
    return fn_or_out(out, [&] { return fn(x); }, [&](Tensor& o) { out_fn(o, x); });
  }, nb::arg("n"), nb::arg("input"), nb::kw_only(), nb::arg("out") = nb::none());
  cls.def("polygamma", [=](const Tensor& x, int64_t n) { return polygamma_fn(n).first(x); }, nb::arg("n"));
  cls.def("polygamma_", [=](nb::handle self, int64_t n) {
    Tensor& x = nb::cast<Tensor&>(self);
    polygamma_fn(n).second(x, x);
    return nb::borrow(self);
  }, nb::arg("n"));
  m.def("_special_i1", [](const Tensor& x, nb::handle out) {
    return fn_or_out(out, [&] { return i1(x); }, [&](Tensor& o) { i1_out(o, x); });
  }, nb::arg("input"), nb::kw_only(), nb::arg("out") = nb::none());

  cls.def("lerp_", [](nb::handle self, const Tensor& end, nb::handle weight) {
    lerp_(nb::cast<Tensor&>(self), end, tensor_or_number(weight, "lerp_", "weight", 2));
    return nb::borrow(self);
  }, nb::arg("end"), nb::arg("weight"));
}

}  // namespace ember::py
