// Math ops: logit, the number-first xlogy, signbit, nansum, nanmean, logcumsumexp, diff, cross, kron, tensordot,
// dist, cdist, and the linalg functions python/ember/linalg.py exposes (vector_norm, matrix_norm, norm, cross, svd,
// svdvals), with torch.svd.
#include <nanobind/stl/pair.h>
#include <nanobind/stl/tuple.h>

#include <tuple>

#include "bindings.h"
#include "ember/math_ops.h"

namespace ember::py {

nb::object maybe_out(nb::handle out, std::initializer_list<const Tensor*> inputs, const char* name,
                     const std::function<Tensor()>& compute) {
  if (out.is_none()) return nb::cast(compute());
  composite_out(nb::cast<Tensor&>(out), inputs, name, compute);
  return nb::borrow(out);
}

namespace {

// linalg.matrix_norm/norm's check of out's dtype.
Tensor out_dtype_as(const char* fn, nb::handle out, const Tensor& result) {
  if (out.is_none()) return result;
  const Tensor& o = nb::cast<const Tensor&>(out);
  EMBER_CHECK(o.dtype() == result.dtype(), Error, fn, " expected out tensor dtype ", legacy_name(result.dtype()),
              " but got: ", legacy_name(o.dtype()));
  return result;
}

// dim=None: nullopt; an int or a sequence of ints otherwise.
std::optional<DimVector> opt_dims(nb::handle dim) {
  if (dim.is_none()) return std::nullopt;
  return int_list(dim, "dim");
}
OptionalIntArrayRef opt_ref(const std::optional<DimVector>& d) { return d ? OptionalIntArrayRef(*d) : std::nullopt; }
DimVector all_dims(const std::optional<DimVector>& d) { return d.value_or(DimVector()); }

// A norm order: a Python number (inf included), not a bool.
double order(nb::handle ord, const char* fn) {
  bool number = PyFloat_Check(ord.ptr()) || (PyLong_Check(ord.ptr()) && !PyBool_Check(ord.ptr()));
  EMBER_CHECK(number, TypeError, fn, "(): argument 'ord' must be Number, not ", nb::inst_name(ord).c_str());
  return nb::cast<double>(ord);
}

// torch.cdist's compute_mode names.
std::optional<int64_t> cdist_mode(const std::string& mode) {
  if (mode == "use_mm_for_euclid_dist_if_necessary") return std::nullopt;
  if (mode == "use_mm_for_euclid_dist") return 1;
  if (mode == "donot_use_mm_for_euclid_dist") return 2;
  throw ValueError(str(mode, " is not a valid value for compute_mode"));
}

// tensordot's dims: an int n (a's last n with b's first n), two lists (or ints), or a tensor holding either.
std::pair<DimVector, DimVector> tensordot_dims(const Tensor& a, const Tensor& b, nb::handle dims) {
  if (nb::isinstance<Tensor>(dims)) {
    const Tensor& t = nb::cast<const Tensor&>(dims);
    if (t.numel() > 1 && t.sizes()[0] != 2) {
      PyErr_Format(PyExc_AssertionError, "dims tensor must have size 2 in first dimension, got %lld",
                   static_cast<long long>(t.sizes()[0]));
      throw nb::python_error();
    }
    if (t.numel() > 1) return tensordot_dims(a, b, nb::cast(t).attr("tolist")());
    return tensordot_dims(a, b, nb::int_(t.item().to_int()));
  }
  if (auto n = int_scalar(dims)) {
    EMBER_CHECK(*n >= 0, Error, "tensordot expects dims >= 0, but got dims=", *n);
    EMBER_CHECK(*n <= std::min(a.dim(), b.dim()), Error, "tensordot expects dims < ndim_a or ndim_b, but got dims=", *n);
    DimVector da, db;
    for (int64_t i = 0; i < *n; ++i) da.push_back(i - *n), db.push_back(i);
    return {da, db};
  }
  EMBER_CHECK(nb::isinstance<nb::tuple>(dims) || nb::isinstance<nb::list>(dims), Error, "tensordot expects dims to be "
              "int or Tuple[List[int], List[int]] or List[List[int]] containing two lists, but got dims=",
              nb::str(dims).c_str());
  EMBER_CHECK(nb::len(dims) == 2, ValueError, "too many values to unpack (expected 2)");
  return {int_list(dims[0], "dims", false), int_list(dims[1], "dims", false)};
}

void init_linalg_functions(nb::module_& m) {
  m.def("_linalg_vector_norm", [](const Tensor& x, nb::handle ord, nb::handle dim, bool keepdim,
                                  std::optional<ScalarType> dtype, nb::handle out) {
    auto dims = opt_dims(dim);
    double p = order(ord, "linalg_vector_norm");
    return maybe_out(out, {&x}, "linalg_vector_norm", [&] {
      Tensor r = linalg_vector_norm(x, p, opt_ref(dims), keepdim, dtype);
      if (!out.is_none()) check_out_dtype(nb::cast<const Tensor&>(out), r.dtype());
      return r;
    });
  }, nb::arg("x"), nb::arg("ord") = 2, nb::arg("dim") = nb::none(), nb::arg("keepdim") = false, nb::kw_only(),
     nb::arg("dtype") = nb::none(), nb::arg("out") = nb::none());
  m.def("_linalg_matrix_norm", [](const Tensor& a, nb::handle ord, nb::handle dim, bool keepdim,
                                  std::optional<ScalarType> dtype, nb::handle out) {
    DimVector dims = int_list(dim, "dim");
    auto compute = [&] {
      if (PyUnicode_Check(ord.ptr())) return linalg_matrix_norm(a, nb::cast<std::string>(ord), dims, keepdim, dtype);
      return linalg_matrix_norm(a, order(ord, "linalg_matrix_norm"), dims, keepdim, dtype);
    };
    return maybe_out(out, {&a}, "linalg_matrix_norm", [&] { return out_dtype_as("linalg.matrix_norm", out, compute()); });
  }, nb::arg("A"), nb::arg("ord") = "fro", nb::arg("dim") = nb::make_tuple(-2, -1), nb::arg("keepdim") = false,
     nb::kw_only(), nb::arg("dtype") = nb::none(), nb::arg("out") = nb::none());
  m.def("_linalg_norm", [](const Tensor& a, nb::handle ord, nb::handle dim, bool keepdim, nb::handle out,
                           std::optional<ScalarType> dtype) {
    auto dims = opt_dims(dim);
    auto compute = [&] {
      if (PyUnicode_Check(ord.ptr())) return linalg_norm(a, nb::cast<std::string>(ord), opt_ref(dims), keepdim, dtype);
      std::optional<double> p = ord.is_none() ? std::nullopt : std::optional<double>(order(ord, "linalg_norm"));
      return linalg_norm(a, p, opt_ref(dims), keepdim, dtype);
    };
    return maybe_out(out, {&a}, "linalg_norm", [&] { return out_dtype_as("linalg.norm", out, compute()); });
  }, nb::arg("A"), nb::arg("ord") = nb::none(), nb::arg("dim") = nb::none(), nb::arg("keepdim") = false, nb::kw_only(),
     nb::arg("out") = nb::none(), nb::arg("dtype") = nb::none());
  m.def("_linalg_cross", [](const Tensor& a, const Tensor& b, int64_t dim, nb::handle out) {
    return fn_or_out(out, [&] { return linalg_cross(a, b, dim); }, [&](Tensor& o) { linalg_cross_out(o, a, b, dim); });
  }, nb::arg("input"), nb::arg("other"), nb::kw_only(), nb::arg("dim") = -1, nb::arg("out") = nb::none());
}

// linalg.svd, linalg.svdvals and torch.svd, returning torch's named tuples.
void init_svd(nb::module_& m, nb::class_<Tensor>& cls) {
  auto named = [](const char* type, const std::tuple<Tensor, Tensor, Tensor>& r) {
    return nb::module_::import_("ember.return_types").attr(type)(std::get<0>(r), std::get<1>(r), std::get<2>(r));
  };
  auto check_driver = [](nb::handle driver) {
    EMBER_CHECK(driver.is_none(), Error, "torch.linalg.svd: keyword argument `driver=` is only supported on CUDA "
                "inputs with cuSOLVER backend.");
  };
  m.def("_linalg_svd", [named, check_driver](const Tensor& a, bool full_matrices, nb::handle driver) {
    check_driver(driver);
    return named("linalg_svd", linalg_svd(a, full_matrices));
  }, nb::arg("A"), nb::arg("full_matrices") = true, nb::kw_only(), nb::arg("driver") = nb::none());
  m.def("_linalg_svdvals", [check_driver](const Tensor& a, nb::handle driver, nb::handle out) {
    check_driver(driver);
    EMBER_CHECK(out.is_none() || nb::cast<const Tensor&>(out).dtype() == a.dtype(), Error, "Expected out tensor to have "
                "dtype ", dtype_info(a.dtype()).name, ", but got ", dtype_info(nb::cast<const Tensor&>(out).dtype()).name,
                " instead");
    return maybe_out(out, {&a}, "linalg_svdvals", [&] { return out_dtype_as("linalg.svdvals", out, linalg_svdvals(a)); });
  }, nb::arg("A"), nb::kw_only(), nb::arg("driver") = nb::none(), nb::arg("out") = nb::none());
  auto torch_svd = [named](const Tensor& a, bool some, bool compute_uv) { return named("svd", svd(a, some, compute_uv)); };
  m.def("svd", torch_svd, nb::arg("input"), nb::arg("some") = true, nb::arg("compute_uv") = true);
  cls.def("svd", torch_svd, nb::arg("some") = true, nb::arg("compute_uv") = true);
}

}  // namespace

void init_math_ops(nb::module_& m, nb::class_<Tensor>& cls) {
  using Eps = std::optional<double>;
  m.def("logit", [](const Tensor& x, Eps eps, nb::handle out) {
    return fn_or_out(out, [&] { return logit(x, eps); }, [&](Tensor& o) { logit_out(o, x, eps); });
  }, nb::arg("input"), nb::arg("eps") = nb::none(), nb::kw_only(), nb::arg("out") = nb::none());
  cls.def("logit", [](const Tensor& x, Eps eps) { return logit(x, eps); }, nb::arg("eps") = nb::none());
  cls.def("logit_", [](nb::handle self, Eps eps) {
    logit_(nb::cast<Tensor&>(self), eps);
    return nb::borrow(self);
  }, nb::arg("eps") = nb::none());
  // pow(number, tensor) and xlogy(number, tensor): torch's Scalar-self overloads, beside the binary_ops.def forms
  using Binary = Tensor (*)(const Tensor&, const Tensor&);
  using BinaryOut = Tensor& (*)(Tensor&, const Tensor&, const Tensor&);
  for (auto [name, other, fn, out_fn] : {std::tuple<const char*, const char*, Binary, BinaryOut>{"pow", "exponent", &pow, &pow_out},
                                         {"xlogy", "other", &xlogy, &xlogy_out}}) {
    m.def(name, [fn, out_fn](const Scalar& a, const Tensor& b, nb::handle out) {
      Tensor self = wrapped_scalar(a);
      if (out.is_none()) return nb::cast(fn(self, b));
      out_fn(nb::cast<Tensor&>(out), self, b);
      return nb::borrow(out);
    }, nb::arg("self"), nb::arg(other), nb::kw_only(), nb::arg("out") = nb::none());
  }

  m.def("signbit", [](const Tensor& x, nb::handle out) {
    return fn_or_out(out, [&] { return signbit(x); }, [&](Tensor& o) { signbit_out(o, x); });
  }, nb::arg("input"), nb::kw_only(), nb::arg("out") = nb::none());
  cls.def("signbit", [](const Tensor& x) { return signbit(x); });

  using NanReduction = Tensor (*)(const Tensor&, IntArrayRef, bool, std::optional<ScalarType>);
  using NanReductionOut = Tensor& (*)(Tensor&, const Tensor&, IntArrayRef, bool, std::optional<ScalarType>);
  for (auto [name, fn, out_fn] : {std::tuple<const char*, NanReduction, NanReductionOut>{"nansum", &nansum, &nansum_out},
                                  {"nanmean", &nanmean, &nanmean_out}}) {
    m.def(name, [fn, out_fn](const Tensor& x, nb::handle dim, bool keepdim, std::optional<ScalarType> dtype, nb::handle out) {
      DimVector dims = all_dims(opt_dims(dim));
      return fn_or_out(out, [&] { return fn(x, dims, keepdim, dtype); }, [&](Tensor& o) { out_fn(o, x, dims, keepdim, dtype); });
    }, nb::arg("input"), nb::arg("dim") = nb::none(), nb::arg("keepdim") = false, nb::kw_only(),
       nb::arg("dtype") = nb::none(), nb::arg("out") = nb::none());
    cls.def(name, [fn](const Tensor& x, nb::handle dim, bool keepdim, std::optional<ScalarType> dtype) {
      return fn(x, all_dims(opt_dims(dim)), keepdim, dtype);
    }, nb::arg("dim") = nb::none(), nb::arg("keepdim") = false, nb::kw_only(), nb::arg("dtype") = nb::none());
  }

  m.def("logcumsumexp", [](const Tensor& x, int64_t dim, nb::handle out) {
    return fn_or_out(out, [&] { return logcumsumexp(x, dim); }, [&](Tensor& o) { logcumsumexp_out(o, x, dim); });
  }, nb::arg("input"), nb::arg("dim"), nb::kw_only(), nb::arg("out") = nb::none());
  cls.def("logcumsumexp", [](const Tensor& x, int64_t dim) { return logcumsumexp(x, dim); }, nb::arg("dim"));

  using Opt = std::optional<Tensor>;
  m.def("diff", [](const Tensor& x, int64_t n, int64_t dim, Opt prepend, Opt append, nb::handle out) {
    return fn_or_out(out, [&] { return diff(x, n, dim, prepend, append); },
                     [&](Tensor& o) { diff_out(o, x, n, dim, prepend, append); });
  }, nb::arg("input"), nb::arg("n") = 1, nb::arg("dim") = -1, nb::arg("prepend") = nb::none(),
     nb::arg("append") = nb::none(), nb::kw_only(), nb::arg("out") = nb::none());
  cls.def("diff", [](const Tensor& x, int64_t n, int64_t dim, Opt prepend, Opt append) {
    return diff(x, n, dim, prepend, append);
  }, nb::arg("n") = 1, nb::arg("dim") = -1, nb::arg("prepend") = nb::none(), nb::arg("append") = nb::none());

  m.def("cross", [](const Tensor& a, const Tensor& b, std::optional<int64_t> dim, nb::handle out) {
    return fn_or_out(out, [&] { return cross(a, b, dim); }, [&](Tensor& o) { cross_out(o, a, b, dim); });
  }, nb::arg("input"), nb::arg("other"), nb::arg("dim") = nb::none(), nb::kw_only(), nb::arg("out") = nb::none());
  cls.def("cross", [](const Tensor& a, const Tensor& b, std::optional<int64_t> dim) { return cross(a, b, dim); },
          nb::arg("other"), nb::arg("dim") = nb::none());

  m.def("kron", [](const Tensor& a, const Tensor& b, nb::handle out) {
    return fn_or_out(out, [&] { return kron(a, b); }, [&](Tensor& o) { kron_out(o, a, b); });
  }, nb::arg("input"), nb::arg("other"), nb::kw_only(), nb::arg("out") = nb::none());
  cls.def("kron", [](const Tensor& a, const Tensor& b) { return kron(a, b); }, nb::arg("other"));

  // a and b are read as torch's Python tensordot reads them (a.dim()): anything else is an AttributeError.
  m.def("tensordot", [](nb::handle a_obj, nb::handle b_obj, nb::handle dims, nb::handle out) {
    for (nb::handle t : {a_obj, b_obj}) {
      if (!nb::isinstance<Tensor>(t)) {
        PyErr_Format(PyExc_AttributeError, "'%s' object has no attribute 'dim'", Py_TYPE(t.ptr())->tp_name);
        throw nb::python_error();
      }
    }
    const Tensor &a = nb::cast<const Tensor&>(a_obj), &b = nb::cast<const Tensor&>(b_obj);
    auto [da, db] = tensordot_dims(a, b, dims);
    if (out.is_none()) return nb::cast(tensordot(a, b, da, db));
    tensordot_out(nb::cast<Tensor&>(out), a, b, da, db);
    return nb::borrow(out);
  }, nb::arg("a").none(), nb::arg("b").none(), nb::arg("dims").none() = 2, nb::arg("out") = nb::none());

  m.def("dist", [](const Tensor& a, const Tensor& b, double p) { return dist(a, b, p); }, nb::arg("input"),
        nb::arg("other"), nb::arg("p") = 2);
  cls.def("dist", [](const Tensor& a, const Tensor& b, double p) { return dist(a, b, p); }, nb::arg("other"),
          nb::arg("p") = 2);
  m.def("cdist", [](const Tensor& x1, const Tensor& x2, double p, const std::string& mode) {
    return cdist(x1, x2, p, cdist_mode(mode));
  }, nb::arg("x1"), nb::arg("x2"), nb::arg("p") = 2.0, nb::arg("compute_mode") = "use_mm_for_euclid_dist_if_necessary");

  init_linalg_functions(m);
  init_svd(m, cls);
}

}  // namespace ember::py
