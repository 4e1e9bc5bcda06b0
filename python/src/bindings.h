// Shared pieces of the Python bindings: type casters for dtype, device and Scalar, and
// helpers that turn Python arguments (sizes, indices) into C++ values.
#pragma once
#include <functional>

#include <nanobind/nanobind.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/string_view.h>
#include <nanobind/stl/vector.h>

#include "ember/ember.h"

namespace nb = nanobind;

namespace ember::py {

// The singleton Python object for each dtype (ember.float32 ...).
nb::handle dtype_object(ScalarType t);
// The dtype an object names: an ember dtype, or the Python types bool, int, float.
std::optional<ScalarType> dtype_from_object(nb::handle h);
// A device from a device object, a string ("cuda:1") or an int (a CUDA index); None gives nullopt.
std::optional<Device> device_from_object(nb::handle h);
// TensorOptions from the keyword arguments every factory takes.
TensorOptions make_options(std::optional<ScalarType> dtype, nb::handle device, bool requires_grad,
                           bool pin_memory = false);
nb::object device_object(Device d);
// The format an ember.memory_format object names; None gives nullopt, another type torch's TypeError.
std::optional<MemoryFormat> memory_format_from_object(nb::handle h, const char* fn);

// Sizes given as varargs (2, 3), one sequence ((2, 3) or [2, 3] or a Size), or a keyword.
DimVector sizes_from_args(const nb::args& args, const char* what);
// An int list (a tuple or list of ints, numpy ints or 0-dim integer tensors; one int if allow_int).
DimVector int_list(nb::handle seq, const char* what, bool allow_int = true);
// One int of such a list (nullopt for other types); `pos` names it in the overflow error.
std::optional<int64_t> int_value(nb::handle h, const char* what, size_t pos = 0);
// One int argument (not a list element), as int_value but an overflow is torch's ValueError.
std::optional<int64_t> int_scalar(nb::handle h);
// A factory's size: varargs fn(2, 3) / fn((2, 3)), or the keyword fn(size=(2, 3)).
DimVector factory_sizes(const char* fn, const nb::args& args, nb::handle size);
// fn() or, with out=, out_fn(out) (returning out itself, as torch).
template <class F, class G>
nb::object fn_or_out(nb::handle out, F fn, G out_fn) {
  if (out.is_none()) return nb::cast(fn());
  out_fn(nb::cast<Tensor&>(out));
  return nb::borrow(out);
}
// A (values, indices) op as torch's named tuple `type` (ember.return_types), or written into out=(values, indices)
// by `write` and returned as the `type`_out tuple (python/src/sorting.cpp).
nb::object pair_result(const char* type, nb::handle out, const std::function<std::pair<Tensor, Tensor>()>& compute,
                       const std::function<void(Tensor&, Tensor&)>& write);
// compute() into out= when given (returning out itself, as torch), else its result (python/src/math_ops.cpp).
nb::object maybe_out(nb::handle out, std::initializer_list<const Tensor*> inputs, const char* name,
                     const std::function<Tensor()>& compute);
// (values, indices) as a tuple where with_indices, else values alone (the pooling ops' return_indices=).
nb::object maybe_pair(const std::pair<Tensor, Tensor>& r, bool with_indices);
// Tensors as a Python tuple (python/src/views.cpp).
nb::tuple to_tuple(const std::vector<Tensor>& ts);
// Whether h is a numpy.ndarray (checked by type name: numpy need not be installed).
bool is_numpy_array(nb::handle h);
// The tensor type's name, as Tensor.type() gives it: torch.FloatTensor, torch.cuda.FloatTensor.
std::string type_string(const Tensor& t);
// Builds an ember.Size (a tuple subclass) from sizes.
nb::object make_size(IntArrayRef sizes);

// Element `index` of a tensor sequence passed as argument `arg`; else torch's TypeError naming both.
const Tensor& tensor_element(nb::handle h, size_t index, int arg = 0);

// `self` when an op returned the tensor itself (x.to(x.dtype) is x, as in torch), else a new object.
nb::object same_or_new(nb::handle self, Tensor result);

// A tensor from nested sequences / numbers (torch.tensor's data argument).
Tensor tensor_from_data(nb::handle data, std::optional<ScalarType> dtype);

// Python value for a Scalar: bool, int or float.
nb::object scalar_to_python(const Scalar& s);
// Whether `o` is a Python number no Ember Scalar holds: an int outside int64 or a complex.
// raise_unsupported_number raises for it as a Number: for an int, torch's error (OverflowError where no torch
// Scalar holds it: below -2**63, from 2**64 on; else, for torch's unsigned Scalars, the RuntimeError torch gives
// when such a value meets an int64 tensor); for a complex, NotImplementedError (Ember has no complex dtypes).
bool is_unsupported_number(PyObject* o) noexcept;
[[noreturn]] void raise_unsupported_number(PyObject* o);
// A Number argument (full's fill_value, masked_fill's value): raise_unsupported_number's errors, else a
// TypeError naming argument `name` (position `pos`) of `fn`.
Scalar number_arg(nb::handle h, const char* fn, const char* name, int pos);

// A factory's out= argument: the dtype defaults to out's (and must match it); out takes the result's shape
// and values and is returned.
std::optional<ScalarType> out_dtype(nb::handle out, std::optional<ScalarType> dtype);
nb::object with_out(nb::handle out, Tensor result);

// Keyword arguments shared by factory functions.
#define EMBER_FACTORY_KWARGS_PLAIN                                                               \
  nb::arg("out") = nb::none(), nb::arg("dtype") = nb::none(), nb::arg("layout") = nb::none(),   \
      nb::arg("device") = nb::none(), nb::arg("requires_grad") = false, nb::arg("pin_memory") = false

void init_dtype(nb::module_& m);
void init_device(nb::module_& m);
void init_tensor(nb::module_& m);
void init_views(nb::class_<Tensor>& cls);
void init_indexing(nb::module_& m, nb::class_<Tensor>& cls);
void init_interop(nb::module_& m, nb::class_<Tensor>& cls);
void init_creation(nb::module_& m);
void init_random(nb::module_& m);
void init_ops(nb::module_& m, nb::class_<Tensor>& cls);
void init_reduce(nb::module_& m, nb::class_<Tensor>& cls);
void init_linalg(nb::module_& m, nb::class_<Tensor>& cls);
void init_sorting(nb::module_& m);  // after init_tensor (adds Tensor methods)
void init_autograd(nb::module_& m, nb::class_<Tensor>& cls);
void init_scatter(nb::module_& m, nb::class_<Tensor>& cls);
// GIL release for long kernels; pickling and copying of tensors, devices and generators.
void init_runtime(nb::module_& m);
void init_einsum(nb::module_& m);
void init_quantized(nb::module_& m, nb::class_<Tensor>& cls);  // quantized.cpp
void init_sparse(nb::module_& m, nb::class_<Tensor>& cls);     // sparse.cpp
void init_math_ops(nb::module_& m, nb::class_<Tensor>& cls);
void init_decompositions(nb::module_& m, nb::class_<Tensor>& cls);

// Python identity of tensors (TensorImpl::py_handle), python/src/identity.cpp.
// The live object that wraps `t`, or null.
PyObject* live_object(const Tensor& t) noexcept;
// Records `h` as its tensor's object when it owns its Tensor (not when it wraps `source` by reference).
void remember_object(nb::handle h, const Tensor* source) noexcept;
// A new nn.Parameter object for `t` (is_parameter), or null before ember.nn registers the class.
PyObject* new_parameter_object(const Tensor& t) noexcept;
void init_identity(nb::module_& m);

}  // namespace ember::py

