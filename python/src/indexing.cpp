// Indexing: integers, slices, None, Ellipsis and bools (views), and tensors or lists (advanced
// indexing, which copies on read and scatters on write), as torch.
#include "bindings.h"
#include "ember/layout.h"

namespace ember::py {

namespace {

bool consumes_dim(PyObject* o) { return o != Py_None && o != Py_Ellipsis && !PyBool_Check(o); }

// Bool indices (x[True], x[0, False]) act as one advanced index: together they add a single
// dim of size 1 (0 if any is False), and reading through them copies, as in torch.
struct BoolIndex {
  bool present = false;
  bool all_true = true;
  int64_t position = 0;  // result dim where the new dim goes
};

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
  int64_t size = dim < t.dim() ? t.sizes()[size_t(dim)] : 0;  // past the last dim (after repeated ...): size 0
  EMBER_CHECK(index >= -size && index < size, IndexError, "index ", index, " is out of bounds for dimension ",
              real_dim, " with size ", size);
  return t.select(dim, index);
}

// Applies one index item at working dim `dim`; returns the dims it advanced.
Tensor apply_item(const Tensor& t, PyObject* o, int64_t& dim, int64_t& real_dim, int64_t ellipsis_dims) {
  if (PyLong_Check(o) && !PyBool_Check(o)) {
    int overflow = 0;
    long long i = PyLong_AsLongLongAndOverflow(o, &overflow);
    EMBER_CHECK(!overflow, IndexError, "index is too large for a tensor index");
    Tensor r = select_checked(t, dim, i, real_dim);
    ++real_dim;
    return r;
  }
  if (PySlice_Check(o)) {
    Py_ssize_t start, stop, step;
    if (PySlice_Unpack(o, &start, &stop, &step) < 0) throw nb::python_error();
    EMBER_CHECK(step > 0, ValueError, "step must be greater than zero");
    auto* s = reinterpret_cast<PySliceObject*>(o);
    Tensor r = t.slice(dim, s->start == Py_None ? std::nullopt : std::optional<int64_t>(start),
                       s->stop == Py_None ? std::nullopt : std::optional<int64_t>(stop), step);
    ++dim;
    ++real_dim;
    return r;
  }
  if (o == Py_None) {
    Tensor r = t.unsqueeze(dim);
    ++dim;
    ++real_dim;
    return r;
  }
  if (o == Py_Ellipsis) {
    dim += ellipsis_dims;
    real_dim += ellipsis_dims;
    return t;
  }
  throw IndexError(str("only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables are valid "
                       "indices (got ", Py_TYPE(o)->tp_name, ")"));
}

bool is_advanced(PyObject* o) { return nb::isinstance<Tensor>(nb::handle(o)) || PyList_Check(o); }

Tensor as_index_tensor(PyObject* o) {
  if (nb::isinstance<Tensor>(nb::handle(o))) return nb::cast<Tensor>(nb::handle(o));
  if (PyList_Size(o) == 0) return empty({0}, TensorOptions(kInt64));  // [] indexes nothing, as a long tensor
  return tensor_from_data(nb::handle(o), std::nullopt);
}

// An index with tensors or lists: the basic items become views, the advanced ones (and integers
// beside them, as in torch) an index list for index / index_put_ over that view.
struct AdvancedIndex {
  Tensor view;
  std::vector<Tensor> indices;
};

AdvancedIndex split_advanced(const Tensor& self, nb::handle index) {
  PyObject* o = index.ptr();
  std::vector<PyObject*> items;
  if (PyTuple_Check(o)) {
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(o); ++i) items.push_back(PyTuple_GET_ITEM(o, i));
  } else {
    items.push_back(o);
  }
  std::vector<Tensor> tensors(items.size());
  int64_t consumed = 0;
  for (size_t i = 0; i < items.size(); ++i) {
    if (PyBool_Check(items[i])) {  // beside tensor indices a bool is a 0-dim mask, as in torch
      tensors[i] = scalar_tensor(items[i] == Py_True, TensorOptions(kBool));
      continue;
    }
    if (is_advanced(items[i])) {
      tensors[i] = as_index_tensor(items[i]);
      consumed += tensors[i].dtype() == kBool || tensors[i].dtype() == kUInt8 ? tensors[i].dim() : 1;
    } else {
      consumed += consumes_dim(items[i]);
    }
  }
  EMBER_CHECK(consumed <= self.dim(), IndexError, "too many indices for tensor of dimension ", self.dim());
  AdvancedIndex out{self, {}};
  int64_t dim = 0, real_dim = 0;
  for (size_t i = 0; i < items.size(); ++i) {
    PyObject* item = items[i];
    bool integer = PyLong_Check(item) && !PyBool_Check(item);
    if (!tensors[i].defined() && !integer) {
      out.view = apply_item(out.view, item, dim, real_dim, self.dim() - consumed);
      continue;
    }
    Tensor idx = integer ? scalar_tensor(nb::cast<int64_t>(nb::handle(item)), TensorOptions(kInt64)) : tensors[i];
    int64_t span = idx.dtype() == kBool || idx.dtype() == kUInt8 ? idx.dim() : 1;
    out.indices.resize(size_t(dim));
    out.indices.push_back(idx);
    dim += span;
    real_dim += span;
  }
  return out;
}

