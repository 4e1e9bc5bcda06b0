// Factory functions: empty, zeros, ones, full, arange, linspace, logspace, eye, *_like, new_*.
#include "bindings.h"

namespace ember::py {

namespace {

using SizedFactory = Tensor (*)(IntArrayRef, const TensorOptions&);

// Defines fn(*size, out=None, dtype=None, layout=None, device=None, requires_grad=False, pin_memory=False).
void def_sized(nb::module_& m, const char* name, SizedFactory factory) {
  m.def(name, [factory, name](const nb::args& size, nb::handle out, std::optional<ScalarType> dtype, nb::handle,
                              nb::handle device, bool requires_grad, bool pin_memory) {
    EMBER_CHECK(out.is_none(), NotImplementedError, name, "(out=...) is not supported yet");
    return factory(sizes_from_args(size, "size"), make_options(dtype, device, requires_grad, pin_memory));
  }, nb::arg("size"), EMBER_FACTORY_KWARGS_PLAIN);
}

// Options for *_like and new_*: unspecified fields come from the reference tensor.
TensorOptions like_options(const Tensor& ref, std::optional<ScalarType> dtype, nb::handle device, bool requires_grad) {
  TensorOptions o = make_options(dtype.value_or(ref.dtype()), device, requires_grad);
  if (device.is_none()) o.device = ref.device();
  return o;
}

// A new tensor starts at version 0, whatever in-place op filled it, as torch's.
Tensor fresh(Tensor t, bool requires_grad) {
  t.impl()->storage.impl()->version = 0;
  return requires_grad ? t.requires_grad_(true) : t;
}

}  // namespace

void init_creation(nb::module_& m) {
  def_sized(m, "zeros", [](IntArrayRef s, const TensorOptions& o) { return zeros(s, o); });
  def_sized(m, "ones", [](IntArrayRef s, const TensorOptions& o) { return ones(s, o); });
  m.def("empty", [](const nb::args& size, nb::handle out, std::optional<ScalarType> dtype, nb::handle,
                    nb::handle device, bool requires_grad, bool pin_memory, nb::handle) {
    EMBER_CHECK(out.is_none(), NotImplementedError, "empty(out=...) is not supported yet");
    return empty(sizes_from_args(size, "size"), make_options(dtype, device, requires_grad, pin_memory));
  }, nb::arg("size"), EMBER_FACTORY_KWARGS_PLAIN, nb::arg("memory_format") = nb::none());

  m.def("full", [](nb::handle size, const Scalar& fill, nb::handle out, std::optional<ScalarType> dtype, nb::handle,
                   nb::handle device, bool requires_grad, bool pin_memory) {
    return full(int_list(size, "size"), fill, make_options(dtype, device, requires_grad, pin_memory));
  }, nb::arg("size"), nb::arg("fill_value"), nb::kw_only(), EMBER_FACTORY_KWARGS_PLAIN);

  m.def("empty_strided", [](nb::handle size, nb::handle stride, std::optional<ScalarType> dtype, nb::handle layout,
                            nb::handle device, bool requires_grad, bool pin_memory) {
    return empty_strided(int_list(size, "size"), int_list(stride, "stride"),
                         make_options(dtype, device, requires_grad, pin_memory));
  }, nb::arg("size"), nb::arg("stride"), nb::kw_only(), nb::arg("dtype") = nb::none(), nb::arg("layout") = nb::none(),
     nb::arg("device") = nb::none(), nb::arg("requires_grad") = false, nb::arg("pin_memory") = false);

  m.def("arange", [](const nb::args& args, nb::handle out, std::optional<ScalarType> dtype, nb::handle,
                     nb::handle device, bool requires_grad, bool) {
    EMBER_CHECK(args.size() >= 1 && args.size() <= 3, TypeError, "arange() takes 1 to 3 positional arguments but ",
                args.size(), " were given");
    TensorOptions o = make_options(dtype, device, requires_grad);
    auto s = [&](size_t i) { return nb::cast<Scalar>(args[i]); };
    if (args.size() == 1) return arange(s(0), o);
    return arange(s(0), s(1), args.size() == 3 ? s(2) : Scalar(int64_t(1)), o);
  }, nb::arg("args"), EMBER_FACTORY_KWARGS_PLAIN);

  m.def("linspace", [](const Scalar& start, const Scalar& end, int64_t steps, nb::handle, std::optional<ScalarType> dtype,
                       nb::handle, nb::handle device, bool requires_grad, bool) {
    return linspace(start, end, steps, make_options(dtype, device, requires_grad));
  }, nb::arg("start"), nb::arg("end"), nb::arg("steps"), nb::kw_only(), EMBER_FACTORY_KWARGS_PLAIN);

  m.def("logspace", [](const Scalar& start, const Scalar& end, int64_t steps, double base, nb::handle,
                       std::optional<ScalarType> dtype, nb::handle, nb::handle device, bool requires_grad, bool) {
    return logspace(start, end, steps, base, make_options(dtype, device, requires_grad));
  }, nb::arg("start"), nb::arg("end"), nb::arg("steps"), nb::arg("base") = 10.0, nb::kw_only(), EMBER_FACTORY_KWARGS_PLAIN);

  m.def("eye", [](int64_t n, std::optional<int64_t> mcols, nb::handle, std::optional<ScalarType> dtype, nb::handle,
                  nb::handle device, bool requires_grad, bool) {
    return eye(n, mcols, make_options(dtype, device, requires_grad));
  }, nb::arg("n"), nb::arg("m") = nb::none(), nb::kw_only(), EMBER_FACTORY_KWARGS_PLAIN);

  // *_like(input, *, dtype=None, layout=None, device=None, requires_grad=False, memory_format=None)
  auto def_like = [&](const char* name, auto fill) {
    m.def(name, [fill](const Tensor& t, std::optional<ScalarType> dtype, nb::handle, nb::handle device,
                       bool requires_grad, nb::handle) {
      Tensor out = empty_like(t, like_options(t, dtype, device, false));
      fill(out);
      return fresh(out, requires_grad);
    }, nb::arg("input"), nb::kw_only(), nb::arg("dtype") = nb::none(), nb::arg("layout") = nb::none(),
       nb::arg("device") = nb::none(), nb::arg("requires_grad") = false, nb::arg("memory_format") = nb::none());
  };
  def_like("empty_like", [](Tensor&) {});
  def_like("zeros_like", [](Tensor& t) { t.zero_(); });
  def_like("ones_like", [](Tensor& t) { t.fill_(1); });
  def_like("rand_like", [](Tensor& t) { uniform_(t); });
  def_like("randn_like", [](Tensor& t) { normal_(t); });
  m.def("full_like", [](const Tensor& t, const Scalar& fill, std::optional<ScalarType> dtype, nb::handle,
                        nb::handle device, bool requires_grad, nb::handle) {
    Tensor out = empty_like(t, like_options(t, dtype, device, false));
    out.fill_(fill);
    return fresh(out, requires_grad);
  }, nb::arg("input"), nb::arg("fill_value"), nb::kw_only(), nb::arg("dtype") = nb::none(),
     nb::arg("layout") = nb::none(), nb::arg("device") = nb::none(), nb::arg("requires_grad") = false,
     nb::arg("memory_format") = nb::none());

  // Tensor.new_*: dtype and device default to the tensor's own.
  auto cls = nb::borrow<nb::object>(m.attr("Tensor"));
  auto def_new = [&](const char* name, auto fill) {
    nb::object method = nb::cpp_function(
        [fill](const Tensor& self, const nb::args& size, std::optional<ScalarType> dtype, nb::handle device,
               bool requires_grad) {
          Tensor out = empty(sizes_from_args(size, "size"), like_options(self, dtype, device, false));
          fill(out);
          return fresh(out, requires_grad);
        },
        nb::is_method(), nb::name(name), nb::arg("size"), nb::arg("dtype") = nb::none(), nb::arg("device") = nb::none(),
        nb::arg("requires_grad") = false);
    nb::setattr(cls, name, method);
  };
  def_new("new_empty", [](Tensor&) {});
  def_new("new_zeros", [](Tensor& t) { t.zero_(); });
  def_new("new_ones", [](Tensor& t) { t.fill_(1); });
  nb::setattr(cls, "new_full", nb::cpp_function(
      [](const Tensor& self, nb::handle size, const Scalar& fill, std::optional<ScalarType> dtype, nb::handle device,
         bool requires_grad) {
        Tensor out = full(int_list(size, "size"), fill, like_options(self, dtype, device, false));
        return requires_grad ? out.requires_grad_(true) : out;
      },
      nb::is_method(), nb::name("new_full"), nb::arg("size"), nb::arg("fill_value"), nb::arg("dtype") = nb::none(),
      nb::arg("device") = nb::none(), nb::arg("requires_grad") = false));
}

}  // namespace ember::py
