// The C++ face of ember::nn: a user's model built as in libtorch, trained a step, saved and loaded.
#include <gtest/gtest.h>

#include "ember/ember.h"

using namespace ember;

namespace {

struct Net : nn::Module {
  Net() : nn::Module("Net") {
    fc1 = register_module("fc1", std::make_shared<nn::Linear>(4, 8));
    body = register_module("body", std::make_shared<nn::Sequential>(std::vector<nn::ModulePtr>{
                                       std::make_shared<nn::Identity>(), std::make_shared<nn::Linear>(8, 2)}));
    register_buffer("steps", zeros({1}));
  }
  Tensor forward(const Tensor& x) override { return (*body)(relu((*fc1)(x))); }
  std::shared_ptr<nn::Linear> fc1;
  std::shared_ptr<nn::Sequential> body;
};

std::vector<std::string> keys(const nn::StateDict& sd) {
  std::vector<std::string> out;
  for (auto& [k, v] : sd) out.push_back(k);
  return out;
}

}  // namespace

TEST(NnModule, RegistersInOrderAndTrains) {
  manual_seed(0);
  auto model = std::make_shared<Net>();
  EXPECT_EQ(keys(model->named_parameters()),
            (std::vector<std::string>{"fc1.weight", "fc1.bias", "body.1.weight", "body.1.bias"}));
  EXPECT_EQ(keys(model->state_dict()),
            (std::vector<std::string>{"steps", "fc1.weight", "fc1.bias", "body.1.weight", "body.1.bias"}));
  EXPECT_EQ(model->named_modules().size(), 5u);
  EXPECT_EQ(model->repr(),
            "Net(\n  (fc1): Linear(in_features=4, out_features=8, bias=True)\n  (body): Sequential(\n"
            "    (0): Identity()\n    (1): Linear(in_features=8, out_features=2, bias=True)\n  )\n)");

  Tensor x = randn({16, 4});
  Tensor before = model->forward(x).square().mean();
  before.backward();
  for (auto& p : model->parameters()) EXPECT_TRUE(p.grad().defined());
  {
    NoGradGuard no_grad;
    for (auto& p : model->parameters()) p -= 0.1 * p.grad();
  }
  model->zero_grad();
  EXPECT_FALSE(model->fc1->weight.grad().defined());
  EXPECT_LT(model->forward(x).square().mean().item<double>(), before.item<double>());
  model->eval();
  EXPECT_FALSE(model->body->at(1)->is_training());
}

TEST(NnModule, StateDictRoundTrip) {
  manual_seed(1);
  auto a = std::make_shared<Net>();
  manual_seed(2);
  auto b = std::make_shared<Net>();
  Tensor x = randn({3, 4});
  EXPECT_FALSE((*a)(x).equal((*b)(x)));
  nn::IncompatibleKeys k = b->load_state_dict(a->state_dict());
  EXPECT_TRUE(k.missing_keys.empty() && k.unexpected_keys.empty());
  EXPECT_TRUE((*a)(x).equal((*b)(x)));  // the layers read their (loaded) slots

  nn::StateDict partial = a->state_dict();
  partial.erase(partial.begin());
  partial.emplace_back("fc1.extra", zeros({1}));
  EXPECT_THROW(b->load_state_dict(partial), Error);
  k = b->load_state_dict(partial, false);
  EXPECT_EQ(k.missing_keys, std::vector<std::string>{"steps"});
  EXPECT_EQ(k.unexpected_keys, std::vector<std::string>{"fc1.extra"});
  partial = a->state_dict();
  partial[1].second = zeros({2, 2});
  try {
    b->load_state_dict(partial);
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()),
              "Error(s) in loading state_dict for Net:\n\tsize mismatch for fc1.weight: copying a param with shape "
              "torch.Size([2, 2]) from checkpoint, the shape in current model is torch.Size([8, 4]).");
  }
}

TEST(NnModule, HooksDtypeAndInit) {
  manual_seed(0);
  auto lin = std::make_shared<nn::Linear>(3, 2);
  Tensor w = lin->weight;
  auto h = lin->register_forward_hook([](nn::Module&, const Tensor&, const Tensor& y) { return y * 0; });
  EXPECT_EQ((*lin)(ones({1, 3})).abs().sum().item<double>(), 0.0);
  h.remove();
  EXPECT_NE((*lin)(ones({1, 3})).abs().sum().item<double>(), 0.0);
  lin->to(kFloat64);
  EXPECT_TRUE(w.is_same(lin->weight));
  EXPECT_EQ(w.dtype(), kFloat64);

  Tensor t = empty({3, 5});
  nn::init::xavier_uniform_(t);
  double bound = std::sqrt(6.0 / 8);
  EXPECT_LE(t.abs().max().item<double>(), bound);
  EXPECT_DOUBLE_EQ(nn::init::calculate_gain("tanh"), 5.0 / 3);
  EXPECT_THROW(nn::init::calculate_fan_in_and_fan_out(empty({3})), ValueError);
  Tensor q = nn::init::orthogonal_(empty({4, 4}));
  EXPECT_TRUE(q.mm(q.t()).allclose(eye(4), 1e-5, 1e-5));

  auto seq = std::make_shared<nn::Sequential>();
  seq->push_back(std::make_shared<nn::Identity>());
  seq->insert(0, std::make_shared<nn::Flatten>());
  EXPECT_EQ(seq->at(-1)->name(), "Identity");
  EXPECT_THROW(seq->at(2), IndexError);
}
