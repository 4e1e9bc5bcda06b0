// Factory functions: empty, zeros, ones, full, arange, linspace, logspace, eye, *_like, new_*.
#include "bindings.h"

namespace ember::py {

namespace {

using SizedFactory = Tensor (*)(IntArrayRef, const TensorOptions&);

// Defines fn(*size, size=None, out=None, dtype=None, layout=None, device=None, requires_grad=False, pin_memory=False).
void def_sized(nb::module_& m, const char* name, SizedFactory factory) {
  m.def(name, [factory, name](const nb::args& args, nb::handle size, nb::handle out, std::optional<ScalarType> dtype,
                              nb::handle, nb::handle device, bool requires_grad, bool pin_memory) {
    DimVector sizes = factory_sizes(name, args, size);
    return with_out(out, factory(sizes, make_options(out_dtype(out, dtype), device, requires_grad, pin_memory)));
  }, nb::arg("args"), nb::arg("size") = nb::none(), EMBER_FACTORY_KWARGS_PLAIN);
}

// Options for *_like and new_*: unspecified fields come from the reference tensor.
TensorOptions like_options(const Tensor& ref, std::optional<ScalarType> dtype, nb::handle device, bool requires_grad) {
  TensorOptions o = make_options(dtype.value_or(ref.dtype()), device, requires_grad);
  if (device.is_none()) o = o.device(ref.device());
  return o;
}

// A new tensor starts at version 0, whatever in-place op filled it, as torch's.
Tensor fresh(Tensor t, bool requires_grad) {
  t.impl()->storage.impl()->version = 0;
  return requires_grad ? t.requires_grad_(true) : t;
}

// An arange bound. torch finds no Bool kernel before converting the bounds: a number its Scalar holds but Ember's
// does not (2**63, a complex) raises that NotImplementedError for a bool arange.
Scalar arange_bound(nb::handle h, const char* name, int pos, const TensorOptions& o) {
  PyObject* p = h.ptr();
  bool torch_scalar = PyComplex_Check(p) || (PyLong_Check(p) && (PyLong_AsUnsignedLongLong(p), !PyErr_Occurred()));
  PyErr_Clear();
  EMBER_CHECK(!(o.dtype_opt() == kBool && is_unsupported_number(p) && torch_scalar), NotImplementedError,
              "\"arange_cpu\" not implemented for 'Bool'");
  return number_arg(h, "arange", name, pos);
}

}  // namespace

std::optional<ScalarType> out_dtype(nb::handle out, std::optional<ScalarType> dtype) {
  if (out.is_none()) return dtype;
  const Tensor* o = nullptr;
  EMBER_CHECK(nb::try_cast(out, o) && o, TypeError, "argument 'out' must be Tensor, not ", nb::inst_name(out).c_str());
  EMBER_CHECK(!dtype || *dtype == o->dtype(), Error, "dtype ", legacy_name(*dtype),
              " does not match dtype of out parameter (", legacy_name(o->dtype()), ")");
  EMBER_CHECK(!o->requires_grad(), Error, "functions with out=... arguments don't support automatic differentiation, "
              "but one of the arguments requires grad.");
  return o->dtype();
}

nb::object with_out(nb::handle out, Tensor result) {
  if (out.is_none()) return nb::cast(std::move(result));
  Tensor& o = nb::cast<Tensor&>(out);
  o.resize_(result.sizes());
  o.copy_(result);
  return nb::borrow(out);
}

void init_creation(nb::module_& m) {
  def_sized(m, "zeros", [](IntArrayRef s, const TensorOptions& o) { return zeros(s, o); });
  def_sized(m, "ones", [](IntArrayRef s, const TensorOptions& o) { return ones(s, o); });
  m.def("empty", [](const nb::args& args, nb::handle size, nb::handle out, std::optional<ScalarType> dtype, nb::handle,
                    nb::handle device, bool requires_grad, bool pin_memory, nb::handle memory_format) {
    DimVector sizes = factory_sizes("empty", args, size);
    auto format = memory_format_from_object(memory_format, "empty").value_or(MemoryFormat::Contiguous);
    return with_out(out, empty(sizes, make_options(out_dtype(out, dtype), device, requires_grad, pin_memory), format));
  }, nb::arg("args"), nb::arg("size") = nb::none(), EMBER_FACTORY_KWARGS_PLAIN, nb::arg("memory_format") = nb::none());

  m.def("full", [](nb::handle size, nb::handle fill_value, nb::handle out, std::optional<ScalarType> dtype, nb::handle,
                   nb::handle device, bool requires_grad, bool pin_memory) {
    DimVector sizes = int_list(size, "size", false);
    Scalar fill = number_arg(fill_value, "full", "fill_value", 2);
    return with_out(out, full(sizes, fill, make_options(out_dtype(out, dtype), device, requires_grad, pin_memory)));
  }, nb::arg("size"), nb::arg("fill_value"), nb::kw_only(), EMBER_FACTORY_KWARGS_PLAIN);

  // scalar_tensor(s): a 0-dim tensor of the default dtype (not the number's), as torch
  m.def("scalar_tensor", [](nb::handle s, nb::handle out, std::optional<ScalarType> dtype, nb::handle, nb::handle device,
                            bool requires_grad, bool pin_memory) {
    Scalar value = number_arg(s, "scalar_tensor", "s", 1);
    ScalarType type = out_dtype(out, dtype).value_or(default_dtype());
    return with_out(out, scalar_tensor(value, make_options(type, device, requires_grad, pin_memory)));
  }, nb::arg("s"), nb::kw_only(), EMBER_FACTORY_KWARGS_PLAIN);

  m.def("empty_strided", [](nb::handle size, nb::handle stride, std::optional<ScalarType> dtype, nb::handle layout,
                            nb::handle device, bool requires_grad, bool pin_memory) {
    return empty_strided(int_list(size, "size", false), int_list(stride, "stride", false),
                         make_options(dtype, device, requires_grad, pin_memory));
  }, nb::arg("size"), nb::arg("stride"), nb::kw_only(), nb::arg("dtype") = nb::none(), nb::arg("layout") = nb::none(),
     nb::arg("device") = nb::none(), nb::arg("requires_grad") = false, nb::arg("pin_memory") = false);

  // arange(end) or arange(start, end, step=1), each also by keyword.
  m.def("arange", [](const nb::args& args, nb::handle start, nb::handle end, nb::handle step, nb::handle out,
                     std::optional<ScalarType> dtype, nb::handle, nb::handle device, bool requires_grad, bool) {
    TensorOptions o = make_options(out_dtype(out, dtype), device, requires_grad);
    auto bound = [&](nb::handle h, const char* name, int pos) { return arange_bound(h, name, pos, o); };
    if (start.is_none() && step.is_none() && args.size() + !end.is_none() == 1) {
      return with_out(out, arange(bound(end.is_none() ? args[0] : end, "end", 1), o));
    }
    nb::handle slots[3] = {start, end, step};
    const char* names[3] = {"start", "end", "step"};
    EMBER_CHECK(args.size() <= 3, TypeError, "arange() takes 1 to 3 positional arguments but ", args.size(),
                " were given");
    for (size_t i = 0; i < args.size(); ++i) {
      EMBER_CHECK(slots[i].is_none(), TypeError, "arange() got multiple values for argument '", names[i], "'");
      EMBER_CHECK(!args[i].is_none(), TypeError, "arange(): argument '", names[i], "' must be Number, not NoneType");
      slots[i] = args[i];
    }
    EMBER_CHECK(!slots[0].is_none() && !slots[1].is_none(), TypeError, "arange() missing 1 required positional "
                "arguments: \"", slots[1].is_none() ? "end" : "start", "\"");
    Scalar st = slots[2].is_none() ? Scalar(int64_t(1)) : bound(slots[2], "step", 3);
    return with_out(out, arange(bound(slots[0], "start", 1), bound(slots[1], "end", 2), st, o));
  }, nb::arg("args"), nb::arg("start") = nb::none(), nb::arg("end") = nb::none(), nb::arg("step") = nb::none(),
     EMBER_FACTORY_KWARGS_PLAIN);

  m.def("linspace", [](const Scalar& start, const Scalar& end, int64_t steps, nb::handle out,
                       std::optional<ScalarType> dtype, nb::handle, nb::handle device, bool requires_grad, bool) {
    return with_out(out, linspace(start, end, steps, make_options(out_dtype(out, dtype), device, requires_grad)));
  }, nb::arg("start"), nb::arg("end"), nb::arg("steps"), nb::kw_only(), EMBER_FACTORY_KWARGS_PLAIN);

  m.def("logspace", [](const Scalar& start, const Scalar& end, int64_t steps, double base, nb::handle out,
                       std::optional<ScalarType> dtype, nb::handle, nb::handle device, bool requires_grad, bool) {
    return with_out(out, logspace(start, end, steps, base, make_options(out_dtype(out, dtype), device, requires_grad)));
  }, nb::arg("start"), nb::arg("end"), nb::arg("steps"), nb::arg("base") = 10.0, nb::kw_only(), EMBER_FACTORY_KWARGS_PLAIN);

  m.def("eye", [](int64_t n, std::optional<int64_t> mcols, nb::handle out, std::optional<ScalarType> dtype, nb::handle,
                  nb::handle device, bool requires_grad, bool) {
    return with_out(out, eye(n, mcols, make_options(out_dtype(out, dtype), device, requires_grad)));
  }, nb::arg("n"), nb::arg("m") = nb::none(), nb::kw_only(), EMBER_FACTORY_KWARGS_PLAIN);

  // *_like(input, *, dtype=None, layout=None, device=None, requires_grad=False, memory_format=None)
  // (rand_like and randn_like also take generator=)
  auto like = [](const Tensor& t, std::optional<ScalarType> dtype, nb::handle device, bool requires_grad,
                 nb::handle memory_format, const char* name, auto fill) {
    auto format = memory_format_from_object(memory_format, name).value_or(MemoryFormat::Preserve);
    Tensor out = empty_like(t, like_options(t, dtype, device, false), format);
    fill(out);
    return fresh(out, requires_grad);
  };
  auto def_like = [&](const char* name, auto fill) {
    m.def(name, [like, fill, name](const Tensor& t, std::optional<ScalarType> dtype, nb::handle, nb::handle device,
                                   bool requires_grad, nb::handle memory_format) {
            return like(t, dtype, device, requires_grad, memory_format, name, fill);
          },
          nb::arg("input"), nb::kw_only(), nb::arg("dtype") = nb::none(), nb::arg("layout") = nb::none(),
          nb::arg("device") = nb::none(), nb::arg("requires_grad") = false, nb::arg("memory_format") = nb::none());
  };
  auto def_random_like = [&](const char* name, void (*sample)(Tensor&, Generator*)) {
    m.def(name, [like, sample, name](const Tensor& t, std::optional<Generator*> gen, std::optional<ScalarType> dtype,
                                     nb::handle, nb::handle device, bool requires_grad, nb::handle memory_format) {
      return like(t, dtype, device, requires_grad, memory_format, name,
                  [&](Tensor& out) { sample(out, gen.value_or(nullptr)); });
    }, nb::arg("input"), nb::kw_only(), nb::arg("generator") = nb::none(), nb::arg("dtype") = nb::none(),
       nb::arg("layout") = nb::none(), nb::arg("device") = nb::none(), nb::arg("requires_grad") = false,
       nb::arg("memory_format") = nb::none());
  };
  def_like("empty_like", [](Tensor&) {});
  def_like("zeros_like", [](Tensor& t) { t.zero_(); });
  def_like("ones_like", [](Tensor& t) { t.fill_(1); });
  def_random_like("rand_like", [](Tensor& t, Generator* g) { uniform_(t, 0.0, 1.0, g); });
  def_random_like("randn_like", [](Tensor& t, Generator* g) { normal_(t, 0.0, 1.0, g); });
  m.def("full_like", [like](const Tensor& t, nb::handle fill_value, std::optional<ScalarType> dtype, nb::handle,
                            nb::handle device, bool requires_grad, nb::handle memory_format) {
    Scalar fill = number_arg(fill_value, "full_like", "fill_value", 2);
    return like(t, dtype, device, requires_grad, memory_format, "full_like", [&](Tensor& out) { out.fill_(fill); });
  }, nb::arg("input"), nb::arg("fill_value"), nb::kw_only(), nb::arg("dtype") = nb::none(),
     nb::arg("layout") = nb::none(), nb::arg("device") = nb::none(), nb::arg("requires_grad") = false,
     nb::arg("memory_format") = nb::none());

  // Tensor.new_*: dtype and device default to the tensor's own.
  auto cls = nb::borrow<nb::object>(m.attr("Tensor"));
  auto def_new = [&](const char* name, auto fill) {
    nb::object method = nb::cpp_function(
        [fill, name](const Tensor& self, const nb::args& args, nb::handle size, std::optional<ScalarType> dtype,
                     nb::handle device, bool requires_grad, nb::handle, bool) {
          DimVector sizes = factory_sizes(name, args, size);
          EMBER_CHECK(!self.is_sparse_csr(), Error, "torch.empty: Only batched sparse compressed (non-block) tensors "
                      "are supported, but got size ", int_list(sizes));
          Tensor out = self.has_sparse_layout()  // torch makes a sparse tensor (nnz 0) like self
              ? sparse_coo_tensor(sizes, like_options(self, dtype, device, false))
              : empty(sizes, like_options(self, dtype, device, false));
          fill(out);
          return fresh(out, requires_grad);
        },
        nb::is_method(), nb::name(name), nb::arg("args"), nb::arg("size") = nb::none(), nb::arg("dtype") = nb::none(),
        nb::arg("device") = nb::none(), nb::arg("requires_grad") = false, nb::arg("layout") = nb::none(),
        nb::arg("pin_memory") = false);
    nb::setattr(cls, name, method);
  };
  def_new("new_empty", [](Tensor&) {});
  def_new("new_zeros", [](Tensor& t) { t.zero_(); });
  def_new("new_ones", [](Tensor& t) { t.fill_(1); });
  nb::setattr(cls, "new_full", nb::cpp_function(
      [](const Tensor& self, nb::handle size, nb::handle fill_value, std::optional<ScalarType> dtype, nb::handle device,
         bool requires_grad, nb::handle, bool) {
        Scalar fill = number_arg(fill_value, "new_full", "fill_value", 2);
        if (self.has_sparse_layout()) throw_sparse_unsupported(self, "fill_.Scalar");
        Tensor out = full(int_list(size, "size", false), fill, like_options(self, dtype, device, false));
        return requires_grad ? out.requires_grad_(true) : out;
      },
      nb::is_method(), nb::name("new_full"), nb::arg("size"), nb::arg("fill_value"), nb::arg("dtype") = nb::none(),
      nb::arg("device") = nb::none(), nb::arg("requires_grad") = false, nb::arg("layout") = nb::none(),
      nb::arg("pin_memory") = false));
}

}  // namespace ember::py
