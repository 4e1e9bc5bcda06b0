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
  EXPECT_LT(train([](auto p) { return optim::SGD(p, {{"lr", 0.1}, {"momentum", 0.9}}); }, 200), 1e-6);
}

TEST(Optim, AdamAndAdamWFitLinearRegression) {
  EXPECT_LT(train([](auto p) { return optim::Adam(p, {{"lr", 0.05}}); }, 500), 1e-4);
  EXPECT_LT(train([](auto p) { return optim::AdamW(p, {{"lr", 0.05}, {"weight_decay", 0.0}}); }, 500), 1e-4);
}

TEST(Optim, EveryOptimizerFitsLinearRegression) {
  EXPECT_LT(train([](auto p) { return optim::Adagrad(p, {{"lr", 0.5}}); }, 500), 1e-4);
  EXPECT_LT(train([](auto p) { return optim::RMSprop(p, {{"lr", 0.01}, {"centered", true}}); }, 500), 1e-3);
  EXPECT_LT(train([](auto p) { return optim::Adamax(p, {{"lr", 0.05}}); }, 500), 1e-4);
  EXPECT_LT(train([](auto p) { return optim::NAdam(p, {{"lr", 0.05}}); }, 500), 1e-4);
  EXPECT_LT(train([](auto p) { return optim::RAdam(p, {{"lr", 0.05}}); }, 500), 1e-4);
  EXPECT_LT(train([](auto p) { return optim::Adadelta(p, {{"lr", 5.0}}); }, 500), 1e-2);  // slow: from 13 to < 0.01
  EXPECT_LT(train([](auto p) { return optim::ASGD(p, {{"lr", 0.1}}); }, 300), 1e-4);
  EXPECT_LT(train([](auto p) { return optim::Rprop(p, {{"lr", 0.01}}); }, 300), 1e-4);
  EXPECT_LT(train([](auto p) { return optim::Adafactor(p, {{"lr", 0.05}, {"weight_decay", 0.0}}); }, 500), 1e-2);
}

TEST(Optim, MuonTakesMatricesOnly) {
  EXPECT_THROW(optim::Muon(std::vector<Tensor>{nn::make_parameter(ones({3}))}), ValueError);
  Tensor w = nn::make_parameter(ones({4, 2}));
  optim::Muon opt(std::vector<Tensor>{w}, {{"lr", 0.1}, {"weight_decay", 0.0}});
  w.set_grad(ones({4, 2}));
  opt.step();
  EXPECT_LT(w.max().item<float>(), 1.f);  // moved against the gradient
}

TEST(Optim, SparseEmbeddingGradientsStepOnlyTheirRows) {
  // nn.Embedding(sparse=True) gives a sparse COO gradient; SGD, Adagrad and SparseAdam touch only its rows
  for (int which = 0; which < 3; ++which) {
    manual_seed(0);
    nn::Embedding emb(10, 3, std::nullopt, std::nullopt, 2.0, false, /*sparse=*/true);
    Tensor before = emb.weight.detach().clone();
    std::vector<Tensor> params{emb.weight};
    std::unique_ptr<optim::Optimizer> opt;
    if (which == 0) opt = std::make_unique<optim::SGD>(params, optim::Dict{{"lr", 0.1}, {"momentum", 0.9}});
    if (which == 1) opt = std::make_unique<optim::Adagrad>(params, optim::Dict{{"lr", 0.1}});
    if (which == 2) opt = std::make_unique<optim::SparseAdam>(params, optim::Dict{{"lr", 0.1}});
    for (int step = 0; step < 3; ++step) {
      opt->zero_grad();
      emb.forward(tensor<int64_t>({1, 4, 4})).sum().backward();
      EXPECT_TRUE(emb.weight.grad().is_sparse());
      opt->step();
    }
    Tensor changed = (emb.weight.detach() != before).any({1}).to(kInt64);
    EXPECT_TRUE(equal(changed, tensor<int64_t>({0, 1, 0, 0, 1, 0, 0, 0, 0, 0})));
  }
  Tensor w = nn::make_parameter(ones({4, 2}));
  optim::Adam adam(std::vector<Tensor>{w});
  w.set_grad(sparse_coo_tensor(tensor<int64_t>({0}).reshape({1, 1}), ones({1, 2}), IntArrayRef({4, 2})));
  EXPECT_THROW(adam.step(), Error);  // "Adam does not support sparse gradients, please consider SparseAdam instead"
  EXPECT_TRUE(equal(w.detach(), ones({4, 2})));
}

