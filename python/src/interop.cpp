// Data in and out of tensors: Python lists and scalars, numpy (shared memory), DLPack,
// tolist(), and the storage objects.
#include <nanobind/ndarray.h>

#include "bindings.h"
#include "ember/cuda.h"
#include "ember/host.h"

namespace ember::py {

namespace {

using AnyArray = nb::ndarray<nb::ro>;

nb::dlpack::dtype to_dlpack(ScalarType t) {
  using Code = nb::dlpack::dtype_code;
  auto bits = uint8_t(element_size(t) * 8);
  Code code = Code::Int;
  switch (t) {
    case kBool: code = Code::Bool; break;
    case kUInt8: code = Code::UInt; break;
    case kFloat16: case kFloat32: case kFloat64: code = Code::Float; break;
    case kBFloat16: code = Code::Bfloat; break;
    case kFloat8_e4m3fn: code = Code::Float8_E4M3FN; break;
    case kFloat8_e5m2: code = Code::Float8_E5M2; break;
    default: break;
  }
  return {uint8_t(code), bits, 1};
}

std::optional<ScalarType> from_dlpack_dtype(nb::dlpack::dtype d) {
  for (int i = 0; i < kNumScalarTypes; ++i) {
    if (to_dlpack(ScalarType(i)) == d) return ScalarType(i);
  }
  return std::nullopt;
}

// A tensor over an imported array's memory; the array stays alive as long as the storage.
Tensor tensor_from_array(const AnyArray& arr, const char* source) {
  auto dtype = from_dlpack_dtype(arr.dtype());
  EMBER_CHECK(dtype, TypeError, "can't convert ", source, " of this dtype. The only supported types are: float64, "
              "float32, float16, bfloat16, float8_e4m3fn, float8_e5m2, int64, int32, int16, int8, uint8, and bool.");
  DimVector sizes, strides;
  for (size_t i = 0; i < arr.ndim(); ++i) {
    sizes.push_back(int64_t(arr.shape(i)));
    strides.push_back(arr.stride(i));
    EMBER_CHECK(arr.stride(i) >= 0, ValueError, "At least one stride in the given numpy array is negative, and tensors "
                "with negative strides are not currently supported. (You can probably work around this by making a "
                "copy of your array  with array.copy().) ");
  }
  bool cuda = arr.device_type() == nb::device::cuda::value;
  EMBER_CHECK(cuda || arr.device_type() == nb::device::cpu::value, Error, "only CPU and CUDA arrays can be imported");
  Device device = cuda ? Device(DeviceType::CUDA, int8_t(arr.device_id())) : kCPU;
  get_allocator(device);  // raises for devices this build lacks
  auto* keep = new AnyArray(arr);
  return from_blob(const_cast<void*>(arr.data()), sizes, strides, *dtype, device, keep, [](void* p) {
    nb::gil_scoped_acquire gil;
    delete static_cast<AnyArray*>(p);
  });
}

// DLPack's (device type, index) of a tensor: kDLCPU (1) or kDLCUDA (2).
std::pair<int, int> dlpack_device(const Tensor& t) {
  return t.device().is_cuda() ? std::pair(int(nb::device::cuda::value), std::max<int>(t.device().index, 0))
                              : std::pair(int(nb::device::cpu::value), 0);
}

// A view of t's memory. A CUDA tensor's queued work is waited for first, so a consumer on any stream reads it done.
template <typename Framework>
nb::ndarray<Framework> export_array(const Tensor& t) {
  EMBER_CHECK(!t.is_quantized(), TypeError, "Got unsupported ScalarType ", legacy_name(t.dtype()));
  if (t.dim() > 128) throw nb::buffer_error("DLPack export supports at most 128 dimensions");  // nanobind's limit
  auto [device_type, device_id] = dlpack_device(t);
  if (t.device().is_cuda()) cuda::synchronize(device_id);
  auto* keep = new Tensor(t);
  nb::capsule owner(keep, [](void* p) noexcept { delete static_cast<Tensor*>(p); });
  std::vector<size_t> shape(t.sizes().begin(), t.sizes().end());
  return nb::ndarray<Framework>(t.data_ptr(), shape.size(), shape.data(), owner, t.strides().data(),
                                to_dlpack(t.dtype()), device_type, device_id);
}

nb::object to_numpy(const Tensor& t, bool force) {
  EMBER_CHECK(!t.has_sparse_layout(), TypeError, "can't convert ", t.is_sparse() ? "Sparse" : "SparseCsr",
              " layout tensor to numpy. Use Tensor.to_dense() first.");
  EMBER_CHECK(t.device().is_cpu(), TypeError, "can't convert ", t.device().str(),
              " device type tensor to numpy. Use Tensor.cpu() to copy the tensor to host memory first.");
  EMBER_CHECK(force || !t.requires_grad(), Error,
              "Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead.");
  EMBER_CHECK(t.dim() <= 64, ValueError, "number of dimensions must be within [0, 64]");  // numpy's limit
  ScalarType dt = t.dtype();
  EMBER_CHECK(dt != kBFloat16 && dt != kFloat8_e4m3fn && dt != kFloat8_e5m2, TypeError,
              "Got unsupported ScalarType ", legacy_name(dt));
  return export_array<nb::numpy>(t).cast();
}

// ---- Python data -> tensor, by torch.tensor's rules: the shape is read along first elements, the
// dtype promoted over every leaf (numpy scalars keep theirs), and values checked against the dtype.

constexpr size_t kMaxDataDims = 128;  // torch's limit for nested data

bool is_string(PyObject* o) { return PyUnicode_Check(o) || PyBytes_Check(o); }
bool is_numpy_object(PyObject* o) { return std::string_view(Py_TYPE(o)->tp_name).starts_with("numpy."); }

[[noreturn]] void unsupported_numpy_type(nb::handle np_dtype) {
  throw TypeError(str("can't convert np.ndarray of type numpy.", nb::str(np_dtype.attr("type").attr("__name__")).c_str(),
                      ". The only supported types are: float64, float32, float16, int64, int32, int16, int8, uint8, "
                      "and bool."));
}

// A numpy array's memory, with torch's errors for arrays a tensor cannot view.
Tensor tensor_from_numpy(nb::handle arr) {
  nb::object d = arr.attr("dtype");
  EMBER_CHECK(nb::cast<std::string>(d.attr("byteorder")) != ">", ValueError, "given numpy array has byte order "
              "different from the native byte order. Conversion between byte orders is currently not supported.");
  AnyArray a;
  if (!nb::try_cast(arr, a)) unsupported_numpy_type(d);
  return tensor_from_array(a, "np.ndarray");
}

// The dtype of a numpy scalar or array, from its numpy dtype's kind and size.
ScalarType numpy_scalar_type(PyObject* o) {
  nb::object d = nb::handle(o).attr("dtype");
  char kind = nb::cast<std::string>(d.attr("kind"))[0];
  auto size = nb::cast<int64_t>(d.attr("itemsize"));
  if (kind == 'b') return kBool;
  if (kind == 'u' && size == 1) return kUInt8;
  if (kind == 'i' && size <= 8) return size == 1 ? kInt8 : size == 2 ? kInt16 : size == 4 ? kInt32 : kInt64;
  if (kind == 'f' && size >= 2 && size <= 8) return size == 2 ? kFloat16 : size == 4 ? kFloat32 : kFloat64;
  unsupported_numpy_type(d);
}

// A sequence as a list or tuple (other sequences are iterated into a list).
nb::object fast_sequence(PyObject* o) {
  nb::object seq = nb::steal(PySequence_Fast(o, "not a sequence"));
  if (!seq.is_valid()) throw nb::python_error();
  return seq;
}

// fn(item) for each item of a fast sequence, each held while fn runs; Python code that fn runs
// (__float__, __iter__) may change a list, so its length is checked every time.
template <typename Fn>
void for_each_item(const nb::object& seq, Fn&& fn) {
  Py_ssize_t n = PySequence_Fast_GET_SIZE(seq.ptr());
  for (Py_ssize_t i = 0; i < n; ++i) {
    EMBER_CHECK(PySequence_Fast_GET_SIZE(seq.ptr()) == n, Error, "the data changed size while it was read");
    PyObject* item = PySequence_Fast_GET_ITEM(seq.ptr(), i);
    if (PyFloat_CheckExact(item) || PyLong_CheckExact(item) || PyBool_Check(item)) {
      fn(item);  // runs no Python code
    } else {
      nb::object held = nb::borrow(item);
      fn(item);
    }
  }
}

bool is_data_sequence(PyObject* o) { return !nb::isinstance<Tensor>(nb::handle(o)) && PySequence_Check(o); }

[[noreturn]] void too_many_dims(PyObject* o) {
  throw ValueError(str("too many dimensions '", Py_TYPE(o)->tp_name, "'"));
}

// Shape of nested sequences, read along the first elements (as torch does; strings are sequences here).
DimVector infer_shape(PyObject* o) {
  DimVector sizes;
  nb::object hold;
  while (is_data_sequence(o)) {
    Py_ssize_t n = PySequence_Length(o);
    if (n < 0) throw nb::python_error();
    if (sizes.size() == kMaxDataDims) too_many_dims(o);
    sizes.push_back(n);
    if (n == 0) break;
    hold = nb::steal(PySequence_GetItem(o, 0));
    if (!hold.is_valid()) throw nb::python_error();
    o = hold.ptr();
  }
  return sizes;
}

// torch's dtype inference: a leaf's own dtype, promoted over every element of a sequence.
ScalarType infer_dtype(PyObject* o, size_t depth) {
  if (PyFloat_CheckExact(o)) return default_dtype();
  if (PyBool_Check(o)) return kBool;
  if (PyLong_CheckExact(o)) return kInt64;
  if (nb::isinstance<Tensor>(nb::handle(o))) return nb::cast<const Tensor&>(nb::handle(o)).dtype();
  if (is_string(o)) throw TypeError(str("new(): invalid data type '", Py_TYPE(o)->tp_name, "'"));
  if (is_numpy_object(o)) return numpy_scalar_type(o);
  if (PyFloat_Check(o)) return default_dtype();
  if (PyLong_Check(o)) return kInt64;
  if (PyComplex_Check(o)) raise_unsupported_number(o);
  if (!PySequence_Check(o)) throw Error(str("Could not infer dtype of ", Py_TYPE(o)->tp_name));
  if (depth == kMaxDataDims) too_many_dims(o);  // also ends self-containing lists
  nb::object seq = fast_sequence(o);
  std::optional<ScalarType> t;
  for_each_item(seq, [&](PyObject* item) {
    ScalarType u = infer_dtype(item, depth + 1);
    t = t ? promote_types(*t, u) : u;
  });
  return t.value_or(default_dtype());
}

// A Python number as T, checked as torch's store_scalar: integers raise on overflow (negative values
// may wrap into unsigned types), floats convert unchecked, bool takes any number's truth.
template <typename T>
T leaf_value(PyObject* o) {
  if constexpr (std::is_same_v<T, bool>) {
    if (PyFloat_Check(o)) return PyFloat_AS_DOUBLE(o) != 0;
    if (std::string_view(Py_TYPE(o)->tp_name).starts_with("numpy.bool")) return PyObject_IsTrue(o) == 1;
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(o, &overflow);
    if (v == -1 && PyErr_Occurred()) throw nb::python_error();
    return overflow != 0 || v != 0;
  } else if constexpr (std::is_integral_v<T>) {
    using Limits = std::numeric_limits<T>;
    auto overflowed = [] { return Error(str("value cannot be converted to type ", dtype_name(scalar_type_of<T>), " without overflow")); };
    if (PyFloat_Check(o)) {
      double d = PyFloat_AS_DOUBLE(o);
      bool fits = d >= double(Limits::lowest()) && (sizeof(T) == 8 ? d < 0x1p63 : d <= double(Limits::max()));
      if (!fits) throw overflowed();  // NaN too
      return T(d);
    }
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(o, &overflow);
    if (v == -1 && PyErr_Occurred()) throw nb::python_error();
    if (overflow) throw ValueError("Overflow when unpacking long long");
    bool fits = std::is_signed_v<T> ? v >= int64_t(Limits::min()) && v <= int64_t(Limits::max())
                                    : v <= int64_t(Limits::max()) && v >= -int64_t(Limits::max());
    if (!fits) throw overflowed();
    return T(v);
  } else {
    double d = PyFloat_CheckExact(o) ? PyFloat_AS_DOUBLE(o) : PyFloat_AsDouble(o);
    if (d == -1.0 && PyErr_Occurred()) throw nb::python_error();
    return convert<T>(d);
  }
}

// Writes the leaves of `o` (at dim `depth` of `sizes`) in order, checking every sequence's length.
template <typename T>
void store(PyObject* o, IntArrayRef sizes, size_t depth, T*& p) {
  if (depth == sizes.size()) {
    *p++ = leaf_value<T>(o);
    return;
  }
  nb::object seq = fast_sequence(o);
  Py_ssize_t n = PySequence_Fast_GET_SIZE(seq.ptr());
  EMBER_CHECK(n == sizes[depth], ValueError, "expected sequence of length ", sizes[depth], " at dim ", depth, " (got ",
              n, ")");
  for_each_item(seq, [&](PyObject* item) { store(item, sizes, depth + 1, p); });
}

// ---- tensor -> Python data

nb::object element_object(const Tensor& t, const char* p) {
  return visit_dtype(t.dtype(), [&]<typename T>(T) -> nb::object {
    T v = *reinterpret_cast<const T*>(p);
    if constexpr (std::is_same_v<T, bool>) return nb::bool_(v);
    else if constexpr (std::is_integral_v<T>) return nb::int_(int64_t(v));
    else return nb::float_(convert<double>(v));
  });
}

nb::object tolist_at(const Tensor& t, size_t dim, const char* p) {
  if (dim == size_t(t.dim())) return element_object(t, p);
  // Python's recursion limit bounds the nesting (a RecursionError, not a C stack overflow)
  if (Py_EnterRecursiveCall(" while converting a tensor to a list")) throw nb::python_error();
  struct Leave {
    ~Leave() { Py_LeaveRecursiveCall(); }
  } leave;
  int64_t n = t.sizes()[dim], step = t.strides()[dim] * int64_t(t.element_size());
  PyObject* list = PyList_New(Py_ssize_t(n));
  for (int64_t i = 0; i < n; ++i) PyList_SET_ITEM(list, i, tolist_at(t, dim + 1, p + i * step).release().ptr());
  return nb::steal(list);
}

// A tensor's storage; a sparse tensor has none of its own (torch's NotImplementedError).
const Storage& storage_of(const Tensor& t) {
  EMBER_CHECK(!t.has_sparse_layout(), NotImplementedError, "Cannot access storage of SparseTensorImpl");
  return t.storage();
}

// untyped_storage() / storage(): the buffer behind a tensor.
struct StorageView {
  Storage storage;
  std::optional<ScalarType> dtype;  // set for typed storage
  size_t itemsize() const { return dtype ? element_size(*dtype) : 1; }
};

}  // namespace

bool is_numpy_array(nb::handle h) {
  PyTypeObject* tp = Py_TYPE(h.ptr());
  return std::string_view(tp->tp_name) == "numpy.ndarray";
}

Tensor tensor_from_data(nb::handle data, std::optional<ScalarType> dtype) {
  PyObject* o = data.ptr();
  EMBER_CHECK(!is_string(o), TypeError, "new(): invalid data type '", Py_TYPE(o)->tp_name, "'");
  DimVector sizes = infer_shape(o);
  Tensor out = empty(sizes, TensorOptions(dtype ? *dtype : infer_dtype(o, 0)));
  if (out.numel() == 0) return out;  // torch stores (and checks the lengths) only when there are elements
  visit_dtype(out.dtype(), [&]<typename T>(T) {
    T* p = out.data_ptr<T>();
    store(o, sizes, 0, p);
  });
  return out;
}

void init_interop(nb::module_& m, nb::class_<Tensor>& cls) {
  cls.def("numpy", [](const Tensor& t, bool force) { return to_numpy(t, force); }, nb::arg("force") = false)
      .def("__array__", [](const Tensor& t, nb::handle dtype, nb::handle) {
        nb::object arr = to_numpy(t, false);
        return dtype.is_none() ? arr : arr.attr("astype")(dtype);
      }, nb::arg("dtype") = nb::none(), nb::arg("copy") = nb::none())
      .def("__dlpack__", [](const Tensor& t, const nb::kwargs&) {  // a "dltensor" capsule
        if (t.requires_grad()) throw nb::buffer_error("Can't export tensors that require gradient, use tensor.detach()");
        return export_array<nb::no_framework>(t).cast();
      })
      .def("__dlpack_device__", [](const Tensor& t) {
        auto [type, index] = dlpack_device(t);
        return nb::make_tuple(type, index);
      })
      .def("tolist", [](const Tensor& t) {
        Tensor h = host_copy(t);
        return tolist_at(h, 0, static_cast<const char*>(h.data_ptr()));
      })
      .def("untyped_storage", [](const Tensor& t) { return StorageView{storage_of(t), std::nullopt}; })
      .def("storage", [](const Tensor& t) { return StorageView{storage_of(t), t.dtype()}; });

  nb::class_<StorageView>(m, "UntypedStorage")
      .def("data_ptr", [](const StorageView& s) { return reinterpret_cast<uintptr_t>(s.storage.data()); })
      .def("nbytes", [](const StorageView& s) { return s.storage.nbytes(); })
      .def("size", [](const StorageView& s) { return s.storage.nbytes() / s.itemsize(); })
      .def("__len__", [](const StorageView& s) { return s.storage.nbytes() / s.itemsize(); })
      .def("element_size", &StorageView::itemsize)
      .def_prop_ro("dtype", [](const StorageView& s) { return s.dtype.value_or(kUInt8); })
      .def_prop_ro("device", [](const StorageView& s) { return device_object(s.storage.device()); });

  m.def("tensor", [](nb::handle data, std::optional<ScalarType> dtype, nb::handle device, bool requires_grad, bool pin_memory) {
    TensorOptions options = make_options(dtype, device, requires_grad, pin_memory);
    Tensor t;
    if (nb::isinstance<Tensor>(data)) {  // a detached copy, as torch (with its warning)
      if (PyErr_WarnEx(PyExc_UserWarning, "To copy construct from a tensor, it is recommended to use "
                       "sourceTensor.detach().clone() or sourceTensor.detach().clone().requires_grad_(True), rather "
                       "than torch.tensor(sourceTensor).", 1) < 0) {
        throw nb::python_error();
      }
      Tensor src = nb::cast<const Tensor&>(data).detach();
      t = src.to(dtype.value_or(src.dtype()), true);
    } else if (is_numpy_array(data)) {
      t = tensor_from_numpy(data);
      t = t.to(dtype.value_or(t.dtype()), true);
    } else {
      t = tensor_from_data(data, dtype);
    }
    if (!options.device().is_cpu()) t = t.to(options.device());
    if (requires_grad) t.requires_grad_(true);
    return t;
  }, nb::arg("data").none(), nb::kw_only(), nb::arg("dtype") = nb::none(), nb::arg("device") = nb::none(),
     nb::arg("requires_grad") = false, nb::arg("pin_memory") = false);

  m.def("as_tensor", [](nb::handle data, std::optional<ScalarType> dtype, nb::handle device) -> nb::object {
    auto dev = device_from_object(device);
    Tensor t;
    if (nb::isinstance<Tensor>(data)) t = nb::cast<const Tensor&>(data);
    else if (is_numpy_array(data)) t = tensor_from_numpy(data);
    else t = tensor_from_data(data, dtype);
    if (dtype) t = t.to(*dtype);
    if (dev) t = t.to(*dev);
    return nb::isinstance<Tensor>(data) ? same_or_new(data, t) : nb::cast(t);
  }, nb::arg("data").none(), nb::kw_only(), nb::arg("dtype") = nb::none(), nb::arg("device") = nb::none());

  m.def("from_numpy", [](nb::handle arr) {
    EMBER_CHECK(is_numpy_array(arr), TypeError, "expected np.ndarray (got ", Py_TYPE(arr.ptr())->tp_name, ")");
    return tensor_from_numpy(arr);
  }, nb::arg("ndarray").none());

  m.def("from_dlpack", [](nb::handle ext) {
    if (nb::isinstance<Tensor>(ext)) {
      if (nb::cast<const Tensor&>(ext).requires_grad()) {
        throw nb::buffer_error("Can't export tensors that require gradient, use tensor.detach()");
      }
      return nb::cast<Tensor>(ext);
    }
    AnyArray arr;
    EMBER_CHECK(nb::try_cast(ext, arr), Error, "from_dlpack received an invalid capsule. Note that DLTensor capsules "
                "can be consumed only once, so you might have already constructed a tensor from it once.");
    return tensor_from_array(arr, "a DLPack capsule");
  }, nb::arg("ext_tensor").none());
}

}  // namespace ember::py
