// Indexing: integers, slices, None, Ellipsis and bools (views), and tensors or lists (advanced
// indexing, which copies on read and scatters on write), as torch.
#include "bindings.h"
#include "ember/autograd.h"
#include "ember/layout.h"

namespace ember::py {

namespace {

// One item of an index, classified as torch's applySlicing does: numbers (Python and numpy ints,
// objects with __index__, 0-dim integer tensors) select, 0-dim bool/uint8 tensors act as bools,
// lists and numpy arrays become index tensors.
struct Item {
  enum Kind { Int, Slice, None, Ellipsis, Bool, Tensor, Invalid } kind;
  PyObject* obj = nullptr;  // the slice
  int64_t integer = 0;      // Int; Bool: 0 or 1
  ember::Tensor tensor;     // Tensor
  bool from_sequence = false;  // a list or numpy array: counts as one dim even as a mask (torch)
  std::exception_ptr error;    // Invalid: why it is no index, raised after torch's count of the indices
};

// (interop.cpp and tensor.cpp keep their own copies of these two in unnamed namespaces)
bool is_numpy_array(nb::handle h) { return std::string_view(Py_TYPE(h.ptr())->tp_name) == "numpy.ndarray"; }
std::string type_string(const Tensor& t) { return str("torch.", dtype_info(t.dtype()).legacy_name, "Tensor"); }

bool is_mask(const Tensor& t) { return t.dtype() == kBool || t.dtype() == kUInt8; }

int64_t unpack_int(PyObject* o) {
  nb::object i = nb::steal(PyNumber_Index(o));
  if (!i.is_valid()) throw nb::python_error();
  int overflow = 0;
  long long v = PyLong_AsLongLongAndOverflow(i.ptr(), &overflow);
  EMBER_CHECK(!overflow, ValueError, "Overflow when unpacking long long");
  return v;
}

// A list or numpy array as an index, as torch: bool and uint8 data stay masks, other data becomes long.
Tensor sequence_index(PyObject* o) {
  Tensor t = is_numpy_array(nb::handle(o)) ? nb::cast<Tensor>(nb::module_::import_("ember").attr("as_tensor")(nb::handle(o)))
                                           : tensor_from_data(nb::handle(o), std::nullopt);
  return is_mask(t) || t.dtype() == kInt64 ? t : t.to(kInt64);
}

Item classify(PyObject* o) {
  if (PyLong_Check(o) && !PyBool_Check(o)) return {Item::Int, o, unpack_int(o)};
  if (PySlice_Check(o)) return {Item::Slice, o};
  if (o == Py_Ellipsis) return {Item::Ellipsis, o};
  if (o == Py_None) return {Item::None, o};
  if (PyBool_Check(o)) return {Item::Bool, o, o == Py_True};
  Tensor t;
  if (nb::isinstance<Tensor>(nb::handle(o))) {
    t = nb::cast<Tensor>(nb::handle(o));
  } else if (PySequence_Check(o)) {
    t = sequence_index(o);
  } else if (PyIndex_Check(o) && !PyBool_Check(o)) {
    return {Item::Int, o, unpack_int(o)};
  } else {
    throw IndexError(str("only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables are valid "
                         "indices (got ", Py_TYPE(o)->tp_name, ")"));
  }
  if (t.dim() == 0 && is_integral(t.dtype(), true)) {  // 0-dim integer tensors act as numbers
    return {is_mask(t) ? Item::Bool : Item::Int, o, t.item().to_int()};
  }
  return {Item::Tensor, o, 0, t, !nb::isinstance<Tensor>(nb::handle(o))};
}

// numpy's rule, kept by torch: a short non-tuple sequence holding a sequence, slice, tensor, None or
// Ellipsis is a tuple of indices (x[[[0, 1], [1, 0]]] is x[[0, 1], [1, 0]]).
bool sequence_as_tuple(PyObject* o) {
  if (PyTuple_Check(o)) return true;
  if (nb::isinstance<Tensor>(nb::handle(o)) || is_numpy_array(nb::handle(o)) || !PySequence_Check(o)) return false;
  Py_ssize_t n = PySequence_Size(o);
  if (n < 0) PyErr_Clear();
  if (n < 0 || n >= 32) return false;
  for (Py_ssize_t i = 0; i < n; ++i) {
    nb::object e = nb::steal(PySequence_GetItem(o, i));
    if (!e.is_valid()) {
      PyErr_Clear();
      return false;
    }
    PyObject* p = e.ptr();
    if (nb::isinstance<Tensor>(e) || PySequence_Check(p) || PySlice_Check(p) || p == Py_Ellipsis || p == Py_None) {
      return true;
    }
  }
  return false;
}

// The items of an index, and whether it is one plain number or slice (for which torch skips the
// "too many indices" check: x[0] on a 0-dim tensor names the 0-dim case instead).
std::pair<std::vector<Item>, bool> parse_index(nb::handle index) {
  PyObject* o = index.ptr();
  bool plain = PySlice_Check(o) || (PyIndex_Check(o) && !PyBool_Check(o) && !nb::isinstance<Tensor>(index) &&
                                    !PySequence_Check(o));
  std::vector<Item> items;
  if (!sequence_as_tuple(index.ptr())) {
    items.push_back(classify(o));
    return {std::move(items), plain};
  }
  nb::object tuple = PyTuple_Check(o) ? nb::borrow(index) : nb::steal(PySequence_Tuple(o));
  if (!tuple.is_valid()) throw nb::python_error();
  Py_ssize_t n = PyTuple_GET_SIZE(tuple.ptr());
  items.reserve(size_t(n));
  for (Py_ssize_t i = 0; i < n; ++i) {
    try {
      items.push_back(classify(PyTuple_GET_ITEM(tuple.ptr(), i)));
    } catch (...) {
      items.push_back({Item::Invalid, nullptr, 0, {}, false, std::current_exception()});
    }
  }
  return {std::move(items), false};
}

// The copy torch makes for a bool index: dense, keeping the dim order, with the new dim
// treated as broadcast (stride 0) so it keeps its place, as torch's TensorIterator does.
Tensor copy_for_bool_index(const Tensor& v, int64_t pos) {
  DimVector strides(v.strides());
  strides[size_t(pos)] = 0;
  Tensor out = empty_strided(v.sizes(), infer_dense_strides(v.sizes(), strides),
                             TensorOptions(v.dtype()).with_device(v.device()));
  out.copy_(v);
  return out;
}

Tensor select_checked(const Tensor& t, int64_t dim, int64_t index, int64_t real_dim) {
  EMBER_CHECK(t.dim() > 0, IndexError, "invalid index of a 0-dim tensor. Use `tensor.item()` in Python or "
              "`tensor.item<T>()` in C++ to convert a 0-dim tensor to a number");
  int64_t size = dim < t.dim() ? t.sizes()[size_t(dim)] : 0;  // past the last dim (after repeated ...): size 0
  EMBER_CHECK(index >= -size && index < size, IndexError, "index ", index, " is out of bounds for dimension ",
              real_dim, " with size ", size);
  return t.select(dim, index);
}

Tensor slice_item(const Tensor& t, PyObject* o, int64_t dim) {
  Py_ssize_t start, stop, step;
  if (PySlice_Unpack(o, &start, &stop, &step) < 0) throw nb::python_error();
  EMBER_CHECK(step > 0, ValueError, "step must be greater than zero");
  EMBER_CHECK(t.dim() > 0, IndexError, "slice() cannot be applied to a 0-dim tensor.");
  // Past the last dim (after repeated ... or a numpy mask) torch sees size 0: a whole slice is a no-op.
  if (dim >= t.dim() && start == 0 && step == 1 && stop >= 0) return t;
  auto* s = reinterpret_cast<PySliceObject*>(o);
  return t.slice(dim, s->start == Py_None ? std::nullopt : std::optional<int64_t>(start),
                 s->stop == Py_None ? std::nullopt : std::optional<int64_t>(stop), step);
}

// Whether slice `o` takes all of `dim` as written (start 0 or None, stop at or past the end or None, step 1):
// torch's applySlicing then skips it (no SliceBackward0; x[:, -2:] is still sliced).
bool whole_slice(const Tensor& t, PyObject* o, int64_t dim) {
  Py_ssize_t start, stop, step;
  if (dim >= t.dim() || PySlice_Unpack(o, &start, &stop, &step) < 0) {
    PyErr_Clear();
    return false;
  }
  return start == 0 && step == 1 && stop >= t.sizes()[size_t(dim)];
}

// x[index] as torch's applySlicing: numbers, slices and None applied as views, the tensor
// indices (and bools, as [0] or [] into a new unit dim) collected for index / index_put_.
struct Indexed {
  Tensor view;
  std::vector<Tensor> indices;   // one per view dim from the first tensor index on; undefined: a whole dim
  DimVector bool_dims;           // view dims added by bools
  bool any_tensor = false;       // an index besides bools
};

Indexed apply_index(const Tensor& self, const std::vector<Item>& items, bool plain) {
  int64_t specified = 0;
  for (const Item& it : items) {
    if (it.kind == Item::Int || it.kind == Item::Slice || it.kind == Item::Invalid) ++specified;
    if (it.kind == Item::Tensor) specified += is_mask(it.tensor) && !it.from_sequence ? it.tensor.dim() : 1;
  }
  EMBER_CHECK(plain || specified <= self.dim(), IndexError, "too many indices for tensor of dimension ", self.dim());
  for (const Item& it : items) {
    if (it.error) std::rethrow_exception(it.error);
  }
  Indexed r{self};
  int64_t dim = 0;
  auto record = [&](const Tensor& idx) {
    if (r.indices.empty()) r.indices.resize(size_t(dim));
    r.indices.push_back(idx);
    dim += is_mask(idx) ? idx.dim() : 1;
  };
  auto skip = [&](int64_t n) {  // whole dims: after the first tensor index they get empty slots
    if (!r.indices.empty()) r.indices.resize(r.indices.size() + size_t(n));
    dim += n;
  };
  for (size_t i = 0; i < items.size(); ++i) {
    const Item& it = items[i];
    switch (it.kind) {
      case Item::Int: r.view = select_checked(r.view, dim, it.integer, int64_t(i)); break;
      case Item::Slice:
        if (!whole_slice(r.view, it.obj, dim)) r.view = slice_item(r.view, it.obj, dim);
        skip(1);
        break;
      case Item::Ellipsis: skip(self.dim() - specified); break;
      case Item::None: r.view = r.view.unsqueeze(dim); skip(1); break;
      case Item::Bool:
        r.view = r.view.unsqueeze(dim);
        r.bool_dims.push_back(dim);
        record(it.integer ? zeros({1}, TensorOptions(kInt64)) : empty({0}, TensorOptions(kInt64)));
        break;
      case Item::Tensor: r.any_tensor = true; record(it.tensor); break;
      case Item::Invalid: break;  // raised above
    }
  }
  while (!r.indices.empty() && !r.indices.back().defined()) r.indices.pop_back();  // as torch's dispatch_index
  return r;
}

// Bools alone: the view with their unit dims merged into one (at the first bool's place when they
// are adjacent, else in front), of size 0 when any is False.
std::pair<Tensor, int64_t> bool_view(const Indexed& r, const std::vector<Item>& items) {
  bool all_true = true, adjacent = true;
  for (size_t i = 0, last = 0, seen = 0; i < items.size(); ++i) {
    if (items[i].kind != Item::Bool) continue;
    all_true &= items[i].integer != 0;
    adjacent &= !seen++ || last == i - 1;
    last = i;
  }
  int64_t pos = adjacent ? r.bool_dims[0] : 0;
  Tensor v = r.view.squeeze(r.bool_dims).unsqueeze(pos);
  return {all_true ? v : v.slice(pos, 0, 0, 1), pos};
}

Tensor get_item(const Tensor& self, nb::handle index) {
  PyObject* o = index.ptr();
  if (PyLong_CheckExact(o)) return select_checked(self, 0, unpack_int(o), 0);  // fast paths: x[3], x[1:4]
  if (PySlice_Check(o)) return slice_item(self, o, 0);
  auto [items, plain] = parse_index(index);
  Indexed r = apply_index(self, items, plain);
  if (r.any_tensor) return ember::index(r.view, r.indices);
  if (!r.bool_dims.empty()) {
    auto [v, pos] = bool_view(r, items);
    if (!v.requires_grad()) return copy_for_bool_index(v, pos);
    // torch indexes with the bools as index tensors: one IndexBackward0 node over the view
    return autograd::run_function(
        "IndexBackward0", {v}, [&](autograd::AutogradContext&) { return autograd::TensorList{copy_for_bool_index(v, pos)}; },
        [](autograd::AutogradContext&, const autograd::TensorList& grads) { return grads; })[0];
  }
  return r.view.impl() == self.impl() ? self.alias() : r.view;  // x[...] is a new view, as torch
}

// A number assigned by x[index] = value (torch's TypeError for anything else but a tensor).
Scalar assigned_number(const Tensor& self, nb::handle value) {
  PyObject* o = value.ptr();
  bool number = PyLong_Check(o) || PyFloat_Check(o) || PyComplex_Check(o) || (PyIndex_Check(o) && !is_numpy_array(value));
  if (number && is_unsupported_number(o)) {  // torch reads an assigned int as an int64: a ValueError past it
    EMBER_CHECK(!PyLong_Check(o), ValueError, "Overflow when unpacking long long");
    raise_unsupported_number(o);
  }
  Scalar s;
  if (!number || !nb::try_cast<Scalar>(value, s)) {
    throw TypeError(str("can't assign a ", Py_TYPE(o)->tp_name, " to a ", type_string(self)));
  }
  return s;
}

// torch strips leading unit dims of the value (x[0] = ones(1, 1, 4) for a (3, 4) x).
Tensor strip_leading_ones(const Tensor& v) {
  size_t k = 0;
  while (k < v.sizes().size() && v.sizes()[k] == 1) ++k;
  return k == 0 ? v : v.view(IntArrayRef(v.sizes().data() + k, v.sizes().size() - k));
}

void set_item(Tensor& self, nb::handle index, nb::handle value) {
  bool is_tensor = nb::isinstance<Tensor>(value);
  Tensor v = is_tensor ? nb::cast<Tensor>(value) : Tensor();
  Scalar number = is_tensor ? Scalar() : assigned_number(self, value);
  PyObject* o = index.ptr();
  if (o == Py_False) return;  // torch writes nothing (no version bump, no node) for x[False] = value
  Tensor target;
  if (PyLong_CheckExact(o)) {  // fast paths: x[3] = v, x[1:4] = v
    target = select_checked(self, 0, unpack_int(o), 0);
  } else if (PySlice_Check(o)) {
    target = slice_item(self, o, 0);
  } else {
    auto [items, plain] = parse_index(index);
    Indexed r = apply_index(self, items, plain);
    if (r.any_tensor || (!r.bool_dims.empty() && o != Py_True)) {  // bools in a tuple are index tensors, as torch
      index_put_(r.view, r.indices, is_tensor ? strip_leading_ones(v) : scalar_tensor(number, TensorOptions(self.dtype())));
      return;
    }
    target = r.bool_dims.empty() ? r.view : bool_view(r, items).first;
  }
  if (!is_tensor) {
    target.fill_(number);
  } else {
    target.copy_(v.dim() == 0 ? v : strip_leading_ones(v).expand(target.sizes()));
  }
}

}  // namespace

void init_indexing(nb::module_& m, nb::class_<Tensor>& cls) {
  auto nonzero_impl = [](const Tensor& x, bool as_tuple) -> nb::object {
    Tensor nz = nonzero(x);
    if (!as_tuple) return nb::cast(nz);
    nb::list cols;
    for (int64_t k = 0; k < std::max<int64_t>(x.dim(), 1); ++k) cols.append(x.dim() == 0 ? nz.reshape({-1}) : nz.select(1, k));
    return nb::tuple(cols);
  };
  m.def("nonzero", nonzero_impl, nb::arg("input"), nb::kw_only(), nb::arg("as_tuple") = false);
  m.def("gather", [](const Tensor& x, int64_t dim, const Tensor& index, bool) { return gather(x, dim, index); },
        nb::arg("input"), nb::arg("dim"), nb::arg("index"), nb::kw_only(), nb::arg("sparse_grad") = false);
  cls.def("gather", [](const Tensor& x, int64_t dim, const Tensor& index, bool) { return gather(x, dim, index); },
          nb::arg("dim"), nb::arg("index"), nb::kw_only(), nb::arg("sparse_grad") = false);
  m.def("index_select", &index_select, nb::arg("input"), nb::arg("dim"), nb::arg("index"));
  cls.def("index_select", &index_select, nb::arg("dim"), nb::arg("index"));
  // value: a number, or a 0-dim tensor that keeps its graph (it gets a gradient), as torch's masked_fill.Tensor.
  auto fill = [](const Tensor& x, const Tensor& mask, nb::handle value) {
    if (nb::isinstance<Tensor>(value)) return masked_fill(x, mask, nb::cast<const Tensor&>(value));
    return masked_fill(x, mask, number_arg(value, "masked_fill", "value", 3));
  };
  m.def("masked_fill", fill, nb::arg("input"), nb::arg("mask"), nb::arg("value"));
  cls.def("masked_fill", fill, nb::arg("mask"), nb::arg("value"));
  cls.def("masked_fill_", [](nb::handle self, const Tensor& mask, nb::handle value) {
    if (nb::isinstance<Tensor>(value)) masked_fill_(nb::cast<Tensor&>(self), mask, nb::cast<const Tensor&>(value));
    else masked_fill_(nb::cast<Tensor&>(self), mask, number_arg(value, "masked_fill_", "value", 2));
    return nb::borrow(self);
  }, nb::arg("mask"), nb::arg("value"));
  // index_put(_): `indices` a tuple of tensors (None for a whole dim), as torch.
  auto index_list = [](nb::handle indices) {
    std::vector<Tensor> out;
    for (nb::handle h : indices) {
      EMBER_CHECK(nb::isinstance<Tensor>(h), TypeError, "expected Tensor as element ", out.size(), " in argument 0, "
                  "but got ", Py_TYPE(h.ptr())->tp_name);
      out.push_back(nb::cast<Tensor>(h));
    }
    return out;
  };
  m.def("index_put", [index_list](const Tensor& self, nb::handle indices, const Tensor& values, bool accumulate) {
    return index_put(self, index_list(indices), values, accumulate);
  }, nb::arg("input"), nb::arg("indices"), nb::arg("values"), nb::arg("accumulate") = false);
  cls.def("index_put", [index_list](const Tensor& self, nb::handle indices, const Tensor& values, bool accumulate) {
    return index_put(self, index_list(indices), values, accumulate);
  }, nb::arg("indices"), nb::arg("values"), nb::arg("accumulate") = false);
  cls.def("index_put_", [index_list](nb::handle self, nb::handle indices, const Tensor& values, bool accumulate) {
    index_put_(nb::cast<Tensor&>(self), index_list(indices), values, accumulate);
    return nb::borrow(self);
  }, nb::arg("indices"), nb::arg("values"), nb::arg("accumulate") = false);
  cls.def("nonzero", nonzero_impl, nb::kw_only(), nb::arg("as_tuple") = false);
  cls.def("__getitem__", &get_item, nb::arg("index").none())
      .def("__setitem__", &set_item, nb::arg("index").none(), nb::arg("value").none());
}

}  // namespace ember::py