TEST(Optim, StateAndParamGroups) {
  Tensor w = nn::make_parameter(ones({3}));
  optim::Adam opt(std::vector<Tensor>{w}, {{"lr", 0.1}});
  w.set_grad(ones({3}));
  opt.step();
  EXPECT_FLOAT_EQ(std::get<Tensor>(opt.state(w)["step"]).item<float>(), 1.f);
  EXPECT_NEAR(w[0].item<float>(), 0.9f, 1e-6);  // Adam's first step moves by lr
  (*opt.param_groups()[0])["lr"] = 0.0;
  opt.step();
  EXPECT_NEAR(w[0].item<float>(), 0.9f, 1e-6);
  EXPECT_THROW(opt.add_param_group({{"params", std::vector<Tensor>{w}}}), ValueError);  // already in a group
  EXPECT_THROW(optim::SGD(std::vector<Tensor>{}), ValueError);
  EXPECT_THROW(optim::SGD(std::vector<Tensor>{nn::make_parameter(ones({1}))}, {{"lr", -1.0}}), ValueError);
  EXPECT_THROW(optim::SGD(std::vector<Tensor>{nn::make_parameter(ones({1}))}, {{"lrr", 1.0}}), TypeError);
}

TEST(Optim, StateDictRoundTrip) {
  Tensor w = nn::make_parameter(ones({3})), v = nn::make_parameter(ones({3}));
  optim::RMSprop a(std::vector<Tensor>{w}, {{"momentum", 0.5}}), b(std::vector<Tensor>{v});
  w.set_grad(full({3}, 0.5));
  a.step();
  optim::StateDict sd = a.state_dict();
  ASSERT_EQ(sd.state.size(), 1u);
  EXPECT_EQ(sd.param_groups[0].second, std::vector<int64_t>{0});
  for (auto& [i, s] : sd.state)  // loaded state aliases the dict's tensors (as torch): give b its own
    for (const auto& [k, x] : s) s[k] = std::get<Tensor>(x).clone();
  b.load_state_dict(sd);
  EXPECT_EQ(b.param_groups()[0]->number("momentum"), 0.5);
  {
    autograd::NoGradGuard no_grad;
    v.copy_(w.detach());
  }
  w.set_grad(full({3}, 0.25));
  v.set_grad(full({3}, 0.25));
  a.step();
  b.step();
  EXPECT_TRUE(equal(w, v));
}

TEST(Optim, LBFGSFitsLinearRegression) {
  manual_seed(0);
  Tensor x = randn({64, 2});
  Tensor y = x.matmul(tensor<float>({2.f, -3.f}).reshape({2, 1})) + 0.5;
  Tensor w = nn::make_parameter(zeros({2, 1})), b = nn::make_parameter(zeros({1}));
  optim::LBFGS opt(std::vector<Tensor>{w, b});
  auto closure = [&] {
    opt.zero_grad();
    Tensor diff = x.matmul(w) + b - y;
    Tensor l = (diff * diff).mean();
    l.backward();
    return l;
  };
  for (int i = 0; i < 3; ++i) opt.step(closure);
  EXPECT_LT(closure().item<float>(), 1e-8);
  EXPECT_EQ(opt.param_groups()[0]->number("max_eval"), 25);
  EXPECT_THROW(opt.step({}), TypeError);  // a closure is required
}
