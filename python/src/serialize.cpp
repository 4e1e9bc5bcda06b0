// ember.save / ember.load and safetensors: Python objects to and from serialize::Value, files and streams.
#include <unordered_map>

#include "bindings.h"
#include "ember/serialize.h"

namespace ember::py {
namespace {

using serialize::Value;
using Kind = Value::Kind;

nb::handle ordered_dict_type() {
  static nb::object t = nb::module_::import_("collections").attr("OrderedDict");
  return t;
}
nb::handle size_type() {
  static nb::object t = nb::module_::import_("ember._size").attr("Size");
  return t;
}

Value to_value(nb::handle h, int depth) {
  EMBER_CHECK(depth < 1000, ValueError, "ember.save: containers nested more than 1000 deep (or one contains itself)");
  PyObject* o = h.ptr();
  if (o == Py_None) return Value();
  if (PyBool_Check(o)) return Value(o == Py_True);
  if (PyLong_Check(o)) {
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(o, &overflow);
    EMBER_CHECK(!overflow, ValueError, "ember.save: the int ", nb::str(h).c_str(), " does not fit in 64 bits");
    return Value(int64_t(v));
  }
  if (PyFloat_Check(o)) return Value(PyFloat_AS_DOUBLE(o));
  if (PyUnicode_Check(o)) return Value(nb::cast<std::string>(h));
  if (PyBytes_Check(o)) return Value::bytes(std::string(PyBytes_AS_STRING(o), size_t(PyBytes_GET_SIZE(o))));
  if (PyByteArray_Check(o)) return Value::bytes(std::string(PyByteArray_AS_STRING(o), size_t(PyByteArray_GET_SIZE(o))));
  if (!PyType_Check(o))
    if (auto t = dtype_from_object(h)) return Value(*t);
  if (nb::isinstance<Tensor>(h)) return Value(nb::cast<Tensor>(h));
  if (PyTuple_Check(o) || PyList_Check(o)) {
    Value::Items items;
    for (nb::handle x : h) items.push_back(to_value(x, depth + 1));
    Kind k = PyList_Check(o) ? Kind::List : nb::isinstance(h, size_type()) ? Kind::Size : Kind::Tuple;
    return Value::sequence(k, std::move(items));
  }
  if (PyDict_Check(o)) {
    Value::Entries entries;
    for (auto [k, v] : nb::borrow<nb::dict>(h)) entries.emplace_back(to_value(k, depth + 1), to_value(v, depth + 1));
    return Value::mapping(nb::isinstance(h, ordered_dict_type()) ? Kind::OrderedDict : Kind::Dict, std::move(entries));
  }
  throw TypeError(str("ember.save cannot save an object of type '", Py_TYPE(o)->tp_name,
                      "': only tensors, numbers, strings, bytes, dtypes, None and lists, tuples and dicts of them"));
}

// Objects shared in the file (the same list, string or tensor twice) come back as one Python object.
nb::object to_python(const Value& v, std::unordered_map<const void*, nb::object>& memo) {
  const void* id = v.identity();
  if (id) {
    auto it = memo.find(id);
    if (it != memo.end()) return it->second;
  }
  nb::object out;
  switch (v.kind()) {
    case Kind::None: return nb::none();
    case Kind::Bool: return nb::bool_(v.to_bool());
    case Kind::Int: return nb::int_(v.to_int());
    case Kind::Double: return nb::float_(v.to_double());
    case Kind::String: out = nb::str(v.to_string().data(), v.to_string().size()); break;
    case Kind::Bytes: out = nb::bytes(v.to_string().data(), v.to_string().size()); break;
    case Kind::Dtype: return nb::borrow(dtype_object(v.to_dtype()));
    case Kind::Tensor: out = nb::cast(v.to_tensor()); break;
    case Kind::List: {
      nb::list l;
      memo[id] = l;
      for (const Value& x : v.items()) l.append(to_python(x, memo));
      return l;
    }
    case Kind::Tuple:
    case Kind::Size: {
      nb::list l;
      for (const Value& x : v.items()) l.append(to_python(x, memo));
      out = v.is(Kind::Size) ? size_type()(nb::tuple(l)) : nb::tuple(l);
      break;
    }
    case Kind::Dict:
    case Kind::OrderedDict: {
      nb::object d = v.is(Kind::Dict) ? nb::dict() : ordered_dict_type()();
      memo[id] = d;
      for (const auto& [k, x] : v.entries()) d[to_python(k, memo)] = to_python(x, memo);
      return d;
    }
  }
  memo[id] = out;
  return out;
}

nb::object to_python(const Value& v) {
  std::unordered_map<const void*, nb::object> memo;
  return to_python(v, memo);
}

// map_location: None, a device or device string, or a dict from saved location to device.
serialize::LoadOptions load_options(nb::handle map_location) {
  serialize::LoadOptions opts;
  if (map_location.is_none()) return opts;
  if (PyDict_Check(map_location.ptr())) {
    std::vector<std::pair<std::string, Device>> remap;
    for (auto [k, v] : nb::borrow<nb::dict>(map_location))
      remap.emplace_back(nb::cast<std::string>(nb::str(k)), *device_from_object(v));
    opts.map_location = [remap](const std::string& loc) {
      for (const auto& [from, to] : remap)
        if (from == loc) return to;
      return Device(loc);
    };
    return opts;
  }
  if (PyCallable_Check(map_location.ptr()) && !nb::isinstance(map_location, nb::type<Device>()))
    throw TypeError("ember.load: map_location must be None, a device, a device string or a dict of them "
                    "(a callable is not supported: Ember has no storage objects to pass it)");
  std::optional<Device> d = device_from_object(map_location);
  EMBER_CHECK(d.has_value(), TypeError, "ember.load: map_location must be None, a device, a device string or a dict");
  Device fixed = *d;
  opts.map_location = [fixed](const std::string&) { return fixed; };
  return opts;
}

// A read-only view of a bytes-like object for the duration of a call.
struct Buffer {
  Py_buffer view{};
  explicit Buffer(nb::handle h) {
    if (PyObject_GetBuffer(h.ptr(), &view, PyBUF_SIMPLE) != 0) throw nb::python_error();
  }
  ~Buffer() { PyBuffer_Release(&view); }
};

// Calls write(memoryview) for each piece (no copy of tensor data on the C++ side).
serialize::Sink python_sink(nb::handle write) {
  return [write](const void* data, size_t n) {
    nb::gil_scoped_acquire gil;  // save may call it from a pool thread
    nb::object view = nb::steal(PyMemoryView_FromMemory(static_cast<char*>(const_cast<void*>(data)), Py_ssize_t(n), PyBUF_READ));
    if (!view.is_valid()) throw nb::python_error();
    write(view);
  };
}

serialize::TensorMap tensor_map(nb::handle tensors) {
  EMBER_CHECK(PyDict_Check(tensors.ptr()), ValueError, "Expected a dict of [str, torch.Tensor] but received ",
              Py_TYPE(tensors.ptr())->tp_name);
  serialize::TensorMap out;
  for (auto [k, v] : nb::borrow<nb::dict>(tensors)) {
    EMBER_CHECK(PyUnicode_Check(k.ptr()), ValueError, "Expected a dict of [str, torch.Tensor] but the key ",
                nb::repr(k).c_str(), " is not a str");
    EMBER_CHECK(nb::isinstance<Tensor>(v), ValueError, "Key `", nb::cast<std::string>(k),
                "` is invalid, expected torch.Tensor but received ", Py_TYPE(v.ptr())->tp_name);
    out.emplace_back(nb::cast<std::string>(k), nb::cast<Tensor>(v));
  }
  return out;
}

serialize::Metadata metadata_of(nb::handle metadata) {
  serialize::Metadata out;
  if (metadata.is_none()) return out;
  for (auto [k, v] : nb::borrow<nb::dict>(metadata)) {
    EMBER_CHECK(PyUnicode_Check(k.ptr()) && PyUnicode_Check(v.ptr()), ValueError,
                "metadata must be a dict of str to str, got ", nb::repr(k).c_str(), ": ", nb::repr(v).c_str());
    out.emplace_back(nb::cast<std::string>(k), nb::cast<std::string>(v));
  }
  return out;
}

nb::dict tensors_dict(const serialize::TensorMap& tensors) {
  nb::dict d;
  for (const auto& [k, t] : tensors) d[nb::str(k.data(), k.size())] = nb::cast(t);
  return d;
}

}  // namespace

void init_serialize(nb::module_& m) {
  static nb::object unpickling_error = nb::module_::import_("pickle").attr("UnpicklingError");
  nb::register_exception_translator([](const std::exception_ptr& p, void*) {
    try {
      std::rethrow_exception(p);
    } catch (const UnpicklingError& e) {
      PyErr_SetString(unpickling_error.ptr(), e.what());
    }
  });

  m.def("_save_to_path", [](nb::handle obj, const std::string& path) {
    Value v = to_value(obj, 0);
    nb::gil_scoped_release unlocked;
    serialize::save(v, path);
  }, nb::arg("obj").none(), nb::arg("path"));
  m.def("_save_to_stream", [](nb::handle obj, nb::handle write) {
    serialize::save(to_value(obj, 0), python_sink(write));
  }, nb::arg("obj").none(), nb::arg("write"));
  m.def("_load_from_path", [](const std::string& path, nb::handle map_location, bool mmap) {
    auto opts = load_options(map_location);
    Value v;
    {
      nb::gil_scoped_release unlocked;
      v = serialize::load(*serialize::Source::from_file(path, mmap), opts);
    }
    return to_python(v);
  }, nb::arg("path"), nb::arg("map_location").none(), nb::arg("mmap"));
  m.def("_load_from_buffer", [](nb::handle buffer, nb::handle map_location) {
    auto opts = load_options(map_location);
    Buffer b(buffer);
    Value v;
    {
      nb::gil_scoped_release unlocked;
      v = serialize::load(*serialize::Source::from_memory(b.view.buf, size_t(b.view.len)), opts);
    }
    return to_python(v);
  }, nb::arg("buffer"), nb::arg("map_location").none());

  // safetensors
  m.def("_safetensors_save", [](nb::handle tensors, nb::handle metadata) {
    auto map = tensor_map(tensors);
    auto meta = metadata_of(metadata);
    std::string out;
    serialize::save_safetensors(map, [&](const void* p, size_t n) { out.append(static_cast<const char*>(p), n); }, meta);
    return nb::bytes(out.data(), out.size());
  }, nb::arg("tensors"), nb::arg("metadata").none());
  m.def("_safetensors_save_file", [](nb::handle tensors, const std::string& path, nb::handle metadata) {
    auto map = tensor_map(tensors);
    auto meta = metadata_of(metadata);
    nb::gil_scoped_release unlocked;
    serialize::save_safetensors(map, path, meta);
  }, nb::arg("tensors"), nb::arg("path"), nb::arg("metadata").none());
  m.def("_safetensors_load", [](nb::handle buffer) {
    Buffer b(buffer);
    serialize::TensorMap tensors;
    {
      nb::gil_scoped_release unlocked;
      tensors = serialize::SafetensorsFile(serialize::Source::from_memory(b.view.buf, size_t(b.view.len))).tensors();
    }
    return tensors_dict(tensors);
  });
  using serialize::SafetensorsFile;
  nb::class_<SafetensorsFile>(m, "_SafetensorsFile")
      .def("__init__", [](SafetensorsFile* self, const std::string& path) {
        new (self) SafetensorsFile(serialize::Source::from_file(path, /*mmap=*/true));
      })
      .def("keys", [](const SafetensorsFile& f) {
        nb::list names;
        for (const auto& e : f.entries()) names.append(nb::str(e.name.data(), e.name.size()));
        names.sort();
        return names;
      })
      .def("tensor", &SafetensorsFile::tensor)
      .def("dtype", [](const SafetensorsFile& f, const std::string& name) { return dtype_object(f.entry(name).dtype); })
      .def("dtype_name", [](const SafetensorsFile& f, const std::string& name) {
        return serialize::safetensors_dtype(f.entry(name).dtype);
      })
      .def("shape", [](const SafetensorsFile& f, const std::string& name) {
        return std::vector<int64_t>(f.entry(name).shape.begin(), f.entry(name).shape.end());
      })
      .def("metadata", [](const SafetensorsFile& f) -> nb::object {
        if (f.metadata().empty()) return nb::none();
        nb::dict d;
        for (const auto& [k, v] : f.metadata()) d[nb::str(k.data(), k.size())] = nb::str(v.data(), v.size());
        return d;
      });
}

}  // namespace ember::py
