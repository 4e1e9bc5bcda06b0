// ember.Tensor: properties, conversions and copies. Views, indexing and interop have their own files.
#include "ember/sparse.h"
#include "bindings.h"

#include <nanobind/stl/pair.h>

namespace ember::py {

using namespace nb::literals;

namespace {

PyTypeObject* g_size_type = &PyTuple_Type;

// A sparse CSR tensor has no strides or offset (torch raises); COO reports zeros, as torch's.
const Tensor& check_strided(const Tensor& t, const char* what) {
  EMBER_CHECK(!t.is_sparse_csr(), Error, "Sparse CSR tensors do not have ", what);
  return t;
}

nb::object stride_tuple(const Tensor& t) {
  IntArrayRef s = t.strides();
  PyObject* tup = PyTuple_New(Py_ssize_t(s.size()));
  for (size_t i = 0; i < s.size(); ++i) PyTuple_SET_ITEM(tup, i, PyLong_FromLongLong(s[i]));
  return nb::steal(tup);
}

// to(dtype) / to(device) / to(device, dtype) / to(other) / to(dtype=..., device=..., copy=...)
Tensor tensor_to(const Tensor& self, const nb::args& args, const nb::kwargs& kwargs) {
  std::optional<ScalarType> dtype;
  std::optional<Device> device;
  bool copy = false, non_blocking = false;
  std::optional<MemoryFormat> format;
  for (nb::handle a : args) {
    if (auto t = dtype_from_object(a)) dtype = t;
    else if (nb::isinstance<Tensor>(a)) {
      const Tensor& other = nb::cast<const Tensor&>(a);
      dtype = other.dtype();
      device = other.device();
    } else if (!a.is_none()) {
      device = device_from_object(a);
    }
  }
  for (auto [k, v] : kwargs) {
    std::string key = nb::cast<std::string>(k);
    if (key == "dtype") {
      dtype = v.is_none() ? std::nullopt : dtype_from_object(v);
      EMBER_CHECK(dtype || v.is_none(), TypeError, "to(): argument 'dtype' must be torch.dtype, not ", nb::inst_name(v).c_str());
    }
    else if (key == "device") device = device_from_object(v);
    else if (key == "copy") copy = nb::cast<bool>(v);
    else if (key == "non_blocking") non_blocking = nb::cast<bool>(v);
    else if (key == "memory_format") format = memory_format_from_object(v, "to");
    else throw TypeError(str("to() got an unexpected keyword argument '", key, "'"));
  }
  Tensor out = self;
  if (device) out = out.to(*device, copy, non_blocking);
  if (dtype || format) out = out.to(dtype.value_or(out.dtype()), copy && !device, format.value_or(MemoryFormat::Preserve));
  if (copy && out.is_same(self)) out = self.clone();
  return out;
}

ScalarType dtype_from_type_string(const std::string& s) {
  for (int i = 0; i < kNumScalarTypes; ++i) {
    auto t = ScalarType(i);
    if (s == "torch." + std::string(legacy_name(t)) + "Tensor") return t;
  }
  throw ValueError(str("invalid type: '", s, "'"));
}

// Drops a Python reference held from C++ (safe from threads without the GIL, and at exit).
void release_py_object(void* o) {
  if (!Py_IsInitialized()) return;
  PyGILState_STATE g = PyGILState_Ensure();
  Py_DECREF(static_cast<PyObject*>(o));
  PyGILState_Release(g);
}

// Hot read-only attributes as plain CPython getters: cheaper than nanobind properties.
// The Size is immutable, so one object per tensor is built and then shared.
PyObject* get_shape(PyObject* self, void*) {
  TensorImpl* impl = nb::inst_ptr<Tensor>(self)->impl();
  if (!impl->py_size) {
    try {
      impl->py_size = std::shared_ptr<void>(make_size(impl->sizes).release().ptr(), &release_py_object);
    } catch (nb::python_error& e) {
      e.restore();
      return nullptr;
    }
  }
  PyObject* size = static_cast<PyObject*>(impl->py_size.get());
  Py_INCREF(size);
  return size;
}

PyObject* get_dtype(PyObject* self, void*) {
  return dtype_object(nb::inst_ptr<Tensor>(self)->dtype()).inc_ref().ptr();
}

PyObject* get_ndim(PyObject* self, void*) { return PyLong_FromLongLong(nb::inst_ptr<Tensor>(self)->dim()); }

PyGetSetDef tensor_getset[] = {
    {"shape", get_shape, nullptr, "The tensor's size, an ember.Size.", nullptr},
    {"dtype", get_dtype, nullptr, "The element type.", nullptr},
    {"ndim", get_ndim, nullptr, "The number of dimensions.", nullptr},
    {nullptr, nullptr, nullptr, nullptr, nullptr},
};

// float(t) and int(t): the single element, as torch (a ValueError for other sizes).
Scalar one_element(const Tensor& t) {
  EMBER_CHECK(t.numel() == 1, ValueError, "only one element tensors can be converted to Python scalars");
  return t.item();
}

PyType_Slot tensor_slots[] = {{Py_tp_getset, tensor_getset}, {0, nullptr}};

// torch's legacy constructor ember.Tensor(...): no arguments (an empty tensor), sizes (ints or a Size: uninitialised),
// a tensor (an alias of it) or data (a sequence or an array, in the default dtype).
Tensor legacy_tensor(const nb::args& args, nb::handle device) {
  TensorOptions options = make_options(default_dtype(), device, false);
  if (args.size() == 1 && nb::isinstance<Tensor>(args[0])) return nb::cast<const Tensor&>(args[0]).alias();
  if (args.size() == 1 && !PyObject_TypeCheck(args[0].ptr(), g_size_type) && !int_value(args[0], "size")) {
    nb::handle data = args[0];
    EMBER_CHECK(PySequence_Check(data.ptr()) || nb::hasattr(data, "__array__"), TypeError,
                "new(): data must be a sequence (got ", nb::inst_name(data).c_str(), ")");
    return nb::cast<Tensor>(nb::module_::import_("ember").attr("tensor")(data, "dtype"_a = default_dtype(),
                                                                          "device"_a = device));
  }
  return empty(args.size() == 0 ? DimVector{0} : sizes_from_args(args, "size"), options);
}

}  // namespace

// Python's view of a tensor's type string: 'torch.FloatTensor'.
std::string type_string(const Tensor& t) {
  std::string prefix = t.device().is_cuda() ? "torch.cuda." : "torch.";
  EMBER_CHECK(!t.is_sparse_csr(), Error, "Unimplemented backend SparseCsrCPU");
  if (t.is_sparse()) prefix += "sparse.";
  return prefix + std::string(legacy_name(t.dtype())) + "Tensor";
}

nb::object same_or_new(nb::handle self, Tensor result) {
  if (result.is_same(nb::cast<const Tensor&>(self))) return nb::borrow(self);
  return nb::cast(std::move(result));
}

const Tensor& tensor_element(nb::handle h, size_t index, int arg) {
  EMBER_CHECK(nb::isinstance<Tensor>(h), TypeError, "expected Tensor as element ", index, " in argument ", arg,
              ", but got ", nb::inst_name(h).c_str());
  return nb::cast<const Tensor&>(h);
}

nb::object make_size(IntArrayRef sizes) {
  PyObject* tup = g_size_type->tp_alloc(g_size_type, Py_ssize_t(sizes.size()));
  if (!tup) throw nb::python_error();
  for (size_t i = 0; i < sizes.size(); ++i) PyTuple_SET_ITEM(tup, i, PyLong_FromLongLong(sizes[i]));
  return nb::steal(tup);
}

nb::object scalar_to_python(const Scalar& s) {
  if (s.is_bool()) return nb::bool_(s.to_bool());
  if (s.is_integral()) return nb::int_(s.to_int());
  return nb::float_(s.to_double());
}

void init_tensor(nb::module_& m) {
  m.def("_set_size_type", [](nb::handle cls) {
    EMBER_CHECK(PyType_Check(cls.ptr()) && PyType_IsSubtype((PyTypeObject*)cls.ptr(), &PyTuple_Type), TypeError,
                "Size must be a tuple subclass");
    Py_INCREF(cls.ptr());
    g_size_type = (PyTypeObject*)cls.ptr();
  });

  auto cls = nb::class_<Tensor>(m, "Tensor", nb::type_slots(tensor_slots));
  cls.def("__init__", [](Tensor* self, const nb::args& args, nb::handle device) {
    new (self) Tensor(legacy_tensor(args, device));
  }, nb::arg("args"), nb::kw_only(), nb::arg("device") = nb::none());
  cls.def("size", [](const Tensor& t) { return make_size(t.sizes()); })
      .def("size", [](const Tensor& t, int64_t d) { return t.size(d); }, nb::arg("dim"))
      .def("stride", [](const Tensor& t) { return stride_tuple(check_strided(t, "strides")); })
      .def("stride", [](const Tensor& t, int64_t d) { return check_strided(t, "strides").stride(d); }, nb::arg("dim"))
      .def("dim", &Tensor::dim)
      .def("ndimension", &Tensor::dim)
      .def("numel", &Tensor::numel)
      .def("nelement", &Tensor::numel)
      .def_prop_ro("device", [](const Tensor& t) { return device_object(t.device()); })
      .def_prop_ro("is_cuda", [](const Tensor& t) { return t.device().is_cuda(); })
      .def_prop_ro("is_cpu", [](const Tensor& t) { return t.device().is_cpu(); })
      .def("element_size", &Tensor::element_size)
      .def_prop_ro("itemsize", &Tensor::element_size)
      .def_prop_ro("nbytes", [](const Tensor& t) {
        EMBER_CHECK(!t.has_sparse_layout(), Error, "nbytes is not defined for sparse tensors.  If you want the size "
                    "of the constituent tensors, add the nbytes of the indices and values.  If you want the size of "
                    "the  equivalent dense tensor, multiply numel() by element_size()");
        return t.nbytes();
      })
      .def("storage_offset", [](const Tensor& t) { return check_strided(t, "storage_offset").storage_offset(); })
      .def("is_contiguous", [](const Tensor& t, nb::handle format) {
        auto f = memory_format_from_object(format, "is_contiguous").value_or(MemoryFormat::Contiguous);
        EMBER_CHECK(!t.is_sparse_csr(), Error, "Sparse CSR tensors do not have is_contiguous");
        return !t.has_sparse_layout() && t.is_contiguous(f);
      },
           nb::arg("memory_format") = nb::none())
      .def("is_floating_point", &Tensor::is_floating_point)
      .def("is_complex", [](const Tensor&) { return false; })
      .def("data_ptr", [](const Tensor& t) { return reinterpret_cast<uintptr_t>(t.data_ptr()); })
      .def("_storage_data_ptr", [](const Tensor& t) {
        EMBER_CHECK(!t.has_sparse_layout(), Error, "Cannot access storage of a ", layout_name(t.layout()), " tensor");
        return reinterpret_cast<uintptr_t>(t.storage().data());
      })
      .def("_storage_nbytes", [](const Tensor& t) { return t.storage().nbytes(); })
      .def("_is_view_of_same_storage", [](const Tensor& a, const Tensor& b) { return a.storage().is_alias_of(b.storage()); })
      .def("item", [](const Tensor& t) { return t.item(); })
      .def("__len__", [](const Tensor& t) {
        EMBER_CHECK(t.dim() > 0, TypeError, "len() of a 0-d tensor");
        return t.sizes()[0];
      })
      .def("__repr__", [](const Tensor& t) { return tensor_repr(t); })
      .def("__bool__", [](const Tensor& t) {
        EMBER_CHECK(t.numel() == 1, Error, "Boolean value of Tensor with ", t.numel() == 0 ? "no values" : "more than one value",
                    " is ambiguous");
        return t.item().to_bool();
      })
      .def("__float__", [](const Tensor& t) { return one_element(t).to_double(); })
      .def("__int__", [](const Tensor& t) { return one_element(t).to_int(); })
      .def("__index__", [](const Tensor& t) {
        EMBER_CHECK(!t.is_floating_point() && t.numel() == 1, TypeError,
                    "only integer tensors of a single element can be converted to an index");
        return t.item().to_int();
      })
      // ---- copies and conversions
      .def("contiguous", [](nb::handle self, nb::handle format) {
        auto f = memory_format_from_object(format, "contiguous").value_or(MemoryFormat::Contiguous);
        return same_or_new(self, nb::cast<const Tensor&>(self).contiguous(f));
      }, nb::arg("memory_format") = nb::none())
      .def("clone", [](const Tensor& t, nb::handle format) {
        auto f = memory_format_from_object(format, "clone");
        return f ? t.clone(*f) : t.clone();  // no format: preserve, but contiguous for quantized, as torch
      }, nb::arg("memory_format") = nb::none())
      .def("to", [](nb::handle self, const nb::args& args, const nb::kwargs& kwargs) {
        return same_or_new(self, tensor_to(nb::cast<const Tensor&>(self), args, kwargs));
      })
      .def("cpu", [](nb::handle self) { return same_or_new(self, nb::cast<const Tensor&>(self).to(kCPU)); })
      .def("cuda", [](nb::handle self, nb::handle device, bool non_blocking) {
        auto d = device_from_object(device);
        EMBER_CHECK(!d || d->is_cuda(), Error, "Invalid device, must be cuda device");
        return same_or_new(self, nb::cast<const Tensor&>(self).to(d ? *d : Device(DeviceType::CUDA), false, non_blocking));
      }, nb::arg("device") = nb::none(), nb::arg("non_blocking") = false)
      .def("pin_memory", [](nb::handle self, nb::handle device) {
        device_from_object(device);  // a deprecated argument, but of a device type
        return same_or_new(self, nb::cast<const Tensor&>(self).pin_memory());
      }, nb::arg("device") = nb::none())
      .def("is_pinned", [](const Tensor& t, nb::handle device) {
        device_from_object(device);
        return t.is_pinned();
      }, nb::arg("device") = nb::none())
      .def("copy_", [](Tensor& t, const Tensor& src, bool non_blocking) -> Tensor& { return t.copy_(src, non_blocking); },
           nb::arg("src"), nb::arg("non_blocking") = false, nb::rv_policy::reference)
      .def("resize_", [](nb::handle self, const nb::args& size, nb::handle) {
        nb::cast<Tensor&>(self).resize_(sizes_from_args(size, "size"));
        return nb::borrow(self);
      }, nb::arg("size"), nb::arg("memory_format") = nb::none())
      .def("fill_", [](Tensor& t, const Scalar& v) -> Tensor& { return t.fill_(v); }, nb::arg("value"),
           nb::rv_policy::reference)
      .def("fill_", [](Tensor& t, const Tensor& v) -> Tensor& { return t.fill_(v); }, nb::arg("value"),
           nb::rv_policy::reference)
      .def("zero_", [](Tensor& t) -> Tensor& { return t.zero_(); }, nb::rv_policy::reference)
      .def("type", [](nb::handle self, nb::handle dtype) -> nb::object {
        const Tensor& t = nb::cast<const Tensor&>(self);
        if (dtype.is_none()) return nb::str(type_string(t).c_str());
        std::optional<ScalarType> d = PyUnicode_Check(dtype.ptr())
            ? std::optional<ScalarType>(dtype_from_type_string(nb::cast<std::string>(dtype))) : dtype_from_object(dtype);
        EMBER_CHECK(d, TypeError, "type() expects a dtype or a type string");
        return same_or_new(self, t.to(*d));
      }, nb::arg("dtype") = nb::none());
  const std::pair<const char*, ScalarType> casts[] = {
      {"float", kFloat32}, {"double", kFloat64}, {"half", kFloat16}, {"bfloat16", kBFloat16},
      {"long", kInt64},    {"int", kInt32},      {"short", kInt16},  {"char", kInt8},
      {"byte", kUInt8},    {"bool", kBool},
  };
  for (auto [name, t] : casts) {
    cls.def(name, [t](nb::handle self) { return same_or_new(self, nb::cast<const Tensor&>(self).to(t)); });
  }

  init_views(cls);
  init_indexing(m, cls);
  init_interop(m, cls);
  init_ops(m, cls);
  init_reduce(m, cls);
  init_linalg(m, cls);
  init_autograd(m, cls);
  init_shape_utils(m, cls);
}

}  // namespace ember::py
