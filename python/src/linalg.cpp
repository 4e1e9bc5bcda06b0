// The matmul family: functions, Tensor methods and the @ operator.
#include "bindings.h"

namespace ember::py {

namespace {

// inner of 1-D tensors: torch's tensordot, a view of dot's result (ViewBackward0 over DotBackward0).
Tensor inner(const Tensor& a, const Tensor& b) { return dot(a, b).view(IntArrayRef()); }

}  // namespace

void init_linalg(nb::module_& m, nb::class_<Tensor>& cls) {
  using Binary = Tensor (*)(const Tensor&, const Tensor&);
  for (auto [name, fn] : {std::pair<const char*, Binary>{"matmul", &matmul}, {"mm", &mm}, {"bmm", &bmm}, {"mv", &mv},
                          {"dot", &dot}, {"outer", &outer}, {"ger", &outer}, {"inner", &inner}}) {
    m.def(name, fn, nb::arg("input"), nb::arg("other"));
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
  using Fused = Tensor (*)(const Tensor&, const Tensor&, const Tensor&, const Scalar&, const Scalar&);
  for (auto [name, fn] : {std::pair<const char*, Fused>{"addmm", &addmm}, {"addmv", &addmv}, {"baddbmm", &baddbmm}}) {
    m.def(name, fn, nb::arg("input"), nb::arg("mat1"), nb::arg("mat2"), nb::kw_only(), nb::arg("beta") = 1,
          nb::arg("alpha") = 1);
    cls.def(name, fn, nb::arg("mat1"), nb::arg("mat2"), nb::kw_only(), nb::arg("beta") = 1, nb::arg("alpha") = 1);
  }
}

}  // namespace ember::py
