// The scatter family (ember/scatter.h): functions with out=, Tensor methods and their in-place forms.
#include "bindings.h"

namespace ember::py {

namespace {

// out=None: fn()'s result; else out_fn(out), which writes into out (returned).
template <typename Fn, typename OutFn>
nb::object result_or_out(nb::handle out, Fn fn, OutFn out_fn) {
  if (out.is_none()) return nb::cast(fn());
  out_fn(nb::cast<Tensor&>(out));
  return nb::borrow(out);
}

// scatter's fourth argument: a tensor src, or a number value (also given as value=).
struct Source {
  std::optional<Tensor> src;
  Scalar value;
};
Source scatter_source(nb::handle src, nb::handle value, const char* fn) {
  nb::handle h = src.is_none() ? value : src;
  EMBER_CHECK(!h.is_none(), TypeError, fn, "() missing required argument 'src' (or 'value')");
  if (nb::isinstance<Tensor>(h)) return {nb::cast<Tensor>(h), 0};
  return {std::nullopt, number_arg(h, fn, "value", 4)};
}

nb::tuple tensor_tuple(const std::vector<Tensor>& ts) {
  nb::list l;
  for (const Tensor& t : ts) l.append(nb::cast(t));
  return nb::tuple(l);
}

}  // namespace

void init_scatter(nb::module_& m, nb::class_<Tensor>& cls) {
  using Reduce = std::optional<std::string>;
  // scatter: src tensor or value number, reduce="add"/"multiply" (deprecated in torch).
  auto scatter_fn = [](const Tensor& x, int64_t dim, const Tensor& index, nb::handle src, nb::handle value,
                       const Reduce& reduce, nb::handle out) {
    Source s = scatter_source(src, value, "scatter");
    return result_or_out(out, [&] {
      if (s.src) return reduce ? scatter(x, dim, index, *s.src, *reduce) : scatter(x, dim, index, *s.src);
      return reduce ? scatter(x, dim, index, s.value, *reduce) : scatter(x, dim, index, s.value);
    }, [&](Tensor& o) {
      if (s.src) reduce ? scatter_out(o, x, dim, index, *s.src, *reduce) : scatter_out(o, x, dim, index, *s.src);
      else reduce ? scatter_out(o, x, dim, index, s.value, *reduce) : scatter_out(o, x, dim, index, s.value);
    });
  };
  m.def("scatter", scatter_fn, nb::arg("input"), nb::arg("dim"), nb::arg("index"), nb::arg("src") = nb::none(),
        nb::kw_only(), nb::arg("value") = nb::none(), nb::arg("reduce") = nb::none(), nb::arg("out") = nb::none());
  cls.def("scatter", [scatter_fn](const Tensor& x, int64_t dim, const Tensor& index, nb::handle src, nb::handle value,
                                  const Reduce& reduce) {
    return scatter_fn(x, dim, index, src, value, reduce, nb::none());
  }, nb::arg("dim"), nb::arg("index"), nb::arg("src") = nb::none(), nb::kw_only(), nb::arg("value") = nb::none(),
     nb::arg("reduce") = nb::none());
  cls.def("scatter_", [](nb::handle self, int64_t dim, const Tensor& index, nb::handle src, nb::handle value,
                         const Reduce& reduce) {
    Tensor& t = nb::cast<Tensor&>(self);
    Source s = scatter_source(src, value, "scatter_");
    if (s.src) reduce ? scatter_(t, dim, index, *s.src, *reduce) : scatter_(t, dim, index, *s.src);
    else reduce ? scatter_(t, dim, index, s.value, *reduce) : scatter_(t, dim, index, s.value);
    return nb::borrow(self);
  }, nb::arg("dim"), nb::arg("index"), nb::arg("src") = nb::none(), nb::kw_only(), nb::arg("value") = nb::none(),
     nb::arg("reduce") = nb::none());

  m.def("scatter_add", [](const Tensor& x, int64_t dim, const Tensor& index, const Tensor& src, nb::handle out) {
    return result_or_out(out, [&] { return scatter_add(x, dim, index, src); },
                         [&](Tensor& o) { scatter_add_out(o, x, dim, index, src); });
  }, nb::arg("input"), nb::arg("dim"), nb::arg("index"), nb::arg("src"), nb::kw_only(), nb::arg("out") = nb::none());
  cls.def("scatter_add", [](const Tensor& x, int64_t dim, const Tensor& index, const Tensor& src) {
    return scatter_add(x, dim, index, src);
  }, nb::arg("dim"), nb::arg("index"), nb::arg("src"));
  cls.def("scatter_add_", [](nb::handle self, int64_t dim, const Tensor& index, const Tensor& src) {
    scatter_add_(nb::cast<Tensor&>(self), dim, index, src);
    return nb::borrow(self);
  }, nb::arg("dim"), nb::arg("index"), nb::arg("src"));

  m.def("scatter_reduce", [](const Tensor& x, int64_t dim, const Tensor& index, const Tensor& src,
                             const std::string& reduce, bool include_self, nb::handle out) {
    return result_or_out(out, [&] { return scatter_reduce(x, dim, index, src, reduce, include_self); },
                         [&](Tensor& o) { scatter_reduce_out(o, x, dim, index, src, reduce, include_self); });
  }, nb::arg("input"), nb::arg("dim"), nb::arg("index"), nb::arg("src"), nb::arg("reduce"), nb::kw_only(),
     nb::arg("include_self") = true, nb::arg("out") = nb::none());
  cls.def("scatter_reduce", [](const Tensor& x, int64_t dim, const Tensor& index, const Tensor& src,
                               const std::string& reduce, bool include_self) {
    return scatter_reduce(x, dim, index, src, reduce, include_self);
  }, nb::arg("dim"), nb::arg("index"), nb::arg("src"), nb::arg("reduce"), nb::kw_only(), nb::arg("include_self") = true);
  cls.def("scatter_reduce_", [](nb::handle self, int64_t dim, const Tensor& index, const Tensor& src,
                                const std::string& reduce, bool include_self) {
    scatter_reduce_(nb::cast<Tensor&>(self), dim, index, src, reduce, include_self);
    return nb::borrow(self);
  }, nb::arg("dim"), nb::arg("index"), nb::arg("src"), nb::arg("reduce"), nb::kw_only(), nb::arg("include_self") = true);

  m.def("index_add", [](const Tensor& x, int64_t dim, const Tensor& index, const Tensor& source, const Scalar& alpha,
                        nb::handle out) {
    return result_or_out(out, [&] { return index_add(x, dim, index, source, alpha); },
                         [&](Tensor& o) { index_add_out(o, x, dim, index, source, alpha); });
  }, nb::arg("input"), nb::arg("dim"), nb::arg("index"), nb::arg("source"), nb::kw_only(), nb::arg("alpha") = 1,
     nb::arg("out") = nb::none());
  cls.def("index_add", [](const Tensor& x, int64_t dim, const Tensor& index, const Tensor& source, const Scalar& alpha) {
    return index_add(x, dim, index, source, alpha);
  }, nb::arg("dim"), nb::arg("index"), nb::arg("source"), nb::kw_only(), nb::arg("alpha") = 1);
  cls.def("index_add_", [](nb::handle self, int64_t dim, const Tensor& index, const Tensor& source, const Scalar& alpha) {
    index_add_(nb::cast<Tensor&>(self), dim, index, source, alpha);
    return nb::borrow(self);
  }, nb::arg("dim"), nb::arg("index"), nb::arg("source"), nb::kw_only(), nb::arg("alpha") = 1);

  m.def("index_copy", [](const Tensor& x, int64_t dim, const Tensor& index, const Tensor& source, nb::handle out) {
    return result_or_out(out, [&] { return index_copy(x, dim, index, source); },
                         [&](Tensor& o) { index_copy_out(o, x, dim, index, source); });
  }, nb::arg("input"), nb::arg("dim"), nb::arg("index"), nb::arg("source"), nb::kw_only(), nb::arg("out") = nb::none());
  cls.def("index_copy", [](const Tensor& x, int64_t dim, const Tensor& index, const Tensor& source) {
    return index_copy(x, dim, index, source);
  }, nb::arg("dim"), nb::arg("index"), nb::arg("source"));
  cls.def("index_copy_", [](nb::handle self, int64_t dim, const Tensor& index, const Tensor& source) {
    index_copy_(nb::cast<Tensor&>(self), dim, index, source);
    return nb::borrow(self);
  }, nb::arg("dim"), nb::arg("index"), nb::arg("source"));

  // index_fill: a number value, or a 0-dim tensor that gets a gradient (index_fill.int_Tensor).
  auto fill = [](const Tensor& x, int64_t dim, const Tensor& index, nb::handle value) {
    if (nb::isinstance<Tensor>(value)) return index_fill(x, dim, index, nb::cast<const Tensor&>(value));
    return index_fill(x, dim, index, number_arg(value, "index_fill", "value", 4));
  };
  m.def("index_fill", fill, nb::arg("input"), nb::arg("dim"), nb::arg("index"), nb::arg("value"));
  cls.def("index_fill", fill, nb::arg("dim"), nb::arg("index"), nb::arg("value"));
  cls.def("index_fill_", [](nb::handle self, int64_t dim, const Tensor& index, nb::handle value) {
    Tensor& t = nb::cast<Tensor&>(self);
    if (nb::isinstance<Tensor>(value)) index_fill_(t, dim, index, nb::cast<const Tensor&>(value));
    else index_fill_(t, dim, index, number_arg(value, "index_fill_", "value", 3));
    return nb::borrow(self);
  }, nb::arg("dim"), nb::arg("index"), nb::arg("value"));

  m.def("index_reduce", [](const Tensor& x, int64_t dim, const Tensor& index, const Tensor& source,
                           const std::string& reduce, bool include_self, nb::handle out) {
    return result_or_out(out, [&] { return index_reduce(x, dim, index, source, reduce, include_self); },
                         [&](Tensor& o) { index_reduce_out(o, x, dim, index, source, reduce, include_self); });
  }, nb::arg("input"), nb::arg("dim"), nb::arg("index"), nb::arg("source"), nb::arg("reduce"), nb::kw_only(),
     nb::arg("include_self") = true, nb::arg("out") = nb::none());
  cls.def("index_reduce", [](const Tensor& x, int64_t dim, const Tensor& index, const Tensor& source,
                             const std::string& reduce, bool include_self) {
    return index_reduce(x, dim, index, source, reduce, include_self);
  }, nb::arg("dim"), nb::arg("index"), nb::arg("source"), nb::arg("reduce"), nb::kw_only(), nb::arg("include_self") = true);
  cls.def("index_reduce_", [](nb::handle self, int64_t dim, const Tensor& index, const Tensor& source,
                              const std::string& reduce, bool include_self) {
    index_reduce_(nb::cast<Tensor&>(self), dim, index, source, reduce, include_self);
    return nb::borrow(self);
  }, nb::arg("dim"), nb::arg("index"), nb::arg("source"), nb::arg("reduce"), nb::kw_only(), nb::arg("include_self") = true);

  m.def("take", [](const Tensor& x, const Tensor& index, nb::handle out) {
    return result_or_out(out, [&] { return take(x, index); }, [&](Tensor& o) { take_out(o, x, index); });
  }, nb::arg("input"), nb::arg("index"), nb::kw_only(), nb::arg("out") = nb::none());
  cls.def("take", &take, nb::arg("index"));
  m.def("take_along_dim", [](const Tensor& x, const Tensor& indices, std::optional<int64_t> dim, nb::handle out) {
    return result_or_out(out, [&] { return take_along_dim(x, indices, dim); },
                         [&](Tensor& o) { take_along_dim_out(o, x, indices, dim); });
  }, nb::arg("input"), nb::arg("indices"), nb::arg("dim") = nb::none(), nb::kw_only(), nb::arg("out") = nb::none());
  cls.def("take_along_dim", &take_along_dim, nb::arg("indices"), nb::arg("dim") = nb::none());
  m.def("put", &put, nb::arg("input"), nb::arg("index"), nb::arg("source"), nb::arg("accumulate") = false);
  cls.def("put", &put, nb::arg("index"), nb::arg("source"), nb::arg("accumulate") = false);
  cls.def("put_", [](nb::handle self, const Tensor& index, const Tensor& source, bool accumulate) {
    put_(nb::cast<Tensor&>(self), index, source, accumulate);
    return nb::borrow(self);
  }, nb::arg("index"), nb::arg("source"), nb::arg("accumulate") = false);

  m.def("masked_select", [](const Tensor& x, const Tensor& mask, nb::handle out) {
    return result_or_out(out, [&] { return masked_select(x, mask); }, [&](Tensor& o) { masked_select_out(o, x, mask); });
  }, nb::arg("input"), nb::arg("mask"), nb::kw_only(), nb::arg("out") = nb::none());
  cls.def("masked_select", &masked_select, nb::arg("mask"));
  m.def("masked_scatter", &masked_scatter, nb::arg("input"), nb::arg("mask"), nb::arg("source"));
  cls.def("masked_scatter", &masked_scatter, nb::arg("mask"), nb::arg("source"));
  cls.def("masked_scatter_", [](nb::handle self, const Tensor& mask, const Tensor& source) {
    masked_scatter_(nb::cast<Tensor&>(self), mask, source);
    return nb::borrow(self);
  }, nb::arg("mask"), nb::arg("source"));

  // where(condition) with one argument: nonzero(condition, as_tuple=True) (an overload beside where(c, a, b)).
  m.def("where", [](const Tensor& condition) { return tensor_tuple(where(condition)); }, nb::arg("condition"));
  m.def("argwhere", &argwhere, nb::arg("input"));
  cls.def("argwhere", &argwhere);
}

}  // namespace ember::py
