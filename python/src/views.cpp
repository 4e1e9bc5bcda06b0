// View methods of ember.Tensor.
#include "bindings.h"

namespace ember::py {

nb::tuple to_tuple(const std::vector<Tensor>& ts) {
  PyObject* tup = PyTuple_New(Py_ssize_t(ts.size()));
  for (size_t i = 0; i < ts.size(); ++i) PyTuple_SET_ITEM(tup, i, nb::cast(ts[i]).release().ptr());
  return nb::steal<nb::tuple>(tup);
}

namespace {

// An index-like object's value (ints, numpy ints, 0-dim integer tensors); nullopt for other types.
std::optional<int64_t> index_value(PyObject* o, bool& overflow) {
  if (PyBool_Check(o) || PyFloat_Check(o) || !PyIndex_Check(o)) return std::nullopt;
  int flag = 0;
  long long v = PyLong_AsLongLongAndOverflow(o, &flag);  // __index__ for numpy and 0-dim tensors
  if (v == -1 && PyErr_Occurred()) {
    PyErr_Clear();
    return std::nullopt;
  }
  overflow = flag != 0;
  return int64_t(v);
}

// movedim / moveaxis: torch's two signatures, (int, int) and (tuple of ints, tuple of ints); a mix is a TypeError.
template <char Kind>
Tensor move_dims(const Tensor& t, nb::handle src, nb::handle dst) {
  bool src_int = int_scalar(src).has_value(), dst_int = int_scalar(dst).has_value();
  EMBER_CHECK(src_int == dst_int, TypeError, Kind == 'd' ? "movedim" : "moveaxis",
              "() received an invalid combination of arguments - got (", nb::inst_name(src).c_str(), ", ",
              nb::inst_name(dst).c_str(), "), but expected one of:\n * (int source, int destination)\n"
              " * (tuple of ints source, tuple of ints destination)");
  return t.movedim(int_list(src, "source"), int_list(dst, "destination"));
}

}  // namespace

std::optional<int64_t> int_value(nb::handle h, const char* what, size_t pos) {
  bool overflow = false;
  auto v = index_value(h.ptr(), overflow);
  EMBER_CHECK(!overflow, TypeError, "argument '", what, "' failed to unpack the object at pos ", pos + 1,
              " with error \"Overflow when unpacking long long\"");
  return v;
}

std::optional<int64_t> int_scalar(nb::handle h) {
  bool overflow = false;
  auto v = index_value(h.ptr(), overflow);
  EMBER_CHECK(!overflow, ValueError, "Overflow when unpacking long long");
  return v;
}

bool is_unsupported_number(PyObject* o) noexcept {
  if (PyComplex_Check(o)) return true;
  if (!PyLong_Check(o)) return false;
  int overflow = 0;
  PyLong_AsLongLongAndOverflow(o, &overflow);
  return overflow != 0;
}

void raise_unsupported_number(PyObject* o) {
  if (PyComplex_Check(o)) {
    // RuntimeError: torch's type wherever the number meets a real dtype ("value cannot be converted ...")
    throw Error(str("complex numbers are not supported: Ember has no complex dtypes (got ",
                                  nb::cast<std::string>(nb::repr(o)), ")"));
  }
  int overflow = 0;
  PyLong_AsLongLongAndOverflow(o, &overflow);
  bool unsigned64 = overflow > 0 && (PyLong_AsUnsignedLongLong(o), !PyErr_Occurred());
  PyErr_Clear();
  if (unsigned64) throw Error("value cannot be converted to type int64_t without overflow");
  PyErr_SetString(PyExc_OverflowError, overflow < 0 ? "can't convert negative int to unsigned" : "int too big to convert");
  throw nb::python_error();
}

Scalar number_arg(nb::handle h, const char* fn, const char* name, int pos) {
  if (is_unsupported_number(h.ptr())) raise_unsupported_number(h.ptr());
  Scalar v;
  EMBER_CHECK(nb::try_cast(h, v), TypeError, fn, "(): argument '", name, "' (position ", pos, ") must be Number, not ",
              nb::inst_name(h).c_str());
  return v;
}

DimVector int_list(nb::handle seq, const char* what, bool allow_int) {
  if (allow_int) {
    if (auto v = int_scalar(seq)) return DimVector{*v};
  }
  EMBER_CHECK(PyTuple_Check(seq.ptr()) || PyList_Check(seq.ptr()), TypeError, "argument '", what,
              "' must be tuple of ints, not ", nb::inst_name(seq).c_str());
  PyObject* fast = seq.ptr();
  Py_ssize_t n = PySequence_Fast_GET_SIZE(fast);
  DimVector out(static_cast<size_t>(n));
  PyObject** items = PySequence_Fast_ITEMS(fast);
  for (size_t i = 0; i < size_t(n); ++i) {
    auto v = int_value(items[i], what, i);
    EMBER_CHECK(v, TypeError, "argument '", what, "' must be tuple of ints, but found element of type ",
                nb::inst_name(items[i]).c_str(), " at pos ", i);
    out[i] = *v;
  }
  return out;
}

DimVector sizes_from_args(const nb::args& args, const char* what) {
  if (args.size() == 1 && !int_value(args[0], what, 0)) return int_list(args[0], what, false);
  return int_list(args, what, false);
}

DimVector factory_sizes(const char* fn, const nb::args& args, nb::handle size) {
  if (size.is_none()) {
    EMBER_CHECK(args.size() > 0, TypeError, fn, "() missing 1 required positional arguments: \"size\"");
    return sizes_from_args(args, "size");
  }
  EMBER_CHECK(args.size() == 0, TypeError, fn, "() got multiple values for argument 'size'");
  return int_list(size, "size", false);
}

void init_views(nb::class_<Tensor>& cls) {
  cls.def("view", [](const Tensor& t, const nb::args& args) {
       if (args.size() == 1) {
         if (auto d = dtype_from_object(args[0])) return t.view(*d);
       }
       return t.view(sizes_from_args(args, "size"));
     })
      .def("view_as", [](const Tensor& t, const Tensor& o) { return t.view(o.sizes()); })
      .def("reshape", [](const Tensor& t, const nb::args& args) { return t.reshape(sizes_from_args(args, "shape")); })
      .def("reshape_as", [](const Tensor& t, const Tensor& o) { return t.reshape(o.sizes()); })
      .def("transpose", &Tensor::transpose, nb::arg("dim0"), nb::arg("dim1"))
      .def("swapaxes", &Tensor::transpose, nb::arg("axis0"), nb::arg("axis1"))
      .def("swapdims", &Tensor::transpose, nb::arg("dim0"), nb::arg("dim1"))
      .def("t", &Tensor::t)
      .def_prop_ro("T", [](const Tensor& t) {
        if (t.dim() == 2) return t.transpose(0, 1);
        const char* msg = t.dim() == 0
            ? "Tensor.T is deprecated on 0-D tensors. This function is the identity in these cases."
            : "The use of `x.T` on tensors of dimension other than 2 to reverse their shape is deprecated and it will "
              "throw an error in a future release. Consider `x.mT` to transpose batches of matrices or "
              "`x.permute(*torch.arange(x.ndim - 1, -1, -1))` to reverse the dimensions of a tensor.";
        if (PyErr_WarnEx(PyExc_UserWarning, msg, 1) < 0) throw nb::python_error();
        DimVector dims(static_cast<size_t>(t.dim()));
        for (int64_t i = 0; i < t.dim(); ++i) dims[size_t(i)] = t.dim() - 1 - i;
        return t.permute(dims);
      })
      .def_prop_ro("mT", &Tensor::mT)
      .def("permute", [](const Tensor& t, const nb::args& args) { return t.permute(sizes_from_args(args, "dims")); })
      // torch's squeeze(), squeeze(int dim) and squeeze(tuple of ints dim); dim=None is refused
      .def("squeeze", [](const Tensor& t) { return t.squeeze(); })
      .def("squeeze", [](const Tensor& t, nb::handle dim) {
        if (auto d = int_scalar(dim)) return t.squeeze(*d);
        return t.squeeze(int_list(dim, "dim", false));
      }, nb::arg("dim"))
      .def("unsqueeze", &Tensor::unsqueeze, nb::arg("dim"))
      .def("flatten", &Tensor::flatten, nb::arg("start_dim") = 0, nb::arg("end_dim") = -1)
      .def("unflatten", [](const Tensor& t, int64_t dim, nb::handle sizes) {
        // a tuple, not an int, as torch; the method (not ember.unflatten) takes None as no sizes and truth-tests
        // sizes first (a tensor of 0 or several values raises there), as torch's
        if (PyObject_IsTrue(sizes.ptr()) < 0) throw nb::python_error();
        return t.unflatten(dim, sizes.is_none() ? DimVector{} : int_list(sizes, "sizes", false));
      }, nb::arg("dim"), nb::arg("sizes").none())
      .def("expand", [](const Tensor& t, const nb::args& args) { return t.expand(sizes_from_args(args, "size")); })
      .def("expand_as", &Tensor::expand_as, nb::arg("other"))
      .def("narrow", &Tensor::narrow, nb::arg("dim"), nb::arg("start"), nb::arg("length"))
      .def("narrow", [](const Tensor& t, int64_t dim, const Tensor& start, int64_t length) {  // torch's Tensor start
        EMBER_CHECK(start.dim() == 0 && is_integral(start.dtype(), false), Error, "start must be an 0-dim integral Tensor.");
        return t.narrow(dim, start.item().to_int(), length);
      }, nb::arg("dim"), nb::arg("start"), nb::arg("length"))
      .def("select", &Tensor::select, nb::arg("dim"), nb::arg("index"))
      .def("unfold", &Tensor::unfold, nb::arg("dimension"), nb::arg("size"), nb::arg("step"))
      .def("as_strided", [](const Tensor& t, nb::handle size, nb::handle stride, std::optional<int64_t> offset) {
        return t.as_strided(int_list(size, "size"), int_list(stride, "stride"), offset);
      }, nb::arg("size"), nb::arg("stride"), nb::arg("storage_offset") = nb::none())
      .def("split", [](const Tensor& t, nb::handle split, int64_t dim) {
        if (auto n = int_scalar(split)) return to_tuple(t.split(*n, dim));
        return to_tuple(t.split_with_sizes(int_list(split, "split_size_or_sections"), dim));
      }, nb::arg("split_size"), nb::arg("dim") = 0)
      .def("chunk", [](const Tensor& t, int64_t chunks, int64_t dim) { return to_tuple(t.chunk(chunks, dim)); },
           nb::arg("chunks"), nb::arg("dim") = 0)
      .def("unbind", [](const Tensor& t, int64_t dim) { return to_tuple(t.unbind(dim)); }, nb::arg("dim") = 0)
      .def("diagonal", &Tensor::diagonal, nb::arg("offset") = 0, nb::arg("dim1") = 0, nb::arg("dim2") = 1)
      .def("movedim", move_dims<'d'>, nb::arg("source"), nb::arg("destination"))
      .def("moveaxis", move_dims<'a'>, nb::arg("source"), nb::arg("destination"));
}

}  // namespace ember::py
