// Python identity of tensors: a tensor that comes back to Python while an object wraps it is that
// object (torch's `m.weight is m.weight`, `x.grad is x.grad`), and a parameter is an nn.Parameter.
#include "bindings.h"
#include "ember/nn/parameter.h"

namespace ember::py {
namespace {
PyTypeObject* g_parameter_type = nullptr;  // ember.nn.Parameter, registered by ember.nn

void link(nb::handle h, Tensor* held) noexcept {
  held->impl()->py_object = h.ptr();
  held->impl()->py_handle.store(held, std::memory_order_relaxed);
}
}  // namespace

PyObject* live_object(const Tensor& t) noexcept {
  TensorImpl* impl = t.impl();
  const Tensor* held = impl->py_handle.load(std::memory_order_relaxed);
  return held && held->impl() == impl ? static_cast<PyObject*>(impl->py_object) : nullptr;
}

void remember_object(nb::handle h, const Tensor* source) noexcept {
  Tensor* held = nb::inst_ptr<Tensor>(h);
  if (held != source && held->defined()) link(h, held);
}

PyObject* new_parameter_object(const Tensor& t) noexcept {
  if (!g_parameter_type) return nullptr;
  try {
    nb::object o = nb::inst_alloc(nb::handle((PyObject*)g_parameter_type));
    Tensor* held = new (nb::inst_ptr<Tensor>(o)) Tensor(t);
    nb::inst_mark_ready(o);
    link(o, held);
    return o.release().ptr();
  } catch (const nb::python_error&) {
    return nullptr;
  }
}

void init_identity(nb::module_& m) {
  m.def("_set_parameter_class", [](nb::handle cls) {
    EMBER_CHECK(PyType_Check(cls.ptr()) && PyType_IsSubtype((PyTypeObject*)cls.ptr(), (PyTypeObject*)nb::type<Tensor>().ptr()),
                TypeError, "the Parameter class must subclass ember.Tensor");
    Py_INCREF(cls.ptr());
    g_parameter_type = (PyTypeObject*)cls.ptr();
  });
  m.def("_make_parameter", &nn::make_parameter, nb::arg("data"), nb::arg("requires_grad") = true);
}

}  // namespace ember::py
