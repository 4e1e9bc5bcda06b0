// ember::optim from C++: a tiny linear regression trained with SGD, Adam and AdamW, param groups and errors.
#include <gtest/gtest.h>

#include "ember/ember.h"

using namespace ember;

namespace {

// Fits y = x @ [2, -3] + 0.5 with `make(params)`'s optimizer; returns the final loss.
template <typename Make>
double train(Make make, int steps) {
  manual_seed(0);
  Tensor x = randn({64, 2});
  Tensor y = x.matmul(tensor<float>({2.f, -3.f}).reshape({2, 1})) + 0.5;
  Tensor w = nn::make_parameter(zeros({2, 1})), b = nn::make_parameter(zeros({1}));
  auto opt = make(std::vector<Tensor>{w, b});
  double loss = 0;
  for (int i = 0; i < steps; ++i) {
    opt.zero_grad();
    Tensor diff = x.matmul(w) + b - y;
    Tensor l = (diff * diff).mean();
    l.backward();
    opt.step();
    loss = l.item<float>();
  }
  return loss;
}

}  // namespace

TEST(Optim, SGDFitsLinearRegression) {
  EXPECT_LT(train([](auto p) { return optim::SGD(p, {.lr = 0.1, .momentum = 0.9}); }, 200), 1e-6);
}

TEST(Optim, AdamAndAdamWFitLinearRegression) {
  EXPECT_LT(train([](auto p) { return optim::Adam(p, {.lr = 0.05}); }, 500), 1e-4);
  EXPECT_LT(train([](auto p) { return optim::AdamW(p, optim::adamw_options({.lr = 0.05, .weight_decay = 0})); }, 500),
            1e-4);
}

TEST(Optim, StateAndParamGroups) {
  Tensor w = nn::make_parameter(ones({3}));
  optim::Adam opt(std::vector<Tensor>{w}, {.lr = 0.1});
  w.set_grad(ones({3}));
  opt.step();
  EXPECT_FLOAT_EQ(opt.state(w)["step"].item<float>(), 1.f);
  EXPECT_NEAR(w[0].item<float>(), 0.9f, 1e-6);  // Adam's first step moves by lr
  opt.param_groups()[0].options["lr"] = 0.0;
  opt.step();
  EXPECT_NEAR(w[0].item<float>(), 0.9f, 1e-6);
  EXPECT_THROW(opt.add_param_group({{w}, {}}), ValueError);  // already in a group
  EXPECT_THROW(optim::SGD(std::vector<Tensor>{}), ValueError);
  EXPECT_THROW(optim::SGD(std::vector<Tensor>{nn::make_parameter(ones({1}))}, {.lr = -1}), ValueError);
}
