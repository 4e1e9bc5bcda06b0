// Order statistics (ember/sorting.h): sort, argsort, msort, topk, kthvalue, median, nanmedian, mode, quantile,
// nanquantile, cummax, cummin, searchsorted, bucketize, histc, bincount, unique, unique_consecutive. Pairs come
// back as torch's named tuples (ember.return_types); out= of a pair is a tuple of two tensors, returned as one.
#include <nanobind/stl/pair.h>
#include <nanobind/stl/tuple.h>

#include "bindings.h"

namespace ember::py {

namespace {

nb::object named_values(const char* type, nb::handle values, nb::handle indices) {
  return nb::module_::import_("ember.return_types").attr(type)(values, indices);
}

}  // namespace

nb::object pair_result(const char* type, nb::handle out, const std::function<std::pair<Tensor, Tensor>()>& compute,
                       const std::function<void(Tensor&, Tensor&)>& write) {
  if (out.is_none()) {
    auto [values, indices] = compute();
    return named_values(type, nb::cast(values), nb::cast(indices));
  }
  EMBER_CHECK(nb::isinstance<nb::sequence>(out) && !nb::isinstance<Tensor>(out) && nb::len(out) == 2, TypeError,
              type, "(): argument 'out' must be tuple of Tensors, not ", Py_TYPE(out.ptr())->tp_name);
  nb::handle v = out[0], i = out[1];
  write(nb::cast<Tensor&>(v), nb::cast<Tensor&>(i));
  return named_values(str(type, "_out").c_str(), v, i);
}

namespace {

// unique's results: the values alone, or a tuple with the inverse and/or counts asked for.
nb::object unique_result(const std::tuple<Tensor, Tensor, Tensor>& r, bool return_inverse, bool return_counts) {
  if (!return_inverse && !return_counts) return nb::cast(std::get<0>(r));
  nb::list items;
  items.append(nb::cast(std::get<0>(r)));
  if (return_inverse) items.append(nb::cast(std::get<1>(r)));
  if (return_counts) items.append(nb::cast(std::get<2>(r)));
  return nb::tuple(items);
}

// A flag of unique / unique_consecutive: a bool; a tensor of several elements has no truth value (RuntimeError).
bool unique_flag(nb::handle value, const char* name) {
  EMBER_CHECK(!nb::isinstance<Tensor>(value) || nb::cast<const Tensor&>(value).numel() == 1, Error,
              "Boolean value of Tensor with more than one value is ambiguous");
  EMBER_CHECK(PyBool_Check(value.ptr()), TypeError, "unique(): argument '", name, "' must be bool, not ",
              nb::inst_name(value).c_str());
  return value.ptr() == Py_True;
}

std::optional<std::string_view> side_arg(const std::optional<std::string>& side) {
  return side ? std::optional<std::string_view>(*side) : std::nullopt;
}

}  // namespace

void init_sorting(nb::module_& m) {
  auto cls = nb::borrow<nb::class_<Tensor>>(nb::type<Tensor>());

  // sort and argsort: torch's two signatures each. A `stable` keyword (even None) selects sort.stable (SortBackward1),
  // whose dim and descending are keyword-only: sort(x, 0, stable=True) is a TypeError, as in torch.
  auto sort_impl = [](const Tensor& x, int64_t dim, bool descending, std::optional<bool> stable, nb::handle out) {
    return pair_result("sort", out, [&] { return stable ? sort(x, stable, dim, descending) : sort(x, dim, descending); },
                       [&](Tensor& v, Tensor& i) { sort_out(v, i, x, dim, descending, stable.value_or(false)); });
  };
  m.def("sort", [sort_impl](const Tensor& x, int64_t dim, bool descending, nb::handle out) {
    return sort_impl(x, dim, descending, std::nullopt, out);
  }, nb::arg("input"), nb::arg("dim") = -1, nb::arg("descending") = false, nb::kw_only(), nb::arg("out") = nb::none());
  m.def("sort", [sort_impl](const Tensor& x, std::optional<bool> stable, int64_t dim, bool descending, nb::handle out) {
    return sort_impl(x, dim, descending, stable, out);
  }, nb::arg("input"), nb::kw_only(), nb::arg("stable").none(), nb::arg("dim") = -1, nb::arg("descending") = false,
     nb::arg("out") = nb::none());
  cls.def("sort", [sort_impl](const Tensor& x, int64_t dim, bool descending) {
    return sort_impl(x, dim, descending, std::nullopt, nb::none());
  }, nb::arg("dim") = -1, nb::arg("descending") = false);
  cls.def("sort", [sort_impl](const Tensor& x, std::optional<bool> stable, int64_t dim, bool descending) {
    return sort_impl(x, dim, descending, stable, nb::none());
  }, nb::kw_only(), nb::arg("stable").none(), nb::arg("dim") = -1, nb::arg("descending") = false);
  m.def("argsort", [](const Tensor& x, int64_t dim, bool descending) { return argsort(x, dim, descending, false); },
        nb::arg("input"), nb::arg("dim") = -1, nb::arg("descending") = false);
  m.def("argsort", [](const Tensor& x, bool stable, int64_t dim, bool descending, nb::handle out) {
    return fn_or_out(out, [&] { return argsort(x, dim, descending, stable); },
                         [&](Tensor& o) { argsort_out(o, x, dim, descending, stable); });
  }, nb::arg("input"), nb::kw_only(), nb::arg("stable"), nb::arg("dim") = -1, nb::arg("descending") = false,
     nb::arg("out") = nb::none());
  cls.def("argsort", [](const Tensor& x, int64_t dim, bool descending) { return argsort(x, dim, descending, false); },
          nb::arg("dim") = -1, nb::arg("descending") = false);
  cls.def("argsort", [](const Tensor& x, bool stable, int64_t dim, bool descending) {
    return argsort(x, dim, descending, stable);
  }, nb::kw_only(), nb::arg("stable"), nb::arg("dim") = -1, nb::arg("descending") = false);
  m.def("msort", [](const Tensor& x, nb::handle out) {
    return fn_or_out(out, [&] { return msort(x); }, [&](Tensor& o) { msort_out(o, x); });
  }, nb::arg("input"), nb::kw_only(), nb::arg("out") = nb::none());
  cls.def("msort", [](const Tensor& x) { return msort(x); });

  auto topk_impl = [](const Tensor& x, int64_t k, int64_t dim, bool largest, bool sorted, nb::handle out) {
    return pair_result("topk", out, [&] { return topk(x, k, dim, largest, sorted); },
                       [&](Tensor& v, Tensor& i) { topk_out(v, i, x, k, dim, largest, sorted); });
  };
  m.def("topk", topk_impl, nb::arg("input"), nb::arg("k"), nb::arg("dim") = -1, nb::arg("largest") = true,
        nb::arg("sorted") = true, nb::kw_only(), nb::arg("out") = nb::none());
  cls.def("topk", [topk_impl](const Tensor& x, int64_t k, int64_t dim, bool largest, bool sorted) {
    return topk_impl(x, k, dim, largest, sorted, nb::none());
  }, nb::arg("k"), nb::arg("dim") = -1, nb::arg("largest") = true, nb::arg("sorted") = true);

  auto kth_impl = [](const Tensor& x, int64_t k, int64_t dim, bool keepdim, nb::handle out) {
    return pair_result("kthvalue", out, [&] { return kthvalue(x, k, dim, keepdim); },
                       [&](Tensor& v, Tensor& i) { kthvalue_out(v, i, x, k, dim, keepdim); });
  };
  m.def("kthvalue", kth_impl, nb::arg("input"), nb::arg("k"), nb::arg("dim") = -1, nb::arg("keepdim") = false,
        nb::kw_only(), nb::arg("out") = nb::none());
  cls.def("kthvalue", [kth_impl](const Tensor& x, int64_t k, int64_t dim, bool keepdim) {
    return kth_impl(x, k, dim, keepdim, nb::none());
  }, nb::arg("k"), nb::arg("dim") = -1, nb::arg("keepdim") = false);

  // median/nanmedian: of everything, or (values, indices) along dim
  using Whole = Tensor (*)(const Tensor&);
  using Along = std::pair<Tensor, Tensor> (*)(const Tensor&, int64_t, bool);
  using AlongOut = std::pair<Tensor&, Tensor&> (*)(Tensor&, Tensor&, const Tensor&, int64_t, bool);
  for (auto [name, whole, along, along_out] :
       {std::tuple<const char*, Whole, Along, AlongOut>{"median", &median, &median, &median_out},
        {"nanmedian", &nanmedian, &nanmedian, &nanmedian_out}}) {
    auto dim_impl = [name, along, along_out](const Tensor& x, int64_t dim, bool keepdim, nb::handle out) {
      return pair_result(name, out, [&] { return along(x, dim, keepdim); },
                         [&](Tensor& v, Tensor& i) { along_out(v, i, x, dim, keepdim); });
    };
    m.def(name, whole, nb::arg("input"));
    m.def(name, dim_impl, nb::arg("input"), nb::arg("dim"), nb::arg("keepdim") = false, nb::kw_only(),
          nb::arg("out") = nb::none());
    cls.def(name, whole);
    cls.def(name, [dim_impl](const Tensor& x, int64_t dim, bool keepdim) { return dim_impl(x, dim, keepdim, nb::none()); },
            nb::arg("dim"), nb::arg("keepdim") = false);
  }
  auto mode_impl = [](const Tensor& x, int64_t dim, bool keepdim, nb::handle out) {
    return pair_result("mode", out, [&] { return mode(x, dim, keepdim); },
                       [&](Tensor& v, Tensor& i) { mode_out(v, i, x, dim, keepdim); });
  };
  m.def("mode", mode_impl, nb::arg("input"), nb::arg("dim") = -1, nb::arg("keepdim") = false, nb::kw_only(),
        nb::arg("out") = nb::none());
  cls.def("mode", [mode_impl](const Tensor& x, int64_t dim, bool keepdim) { return mode_impl(x, dim, keepdim, nb::none()); },
          nb::arg("dim") = -1, nb::arg("keepdim") = false);

  // quantile/nanquantile: q a tensor or a number
  for (auto [name, ignore_nan] : {std::pair{"quantile", false}, std::pair{"nanquantile", true}}) {
    auto with_tensor = [ignore_nan](const Tensor& x, const Tensor& q, std::optional<int64_t> dim, bool keepdim,
                                    const std::string& interpolation, nb::handle out) {
      return fn_or_out(out, [&] {
        return ignore_nan ? nanquantile(x, q, dim, keepdim, interpolation) : quantile(x, q, dim, keepdim, interpolation);
      }, [&](Tensor& o) { quantile_out(o, x, q, dim, keepdim, interpolation, ignore_nan); });
    };
    auto with_number = [ignore_nan](const Tensor& x, double q, std::optional<int64_t> dim, bool keepdim,
                                    const std::string& interpolation, nb::handle out) {
      return fn_or_out(out, [&] {
        return ignore_nan ? nanquantile(x, q, dim, keepdim, interpolation) : quantile(x, q, dim, keepdim, interpolation);
      }, [&](Tensor& o) {
        EMBER_CHECK(q >= 0 && q <= 1, Error, "quantile() q must be in the range [0, 1] but got ", q);
        quantile_out(o, x, scalar_tensor(q, x.options()), dim, keepdim, interpolation, ignore_nan);
      });
    };
    m.def(name, with_tensor, nb::arg("input"), nb::arg("q"), nb::arg("dim") = nb::none(), nb::arg("keepdim") = false,
          nb::kw_only(), nb::arg("interpolation") = "linear", nb::arg("out") = nb::none());
    m.def(name, with_number, nb::arg("input"), nb::arg("q"), nb::arg("dim") = nb::none(), nb::arg("keepdim") = false,
          nb::kw_only(), nb::arg("interpolation") = "linear", nb::arg("out") = nb::none());
    cls.def(name, [with_tensor](const Tensor& x, const Tensor& q, std::optional<int64_t> dim, bool keepdim,
                                const std::string& interpolation) {
      return with_tensor(x, q, dim, keepdim, interpolation, nb::none());
    }, nb::arg("q"), nb::arg("dim") = nb::none(), nb::arg("keepdim") = false, nb::kw_only(),
       nb::arg("interpolation") = "linear");
    cls.def(name, [with_number](const Tensor& x, double q, std::optional<int64_t> dim, bool keepdim,
                                const std::string& interpolation) {
      return with_number(x, q, dim, keepdim, interpolation, nb::none());
    }, nb::arg("q"), nb::arg("dim") = nb::none(), nb::arg("keepdim") = false, nb::kw_only(),
       nb::arg("interpolation") = "linear");
  }

  using Cum = std::pair<Tensor, Tensor> (*)(const Tensor&, int64_t);
  using CumOut = std::pair<Tensor&, Tensor&> (*)(Tensor&, Tensor&, const Tensor&, int64_t);
  for (auto [name, fn, fn_out] : {std::tuple<const char*, Cum, CumOut>{"cummax", &cummax, &cummax_out},
                                  {"cummin", &cummin, &cummin_out}}) {
    auto impl = [name, fn, fn_out](const Tensor& x, int64_t dim, nb::handle out) {
      return pair_result(name, out, [&] { return fn(x, dim); }, [&](Tensor& v, Tensor& i) { fn_out(v, i, x, dim); });
    };
    m.def(name, impl, nb::arg("input"), nb::arg("dim"), nb::kw_only(), nb::arg("out") = nb::none());
    cls.def(name, [impl](const Tensor& x, int64_t dim) { return impl(x, dim, nb::none()); }, nb::arg("dim"));
  }

  m.def("searchsorted", [](const Tensor& seq, const Tensor& values, bool out_int32, bool right,
                           const std::optional<std::string>& side, nb::handle out, const std::optional<Tensor>& sorter) {
    return fn_or_out(out, [&] { return searchsorted(seq, values, out_int32, right, side_arg(side), sorter); },
                         [&](Tensor& o) { searchsorted_out(o, seq, values, out_int32, right, side_arg(side), sorter); });
  }, nb::arg("sorted_sequence"), nb::arg("input"), nb::kw_only(), nb::arg("out_int32") = false,
     nb::arg("right") = false, nb::arg("side") = nb::none(), nb::arg("out") = nb::none(), nb::arg("sorter") = nb::none());
  m.def("searchsorted", [](const Tensor& seq, const Scalar& value, bool out_int32, bool right,
                           const std::optional<std::string>& side, const std::optional<Tensor>& sorter) {
    return searchsorted(seq, value, out_int32, right, side_arg(side), sorter);
  }, nb::arg("sorted_sequence"), nb::arg("input"), nb::kw_only(), nb::arg("out_int32") = false,
     nb::arg("right") = false, nb::arg("side") = nb::none(), nb::arg("sorter") = nb::none());
  m.def("bucketize", [](const Tensor& x, const Tensor& boundaries, bool out_int32, bool right, nb::handle out) {
    return fn_or_out(out, [&] { return bucketize(x, boundaries, out_int32, right); },
                         [&](Tensor& o) { bucketize_out(o, x, boundaries, out_int32, right); });
  }, nb::arg("input"), nb::arg("boundaries"), nb::kw_only(), nb::arg("out_int32") = false, nb::arg("right") = false,
     nb::arg("out") = nb::none());
  m.def("bucketize", [](const Scalar& x, const Tensor& boundaries, bool out_int32, bool right) {
    return bucketize(x, boundaries, out_int32, right);
  }, nb::arg("input"), nb::arg("boundaries"), nb::kw_only(), nb::arg("out_int32") = false, nb::arg("right") = false);

  m.def("histc", [](const Tensor& x, int64_t bins, const Scalar& min, const Scalar& max, nb::handle out) {
    return fn_or_out(out, [&] { return histc(x, bins, min, max); },
                         [&](Tensor& o) { histc_out(o, x, bins, min, max); });
  }, nb::arg("input"), nb::arg("bins") = 100, nb::arg("min") = 0, nb::arg("max") = 0, nb::kw_only(),
     nb::arg("out") = nb::none());
  cls.def("histc", [](const Tensor& x, int64_t bins, const Scalar& min, const Scalar& max) {
    return histc(x, bins, min, max);
  }, nb::arg("bins") = 100, nb::arg("min") = 0, nb::arg("max") = 0);
  auto bincount_impl = [](const Tensor& x, const std::optional<Tensor>& weights, int64_t minlength) {
    return bincount(x, weights, minlength);
  };
  m.def("bincount", bincount_impl, nb::arg("input"), nb::arg("weights") = nb::none(), nb::arg("minlength") = 0);
  cls.def("bincount", bincount_impl, nb::arg("weights") = nb::none(), nb::arg("minlength") = 0);

  // unique's flags as torch's Python wrapper reads them: a tensor's truth first (ambiguous for several elements, a
  // RuntimeError), then a strict bool (TypeError); sorted is checked after them.
  auto unique_impl = [](const Tensor& x, nb::handle sorted, nb::handle return_inverse, nb::handle return_counts,
                        std::optional<int64_t> dim) {
    bool inverse = unique_flag(return_inverse, "return_inverse"), counts = unique_flag(return_counts, "return_counts");
    EMBER_CHECK(PyBool_Check(sorted.ptr()), TypeError, "unique(): argument 'sorted' must be bool, not ",
                nb::inst_name(sorted).c_str());
    return unique_result(unique(x, sorted.ptr() == Py_True, inverse, counts, dim), inverse, counts);
  };
  m.def("unique", unique_impl, nb::arg("input"), nb::arg("sorted").none() = true, nb::arg("return_inverse").none() = false,
        nb::arg("return_counts").none() = false, nb::arg("dim") = nb::none());
  cls.def("unique", unique_impl, nb::arg("sorted").none() = true, nb::arg("return_inverse").none() = false,
          nb::arg("return_counts").none() = false, nb::arg("dim") = nb::none());
  auto consecutive_impl = [](const Tensor& x, nb::handle return_inverse, nb::handle return_counts,
                             std::optional<int64_t> dim) {
    bool inverse = unique_flag(return_inverse, "return_inverse"), counts = unique_flag(return_counts, "return_counts");
    return unique_result(unique_consecutive(x, inverse, counts, dim), inverse, counts);
  };
  m.def("unique_consecutive", consecutive_impl, nb::arg("input"), nb::arg("return_inverse").none() = false,
        nb::arg("return_counts").none() = false, nb::arg("dim") = nb::none());
  cls.def("unique_consecutive", consecutive_impl, nb::arg("return_inverse").none() = false, nb::arg("return_counts").none() = false,
          nb::arg("dim") = nb::none());
}

}  // namespace ember::py
