// Reductions: sum, mean, prod, amax, amin, all, any, and the (values, indices) pairs of max/min.
#include <nanobind/stl/pair.h>

#include <tuple>

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
  // torch's two signatures each: name(input, *, dtype) over everything (SumBackward0), and name(input, dim,
  // keepdim=False, *, dtype) (SumBackward1), whose dim is int[1]? for sum and mean (None or () is every dim,
  // given as the full list so the second node is recorded; dim 0 of a 0-dim tensor) and one int for prod.
  for (auto [name, fn, int_dim] : {std::tuple<const char*, DtypeReduction, bool>{"sum", &sum, false},
                                   {"mean", &mean, false}, {"prod", &prod, true}}) {
    auto whole = [fn](const Tensor& x, std::optional<ScalarType> dtype) { return fn(x, {}, false, dtype); };
    auto along = [fn, int_dim, name](const Tensor& x, nb::handle dim, bool keepdim, std::optional<ScalarType> dtype) {
      DimVector dims;
      if (int_dim) {
        auto d = int_scalar(dim);
        EMBER_CHECK(d, TypeError, name, "(): argument 'dim' must be int, not ", nb::inst_name(dim).c_str());
        dims = {*d};
      } else {
        dims = dims_arg(dim);
        if (dims.empty()) for (int64_t d = 0; d < std::max<int64_t>(x.dim(), 1); ++d) dims.push_back(d);
      }
      return fn(x, dims, keepdim, dtype);
    };
    m.def(name, whole, nb::arg("input"), nb::kw_only(), nb::arg("dtype") = nb::none());
    m.def(name, along, nb::arg("input"), nb::arg("dim").none(), nb::arg("keepdim") = false, nb::kw_only(),
          nb::arg("dtype") = nb::none());
    cls.def(name, whole, nb::kw_only(), nb::arg("dtype") = nb::none());
    cls.def(name, along, nb::arg("dim").none(), nb::arg("keepdim") = false, nb::kw_only(), nb::arg("dtype") = nb::none());
  }
  for (auto [name, fn] : {std::pair<const char*, PlainReduction>{"amax", &amax}, {"amin", &amin}}) {
    auto impl = [fn](const Tensor& x, nb::handle dim, bool keepdim) { return fn(x, dims_arg(dim), keepdim); };
    m.def(name, impl, nb::arg("input"), nb::arg("dim") = nb::none(), nb::arg("keepdim") = false);
    cls.def(name, impl, nb::arg("dim") = nb::none(), nb::arg("keepdim") = false);
  }
  using LogicalReduction = Tensor (*)(const Tensor&, OptionalIntArrayRef, bool);
  for (auto [name, fn] : {std::pair<const char*, LogicalReduction>{"all", &all}, {"any", &any}}) {
    auto impl = [fn](const Tensor& x, nb::handle dim, bool keepdim) {  // dim=() reduces nothing, as torch
      return dim.is_none() ? fn(x, std::nullopt, keepdim) : fn(x, dims_arg(dim), keepdim);
    };
    m.def(name, impl, nb::arg("input"), nb::arg("dim") = nb::none(), nb::arg("keepdim") = false);
    cls.def(name, impl, nb::arg("dim") = nb::none(), nb::arg("keepdim") = false);
  }
  // var/std: correction (or the older unbiased=) and dims; var_mean/std_mean return (var, mean).
  // (dims, correction); a bool in dim's place is torch's std(x, unbiased) overload.
  auto spread_args = [](nb::handle dim, std::optional<bool> unbiased, std::optional<double> correction) {
    if (PyBool_Check(dim.ptr())) unbiased = dim.ptr() == Py_True;
    double c = correction ? *correction : (unbiased.value_or(true) ? 1.0 : 0.0);
    return std::pair{PyBool_Check(dim.ptr()) ? DimVector{} : dims_arg(dim), c};
  };
  using Spread = Tensor (*)(const Tensor&, IntArrayRef, double, bool);
  for (auto [name, fn] : {std::pair<const char*, Spread>{"var", &var}, {"std", &std}}) {
    auto impl = [fn, spread_args](const Tensor& x, nb::handle dim, std::optional<bool> unbiased, bool keepdim,
                                  std::optional<double> correction) {
      auto [dims, c] = spread_args(dim, unbiased, correction);
      return fn(x, dims, c, keepdim);
    };
    m.def(name, impl, nb::arg("input"), nb::arg("dim") = nb::none(), nb::arg("unbiased") = nb::none(),
          nb::arg("keepdim") = false, nb::kw_only(), nb::arg("correction") = nb::none());
    cls.def(name, impl, nb::arg("dim") = nb::none(), nb::arg("unbiased") = nb::none(), nb::arg("keepdim") = false,
            nb::kw_only(), nb::arg("correction") = nb::none());
  }
  using SpreadMean = std::pair<Tensor, Tensor> (*)(const Tensor&, IntArrayRef, double, bool);
  for (auto [name, fn] : {std::pair<const char*, SpreadMean>{"var_mean", &var_mean}, {"std_mean", &std_mean}}) {
    m.def(name, [fn, spread_args](const Tensor& x, nb::handle dim, std::optional<bool> unbiased, bool keepdim,
                                  std::optional<double> correction) {
      auto [dims, c] = spread_args(dim, unbiased, correction);
      auto [a, b] = fn(x, dims, c, keepdim);
      return nb::make_tuple(a, b);
    }, nb::arg("input"), nb::arg("dim") = nb::none(), nb::arg("unbiased") = nb::none(), nb::arg("keepdim") = false,
       nb::kw_only(), nb::arg("correction") = nb::none());
  }
  auto norm_impl = [](const Tensor& x, nb::handle p, nb::handle dim, bool keepdim) {
    double order = 2;
    // torch.norm hands an int dim on as a one-element list (an overflow is that list's TypeError)
    DimVector dims = PyLong_Check(dim.ptr()) ? int_list(nb::make_tuple(dim), "dim", false) : dims_arg(dim);
    if (PyUnicode_Check(p.ptr())) {
      EMBER_CHECK(nb::cast<std::string>(p) == "fro", ValueError, "norm: unsupported p '", nb::cast<std::string>(p), "'");
      std::string got;  // torch's 'fro' over more than two dims is a matrix norm
      for (int64_t d : dims) got += (got.empty() ? "" : " ") + std::to_string(d);
      EMBER_CHECK(dims.size() <= 2, Error, "linalg.matrix_norm: dim must be a 2-tuple. Got ", got);
    } else if (!p.is_none()) {
      order = nb::cast<double>(p);
    }
    return norm(x, order, dims, keepdim);
  };
  m.def("norm", norm_impl, nb::arg("input"), nb::arg("p") = "fro", nb::arg("dim") = nb::none(), nb::arg("keepdim") = false);
  cls.def("norm", norm_impl, nb::arg("p") = "fro", nb::arg("dim") = nb::none(), nb::arg("keepdim") = false);
  auto count_impl = [](const Tensor& x, nb::handle dim) { return count_nonzero(x, dims_arg(dim)); };
  m.def("count_nonzero", count_impl, nb::arg("input"), nb::arg("dim") = nb::none());
  cls.def("count_nonzero", count_impl, nb::arg("dim") = nb::none());
  auto lse = [](const Tensor& x, nb::handle dim, bool keepdim) { return logsumexp(x, dims_arg(dim), keepdim); };
  m.def("logsumexp", lse, nb::arg("input"), nb::arg("dim"), nb::arg("keepdim") = false);
  cls.def("logsumexp", lse, nb::arg("dim"), nb::arg("keepdim") = false);
  using Along = Tensor (*)(const Tensor&, int64_t, std::optional<ScalarType>);
  for (auto [name, fn] : {std::pair<const char*, Along>{"softmax", &softmax}, {"log_softmax", &log_softmax},
                          {"cumsum", &cumsum}, {"cumprod", &cumprod}}) {
    m.def(name, fn, nb::arg("input"), nb::arg("dim"), nb::kw_only(), nb::arg("dtype") = nb::none());
    cls.def(name, fn, nb::arg("dim"), nb::kw_only(), nb::arg("dtype") = nb::none());
  }

  m.def("_max_all", [](const Tensor& x) { return max(x); });
  m.def("_min_all", [](const Tensor& x) { return min(x); });
  m.def("_max_dim", [](const Tensor& x, int64_t dim, bool keepdim) { return max(x, dim, keepdim); });
  m.def("_min_dim", [](const Tensor& x, int64_t dim, bool keepdim) { return min(x, dim, keepdim); });
  for (auto [name, fn] : {std::pair{"argmax", &argmax}, std::pair{"argmin", &argmin}}) {
    auto impl = [fn](const Tensor& x, std::optional<int64_t> dim, bool keepdim) { return fn(x, dim, keepdim); };
    m.def(name, impl, nb::arg("input"), nb::arg("dim") = nb::none(), nb::arg("keepdim") = false);
    cls.def(name, impl, nb::arg("dim") = nb::none(), nb::arg("keepdim") = false);
  }
}

}  // namespace ember::py
