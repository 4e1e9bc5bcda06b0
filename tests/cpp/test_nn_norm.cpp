// The nn functional ops of issue 11 (`nnnorm`) through the C++ API: normalisation with running statistics and
// gradients, dropout with torch's masks, pad, embedding, one_hot, distances and attention.
#include <gtest/gtest.h>

#include "ember/ember.h"

using namespace ember;
namespace F = ember::nn::functional;

TEST(NnNorm, BatchNormTrainingUpdatesRunningStats) {
  Tensor x = tensor<float>({1, 2, 3, 4, 5, 6, 7, 8}).view({4, 2});  // channel 0: 1 3 5 7, channel 1: 2 4 6 8
  Tensor rm = zeros({2}), rv = ones({2});
  Tensor y = F::batch_norm(x, rm, rv, std::nullopt, std::nullopt, true, 0.5, 0.0);
  EXPECT_TRUE(allclose(y.select(1, 0), tensor<float>({-1.3416408f, -0.4472136f, 0.4472136f, 1.3416408f})));
  EXPECT_TRUE(allclose(rm, tensor<float>({2.0f, 2.5f})));              // 0.5 * mean
  EXPECT_TRUE(allclose(rv, tensor<float>({0.5f + 0.5f * 20.0f / 3, 0.5f + 0.5f * 20.0f / 3})));  // unbiased var
  Tensor eval = F::batch_norm(x, rm, rv, std::nullopt, std::nullopt, false, 0.1, 0.0);
  EXPECT_TRUE(allclose(eval.select(0, 0), (tensor<float>({1, 2}) - rm) / sqrt(rv)));
  EXPECT_THROW(F::batch_norm(x.narrow(0, 0, 1), std::nullopt, std::nullopt, std::nullopt, std::nullopt, true), ValueError);
  EXPECT_THROW(F::batch_norm(x, zeros({3}), ones({2})), Error);
}

TEST(NnNorm, NormsAndGradients) {
  Tensor x = randn({3, 4, 5}).requires_grad_(true);
  Tensor w = ones({5}).requires_grad_(true);
  Tensor y = F::layer_norm(x, {5}, w);
  EXPECT_EQ(y.grad_fn()->name(), "NativeLayerNormBackward0");
  EXPECT_TRUE(allclose(y.detach().mean({-1}), zeros({3, 4}), 1e-5, 1e-5));
  y.sum().backward();
  EXPECT_TRUE(allclose(x.grad(), zeros({3, 4, 5}), 1e-5, 1e-5));  // a normalised row's sum is constant
  EXPECT_EQ(F::group_norm(x, 2).grad_fn()->name(), "NativeGroupNormBackward0");
  EXPECT_EQ(F::batch_norm(x, std::nullopt, std::nullopt, std::nullopt, std::nullopt, true).grad_fn()->name(),
            "NativeBatchNormBackward0");
  EXPECT_TRUE(allclose(F::instance_norm(x.detach()).std({-1}, 0), ones({3, 4}), 1e-3, 1e-3));
  EXPECT_TRUE(allclose(F::rms_norm(x.detach(), {5}).pow(2).mean({-1}), ones({3, 4}), 1e-4, 1e-4));
  EXPECT_THROW(F::layer_norm(x, {4}), Error);
}

TEST(NnNorm, DropoutMasks) {
  manual_seed(0);
  Tensor y = F::dropout(ones({1000}), 0.25);
  Tensor kept = ne(y, zeros({}));
  EXPECT_TRUE(allclose(masked_select(y, kept), full({1}, 1.0f / 0.75f).expand({masked_select(y, kept).numel()})));
  manual_seed(0);
  EXPECT_TRUE(equal(F::dropout(ones({1000}), 0.25), y));  // the same seed, the same mask
  Tensor x = ones({2, 3});
  EXPECT_TRUE(F::dropout(x, 0.5, false).is_same(x));
  Tensor channels = F::dropout2d(ones({4, 8, 3, 3}), 0.5);
  EXPECT_TRUE(equal(channels.amax({2, 3}), channels.amin({2, 3})));  // whole channels kept or dropped
  EXPECT_THROW(F::dropout(x, 1.5), ValueError);
}

TEST(NnNorm, PadEmbeddingOneHotDistances) {
  Tensor x = arange(3).to(kFloat32).view({1, 3});
  EXPECT_TRUE(equal(F::pad(x, {2, 1}, "reflect"), tensor<float>({2, 1, 0, 1, 2, 1}).view({1, 6})));
  EXPECT_TRUE(equal(F::pad(x, {1, 1}, "replicate"), tensor<float>({0, 0, 1, 2, 2}).view({1, 5})));
  EXPECT_TRUE(equal(F::pad(x, {1, 1}, "circular"), tensor<float>({2, 0, 1, 2, 0}).view({1, 5})));
  EXPECT_TRUE(equal(F::pad(x, {-1, 1}, "constant", 9.0), tensor<float>({1, 2, 9}).view({1, 3})));
  EXPECT_THROW(F::pad(x, {1, 1}, "wrap"), NotImplementedError);
  Tensor w = arange(6).to(kFloat32).view({3, 2}).requires_grad_(true);
  Tensor e = F::embedding(tensor<int64_t>({2, 0, 2}), w, 0);
  EXPECT_TRUE(equal(e.detach(), tensor<float>({4, 5, 0, 1, 4, 5}).view({3, 2})));
  e.sum().backward();
  EXPECT_TRUE(equal(w.grad(), tensor<float>({0, 0, 0, 0, 2, 2}).view({3, 2})));  // padding_idx 0: no gradient
  EXPECT_TRUE(equal(F::one_hot(tensor<int64_t>({2, 0})), tensor<int64_t>({0, 0, 1, 1, 0, 0}).view({2, 3})));
  Tensor a = tensor<float>({3, 4}).view({1, 2});
  EXPECT_TRUE(allclose(F::normalize(a), tensor<float>({0.6f, 0.8f}).view({1, 2})));
  EXPECT_TRUE(allclose(F::cosine_similarity(a, a), ones({1})));
  EXPECT_TRUE(allclose(F::pairwise_distance(a, zeros({1, 2}), 2.0, 0.0), full({1}, 5.0f)));
}

TEST(NnNorm, ScaledDotProductAttention) {
  Tensor q = randn({2, 3, 4, 8}), k = randn({2, 3, 5, 8}), v = randn({2, 3, 5, 8});
  Tensor expected = matmul(softmax(matmul(q, k.transpose(-2, -1)) / Scalar(std::sqrt(8.0)), -1), v);
  EXPECT_TRUE(allclose(F::scaled_dot_product_attention(q, k, v), expected, 1e-5, 1e-5));
  Tensor causal = F::scaled_dot_product_attention(q, k.narrow(2, 0, 4), v.narrow(2, 0, 4), std::nullopt, 0.0, true);
  EXPECT_TRUE(allclose(causal.select(2, 0), v.select(2, 0), 1e-5, 1e-5));  // the first query sees the first key only
}
