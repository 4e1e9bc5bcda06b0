// Shape utilities (ember/shape_utils.h) as torch's functions and Tensor methods; Python argument forms only.
#include "bindings.h"

namespace ember::py {

namespace {

// A sequence of tensors passed as argument `name` of `fn` (position 1).
std::vector<Tensor> tensor_seq(nb::handle seq, const char* fn, const char* name = "tensors") {
  EMBER_CHECK(nb::isinstance<nb::sequence>(seq) && !nb::isinstance<Tensor>(seq), TypeError, fn, "(): argument '", name,
              "' (position 1) must be tuple of Tensors, not ", nb::inst_name(seq).c_str());
  std::vector<Tensor> out;
  for (nb::handle t : seq) out.push_back(tensor_element(t, out.size()));
  return out;
}

// torch's *tensors functions: f(a, b) or f([a, b]).
nb::handle varargs_seq(const nb::args& args) {
  return args.size() == 1 && !nb::isinstance<Tensor>(args[0]) ? args[0] : nb::handle(args);
}

// Results of an op on each of `inputs` (a sequence), an input itself where its result is (as torch returns it).
nb::tuple keeping_inputs(nb::handle inputs, const std::vector<Tensor>& results) {
  nb::list items;
  size_t i = 0;
  for (nb::handle h : inputs) items.append(same_or_new(h, results[i++]));
  return nb::tuple(items);
}

// atleast_*d(t) is a tensor, atleast_*d(a, b) and atleast_*d([a, b]) tuples.
template <Tensor (*Fn)(const Tensor&)>
nb::object atleast(const nb::args& args) {
  if (args.size() == 1 && nb::isinstance<Tensor>(args[0])) return same_or_new(args[0], Fn(nb::cast<const Tensor&>(args[0])));
  std::vector<Tensor> out;
  for (const Tensor& t : tensor_seq(varargs_seq(args), "atleast")) out.push_back(Fn(t));
  return keeping_inputs(varargs_seq(args), out);
}

// A method's int list given as varargs (x.flip(0, 1)), one sequence, or the keyword `name` (x.flip(dims=(0,))).
DimVector method_ints(const nb::args& args, const nb::kwargs& kwargs, const char* name) {
  if (args.size() == 0 && kwargs.size() == 1 && kwargs.contains(name)) return int_list(kwargs[name], name, false);
  EMBER_CHECK(kwargs.size() == 0, TypeError, "got an unexpected keyword argument (expected '", name, "')");
  return sizes_from_args(args, name);
}

// A function's int list argument: a sequence (and one int where torch takes one, as roll's shifts).
DimVector ints_arg(nb::handle h, const char* what, bool allow_int = false) { return int_list(h, what, allow_int); }

nb::object with_out_tensor(nb::handle out, const std::function<Tensor&(Tensor&)>& write, const std::function<Tensor()>& fn) {
  if (out.is_none()) return nb::cast(fn());
  write(nb::cast<Tensor&>(out));
  return nb::borrow(out);
}

Tensor repeat_interleave_any(const Tensor& t, nb::handle repeats, std::optional<int64_t> dim,
                             std::optional<int64_t> output_size) {
  if (nb::isinstance<Tensor>(repeats)) return repeat_interleave(t, nb::cast<const Tensor&>(repeats), dim, output_size);
  auto n = int_scalar(repeats);
  EMBER_CHECK(n, TypeError, "repeat_interleave(): argument 'repeats' must be Tensor or int, not ",
              nb::inst_name(repeats).c_str());
  return repeat_interleave(t, *n, dim, output_size);
}

std::optional<std::string> string_or_none(nb::handle h) {
  return h.is_none() ? std::nullopt : std::optional<std::string>(nb::cast<std::string>(h));
}

}  // namespace

void init_shape_utils(nb::module_& m, nb::class_<Tensor>& cls) {
  using Join = Tensor (*)(std::span<const Tensor>);
  using JoinOut = Tensor& (*)(Tensor&, std::span<const Tensor>);
  const std::tuple<const char*, Join, JoinOut> joins[] = {
      {"hstack", &hstack, &hstack_out}, {"vstack", &vstack, &vstack_out}, {"row_stack", &row_stack, &row_stack_out},
      {"dstack", &dstack, &dstack_out}, {"column_stack", &column_stack, &column_stack_out}};
  for (auto [name, fn, out_fn] : joins) {
    m.def(name, [name, fn, out_fn](nb::handle tensors, nb::handle out) {
      std::vector<Tensor> list = tensor_seq(tensors, name);
      return with_out_tensor(out, [&](Tensor& o) -> Tensor& { return out_fn(o, list); }, [&] { return fn(list); });
    }, nb::arg("tensors"), nb::kw_only(), nb::arg("out") = nb::none());
  }
  m.def("atleast_1d", &atleast<&atleast_1d>);
  m.def("atleast_2d", &atleast<&atleast_2d>);
  m.def("atleast_3d", &atleast<&atleast_3d>);

  // tensor_split and hsplit/vsplit/dsplit: torch's overloads (sections: int, indices: sequence, a tensor)
  auto split_overloads = [&](const char* name, auto sections, auto indices, auto tensor) {
    m.def(name, sections, nb::arg("input"), nb::arg("sections"), nb::arg("dim") = 0);
    m.def(name, tensor, nb::arg("input"), nb::arg("tensor_indices_or_sections"), nb::arg("dim") = 0);
    m.def(name, indices, nb::arg("input"), nb::arg("indices"), nb::arg("dim") = 0);
    cls.def(name, sections, nb::arg("sections"), nb::arg("dim") = 0);
    cls.def(name, tensor, nb::arg("tensor_indices_or_sections"), nb::arg("dim") = 0);
    cls.def(name, indices, nb::arg("indices"), nb::arg("dim") = 0);
  };
  split_overloads("tensor_split",
                  [](const Tensor& t, int64_t n, int64_t dim) { return to_tuple(tensor_split(t, n, dim)); },
                  [](const Tensor& t, nb::handle idx, int64_t dim) { return to_tuple(tensor_split(t, ints_arg(idx, "indices"), dim)); },
                  [](const Tensor& t, const Tensor& idx, int64_t dim) { return to_tuple(tensor_split(t, idx, dim)); });
  using Sections = std::vector<Tensor> (*)(const Tensor&, int64_t);
  using Indices = std::vector<Tensor> (*)(const Tensor&, IntArrayRef);
  for (auto [name, by_sections, by_indices] : {std::tuple<const char*, Sections, Indices>{"hsplit", &hsplit, &hsplit},
                                               std::tuple<const char*, Sections, Indices>{"vsplit", &vsplit, &vsplit},
                                               std::tuple<const char*, Sections, Indices>{"dsplit", &dsplit, &dsplit}}) {
    m.def(name, [fn = by_sections](const Tensor& t, int64_t n) { return to_tuple(fn(t, n)); }, nb::arg("input"),
          nb::arg("sections"));
    m.def(name, [fn = by_indices](const Tensor& t, nb::handle idx) { return to_tuple(fn(t, ints_arg(idx, "indices"))); },
          nb::arg("input"), nb::arg("indices"));
    cls.def(name, [fn = by_sections](const Tensor& t, int64_t n) { return to_tuple(fn(t, n)); }, nb::arg("sections"));
    cls.def(name, [fn = by_indices](const Tensor& t, nb::handle idx) { return to_tuple(fn(t, ints_arg(idx, "indices"))); },
            nb::arg("indices"));
  }

  m.def("flip", [](const Tensor& t, nb::handle dims) { return flip(t, ints_arg(dims, "dims")); }, nb::arg("input"),
        nb::arg("dims"));
  cls.def("flip", [](const Tensor& t, const nb::args& a, const nb::kwargs& k) { return flip(t, method_ints(a, k, "dims")); });
  for (auto [name, fn] : {std::pair{"fliplr", &fliplr}, std::pair{"flipud", &flipud}}) {
    m.def(name, fn, nb::arg("input"));
    cls.def(name, fn);
  }
  auto roll_impl = [](const Tensor& t, nb::handle shifts, nb::handle dims) {
    return roll(t, ints_arg(shifts, "shifts", true), dims.is_none() ? DimVector{} : ints_arg(dims, "dims", true));
  };
  m.def("roll", roll_impl, nb::arg("input"), nb::arg("shifts"), nb::arg("dims") = nb::none());
  cls.def("roll", roll_impl, nb::arg("shifts"), nb::arg("dims") = nb::none());
  auto rot90_impl = [](const Tensor& t, int64_t k, nb::handle dims) { return rot90(t, k, ints_arg(dims, "dims")); };
  m.def("rot90", rot90_impl, nb::arg("input"), nb::arg("k") = 1, nb::arg("dims") = nb::make_tuple(0, 1));
  cls.def("rot90", rot90_impl, nb::arg("k") = 1, nb::arg("dims") = nb::make_tuple(0, 1));

  cls.def("repeat", [](const Tensor& t, const nb::args& a, const nb::kwargs& k) { return repeat(t, method_ints(a, k, "repeats")); });
  m.def("tile", [](const Tensor& t, nb::handle dims) { return tile(t, ints_arg(dims, "dims")); }, nb::arg("input"),
        nb::arg("dims"));
  cls.def("tile", [](const Tensor& t, const nb::args& a, const nb::kwargs& k) { return tile(t, method_ints(a, k, "dims")); });
  m.def("repeat_interleave", &repeat_interleave_any, nb::arg("input"), nb::arg("repeats"), nb::arg("dim") = nb::none(),
        nb::kw_only(), nb::arg("output_size") = nb::none());
  m.def("repeat_interleave", [](const Tensor& repeats, std::optional<int64_t> output_size) {  // input holds the repeats
    return repeat_interleave(repeats, output_size);
  }, nb::arg("input"), nb::kw_only(), nb::arg("output_size") = nb::none());
  cls.def("repeat_interleave", &repeat_interleave_any, nb::arg("repeats"), nb::arg("dim") = nb::none(), nb::kw_only(),
          nb::arg("output_size") = nb::none());

  m.def("broadcast_tensors", [](const nb::args& args) {
    return keeping_inputs(args, broadcast_tensors(tensor_seq(args, "broadcast_tensors")));
  });
  m.def("broadcast_shapes", [](const nb::args& args) {
    // torch's Python rules: None skipped, an int is a 1-D shape, anything else must be a collections.abc.Sequence
    static nb::object sequence = nb::module_::import_("collections.abc").attr("Sequence");
    std::vector<nb::object> given;
    for (nb::handle s : args) {
      if (s.is_none()) continue;
      if (PyLong_Check(s.ptr())) {
        given.push_back(nb::make_tuple(nb::int_(nb::borrow(s))));
        continue;
      }
      EMBER_CHECK(PyObject_IsInstance(s.ptr(), sequence.ptr()) == 1, Error, "Input shapes should be of type ints, a "
                  "tuple of ints, or a list of ints, got ", nb::cast<std::string>(nb::str(s)));
      given.push_back(nb::borrow(s));
    }
    std::vector<DimVector> shapes;
    for (const nb::object& s : given) shapes.push_back(int_list(nb::tuple(s), "shape", false));
    return make_size(broadcast_shapes(shapes));
  });
  m.def("broadcast_to", [](const Tensor& t, nb::handle size) { return broadcast_to(t, ints_arg(size, "size")); },
        nb::arg("input"), nb::arg("size"));
  cls.def("broadcast_to", [](const Tensor& t, nb::handle size) { return broadcast_to(t, ints_arg(size, "size")); },
          nb::arg("size"));
  m.def("meshgrid", [](const nb::args& args, nb::handle indexing) {
    auto mode = string_or_none(indexing);
    if (!mode && PyErr_WarnEx(PyExc_UserWarning, "torch.meshgrid: in an upcoming release, it will be required to pass "
                              "the indexing argument.", 1) < 0) {
      throw nb::python_error();
    }
    return to_tuple(meshgrid(tensor_seq(varargs_seq(args), "meshgrid"), mode.value_or("ij")));
  }, nb::arg("tensors"), nb::kw_only(), nb::arg("indexing") = nb::none());

  using Triangle = Tensor (*)(const Tensor&, int64_t);
  using TriangleOut = Tensor& (*)(Tensor&, const Tensor&, int64_t);
  using TriangleInPlace = Tensor& (*)(Tensor&, int64_t);
  const std::tuple<const char*, Triangle, TriangleOut, TriangleInPlace> triangles[] = {
      {"tril", &tril, &tril_out, &tril_}, {"triu", &triu, &triu_out, &triu_}};
  for (auto [name, fn, out_fn, in_place] : triangles) {
    m.def(name, [fn, out_fn](const Tensor& t, int64_t diagonal, nb::handle out) {
      return with_out_tensor(out, [&](Tensor& o) -> Tensor& { return out_fn(o, t, diagonal); }, [&] { return fn(t, diagonal); });
    }, nb::arg("input"), nb::arg("diagonal") = 0, nb::kw_only(), nb::arg("out") = nb::none());
    cls.def(name, fn, nb::arg("diagonal") = 0);
    cls.def((std::string(name) + "_").c_str(), [in_place](nb::handle self, int64_t diagonal) {
      in_place(nb::cast<Tensor&>(self), diagonal);
      return nb::borrow(self);
    }, nb::arg("diagonal") = 0);
    m.def((std::string(name) + "_indices").c_str(), [upper = std::string_view(name) == "triu"](
        int64_t row, int64_t col, int64_t offset, std::optional<ScalarType> dtype, nb::handle device, nb::handle) {
      TensorOptions options = make_options(dtype.value_or(kInt64), device, false);
      return upper ? triu_indices(row, col, offset, options) : tril_indices(row, col, offset, options);
    }, nb::arg("row"), nb::arg("col"), nb::arg("offset") = 0, nb::kw_only(), nb::arg("dtype") = nb::none(),
          nb::arg("device") = nb::none(), nb::arg("layout") = nb::none());
  }

  m.def("diag", [](const Tensor& t, int64_t diagonal, nb::handle out) {
    return with_out_tensor(out, [&](Tensor& o) -> Tensor& { return diag_out(o, t, diagonal); }, [&] { return diag(t, diagonal); });
  }, nb::arg("input"), nb::arg("diagonal") = 0, nb::kw_only(), nb::arg("out") = nb::none());
  cls.def("diag", [](const Tensor& t, int64_t diagonal) { return diag(t, diagonal); }, nb::arg("diagonal") = 0);
  m.def("diag_embed", &diag_embed, nb::arg("input"), nb::arg("offset") = 0, nb::arg("dim1") = -2, nb::arg("dim2") = -1);
  cls.def("diag_embed", &diag_embed, nb::arg("offset") = 0, nb::arg("dim1") = -2, nb::arg("dim2") = -1);
  m.def("diagflat", &diagflat, nb::arg("input"), nb::arg("offset") = 0);
  cls.def("diagflat", &diagflat, nb::arg("offset") = 0);
  m.def("trace", &trace, nb::arg("input"));
  cls.def("trace", &trace);
  m.def("block_diag", [](const nb::args& args) { return block_diag(tensor_seq(args, "block_diag")); });
  m.def("cartesian_prod", [](const nb::args& args) {
    Tensor r = cartesian_prod(tensor_seq(args, "cartesian_prod"));
    return args.size() == 1 ? same_or_new(args[0], r) : nb::cast(r);
  });
  m.def("combinations", &combinations, nb::arg("input"), nb::arg("r") = 2, nb::arg("with_replacement") = false);
  m.def("ravel", &ravel, nb::arg("input"));
  cls.def("ravel", &ravel);
}

}  // namespace ember::py