NAMESPACE_BEGIN(NB_NAMESPACE)
NAMESPACE_BEGIN(detail)

// A tensor returns to Python as the object that already wraps it, if one lives (torch's identity),
// and a parameter as an nn.Parameter.
template <> struct type_caster<ember::Tensor> : type_caster_base<ember::Tensor> {
  template <typename T>
  static handle from_cpp(T&& value, rv_policy policy, cleanup_list* cleanup) noexcept {
    const ember::Tensor* t;
    if constexpr (std::is_pointer_v<std::remove_reference_t<T>>) t = value;
    else t = &value;
    bool track = t && t->defined();
    if (track) {
      if (PyObject* o = ember::py::live_object(*t)) return handle(o).inc_ref();
      if (t->impl()->is_parameter)
        if (PyObject* o = ember::py::new_parameter_object(*t)) return o;
    }
    handle h = type_caster_base<ember::Tensor>::from_cpp(std::forward<T>(value), policy, cleanup);
    if (track && h.is_valid()) ember::py::remember_object(h, t);
    return h;
  }
};

template <> struct type_caster<ember::ScalarType> {
  NB_TYPE_CASTER(ember::ScalarType, const_name("dtype"))
  bool from_python(handle src, uint8_t, cleanup_list*) noexcept {
    auto t = ember::py::dtype_from_object(src);
    if (!t) return false;
    value = *t;
    return true;
  }
  static handle from_cpp(ember::ScalarType t, rv_policy, cleanup_list*) noexcept {
    return ember::py::dtype_object(t).inc_ref();
  }
};

