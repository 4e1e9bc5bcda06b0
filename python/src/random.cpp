// Random sampling: Generator, manual_seed, rand/randn/randint/randperm/normal and in-place samplers.
#include "bindings.h"

namespace ember::py {

namespace {

Generator* gen_ptr(std::optional<Generator*> g) { return g ? *g : nullptr; }

// A seed as torch takes it: an int in [-2**63, 2**64), negative ones wrapping.
uint64_t seed_value(nb::handle h) {
  PyObject* o = h.ptr();
  EMBER_CHECK(PyLong_Check(o) || (PyIndex_Check(o) && !PyFloat_Check(o)), Error, "manual_seed expected a long, but got ",
              nb::inst_name(h).c_str());
  int overflow = 0;
  long long v = PyLong_AsLongLongAndOverflow(o, &overflow);
  if (v == -1 && PyErr_Occurred()) throw nb::python_error();
  if (!overflow) return uint64_t(v);
  unsigned long long u = overflow > 0 ? PyLong_AsUnsignedLongLong(o) : 0;
  if (overflow < 0 || PyErr_Occurred()) {
    PyErr_Clear();
    throw ValueError("Overflow when unpacking long long");
  }
  return u;
}

}  // namespace

void init_random(nb::module_& m) {
  nb::class_<Generator>(m, "Generator")
      .def("__init__", [](Generator* self, nb::handle device) {
        auto d = device_from_object(device);
        EMBER_CHECK(!d || d->is_cpu(), DeviceUnavailableError, "Generator on ", d->str(), " needs CUDA support");
        new (self) Generator();
        self->seed();
      }, nb::arg("device") = "cpu")
      .def("manual_seed", [](Generator& g, nb::handle seed) -> Generator& {
        g.manual_seed(seed_value(seed));
        return g;
      }, nb::arg("seed"), nb::rv_policy::reference)
      .def("initial_seed", &Generator::initial_seed)
      .def("seed", &Generator::seed)
      .def("get_state", &Generator::get_state)
      .def("set_state", [](Generator& g, const Tensor& s) -> Generator& {
        g.set_state(s);
        return g;
      }, nb::arg("new_state"), nb::rv_policy::reference)
      .def_prop_ro("device", [](const Generator&) { return device_object(kCPU); });

  m.attr("default_generator") = nb::cast(&default_generator(), nb::rv_policy::reference);
  m.def("manual_seed", [](nb::handle seed) -> Generator& {  // int(seed) first, as torch
    nb::object as_int = nb::steal(PyNumber_Long(seed.ptr()));
    if (!as_int.is_valid()) throw nb::python_error();
    manual_seed(seed_value(as_int));
    return default_generator();
  }, nb::arg("seed"), nb::rv_policy::reference);
  m.def("initial_seed", [] { return initial_seed(); });
  m.def("seed", [] { return default_generator().seed(); });
  m.def("get_rng_state", [] { return default_generator().get_state(); });
  m.def("set_rng_state", [](const Tensor& s) { default_generator().set_state(s); }, nb::arg("new_state"));

  auto def_sampler = [&](const char* name, Tensor (*fn)(IntArrayRef, const TensorOptions&, Generator*)) {
    m.def(name, [fn, name](const nb::args& args, nb::handle size, std::optional<Generator*> gen, nb::handle out,
                           std::optional<ScalarType> dtype, nb::handle, nb::handle device, bool requires_grad,
                           bool pin_memory) {
      DimVector sizes = factory_sizes(name, args, size);
      return with_out(out, fn(sizes, make_options(out_dtype(out, dtype), device, requires_grad, pin_memory),
                              gen_ptr(gen)));
    }, nb::arg("args"), nb::arg("size") = nb::none(), nb::arg("generator") = nb::none(), EMBER_FACTORY_KWARGS_PLAIN);
  };
  def_sampler("rand", [](IntArrayRef s, const TensorOptions& o, Generator* g) { return rand(s, o, g); });
  def_sampler("randn", [](IntArrayRef s, const TensorOptions& o, Generator* g) { return randn(s, o, g); });

  // randint(high, size) or randint(low, high, size), each also by keyword.
  m.def("randint", [](const nb::args& args, nb::handle low, nb::handle high, nb::handle size,
                      std::optional<Generator*> gen, nb::handle out, std::optional<ScalarType> dtype, nb::handle,
                      nb::handle device, bool requires_grad, bool) {
    size_t given = args.size() + !low.is_none() + !high.is_none() + !size.is_none();
    EMBER_CHECK(given == 2 || given == 3, TypeError, "randint() expects (high, size) or (low, high, size), got ", given,
                " arguments");
    nb::handle slots[3] = {low, high, size};
    const char* names[3] = {"low", "high", "size"};
    for (size_t i = 0, k = given == 2; i < args.size(); ++i, ++k) {
      EMBER_CHECK(slots[k].is_none(), TypeError, "randint() got multiple values for argument '", names[k], "'");
      slots[k] = args[i];
    }
    EMBER_CHECK(!slots[1].is_none() && !slots[2].is_none(), TypeError, "randint() missing required argument '",
                slots[1].is_none() ? "high" : "size", "'");
    auto int_arg = [&](size_t i, int64_t fallback) {
      if (slots[i].is_none()) return fallback;
      auto v = int_scalar(slots[i]);
      EMBER_CHECK(v, TypeError, "randint(): argument '", names[i], "' must be int, not ", nb::inst_name(slots[i]).c_str());
      return *v;
    };
    int64_t lo = int_arg(0, 0), hi = int_arg(1, 0);
    DimVector sizes = int_list(slots[2], "size", false);
    TensorOptions o = make_options(out_dtype(out, dtype), device, requires_grad);
    return with_out(out, randint(lo, hi, sizes, o, gen_ptr(gen)));
  }, nb::arg("args"), nb::arg("low") = nb::none(), nb::arg("high") = nb::none(), nb::arg("size") = nb::none(),
     nb::arg("generator") = nb::none(), EMBER_FACTORY_KWARGS_PLAIN);

  m.def("randperm", [](int64_t n, std::optional<Generator*> gen, nb::handle out, std::optional<ScalarType> dtype,
                       nb::handle, nb::handle device, bool requires_grad, bool) {
    return with_out(out, randperm(n, make_options(out_dtype(out, dtype), device, requires_grad), gen_ptr(gen)));
  }, nb::arg("n"), nb::kw_only(), nb::arg("generator") = nb::none(), EMBER_FACTORY_KWARGS_PLAIN);

  m.def("normal", [](double mean, double std, nb::handle size, std::optional<Generator*> gen, nb::handle out,
                     std::optional<ScalarType> dtype, nb::handle, nb::handle device, bool requires_grad, bool) {
    DimVector sizes = int_list(size, "size", false);
    return with_out(out, normal(mean, std, sizes, make_options(out_dtype(out, dtype), device, requires_grad),
                                gen_ptr(gen)));
  }, nb::arg("mean"), nb::arg("std"), nb::arg("size"), nb::kw_only(), nb::arg("generator") = nb::none(),
     EMBER_FACTORY_KWARGS_PLAIN);

  auto cls = nb::borrow<nb::object>(m.attr("Tensor"));
  nb::setattr(cls, "uniform_", nb::cpp_function([](Tensor& t, double from, double to, std::optional<Generator*> g) -> Tensor& {
    return uniform_(t, from, to, gen_ptr(g));
  }, nb::is_method(), nb::name("uniform_"), nb::arg("from") = 0.0, nb::arg("to") = 1.0, nb::arg("generator") = nb::none(),
     nb::rv_policy::reference));
  nb::setattr(cls, "normal_", nb::cpp_function([](Tensor& t, double mean, double std, std::optional<Generator*> g) -> Tensor& {
    return normal_(t, mean, std, gen_ptr(g));
  }, nb::is_method(), nb::name("normal_"), nb::arg("mean") = 0.0, nb::arg("std") = 1.0, nb::arg("generator") = nb::none(),
     nb::rv_policy::reference));
  nb::setattr(cls, "random_", nb::cpp_function([](Tensor& t, int64_t from, std::optional<int64_t> to, std::optional<Generator*> g) -> Tensor& {
    return to ? random_(t, from, *to, gen_ptr(g)) : random_(t, 0, from, gen_ptr(g));
  }, nb::is_method(), nb::name("random_"), nb::arg("from"), nb::arg("to") = nb::none(), nb::arg("generator") = nb::none(),
     nb::rv_policy::reference));
}

}  // namespace ember::py
