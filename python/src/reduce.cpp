// Reductions: sum, mean, prod, amax, amin, all, any, and the (values, indices) pairs of max/min.
#include <nanobind/stl/pair.h>

#include "bindings.h"

namespace ember::py {

namespace {

// dim=None or () means every dim; an int or a sequence of ints otherwise.
DimVector dims_arg(nb::handle dim) {
  if (dim.is_none()) return {};
  return int_list(dim, "dim");
}

using DtypeReduction = Tensor (*)(const Tensor&, IntArrayRef, bool, std::optional<ScalarType>);
using PlainReduction = Tensor (*)(const Tensor&, IntArrayRef, bool);

}  // namespace

void init_reduce(nb::module_& m, nb::class_<Tensor>& cls) {
  for (auto [name, fn] : {std::pair<const char*, DtypeReduction>{"sum", &sum}, {"mean", &mean}, {"prod", &prod}}) {
    auto impl = [fn](const Tensor& x, nb::handle dim, bool keepdim, std::optional<ScalarType> dtype) {
      return fn(x, dims_arg(dim), keepdim, dtype);
    };
    m.def(name, impl, nb::arg("input"), nb::arg("dim") = nb::none(), nb::arg("keepdim") = false, nb::kw_only(),
          nb::arg("dtype") = nb::none());
    cls.def(name, impl, nb::arg("dim") = nb::none(), nb::arg("keepdim") = false, nb::kw_only(),
            nb::arg("dtype") = nb::none());
  }
  for (auto [name, fn] : {std::pair<const char*, PlainReduction>{"amax", &amax}, {"amin", &amin}, {"all", &all},
                          {"any", &any}}) {
    bool logical = name[0] == 'a' && (name[1] == 'l' || name[1] == 'n');
    auto impl = [fn, logical](const Tensor& x, nb::handle dim, bool keepdim) {
      DimVector dims = dims_arg(dim);
      if (logical && dims.empty() && !dim.is_none()) {  // torch: all/any over dim=() reduce nothing
        Tensor truth = ne(x, wrapped_scalar(0));
        return x.dtype() == kUInt8 ? truth.to(kUInt8) : truth;
      }
      return fn(x, dims, keepdim);
    };
    m.def(name, impl, nb::arg("input"), nb::arg("dim") = nb::none(), nb::arg("keepdim") = false);
    cls.def(name, impl, nb::arg("dim") = nb::none(), nb::arg("keepdim") = false);
  }
  m.def("_max_dim", [](const Tensor& x, int64_t dim, bool keepdim) { return max(x, dim, keepdim); });
  m.def("_min_dim", [](const Tensor& x, int64_t dim, bool keepdim) { return min(x, dim, keepdim); });
  for (auto [name, fn] : {std::pair{"argmax", &argmax}, std::pair{"argmin", &argmin}}) {
    auto impl = [fn](const Tensor& x, std::optional<int64_t> dim, bool keepdim) { return fn(x, dim, keepdim); };
    m.def(name, impl, nb::arg("input"), nb::arg("dim") = nb::none(), nb::arg("keepdim") = false);
    cls.def(name, impl, nb::arg("dim") = nb::none(), nb::arg("keepdim") = false);
  }
}

}  // namespace ember::py
