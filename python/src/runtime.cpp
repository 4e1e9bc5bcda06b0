// Runtime services for Python: long kernels run without the GIL, and tensors, devices and
// generators pickle, copy and deep-copy as in torch.
#include <cstring>

#include "bindings.h"
#include "ember/host.h"
#include "ember/parallel.h"
#include "ember/random.h"

namespace ember::py {

namespace {

// Unlock hooks: only a thread that holds the GIL gives it up (pool workers never hold it).
void* release_gil() { return PyGILState_Check() ? PyEval_SaveThread() : nullptr; }
void restore_gil(void* state) { PyEval_RestoreThread(static_cast<PyThreadState*>(state)); }

nb::tuple int_tuple(IntArrayRef values) {
  nb::list out;
  for (int64_t v : values) out.append(v);
  return nb::tuple(out);
}

// A storage's bytes as a uint8 tensor, for copies that work on every device.
Tensor byte_view(const Storage& s) {
  return Tensor::make(s, DimVector{int64_t(s.nbytes())}, DimVector{1}, 0, kUInt8);
}

// A pickled storage: its bytes, loaded onto `device` (a CUDA storage pickles with its device, as torch's).
Storage storage_from_bytes(const nb::bytes& data, const std::string& device) {
  Storage s = Storage::allocate(data.size(), kCPU);
  if (data.size() > 0) std::memcpy(s.data(), data.c_str(), data.size());
  return byte_view(s).to(Device(device)).storage();
}

// A tensor over `storage`; the geometry comes from a pickle (untrusted), so it must fit the storage.
Tensor rebuild_tensor(const Storage& storage, ScalarType dtype, int64_t offset, const std::vector<int64_t>& sizes,
                      const std::vector<int64_t>& strides, bool requires_grad) {
  EMBER_CHECK(sizes.size() == strides.size(), ValueError, "_rebuild_tensor: ", sizes.size(), " sizes but ",
              strides.size(), " strides");
  int64_t numel = checked_numel(sizes), last = offset;  // the highest element index reached
  bool fits = offset >= 0;
  for (size_t i = 0; i < sizes.size() && numel > 0; ++i) {
    int64_t reach = 0;
    fits = fits && strides[i] >= 0 && !__builtin_mul_overflow(sizes[i] - 1, strides[i], &reach) &&
           !__builtin_add_overflow(last, reach, &last);
  }
  if (is_quantized(dtype)) dtype = storage_type(dtype);  // the integers; _rebuild_qtensor adds the quantizer
  int64_t capacity = int64_t(storage.nbytes() / element_size(dtype));
  EMBER_CHECK(fits && (numel == 0 || last < capacity), Error, "_rebuild_tensor: sizes ", ember::int_list(sizes),
              ", strides ", ember::int_list(strides), " and offset ", offset, " are out of bounds for a storage of ",
              capacity, " elements");
  Tensor t = Tensor::make(storage, DimVector(sizes), DimVector(strides), offset, dtype);
  if (requires_grad) t.requires_grad_(true);
  return t;
}

// A quantizer's parameters as a pickle holds them: (scheme, scale, zero_point) or (scheme, scales, zero_points, axis).
nb::tuple qparams_tuple(const Tensor& t) {
  const Quantizer& q = quantizer_of(t);
  std::string scheme(qscheme_name(q.scheme));
  if (q.per_channel()) return nb::make_tuple(scheme, q.scales, q.zero_points, q.axis);
  return nb::make_tuple(scheme, q.scale, q.zero_point);
}

Quantizer quantizer_from_tuple(const nb::tuple& p) {
  Quantizer q;
  EMBER_CHECK(p.size() == 3 || p.size() == 4, ValueError, "_rebuild_qtensor: bad quantizer parameters");
  std::string scheme = nb::cast<std::string>(p[0]);
  if (scheme == "per_channel_affine" && p.size() == 4) {
    q.scheme = QScheme::PerChannelAffine;
    q.scales = nb::cast<Tensor>(p[1]);
    q.zero_points = nb::cast<Tensor>(p[2]);
    q.axis = nb::cast<int64_t>(p[3]);
  } else {
    EMBER_CHECK(scheme == "per_tensor_affine" && p.size() == 3, ValueError, "_rebuild_qtensor: unknown scheme ",
                scheme);
    q.scale = nb::cast<double>(p[1]);
    q.zero_point = nb::cast<int64_t>(p[2]);
  }
  return q;
}

// Deep copies share one new storage per original storage, through the deepcopy memo.
nb::object deepcopy_storage(const Storage& s, nb::dict memo) {
  nb::object key = nb::make_tuple("ember.storage", reinterpret_cast<uintptr_t>(s.impl()));
  if (memo.contains(key)) return memo[key];
  Storage copy = Storage::allocate(s.nbytes(), s.device());
  if (s.device().is_cpu() && s.nbytes() > 0) std::memcpy(copy.data(), s.data(), s.nbytes());
  else if (s.nbytes() > 0) byte_view(copy).copy_(byte_view(s));
  nb::object result = nb::cast(copy);
  memo[key] = result;
  return result;
}

// A load function of ember._pickle, the only functions an ember pickle names.
nb::object loader(const char* name) { return nb::module_::import_("ember._pickle").attr(name); }

}  // namespace

void init_runtime(nb::module_& m) {
  set_unlock_hooks({&release_gil, &restore_gil});

  // A tensor pickles as its whole storage (its bytes) plus its geometry, and loads through
  // _rebuild_tensor, which checks the geometry; copy.copy shares the storage.
  m.def("_storage_from_bytes", &storage_from_bytes, nb::arg("data"), nb::arg("device") = "cpu");
  nb::class_<Storage>(m, "_StorageRef").def("__reduce__", [](const Storage& s) {
    Storage host = s.device().is_cpu() ? s : host_copy(byte_view(s)).storage();
    nb::bytes data(static_cast<const char*>(host.data()), host.nbytes());
    if (s.device().is_cpu()) return nb::make_tuple(loader("_storage_from_bytes"), nb::make_tuple(data));
    return nb::make_tuple(loader("_storage_from_bytes"), nb::make_tuple(data, s.device().str()));
  });
  m.def("_rebuild_tensor", &rebuild_tensor);
  m.def("_rebuild_qtensor", [](const Storage& storage, ScalarType dtype, int64_t offset,
                               const std::vector<int64_t>& sizes, const std::vector<int64_t>& strides,
                               const nb::tuple& qparams) {
    return make_quantized(rebuild_tensor(storage, dtype, offset, sizes, strides, false), dtype,
                          quantizer_from_tuple(qparams));
  });
  nb::handle cls = m.attr("Tensor");
  m.def("_rebuild_sparse", [](const std::string& layout, const std::vector<Tensor>& parts,
                              const std::vector<int64_t>& sizes, std::optional<bool> coalesced, bool requires_grad) {
    EMBER_CHECK((layout == "sparse_coo" && parts.size() == 2) || (layout == "sparse_csr" && parts.size() == 3),
                ValueError, "_rebuild_sparse: ", parts.size(), " parts for layout ", layout);
    Tensor t = layout == "sparse_coo"
        ? sparse_coo_tensor(parts[0], parts[1], IntArrayRef(sizes), {}, coalesced)
        : sparse_csr_tensor(parts[0], parts[1], parts[2], IntArrayRef(sizes));
    return t.requires_grad_(requires_grad);
  });
  cls.attr("__reduce_ex__") = nb::cpp_function([](const Tensor& t, int) {
    if (t.has_sparse_layout()) {  // its parts, rebuilt (and checked) by sparse_coo_tensor / sparse_csr_tensor
      const SparseParts& p = *t.impl()->sparse;
      nb::list parts;
      parts.append(p.indices.detach());
      if (p.layout == Layout::SparseCsr) parts.append(p.col_indices.detach());
      parts.append(p.values.detach());
      nb::object coalesced = p.layout == Layout::SparseCoo ? nb::cast(p.coalesced) : nb::none();
      return nb::make_tuple(loader("_rebuild_sparse"), nb::make_tuple(std::string(layout_name(p.layout)), parts,
                                                                      int_tuple(t.sizes()), coalesced,
                                                                      t.requires_grad()));
    }
    if (t.is_quantized()) {
      return nb::make_tuple(loader("_rebuild_qtensor"),
                            nb::make_tuple(t.storage(), t.dtype(), t.storage_offset(), int_tuple(t.sizes()),
                                           int_tuple(t.strides()), qparams_tuple(t)));
    }
    return nb::make_tuple(loader("_rebuild_tensor"),
                          nb::make_tuple(t.storage(), t.dtype(), t.storage_offset(), int_tuple(t.sizes()),
                                         int_tuple(t.strides()), t.requires_grad()));
  }, nb::is_method(), nb::arg("protocol"));
  cls.attr("__deepcopy__") = nb::cpp_function([](const Tensor& t, nb::dict memo) {
    EMBER_CHECK(t.is_leaf(), Error, "Only Tensors created explicitly by the user (graph leaves) support the deepcopy "
                "protocol at the moment.  If you were attempting to deepcopy a module, this may be because of a "
                "torch.nn.utils.weight_norm usage, see https://github.com/pytorch/pytorch/pull/103001");
    Tensor copy;
    if (t.has_sparse_layout()) {
      autograd::NoGradGuard untracked;
      copy = t.clone();
    } else {
      Storage s = nb::cast<Storage>(deepcopy_storage(t.storage(), memo));
      copy = Tensor::make(s, DimVector(t.sizes()), DimVector(t.strides()), t.storage_offset(), storage_type(t.dtype()));
      if (t.is_quantized()) copy = make_quantized(copy, t.dtype(), quantizer_of(t));
    }
    copy.requires_grad_(t.requires_grad());
    if (Tensor g = t.grad(); g.defined()) {
      copy.set_grad(nb::cast<Tensor>(nb::module_::import_("copy").attr("deepcopy")(nb::cast(g), memo)));
    }
    return copy;
  }, nb::is_method(), nb::arg("memo"));

  // Ember's functions and methods pickle by name (ember._C.neg), as torch's do, so that
  // multiprocessing can send them; this names nanobind's function types in copyreg.
  nb::object by_name = nb::cpp_function([](nb::handle f) { return f.attr("__qualname__"); });
  nb::object copyreg_pickle = nb::module_::import_("copyreg").attr("pickle");
  copyreg_pickle(by_name.type(), by_name);
  copyreg_pickle(nb::object(cls.attr("__reduce_ex__")).type(), by_name);

  nb::handle device_cls = m.attr("device");
  device_cls.attr("__reduce__") = nb::cpp_function(
      [device_cls](const Device& d) { return nb::make_tuple(device_cls, nb::make_tuple(d.str())); }, nb::is_method());
  m.def("_generator_from_state", [](const Tensor& state) {
    Generator g;
    g.set_state(state);
    return g;
  });
  m.attr("Generator").attr("__reduce__") = nb::cpp_function([](const Generator& g) {
    return nb::make_tuple(loader("_generator_from_state"), nb::make_tuple(g.get_state()));
  }, nb::is_method());
}

}  // namespace ember::py
