// Convolution and pooling (ember/nn/conv.h, ember/nn/pooling.h): the functional forms in ember._C._nn (so in
// ember.nn.functional) and the torch.* names torch has (torch.conv2d, torch.max_pool2d, ...). Sizes take an int
// or a tuple; conv padding also "same"/"valid"; adaptive output sizes take None for "keep".
#include <nanobind/stl/pair.h>
#include <nanobind/stl/tuple.h>

#include "bindings.h"

namespace ember::py {

namespace {

namespace F = nn::functional;
using OptTensor = std::optional<Tensor>;

DimVector ints(nb::handle h, const char* what) { return int_list(h, what, true); }
// A conv's int argument: one int stands for all `dims` spatial dims (torch's IntArrayRef[dims] parsing).
DimVector spatial(nb::handle h, const char* what, int64_t dims) {
  DimVector v = ints(h, what);
  return PyLong_Check(h.ptr()) ? DimVector(size_t(dims), v[0]) : v;
}
// stride=None: empty, meaning the kernel size.
DimVector stride_arg(nb::handle h) { return h.is_none() ? DimVector{} : ints(h, "stride"); }

// An adaptive output size: an int, or a tuple whose None entries keep the input's size (-1).
DimVector output_size_arg(nb::handle h, int64_t dims) {
  if (!nb::isinstance<nb::tuple>(h) && !nb::isinstance<nb::list>(h)) return spatial(h, "output_size", dims);
  DimVector r;
  size_t pos = 0;
  for (nb::handle e : h) {
    // only the 2-d forms take None (keep that size); torch's 1-d argument parser refuses it
    EMBER_CHECK(!e.is_none() || dims == 2, TypeError, "argument 'output_size' must be "
                "tuple of ints, but found element of type NoneType at pos ", pos);
    r.push_back(e.is_none() ? -1 : ints(e, "output_size")[0]);
    ++pos;
  }
  return r;
}

// F.adaptive_*_pool2d's output size through torch's _list_with_default: a tuple needs more input dims than entries.
DimVector output_size_2d(const Tensor& x, nb::handle h) {
  if ((nb::isinstance<nb::tuple>(h) || nb::isinstance<nb::list>(h)) && x.dim() <= int64_t(nb::len(h))) {
    throw ValueError(str("Input dimension should be at least ", nb::len(h) + 1));
  }
  return output_size_arg(h, 2);
}

template <typename Ints, typename Str>
Tensor conv_padding(nb::handle padding, int64_t dims, Ints with_ints, Str with_string) {
  if (nb::isinstance<nb::str>(padding)) return with_string(nb::cast<std::string>(padding));
  return with_ints(spatial(padding, "padding", dims));
}

}  // namespace

nb::object maybe_pair(const std::pair<Tensor, Tensor>& r, bool with_indices) {
  return with_indices ? nb::cast(r) : nb::cast(r.first);
}

void init_nn_conv(nb::module_& m, nb::module_& nn) {
  using Conv = Tensor (*)(const Tensor&, const Tensor&, const OptTensor&, IntArrayRef, IntArrayRef, IntArrayRef,
                          int64_t);
  using ConvStr = Tensor (*)(const Tensor&, const Tensor&, const OptTensor&, IntArrayRef, std::string_view,
                             IntArrayRef, int64_t);
  auto def_conv = [&](const char* name, int64_t dims, Conv conv, ConvStr conv_str) {
    auto fn = [conv, conv_str, dims](const Tensor& x, const Tensor& w, const OptTensor& b, nb::handle stride,
                                     nb::handle padding, nb::handle dilation, int64_t groups) {
      DimVector s = spatial(stride, "stride", dims), d = spatial(dilation, "dilation", dims);
      return conv_padding(padding, dims, [&](const DimVector& p) { return conv(x, w, b, s, p, d, groups); },
                          [&](const std::string& p) { return conv_str(x, w, b, s, p, d, groups); });
    };
    for (nb::module_* mod : {&m, &nn}) {
      mod->def(name, fn, nb::arg("input"), nb::arg("weight"), nb::arg("bias") = nb::none(),
               nb::arg("stride") = 1, nb::arg("padding") = 0, nb::arg("dilation") = 1, nb::arg("groups") = 1);
    }
  };
  def_conv("conv1d", 1, &F::conv1d, &F::conv1d);
  def_conv("conv2d", 2, &F::conv2d, &F::conv2d);
  def_conv("conv3d", 3, &F::conv3d, &F::conv3d);

  using ConvT = Tensor (*)(const Tensor&, const Tensor&, const OptTensor&, IntArrayRef, IntArrayRef, IntArrayRef,
                           int64_t, IntArrayRef);
  auto def_conv_t = [&](const char* name, int64_t dims, ConvT conv) {
    auto fn = [conv, name, dims](const Tensor& x, const Tensor& w, const OptTensor& b, nb::handle stride,
                           nb::handle padding, nb::handle output_padding, int64_t groups, nb::handle dilation) {
      EMBER_CHECK(!nb::isinstance<nb::str>(padding), TypeError, name,
                  "(): argument 'padding' must be tuple of ints, not str");
      return conv(x, w, b, spatial(stride, "stride", dims), spatial(padding, "padding", dims),
                  spatial(output_padding, "output_padding", dims), groups, spatial(dilation, "dilation", dims));
    };
    for (nb::module_* mod : {&m, &nn}) {
      mod->def(name, fn, nb::arg("input"), nb::arg("weight"), nb::arg("bias") = nb::none(), nb::arg("stride") = 1,
               nb::arg("padding") = 0, nb::arg("output_padding") = 0, nb::arg("groups") = 1,
               nb::arg("dilation") = 1);
    }
  };
  def_conv_t("conv_transpose1d", 1, &F::conv_transpose1d);
  def_conv_t("conv_transpose2d", 2, &F::conv_transpose2d);
  def_conv_t("conv_transpose3d", 3, &F::conv_transpose3d);

  m.def("convolution", [](const Tensor& x, const Tensor& w, const OptTensor& b, nb::handle stride, nb::handle padding,
                          nb::handle dilation, bool transposed, nb::handle output_padding, int64_t groups) {
    return F::convolution(x, w, b, ints(stride, "stride"), ints(padding, "padding"), ints(dilation, "dilation"),
                          transposed, ints(output_padding, "output_padding"), groups);
  }, nb::arg("input"), nb::arg("weight"), nb::arg("bias").none(), nb::arg("stride"), nb::arg("padding"),
     nb::arg("dilation"), nb::arg("transposed"), nb::arg("output_padding"), nb::arg("groups"));

  // Max pooling: F.max_pool*d(..., return_indices=False) and the _with_indices forms (torch has max_pool1d,
  // max_pool1d_with_indices and max_pool2d).
  using MaxPool = std::pair<Tensor, Tensor> (*)(const Tensor&, IntArrayRef, IntArrayRef, IntArrayRef, IntArrayRef,
                                                bool);
  using Plain = Tensor (*)(const Tensor&, IntArrayRef, IntArrayRef, IntArrayRef, IntArrayRef, bool);
  auto def_max_pool = [&](const char* name, MaxPool with_indices, Plain plain, bool torch_with_indices) {
    auto fn = [with_indices, plain](const Tensor& x, nb::handle k, nb::handle stride, nb::handle padding,
                                    nb::handle dilation, bool ceil_mode, bool return_indices) {
      DimVector ks = ints(k, "kernel_size"), s = stride_arg(stride), p = ints(padding, "padding");
      DimVector d = ints(dilation, "dilation");
      if (return_indices) return nb::cast(with_indices(x, ks, s, p, d, ceil_mode));
      return nb::cast(plain(x, ks, s, p, d, ceil_mode));
    };
    auto fn_indices = [fn](const Tensor& x, nb::handle k, nb::handle stride, nb::handle padding, nb::handle dilation,
                           bool ceil_mode, bool) { return fn(x, k, stride, padding, dilation, ceil_mode, true); };
    std::string indices_name = str(name, "_with_indices");
    for (nb::module_* mod : {&m, &nn}) {
      mod->def(name, fn, nb::arg("input"), nb::arg("kernel_size"), nb::arg("stride") = nb::none(),
               nb::arg("padding") = 0, nb::arg("dilation") = 1, nb::arg("ceil_mode") = false,
               nb::arg("return_indices") = false);
      if (mod == &m && !torch_with_indices) continue;
      mod->def(indices_name.c_str(), fn_indices, nb::arg("input"), nb::arg("kernel_size"),
               nb::arg("stride") = nb::none(), nb::arg("padding") = 0, nb::arg("dilation") = 1,
               nb::arg("ceil_mode") = false, nb::arg("return_indices") = true);
    }
  };
  def_max_pool("max_pool1d", &F::max_pool1d_with_indices, &F::max_pool1d, true);
  def_max_pool("max_pool2d", &F::max_pool2d_with_indices, &F::max_pool2d, false);

  nn.def("avg_pool2d", [](const Tensor& x, nb::handle k, nb::handle stride, nb::handle padding, bool ceil_mode,
                          bool count_include_pad, std::optional<int64_t> divisor_override, nb::handle out) {
    DimVector ks = ints(k, "kernel_size"), s = stride_arg(stride), p = ints(padding, "padding");
    if (out.is_none()) return nb::cast(F::avg_pool2d(x, ks, s, p, ceil_mode, count_include_pad, divisor_override));
    F::avg_pool2d_out(nb::cast<Tensor&>(out), x, ks, s, p, ceil_mode, count_include_pad, divisor_override);
    return nb::borrow(out);
  }, nb::arg("input"), nb::arg("kernel_size"), nb::arg("stride") = nb::none(), nb::arg("padding") = 0,
     nb::arg("ceil_mode") = false, nb::arg("count_include_pad") = true, nb::arg("divisor_override") = nb::none(),
     nb::kw_only(), nb::arg("out") = nb::none());
  for (nb::module_* mod : {&m, &nn}) {
    mod->def("avg_pool1d", [](const Tensor& x, nb::handle k, nb::handle stride, nb::handle padding, bool ceil_mode,
                              bool count_include_pad) {
      return F::avg_pool1d(x, ints(k, "kernel_size"), stride_arg(stride), ints(padding, "padding"), ceil_mode,
                           count_include_pad);
    }, nb::arg("input"), nb::arg("kernel_size"), nb::arg("stride") = nb::none(), nb::arg("padding") = 0,
       nb::arg("ceil_mode") = false, nb::arg("count_include_pad") = true);
    mod->def("adaptive_avg_pool1d", [](const Tensor& x, nb::handle size) {
      return F::adaptive_avg_pool1d(x, output_size_arg(size, 1));
    }, nb::arg("input"), nb::arg("output_size"));
    mod->def("adaptive_max_pool1d", [](const Tensor& x, nb::handle size, bool return_indices) {
      return maybe_pair(F::adaptive_max_pool1d(x, output_size_arg(size, 1)), return_indices);
    }, nb::arg("input"), nb::arg("output_size"), nb::arg("return_indices") = false);
  }
  nn.def("adaptive_avg_pool2d", [](const Tensor& x, nb::handle size) {
    return F::adaptive_avg_pool2d(x, output_size_2d(x, size));
  }, nb::arg("input"), nb::arg("output_size"));
  nn.def("adaptive_max_pool2d", [](const Tensor& x, nb::handle size, bool return_indices) {
    return maybe_pair(F::adaptive_max_pool2d(x, output_size_2d(x, size)), return_indices);
  }, nb::arg("input"), nb::arg("output_size"), nb::arg("return_indices") = false);
  nn.def("adaptive_max_pool2d_with_indices", [](const Tensor& x, nb::handle size, bool) {
    return F::adaptive_max_pool2d(x, output_size_2d(x, size));
  }, nb::arg("input"), nb::arg("output_size"), nb::arg("return_indices") = true);
  nn.def("adaptive_max_pool1d_with_indices", [](const Tensor& x, nb::handle size, bool) {
    return F::adaptive_max_pool1d(x, output_size_arg(size, 1));
  }, nb::arg("input"), nb::arg("output_size"), nb::arg("return_indices") = true);
}

}  // namespace ember::py
