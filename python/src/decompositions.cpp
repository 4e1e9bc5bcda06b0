// The matrix factorizations of ember/decompositions.h as torch.linalg's functions (python/ember/linalg.py names them)
// and torch's top-level inverse, det, logdet, slogdet, cholesky and matrix_power with their Tensor methods.
#include <nanobind/stl/tuple.h>

#include "bindings.h"

namespace ember::py {

namespace {

nb::object named(const char* type, const std::tuple<Tensor, Tensor>& r) {
  return nb::module_::import_("ember.return_types").attr(type)(std::get<0>(r), std::get<1>(r));
}

// torch.cholesky (deprecated there, with this warning).
Tensor deprecated_cholesky(const Tensor& a, bool upper) {
  warn("torch.cholesky is deprecated in favor of torch.linalg.cholesky and will be removed in a future PyTorch "
       "release.\nL = torch.cholesky(A)\nshould be replaced with\nL = torch.linalg.cholesky(A)\nand\nU = "
       "torch.cholesky(A, upper=True)\nshould be replaced with\nU = torch.linalg.cholesky(A).mH\nThis transform will "
       "produce equivalent results for all valid (symmetric positive definite) inputs.");
  return linalg_cholesky(a, upper);
}

}  // namespace

void init_decompositions(nb::module_& m, nb::class_<Tensor>& cls) {
  using Tol = std::optional<double>;
  m.def("_linalg_inv", [](const Tensor& a, nb::handle out) {
    return maybe_out(out, {&a}, "linalg_inv", [&] { return linalg_inv(a); });
  }, nb::arg("A"), nb::kw_only(), nb::arg("out") = nb::none());
  m.def("_linalg_inv_ex", [](const Tensor& a, bool check_errors) {
    return named("linalg_inv_ex", linalg_inv_ex(a, check_errors));
  }, nb::arg("A"), nb::kw_only(), nb::arg("check_errors") = false);
  m.def("_linalg_det", [](const Tensor& a, nb::handle out) {
    return maybe_out(out, {&a}, "linalg_det", [&] { return linalg_det(a); });
  }, nb::arg("A"), nb::kw_only(), nb::arg("out") = nb::none());
  m.def("_linalg_slogdet", [](const Tensor& a) { return named("linalg_slogdet", linalg_slogdet(a)); }, nb::arg("A"));
  m.def("_linalg_solve", [](const Tensor& a, const Tensor& b, bool left, nb::handle out) {
    return maybe_out(out, {&a, &b}, "linalg_solve", [&] { return linalg_solve(a, b, left); });
  }, nb::arg("A"), nb::arg("B"), nb::kw_only(), nb::arg("left") = true, nb::arg("out") = nb::none());
  m.def("_linalg_solve_triangular", [](const Tensor& a, const Tensor& b, bool upper, bool left, bool unitriangular,
                                       nb::handle out) {
    return maybe_out(out, {&a, &b}, "linalg_solve_triangular",
                     [&] { return linalg_solve_triangular(a, b, upper, left, unitriangular); });
  }, nb::arg("A"), nb::arg("B"), nb::kw_only(), nb::arg("upper"), nb::arg("left") = true,
     nb::arg("unitriangular") = false, nb::arg("out") = nb::none());
  m.def("_linalg_cholesky", [](const Tensor& a, bool upper, nb::handle out) {
    return maybe_out(out, {&a}, "linalg_cholesky", [&] { return linalg_cholesky(a, upper); });
  }, nb::arg("A"), nb::kw_only(), nb::arg("upper") = false, nb::arg("out") = nb::none());
  m.def("_linalg_cholesky_ex", [](const Tensor& a, bool upper, bool check_errors) {
    return named("linalg_cholesky_ex", linalg_cholesky_ex(a, upper, check_errors));
  }, nb::arg("A"), nb::kw_only(), nb::arg("upper") = false, nb::arg("check_errors") = false);
  m.def("_linalg_qr", [](const Tensor& a, std::string_view mode) { return named("linalg_qr", linalg_qr(a, mode)); },
        nb::arg("A"), nb::arg("mode") = "reduced");
  m.def("_linalg_eigh", [](const Tensor& a, std::string_view uplo) { return named("linalg_eigh", linalg_eigh(a, uplo)); },
        nb::arg("A"), nb::arg("UPLO") = "L");
  m.def("_linalg_eigvalsh", [](const Tensor& a, std::string_view uplo, nb::handle out) {
    return maybe_out(out, {&a}, "linalg_eigvalsh", [&] { return linalg_eigvalsh(a, uplo); });
  }, nb::arg("A"), nb::arg("UPLO") = "L", nb::kw_only(), nb::arg("out") = nb::none());
  m.def("_linalg_matrix_power", [](const Tensor& a, int64_t n, nb::handle out) {
    return maybe_out(out, {&a}, "linalg_matrix_power", [&] { return linalg_matrix_power(a, n); });
  }, nb::arg("A"), nb::arg("n"), nb::kw_only(), nb::arg("out") = nb::none());
  m.def("_linalg_pinv", [](const Tensor& a, Tol atol, Tol rtol, bool hermitian, nb::handle out) {
    return maybe_out(out, {&a}, "linalg_pinv", [&] { return linalg_pinv(a, atol, rtol, hermitian); });
  }, nb::arg("A"), nb::kw_only(), nb::arg("atol") = nb::none(), nb::arg("rtol") = nb::none(),
     nb::arg("hermitian") = false, nb::arg("out") = nb::none());
  m.def("_linalg_matrix_rank", [](const Tensor& a, Tol atol, Tol rtol, bool hermitian) {
    return linalg_matrix_rank(a, atol, rtol, hermitian);
  }, nb::arg("A"), nb::kw_only(), nb::arg("atol") = nb::none(), nb::arg("rtol") = nb::none(),
     nb::arg("hermitian") = false);

  // torch's top-level names and Tensor methods
  m.def("inverse", [](const Tensor& a, nb::handle out) {
    return maybe_out(out, {&a}, "inverse", [&] { return inverse(a); });
  }, nb::arg("input"), nb::kw_only(), nb::arg("out") = nb::none());
  cls.def("inverse", [](const Tensor& a) { return inverse(a); });
  m.def("det", [](const Tensor& a) { return det(a); }, nb::arg("input"));
  cls.def("det", [](const Tensor& a) { return det(a); });
  m.def("logdet", [](const Tensor& a) { return logdet(a); }, nb::arg("input"));
  cls.def("logdet", [](const Tensor& a) { return logdet(a); });
  m.def("slogdet", [](const Tensor& a) { return named("slogdet", linalg_slogdet(a)); }, nb::arg("input"));
  cls.def("slogdet", [](const Tensor& a) { return named("slogdet", linalg_slogdet(a)); });
  m.def("cholesky", [](const Tensor& a, bool upper) { return deprecated_cholesky(a, upper); }, nb::arg("input"),
        nb::arg("upper") = false);
  cls.def("cholesky", [](const Tensor& a, bool upper) { return deprecated_cholesky(a, upper); },
          nb::arg("upper") = false);
  m.def("matrix_power", [](const Tensor& a, int64_t n) { return linalg_matrix_power(a, n); }, nb::arg("input"),
        nb::arg("n"));
  cls.def("matrix_power", [](const Tensor& a, int64_t n) { return linalg_matrix_power(a, n); }, nb::arg("n"));
  m.def("pinverse", [](const Tensor& a, double rcond) { return linalg_pinv(a, std::nullopt, rcond); },
        nb::arg("input"), nb::arg("rcond") = 1e-15);
  cls.def("pinverse", [](const Tensor& a, double rcond) { return linalg_pinv(a, std::nullopt, rcond); },
          nb::arg("rcond") = 1e-15);
}

}  // namespace ember::py
