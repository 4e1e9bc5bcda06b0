// ember.dtype objects, the default dtype, finfo and iinfo.
#include <cmath>
#include <limits>
#include <sstream>

#include "bindings.h"

namespace ember::py {

namespace {

struct PyDType {
  ScalarType type;
};

PyTypeObject* g_dtype_type = nullptr;
PyObject* g_dtype_objects[kNumScalarTypes] = {};

// Float format facts: digits (with the implicit bit), min normal exponent, max value.
struct FloatFormat {
  int digits;
  int min_exp;
  double max;
};

FloatFormat float_format(ScalarType t) {
  switch (t) {
    case kFloat16: return {11, -14, 65504.0};
    case kBFloat16: return {8, -126, (2.0 - std::ldexp(1.0, -7)) * std::ldexp(1.0, 127)};
    case kFloat32: return {24, -126, double(std::numeric_limits<float>::max())};
    case kFloat64: return {53, -1022, std::numeric_limits<double>::max()};
    case kFloat8_e4m3fn: return {4, -6, 448.0};
    case kFloat8_e5m2: return {3, -14, 57344.0};
    default: throw TypeError(str("torch.finfo() requires a floating point input type, got ", dtype_name(t)));
  }
}

struct FInfo {
  ScalarType dtype;
  int bits;
  double eps, max, min, tiny, resolution;

  explicit FInfo(ScalarType t) : dtype(t), bits(int(element_size(t)) * 8) {
    FloatFormat f = float_format(t);
    eps = std::ldexp(1.0, 1 - f.digits);
    max = f.max;
    min = -f.max;
    tiny = std::ldexp(1.0, f.min_exp);
    resolution = std::pow(10.0, -std::floor((f.digits - 1) * std::log10(2.0)));
  }

  std::string repr() const {
    std::ostringstream os;
    os << "finfo(resolution=" << resolution << ", min=" << min << ", max=" << max << ", eps=" << eps
       << ", smallest_normal=" << tiny << ", tiny=" << tiny << ", dtype=" << dtype_name(dtype) << ")";
    return os.str();
  }
};

struct IInfo {
  ScalarType dtype;
  int bits;
  int64_t min, max;

  explicit IInfo(ScalarType t) : dtype(t), bits(int(element_size(t)) * 8) {
    EMBER_CHECK(t != kBool, TypeError, "torch.bool is not supported by torch.iinfo");
    EMBER_CHECK(!is_floating_point(t), TypeError, "torch.iinfo() requires an integer input type. Use torch.finfo to handle '",
                dtype_name(t), "'");
    visit_dtype(t, [&]<typename T>(T) {
      if constexpr (std::is_integral_v<T>) {
        min = int64_t(std::numeric_limits<T>::min());
        max = int64_t(std::numeric_limits<T>::max());
      }
    });
  }

  std::string repr() const {
    std::ostringstream os;  // torch prints the limits as doubles ("%g")
    os << "iinfo(min=" << double(min) << ", max=" << double(max) << ", dtype=" << dtype_name(dtype) << ")";
    return os.str();
  }
};

}  // namespace

nb::handle dtype_object(ScalarType t) { return g_dtype_objects[int(t)]; }

std::optional<ScalarType> dtype_from_object(nb::handle h) {
  PyObject* o = h.ptr();
  if (Py_TYPE(o) == g_dtype_type) return nb::inst_ptr<PyDType>(h)->type;
  if (o == (PyObject*)&PyFloat_Type) return kFloat64;
  if (o == (PyObject*)&PyLong_Type) return kInt64;
  if (o == (PyObject*)&PyBool_Type) return kBool;
  return std::nullopt;
}

std::optional<MemoryFormat> memory_format_from_object(nb::handle h, const char* fn) {
  if (h.is_none()) return std::nullopt;
  nb::handle cls = nb::module_::import_("ember").attr("memory_format");
  EMBER_CHECK(PyObject_IsInstance(h.ptr(), cls.ptr()) == 1, TypeError, fn,
              "(): argument 'memory_format' must be torch.memory_format, not ", nb::inst_name(h).c_str());
  std::string name = nb::cast<std::string>(h.attr("_name"));
  if (name == "channels_last") return MemoryFormat::ChannelsLast;
  if (name == "channels_last_3d") return MemoryFormat::ChannelsLast3d;
  return name == "preserve_format" ? MemoryFormat::Preserve : MemoryFormat::Contiguous;
}

void init_dtype(nb::module_& m) {
  auto cls = nb::class_<PyDType>(m, "dtype")
                 .def_prop_ro("itemsize", [](const PyDType& d) { return element_size(d.type); })
                 .def_prop_ro("is_floating_point", [](const PyDType& d) { return is_floating_point(d.type); })
                 .def_prop_ro("is_signed", [](const PyDType& d) {
                   EMBER_CHECK(!is_quantized(d.type), Error, "isSignedType not supported for quantized types");
                   return dtype_info(d.type).is_signed;
                 })
                 .def_prop_ro("is_complex", [](const PyDType&) { return false; })
                 .def("__repr__", [](const PyDType& d) { return "torch." + std::string(dtype_name(d.type)); })
                 .def("__reduce__", [](const PyDType& d) { return std::string(dtype_name(d.type)); });
  g_dtype_type = (PyTypeObject*)cls.ptr();
  for (int i = 0; i < kNumScalarTypes; ++i) {
    auto t = ScalarType(i);
    nb::object obj = nb::cast(PyDType{t});
    g_dtype_objects[i] = obj.ptr();  // the module attribute owns it for the module's lifetime
    m.attr(std::string(dtype_name(t)).c_str()) = obj;
  }
  const std::pair<const char*, ScalarType> aliases[] = {
      {"float", kFloat32}, {"double", kFloat64}, {"half", kFloat16}, {"short", kInt16},
      {"int", kInt32},     {"long", kInt64},     {"uint8", kUInt8},
  };
  for (auto [name, t] : aliases) m.attr(name) = dtype_object(t);

  m.def("get_default_dtype", [] { return default_dtype(); });
  m.def("set_default_dtype", [](ScalarType t) { set_default_dtype(t); }, nb::arg("d"));

  nb::class_<FInfo>(m, "finfo")
      .def(nb::init<ScalarType>(), nb::arg("type") = kFloat32)
      .def_ro("bits", &FInfo::bits)
      .def_ro("eps", &FInfo::eps)
      .def_ro("max", &FInfo::max)
      .def_ro("min", &FInfo::min)
      .def_ro("tiny", &FInfo::tiny)
      .def_prop_ro("smallest_normal", [](const FInfo& f) { return f.tiny; })
      .def_ro("resolution", &FInfo::resolution)
      .def_prop_ro("dtype", [](const FInfo& f) { return std::string(dtype_name(f.dtype)); })
      .def("__repr__", &FInfo::repr);
  nb::class_<IInfo>(m, "iinfo")
      .def(nb::init<ScalarType>(), nb::arg("type"))
      .def_ro("bits", &IInfo::bits)
      .def_ro("min", &IInfo::min)
      .def_ro("max", &IInfo::max)
      .def_prop_ro("dtype", [](const IInfo& f) { return std::string(dtype_name(f.dtype)); })
      .def("__repr__", &IInfo::repr);
}

}  // namespace ember::py
