// What the bindings of ember.nn's module classes share: the trampoline that lets Python subclass a C++ module,
// construction through it, and a layer's factory arguments.
#pragma once
#include <nanobind/trampoline.h>

#include "bindings.h"
#include "ember/nn/linear.h"

namespace ember::py {

// A tensor attribute as Python sees it: None where undefined.
inline nb::object tensor_or_none(const Tensor& t) { return t.defined() ? nb::cast(t) : nb::none(); }

// Python subclasses of any module class: forward and extra_repr go to the Python overrides, the repr's name is
// the Python class's.
template <typename Base>
struct PyModule : Base {
  NB_TRAMPOLINE(Base, 3);
  Tensor forward(const Tensor& input) override { NB_OVERRIDE(forward, input); }
  std::string extra_repr() const override { NB_OVERRIDE(extra_repr); }
  std::string name() const override {
    nb::gil_scoped_acquire gil;
    return nb::cast<std::string>(nb::handle(nb_trampoline.base()).type().attr("__name__"));
  }
};

// A module built from Python: the C++ class itself, or its trampoline for a Python subclass (as nb::init does).
template <typename T, typename... Args>
void construct(nb::pointer_and_handle<T> v, Args&&... args) {
  if (nb::inst_python_derived(v.h)) new (v.p) PyModule<T>(std::forward<Args>(args)...);
  else new (v.p) T(std::forward<Args>(args)...);
}

// A layer's own forward, bound without virtual dispatch: super().forward(x) in a Python subclass reaches the C++
// layer rather than re-entering the Python override.
template <typename T>
Tensor base_forward(T& self, const Tensor& input) {
  return self.T::forward(input);
}

inline nn::LayerOptions layer_options(nb::handle device, std::optional<ScalarType> dtype) {
  nn::LayerOptions o;
  o.dtype = dtype;
  if (auto d = device_from_object(device)) o.device = *d;
  return o;
}

}  // namespace ember::py
