// The matmul family: functions, Tensor methods and the @ operator.
#include "bindings.h"

namespace ember::py {

void init_linalg(nb::module_& m, nb::class_<Tensor>& cls) {
  using Binary = Tensor (*)(const Tensor&, const Tensor&);
  for (auto [name, fn] : {std::pair<const char*, Binary>{"matmul", &matmul}, {"mm", &mm}, {"bmm", &bmm}, {"mv", &mv},
                          {"dot", &dot}, {"outer", &outer}, {"ger", &outer}, {"inner", &inner}}) {
    m.def(name, fn, nb::arg("input"), nb::arg("other"));
    cls.def(name, fn, nb::arg("other"));
  }
  // vdot(input, other, *, out=None): out must have the inputs' dtype
  m.def("vdot", [](const Tensor& a, const Tensor& b, nb::handle out) -> nb::object {
    if (out.is_none()) return nb::cast(vdot(a, b));
    Tensor& o = nb::cast<Tensor&>(out);
    EMBER_CHECK(o.dtype() == a.dtype(), Error, "result dtype ", dtype_info(o.dtype()).legacy_name,
                " does not match input dtype ", dtype_info(a.dtype()).legacy_name);
    composite_out(o, {&a, &b}, "vdot", [&] { return vdot(a, b); });
    return nb::borrow(out);
  }, nb::arg("input"), nb::arg("other"), nb::kw_only(), nb::arg("out") = nb::none());
  cls.def("vdot", &vdot, nb::arg("other"));
  cls.def("__matmul__", [](const Tensor& a, nb::handle b) -> nb::object {
    if (!nb::isinstance<Tensor>(b)) return nb::borrow(Py_NotImplemented);
    return nb::cast(matmul(a, nb::cast<const Tensor&>(b)));
  });
  cls.def("__rmatmul__", [](const Tensor& a, nb::handle b) -> nb::object {
    if (!nb::isinstance<Tensor>(b)) return nb::borrow(Py_NotImplemented);
    return nb::cast(matmul(nb::cast<const Tensor&>(b), a));
  });
  // The fused products: name(input, a, b, *, beta=1, alpha=1), the method, and the in-place method (addmv_ also
  // a module function, as torch). Their second and third arguments keep torch's names.
  using Fused = Tensor (*)(const Tensor&, const Tensor&, const Tensor&, const Scalar&, const Scalar&);
  using FusedInPlace = Tensor& (*)(Tensor&, const Tensor&, const Tensor&, const Scalar&, const Scalar&);
  for (auto [name, fn, in_place, a, b] : {
           std::tuple<const char*, Fused, FusedInPlace, const char*, const char*>{"addmm", &addmm, &addmm_, "mat1", "mat2"},
           {"addmv", &addmv, &addmv_, "mat", "vec"}, {"baddbmm", &baddbmm, &baddbmm_, "batch1", "batch2"},
           {"addr", &addr, &addr_, "vec1", "vec2"}, {"addbmm", &addbmm, &addbmm_, "batch1", "batch2"}}) {
    m.def(name, fn, nb::arg("input"), nb::arg(a), nb::arg(b), nb::kw_only(), nb::arg("beta") = 1, nb::arg("alpha") = 1);
    cls.def(name, fn, nb::arg(a), nb::arg(b), nb::kw_only(), nb::arg("beta") = 1, nb::arg("alpha") = 1);
    auto apply = [in_place](nb::handle self, const Tensor& x, const Tensor& y, const Scalar& beta, const Scalar& alpha) {
      in_place(nb::cast<Tensor&>(self), x, y, beta, alpha);
      return nb::borrow(self);
    };
    std::string inplace = std::string(name) + "_";
    cls.def(inplace.c_str(), apply, nb::arg(a), nb::arg(b), nb::kw_only(), nb::arg("beta") = 1, nb::arg("alpha") = 1);
    if (inplace == "addmv_") {
      m.def("addmv_", apply, nb::arg("input"), nb::arg(a), nb::arg(b), nb::kw_only(), nb::arg("beta") = 1,
            nb::arg("alpha") = 1);
    }
  }
}

}  // namespace ember::py
