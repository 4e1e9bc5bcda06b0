// Sparse tensors in Python: sparse_coo_tensor / sparse_csr_tensor, the layout objects, and the Tensor methods that
// read or convert a sparse tensor.
#include "bindings.h"

namespace ember::py {

namespace {

// The layout an ember.layout object names (ember.strided, ember.sparse_coo, ember.sparse_csr).
Layout layout_from_object(nb::handle h) {
  std::string name = nb::cast<std::string>(h.attr("_name"));
  for (Layout l : {Layout::Strided, Layout::SparseCoo, Layout::SparseCsr}) {
    if (layout_name(l) == name) return l;
  }
  throw NotImplementedError(str("layout torch.", name, " is not supported"));
}

// `size` as given (torch's overloads: omitted, or a tuple of ints; None is a TypeError); Ellipsis marks it omitted.
std::optional<DimVector> size_arg(nb::handle size, const char* fn) {
  if (size.is(nb::ellipsis())) return std::nullopt;
  EMBER_CHECK(!size.is_none(), TypeError, fn, "(): argument 'size' must be tuple of ints, not NoneType");
  return int_list(size, "size", false);
}

Tensor data_arg(nb::handle h, std::optional<ScalarType> dtype) {
  EMBER_CHECK(!h.is_none(), Error, "Could not infer dtype of NoneType");
  return nb::isinstance<Tensor>(h) ? nb::cast<Tensor>(h) : tensor_from_data(h, dtype);
}

// torch's check_invariants=False only skips checks; Ember always checks, so the flag is accepted and ignored.
Tensor coo(nb::handle indices, nb::handle values, nb::handle size, std::optional<ScalarType> dtype, nb::handle device,
           bool requires_grad, std::optional<bool> is_coalesced) {
  Tensor i = data_arg(indices, kInt64), v = data_arg(values, std::nullopt);
  std::optional<DimVector> sizes = size_arg(size, "sparse_coo_tensor");
  return sparse_coo_tensor(i, v, sizes ? std::optional<IntArrayRef>(*sizes) : std::nullopt,
                           make_options(dtype, device, requires_grad), is_coalesced);
}

nb::object layout_object(Layout l) { return nb::module_::import_("ember").attr(std::string(layout_name(l)).c_str()); }

}  // namespace

void init_sparse(nb::module_& m, nb::class_<Tensor>& cls) {
  m.def("sparse_coo_tensor", [](nb::handle indices, nb::handle values, nb::handle size, std::optional<ScalarType> dtype,
                                nb::handle device, bool requires_grad, nb::handle, std::optional<bool> is_coalesced) {
    if (values.is(nb::ellipsis())) {  // sparse_coo_tensor(size) or (size=...): an all-zero tensor
      bool given = !indices.is(nb::ellipsis()), sized = !size.is(nb::ellipsis());
      EMBER_CHECK(given != sized, TypeError, "sparse_coo_tensor() takes indices and values, or a size alone");
      return sparse_coo_tensor(int_list(given ? indices : size, "size", false),
                               make_options(dtype, device, requires_grad));
    }
    return coo(indices, values, size, dtype, device, requires_grad, is_coalesced);
  }, nb::arg("indices").none() = nb::ellipsis(), nb::arg("values").none() = nb::ellipsis(),
     nb::arg("size").none() = nb::ellipsis(),
     nb::kw_only(),
     nb::arg("dtype") = nb::none(), nb::arg("device") = nb::none(), nb::arg("requires_grad") = false,
     nb::arg("check_invariants") = nb::none(), nb::arg("is_coalesced") = nb::none());
  m.def("sparse_csr_tensor", [](nb::handle crow, nb::handle col, nb::handle values, nb::handle size,
                                std::optional<ScalarType> dtype, nb::handle device, bool requires_grad, nb::handle) {
    std::optional<DimVector> sizes = size_arg(size, "sparse_csr_tensor");
    return sparse_csr_tensor(data_arg(crow, kInt64), data_arg(col, kInt64), data_arg(values, std::nullopt),
                             sizes ? std::optional<IntArrayRef>(*sizes) : std::nullopt,
                             make_options(dtype, device, requires_grad));
  }, nb::arg("crow_indices").none(), nb::arg("col_indices").none(), nb::arg("values").none(),
     nb::arg("size").none() = nb::ellipsis(), nb::kw_only(),
     nb::arg("dtype") = nb::none(), nb::arg("device") = nb::none(), nb::arg("requires_grad") = false,
     nb::arg("check_invariants") = nb::none());
  // torch.sparse.mm / addmm / sum (python/ember/sparse.py names them)
  m.def("_sparse_mm", [](const Tensor& a, const Tensor& b) { return sparse_masked_addmm(Tensor(), a, b); });
  m.def("_sparse_addmm", &sparse_masked_addmm, nb::arg("input"), nb::arg("mat1"), nb::arg("mat2"), nb::kw_only(),
        nb::arg("beta") = 1, nb::arg("alpha") = 1);
  m.def("_sparse_sum", [](const Tensor& t, nb::handle dim, std::optional<ScalarType> dtype) {
    if (!t.has_sparse_layout()) return dim.is_none() ? sum(t, {}, false, dtype) : sum(t, int_list(dim, "dim", true),
                                                                                      false, dtype);
    return dim.is_none() ? sparse_sum(t, dtype, true) : sparse_sum(t, int_list(dim, "dim", true), false, dtype, true);
  }, nb::arg("input"), nb::arg("dim") = nb::none(), nb::arg("dtype") = nb::none());

  cls.def_prop_ro("layout", [](const Tensor& t) { return layout_object(t.layout()); })
      .def_prop_ro("is_sparse", &Tensor::is_sparse)
      .def_prop_ro("is_sparse_csr", &Tensor::is_sparse_csr)
      .def("sparse_dim", &Tensor::sparse_dim)
      .def("dense_dim", &Tensor::dense_dim)
      .def("_nnz", &Tensor::_nnz)
      .def("indices", &Tensor::indices)
      .def("_indices", &Tensor::_indices)
      .def("values", &Tensor::values)
      .def("_values", &Tensor::_values)
      .def("crow_indices", &Tensor::crow_indices)
      .def("col_indices", &Tensor::col_indices)
      .def("is_coalesced", &Tensor::is_coalesced)
      .def("coalesce", &Tensor::coalesce)
      .def("sparse_mask", &sparse_mask, nb::arg("mask"))
      .def("to_dense", [](const Tensor& t, std::optional<ScalarType> dtype, std::optional<bool>) {
        return t.to_dense(dtype);
      }, nb::arg("dtype") = nb::none(), nb::kw_only(), nb::arg("masked_grad") = nb::none())
      .def("to_sparse", [](const Tensor& t, std::optional<int64_t> sparse_dim) { return t.to_sparse(sparse_dim); },
           nb::arg("sparse_dim"))
      .def("to_sparse", [](const Tensor& t, nb::handle layout, nb::handle blocksize, nb::handle dense_dim) {
        EMBER_CHECK(blocksize.is_none() && dense_dim.is_none(), NotImplementedError,
                    "to_sparse: blocksize and dense_dim are not supported");
        return layout.is_none() ? t.to_sparse() : t.to_sparse(layout_from_object(layout));
      }, nb::kw_only(), nb::arg("layout") = nb::none(), nb::arg("blocksize") = nb::none(),
         nb::arg("dense_dim") = nb::none())
      .def("to_sparse_coo", [](const Tensor& t) { return t.to_sparse(); })
      .def("to_sparse_csr", [](const Tensor& t, std::optional<int64_t> dense_dim) {
        EMBER_CHECK(!dense_dim, NotImplementedError, "to_sparse_csr: dense_dim is not supported");
        return t.to_sparse_csr();
      }, nb::arg("dense_dim") = nb::none());
}

}  // namespace ember::py
