// Indexing: x[...] translated into the C++ TensorIndex list (ember/indexing.h does the rest), and the
// indexing ops (gather, index_select, masked_fill, index_put, nonzero).
#include "bindings.h"
#include "ember/indexing.h"

namespace ember::py {

namespace {

// (interop.cpp and tensor.cpp keep their own copies of these two in unnamed namespaces)

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
  return t.dtype() == kBool || t.dtype() == kUInt8 || t.dtype() == kInt64 ? t : t.to(kInt64);
}

indexing::Slice slice_index(PyObject* o) {
  Py_ssize_t start, stop, step;
  if (PySlice_Unpack(o, &start, &stop, &step) < 0) throw nb::python_error();
  auto* s = reinterpret_cast<PySliceObject*>(o);
  return {s->start == Py_None ? std::nullopt : std::optional<int64_t>(start),
          s->stop == Py_None ? std::nullopt : std::optional<int64_t>(stop), step};
}

// One item of an index as torch's applySlicing sees it: numbers (Python and numpy ints, objects with __index__)
// select, lists and numpy arrays become index tensors (counted as one dim even as masks).
indexing::TensorIndex classify(PyObject* o) {
  if (PyLong_Check(o) && !PyBool_Check(o)) return unpack_int(o);
  if (PySlice_Check(o)) return slice_index(o);
  if (o == Py_Ellipsis) return indexing::Ellipsis;
  if (o == Py_None) return indexing::None;
  if (PyBool_Check(o)) return o == Py_True;
  if (nb::isinstance<Tensor>(nb::handle(o))) return nb::cast<Tensor>(nb::handle(o));
  if (PySequence_Check(o)) return indexing::TensorIndex(sequence_index(o), true);
  if (PyIndex_Check(o)) return unpack_int(o);
  throw IndexError(str("only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables are valid "
                       "indices (got ", Py_TYPE(o)->tp_name, ")"));
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

// Whether a Python index is one entry written alone (x[0], x[1:4], x[mask]), not a tuple of entries.
bool single_entry(PyObject* o) { return PyLong_CheckExact(o) || PySlice_Check(o) || !sequence_as_tuple(o); }

// The entries of a tuple index. An entry that is no index raises after torch's "too many indices" check,
// each counting one dim.
std::vector<indexing::TensorIndex> tuple_entries(const Tensor& self, nb::handle index) {
  PyObject* o = index.ptr();
  nb::object tuple = PyTuple_Check(o) ? nb::borrow(index) : nb::steal(PySequence_Tuple(o));
  if (!tuple.is_valid()) throw nb::python_error();
  Py_ssize_t n = PyTuple_GET_SIZE(tuple.ptr());
  std::vector<indexing::TensorIndex> items;
  items.reserve(size_t(n));
  std::exception_ptr error;
  int64_t invalid = 0;
  for (Py_ssize_t i = 0; i < n; ++i) {
    try {
      items.push_back(classify(PyTuple_GET_ITEM(tuple.ptr(), i)));
    } catch (...) {
      if (!invalid++) error = std::current_exception();
    }
  }
  if (error) {
    indexing::check_index_count(self, items, invalid);
    std::rethrow_exception(error);
  }
  return items;
}

Tensor get_item(const Tensor& self, nb::handle index) {
  if (self.has_sparse_layout() && PyLong_Check(index.ptr())) return self.select(0, nb::cast<int64_t>(index));
  if (single_entry(index.ptr())) return indexing::get_item(self, classify(index.ptr()));
  return indexing::get_item(self, tuple_entries(self, index));
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

void set_item(const Tensor& self, nb::handle index, nb::handle value) {
  bool is_tensor = nb::isinstance<Tensor>(value);
  Scalar number = is_tensor ? Scalar() : assigned_number(self, value);  // its TypeError comes before the index's
  auto assign = [&](const auto& entries) {
    if (is_tensor) indexing::set_item(self, entries, nb::cast<const Tensor&>(value));
    else indexing::set_item(self, entries, number);
  };
  if (single_entry(index.ptr())) assign(classify(index.ptr()));
  else assign(tuple_entries(self, index));
}

}  // namespace

void init_indexing(nb::module_& m, nb::class_<Tensor>& cls) {
  auto nonzero_impl = [](const Tensor& x, bool as_tuple) -> nb::object {
    if (!as_tuple) return nb::cast(nonzero(x));
    nb::list cols;
    for (const Tensor& c : nonzero_numpy(x)) cols.append(nb::cast(c));
    return nb::tuple(cols);
  };
  m.def("nonzero", [nonzero_impl](const Tensor& x, bool as_tuple, nb::handle out) -> nb::object {
    if (out.is_none()) return nonzero_impl(x, as_tuple);
    EMBER_CHECK(!as_tuple, Error, "nonzero does not support the out kwarg when as_tuple is True");
    Tensor& o = nb::cast<Tensor&>(out);
    EMBER_CHECK(o.dtype() == kInt64, Error, "nonzero: Expected out tensor to have scalar type Long but got scalar type",
                legacy_name(o.dtype()));
    Tensor r = nonzero(x);
    resize_output_like(o, r);  // a resized out takes the result's column-major layout, as torch's
    o.copy_(r);
    return nb::borrow(out);
  }, nb::arg("input"), nb::kw_only(), nb::arg("as_tuple") = false, nb::arg("out") = nb::none());
  m.def("gather", [](const Tensor& x, int64_t dim, const Tensor& index, bool, nb::handle out) {
    return fn_or_out(out, [&] { return gather(x, dim, index); }, [&](Tensor& o) { gather_out(o, x, dim, index); });
  }, nb::arg("input"), nb::arg("dim"), nb::arg("index"), nb::kw_only(), nb::arg("sparse_grad") = false,
     nb::arg("out") = nb::none());
  cls.def("gather", [](const Tensor& x, int64_t dim, const Tensor& index, bool) { return gather(x, dim, index); },
          nb::arg("dim"), nb::arg("index"), nb::kw_only(), nb::arg("sparse_grad") = false);
  m.def("index_select", [](const Tensor& x, int64_t dim, const Tensor& index, nb::handle out) {
    return fn_or_out(out, [&] { return index_select(x, dim, index); },
                     [&](Tensor& o) { index_select_out(o, x, dim, index); });
  }, nb::arg("input"), nb::arg("dim"), nb::arg("index"), nb::kw_only(), nb::arg("out") = nb::none());
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