bool has_advanced(nb::handle index) {
  PyObject* o = index.ptr();
  if (!PyTuple_Check(o)) return is_advanced(o);
  for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(o); ++i) {
    if (is_advanced(PyTuple_GET_ITEM(o, i))) return true;
  }
  return false;
}

}  // namespace

Tensor index_view(const Tensor& self, nb::handle index, bool for_write) {
  PyObject* o = index.ptr();
  if (!PyTuple_Check(o)) {
    if (o == Py_Ellipsis) return self.alias();
    if (PyBool_Check(o)) {
      Tensor v = self.unsqueeze(0);
      if (o == Py_False) v = v.slice(0, 0, 0, 1);
      return for_write ? v : copy_for_bool_index(v, 0);
    }
    EMBER_CHECK(!consumes_dim(o) || self.dim() >= 1, IndexError, "invalid index of a 0-dim tensor. Use `tensor.item()` "
                "in Python or `tensor.item<T>()` in C++ to convert a 0-dim tensor to a number");
    int64_t dim = 0, real_dim = 0;
    return apply_item(self, o, dim, real_dim, 0);
  }
  Py_ssize_t n = PyTuple_GET_SIZE(o);
  int64_t consumed = 0;
  for (Py_ssize_t i = 0; i < n; ++i) consumed += consumes_dim(PyTuple_GET_ITEM(o, i));
  EMBER_CHECK(consumed <= self.dim(), IndexError, "too many indices for tensor of dimension ", self.dim());
  Tensor result = self.alias();
  int64_t dim = 0, real_dim = 0;
  BoolIndex bools;
  Py_ssize_t last_bool = -2;
  for (Py_ssize_t i = 0; i < n; ++i) {
    PyObject* item = PyTuple_GET_ITEM(o, i);
    if (PyBool_Check(item)) {
      // Consecutive bools keep their place; separated ones move the new dim to the front.
      if (!bools.present) bools.position = dim;
      else if (last_bool != i - 1) bools.position = 0;
      bools.present = true;
      bools.all_true &= item == Py_True;
      last_bool = i;
      ++real_dim;
      continue;
    }
    result = apply_item(result, item, dim, real_dim, self.dim() - consumed);
  }
  if (!bools.present) return result;
  result = result.unsqueeze(bools.position);
  if (!bools.all_true) result = result.slice(bools.position, 0, 0, 1);
  return for_write ? result : copy_for_bool_index(result, bools.position);
}

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
    return masked_fill(x, mask, nb::cast<Scalar>(value));
  };
  m.def("masked_fill", fill, nb::arg("input"), nb::arg("mask"), nb::arg("value"));
  cls.def("masked_fill", fill, nb::arg("mask"), nb::arg("value"));
  cls.def("masked_fill_", [](nb::handle self, const Tensor& mask, nb::handle value) {
    if (nb::isinstance<Tensor>(value)) masked_fill_(nb::cast<Tensor&>(self), mask, nb::cast<const Tensor&>(value));
    else masked_fill_(nb::cast<Tensor&>(self), mask, nb::cast<Scalar>(value));
    return nb::borrow(self);
  }, nb::arg("mask"), nb::arg("value"));
  // index_put(_): `indices` a tuple of tensors (None for a whole dim), as torch.
  auto index_list = [](nb::handle indices) {
    std::vector<Tensor> out;
    for (nb::handle h : indices) out.push_back(h.is_none() ? Tensor() : nb::cast<Tensor>(h));
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
  cls.def("__getitem__", [](const Tensor& self, nb::handle index) {
        if (!has_advanced(index)) return index_view(self, index, false);
        AdvancedIndex adv = split_advanced(self, index);
        return ember::index(adv.view, adv.indices);
      }, nb::arg("index").none())
      .def("__setitem__", [](Tensor& self, nb::handle index, nb::handle value) {
        if (has_advanced(index)) {
          AdvancedIndex adv = split_advanced(self, index);
          Tensor values = nb::isinstance<Tensor>(value) ? nb::cast<Tensor>(value)
                                                        : scalar_tensor(nb::cast<Scalar>(value), TensorOptions(self.dtype()));
          index_put_(adv.view, adv.indices, values);
          return;
        }
        Tensor target = index_view(self, index, true);
        if (nb::isinstance<Tensor>(value)) {
          target.copy_(nb::cast<const Tensor&>(value));
        } else {
          target.fill_(nb::cast<Scalar>(value));
        }
      }, nb::arg("index").none(), nb::arg("value"));
}

}  // namespace ember::py
