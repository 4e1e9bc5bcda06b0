// ember.nn.functional's normalisation functions (ember/nn/normalization.h) and torch's batch_norm, instance_norm,
// layer_norm, group_norm and rms_norm.
#include "bindings.h"
#include "ember/nn/normalization.h"

namespace ember::py {

namespace {

using namespace nb::literals;
using OptTensor = std::optional<Tensor>;

// normalized_shape: a sequence of ints.
DimVector normalized(nb::handle shape) { return int_list(shape, "normalized_shape", false); }

}  // namespace

void init_nn_normalization(nb::module_& m, nb::module_& nn) {
  namespace F = nn::functional;
  auto opt = [](const char* name) { return nb::arg(name).none() = nb::none(); };
  nn.def("batch_norm", &F::batch_norm, "input"_a, nb::arg("running_mean").none(), nb::arg("running_var").none(),
         opt("weight"), opt("bias"), "training"_a = false, "momentum"_a = 0.1, "eps"_a = 1e-5);
  nn.def("instance_norm", &F::instance_norm, "input"_a, opt("running_mean"), opt("running_var"), opt("weight"),
         opt("bias"), "use_input_stats"_a = true, "momentum"_a = 0.1, "eps"_a = 1e-5);
  nn.def("layer_norm", [](const Tensor& x, nb::handle shape, const OptTensor& w, const OptTensor& b, double eps) {
    return F::layer_norm(x, normalized(shape), w, b, eps);
  }, "input"_a, "normalized_shape"_a, opt("weight"), opt("bias"), "eps"_a = 1e-5);
  nn.def("group_norm", &F::group_norm, "input"_a, "num_groups"_a, opt("weight"), opt("bias"), "eps"_a = 1e-5);
  nn.def("rms_norm", [](const Tensor& x, nb::handle shape, const OptTensor& w, std::optional<double> eps) {
    return F::rms_norm(x, normalized(shape), w, eps);
  }, "input"_a, "normalized_shape"_a, opt("weight"), opt("eps"));
  nn.def("local_response_norm", &F::local_response_norm, "input"_a, "size"_a, "alpha"_a = 1e-4, "beta"_a = 0.75,
         "k"_a = 1.0);

  // torch.* forms (torch's argument orders; cudnn flags are accepted and ignored).
  m.def("batch_norm", &ember::batch_norm, "input"_a, nb::arg("weight").none(), nb::arg("bias").none(),
        nb::arg("running_mean").none(), nb::arg("running_var").none(), "training"_a, "momentum"_a, "eps"_a,
        "cudnn_enabled"_a);
  m.def("instance_norm", &ember::instance_norm, "input"_a, nb::arg("weight").none(), nb::arg("bias").none(),
        nb::arg("running_mean").none(), nb::arg("running_var").none(), "use_input_stats"_a, "momentum"_a, "eps"_a,
        "cudnn_enabled"_a);
  m.def("layer_norm", [](const Tensor& x, nb::handle shape, const OptTensor& w, const OptTensor& b, double eps, bool) {
    return F::layer_norm(x, normalized(shape), w, b, eps);
  }, "input"_a, "normalized_shape"_a, opt("weight"), opt("bias"), "eps"_a = 1e-5, "cudnn_enable"_a = true);
  m.def("group_norm", &ember::group_norm, "input"_a, "num_groups"_a, opt("weight"), opt("bias"), "eps"_a = 1e-5,
        "cudnn_enabled"_a = true);
  m.def("rms_norm", [](const Tensor& x, nb::handle shape, const OptTensor& w, std::optional<double> eps) {
    return F::rms_norm(x, normalized(shape), w, eps);
  }, "input"_a, "normalized_shape"_a, opt("weight"), opt("eps"));
}

}  // namespace ember::py
