// nn activations and losses through the C++ API (ember::nn::functional): values, in-place forms, gradients with
// torch's node names, reductions and errors.
#include <gtest/gtest.h>

#include "ember/ember.h"

using namespace ember;
namespace F = ember::nn::functional;

namespace {
bool close(const Tensor& a, const Tensor& b, double tol = 1e-6) { return allclose(a, b, tol, tol); }
}  // namespace

TEST(NnActivation, Values) {
  Tensor x = tensor<float>({-2, -0.5, 0, 0.5, 3});
  EXPECT_TRUE(equal(F::relu(x), tensor<float>({0, 0, 0, 0.5, 3})));
  EXPECT_TRUE(equal(F::relu6(x * 3), tensor<float>({0, 0, 0, 1.5, 6})));
  EXPECT_TRUE(close(F::leaky_relu(x, 0.1), tensor<float>({-0.2f, -0.05f, 0, 0.5, 3})));
  EXPECT_TRUE(close(F::elu(x), tensor<float>({std::expm1(-2.0f), std::expm1(-0.5f), 0, 0.5, 3})));
  EXPECT_TRUE(equal(F::hardtanh(x, -1, 1), tensor<float>({-1, -0.5, 0, 0.5, 1})));
  EXPECT_TRUE(equal(F::threshold(x, 0.1, 20), tensor<float>({20, 20, 20, 0.5, 3})));
  EXPECT_TRUE(close(F::hardsigmoid(x), tensor<float>({1.0f / 6, 2.5f / 6, 0.5, 3.5f / 6, 1})));
  EXPECT_TRUE(close(F::softshrink(x, 0.5), tensor<float>({-1.5, 0, 0, 0, 2.5})));
  EXPECT_TRUE(equal(F::hardshrink(x, 0.5), tensor<float>({-2, 0, 0, 0, 3})));
  EXPECT_TRUE(close(F::logsigmoid(x), log(sigmoid(x))));
  EXPECT_TRUE(close(F::softmin(x, 0), softmax(-x, 0)));
  EXPECT_TRUE(close(F::glu(tensor<float>({1, 2, 0, 0}).view({1, 4}), 1), tensor<float>({0.5, 1}).view({1, 2})));
  EXPECT_TRUE(close(F::prelu(x.view({1, 5}), tensor<float>({0.25})), F::leaky_relu(x, 0.25).view({1, 5})));
  EXPECT_TRUE(equal(F::hardtanh(tensor<int64_t>({-5, 0, 5}), -2, 2), tensor<int64_t>({-2, 0, 2})));
}

TEST(NnActivation, InPlaceWritesTheInput) {
  Tensor x = tensor<float>({-2, 1});
  Tensor r = F::leaky_relu(x, 0.5, true);
  EXPECT_TRUE(r.is_same(x));
  EXPECT_TRUE(equal(x, tensor<float>({-1, 1})));
  F::relu_(x);
  EXPECT_TRUE(equal(x, tensor<float>({0, 1})));
  Tensor leaf = ones({2}).requires_grad_();
  EXPECT_THROW(F::relu_(leaf), Error);  // a leaf that requires grad
}

TEST(NnActivation, GradientsAndNodes) {
  Tensor x = tensor<double>({-1.5, 0.5, 2}).requires_grad_();
  Tensor y = F::elu(x, 0.5);
  EXPECT_EQ(y.grad_fn()->name(), "EluBackward0");
  y.sum().backward();
  EXPECT_TRUE(close(x.grad(), tensor<double>({0.5 * std::exp(-1.5), 1, 1}), 1e-12));
  Tensor h = x * 1;
  F::hardtanh_(h, -1, 1);
  EXPECT_EQ(h.grad_fn()->name(), "HardtanhBackward0");
  EXPECT_EQ(F::leaky_relu(x * 1, 0.1, true).grad_fn()->name(), "LeakyReluBackward1");
  EXPECT_EQ(F::gelu(x, "tanh").grad_fn()->name(), "GeluBackward0");
  EXPECT_EQ(F::mish(x).grad_fn()->name(), "MishBackward0");
}

TEST(NnActivation, Errors) {
  EXPECT_THROW(F::leaky_relu(tensor<int64_t>({1})), NotImplementedError);
  EXPECT_THROW(F::hardtanh(ones({2}), 2, 1), ValueError);
  EXPECT_THROW(F::glu(ones({3}), 0), Error);
  EXPECT_THROW(F::softshrink(ones({2}), -1), Error);
  EXPECT_THROW(F::gelu(ones({2}), "fast"), Error);
}