// int64_t arguments (dims, sizes, indices) refuse bool, as torch's int arguments do (x.transpose(True, 0),
// ember.eye(True) are TypeErrors). A Python int outside int64's range still matches the overload, and reading
// it raises torch's ValueError; containers (optional, vector) ask can_cast() first and refuse it.
template <> struct type_caster<int64_t> {
  using Value = int64_t;
  static constexpr auto Name = const_name("int");
  template <typename T_> using Cast = movable_cast_t<T_>;
  template <typename T_> bool can_cast() const noexcept { return !overflow; }
  bool from_python(handle src, uint32_t flags, cleanup_list* cleanup) noexcept {
    if (PyBool_Check(src.ptr())) return false;
    if (NB_CALL(load_i64)(NB_CTX_C(cleanup), src.ptr(), flags, &value)) return true;
    overflow = PyLong_CheckExact(src.ptr());  // an int that nanobind refuses does not fit
    return overflow;
  }
  static handle from_cpp(int64_t v, rv_policy, cleanup_list*) noexcept { return PyLong_FromLongLong(v); }
  explicit operator int64_t&() { return checked(); }
  explicit operator int64_t&&() { return std::move(checked()); }
  int64_t& checked() {
    if (overflow) throw ember::ValueError("Overflow when unpacking long long");
    return value;
  }
  int64_t value = 0;
  bool overflow = false;
};

// std::optional<int64_t> arguments (dim=None): None, or an int read as above.
template <> struct type_caster<std::optional<int64_t>> {
  using Value = std::optional<int64_t>;
  static constexpr auto Name = const_name("int | None");
  template <typename T_> using Cast = movable_cast_t<T_>;
  template <typename T_> bool can_cast() const noexcept { return !inner.overflow; }
  bool from_python(handle src, uint32_t flags, cleanup_list* cleanup) noexcept {
    if (src.is_none()) return true;
    if (!inner.from_python(src, flags, cleanup)) return false;
    value = inner.value;
    return true;
  }
  static handle from_cpp(const Value& v, rv_policy, cleanup_list*) noexcept {
    return v ? PyLong_FromLongLong(*v) : none().release();
  }
  explicit operator Value&() { return checked(); }
  explicit operator Value&&() { return std::move(checked()); }
  Value& checked() {
    inner.checked();
    return value;
  }
  type_caster<int64_t> inner;
  Value value;
};

