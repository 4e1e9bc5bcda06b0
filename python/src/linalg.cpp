// The matmul family: functions, Tensor methods and the @ operator.
#include "bindings.h"

namespace ember::py {

void init_linalg(nb::module_& m, nb::class_<Tensor>& cls) {
  using Binary = Tensor (*)(const Tensor&, const Tensor&);
  using BinaryOut = Tensor& (*)(Tensor&, const Tensor&, const Tensor&);
  for (auto [name, fn, fn_out] : {std::tuple<const char*, Binary, BinaryOut>{"matmul", &matmul, &matmul_out},
                                  {"mm", &mm, &mm_out}, {"bmm", &bmm, &bmm_out}, {"mv", &mv, &mv_out},
                                  {"dot", &dot, &dot_out}, {"vdot", &vdot, &vdot_out}, {"outer", &outer, &outer_out},
                                  {"ger", &outer, &outer_out}, {"inner", &inner, &inner_out}}) {
    m.def(name, [fn, fn_out](const Tensor& a, const Tensor& b, nb::handle out) {
      return fn_or_out(out, [&] { return fn(a, b); }, [&](Tensor& o) { fn_out(o, a, b); });
    }, nb::arg("input"), nb::arg("other"), nb::kw_only(), nb::arg("out") = nb::none());
    cls.def(name, fn, nb::arg("other"));
  }
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
  using FusedOut = Tensor& (*)(Tensor&, const Tensor&, const Tensor&, const Tensor&, const Scalar&, const Scalar&);
  for (auto [name, fn, in_place, fn_out, a, b] : {
           std::tuple<const char*, Fused, FusedInPlace, FusedOut, const char*, const char*>{
               "addmm", &addmm, &addmm_, &addmm_out, "mat1", "mat2"},
           {"addmv", &addmv, &addmv_, &addmv_out, "mat", "vec"},
           {"baddbmm", &baddbmm, &baddbmm_, &baddbmm_out, "batch1", "batch2"},
           {"addr", &addr, &addr_, &addr_out, "vec1", "vec2"},
           {"addbmm", &addbmm, &addbmm_, &addbmm_out, "batch1", "batch2"}}) {
    m.def(name, [fn, fn_out](const Tensor& input, const Tensor& x, const Tensor& y, const Scalar& beta,
                             const Scalar& alpha, nb::handle out) {
      return fn_or_out(out, [&] { return fn(input, x, y, beta, alpha); },
                       [&](Tensor& o) { fn_out(o, input, x, y, beta, alpha); });
    }, nb::arg("input"), nb::arg(a), nb::arg(b), nb::kw_only(), nb::arg("beta") = 1, nb::arg("alpha") = 1,
       nb::arg("out") = nb::none());
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
