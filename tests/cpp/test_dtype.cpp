#include <gtest/gtest.h>

#include <cmath>

#include "ember/ember.h"

using namespace ember;

TEST(DType, SizesAndNames) {
  EXPECT_EQ(element_size(kFloat32), 4u);
  EXPECT_EQ(element_size(kBFloat16), 2u);
  EXPECT_EQ(element_size(kFloat8_e4m3fn), 1u);
  EXPECT_EQ(dtype_name(kInt64), "int64");
  EXPECT_TRUE(is_floating_point(kFloat8_e5m2));
  EXPECT_FALSE(is_floating_point(kUInt8));
}

TEST(DType, HalfRoundsToNearestEven) {
  EXPECT_EQ(float(Half(65504.0f)), 65504.0f);
  EXPECT_TRUE(std::isinf(float(Half(65520.0f))));
  EXPECT_EQ(float(Half(1.0f + 1.0f / 2048)), 1.0f);  // tie rounds to even
  EXPECT_EQ(float(Half(5.960464477539063e-08f)), 5.960464477539063e-08f);  // smallest subnormal
  EXPECT_TRUE(std::isnan(float(Half(NAN))));
}

TEST(DType, BFloat16RoundsToNearestEven) {
  EXPECT_EQ(float(BFloat16(70000.0f)), 70144.0f);
  EXPECT_EQ(float(BFloat16(1.0f)), 1.0f);
  EXPECT_TRUE(std::isnan(float(BFloat16(NAN))));
}

TEST(DType, Float8) {
  EXPECT_EQ(float(Float8_e4m3fn(448.0f)), 448.0f);
  EXPECT_EQ(float(Float8_e4m3fn(1e9f)), 448.0f);      // saturates, as torch
  EXPECT_EQ(float(Float8_e4m3fn(INFINITY)), 448.0f);
  EXPECT_TRUE(std::isnan(float(Float8_e4m3fn(NAN))));
  EXPECT_EQ(float(Float8_e5m2(57344.0f)), 57344.0f);
  EXPECT_TRUE(std::isinf(float(Float8_e5m2(1e9f))));  // e5m2 has infinities
  EXPECT_EQ(float(Float8_e5m2(480.0f)), 512.0f);
}

TEST(DType, IntegerConversionsTruncateLikeTorch) {
  EXPECT_EQ(convert<int8_t>(300.0f), int8_t(44));
  EXPECT_EQ(convert<uint8_t>(-3.7f), uint8_t(253));
  EXPECT_EQ(convert<int32_t>(1e10f), INT32_MIN);
  EXPECT_EQ(convert<int64_t>(double(NAN)), INT64_MIN);
  EXPECT_TRUE(convert<bool>(float(NAN)));
}

TEST(Device, Parse) {
  EXPECT_EQ(Device("cpu"), kCPU);
  Device d("cuda:1");
  EXPECT_TRUE(d.is_cuda());
  EXPECT_EQ(d.index, 1);
  EXPECT_EQ(d.str(), "cuda:1");
  EXPECT_THROW(Device("gpu"), Error);
  EXPECT_THROW(Device("cuda:x"), Error);
}

TEST(Device, CudaUnavailableIsClear) {
  EXPECT_THROW(zeros({2}, TensorOptions(Device("cuda"))), DeviceUnavailableError);
}