// A Number argument. An int outside int64 or a complex matches, and reading it raises raise_unsupported_number's
// error (so an overload taking a Number reports it, as torch); containers ask can_cast() first and refuse it.
template <> struct type_caster<ember::Scalar> {
  using Value = ember::Scalar;
  static constexpr auto Name = const_name("bool | int | float");
  template <typename T_> using Cast = movable_cast_t<T_>;
  template <typename T_> bool can_cast() const noexcept { return !unsupported; }
  explicit operator Value&() { return checked(); }
  explicit operator Value&&() { return std::move(checked()); }
  Value& checked() {
    if (unsupported) ember::py::raise_unsupported_number(unsupported);
    return value;
  }
  Value value;
  PyObject* unsupported = nullptr;  // the argument, borrowed for the call

  bool from_python(handle src, uint8_t flags, cleanup_list*) noexcept {
    PyObject* o = src.ptr();
    if (PyBool_Check(o)) { value = ember::Scalar(o == Py_True); return true; }
    if (PyLong_Check(o)) {
      int overflow = 0;
      long long v = PyLong_AsLongLongAndOverflow(o, &overflow);
      if (overflow) {
        unsupported = o;
        return true;
      }
      value = ember::Scalar(int64_t(v));
      return true;
    }
    if (PyFloat_Check(o)) { value = ember::Scalar(PyFloat_AS_DOUBLE(o)); return true; }
    if (PyComplex_Check(o)) {
      unsupported = o;
      return true;
    }
    if (!(flags & uint8_t(cast_flags::convert))) return false;
    if (std::string_view(Py_TYPE(o)->tp_name) == "numpy.ndarray") return false;  // never a Number, as in torch
    if (PyIndex_Check(o)) {  // numpy integers, 0-dim integer tensors
      long long v = PyLong_AsLongLong(o);
      if (!(v == -1 && PyErr_Occurred())) {
        value = ember::Scalar(int64_t(v));
        return true;
      }
      PyErr_Clear();  // a 0-dim float tensor: read through nb_float below
    }
    if (PyNumber_Check(o) && Py_TYPE(o)->tp_as_number->nb_float) {  // numpy floats
      double v = PyFloat_AsDouble(o);
      if (v == -1.0 && PyErr_Occurred()) { PyErr_Clear(); return false; }
      value = ember::Scalar(v);
      return true;
    }
    return false;
  }
  static handle from_cpp(const ember::Scalar& s, rv_policy, cleanup_list*) noexcept {
    return ember::py::scalar_to_python(s).release();
  }
};

NAMESPACE_END(detail)
NAMESPACE_END(NB_NAMESPACE)

namespace ember::py {
// Shape utilities (hstack, flip, roll, repeat, tril, diag, meshgrid, ...): python/src/shape_utils.cpp.
void init_shape_utils(nb::module_& m, nb::class_<Tensor>& cls);
}  // namespace ember::py
namespace ember::py { void init_nn_activation(nb::module_& m, nb::module_& nn); }
namespace ember::py { void init_nn_loss(nb::module_& nn); }

namespace ember::py {
// nn normalisation functions (python/src/nn_normalization.cpp): ember._C._nn and torch's forms in ember._C.
void init_nn_normalization(nb::module_& m, nb::module_& nn);
// nn dropout functions (python/src/nn_dropout.cpp).
void init_nn_dropout(nb::module_& m, nb::module_& nn);
// pad, embedding, one_hot, normalize and distances (python/src/nn_layers.cpp).
void init_nn_layers(nb::module_& m, nb::module_& nn);
void init_nn_attention(nb::module_& nn);
void init_nn_vision(nb::module_& m, nb::module_& nn);
}  // namespace ember::py

namespace ember::py {
// ember.nn's modules, nn.init, nn.utils, F.linear / F.bilinear: python/src/nn_module.cpp.
void init_nn_module(nb::module_& nn);
}  // namespace ember::py
namespace ember::py {
// Convolution and pooling (torch.conv2d, F.max_pool2d, ...): python/src/nn_conv.cpp; m is ember._C, nn ember._C._nn.
void init_nn_conv(nb::module_& m, nb::module_& nn);
void init_optim(nb::module_& m);
}  // namespace ember::py
namespace ember::py {
// ember._C._data (samplers, C++ datasets, shared memory): python/src/data.cpp.
void init_data(nb::module_& m);
// ember._C._vision: image transforms, the C++ transform pipeline and datasets (python/src/vision.cpp).
void init_vision(nb::module_& m);
// ember.save / ember.load and safetensors (python/src/serialize.cpp).
void init_serialize(nb::module_& m);
}  // namespace ember::py
namespace ember::py { void init_nn_modules_layers(nb::module_& modules); }  // conv, pooling, norm, dropout, ... modules
// ember.nn's activation, loss and transformer modules (into _nn._modules) and their few functions (into _nn).
namespace ember::py { void init_nn_modules_act(nb::module_& modules, nb::module_& nn); }
