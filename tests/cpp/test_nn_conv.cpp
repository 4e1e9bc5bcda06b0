// Convolution and pooling through the C++ API (hand-computed values; the Python tests compare with torch).
#include <gtest/gtest.h>

#include "ember/ember.h"

using namespace ember;
namespace F = ember::nn::functional;

TEST(NnConv, Conv2dSumsWindowsFloatAndDouble) {
  for (ScalarType t : {kFloat32, kFloat64}) {
    Tensor x = arange(16).to(t).reshape({1, 1, 4, 4}), w = ones({1, 1, 2, 2}, TensorOptions(t));
    Tensor y = F::conv2d(x, w, tensor<float>({1}).to(t), {2});
    EXPECT_TRUE(equal(y, tensor<double>({11, 19, 43, 51}).to(t).reshape({1, 1, 2, 2})));
    EXPECT_EQ(F::conv2d(x, w, {}, {1}, "same").sizes().vec(), x.sizes().vec());
  }
  EXPECT_THROW(F::conv2d(ones({4, 4}), ones({1, 1, 2, 2})), Error);
  EXPECT_THROW(F::conv2d(ones({1, 2, 4, 4}), ones({1, 1, 2, 2})), Error);
}

TEST(NnConv, GradientsAndTransposed) {
  Tensor x = ones({1, 2, 3}).requires_grad_(), w = ones({4, 2, 2}).requires_grad_();
  Tensor y = F::conv1d(x, w);
  EXPECT_EQ(y.grad_fn()->name(), "ConvolutionBackward0");
  y.sum().backward();
  EXPECT_TRUE(equal(x.grad(), tensor<float>({4, 8, 4, 4, 8, 4}).reshape({1, 2, 3})));
  EXPECT_TRUE(equal(w.grad(), full({4, 2, 2}, 2.0f)));
  // the transposed convolution is conv1d's input gradient
  Tensor g = F::conv_transpose1d(ones({1, 4, 2}), ones({4, 2, 2}));
  EXPECT_TRUE(equal(g, x.grad()));
}

TEST(NnConv, Pooling) {
  Tensor x = arange(16).to(kFloat32).reshape({1, 4, 4});
  auto [v, i] = F::max_pool2d_with_indices(x, {2});
  EXPECT_TRUE(equal(v, tensor<float>({5, 7, 13, 15}).reshape({1, 2, 2})));
  EXPECT_TRUE(equal(i, tensor<int64_t>({5, 7, 13, 15}).reshape({1, 2, 2})));
  EXPECT_TRUE(equal(F::avg_pool2d(x, {2}), tensor<float>({2.5, 4.5, 10.5, 12.5}).reshape({1, 2, 2})));
  EXPECT_TRUE(equal(F::adaptive_avg_pool2d(x, {1, 2}), tensor<float>({6.5, 8.5}).reshape({1, 1, 2})));
  EXPECT_TRUE(equal(F::adaptive_max_pool1d(x, {1}).first, tensor<float>({3, 7, 11, 15}).reshape({1, 4, 1})));
  EXPECT_EQ(F::max_pool1d(ones({2, 9}), {2}, {}, {0}, {1}, true).size(-1), 5);
  EXPECT_THROW(F::max_pool2d(x, {20}), Error);
}
