// Quantized tensors through the C++ API (torch's rounding is compared exhaustively in tests/python/test_quantized.py).
#include <gtest/gtest.h>

#include "ember/ember.h"

using namespace ember;

TEST(Quantized, PerTensorRoundTrip) {
  Tensor x = tensor<float>({-1.0f, 0.5f, 2.0f, 0.25f, 0.35f, 100.0f});
  Tensor q = quantize_per_tensor(x, 0.1, 3, kQUInt8);
  EXPECT_EQ(q.dtype(), kQUInt8);
  EXPECT_TRUE(q.is_quantized());
  EXPECT_EQ(q_scale(q), 0.1);
  EXPECT_EQ(q_zero_point(q), 3);
  EXPECT_EQ(qscheme(q), QScheme::PerTensorAffine);
  // round half to even after adding the zero point: 0.25 / 0.1 + 3 = 5.5 -> 6, 0.35 / 0.1 + 3 = 6.5 -> 6
  EXPECT_TRUE(equal(int_repr(q), tensor<uint8_t>({0, 8, 23, 6, 6, 255})));
  EXPECT_TRUE(allclose(dequantize(q), tensor<float>({-0.3f, 0.5f, 2.0f, 0.3f, 0.3f, 25.2f})));
  EXPECT_NEAR(q[1].item().to<double>(), 0.5, 1e-6);
}

TEST(Quantized, PerChannel) {
  Tensor x = tensor<float>({1, 2, 3, 4, 5, 6}).reshape({2, 3});
  Tensor q = quantize_per_channel(x, tensor<double>({0.5, 2.0}), tensor<int64_t>({0, -1}), 0, kQInt8);
  EXPECT_TRUE(equal(int_repr(q), tensor<int8_t>({2, 4, 6, 1, 2, 2}).reshape({2, 3})));
  EXPECT_EQ(q_per_channel_axis(q), 0);
  EXPECT_TRUE(equal(q_per_channel_zero_points(q), tensor<int64_t>({0, -1})));
  EXPECT_THROW(q_scale(q), Error);
  EXPECT_EQ(q_per_channel_axis(q.t()), 1);  // a view keeps each element's channel
  EXPECT_EQ(q_scale(q[1]), 2.0);            // one channel: per tensor
  EXPECT_THROW(q.view({6}), Error);         // the channels would mix
}

TEST(Quantized, ViewsKeepTheQuantizerAndElementOpsRefuse) {
  Tensor q = quantize_per_tensor(arange(6).to(kFloat32).reshape({2, 3}), 0.5, 0, kQInt32);
  Tensor v = q.t()[1];
  EXPECT_EQ(v.dtype(), kQInt32);
  EXPECT_EQ(q_scale(v), 0.5);
  EXPECT_TRUE(equal(int_repr(v), tensor<int32_t>({2, 8})));
  EXPECT_TRUE(equal(int_repr(q.t().contiguous()), tensor<int32_t>({0, 6, 2, 8, 4, 10}).reshape({3, 2})));
  EXPECT_THROW(q.sum(), NotImplementedError);
  EXPECT_THROW(add(q, q), Error);
  EXPECT_THROW(empty({2}, TensorOptions(kQUInt8)), Error);
  EXPECT_THROW(q.to(kFloat32), Error);
  EXPECT_TRUE(equal(int_repr(q), tensor<int32_t>({0, 2, 4, 6, 8, 10}).reshape({2, 3})));
}

TEST(Quantized, CopyQuantizesWithTheTargetsParameters) {
  Tensor q = quantize_per_tensor(zeros({3}), 0.25, 10, kQUInt8);
  q.copy_(tensor<float>({1.0f, -1.0f, 0.3f}));
  EXPECT_TRUE(equal(int_repr(q), tensor<uint8_t>({14, 6, 11})));
  EXPECT_THROW(zeros({3}).copy_(q), Error);
}
