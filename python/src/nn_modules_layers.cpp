// ember.nn's layer modules over the functional ops (ember/nn/modules_conv.h, modules_norm.h, modules_misc.h):
// convolutions, pooling, normalisation, dropout, embeddings, upsampling, padding, folding, distances. Each class
// is subclassable from Python (PyModule), with torch's constructor arguments and attributes.
#include <nanobind/stl/pair.h>
#include <nanobind/stl/shared_ptr.h>

#include "ember/nn/modules_conv.h"
#include "ember/nn/modules_misc.h"
#include "ember/nn/modules_norm.h"
#include "nn_module_py.h"

namespace ember::py {

namespace {

using namespace nb::literals;
using nn::Module;
using nn::SizeArg;

template <typename T, typename Base = Module>
using ModuleClass = nb::class_<T, Base, PyModule<T>>;

// A size argument as given: an int, or a tuple/list whose None entries (allow_none) are -1.
SizeArg size_arg(nb::handle h, const char* what, bool allow_none = false) {
  if (allow_none && h.is_none()) return SizeArg(-1);
  if (!nb::isinstance<nb::tuple>(h) && !nb::isinstance<nb::list>(h)) return SizeArg(int_list(h, what)[0]);
  DimVector v;
  for (nb::handle e : h) v.push_back(allow_none && e.is_none() ? -1 : int_list(e, what)[0]);
  return SizeArg(v, false);
}
std::optional<SizeArg> optional_size(nb::handle h, const char* what) {
  if (h.is_none()) return std::nullopt;
  return size_arg(h, what);
}

nb::object size_tuple(IntArrayRef v, bool none_for_minus_one = false) {
  nb::list l;
  for (int64_t e : v) l.append(none_for_minus_one && e == -1 ? nb::none() : nb::cast(e));
  return nb::tuple(l);
}
// A size attribute as torch keeps it: the int or the tuple given.
nb::object size_object(const SizeArg& s) {
  if (s.scalar) return s.values[0] == -1 ? nb::none() : nb::cast(s.values[0]);
  return size_tuple(s.values, true);
}

template <typename T>
void def_conv(nb::module_& m, const char* name) {
  ModuleClass<T, nn::ConvNd>(m, name)
      .def("__init__", [](nb::pointer_and_handle<T> v, int64_t in, int64_t out, nb::handle k, nb::handle stride,
                          nb::handle padding, nb::handle dilation, int64_t groups, bool bias,
                          const std::string& padding_mode, nb::handle device, std::optional<ScalarType> dtype) {
        nn::ConvPadding p = nb::isinstance<nb::str>(padding) ? nn::ConvPadding(nb::cast<std::string>(padding))
                                                             : nn::ConvPadding(size_arg(padding, "padding"));
        construct(v, in, out, size_arg(k, "kernel_size"), size_arg(stride, "stride"), p, size_arg(dilation, "dilation"),
                  groups, bias, padding_mode, layer_options(device, dtype));
      }, "in_channels"_a, "out_channels"_a, "kernel_size"_a, "stride"_a = 1, "padding"_a = 0, "dilation"_a = 1,
         "groups"_a = 1, "bias"_a = true, "padding_mode"_a = "zeros", "device"_a = nb::none(), "dtype"_a = nb::none())
      .def("forward", &base_forward<nn::ConvNd>, "input"_a);
}

template <typename T>
void def_conv_transpose(nb::module_& m, const char* name) {
  ModuleClass<T, nn::ConvNd>(m, name)
      .def("__init__", [](nb::pointer_and_handle<T> v, int64_t in, int64_t out, nb::handle k, nb::handle stride,
                          nb::handle padding, nb::handle output_padding, int64_t groups, bool bias, nb::handle dilation,
                          const std::string& padding_mode, nb::handle device, std::optional<ScalarType> dtype) {
        construct(v, in, out, size_arg(k, "kernel_size"), size_arg(stride, "stride"), size_arg(padding, "padding"),
                  size_arg(output_padding, "output_padding"), groups, bias, size_arg(dilation, "dilation"),
                  padding_mode, layer_options(device, dtype));
      }, "in_channels"_a, "out_channels"_a, "kernel_size"_a, "stride"_a = 1, "padding"_a = 0, "output_padding"_a = 0,
         "groups"_a = 1, "bias"_a = true, "dilation"_a = 1, "padding_mode"_a = "zeros", "device"_a = nb::none(),
         "dtype"_a = nb::none())
      .def("forward", [](T& self, const Tensor& input, nb::handle output_size) {
        if (output_size.is_none()) return base_forward<nn::ConvNd>(self, input);
        return self.forward(input, IntArrayRef(int_list(output_size, "output_size", false)));
      }, "input"_a, "output_size"_a = nb::none());
}

void def_convs(nb::module_& m) {
  nb::class_<nn::ConvNd, Module>(m, "_ConvNd")
      .def("reset_parameters", &nn::ConvNd::reset_parameters)
      .def_ro("in_channels", &nn::ConvNd::in_channels)
      .def_ro("out_channels", &nn::ConvNd::out_channels)
      .def_ro("groups", &nn::ConvNd::groups)
      .def_ro("transposed", &nn::ConvNd::transposed)
      .def_ro("padding_mode", &nn::ConvNd::padding_mode)
      .def_prop_ro("kernel_size", [](const nn::ConvNd& c) { return size_tuple(c.kernel_size); })
      .def_prop_ro("stride", [](const nn::ConvNd& c) { return size_tuple(c.stride); })
      .def_prop_ro("padding", [](const nn::ConvNd& c) -> nb::object {
        return c.padding_string.empty() ? size_tuple(c.padding) : nb::cast(c.padding_string);
      })
      .def_prop_ro("dilation", [](const nn::ConvNd& c) { return size_tuple(c.dilation); })
      .def_prop_ro("output_padding", [](const nn::ConvNd& c) { return size_tuple(c.output_padding); });
  def_conv<nn::Conv1d>(m, "Conv1d");
  def_conv<nn::Conv2d>(m, "Conv2d");
  def_conv<nn::Conv3d>(m, "Conv3d");
  def_conv_transpose<nn::ConvTranspose1d>(m, "ConvTranspose1d");
  def_conv_transpose<nn::ConvTranspose2d>(m, "ConvTranspose2d");
  def_conv_transpose<nn::ConvTranspose3d>(m, "ConvTranspose3d");
}

template <typename T>
void def_max_pool(nb::module_& m, const char* name) {
  ModuleClass<T>(m, name)
      .def("__init__", [](nb::pointer_and_handle<T> v, nb::handle k, nb::handle stride, nb::handle padding,
                          nb::handle dilation, bool return_indices, bool ceil_mode) {
        construct(v, size_arg(k, "kernel_size"), optional_size(stride, "stride"), size_arg(padding, "padding"),
                  size_arg(dilation, "dilation"), return_indices, ceil_mode);
      }, "kernel_size"_a, "stride"_a = nb::none(), "padding"_a = 0, "dilation"_a = 1, "return_indices"_a = false,
         "ceil_mode"_a = false)
      .def("forward", [](T& self, const Tensor& input) {
        return maybe_pair(self.forward_with_indices(input), self.return_indices);
      }, "input"_a)
      .def_prop_ro("kernel_size", [](const T& p) { return size_object(p.kernel_size); })
      .def_prop_ro("stride", [](const T& p) { return size_object(p.stride); })
      .def_prop_ro("padding", [](const T& p) { return size_object(p.padding); })
      .def_prop_ro("dilation", [](const T& p) { return size_object(p.dilation); })
      .def_rw("return_indices", &T::return_indices)
      .def_rw("ceil_mode", &T::ceil_mode);
}

template <typename T, typename Init>
void def_avg_pool(nb::module_& m, const char* name, Init init) {
  ModuleClass<T> c(m, name);
  init(c);
  c.def("forward", &base_forward<T>, "input"_a)
      .def_prop_ro("kernel_size", [](const T& p) { return size_object(p.kernel_size); })
      .def_prop_ro("stride", [](const T& p) { return size_object(p.stride); })
      .def_prop_ro("padding", [](const T& p) { return size_object(p.padding); })
      .def_rw("ceil_mode", &T::ceil_mode)
      .def_rw("count_include_pad", &T::count_include_pad);
}

template <typename T>
void def_adaptive(nb::module_& m, const char* name) {
  ModuleClass<T> c(m, name);
  if constexpr (std::is_constructible_v<T, const SizeArg&, bool>) {  // the max pools
    c.def("__init__", [](nb::pointer_and_handle<T> v, nb::handle size, bool return_indices) {
      construct(v, size_arg(size, "output_size", true), return_indices);
    }, "output_size"_a.none(), "return_indices"_a = false);
  } else {
    c.def("__init__", [](nb::pointer_and_handle<T> v, nb::handle size) {
      construct(v, size_arg(size, "output_size", true));
    }, "output_size"_a.none());
  }
  c.def("forward", [](T& self, const Tensor& input) -> nb::object {
     if (self.max) return maybe_pair(self.forward_with_indices(input), self.return_indices);
     return nb::cast(base_forward<T>(self, input));
   }, "input"_a)
      .def_prop_ro("output_size", [](const T& p) { return size_object(p.output_size); })
      .def_rw("return_indices", &T::return_indices);
}

template <typename T>
void def_lp_pool(nb::module_& m, const char* name) {
  ModuleClass<T>(m, name)
      .def("__init__", [](nb::pointer_and_handle<T> v, const Scalar& norm_type, nb::handle k, nb::handle stride,
                          bool ceil_mode) {
        construct(v, norm_type, size_arg(k, "kernel_size"), optional_size(stride, "stride"), ceil_mode);
      }, "norm_type"_a, "kernel_size"_a, "stride"_a = nb::none(), "ceil_mode"_a = false)
      .def("forward", &base_forward<T>, "input"_a)
      .def_prop_ro("norm_type", [](const T& p) { return scalar_to_python(p.norm_type); })
      .def_prop_ro("kernel_size", [](const T& p) { return size_object(p.kernel_size); })
      .def_prop_ro("stride", [](const T& p) { return p.stride ? size_object(*p.stride) : nb::none(); })
      .def_rw("ceil_mode", &T::ceil_mode);
}

void def_pools(nb::module_& m) {
  def_max_pool<nn::MaxPool1d>(m, "MaxPool1d");
  def_max_pool<nn::MaxPool2d>(m, "MaxPool2d");
  def_avg_pool<nn::AvgPool1d>(m, "AvgPool1d", [](ModuleClass<nn::AvgPool1d>& c) {
    c.def("__init__", [](nb::pointer_and_handle<nn::AvgPool1d> v, nb::handle k, nb::handle stride, nb::handle padding,
                         bool ceil_mode, bool count_include_pad) {
      construct(v, size_arg(k, "kernel_size"), optional_size(stride, "stride"), size_arg(padding, "padding"), ceil_mode,
                count_include_pad);
    }, "kernel_size"_a, "stride"_a = nb::none(), "padding"_a = 0, "ceil_mode"_a = false, "count_include_pad"_a = true);
  });
  def_avg_pool<nn::AvgPool2d>(m, "AvgPool2d", [](ModuleClass<nn::AvgPool2d>& c) {
    c.def("__init__", [](nb::pointer_and_handle<nn::AvgPool2d> v, nb::handle k, nb::handle stride, nb::handle padding,
                         bool ceil_mode, bool count_include_pad, std::optional<int64_t> divisor_override) {
      construct(v, size_arg(k, "kernel_size"), optional_size(stride, "stride"), size_arg(padding, "padding"), ceil_mode,
                count_include_pad, divisor_override);
    }, "kernel_size"_a, "stride"_a = nb::none(), "padding"_a = 0, "ceil_mode"_a = false, "count_include_pad"_a = true,
       "divisor_override"_a = nb::none());
    c.def_rw("divisor_override", &nn::AvgPool2d::divisor_override);
  });
  def_adaptive<nn::AdaptiveAvgPool1d>(m, "AdaptiveAvgPool1d");
  def_adaptive<nn::AdaptiveAvgPool2d>(m, "AdaptiveAvgPool2d");
  def_adaptive<nn::AdaptiveMaxPool1d>(m, "AdaptiveMaxPool1d");
  def_adaptive<nn::AdaptiveMaxPool2d>(m, "AdaptiveMaxPool2d");
  def_lp_pool<nn::LPPool1d>(m, "LPPool1d");
  def_lp_pool<nn::LPPool2d>(m, "LPPool2d");
}

template <typename T>
void def_norm(nb::module_& m, const char* name, double momentum, bool affine, bool track) {
  ModuleClass<T, nn::NormBase>(m, name)
      .def("__init__", [](nb::pointer_and_handle<T> v, int64_t num_features, double eps, std::optional<double> momentum,
                          bool affine, bool track_running_stats, nb::handle device, std::optional<ScalarType> dtype,
                          bool bias) {
        construct(v, num_features, eps, momentum, affine, track_running_stats, layer_options(device, dtype), bias);
      }, "num_features"_a, "eps"_a = 1e-5, "momentum"_a.none() = momentum, "affine"_a = affine,
         "track_running_stats"_a = track, "device"_a = nb::none(), "dtype"_a = nb::none(), nb::kw_only(),
         "bias"_a = true)
      .def("forward", &base_forward<nn::NormBase>, "input"_a);
}

void def_norms(nb::module_& m) {
  nb::class_<nn::NormBase, Module>(m, "_NormBase")
      .def("reset_parameters", &nn::NormBase::reset_parameters)
      .def("reset_running_stats", &nn::NormBase::reset_running_stats)
      .def_ro("num_features", &nn::NormBase::num_features)
      .def_rw("eps", &nn::NormBase::eps)
      .def_rw("momentum", &nn::NormBase::momentum, nb::arg("momentum").none())
      .def_ro("affine", &nn::NormBase::affine)
      .def_rw("track_running_stats", &nn::NormBase::track_running_stats);
  def_norm<nn::BatchNorm1d>(m, "BatchNorm1d", 0.1, true, true);
  def_norm<nn::BatchNorm2d>(m, "BatchNorm2d", 0.1, true, true);
  def_norm<nn::BatchNorm3d>(m, "BatchNorm3d", 0.1, true, true);
  def_norm<nn::InstanceNorm1d>(m, "InstanceNorm1d", 0.1, false, false);
  def_norm<nn::InstanceNorm2d>(m, "InstanceNorm2d", 0.1, false, false);
  def_norm<nn::InstanceNorm3d>(m, "InstanceNorm3d", 0.1, false, false);

  auto shape = [](nb::handle h) { return int_list(h, "normalized_shape"); };
  ModuleClass<nn::LayerNorm>(m, "LayerNorm")
      .def("__init__", [shape](nb::pointer_and_handle<nn::LayerNorm> v, nb::handle normalized_shape, double eps,
                               bool elementwise_affine, bool bias, nb::handle device, std::optional<ScalarType> dtype) {
        construct(v, IntArrayRef(shape(normalized_shape)), eps, elementwise_affine, bias, layer_options(device, dtype));
      }, "normalized_shape"_a, "eps"_a = 1e-5, "elementwise_affine"_a = true, "bias"_a = true, "device"_a = nb::none(),
         "dtype"_a = nb::none())
      .def("forward", &base_forward<nn::LayerNorm>, "input"_a)
      .def("reset_parameters", &nn::LayerNorm::reset_parameters)
      .def_prop_ro("normalized_shape", [](const nn::LayerNorm& l) { return size_tuple(l.normalized_shape); })
      .def_rw("eps", &nn::LayerNorm::eps)
      .def_ro("elementwise_affine", &nn::LayerNorm::elementwise_affine);
  ModuleClass<nn::GroupNorm>(m, "GroupNorm")
      .def("__init__", [](nb::pointer_and_handle<nn::GroupNorm> v, int64_t num_groups, int64_t num_channels, double eps,
                          bool affine, nb::handle device, std::optional<ScalarType> dtype, bool bias) {
        construct(v, num_groups, num_channels, eps, affine, layer_options(device, dtype), bias);
      }, "num_groups"_a, "num_channels"_a, "eps"_a = 1e-5, "affine"_a = true, "device"_a = nb::none(),
         "dtype"_a = nb::none(), nb::kw_only(), "bias"_a = true)
      .def("forward", &base_forward<nn::GroupNorm>, "input"_a)
      .def("reset_parameters", &nn::GroupNorm::reset_parameters)
      .def_ro("num_groups", &nn::GroupNorm::num_groups)
      .def_ro("num_channels", &nn::GroupNorm::num_channels)
      .def_rw("eps", &nn::GroupNorm::eps)
      .def_ro("affine", &nn::GroupNorm::affine);
  ModuleClass<nn::RMSNorm>(m, "RMSNorm")
      .def("__init__", [shape](nb::pointer_and_handle<nn::RMSNorm> v, nb::handle normalized_shape,
                               std::optional<double> eps, bool elementwise_affine, nb::handle device,
                               std::optional<ScalarType> dtype) {
        construct(v, IntArrayRef(shape(normalized_shape)), eps, elementwise_affine, layer_options(device, dtype));
      }, "normalized_shape"_a, "eps"_a = nb::none(), "elementwise_affine"_a = true, "device"_a = nb::none(),
         "dtype"_a = nb::none())
      .def("forward", &base_forward<nn::RMSNorm>, "input"_a)
      .def("reset_parameters", &nn::RMSNorm::reset_parameters)
      .def_prop_ro("normalized_shape", [](const nn::RMSNorm& l) { return size_tuple(l.normalized_shape); })
      .def_rw("eps", &nn::RMSNorm::eps, nb::arg("eps").none())
      .def_ro("elementwise_affine", &nn::RMSNorm::elementwise_affine);
  ModuleClass<nn::LocalResponseNorm>(m, "LocalResponseNorm")
      .def("__init__", [](nb::pointer_and_handle<nn::LocalResponseNorm> v, int64_t size, double alpha, double beta,
                          double k) { construct(v, size, alpha, beta, k); },
           "size"_a, "alpha"_a = 1e-4, "beta"_a = 0.75, "k"_a = 1.0)
      .def("forward", &base_forward<nn::LocalResponseNorm>, "input"_a)
      .def_rw("size", &nn::LocalResponseNorm::size)
      .def_rw("alpha", &nn::LocalResponseNorm::alpha)
      .def_rw("beta", &nn::LocalResponseNorm::beta)
      .def_rw("k", &nn::LocalResponseNorm::k);
}

template <typename T>
void def_dropout(nb::module_& m, const char* name) {
  ModuleClass<T, nn::DropoutBase>(m, name)
      .def("__init__", [](nb::pointer_and_handle<T> v, double p, bool inplace) { construct(v, p, inplace); },
           "p"_a = 0.5, "inplace"_a = false)
      .def("forward", &base_forward<nn::DropoutBase>, "input"_a);
}

void def_dropouts(nb::module_& m) {
  nb::class_<nn::DropoutBase, Module>(m, "_DropoutNd")
      .def_rw("p", &nn::DropoutBase::p)
      .def_rw("inplace", &nn::DropoutBase::inplace);
  def_dropout<nn::Dropout>(m, "Dropout");
  def_dropout<nn::Dropout1d>(m, "Dropout1d");
  def_dropout<nn::Dropout2d>(m, "Dropout2d");
  def_dropout<nn::Dropout3d>(m, "Dropout3d");
  def_dropout<nn::AlphaDropout>(m, "AlphaDropout");
  def_dropout<nn::FeatureAlphaDropout>(m, "FeatureAlphaDropout");
}

void def_embeddings(nb::module_& m) {
  using OptTensor = std::optional<Tensor>;
  ModuleClass<nn::Embedding>(m, "Embedding")
      .def("__init__", [](nb::pointer_and_handle<nn::Embedding> v, int64_t num, int64_t dim,
                          std::optional<int64_t> padding_idx, std::optional<double> max_norm, const Scalar& norm_type,
                          bool scale_grad_by_freq, bool sparse, OptTensor weight, bool freeze, nb::handle device,
                          std::optional<ScalarType> dtype) {
        construct(v, num, dim, padding_idx, max_norm, norm_type, scale_grad_by_freq, sparse, weight, freeze,
                  layer_options(device, dtype));
      }, "num_embeddings"_a, "embedding_dim"_a, "padding_idx"_a = nb::none(), "max_norm"_a = nb::none(),
         "norm_type"_a = 2.0, "scale_grad_by_freq"_a = false, "sparse"_a = false, "_weight"_a = nb::none(),
         "_freeze"_a = false, "device"_a = nb::none(), "dtype"_a = nb::none())
      .def("forward", &base_forward<nn::Embedding>, "input"_a)
      .def("reset_parameters", &nn::Embedding::reset_parameters)
      .def_static("from_pretrained", &nn::Embedding::from_pretrained, "embeddings"_a, "freeze"_a = true,
                  "padding_idx"_a = nb::none(), "max_norm"_a = nb::none(), "norm_type"_a = 2.0,
                  "scale_grad_by_freq"_a = false, "sparse"_a = false)
      .def_ro("num_embeddings", &nn::Embedding::num_embeddings)
      .def_ro("embedding_dim", &nn::Embedding::embedding_dim)
      .def_rw("padding_idx", &nn::Embedding::padding_idx, nb::arg("padding_idx").none())
      .def_rw("max_norm", &nn::Embedding::max_norm, nb::arg("max_norm").none())
      .def_prop_ro("norm_type", [](const nn::Embedding& e) { return scalar_to_python(e.norm_type); })
      .def_rw("scale_grad_by_freq", &nn::Embedding::scale_grad_by_freq)
      .def_rw("sparse", &nn::Embedding::sparse);
  ModuleClass<nn::EmbeddingBag>(m, "EmbeddingBag")
      .def("__init__", [](nb::pointer_and_handle<nn::EmbeddingBag> v, int64_t num, int64_t dim,
                          std::optional<double> max_norm, const Scalar& norm_type, bool scale_grad_by_freq,
                          const std::string& mode, bool sparse, OptTensor weight, bool include_last_offset,
                          std::optional<int64_t> padding_idx, nb::handle device, std::optional<ScalarType> dtype) {
        construct(v, num, dim, max_norm, norm_type, scale_grad_by_freq, mode, sparse, weight, include_last_offset,
                  padding_idx, layer_options(device, dtype));
      }, "num_embeddings"_a, "embedding_dim"_a, "max_norm"_a = nb::none(), "norm_type"_a = 2.0,
         "scale_grad_by_freq"_a = false, "mode"_a = "mean", "sparse"_a = false, "_weight"_a = nb::none(),
         "include_last_offset"_a = false, "padding_idx"_a = nb::none(), "device"_a = nb::none(), "dtype"_a = nb::none())
      .def("forward", nb::overload_cast<const Tensor&, const OptTensor&, const OptTensor&>(&nn::EmbeddingBag::forward),
           "input"_a, "offsets"_a = nb::none(), "per_sample_weights"_a = nb::none())
      .def("reset_parameters", &nn::EmbeddingBag::reset_parameters)
      .def_static("from_pretrained", &nn::EmbeddingBag::from_pretrained, "embeddings"_a, "freeze"_a = true,
                  "max_norm"_a = nb::none(), "norm_type"_a = 2.0, "scale_grad_by_freq"_a = false, "mode"_a = "mean",
                  "sparse"_a = false, "include_last_offset"_a = false, "padding_idx"_a = nb::none())
      .def_ro("num_embeddings", &nn::EmbeddingBag::num_embeddings)
      .def_ro("embedding_dim", &nn::EmbeddingBag::embedding_dim)
      .def_rw("mode", &nn::EmbeddingBag::mode)
      .def_rw("padding_idx", &nn::EmbeddingBag::padding_idx, nb::arg("padding_idx").none())
      .def_rw("max_norm", &nn::EmbeddingBag::max_norm, nb::arg("max_norm").none())
      .def_rw("include_last_offset", &nn::EmbeddingBag::include_last_offset);
}

// Upsample's scale_factor: None, a number (one float for every dim) or a tuple of them.
std::pair<std::vector<double>, bool> scale_arg(nb::handle h) {
  if (h.is_none()) return {{}, true};
  if (!nb::isinstance<nb::tuple>(h) && !nb::isinstance<nb::list>(h)) return {{nb::cast<double>(h)}, true};
  std::vector<double> v;
  for (nb::handle e : h) v.push_back(nb::cast<double>(e));
  return {v, false};
}

template <typename T>
void def_upsample_attrs(ModuleClass<T>& c) {
  // forward goes through F.interpolate (Python) for its argument checks and errors
  c.def("forward", [](nb::handle self, nb::handle input) {
     auto& u = nb::cast<T&>(self);
     nb::object interpolate = nb::module_::import_("ember.nn.functional").attr("interpolate");
     return interpolate(input, self.attr("size"), self.attr("scale_factor"), u.mode,
                        u.align_corners ? nb::cast(*u.align_corners) : nb::none(),
                        "recompute_scale_factor"_a = u.recompute_scale_factor ? nb::cast(*u.recompute_scale_factor)
                                                                             : nb::none());
   }, "input"_a)
      .def_prop_ro("size", [](const T& u) { return u.size ? size_object(*u.size) : nb::none(); })
      .def_prop_ro("scale_factor", [](const T& u) -> nb::object {
        if (u.scale_factor.empty()) return nb::none();
        if (u.scale_scalar) return nb::cast(u.scale_factor[0]);
        nb::list l;
        for (double s : u.scale_factor) l.append(s);
        return nb::tuple(l);
      })
      .def_rw("mode", &T::mode)
      .def_rw("align_corners", &T::align_corners, nb::arg("align_corners").none())
      .def_rw("recompute_scale_factor", &T::recompute_scale_factor, nb::arg("recompute_scale_factor").none());
}

void def_upsampling(nb::module_& m) {
  ModuleClass<nn::Upsample> up(m, "Upsample");
  up.def("__init__", [](nb::pointer_and_handle<nn::Upsample> v, nb::handle size, nb::handle scale_factor,
                        const std::string& mode, std::optional<bool> align_corners,
                        std::optional<bool> recompute_scale_factor) {
    auto [scales, scalar] = scale_arg(scale_factor);
    construct(v, optional_size(size, "size"), scales, scalar, mode, align_corners, recompute_scale_factor,
              std::string("Upsample"));
  }, "size"_a = nb::none(), "scale_factor"_a = nb::none(), "mode"_a = "nearest", "align_corners"_a = nb::none(),
     "recompute_scale_factor"_a = nb::none());
  def_upsample_attrs(up);
  ModuleClass<nn::UpsamplingNearest2d> nearest(m, "UpsamplingNearest2d");
  nearest.def("__init__", [](nb::pointer_and_handle<nn::UpsamplingNearest2d> v, nb::handle size, nb::handle scale) {
    auto [scales, scalar] = scale_arg(scale);
    construct(v, optional_size(size, "size"), scales, scalar);
  }, "size"_a = nb::none(), "scale_factor"_a = nb::none());
  def_upsample_attrs(nearest);
  ModuleClass<nn::UpsamplingBilinear2d> bilinear(m, "UpsamplingBilinear2d");
  bilinear.def("__init__", [](nb::pointer_and_handle<nn::UpsamplingBilinear2d> v, nb::handle size, nb::handle scale) {
    auto [scales, scalar] = scale_arg(scale);
    construct(v, optional_size(size, "size"), scales, scalar);
  }, "size"_a = nb::none(), "scale_factor"_a = nb::none());
  def_upsample_attrs(bilinear);

  ModuleClass<nn::PixelShuffle>(m, "PixelShuffle")
      .def("__init__", [](nb::pointer_and_handle<nn::PixelShuffle> v, int64_t r) { construct(v, r); },
           "upscale_factor"_a)
      .def("forward", &base_forward<nn::PixelShuffle>, "input"_a)
      .def_rw("upscale_factor", &nn::PixelShuffle::upscale_factor);
  ModuleClass<nn::PixelUnshuffle>(m, "PixelUnshuffle")
      .def("__init__", [](nb::pointer_and_handle<nn::PixelUnshuffle> v, int64_t r) { construct(v, r); },
           "downscale_factor"_a)
      .def("forward", &base_forward<nn::PixelUnshuffle>, "input"_a)
      .def_rw("downscale_factor", &nn::PixelUnshuffle::downscale_factor);
  ModuleClass<nn::ChannelShuffle>(m, "ChannelShuffle")
      .def("__init__", [](nb::pointer_and_handle<nn::ChannelShuffle> v, int64_t groups) { construct(v, groups); },
           "groups"_a)
      .def("forward", &base_forward<nn::ChannelShuffle>, "input"_a)
      .def_rw("groups", &nn::ChannelShuffle::groups);
}

template <typename T>
ModuleClass<T> def_pad(nb::module_& m, const char* name) {
  ModuleClass<T> c(m, name);
  c.def("forward", &base_forward<T>, "input"_a)
      .def_prop_ro("padding", [](const T& p) { return size_tuple(p.padding); });
  if constexpr (std::is_constructible_v<T, const SizeArg&>) {
    c.def("__init__", [](nb::pointer_and_handle<T> v, nb::handle padding) { construct(v, size_arg(padding, "padding")); },
          "padding"_a);
  } else {
    c.def("__init__", [](nb::pointer_and_handle<T> v, nb::handle padding, const Scalar& value) {
       construct(v, size_arg(padding, "padding"), value);
     }, "padding"_a, "value"_a)
        .def_prop_ro("value", [](const T& p) { return scalar_to_python(p.value); });
  }
  return c;
}

void def_pads(nb::module_& m) {
  def_pad<nn::ZeroPad1d>(m, "ZeroPad1d");
  def_pad<nn::ZeroPad2d>(m, "ZeroPad2d");
  def_pad<nn::ZeroPad3d>(m, "ZeroPad3d");
  def_pad<nn::ConstantPad1d>(m, "ConstantPad1d");
  def_pad<nn::ConstantPad2d>(m, "ConstantPad2d");
  def_pad<nn::ConstantPad3d>(m, "ConstantPad3d");
  def_pad<nn::ReflectionPad1d>(m, "ReflectionPad1d");
  def_pad<nn::ReflectionPad2d>(m, "ReflectionPad2d");
  def_pad<nn::ReflectionPad3d>(m, "ReflectionPad3d");
  def_pad<nn::ReplicationPad1d>(m, "ReplicationPad1d");
  def_pad<nn::ReplicationPad2d>(m, "ReplicationPad2d");
  def_pad<nn::ReplicationPad3d>(m, "ReplicationPad3d");
  def_pad<nn::CircularPad1d>(m, "CircularPad1d");
  def_pad<nn::CircularPad2d>(m, "CircularPad2d");
  def_pad<nn::CircularPad3d>(m, "CircularPad3d");
}

void def_fold_and_distances(nb::module_& m) {
  auto size = [](const SizeArg& s) { return size_object(s); };
  ModuleClass<nn::Fold>(m, "Fold")
      .def("__init__", [](nb::pointer_and_handle<nn::Fold> v, nb::handle output_size, nb::handle k, nb::handle dilation,
                          nb::handle padding, nb::handle stride) {
        construct(v, size_arg(output_size, "output_size"), size_arg(k, "kernel_size"), size_arg(dilation, "dilation"),
                  size_arg(padding, "padding"), size_arg(stride, "stride"));
      }, "output_size"_a, "kernel_size"_a, "dilation"_a = 1, "padding"_a = 0, "stride"_a = 1)
      .def("forward", &base_forward<nn::Fold>, "input"_a)
      .def_prop_ro("output_size", [size](const nn::Fold& f) { return size(f.output_size); })
      .def_prop_ro("kernel_size", [size](const nn::Fold& f) { return size(f.kernel_size); })
      .def_prop_ro("dilation", [size](const nn::Fold& f) { return size(f.dilation); })
      .def_prop_ro("padding", [size](const nn::Fold& f) { return size(f.padding); })
      .def_prop_ro("stride", [size](const nn::Fold& f) { return size(f.stride); });
  ModuleClass<nn::Unfold>(m, "Unfold")
      .def("__init__", [](nb::pointer_and_handle<nn::Unfold> v, nb::handle k, nb::handle dilation, nb::handle padding,
                          nb::handle stride) {
        construct(v, size_arg(k, "kernel_size"), size_arg(dilation, "dilation"), size_arg(padding, "padding"),
                  size_arg(stride, "stride"));
      }, "kernel_size"_a, "dilation"_a = 1, "padding"_a = 0, "stride"_a = 1)
      .def("forward", &base_forward<nn::Unfold>, "input"_a)
      .def_prop_ro("kernel_size", [size](const nn::Unfold& f) { return size(f.kernel_size); })
      .def_prop_ro("dilation", [size](const nn::Unfold& f) { return size(f.dilation); })
      .def_prop_ro("padding", [size](const nn::Unfold& f) { return size(f.padding); })
      .def_prop_ro("stride", [size](const nn::Unfold& f) { return size(f.stride); });
  ModuleClass<nn::CosineSimilarity>(m, "CosineSimilarity")
      .def("__init__", [](nb::pointer_and_handle<nn::CosineSimilarity> v, int64_t dim, double eps) {
        construct(v, dim, eps);
      }, "dim"_a = 1, "eps"_a = 1e-8)
      .def("forward", nb::overload_cast<const Tensor&, const Tensor&>(&nn::CosineSimilarity::forward), "x1"_a, "x2"_a)
      .def_rw("dim", &nn::CosineSimilarity::dim)
      .def_rw("eps", &nn::CosineSimilarity::eps);
  ModuleClass<nn::PairwiseDistance>(m, "PairwiseDistance")
      .def("__init__", [](nb::pointer_and_handle<nn::PairwiseDistance> v, double p, double eps, bool keepdim) {
        construct(v, p, eps, keepdim);
      }, "p"_a = 2.0, "eps"_a = 1e-6, "keepdim"_a = false)
      .def("forward", nb::overload_cast<const Tensor&, const Tensor&>(&nn::PairwiseDistance::forward), "x1"_a, "x2"_a)
      .def_rw("norm", &nn::PairwiseDistance::norm)
      .def_rw("eps", &nn::PairwiseDistance::eps)
      .def_rw("keepdim", &nn::PairwiseDistance::keepdim);
}

}  // namespace

void init_nn_modules_layers(nb::module_& m) {
  nb::register_exception_translator([](const std::exception_ptr& p, void*) {
    try {
      std::rethrow_exception(p);
    } catch (const nn::AssertionError& e) {
      PyErr_SetString(PyExc_AssertionError, e.what());
    }
  });
  def_convs(m);
  def_pools(m);
  def_norms(m);
  def_dropouts(m);
  def_embeddings(m);
  def_upsampling(m);
  def_pads(m);
  def_fold_and_distances(m);
}

}  // namespace ember::py
