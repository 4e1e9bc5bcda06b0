// ember.nn.functional's losses (ember._C._nn), with torch's signatures: the legacy size_average/reduce arguments
// and the reduction string become the Reduction enum here.
#include "bindings.h"
#include "ember/creation.h"
#include "ember/nn/loss.h"

namespace ember::py {

namespace {

namespace F = ember::nn::functional;
using OptBool = std::optional<bool>;
using OptTensor = std::optional<Tensor>;

// torch's F: size_average/reduce, when either is given, override `reduction`.
std::string reduction_string(OptBool size_average, OptBool reduce, const std::string& reduction) {
  return size_average || reduce ? nn::legacy_reduction(size_average, reduce) : reduction;
}
Reduction reduction_arg(OptBool size_average, OptBool reduce, const std::string& reduction) {
  return nn::reduction_from_string(reduction_string(size_average, reduce, reduction));
}

}  // namespace

void init_nn_loss(nb::module_& nn) {
  auto none = nb::none();
  nn.def("cross_entropy", [](const Tensor& x, const Tensor& t, OptTensor w, OptBool sa, int64_t ignore_index,
                             OptBool re, const std::string& r, double label_smoothing) {
    return F::cross_entropy(x, t, w, ignore_index, reduction_arg(sa, re, r), label_smoothing);
  }, nb::arg("input"), nb::arg("target"), nb::arg("weight") = none, nb::arg("size_average") = none,
     nb::arg("ignore_index") = -100, nb::arg("reduce") = none, nb::arg("reduction") = "mean",
     nb::arg("label_smoothing") = 0.0);
  nn.def("nll_loss", [](const Tensor& x, const Tensor& t, OptTensor w, OptBool sa, int64_t ignore_index, OptBool re,
                        const std::string& r) {
    return F::nll_loss(x, t, w, ignore_index, reduction_arg(sa, re, r));
  }, nb::arg("input"), nb::arg("target"), nb::arg("weight") = none, nb::arg("size_average") = none,
     nb::arg("ignore_index") = -100, nb::arg("reduce") = none, nb::arg("reduction") = "mean");
  using Weighted = Tensor (*)(const Tensor&, const Tensor&, Reduction, const OptTensor&);
  for (auto [name, fn] : {std::pair<const char*, Weighted>{"mse_loss", &F::mse_loss}, {"l1_loss", &F::l1_loss}}) {
    nn.def(name, [fn](const Tensor& x, const Tensor& t, OptBool sa, OptBool re, const std::string& r, OptTensor w) {
      return fn(x, t, reduction_arg(sa, re, r), w);
    }, nb::arg("input"), nb::arg("target"), nb::arg("size_average") = none, nb::arg("reduce") = none,
       nb::arg("reduction") = "mean", nb::arg("weight") = none);
  }
  nn.def("soft_margin_loss", [](const Tensor& x, const Tensor& t, OptBool sa, OptBool re, const std::string& r) {
    return F::soft_margin_loss(x, t, reduction_arg(sa, re, r));
  }, nb::arg("input"), nb::arg("target"), nb::arg("size_average") = none, nb::arg("reduce") = none,
     nb::arg("reduction") = "mean");
  nn.def("smooth_l1_loss", [](const Tensor& x, const Tensor& t, OptBool sa, OptBool re, const std::string& r,
                              double beta) { return F::smooth_l1_loss(x, t, reduction_arg(sa, re, r), beta); },
         nb::arg("input"), nb::arg("target"), nb::arg("size_average") = none, nb::arg("reduce") = none,
         nb::arg("reduction") = "mean", nb::arg("beta") = 1.0);
  nn.def("huber_loss", [](const Tensor& x, const Tensor& t, const std::string& r, double delta, OptTensor w) {
    return F::huber_loss(x, t, nn::reduction_from_string(r), delta, w);
  }, nb::arg("input"), nb::arg("target"), nb::arg("reduction") = "mean", nb::arg("delta") = 1.0,
     nb::arg("weight") = none);
  nn.def("binary_cross_entropy", [](const Tensor& x, const Tensor& t, OptTensor w, OptBool sa, OptBool re,
                                    const std::string& r) {
    return F::binary_cross_entropy(x, t, w, reduction_arg(sa, re, r));
  }, nb::arg("input"), nb::arg("target"), nb::arg("weight") = none, nb::arg("size_average") = none,
     nb::arg("reduce") = none, nb::arg("reduction") = "mean");
  nn.def("binary_cross_entropy_with_logits", [](const Tensor& x, const Tensor& t, OptTensor w, OptBool sa, OptBool re,
                                                const std::string& r, OptTensor pos_weight) {
    return F::binary_cross_entropy_with_logits(x, t, w, reduction_arg(sa, re, r), pos_weight);
  }, nb::arg("input"), nb::arg("target"), nb::arg("weight") = none, nb::arg("size_average") = none,
     nb::arg("reduce") = none, nb::arg("reduction") = "mean", nb::arg("pos_weight") = none);
  nn.def("kl_div", [](const Tensor& x, const Tensor& t, OptBool sa, OptBool re, const std::string& r, bool log_target) {
    return F::kl_div(x, t, reduction_string(sa, re, r), log_target);
  }, nb::arg("input"), nb::arg("target"), nb::arg("size_average") = none, nb::arg("reduce") = none,
     nb::arg("reduction") = "mean", nb::arg("log_target") = false);
  using Margin = Tensor (*)(const Tensor&, const Tensor&, const Tensor&, double, Reduction);
  for (auto [name, fn] : {std::pair<const char*, Margin>{"cosine_embedding_loss", &F::cosine_embedding_loss},
                          {"margin_ranking_loss", &F::margin_ranking_loss}}) {
    nn.def(name, [fn](const Tensor& a, const Tensor& b, const Tensor& t, double margin, OptBool sa, OptBool re,
                      const std::string& r) { return fn(a, b, t, margin, reduction_arg(sa, re, r)); },
           nb::arg("input1"), nb::arg("input2"), nb::arg("target"), nb::arg("margin") = 0.0,
           nb::arg("size_average") = none, nb::arg("reduce") = none, nb::arg("reduction") = "mean");
  }
  nn.def("triplet_margin_loss", [](const Tensor& a, const Tensor& p, const Tensor& n, double margin, double norm,
                                   double eps, bool swap, OptBool sa, OptBool re, const std::string& r) {
    return F::triplet_margin_loss(a, p, n, margin, norm, eps, swap, reduction_arg(sa, re, r));
  }, nb::arg("anchor"), nb::arg("positive"), nb::arg("negative"), nb::arg("margin") = 1.0, nb::arg("p") = 2.0,
     nb::arg("eps") = 1e-6, nb::arg("swap") = false, nb::arg("size_average") = none, nb::arg("reduce") = none,
     nb::arg("reduction") = "mean");
  nn.def("gaussian_nll_loss", [](const Tensor& x, const Tensor& t, nb::handle var, bool full, double eps,
                                 const std::string& r) {
    Tensor v;
    if (nb::isinstance<Tensor>(var)) {
      v = nb::cast<Tensor>(var);
    } else {  // a number: the same variance everywhere
      double value = nb::cast<double>(var);
      EMBER_CHECK(value >= 0, ValueError, "var has negative entry/entries");
      v = full_like(x, value);
    }
    EMBER_CHECK(r == "none" || r == "mean" || r == "sum", ValueError, r, " is not valid");
    return F::gaussian_nll_loss(x, t, v, full, eps, nn::reduction_from_string(r));
  }, nb::arg("input"), nb::arg("target"), nb::arg("var"), nb::arg("full") = false, nb::arg("eps") = 1e-6,
     nb::arg("reduction") = "mean");
  nn.def("poisson_nll_loss", [](const Tensor& x, const Tensor& t, bool log_input, bool full, OptBool sa, double eps,
                                OptBool re, const std::string& r) {
    return F::poisson_nll_loss(x, t, log_input, full, eps, reduction_arg(sa, re, r));
  }, nb::arg("input"), nb::arg("target"), nb::arg("log_input") = true, nb::arg("full") = false,
     nb::arg("size_average") = none, nb::arg("eps") = 1e-8, nb::arg("reduce") = none, nb::arg("reduction") = "mean");
  nn.def("multilabel_soft_margin_loss", [](const Tensor& x, const Tensor& t, OptTensor w, OptBool sa, OptBool re,
                                           const std::string& r) {
    return F::multilabel_soft_margin_loss(x, t, w, reduction_arg(sa, re, r));
  }, nb::arg("input"), nb::arg("target"), nb::arg("weight") = none, nb::arg("size_average") = none,
     nb::arg("reduce") = none, nb::arg("reduction") = "mean");
  nn.def("multi_margin_loss", [](const Tensor& x, const Tensor& t, int64_t p, double margin, OptTensor w, OptBool sa,
                                 OptBool re, const std::string& r) {
    return F::multi_margin_loss(x, t, p, margin, w, reduction_arg(sa, re, r));
  }, nb::arg("input"), nb::arg("target"), nb::arg("p") = 1, nb::arg("margin") = 1.0, nb::arg("weight") = none,
     nb::arg("size_average") = none, nb::arg("reduce") = none, nb::arg("reduction") = "mean");
  nn.def("hinge_embedding_loss", [](const Tensor& x, const Tensor& t, double margin, OptBool sa, OptBool re,
                                    const std::string& r) {
    return F::hinge_embedding_loss(x, t, margin, reduction_arg(sa, re, r));
  }, nb::arg("input"), nb::arg("target"), nb::arg("margin") = 1.0, nb::arg("size_average") = none,
     nb::arg("reduce") = none, nb::arg("reduction") = "mean");
}

}  // namespace ember::py
