#include <gtest/gtest.h>

#include "ember/ember.h"

using namespace ember;

TEST(NnParameter, SharesStorageAndIsALeafThatRequiresGrad) {
  Tensor x = ones({2, 3});
  Tensor p = nn::make_parameter(x);
  EXPECT_TRUE(p.is_parameter());
  EXPECT_FALSE(x.is_parameter());
  EXPECT_TRUE(p.requires_grad());
  EXPECT_EQ(p.data_ptr(), x.data_ptr());
  EXPECT_FALSE(nn::make_parameter(x, false).requires_grad());
  EXPECT_THROW(nn::make_parameter(ones({2}, kInt64)), Error);
  EXPECT_FALSE(nn::make_parameter(ones({2}, kInt64), false).requires_grad());
}

TEST(NnParameter, MovesAndCopiesKeepTheTensor) {
  Tensor p = nn::make_parameter(ones({2}));
  Tensor q = p;
  Tensor r = std::move(q);
  r = p;
  EXPECT_TRUE(r.is_same(p));
  EXPECT_TRUE(r.is_parameter());
}
