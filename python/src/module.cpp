// The extension module ember._C: one init function per area.
#include "bindings.h"
#include "ember/parallel.h"

namespace ember::py {
void init_amp(nb::module_& m);  // amp.cpp
void init_pointwise(nb::module_& m, nb::class_<Tensor>& cls);  // ops_pointwise.cpp
void init_misc(nb::module_& m, nb::class_<Tensor>& cls);  // ops_misc.cpp
}  // namespace ember::py

NB_MODULE(_C, m) {
  using namespace ember;
  // dtype singletons are module attributes that other modules (user code, test globals) still
  // reference when the interpreter shuts down; nanobind would report them as leaks.
  nb::set_leak_warnings(false);
  // ember.OutOfMemoryError (torch.OutOfMemoryError, also ember.cuda.OutOfMemoryError): a RuntimeError.
  static PyObject* out_of_memory = PyErr_NewException("ember.OutOfMemoryError", PyExc_RuntimeError, nullptr);
  m.attr("OutOfMemoryError") = nb::handle(out_of_memory);
  // ember.linalg.LinAlgError (torch.linalg.LinAlgError, named _LinAlgError as torch's): a RuntimeError.
  static PyObject* linalg_error = PyErr_NewException("ember._C._LinAlgError", PyExc_RuntimeError, nullptr);
  m.attr("_LinAlgError") = nb::handle(linalg_error);
  nb::register_exception_translator([](const std::exception_ptr& p, void*) {
    try {
      std::rethrow_exception(p);
    } catch (const IndexError& e) {
      PyErr_SetString(PyExc_IndexError, e.what());
    } catch (const TypeError& e) {
      PyErr_SetString(PyExc_TypeError, e.what());
    } catch (const ValueError& e) {
      PyErr_SetString(PyExc_ValueError, e.what());
    } catch (const NotImplementedError& e) {
      PyErr_SetString(PyExc_NotImplementedError, e.what());
    } catch (const KeyError& e) {
      PyErr_SetString(PyExc_KeyError, e.what());
    } catch (const ZeroDivisionError& e) {
      PyErr_SetString(PyExc_ZeroDivisionError, e.what());
    } catch (const DeviceUnavailableError& e) {
      PyErr_SetString(PyExc_AssertionError, e.what());
    } catch (const OutOfMemoryError& e) {
      PyErr_SetString(out_of_memory, e.what());
    } catch (const LinAlgError& e) {
      PyErr_SetString(linalg_error, e.what());
    } catch (const std::bad_cast&) {  // a Python argument nanobind could not convert, as torch: a TypeError
      PyErr_SetString(PyExc_TypeError, "an argument has a type this function does not accept");
    }
  });
  // C++ warnings become Python UserWarnings; a filter that turns them into errors raises.
  set_warning_handler([](const std::string& message) {
    nb::gil_scoped_acquire gil;  // a warning may come from a thread that does not hold the GIL
    if (PyErr_WarnEx(PyExc_UserWarning, message.c_str(), 1) < 0) throw nb::python_error();
  });
  py::init_dtype(m);
  py::init_device(m);
  py::init_tensor(m);
  py::init_identity(m);
  py::init_creation(m);
  py::init_random(m);
  py::init_runtime(m);
  {
    nb::class_<Tensor> cls = nb::borrow<nb::class_<Tensor>>(nb::type<Tensor>());
    py::init_scatter(m, cls);
  }
  py::init_sorting(m);

  m.def("_set_printoptions", [](std::optional<int> precision, std::optional<int64_t> threshold,
                                std::optional<int64_t> edgeitems, std::optional<int64_t> linewidth,
                                std::optional<std::string> profile, std::optional<bool> sci_mode) {
    set_printoptions(precision, threshold, edgeitems, linewidth,
                     profile ? std::optional<std::string_view>(*profile) : std::nullopt, sci_mode);
  });
  m.def("_get_printoptions", [] {
    const PrintOptions& o = print_options();
    nb::dict d;
    d["precision"] = o.precision;
    d["threshold"] = o.threshold == INT64_MAX ? nb::object(nb::float_(INFINITY)) : nb::object(nb::int_(o.threshold));
    d["edgeitems"] = o.edgeitems;
    d["linewidth"] = o.linewidth;
    d["sci_mode"] = o.sci_mode ? nb::object(nb::bool_(*o.sci_mode)) : nb::none();
    return d;
  });
  m.def("_cpu_memory_stats", [] {
    MemoryStats s = cpu_memory_stats();
    nb::dict d;
    d["allocated_bytes.all.current"] = s.allocated_bytes;
    d["allocated_bytes.all.peak"] = s.peak_allocated_bytes;
    d["reserved_bytes.all.current"] = s.reserved_bytes;
    d["cached_bytes"] = s.cached_bytes;
    return d;
  });
  m.def("_cpu_reset_peak_memory_stats", &reset_cpu_peak_memory_stats);
  m.def("_cpu_empty_cache", &cpu_empty_cache);
  m.def("_measured_fma_peak_gflops", &measured_fma_peak_gflops, nb::arg("seconds") = 0.2);
  // Resizing waits for a job other threads run; their kernels may need the GIL (a warning).
  m.def("set_num_threads", &set_num_threads, nb::arg("int"), nb::call_guard<nb::gil_scoped_release>());
  m.def("get_num_threads", &get_num_threads);
  py::init_einsum(m);
  auto tensor_class = nb::borrow<nb::class_<Tensor>>(nb::type<Tensor>());
  py::init_math_ops(m, tensor_class);
  py::init_decompositions(m, tensor_class);
  py::init_quantized(m, tensor_class);
  py::init_sparse(m, tensor_class);
  py::init_pointwise(m, tensor_class);
  py::init_misc(m, tensor_class);
  // ember._C._nn: the C++ side of ember.nn.functional (one init_nn_<area> per binding file).
  nb::module_ nn = m.def_submodule("_nn", "ember.nn.functional's C++ functions");
  py::init_nn_conv(m, nn);
  py::init_nn_module(nn);
  py::init_nn_normalization(m, nn);
  py::init_nn_dropout(m, nn);
  py::init_nn_layers(m, nn);
  py::init_nn_attention(nn);
  py::init_nn_vision(m, nn);
  py::init_nn_activation(m, nn);
  py::init_nn_loss(nn);
  py::init_optim(m);
  py::init_data(m);
  py::init_vision(m);
  py::init_serialize(m);
  py::init_amp(m);
}
