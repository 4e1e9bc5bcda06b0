// ember.nn.functional's activations (ember._C._nn) and the torch./Tensor. forms torch also has (torch.selu_,
// torch.threshold, Tensor.hardshrink, ...). `inplace=True` returns the input object itself, as torch.
#include "bindings.h"
#include "ember/nn/activation.h"
#include "ember/ops.h"

namespace ember::py {

namespace {

namespace F = ember::nn::functional;

// F.softmax's dim=None: torch's legacy choice (0 for 0-, 1- and 3-dim inputs, else 1) with its warning.
int64_t softmax_dim(const char* name, const Tensor& x, std::optional<int64_t> dim) {
  if (dim) return *dim;
  warn(str("Implicit dimension choice for ", name, " has been deprecated. Change the call to include dim=X as an "
           "argument."));
  return x.dim() == 0 || x.dim() == 1 || x.dim() == 3 ? 0 : 1;
}

}  // namespace

void init_nn_activation(nb::module_& m, nb::module_& nn) {
  auto cls = nb::borrow<nb::class_<Tensor>>(nb::type<Tensor>());
  using Inplace = Tensor (*)(const Tensor&, bool);
  // f(input, inplace=False)
  for (auto [name, fn] : {std::pair<const char*, Inplace>{"relu", &F::relu}, {"relu6", &F::relu6}, {"selu", &F::selu},
                          {"silu", &F::silu}, {"mish", &F::mish}, {"hardswish", &F::hardswish},
                          {"hardsigmoid", &F::hardsigmoid}}) {
    nn.def(name, [fn](nb::handle x, bool inplace) { return same_or_new(x, fn(nb::cast<const Tensor&>(x), inplace)); },
           nb::arg("input"), nb::arg("inplace") = false);
  }
  using Unary = Tensor (*)(const Tensor&);
  for (auto [name, fn] : {std::pair<const char*, Unary>{"sigmoid", &F::sigmoid}, {"tanh", &F::tanh},
                          {"softsign", &F::softsign}, {"logsigmoid", &F::logsigmoid}, {"tanhshrink", &F::tanhshrink}}) {
    nn.def(name, fn, nb::arg("input"));
  }
  // In-place functions: they return the input object.
  for (auto [name, fn] : {std::pair<const char*, Unary>{"relu_", &F::relu_}, {"selu_", &F::selu_}}) {
    auto impl = [fn](nb::handle x) { return same_or_new(x, fn(nb::cast<const Tensor&>(x))); };
    nn.def(name, impl, nb::arg("input"));
    if (std::string_view(name) == "selu_") m.def(name, impl, nb::arg("input"));
  }
  m.def("relu_", [](nb::handle x) { return same_or_new(x, F::relu_(nb::cast<const Tensor&>(x))); }, nb::arg("input"));
  m.def("selu", [](const Tensor& x) { return F::selu(x); }, nb::arg("input"));

  nn.def("leaky_relu", [](nb::handle x, double slope, bool inplace) {
    return same_or_new(x, F::leaky_relu(nb::cast<const Tensor&>(x), slope, inplace));
  }, nb::arg("input"), nb::arg("negative_slope") = 0.01, nb::arg("inplace") = false);
  nn.def("leaky_relu_", [](nb::handle x, double slope) {
    return same_or_new(x, F::leaky_relu_(nb::cast<const Tensor&>(x), slope));
  }, nb::arg("input"), nb::arg("negative_slope") = 0.01);
  for (auto [name, celu] : {std::pair{"elu", false}, std::pair{"celu", true}}) {
    nn.def(name, [celu](nb::handle x, double alpha, bool inplace) {
      const Tensor& t = nb::cast<const Tensor&>(x);
      return same_or_new(x, celu ? F::celu(t, alpha, inplace) : F::elu(t, alpha, inplace));
    }, nb::arg("input"), nb::arg("alpha") = 1.0, nb::arg("inplace") = false);
    auto in_place = [celu](nb::handle x, double alpha) {
      const Tensor& t = nb::cast<const Tensor&>(x);
      return same_or_new(x, celu ? F::celu_(t, alpha) : F::elu_(t, alpha));
    };
    nn.def((std::string(name) + "_").c_str(), in_place, nb::arg("input"), nb::arg("alpha") = 1.0);
    if (celu) {
      m.def("celu", [](const Tensor& x, double alpha) { return F::celu(x, alpha); }, nb::arg("input"),
            nb::arg("alpha") = 1.0);
      m.def("celu_", in_place, nb::arg("input"), nb::arg("alpha") = 1.0);
    }
  }
  nn.def("hardtanh", [](nb::handle x, double lo, double hi, bool inplace) {
    return same_or_new(x, F::hardtanh(nb::cast<const Tensor&>(x), lo, hi, inplace));
  }, nb::arg("input"), nb::arg("min_val") = -1.0, nb::arg("max_val") = 1.0, nb::arg("inplace") = false);
  nn.def("hardtanh_", [](nb::handle x, double lo, double hi) {
    return same_or_new(x, F::hardtanh_(nb::cast<const Tensor&>(x), lo, hi));
  }, nb::arg("input"), nb::arg("min_val") = -1.0, nb::arg("max_val") = 1.0);
  nn.def("threshold", [](nb::handle x, double th, double value, bool inplace) {
    return same_or_new(x, F::threshold(nb::cast<const Tensor&>(x), th, value, inplace));
  }, nb::arg("input"), nb::arg("threshold"), nb::arg("value"), nb::arg("inplace") = false);
  auto threshold_ = [](nb::handle x, double th, double value) {
    return same_or_new(x, F::threshold_(nb::cast<const Tensor&>(x), th, value));
  };
  nn.def("threshold_", threshold_, nb::arg("input"), nb::arg("threshold"), nb::arg("value"));
  m.def("threshold_", threshold_, nb::arg("input"), nb::arg("threshold"), nb::arg("value"));
  m.def("threshold", [](const Tensor& x, double th, double value) { return F::threshold(x, th, value); },
        nb::arg("input"), nb::arg("threshold"), nb::arg("value"));
  nn.def("gelu", [](const Tensor& x, std::string_view approximate, nb::handle out) {
    return fn_or_out(out, [&] { return F::gelu(x, approximate); }, [&](Tensor& o) {
      EMBER_CHECK(approximate == "none" || approximate == "tanh", Error, "approximate argument must be either none or tanh.");
      gelu_out(o, x, approximate == "tanh");
    });
  }, nb::arg("input"), nb::kw_only(), nb::arg("approximate") = "none", nb::arg("out") = nb::none());
  nn.def("softplus", [](const Tensor& x, double beta, double threshold, nb::handle out) {
    return fn_or_out(out, [&] { return F::softplus(x, beta, threshold); },
                     [&](Tensor& o) { softplus_out(o, x, beta, threshold); });
  }, nb::arg("input"), nb::arg("beta") = 1.0, nb::arg("threshold") = 20.0, nb::kw_only(), nb::arg("out") = nb::none());
  nn.def("glu", &F::glu, nb::arg("input"), nb::arg("dim") = -1);
  for (nb::module_* mod : {&nn, &m}) mod->def("prelu", &F::prelu, nb::arg("input"), nb::arg("weight"));
  cls.def("prelu", &F::prelu, nb::arg("weight"));
  nn.def("softshrink", &F::softshrink, nb::arg("input"), nb::arg("lambd") = 0.5);
  for (nb::module_* mod : {&nn, &m}) mod->def("hardshrink", &F::hardshrink, nb::arg("input"), nb::arg("lambd") = 0.5);
  cls.def("hardshrink", &F::hardshrink, nb::arg("lambd") = 0.5);
  nn.def("rrelu", [](nb::handle x, double lower, double upper, bool training, bool inplace) {
    return same_or_new(x, F::rrelu(nb::cast<const Tensor&>(x), lower, upper, training, inplace));
  }, nb::arg("input"), nb::arg("lower") = 1.0 / 8, nb::arg("upper") = 1.0 / 3, nb::arg("training") = false,
     nb::arg("inplace") = false);
  auto rrelu_ = [](nb::handle x, double lower, double upper, bool training) {
    return same_or_new(x, F::rrelu_(nb::cast<const Tensor&>(x), lower, upper, training));
  };
  nn.def("rrelu_", rrelu_, nb::arg("input"), nb::arg("lower") = 1.0 / 8, nb::arg("upper") = 1.0 / 3,
         nb::arg("training") = false);
  m.def("rrelu_", rrelu_, nb::arg("input"), nb::arg("lower") = 1.0 / 8, nb::arg("upper") = 1.0 / 3,
        nb::arg("training") = false);
  m.def("rrelu", [](const Tensor& x, double lower, double upper, bool training) {
    return F::rrelu(x, lower, upper, training);
  }, nb::arg("input"), nb::arg("lower") = 1.0 / 8, nb::arg("upper") = 1.0 / 3, nb::arg("training") = false);
  // softmax, log_softmax, softmin(input, dim=None, _stacklevel=3, dtype=None)
  using Along = Tensor (*)(const Tensor&, int64_t, std::optional<ScalarType>);
  for (auto [name, fn] : {std::pair<const char*, Along>{"softmax", &F::softmax}, {"log_softmax", &F::log_softmax},
                          {"softmin", &F::softmin}}) {
    nn.def(name, [name, fn](const Tensor& x, std::optional<int64_t> dim, int64_t, std::optional<ScalarType> dtype) {
      return fn(x, softmax_dim(name, x, dim), dtype);
    }, nb::arg("input"), nb::arg("dim") = nb::none(), nb::arg("_stacklevel") = 3, nb::arg("dtype") = nb::none());
  }
}

}  // namespace ember::py
