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
using DtypeReductionOut = Tensor& (*)(Tensor&, const Tensor&, IntArrayRef, bool, std::optional<ScalarType>);
using PlainReduction = Tensor (*)(const Tensor&, IntArrayRef, bool);
using PlainReductionOut = Tensor& (*)(Tensor&, const Tensor&, IntArrayRef, bool);

}  // namespace

void init_reduce(nb::module_& m, nb::class_<Tensor>& cls) {
  // torch's two signatures each: name(input, *, dtype) over everything (SumBackward0), and name(input, dim,
  // keepdim=False, *, dtype) (SumBackward1), whose dim is int[1]? for sum and mean (None or () is every dim,
  // given as the full list so the second node is recorded; dim 0 of a 0-dim tensor) and one int for prod.
  // The second takes out=; the first only for mean (torch's sum and prod over everything have no out=).
  for (auto [name, fn, fn_out, int_dim] : {std::tuple<const char*, DtypeReduction, DtypeReductionOut, bool>{
           "sum", &sum, &sum_out, false}, {"mean", &mean, &mean_out, false}, {"prod", &prod, &prod_out, true}}) {
    auto whole = [fn](const Tensor& x, std::optional<ScalarType> dtype) { return fn(x, {}, false, dtype); };
    auto dims_of = [int_dim, name](const Tensor& x, nb::handle dim) {
      DimVector dims;
      if (int_dim) {
        auto d = int_scalar(dim);
        EMBER_CHECK(d, TypeError, name, "(): argument 'dim' must be int, not ", nb::inst_name(dim).c_str());
        dims = {*d};
      } else {
        dims = dims_arg(dim);
        if (dims.empty()) for (int64_t d = 0; d < std::max<int64_t>(x.dim(), 1); ++d) dims.push_back(d);
      }
      return dims;
    };
    auto along = [fn, dims_of](const Tensor& x, nb::handle dim, bool keepdim, std::optional<ScalarType> dtype) {
      return fn(x, dims_of(x, dim), keepdim, dtype);
    };
    if (fn == &mean) {
      m.def(name, [](const Tensor& x, std::optional<ScalarType> dtype, nb::handle out) {
        return fn_or_out(out, [&] { return mean(x, {}, false, dtype); }, [&](Tensor& o) { mean_out(o, x, {}, false, dtype); });
      }, nb::arg("input"), nb::kw_only(), nb::arg("dtype") = nb::none(), nb::arg("out") = nb::none());
    } else {
      m.def(name, whole, nb::arg("input"), nb::kw_only(), nb::arg("dtype") = nb::none());
    }
    m.def(name, [fn, fn_out, dims_of](const Tensor& x, nb::handle dim, bool keepdim, std::optional<ScalarType> dtype,
                                      nb::handle out) {
      DimVector dims = dims_of(x, dim);
      return fn_or_out(out, [&] { return fn(x, dims, keepdim, dtype); },
                       [&](Tensor& o) { fn_out(o, x, dims, keepdim, dtype); });
    }, nb::arg("input"), nb::arg("dim").none(), nb::arg("keepdim") = false, nb::kw_only(),
       nb::arg("dtype") = nb::none(), nb::arg("out") = nb::none());
    cls.def(name, whole, nb::kw_only(), nb::arg("dtype") = nb::none());
    cls.def(name, along, nb::arg("dim").none(), nb::arg("keepdim") = false, nb::kw_only(), nb::arg("dtype") = nb::none());
  }
  for (auto [name, fn, fn_out] : {std::tuple<const char*, PlainReduction, PlainReductionOut>{"amax", &amax, &amax_out},
                                  {"amin", &amin, &amin_out}}) {
    m.def(name, [fn, fn_out](const Tensor& x, nb::handle dim, bool keepdim, nb::handle out) {
      DimVector dims = dims_arg(dim);
      return fn_or_out(out, [&] { return fn(x, dims, keepdim); }, [&](Tensor& o) { fn_out(o, x, dims, keepdim); });
    }, nb::arg("input"), nb::arg("dim") = nb::none(), nb::arg("keepdim") = false, nb::kw_only(),
       nb::arg("out") = nb::none());
    cls.def(name, [fn](const Tensor& x, nb::handle dim, bool keepdim) { return fn(x, dims_arg(dim), keepdim); },
            nb::arg("dim") = nb::none(), nb::arg("keepdim") = false);
  }
  using LogicalReduction = Tensor (*)(const Tensor&, OptionalIntArrayRef, bool);
  using LogicalReductionOut = Tensor& (*)(Tensor&, const Tensor&, OptionalIntArrayRef, bool);
  for (auto [name, fn, fn_out] : {std::tuple<const char*, LogicalReduction, LogicalReductionOut>{"all", &all, &all_out},
                                  {"any", &any, &any_out}}) {
    auto dims_of = [](nb::handle dim) {  // dim=() reduces nothing, as torch
      return dim.is_none() ? std::optional<DimVector>() : std::optional<DimVector>(dims_arg(dim));
    };
    auto opt = [](const std::optional<DimVector>& d) { return d ? OptionalIntArrayRef(*d) : OptionalIntArrayRef(); };
    m.def(name, [fn, fn_out, dims_of, opt](const Tensor& x, nb::handle dim, bool keepdim, nb::handle out) {
      auto dims = dims_of(dim);
      return fn_or_out(out, [&] { return fn(x, opt(dims), keepdim); }, [&](Tensor& o) { fn_out(o, x, opt(dims), keepdim); });
    }, nb::arg("input"), nb::arg("dim") = nb::none(), nb::arg("keepdim") = false, nb::kw_only(),
       nb::arg("out") = nb::none());
    cls.def(name, [fn, dims_of, opt](const Tensor& x, nb::handle dim, bool keepdim) {
      return fn(x, opt(dims_of(dim)), keepdim);
    }, nb::arg("dim") = nb::none(), nb::arg("keepdim") = false);
  }
  // var/std: correction (or the older unbiased=) and dims; var_mean/std_mean return (var, mean).
  // (dims, correction); a bool in dim's place is torch's std(x, unbiased) overload.
  auto spread_args = [](nb::handle dim, std::optional<bool> unbiased, std::optional<double> correction) {
    if (PyBool_Check(dim.ptr())) unbiased = dim.ptr() == Py_True;
    double c = correction ? *correction : (unbiased.value_or(true) ? 1.0 : 0.0);
    return std::pair{PyBool_Check(dim.ptr()) ? DimVector{} : dims_arg(dim), c};
  };
  using Spread = Tensor (*)(const Tensor&, IntArrayRef, double, bool);
  using SpreadOut = Tensor& (*)(Tensor&, const Tensor&, IntArrayRef, double, bool);
  for (auto [name, fn, fn_out] : {std::tuple<const char*, Spread, SpreadOut>{"var", &var, &var_out},
                                  {"std", &std, &std_out}}) {
    auto impl = [fn, spread_args](const Tensor& x, nb::handle dim, std::optional<bool> unbiased, bool keepdim,
                                  std::optional<double> correction) {
      auto [dims, c] = spread_args(dim, unbiased, correction);
      return fn(x, dims, c, keepdim);
    };
    m.def(name, [fn, fn_out, spread_args](const Tensor& x, nb::handle dim, std::optional<bool> unbiased, bool keepdim,
                                          std::optional<double> correction, nb::handle out) {
      auto [dims, c] = spread_args(dim, unbiased, correction);
      return fn_or_out(out, [&] { return fn(x, dims, c, keepdim); }, [&](Tensor& o) { fn_out(o, x, dims, c, keepdim); });
    }, nb::arg("input"), nb::arg("dim") = nb::none(), nb::arg("unbiased") = nb::none(), nb::arg("keepdim") = false,
       nb::kw_only(), nb::arg("correction") = nb::none(), nb::arg("out") = nb::none());
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
  // (p, dims) of torch.norm's arguments.
  auto norm_args = [](nb::handle p, nb::handle dim) {
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
    return std::pair{order, dims};
  };
  m.def("norm", [norm_args](const Tensor& x, nb::handle p, nb::handle dim, bool keepdim, nb::handle out) {
    auto [order, dims] = norm_args(p, dim);
    return fn_or_out(out, [&] { return norm(x, order, dims, keepdim); },
                     [&](Tensor& o) { norm_out(o, x, order, dims, keepdim); });
  }, nb::arg("input"), nb::arg("p") = "fro", nb::arg("dim") = nb::none(), nb::arg("keepdim") = false, nb::kw_only(),
     nb::arg("out") = nb::none());
  cls.def("norm", [norm_args](const Tensor& x, nb::handle p, nb::handle dim, bool keepdim) {
    auto [order, dims] = norm_args(p, dim);
    return norm(x, order, dims, keepdim);
  }, nb::arg("p") = "fro", nb::arg("dim") = nb::none(), nb::arg("keepdim") = false);
  auto count_impl = [](const Tensor& x, nb::handle dim) { return count_nonzero(x, dims_arg(dim)); };
  m.def("count_nonzero", count_impl, nb::arg("input"), nb::arg("dim") = nb::none());
  cls.def("count_nonzero", count_impl, nb::arg("dim") = nb::none());
  m.def("logsumexp", [](const Tensor& x, nb::handle dim, bool keepdim, nb::handle out) {
    DimVector dims = dims_arg(dim);
    return fn_or_out(out, [&] { return logsumexp(x, dims, keepdim); },
                     [&](Tensor& o) { logsumexp_out(o, x, dims, keepdim); });
  }, nb::arg("input"), nb::arg("dim"), nb::arg("keepdim") = false, nb::kw_only(), nb::arg("out") = nb::none());
  cls.def("logsumexp", [](const Tensor& x, nb::handle dim, bool keepdim) { return logsumexp(x, dims_arg(dim), keepdim); },
          nb::arg("dim"), nb::arg("keepdim") = false);
  using Along = Tensor (*)(const Tensor&, int64_t, std::optional<ScalarType>);
  using AlongOut = Tensor& (*)(Tensor&, const Tensor&, int64_t, std::optional<ScalarType>);
  for (auto [name, fn, fn_out] : {std::tuple<const char*, Along, AlongOut>{"softmax", &softmax, &softmax_out},
                                  {"log_softmax", &log_softmax, &log_softmax_out}, {"cumsum", &cumsum, &cumsum_out},
                                  {"cumprod", &cumprod, &cumprod_out}}) {
    m.def(name, [fn, fn_out](const Tensor& x, int64_t dim, std::optional<ScalarType> dtype, nb::handle out) {
      return fn_or_out(out, [&] { return fn(x, dim, dtype); }, [&](Tensor& o) { fn_out(o, x, dim, dtype); });
    }, nb::arg("input"), nb::arg("dim"), nb::kw_only(), nb::arg("dtype") = nb::none(), nb::arg("out") = nb::none());
    cls.def(name, fn, nb::arg("dim"), nb::kw_only(), nb::arg("dtype") = nb::none());
  }

  // max/min (python/ember/_reductions.py picks the overload): the whole tensor, or (values, indices) along dim.
  using Whole = Tensor (*)(const Tensor&);
  using WholeOut = Tensor& (*)(Tensor&, const Tensor&);
  using AlongDim = std::pair<Tensor, Tensor> (*)(const Tensor&, int64_t, bool);
  using AlongDimOut = std::pair<Tensor&, Tensor&> (*)(Tensor&, Tensor&, const Tensor&, int64_t, bool);
  for (auto [name, whole_name, dim_name, whole, whole_out, along, along_out] : {
           std::tuple<const char*, const char*, const char*, Whole, WholeOut, AlongDim, AlongDimOut>{
               "max", "_max_all", "_max_dim", &max, &max_out, &max, &max_out},
           {"min", "_min_all", "_min_dim", &min, &min_out, &min, &min_out}}) {
    m.def(whole_name, [whole, whole_out](const Tensor& x, nb::handle out) {
      return fn_or_out(out, [&] { return whole(x); }, [&](Tensor& o) { whole_out(o, x); });
    }, nb::arg("input"), nb::arg("out") = nb::none());
    m.def(dim_name, [name, along, along_out](const Tensor& x, int64_t dim, bool keepdim, nb::handle out) {
      return pair_result(name, out, [&] { return along(x, dim, keepdim); },
                         [&](Tensor& v, Tensor& i) { along_out(v, i, x, dim, keepdim); });
    }, nb::arg("input"), nb::arg("dim"), nb::arg("keepdim"), nb::arg("out") = nb::none());
  }
  using ArgOut = Tensor& (*)(Tensor&, const Tensor&, std::optional<int64_t>, bool);
  for (auto [name, fn, fn_out] : {std::tuple<const char*, decltype(&argmax), ArgOut>{"argmax", &argmax, &argmax_out},
                                  {"argmin", &argmin, &argmin_out}}) {
    m.def(name, [fn, fn_out](const Tensor& x, std::optional<int64_t> dim, bool keepdim, nb::handle out) {
      return fn_or_out(out, [&] { return fn(x, dim, keepdim); }, [&](Tensor& o) { fn_out(o, x, dim, keepdim); });
    }, nb::arg("input"), nb::arg("dim") = nb::none(), nb::arg("keepdim") = false, nb::kw_only(),
       nb::arg("out") = nb::none());
    cls.def(name, fn, nb::arg("dim") = nb::none(), nb::arg("keepdim") = false);
  }
}

}  // namespace ember::py
