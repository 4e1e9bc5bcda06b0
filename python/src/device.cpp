// ember.device and the CUDA availability queries.
#include "bindings.h"
#include "ember/cuda.h"
#include "ember/cuda_graph.h"
#include "ember/cudnn.h"

#include <nanobind/stl/pair.h>

namespace ember::py {

void init_cuda(nb::module_& m);

std::optional<Device> device_from_object(nb::handle h) {
  if (h.is_none()) return std::nullopt;
  if (nb::isinstance<Device>(h)) return nb::cast<Device>(h);
  if (PyUnicode_Check(h.ptr())) return Device(nb::cast<std::string_view>(h));
  if (PyLong_Check(h.ptr()) && !PyBool_Check(h.ptr())) {
    int64_t i = nb::cast<int64_t>(h);
    EMBER_CHECK(i >= 0, Error, "Device index must not be negative");
    // a bare index names the current accelerator, as torch's
    EMBER_CHECK(cuda::is_available(), Error, "Cannot access accelerator device when none is available.");
    return Device(DeviceType::CUDA, int8_t(i));
  }
  throw TypeError(str("expected a device, a device string or an index, got ",
                      nb::inst_name(h).c_str()));
}

TensorOptions make_options(std::optional<ScalarType> dtype, nb::handle device, bool requires_grad, bool pin_memory) {
  TensorOptions o = TensorOptions().dtype(dtype).requires_grad(requires_grad).pinned_memory(pin_memory);
  if (auto d = device_from_object(device)) o = o.device(*d);
  return o;
}

nb::object device_object(Device d) { return nb::cast(d); }

void init_device(nb::module_& m) {
  nb::class_<Device>(m, "device")
      .def("__init__", [](Device* self, nb::handle spec) {
        auto d = device_from_object(spec);
        EMBER_CHECK(d, TypeError, "device() received an invalid combination of arguments: got None");
        new (self) Device(*d);
      }, nb::arg("type"))
      .def("__init__", [](Device* self, const std::string& type, int64_t index) {
        EMBER_CHECK(type.find(':') == std::string::npos, Error,
                    "type (string) must not include an index because index was passed explicitly: ", type);
        EMBER_CHECK(index >= 0, Error, "Device index must not be negative");
        Device d(type);
        d.index = int8_t(index);
        new (self) Device(d);
      }, nb::arg("type"), nb::arg("index"))
      .def_prop_ro("type", [](const Device& d) { return std::string(device_type_name(d.type)); })
      .def_prop_ro("index", [](const Device& d) -> std::optional<int> {
        return d.has_index() ? std::optional<int>(d.index) : std::nullopt;
      })
      .def("__str__", &Device::str)
      .def("__repr__", [](const Device& d) {
        std::string s = "device(type='" + std::string(device_type_name(d.type)) + "'";
        if (d.has_index()) s += ", index=" + std::to_string(d.index);
        return s + ")";
      })
      .def("__eq__", [](const Device& a, nb::handle b) { return nb::isinstance<Device>(b) && nb::cast<Device>(b) == a; })
      .def("__hash__", [](const Device& d) { return int(d.type) * 256 + d.index; });

  init_cuda(m);
}

// The ember.cuda queries (python/ember/cuda.py wraps them); `device` is an index, -1 for the current one.
void init_cuda(nb::module_& m) {
  m.def("_cuda_is_available", &cuda::is_available);
  m.def("_cuda_device_count", &cuda::device_count);
  m.def("_cuda_unavailable_reason", &cuda::unavailable_reason);
  m.def("_cuda_current_device", &cuda::current_device);
  m.def("_cuda_set_device", &cuda::set_device);
  m.def("_cuda_synchronize", [](int device) {
    nb::gil_scoped_release release;
    cuda::synchronize(device);
  });
  m.def("_cuda_get_device_properties", [](int device) {
    cuda::DeviceProperties p = cuda::get_device_properties(device);
    return nb::make_tuple(p.name, p.major, p.minor, p.multi_processor_count, p.total_memory, p.l2_cache_size);
  });
  m.def("_cuda_memory_stats", [](int device) {
    cuda::MemoryStats s = cuda::memory_stats(device);
    nb::dict d;
    d["allocated_bytes.all.current"] = s.allocated;
    d["allocated_bytes.all.peak"] = s.peak_allocated;
    d["reserved_bytes.all.current"] = s.reserved;
    d["reserved_bytes.all.peak"] = s.peak_reserved;
    d["requested_bytes.all.current"] = s.requested;
    d["allocation.all.allocated"] = s.num_allocs;
    d["allocation.all.freed"] = s.num_frees;
    d["allocation.all.current"] = s.num_allocs - s.num_frees;
    d["segment.all.current"] = s.num_segments;
    d["num_alloc_retries"] = s.num_alloc_retries;
    d["num_ooms"] = s.num_ooms;
    return d;
  });
  m.def("_cuda_reset_peak_memory_stats", &cuda::reset_peak_memory_stats);
  m.def("_cuda_empty_cache", &cuda::empty_cache);
  m.def("_cuda_mem_get_info", &cuda::mem_get_info);
  m.def("_cuda_set_per_process_memory_fraction", &cuda::set_per_process_memory_fraction);

  // Streams and events: ember.cuda.Stream and Event (python/ember/cuda.py) wrap these.
  nb::class_<cuda::Stream>(m, "_CudaStream")
      .def(nb::init<>())
      .def_rw("handle", &cuda::Stream::handle)
      .def_rw("device", &cuda::Stream::device)
      .def("synchronize", [](const cuda::Stream& s) {
        nb::gil_scoped_release release;
        s.synchronize();
      })
      .def("query", &cuda::Stream::query);
  m.def("_cuda_stream_from_pool", &cuda::Stream::from_pool);
  m.def("_cuda_current_stream", &cuda::current_stream);
  m.def("_cuda_default_stream", &cuda::default_stream);
  m.def("_cuda_set_current_stream", &cuda::set_current_stream);
  nb::class_<cuda::Event>(m, "_CudaEvent")
      .def(nb::init<bool, bool, int>())
      .def("record", nb::overload_cast<const cuda::Stream&>(&cuda::Event::record))
      .def("wait", &cuda::Event::wait)
      .def("synchronize", [](const cuda::Event& e) {
        nb::gil_scoped_release release;
        e.synchronize();
      })
      .def("query", &cuda::Event::query)
      .def("elapsed_time", &cuda::Event::elapsed_time)
      .def_prop_ro("handle", &cuda::Event::handle);
  m.def("_cuda_record_stream", &cuda::record_stream);
  // CUDA graphs: ember.cuda.CUDAGraph (python/ember/_cuda_graphs.py) wraps this; capture_mode 0 global,
  // 1 thread_local, 2 relaxed.
  nb::class_<cuda::CUDAGraph>(m, "_CUDAGraph")
      .def(nb::init<bool>())
      .def("capture_begin", [](cuda::CUDAGraph& g, cuda::MempoolId pool, int mode) {
        g.capture_begin(pool, cuda::CaptureErrorMode(mode));
      })
      .def("capture_end", &cuda::CUDAGraph::capture_end)
      .def("instantiate", &cuda::CUDAGraph::instantiate)
      .def("replay", &cuda::CUDAGraph::replay)
      .def("reset", &cuda::CUDAGraph::reset)
      .def("pool", &cuda::CUDAGraph::pool)
      .def("enable_debug_mode", &cuda::CUDAGraph::enable_debug_mode)
      .def("debug_dump", &cuda::CUDAGraph::debug_dump);
  m.def("_cuda_graph_pool_handle", &cuda::graph_pool_handle);
  m.def("_cuda_is_current_stream_capturing", &cuda::is_current_stream_capturing);
  m.def("_cuda_matmul_allow_tf32", &cuda::matmul_allow_tf32);
  m.def("_cuda_set_matmul_allow_tf32", &cuda::set_matmul_allow_tf32);
  m.def("_cudnn_allow_tf32", &cudnn::allow_tf32);
  m.def("_cudnn_set_allow_tf32", &cudnn::set_allow_tf32);
  m.def("_cudnn_benchmark", &cudnn::benchmark);
  m.def("_cudnn_set_benchmark", &cudnn::set_benchmark);
  m.def("_cudnn_deterministic", &cudnn::deterministic);
  m.def("_cudnn_set_deterministic", &cudnn::set_deterministic);
}

}  // namespace ember::py
