// ember.nn's activation, loss and transformer module classes (the C++ classes of ember/nn/modules_*.h and
// transformer.h), subclassable from Python like Linear.
#include <nanobind/stl/function.h>
#include <nanobind/stl/shared_ptr.h>

#include "bindings.h"
#include "ember/nn/modules_activation.h"
#include "ember/nn/modules_loss.h"
#include "ember/nn/repr.h"
#include "ember/nn/transformer.h"
#include "nn_module_py.h"

namespace ember::py {

namespace {

using namespace nb::literals;
using nn::Module;

template <typename T, typename Base = Module>
using Cls = nb::class_<T, Base, PyModule<T>>;

// A module of no arguments (torch's take and ignore *args, **kwargs).
template <typename T>
void plain(nb::module_& m, const char* name) {
  Cls<T>(m, name)
      .def("__init__", [](nb::pointer_and_handle<T> v, nb::args, nb::kwargs) { construct(v); })
      .def("forward", &base_forward<T>, "input"_a);
}

template <typename T>
void with_inplace(nb::module_& m, const char* name) {
  Cls<T>(m, name)
      .def("__init__", [](nb::pointer_and_handle<T> v, bool inplace) { construct(v, inplace); }, "inplace"_a = false)
      .def("forward", &base_forward<T>, "input"_a)
      .def_rw("inplace", &T::inplace);
}

template <typename T>
void with_alpha(nb::module_& m, const char* name) {
  Cls<T>(m, name)
      .def("__init__", [](nb::pointer_and_handle<T> v, double alpha, bool inplace) { construct(v, alpha, inplace); },
           "alpha"_a = 1.0, "inplace"_a = false)
      .def("forward", &base_forward<T>, "input"_a)
      .def_rw("alpha", &T::alpha)
      .def_rw("inplace", &T::inplace);
}

template <typename T>
void softmax_like(nb::module_& m, const char* name) {
  Cls<T>(m, name)
      .def("__init__", [](nb::pointer_and_handle<T> v, std::optional<int64_t> dim) { construct(v, dim); },
           "dim"_a = nb::none())
      .def("forward", &base_forward<T>, "input"_a)
      .def_rw("dim", &T::dim, nb::arg("dim").none());
}

template <typename T>
void shrink(nb::module_& m, const char* name) {
  Cls<T>(m, name)
      .def("__init__", [](nb::pointer_and_handle<T> v, double lambd) { construct(v, lambd); }, "lambd"_a = 0.5)
      .def("forward", &base_forward<T>, "input"_a)
      .def_rw("lambd", &T::lambd);
}

// torch's deprecated Hardtanh keywords min_value/max_value (renamed min_val/max_val).
double renamed(nb::handle value, double fallback, const char* old_name, const char* new_name) {
  if (value.is_none()) return fallback;
  warn(str("keyword argument `", old_name, "` is deprecated and renamed to `", new_name, "`"));
  return nb::cast<double>(value);
}

void init_activations(nb::module_& m) {
  plain<nn::Sigmoid>(m, "Sigmoid");
  plain<nn::Tanh>(m, "Tanh");
  plain<nn::Softsign>(m, "Softsign");
  plain<nn::Tanhshrink>(m, "Tanhshrink");
  plain<nn::LogSigmoid>(m, "LogSigmoid");
  plain<nn::Softmax2d>(m, "Softmax2d");
  with_inplace<nn::ReLU>(m, "ReLU");
  with_inplace<nn::SELU>(m, "SELU");
  with_inplace<nn::SiLU>(m, "SiLU");
  with_inplace<nn::Mish>(m, "Mish");
  with_inplace<nn::Hardswish>(m, "Hardswish");
  with_inplace<nn::Hardsigmoid>(m, "Hardsigmoid");
  with_alpha<nn::ELU>(m, "ELU");
  with_alpha<nn::CELU>(m, "CELU");
  softmax_like<nn::Softmax>(m, "Softmax");
  softmax_like<nn::LogSoftmax>(m, "LogSoftmax");
  softmax_like<nn::Softmin>(m, "Softmin");
  shrink<nn::Softshrink>(m, "Softshrink");
  shrink<nn::Hardshrink>(m, "Hardshrink");

  Cls<nn::Hardtanh>(m, "Hardtanh")
      .def("__init__", [](nb::pointer_and_handle<nn::Hardtanh> v, double min_val, double max_val, bool inplace,
                          nb::handle min_value, nb::handle max_value) {
        min_val = renamed(min_value, min_val, "min_value", "min_val");
        max_val = renamed(max_value, max_val, "max_value", "max_val");
        if (!(max_val > min_val)) {  // torch's assert
          PyErr_SetString(PyExc_AssertionError, str("max_val (", nn::repr_float(max_val),
                                                     ") must be greater than min_val (", nn::repr_float(min_val), ")")
                                                     .c_str());
          throw nb::python_error();
        }
        construct(v, min_val, max_val, inplace);
      }, "min_val"_a = -1.0, "max_val"_a = 1.0, "inplace"_a = false, "min_value"_a = nb::none(),
         "max_value"_a = nb::none())
      .def("forward", &base_forward<nn::Hardtanh>, "input"_a)
      .def_rw("min_val", &nn::Hardtanh::min_val)
      .def_rw("max_val", &nn::Hardtanh::max_val)
      .def_rw("inplace", &nn::Hardtanh::inplace);
  Cls<nn::ReLU6, nn::Hardtanh>(m, "ReLU6")
      .def("__init__", [](nb::pointer_and_handle<nn::ReLU6> v, bool inplace) { construct(v, inplace); },
           "inplace"_a = false);

  Cls<nn::LeakyReLU>(m, "LeakyReLU")
      .def("__init__", [](nb::pointer_and_handle<nn::LeakyReLU> v, double negative_slope, bool inplace) {
        construct(v, negative_slope, inplace);
      }, "negative_slope"_a = 0.01, "inplace"_a = false)
      .def("forward", &base_forward<nn::LeakyReLU>, "input"_a)
      .def_rw("negative_slope", &nn::LeakyReLU::negative_slope)
      .def_rw("inplace", &nn::LeakyReLU::inplace);

  Cls<nn::PReLU>(m, "PReLU")
      .def("__init__", [](nb::pointer_and_handle<nn::PReLU> v, int64_t num_parameters, double init, nb::handle device,
                          std::optional<ScalarType> dtype) {
        construct(v, num_parameters, init, layer_options(device, dtype));
      }, "num_parameters"_a = 1, "init"_a = 0.25, "device"_a = nb::none(), "dtype"_a = nb::none())
      .def("forward", &base_forward<nn::PReLU>, "input"_a)
      .def("reset_parameters", &nn::PReLU::reset_parameters)
      .def_rw("num_parameters", &nn::PReLU::num_parameters)
      .def_rw("init", &nn::PReLU::init);

  Cls<nn::RReLU>(m, "RReLU")
      .def("__init__", [](nb::pointer_and_handle<nn::RReLU> v, double lower, double upper, bool inplace) {
        construct(v, lower, upper, inplace);
      }, "lower"_a = 1.0 / 8, "upper"_a = 1.0 / 3, "inplace"_a = false)
      .def("forward", &base_forward<nn::RReLU>, "input"_a)
      .def_rw("lower", &nn::RReLU::lower)
      .def_rw("upper", &nn::RReLU::upper)
      .def_rw("inplace", &nn::RReLU::inplace);

  Cls<nn::GELU>(m, "GELU")
      .def("__init__", [](nb::pointer_and_handle<nn::GELU> v, std::string approximate) {
        construct(v, std::move(approximate));
      }, "approximate"_a = "none")
      .def("forward", &base_forward<nn::GELU>, "input"_a)
      .def_rw("approximate", &nn::GELU::approximate);

  Cls<nn::Softplus>(m, "Softplus")
      .def("__init__", [](nb::pointer_and_handle<nn::Softplus> v, double beta, double threshold) {
        construct(v, beta, threshold);
      }, "beta"_a = 1.0, "threshold"_a = 20.0)
      .def("forward", &base_forward<nn::Softplus>, "input"_a)
      .def_rw("beta", &nn::Softplus::beta)
      .def_rw("threshold", &nn::Softplus::threshold);

  Cls<nn::Threshold>(m, "Threshold")
      .def("__init__", [](nb::pointer_and_handle<nn::Threshold> v, double threshold, double value, bool inplace) {
        construct(v, threshold, value, inplace);
      }, "threshold"_a, "value"_a, "inplace"_a = false)
      .def("forward", &base_forward<nn::Threshold>, "input"_a)
      .def_rw("threshold", &nn::Threshold::threshold)
      .def_rw("value", &nn::Threshold::value)
      .def_rw("inplace", &nn::Threshold::inplace);

  Cls<nn::GLU>(m, "GLU")
      .def("__init__", [](nb::pointer_and_handle<nn::GLU> v, int64_t dim) { construct(v, dim); }, "dim"_a = -1)
      .def("forward", &base_forward<nn::GLU>, "input"_a)
      .def_rw("dim", &nn::GLU::dim);
}

// torch's _Loss arguments: size_average/reduce, when either is given, override reduction (with torch's warning).
std::string reduction_name(std::optional<bool> size_average, std::optional<bool> reduce, std::string reduction) {
  return size_average || reduce ? nn::legacy_reduction(size_average, reduce) : reduction;
}

Tensor maybe_tensor(nb::handle h) { return h.is_none() ? Tensor() : nb::cast<Tensor>(h); }

#define LEGACY "size_average"_a = nb::none(), "reduce"_a = nb::none()
using OB = std::optional<bool>;

template <typename T>
void plain_loss(nb::module_& m, const char* name) {
  Cls<T, nn::Loss>(m, name)
      .def("__init__", [](nb::pointer_and_handle<T> v, OB size_average, OB reduce, std::string reduction) {
        construct(v, reduction_name(size_average, reduce, std::move(reduction)));
      }, LEGACY, "reduction"_a = "mean")
      .def("forward", nb::overload_cast<const Tensor&, const Tensor&>(&T::forward), "input"_a, "target"_a);
}

template <typename T>
void pair_margin_loss(nb::module_& m, const char* name) {
  Cls<T, nn::Loss>(m, name)
      .def("__init__", [](nb::pointer_and_handle<T> v, double margin, OB size_average, OB reduce, std::string reduction) {
        construct(v, margin, reduction_name(size_average, reduce, std::move(reduction)));
      }, "margin"_a = 0.0, LEGACY, "reduction"_a = "mean")
      .def("forward", nb::overload_cast<const Tensor&, const Tensor&, const Tensor&>(&T::forward), "input1"_a, "input2"_a, "target"_a)
      .def_rw("margin", &T::margin);
}

void init_losses(nb::module_& m) {
  Cls<nn::Loss>(m, "_Loss")
      .def("__init__", [](nb::pointer_and_handle<nn::Loss> v, OB size_average, OB reduce, std::string reduction) {
        construct(v, "_Loss", reduction_name(size_average, reduce, std::move(reduction)));
      }, LEGACY, "reduction"_a = "mean")
      .def_rw("reduction", &nn::Loss::reduction);
  Cls<nn::WeightedLoss, nn::Loss>(m, "_WeightedLoss")
      .def("__init__", [](nb::pointer_and_handle<nn::WeightedLoss> v, nb::handle weight, OB size_average, OB reduce,
                          std::string reduction) {
        construct(v, "_WeightedLoss", maybe_tensor(weight), reduction_name(size_average, reduce, std::move(reduction)));
      }, "weight"_a = nb::none(), LEGACY, "reduction"_a = "mean");
  plain_loss<nn::MSELoss>(m, "MSELoss");
  plain_loss<nn::L1Loss>(m, "L1Loss");
  plain_loss<nn::SoftMarginLoss>(m, "SoftMarginLoss");
  plain_loss<nn::MultiLabelMarginLoss>(m, "MultiLabelMarginLoss");
  pair_margin_loss<nn::CosineEmbeddingLoss>(m, "CosineEmbeddingLoss");
  pair_margin_loss<nn::MarginRankingLoss>(m, "MarginRankingLoss");

  Cls<nn::CrossEntropyLoss, nn::WeightedLoss>(m, "CrossEntropyLoss")
      .def("__init__", [](nb::pointer_and_handle<nn::CrossEntropyLoss> v, nb::handle weight, OB size_average,
                          int64_t ignore_index, OB reduce, std::string reduction, double label_smoothing) {
        construct(v, maybe_tensor(weight), ignore_index, reduction_name(size_average, reduce, std::move(reduction)),
                  label_smoothing);
      }, "weight"_a = nb::none(), "size_average"_a = nb::none(), "ignore_index"_a = -100, "reduce"_a = nb::none(),
         "reduction"_a = "mean", "label_smoothing"_a = 0.0)
      .def("forward", nb::overload_cast<const Tensor&, const Tensor&>(&nn::CrossEntropyLoss::forward), "input"_a, "target"_a)
      .def_rw("ignore_index", &nn::CrossEntropyLoss::ignore_index)
      .def_rw("label_smoothing", &nn::CrossEntropyLoss::label_smoothing);
  Cls<nn::NLLLoss, nn::WeightedLoss>(m, "NLLLoss")
      .def("__init__", [](nb::pointer_and_handle<nn::NLLLoss> v, nb::handle weight, OB size_average,
                          int64_t ignore_index, OB reduce, std::string reduction) {
        construct(v, maybe_tensor(weight), ignore_index, reduction_name(size_average, reduce, std::move(reduction)));
      }, "weight"_a = nb::none(), "size_average"_a = nb::none(), "ignore_index"_a = -100, "reduce"_a = nb::none(),
         "reduction"_a = "mean")
      .def("forward", nb::overload_cast<const Tensor&, const Tensor&>(&nn::NLLLoss::forward), "input"_a, "target"_a)
      .def_rw("ignore_index", &nn::NLLLoss::ignore_index);
  Cls<nn::SmoothL1Loss, nn::Loss>(m, "SmoothL1Loss")
      .def("__init__", [](nb::pointer_and_handle<nn::SmoothL1Loss> v, OB size_average, OB reduce,
                          std::string reduction, double beta) {
        construct(v, reduction_name(size_average, reduce, std::move(reduction)), beta);
      }, LEGACY, "reduction"_a = "mean", "beta"_a = 1.0)
      .def("forward", nb::overload_cast<const Tensor&, const Tensor&>(&nn::SmoothL1Loss::forward), "input"_a, "target"_a)
      .def_rw("beta", &nn::SmoothL1Loss::beta);
  Cls<nn::HuberLoss, nn::Loss>(m, "HuberLoss")
      .def("__init__", [](nb::pointer_and_handle<nn::HuberLoss> v, std::string reduction, double delta) {
        construct(v, std::move(reduction), delta);
      }, "reduction"_a = "mean", "delta"_a = 1.0)
      .def("forward", nb::overload_cast<const Tensor&, const Tensor&>(&nn::HuberLoss::forward), "input"_a, "target"_a)
      .def_rw("delta", &nn::HuberLoss::delta);
  Cls<nn::BCELoss, nn::WeightedLoss>(m, "BCELoss")
      .def("__init__", [](nb::pointer_and_handle<nn::BCELoss> v, nb::handle weight, OB size_average, OB reduce,
                          std::string reduction) {
        construct(v, maybe_tensor(weight), reduction_name(size_average, reduce, std::move(reduction)));
      }, "weight"_a = nb::none(), LEGACY, "reduction"_a = "mean")
      .def("forward", nb::overload_cast<const Tensor&, const Tensor&>(&nn::BCELoss::forward), "input"_a, "target"_a);
  Cls<nn::BCEWithLogitsLoss, nn::Loss>(m, "BCEWithLogitsLoss")
      .def("__init__", [](nb::pointer_and_handle<nn::BCEWithLogitsLoss> v, nb::handle weight, OB size_average,
                          OB reduce, std::string reduction, nb::handle pos_weight) {
        construct(v, maybe_tensor(weight), reduction_name(size_average, reduce, std::move(reduction)),
                  maybe_tensor(pos_weight));
      }, "weight"_a = nb::none(), LEGACY, "reduction"_a = "mean", "pos_weight"_a = nb::none())
      .def("forward", nb::overload_cast<const Tensor&, const Tensor&>(&nn::BCEWithLogitsLoss::forward), "input"_a, "target"_a);
  Cls<nn::KLDivLoss, nn::Loss>(m, "KLDivLoss")
      .def("__init__", [](nb::pointer_and_handle<nn::KLDivLoss> v, OB size_average, OB reduce, std::string reduction,
                          bool log_target) {
        construct(v, reduction_name(size_average, reduce, std::move(reduction)), log_target);
      }, LEGACY, "reduction"_a = "mean", "log_target"_a = false)
      .def("forward", nb::overload_cast<const Tensor&, const Tensor&>(&nn::KLDivLoss::forward), "input"_a, "target"_a)
      .def_rw("log_target", &nn::KLDivLoss::log_target);
  Cls<nn::HingeEmbeddingLoss, nn::Loss>(m, "HingeEmbeddingLoss")
      .def("__init__", [](nb::pointer_and_handle<nn::HingeEmbeddingLoss> v, double margin, OB size_average, OB reduce,
                          std::string reduction) {
        construct(v, margin, reduction_name(size_average, reduce, std::move(reduction)));
      }, "margin"_a = 1.0, LEGACY, "reduction"_a = "mean")
      .def("forward", nb::overload_cast<const Tensor&, const Tensor&>(&nn::HingeEmbeddingLoss::forward), "input"_a, "target"_a)
      .def_rw("margin", &nn::HingeEmbeddingLoss::margin);
  Cls<nn::TripletMarginLoss, nn::Loss>(m, "TripletMarginLoss")
      .def("__init__", [](nb::pointer_and_handle<nn::TripletMarginLoss> v, double margin, double p, double eps,
                          bool swap, OB size_average, OB reduce, std::string reduction) {
        construct(v, margin, p, eps, swap, reduction_name(size_average, reduce, std::move(reduction)));
      }, "margin"_a = 1.0, "p"_a = 2.0, "eps"_a = 1e-6, "swap"_a = false, LEGACY, "reduction"_a = "mean")
      .def("forward", nb::overload_cast<const Tensor&, const Tensor&, const Tensor&>(&nn::TripletMarginLoss::forward), "anchor"_a, "positive"_a, "negative"_a)
      .def_rw("margin", &nn::TripletMarginLoss::margin)
      .def_rw("p", &nn::TripletMarginLoss::p)
      .def_rw("eps", &nn::TripletMarginLoss::eps)
      .def_rw("swap", &nn::TripletMarginLoss::swap);
  Cls<nn::TripletMarginWithDistanceLoss, nn::Loss>(m, "TripletMarginWithDistanceLoss")
      .def("__init__", [](nb::pointer_and_handle<nn::TripletMarginWithDistanceLoss> v, nb::handle distance_function,
                          double margin, bool swap, std::string reduction) {
        nn::functional::DistanceFunction fn;
        if (!distance_function.is_none())
          fn = [f = nb::borrow(distance_function)](const Tensor& a, const Tensor& b) {
            nb::gil_scoped_acquire gil;
            return nb::cast<Tensor>(f(a, b));
          };
        construct(v, std::move(fn), margin, swap, std::move(reduction));
        if (nb::isinstance<Module>(distance_function))  // a module argument is a child, as torch registers it
          v.p->add_module("distance_function", nb::cast<nn::ModulePtr>(distance_function));
      }, nb::kw_only(), "distance_function"_a = nb::none(), "margin"_a = 1.0, "swap"_a = false,
         "reduction"_a = "mean")
      .def("forward", nb::overload_cast<const Tensor&, const Tensor&, const Tensor&>(&nn::TripletMarginWithDistanceLoss::forward), "anchor"_a, "positive"_a, "negative"_a)
      .def_rw("margin", &nn::TripletMarginWithDistanceLoss::margin)
      .def_rw("swap", &nn::TripletMarginWithDistanceLoss::swap);
  Cls<nn::GaussianNLLLoss, nn::Loss>(m, "GaussianNLLLoss")
      .def("__init__", [](nb::pointer_and_handle<nn::GaussianNLLLoss> v, bool full, double eps, std::string reduction) {
        construct(v, full, eps, std::move(reduction));
      }, nb::kw_only(), "full"_a = false, "eps"_a = 1e-6, "reduction"_a = "mean")
      .def("forward", nb::overload_cast<const Tensor&, const Tensor&, const Tensor&>(&nn::GaussianNLLLoss::forward), "input"_a, "target"_a, "var"_a)
      .def_rw("full", &nn::GaussianNLLLoss::full)
      .def_rw("eps", &nn::GaussianNLLLoss::eps);
  Cls<nn::PoissonNLLLoss, nn::Loss>(m, "PoissonNLLLoss")
      .def("__init__", [](nb::pointer_and_handle<nn::PoissonNLLLoss> v, bool log_input, bool full, OB size_average,
                          double eps, OB reduce, std::string reduction) {
        construct(v, log_input, full, eps, reduction_name(size_average, reduce, std::move(reduction)));
      }, "log_input"_a = true, "full"_a = false, "size_average"_a = nb::none(), "eps"_a = 1e-8,
         "reduce"_a = nb::none(), "reduction"_a = "mean")
      .def("forward", nb::overload_cast<const Tensor&, const Tensor&>(&nn::PoissonNLLLoss::forward), "log_input"_a, "target"_a)
      .def_rw("log_input", &nn::PoissonNLLLoss::log_input)
      .def_rw("full", &nn::PoissonNLLLoss::full)
      .def_rw("eps", &nn::PoissonNLLLoss::eps);
  Cls<nn::MultiLabelSoftMarginLoss, nn::WeightedLoss>(m, "MultiLabelSoftMarginLoss")
      .def("__init__", [](nb::pointer_and_handle<nn::MultiLabelSoftMarginLoss> v, nb::handle weight, OB size_average,
                          OB reduce, std::string reduction) {
        construct(v, maybe_tensor(weight), reduction_name(size_average, reduce, std::move(reduction)));
      }, "weight"_a = nb::none(), LEGACY, "reduction"_a = "mean")
      .def("forward", nb::overload_cast<const Tensor&, const Tensor&>(&nn::MultiLabelSoftMarginLoss::forward), "input"_a, "target"_a);
  Cls<nn::MultiMarginLoss, nn::WeightedLoss>(m, "MultiMarginLoss")
      .def("__init__", [](nb::pointer_and_handle<nn::MultiMarginLoss> v, int64_t p, double margin, nb::handle weight,
                          OB size_average, OB reduce, std::string reduction) {
        construct(v, p, margin, maybe_tensor(weight), reduction_name(size_average, reduce, std::move(reduction)));
      }, "p"_a = 1, "margin"_a = 1.0, "weight"_a = nb::none(), LEGACY, "reduction"_a = "mean")
      .def("forward", nb::overload_cast<const Tensor&, const Tensor&>(&nn::MultiMarginLoss::forward), "input"_a, "target"_a)
      .def_rw("p", &nn::MultiMarginLoss::p)
      .def_rw("margin", &nn::MultiMarginLoss::margin);
}
#undef LEGACY

std::optional<Tensor> opt_tensor(nb::handle h) {
  if (h.is_none()) return std::nullopt;
  return nb::cast<Tensor>(h);
}

void init_attention(nb::module_& m, nb::module_& nn_module) {
  Cls<nn::NonDynamicallyQuantizableLinear, nn::Linear>(m, "NonDynamicallyQuantizableLinear")
      .def("__init__", [](nb::pointer_and_handle<nn::NonDynamicallyQuantizableLinear> v, int64_t in, int64_t out,
                          bool bias, nb::handle device, std::optional<ScalarType> dtype) {
        construct(v, in, out, bias, layer_options(device, dtype));
      }, "in_features"_a, "out_features"_a, "bias"_a = true, "device"_a = nb::none(), "dtype"_a = nb::none());

  using MHA = nn::MultiheadAttention;
  Cls<MHA>(m, "MultiheadAttention")
      .def("__init__", [](nb::pointer_and_handle<MHA> v, int64_t embed_dim, int64_t num_heads, double dropout,
                          bool bias, bool add_bias_kv, bool add_zero_attn, std::optional<int64_t> kdim,
                          std::optional<int64_t> vdim, bool batch_first, nb::handle device,
                          std::optional<ScalarType> dtype) {
        construct(v, embed_dim, num_heads, dropout, bias, add_bias_kv, add_zero_attn, kdim, vdim, batch_first,
                  layer_options(device, dtype));
        if (!add_bias_kv) {  // torch's plain None attributes
          nb::setattr(v.h, "bias_k", nb::none());
          nb::setattr(v.h, "bias_v", nb::none());
        }
      }, "embed_dim"_a, "num_heads"_a, "dropout"_a = 0.0, "bias"_a = true, "add_bias_kv"_a = false,
         "add_zero_attn"_a = false, "kdim"_a = nb::none(), "vdim"_a = nb::none(), "batch_first"_a = false,
         "device"_a = nb::none(), "dtype"_a = nb::none())
      .def("forward", [](MHA& self, const Tensor& query, const Tensor& key, const Tensor& value,
                         nb::handle key_padding_mask, bool need_weights, nb::handle attn_mask,
                         bool average_attn_weights, bool is_causal) {
        auto [out, weights] = self.forward(query, key, value, opt_tensor(key_padding_mask), need_weights,
                                           opt_tensor(attn_mask), average_attn_weights, is_causal);
        return nb::make_tuple(out, tensor_or_none(weights));
      }, "query"_a, "key"_a, "value"_a, "key_padding_mask"_a = nb::none(), "need_weights"_a = true,
         "attn_mask"_a = nb::none(), "average_attn_weights"_a = true, "is_causal"_a = false)
      .def("_reset_parameters", &MHA::reset_parameters)
      .def_ro("embed_dim", &MHA::embed_dim)
      .def_ro("kdim", &MHA::kdim)
      .def_ro("vdim", &MHA::vdim)
      .def_ro("num_heads", &MHA::num_heads)
      .def_ro("head_dim", &MHA::head_dim)
      .def_rw("dropout", &MHA::dropout)
      .def_rw("batch_first", &MHA::batch_first)
      .def_rw("add_zero_attn", &MHA::add_zero_attn)
      .def_ro("_qkv_same_embed_dim", &MHA::qkv_same_embed_dim);

  nn_module.def("multi_head_attention_forward", [](const Tensor& query, const Tensor& key, const Tensor& value,
      int64_t embed_dim_to_check, int64_t num_heads, nb::handle in_proj_weight, nb::handle in_proj_bias,
      nb::handle bias_k, nb::handle bias_v, bool add_zero_attn, double dropout_p, const Tensor& out_proj_weight,
      nb::handle out_proj_bias, bool training, nb::handle key_padding_mask, bool need_weights, nb::handle attn_mask,
      bool use_separate_proj_weight, nb::handle q_proj_weight, nb::handle k_proj_weight, nb::handle v_proj_weight,
      nb::handle static_k, nb::handle static_v, bool average_attn_weights, bool is_causal) {
    auto [out, weights] = nn::functional::multi_head_attention_forward(
        query, key, value, embed_dim_to_check, num_heads, opt_tensor(in_proj_weight), opt_tensor(in_proj_bias),
        opt_tensor(bias_k), opt_tensor(bias_v), add_zero_attn, dropout_p, out_proj_weight, opt_tensor(out_proj_bias),
        training, opt_tensor(key_padding_mask), need_weights, opt_tensor(attn_mask), use_separate_proj_weight,
        opt_tensor(q_proj_weight), opt_tensor(k_proj_weight), opt_tensor(v_proj_weight), opt_tensor(static_k),
        opt_tensor(static_v), average_attn_weights, is_causal);
    return nb::make_tuple(out, tensor_or_none(weights));
  }, "query"_a, "key"_a, "value"_a, "embed_dim_to_check"_a, "num_heads"_a, "in_proj_weight"_a.none(),
     "in_proj_bias"_a.none(), "bias_k"_a.none(), "bias_v"_a.none(), "add_zero_attn"_a, "dropout_p"_a,
     "out_proj_weight"_a, "out_proj_bias"_a.none(), "training"_a = true, "key_padding_mask"_a = nb::none(),
     "need_weights"_a = true, "attn_mask"_a = nb::none(), "use_separate_proj_weight"_a = false,
     "q_proj_weight"_a = nb::none(), "k_proj_weight"_a = nb::none(), "v_proj_weight"_a = nb::none(),
     "static_k"_a = nb::none(), "static_v"_a = nb::none(), "average_attn_weights"_a = true, "is_causal"_a = false);
  nn_module.def("multilabel_margin_loss", [](const Tensor& input, const Tensor& target, std::optional<bool> size_average,
                                             std::optional<bool> reduce, std::string reduction) {
    return nn::functional::multilabel_margin_loss(
        input, target, nn::reduction_from_string(reduction_name(size_average, reduce, std::move(reduction))));
  }, "input"_a, "target"_a, "size_average"_a = nb::none(), "reduce"_a = nb::none(), "reduction"_a = "mean");
  nn_module.def("triplet_margin_with_distance_loss", [](const Tensor& anchor, const Tensor& positive,
      const Tensor& negative, nb::handle distance_function, double margin, bool swap, std::string_view reduction) {
    nn::functional::DistanceFunction fn;
    if (!distance_function.is_none())
      fn = [f = nb::borrow(distance_function)](const Tensor& a, const Tensor& b) { return nb::cast<Tensor>(f(a, b)); };
    return nn::functional::triplet_margin_with_distance_loss(anchor, positive, negative, fn, margin, swap,
                                                             nn::reduction_from_string(reduction));
  }, "anchor"_a, "positive"_a, "negative"_a, nb::kw_only(), "distance_function"_a = nb::none(), "margin"_a = 1.0,
     "swap"_a = false, "reduction"_a = "mean");
}

// A Python activation argument: "relu"/"gelu", a module (a child), or any callable.
nn::Activation activation_arg(nb::handle a) {
  if (nb::isinstance<nb::str>(a)) return nn::activation_from_name(nb::cast<std::string>(a));
  nn::Activation act;
  if (nb::isinstance<Module>(a)) act.module = nb::cast<nn::ModulePtr>(a);
  act.fn = [f = nb::borrow(a)](const Tensor& x) {
    nb::gil_scoped_acquire gil;
    return nb::cast<Tensor>(f(x));
  };
  return act;
}

// The layer's `activation` attribute as torch keeps it: F.relu / F.gelu for a name, the callable itself (a module
// argument is a registered child already).
void set_activation_attr(nb::handle self, nb::handle activation, const nn::Activation& act) {
  if (nb::isinstance<nb::str>(activation))
    nb::setattr(self, "activation", nb::module_::import_("ember.nn.functional").attr(activation));
  else if (!act.module)
    nb::setattr(self, "activation", activation);
}

// The encoder and decoder layers' class with their shared constructor (torch's arguments and defaults).
template <typename Layer>
Cls<Layer> transformer_layer_class(nb::module_& m, const char* name) {
  Cls<Layer> cls(m, name);
  cls.def("__init__", [](nb::pointer_and_handle<Layer> v, int64_t d_model, int64_t nhead, int64_t dim_feedforward,
                         double dropout, nb::handle activation, double layer_norm_eps, bool batch_first,
                         bool norm_first, bool bias, nb::handle device, std::optional<ScalarType> dtype) {
    construct(v, typename Layer::Options{d_model, nhead, dim_feedforward, dropout, activation_arg(activation),
                                         layer_norm_eps, batch_first, norm_first, bias, layer_options(device, dtype)});
    set_activation_attr(v.h, activation, v.p->options.activation);
  }, "d_model"_a, "nhead"_a, "dim_feedforward"_a = 2048, "dropout"_a = 0.1, "activation"_a = "relu",
     "layer_norm_eps"_a = 1e-5, "batch_first"_a = false, "norm_first"_a = false, "bias"_a = true,
     "device"_a = nb::none(), "dtype"_a = nb::none());
  return cls;
}

void init_transformer(nb::module_& m) {
  using Layer = nn::TransformerEncoderLayer;
  transformer_layer_class<Layer>(m, "TransformerEncoderLayer")
      .def("forward", [](Layer& self, const Tensor& src, nb::handle src_mask, nb::handle src_key_padding_mask,
                         bool is_causal) {
        return self.Layer::forward(src, opt_tensor(src_mask), opt_tensor(src_key_padding_mask), is_causal);
      }, "src"_a, "src_mask"_a = nb::none(), "src_key_padding_mask"_a = nb::none(), "is_causal"_a = false)
      .def_rw("norm_first", &Layer::norm_first)
      .def_prop_ro("activation_relu_or_gelu", [](const Layer& l) { return !l.options.activation.name.empty(); });

  using DLayer = nn::TransformerDecoderLayer;
  transformer_layer_class<DLayer>(m, "TransformerDecoderLayer")
      .def("forward", [](DLayer& self, const Tensor& tgt, const Tensor& memory, nb::handle tgt_mask,
                         nb::handle memory_mask, nb::handle tgt_key_padding_mask, nb::handle memory_key_padding_mask,
                         bool tgt_is_causal, bool memory_is_causal) {
        return self.forward(tgt, memory, opt_tensor(tgt_mask), opt_tensor(memory_mask),
                            opt_tensor(tgt_key_padding_mask), opt_tensor(memory_key_padding_mask), tgt_is_causal,
                            memory_is_causal);
      }, "tgt"_a, "memory"_a, "tgt_mask"_a = nb::none(), "memory_mask"_a = nb::none(),
         "tgt_key_padding_mask"_a = nb::none(), "memory_key_padding_mask"_a = nb::none(), "tgt_is_causal"_a = false,
         "memory_is_causal"_a = false)
      .def_rw("norm_first", &DLayer::norm_first);

  using Decoder = nn::TransformerDecoder;
  Cls<Decoder>(m, "TransformerDecoder")
      .def("__init__", [](nb::pointer_and_handle<Decoder> v, const DLayer& decoder_layer, int64_t num_layers,
                          nb::handle norm) {
        construct(v, decoder_layer, num_layers, norm.is_none() ? nullptr : nb::cast<nn::ModulePtr>(norm));
        if (norm.is_none()) nb::setattr(v.h, "norm", nb::none());
      }, "decoder_layer"_a, "num_layers"_a, "norm"_a = nb::none())
      .def("forward", [](Decoder& self, const Tensor& tgt, const Tensor& memory, nb::handle tgt_mask,
                         nb::handle memory_mask, nb::handle tgt_key_padding_mask, nb::handle memory_key_padding_mask,
                         std::optional<bool> tgt_is_causal, bool memory_is_causal) {
        return self.forward(tgt, memory, opt_tensor(tgt_mask), opt_tensor(memory_mask),
                            opt_tensor(tgt_key_padding_mask), opt_tensor(memory_key_padding_mask), tgt_is_causal,
                            memory_is_causal);
      }, "tgt"_a, "memory"_a, "tgt_mask"_a = nb::none(), "memory_mask"_a = nb::none(),
         "tgt_key_padding_mask"_a = nb::none(), "memory_key_padding_mask"_a = nb::none(),
         "tgt_is_causal"_a = nb::none(), "memory_is_causal"_a = false)
      .def_ro("num_layers", &Decoder::num_layers);

  using T = nn::Transformer;
  Cls<T>(m, "Transformer")
      .def("__init__", [](nb::pointer_and_handle<T> v, int64_t d_model, int64_t nhead, int64_t num_encoder_layers,
                          int64_t num_decoder_layers, int64_t dim_feedforward, double dropout, nb::handle activation,
                          nb::handle custom_encoder, nb::handle custom_decoder, double layer_norm_eps,
                          bool batch_first, bool norm_first, bool bias, nb::handle device,
                          std::optional<ScalarType> dtype) {
        T::Options o{d_model, nhead, num_encoder_layers, num_decoder_layers, dim_feedforward, dropout,
                     activation_arg(activation)};
        if (!custom_encoder.is_none()) o.custom_encoder = nb::cast<std::shared_ptr<nn::TransformerEncoder>>(custom_encoder);
        if (!custom_decoder.is_none()) o.custom_decoder = nb::cast<std::shared_ptr<nn::TransformerDecoder>>(custom_decoder);
        o.layer_norm_eps = layer_norm_eps;
        o.batch_first = batch_first;
        o.norm_first = norm_first;
        o.bias = bias;
        o.factory = layer_options(device, dtype);
        construct(v, std::move(o));
      }, "d_model"_a = 512, "nhead"_a = 8, "num_encoder_layers"_a = 6, "num_decoder_layers"_a = 6,
         "dim_feedforward"_a = 2048, "dropout"_a = 0.1, "activation"_a = "relu", "custom_encoder"_a = nb::none(),
         "custom_decoder"_a = nb::none(), "layer_norm_eps"_a = 1e-5, "batch_first"_a = false,
         "norm_first"_a = false, "bias"_a = true, "device"_a = nb::none(), "dtype"_a = nb::none())
      .def("forward", [](T& self, const Tensor& src, const Tensor& tgt, nb::handle src_mask, nb::handle tgt_mask,
                         nb::handle memory_mask, nb::handle src_key_padding_mask, nb::handle tgt_key_padding_mask,
                         nb::handle memory_key_padding_mask, std::optional<bool> src_is_causal,
                         std::optional<bool> tgt_is_causal, bool memory_is_causal) {
        return self.forward(src, tgt, opt_tensor(src_mask), opt_tensor(tgt_mask), opt_tensor(memory_mask),
                            opt_tensor(src_key_padding_mask), opt_tensor(tgt_key_padding_mask),
                            opt_tensor(memory_key_padding_mask), src_is_causal, tgt_is_causal, memory_is_causal);
      }, "src"_a, "tgt"_a, "src_mask"_a = nb::none(), "tgt_mask"_a = nb::none(), "memory_mask"_a = nb::none(),
         "src_key_padding_mask"_a = nb::none(), "tgt_key_padding_mask"_a = nb::none(),
         "memory_key_padding_mask"_a = nb::none(), "src_is_causal"_a = nb::none(), "tgt_is_causal"_a = nb::none(),
         "memory_is_causal"_a = false)
      .def_static("generate_square_subsequent_mask", [](int64_t sz, nb::handle device, std::optional<ScalarType> dtype) {
        return nn::generate_square_subsequent_mask(sz, make_options(dtype, device, false));
      }, "sz"_a, "device"_a = nb::none(), "dtype"_a = nb::none())
      .def_ro("d_model", &T::d_model)
      .def_ro("nhead", &T::nhead)
      .def_ro("batch_first", &T::batch_first);

  using Encoder = nn::TransformerEncoder;
  Cls<Encoder>(m, "TransformerEncoder")
      .def("__init__", [](nb::pointer_and_handle<Encoder> v, const Layer& encoder_layer, int64_t num_layers,
                          nb::handle norm, bool, bool) {
        construct(v, encoder_layer, num_layers, norm.is_none() ? nullptr : nb::cast<nn::ModulePtr>(norm));
        if (norm.is_none()) nb::setattr(v.h, "norm", nb::none());
      }, "encoder_layer"_a, "num_layers"_a, "norm"_a = nb::none(), "enable_nested_tensor"_a = true,
         "mask_check"_a = true)
      .def("forward", [](Encoder& self, const Tensor& src, nb::handle mask, nb::handle src_key_padding_mask,
                         std::optional<bool> is_causal) {
        return self.Encoder::forward(src, opt_tensor(mask), opt_tensor(src_key_padding_mask), is_causal);
      }, "src"_a, "mask"_a = nb::none(), "src_key_padding_mask"_a = nb::none(), "is_causal"_a = nb::none())
      .def_ro("num_layers", &Encoder::num_layers);
}

}  // namespace

void init_nn_modules_act(nb::module_& m, nb::module_& nn_module) {
  init_activations(m);
  init_losses(m);
  init_attention(m, nn_module);
  init_transformer(m);
}

}  // namespace ember::py
