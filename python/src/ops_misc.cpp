// Bindings of the in-place shape ops, sum_to_size, split_with_sizes, the in-place composites (cumsum_, logical_not_,
// nan_to_num_, ...), rsub and the small predicates (is_same_size, is_nonzero, is_signed, type_as).
#include <algorithm>

#include "bindings.h"
#include "ember/numerics.h"
#include "ember/shape_in_place.h"
#include "ember/view_scatter.h"

namespace ember::py {

void init_misc(nb::module_& m, nb::class_<Tensor>& cls) {
  auto self_of = [](nb::handle h) -> Tensor& { return nb::cast<Tensor&>(h); };
  cls.def("squeeze_", [=](nb::handle self, nb::handle dim) {
    Tensor& t = self_of(self);
    if (dim.is_none()) squeeze_(t);
    else if (auto d = int_scalar(dim)) squeeze_(t, *d);
    else squeeze_(t, IntArrayRef(int_list(dim, "dim", false)));
    return nb::borrow(self);
  }, nb::arg("dim") = nb::none());
  cls.def("unsqueeze_", [=](nb::handle self, int64_t dim) {
    unsqueeze_(self_of(self), dim);
    return nb::borrow(self);
  }, nb::arg("dim"));
  cls.def("t_", [=](nb::handle self) {
    t_(self_of(self));
    return nb::borrow(self);
  });
  for (auto [name, a, b] : {std::tuple{"transpose_", "dim0", "dim1"}, {"swapdims_", "dim0", "dim1"},
                            {"swapaxes_", "axis0", "axis1"}}) {
    cls.def(name, [=](nb::handle self, int64_t d0, int64_t d1) {
      transpose_(self_of(self), d0, d1);
      return nb::borrow(self);
    }, nb::arg(a), nb::arg(b));
  }
  cls.def("sum_to_size", [](const Tensor& x, const nb::args& size) {
    return sum_to_size(x, sizes_from_args(size, "size"));
  });

  auto split_sizes = [](const Tensor& x, nb::handle sizes, int64_t dim) {  // a tuple, as torch's
    nb::list pieces;
    for (const Tensor& t : x.split_with_sizes(int_list(sizes, "split_sizes", false), dim)) pieces.append(t);
    return nb::tuple(pieces);
  };
  m.def("split_with_sizes", split_sizes, nb::arg("input"), nb::arg("split_sizes"), nb::arg("dim") = 0);
  cls.def("split_with_sizes", split_sizes, nb::arg("split_sizes"), nb::arg("dim") = 0);

  for (auto [name, fn] : {std::pair{"cumsum_", &cumsum_}, std::pair{"cumprod_", &cumprod_}}) {
    cls.def(name, [fn](nb::handle self, int64_t dim, std::optional<ScalarType> dtype) {
      fn(nb::cast<Tensor&>(self), dim, dtype);
      return nb::borrow(self);
    }, nb::arg("dim"), nb::kw_only(), nb::arg("dtype") = nb::none());
  }
  cls.def("logical_not_", [=](nb::handle self) {
    logical_not_(self_of(self));
    return nb::borrow(self);
  });
  auto nan_in_place = [=](nb::handle self, double nan, std::optional<double> posinf, std::optional<double> neginf) {
    nan_to_num_(self_of(self), nan, posinf, neginf);
    return nb::borrow(self);
  };
  m.def("nan_to_num_", nan_in_place, nb::arg("input"), nb::arg("nan") = 0.0, nb::arg("posinf") = nb::none(),
        nb::arg("neginf") = nb::none());
  cls.def("nan_to_num_", nan_in_place, nb::arg("nan") = 0.0, nb::arg("posinf") = nb::none(),
          nb::arg("neginf") = nb::none());

  // rsub(input, other, *, alpha=1): other - alpha * input
  m.def("rsub", [](const Tensor& x, nb::handle other, const Scalar& alpha) {
    Tensor o = nb::isinstance<Tensor>(other) ? nb::cast<Tensor>(other) : wrapped_scalar(number_arg(other, "rsub", "other", 2));
    return rsub(x, o, alpha);
  }, nb::arg("input"), nb::arg("other"), nb::kw_only(), nb::arg("alpha") = 1);

  auto same_size = [](const Tensor& a, const Tensor& b) { return std::ranges::equal(a.sizes(), b.sizes()); };
  m.def("is_same_size", same_size, nb::arg("input"), nb::arg("other"));
  cls.def("is_same_size", same_size, nb::arg("other"));
  auto nonzero = [](const Tensor& x) {
    EMBER_CHECK(x.numel() != 0, Error, "Boolean value of Tensor with no values is ambiguous");
    EMBER_CHECK(x.numel() == 1, Error, "Boolean value of Tensor with more than one value is ambiguous");
    return x.item().to_double() != 0;
  };
  m.def("is_nonzero", nonzero, nb::arg("input"));
  cls.def("is_nonzero", nonzero);
  m.def("is_signed", [](const Tensor& x) { return nb::cast(x).attr("is_signed")(); }, nb::arg("input"));

  // numerics (ember/numerics.h); a number operand of isin is a 0-dim tensor
  auto as_tensor = [](nb::handle h, const char* arg, int pos) {
    return nb::isinstance<Tensor>(h) ? nb::cast<Tensor>(h) : wrapped_scalar(number_arg(h, "isin", arg, pos));
  };
  m.def("isin", [=](nb::handle elements, nb::handle test, bool assume_unique, bool invert, nb::handle out) -> nb::object {
    Tensor r = isin(as_tensor(elements, "elements", 1), as_tensor(test, "test_elements", 2), assume_unique, invert);
    if (out.is_none()) return nb::cast(r);
    Tensor& o = nb::cast<Tensor&>(out);
    check_out_dtype(o, kBool);
    composite_out(o, {}, "isin", [&] { return r; });
    return nb::borrow(out);
  }, nb::arg("elements"), nb::arg("test_elements"), nb::kw_only(), nb::arg("assume_unique") = false,
     nb::arg("invert") = false, nb::arg("out") = nb::none());
  m.def("isreal", &isreal, nb::arg("input"));
  cls.def("isreal", &isreal);
  auto frexp_impl = [](const Tensor& x) {
    auto [m, e] = frexp(x);
    return nb::module_::import_("ember.return_types").attr("frexp")(m, e);
  };
  m.def("frexp", frexp_impl, nb::arg("input"));
  cls.def("frexp", frexp_impl);
  m.def("unravel_index", [](const Tensor& indices, nb::handle shape) {
    nb::list coords;
    for (const Tensor& c : unravel_index(indices, int_list(shape, "shape"))) coords.append(c);
    return nb::tuple(coords);
  }, nb::arg("indices"), nb::arg("shape"));
  m.def("vander", &vander, nb::arg("x"), nb::arg("N") = nb::none(), nb::arg("increasing") = false);
  auto cov_impl = [](const Tensor& x, int64_t correction, std::optional<Tensor> fweights, std::optional<Tensor> aweights) {
    return cov(x, correction, fweights, aweights);
  };
  m.def("cov", cov_impl, nb::arg("input"), nb::kw_only(), nb::arg("correction") = 1, nb::arg("fweights") = nb::none(),
        nb::arg("aweights") = nb::none());
  cls.def("cov", cov_impl, nb::kw_only(), nb::arg("correction") = 1, nb::arg("fweights") = nb::none(),
          nb::arg("aweights") = nb::none());
  m.def("corrcoef", &corrcoef, nb::arg("input"));
  cls.def("corrcoef", &corrcoef);
  // trapezoid(y, x=None, *, dx=None, dim=-1) and cumulative_trapezoid; trapz(y, x, *, dim) / trapz(y, *, dx, dim)
  using WithX = Tensor (*)(const Tensor&, const Tensor&, int64_t);
  using WithDx = Tensor (*)(const Tensor&, double, int64_t);
  for (auto [name, with_x, with_dx] : {std::tuple<const char*, WithX, WithDx>{"trapezoid", &trapezoid, &trapezoid},
                                       {"trapz", &trapezoid, &trapezoid},
                                       {"cumulative_trapezoid", &cumulative_trapezoid, &cumulative_trapezoid}}) {
    m.def(name, [=](const Tensor& y, std::optional<Tensor> x, std::optional<double> dx, int64_t dim) {
      EMBER_CHECK(!(x && dx), Error, "trapezoid: received both x and dx, expected only one");
      return x ? with_x(y, *x, dim) : with_dx(y, dx.value_or(1.0), dim);
    }, nb::arg("y"), nb::arg("x") = nb::none(), nb::kw_only(), nb::arg("dx") = nb::none(), nb::arg("dim") = -1);
  }
  // the view scatters
  m.def("select_scatter", &select_scatter, nb::arg("input"), nb::arg("src"), nb::arg("dim"), nb::arg("index"));
  cls.def("select_scatter", &select_scatter, nb::arg("src"), nb::arg("dim"), nb::arg("index"));
  m.def("slice_scatter", [](const Tensor& x, const Tensor& src, int64_t dim, std::optional<int64_t> start,
                            std::optional<int64_t> end, int64_t step, nb::handle out) -> nb::object {
    Tensor r = slice_scatter(x, src, dim, start, end, step);
    if (out.is_none()) return nb::cast(r);
    Tensor& o = nb::cast<Tensor&>(out);
    check_out_dtype(o, r.dtype());
    composite_out(o, {&x, &src}, "slice_scatter", [&] { return r; });
    return nb::borrow(out);
  }, nb::arg("input"), nb::arg("src"), nb::arg("dim") = 0, nb::arg("start") = nb::none(), nb::arg("end") = nb::none(),
     nb::arg("step") = 1, nb::kw_only(), nb::arg("out") = nb::none());
  cls.def("slice_scatter", &slice_scatter, nb::arg("src"), nb::arg("dim") = 0, nb::arg("start") = nb::none(),
          nb::arg("end") = nb::none(), nb::arg("step") = 1);
  m.def("diagonal_scatter", &diagonal_scatter, nb::arg("input"), nb::arg("src"), nb::arg("offset") = 0,
        nb::arg("dim1") = 0, nb::arg("dim2") = 1);
  cls.def("diagonal_scatter", &diagonal_scatter, nb::arg("src"), nb::arg("offset") = 0, nb::arg("dim1") = 0,
          nb::arg("dim2") = 1);
  cls.def("type_as", [](nb::handle self, const Tensor& other) {
    return same_or_new(self, nb::cast<const Tensor&>(self).type_as(other));
  }, nb::arg("other"));
}

}  // namespace ember::py
