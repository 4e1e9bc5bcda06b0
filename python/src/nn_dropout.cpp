// ember.nn.functional's dropout functions (ember/nn/dropout.h) and torch's dropout, feature_dropout, alpha_dropout,
// feature_alpha_dropout with their in-place forms. An input returned unchanged (eval, p = 0) is the same object.
#include "bindings.h"
#include "ember/nn/dropout.h"

namespace ember::py {

namespace {

using namespace nb::literals;
using Functional = Tensor (*)(const Tensor&, double, bool, bool);

}  // namespace

void init_nn_dropout(nb::module_& m, nb::module_& nn) {
  namespace F = nn::functional;
  auto functional = [&](const char* name, Functional fn, bool training) {
    nn.def(name, [fn](nb::handle self, double p, bool training, bool inplace) {
      return same_or_new(self, fn(nb::cast<const Tensor&>(self), p, training, inplace));
    }, "input"_a, "p"_a = 0.5, "training"_a = training, "inplace"_a = false);
  };
  functional("dropout", &F::dropout, true);
  functional("dropout1d", &F::dropout1d, true);
  functional("dropout2d", &F::dropout2d, true);
  functional("dropout3d", &F::dropout3d, true);
  functional("alpha_dropout", &F::alpha_dropout, false);
  functional("feature_alpha_dropout", &F::feature_alpha_dropout, false);
  auto plain = [&](const char* name, Tensor (*fn)(const Tensor&, double, bool), Tensor& (*fn_)(Tensor&, double, bool)) {
    m.def(name, [fn](nb::handle self, double p, bool train) {
      return same_or_new(self, fn(nb::cast<const Tensor&>(self), p, train));
    }, "input"_a, "p"_a, "train"_a);
    m.def((std::string(name) + "_").c_str(), [fn_](nb::handle self, double p, bool train) {
      fn_(nb::cast<Tensor&>(self), p, train);
      return nb::borrow(self);
    }, "input"_a, "p"_a, "train"_a);
  };
  plain("dropout", &ember::dropout, &ember::dropout_);
  plain("feature_dropout", &ember::feature_dropout, &ember::feature_dropout_);
  plain("alpha_dropout", &ember::alpha_dropout, &ember::alpha_dropout_);
  plain("feature_alpha_dropout", &ember::feature_alpha_dropout, &ember::feature_alpha_dropout_);
}

}  // namespace ember::py