TEST(NnLoss, CrossEntropyAndNll) {
  Tensor x = tensor<double>({1, 2, 3, 1, 1, 1}).view({2, 3}).requires_grad_();
  Tensor t = tensor<int64_t>({2, 0});
  Tensor ce = F::cross_entropy(x, t);
  double expected = (-(3 - std::log(std::exp(1) + std::exp(2) + std::exp(3))) + std::log(3.0)) / 2;
  EXPECT_NEAR(ce.item().to<double>(), expected, 1e-12);
  EXPECT_EQ(ce.grad_fn()->name(), "NllLossBackward0");
  EXPECT_EQ(ce.grad_fn()->next_edges[0].fn->name(), "LogSoftmaxBackward0");
  ce.backward();
  EXPECT_TRUE(close(x.grad(), (softmax(x.detach(), 1) - tensor<double>({0, 0, 1, 1, 0, 0}).view({2, 3})) / 2, 1e-12));
  EXPECT_TRUE(close(F::nll_loss(log_softmax(x.detach(), 1), t), ce.detach(), 1e-12));
  // ignore_index, weights, reductions
  Tensor w = tensor<double>({1, 2, 3});
  Tensor none = F::cross_entropy(x.detach(), t, w, 0, Reduction::None);
  EXPECT_EQ(none.sizes()[0], 2);
  EXPECT_EQ(none[1].item().to<double>(), 0.0);
  EXPECT_NEAR(F::cross_entropy(x.detach(), t, w, 0, Reduction::Sum).item().to<double>(),
              none.sum().item().to<double>(), 1e-12);
  // a class index out of range raises, never reads out of bounds
  EXPECT_THROW(F::cross_entropy(x.detach(), tensor<int64_t>({3, 0})), IndexError);
  EXPECT_THROW(F::nll_loss(x.detach(), tensor<int64_t>({-1, 0})), IndexError);
  EXPECT_THROW(F::nll_loss(x.detach(), tensor<int64_t>({0})), ValueError);
}

TEST(NnLoss, PointwiseLosses) {
  Tensor a = tensor<float>({0, 1, 4}), b = tensor<float>({1, 1, 1});
  EXPECT_NEAR(F::mse_loss(a, b).item().to<double>(), 10.0 / 3, 1e-6);
  EXPECT_NEAR(F::l1_loss(a, b, Reduction::Sum).item().to<double>(), 4.0, 1e-6);
  EXPECT_TRUE(close(F::smooth_l1_loss(a, b, Reduction::None), tensor<float>({0.5, 0, 2.5})));
  EXPECT_TRUE(close(F::huber_loss(a, b, Reduction::None, 2.0), tensor<float>({0.5, 0, 4})));
  Tensor p = tensor<float>({0.25, 0.5}), y = tensor<float>({1, 0});
  EXPECT_NEAR(F::binary_cross_entropy(p, y).item().to<double>(), -(std::log(0.25) + std::log(0.5)) / 2, 1e-6);
  Tensor logits = tensor<float>({0, 2}), targets = tensor<float>({1, 1});
  EXPECT_NEAR(F::binary_cross_entropy_with_logits(logits, targets, std::nullopt, Reduction::Sum).item().to<double>(),
              std::log(2.0) + std::log1p(std::exp(-2.0)), 1e-6);
  EXPECT_THROW(F::binary_cross_entropy(tensor<float>({1.5}), tensor<float>({1})), Error);
  EXPECT_THROW(F::huber_loss(a, b, Reduction::Mean, 0.0), Error);
  EXPECT_EQ(nn::reduction_from_string("sum"), Reduction::Sum);
  EXPECT_THROW(nn::reduction_from_string("avg"), ValueError);
  EXPECT_EQ(nn::legacy_reduction(false, std::nullopt, false), "sum");
}

TEST(NnLoss, Composites) {
  Tensor x = tensor<double>({1, 0, 0, 1}).view({2, 2});
  EXPECT_NEAR(F::cosine_embedding_loss(x, x, tensor<int64_t>({1, 1})).item().to<double>(), 0.0, 1e-9);
  EXPECT_NEAR(F::margin_ranking_loss(tensor<double>({1}), tensor<double>({2}), tensor<double>({1})).item().to<double>(),
              1.0, 1e-12);
  EXPECT_NEAR(F::kl_div(log(tensor<double>({0.5, 0.5})), tensor<double>({0.5, 0.5}), "batchmean").item().to<double>(),
              0.0, 1e-12);
  EXPECT_GT(F::triplet_margin_loss(x, x, x).item().to<double>(), 0.99);
  EXPECT_NEAR(F::multi_margin_loss(tensor<double>({0, 1, 0.5}).view({1, 3}), tensor<int64_t>({1})).item().to<double>(),
              (0.0 + 0.5) / 3, 1e-12);
  EXPECT_NEAR(F::gaussian_nll_loss(x, x, ones({2, 2}, TensorOptions(kFloat64))).item().to<double>(), 0.0, 1e-12);
}
