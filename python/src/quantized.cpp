// Quantized tensors in Python: the qscheme objects, quantize_per_tensor / quantize_per_channel / dequantize, and
// the Tensor methods that read a quantizer (int_repr, q_scale, ...).
#include <vector>

#include "bindings.h"

namespace ember::py {

namespace {

struct PyQScheme {
  QScheme scheme;
};

nb::object g_qschemes[kNumQSchemes];

nb::object qscheme_object(QScheme s) { return g_qschemes[int(s)]; }

}  // namespace

void init_quantized(nb::module_& m, nb::class_<Tensor>& cls) {
  nb::class_<PyQScheme>(m, "qscheme")
      .def("__repr__", [](const PyQScheme& q) { return "torch." + std::string(qscheme_name(q.scheme)); })
      .def("__reduce__", [](const PyQScheme& q) { return std::string(qscheme_name(q.scheme)); });
  for (int i = 0; i < kNumQSchemes; ++i) {
    auto s = QScheme(i);
    g_qschemes[i] = nb::cast(PyQScheme{s});
    m.attr(std::string(qscheme_name(s)).c_str()) = g_qschemes[i];
  }

  m.def("quantize_per_tensor", nb::overload_cast<const Tensor&, double, int64_t, ScalarType>(&quantize_per_tensor),
        nb::arg("input"), nb::arg("scale"), nb::arg("zero_point"), nb::arg("dtype"));
  m.def("quantize_per_tensor",
        nb::overload_cast<const Tensor&, const Tensor&, const Tensor&, ScalarType>(&quantize_per_tensor),
        nb::arg("input"), nb::arg("scale"), nb::arg("zero_point"), nb::arg("dtype"));
  m.def("quantize_per_tensor", [](const std::vector<Tensor>& inputs, const Tensor& scales, const Tensor& zero_points,
                                  ScalarType dtype) {
    nb::list out;
    for (Tensor& t : quantize_per_tensor(inputs, scales, zero_points, dtype)) out.append(nb::cast(std::move(t)));
    return nb::tuple(out);
  }, nb::arg("tensors"), nb::arg("scales"), nb::arg("zero_points"), nb::arg("dtype"));
  m.def("quantize_per_channel", &quantize_per_channel, nb::arg("input"), nb::arg("scales"), nb::arg("zero_points"),
        nb::arg("axis"), nb::arg("dtype"));
  m.def("dequantize", nb::overload_cast<const Tensor&>(&dequantize), nb::arg("input"));
  m.def("dequantize", [](const std::vector<Tensor>& ts) {
    nb::list out;
    for (Tensor& t : dequantize(ts)) out.append(nb::cast(std::move(t)));
    return nb::tuple(out);
  }, nb::arg("tensors"));
  m.def("int_repr", &int_repr, nb::arg("input"));

  cls.def_prop_ro("is_quantized", &Tensor::is_quantized)
      .def("dequantize", nb::overload_cast<const Tensor&>(&dequantize))
      .def("int_repr", &int_repr)
      .def("qscheme", [](const Tensor& t) { return qscheme_object(qscheme(t)); })
      .def("q_scale", &q_scale)
      .def("q_zero_point", &q_zero_point)
      .def("q_per_channel_scales", &q_per_channel_scales)
      .def("q_per_channel_zero_points", &q_per_channel_zero_points)
      .def("q_per_channel_axis", &q_per_channel_axis);
}

}  // namespace ember::py
