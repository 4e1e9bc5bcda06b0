// The scatter family through the C++ API: free functions and Tensor methods, in-place and out= forms, errors.
#include <gtest/gtest.h>

#include "ember/ember.h"

using namespace ember;

TEST(Scatter, ScatterAddAndReduce) {
  Tensor index = tensor<int64_t>({0, 2, 0, 1, 2, 2});
  Tensor src = tensor<float>({1, 2, 3, 4, 5, 6});
  EXPECT_TRUE(equal(scatter_add(zeros({3}), 0, index, src), tensor<float>({4, 4, 13})));
  EXPECT_TRUE(equal(scatter_reduce(ones({3}), 0, index, src, "amax", false), tensor<float>({3, 4, 6})));
  EXPECT_TRUE(equal(scatter_reduce(ones({3}), 0, index, src, "mean"), tensor<float>({5.0f / 3, 2.5f, 14.0f / 4})));
  EXPECT_TRUE(equal(scatter(zeros({3}), 0, index, src), tensor<float>({3, 4, 6})));  // the last write wins
  EXPECT_TRUE(equal(scatter(zeros({2, 2}), 1, tensor<int64_t>({1, 0}).view({2, 1}), Scalar(7.0)),
                    tensor<float>({0, 7, 7, 0}).view({2, 2})));
  Tensor x = zeros({3});
  EXPECT_TRUE(scatter_add_(x, 0, index, src).is_same(x));
  EXPECT_TRUE(equal(x.scatter_add(0, index, src), tensor<float>({8, 8, 26})));
  Tensor out = empty({0});
  scatter_reduce_out(out, zeros({3}), 0, index, src, "prod", false);
  EXPECT_TRUE(equal(out, tensor<float>({3, 4, 60})));
}

TEST(Scatter, IndexOps) {
  Tensor x = zeros({3, 2});
  Tensor rows = tensor<float>({1, 2, 3, 4}).view({2, 2});
  Tensor index = tensor<int64_t>({2, 0});
  EXPECT_TRUE(equal(index_add(x, 0, index, rows, 2), tensor<float>({6, 8, 0, 0, 2, 4}).view({3, 2})));
  EXPECT_TRUE(equal(index_copy(x, 0, index, rows), tensor<float>({3, 4, 0, 0, 1, 2}).view({3, 2})));
  EXPECT_TRUE(equal(index_fill(x, 1, tensor<int64_t>({-1}), Scalar(5.0)), tensor<float>({0, 5, 0, 5, 0, 5}).view({3, 2})));
  EXPECT_TRUE(equal(index_reduce(ones({3, 2}), 0, tensor<int64_t>({1, 1}), rows, "prod"),
                    tensor<float>({1, 1, 3, 8, 1, 1}).view({3, 2})));
  EXPECT_TRUE(x.index_add_(0, index, rows).is_same(x));
  EXPECT_THROW(index_copy(x, 0, tensor<int64_t>({3}), rows.narrow(0, 0, 1)), IndexError);
}

TEST(Scatter, TakePutMasked) {
  Tensor x = arange(6).to(kFloat32).view({2, 3});
  EXPECT_TRUE(equal(take(x.t(), tensor<int64_t>({1, -1})), tensor<float>({3, 5})));
  EXPECT_TRUE(equal(take_along_dim(x, tensor<int64_t>({2, 0}).view({2, 1}), 1), tensor<float>({2, 3}).view({2, 1})));
  EXPECT_TRUE(equal(put(x, tensor<int64_t>({0, 0}), tensor<float>({1, 2}), true), tensor<float>({3, 1, 2, 3, 4, 5}).view({2, 3})));
  Tensor mask = gt(x, wrapped_scalar(2));
  EXPECT_TRUE(equal(masked_select(x, mask), tensor<float>({3, 4, 5})));
  EXPECT_TRUE(equal(x.masked_scatter(mask, tensor<float>({9, 8, 7})), tensor<float>({0, 1, 2, 9, 8, 7}).view({2, 3})));
  std::vector<Tensor> where_true = where(mask);
  ASSERT_EQ(where_true.size(), 2u);
  EXPECT_TRUE(equal(where_true[1], tensor<int64_t>({0, 1, 2})));
  EXPECT_TRUE(equal(argwhere(mask), tensor<int64_t>({1, 0, 1, 1, 1, 2}).view({3, 2})));
  EXPECT_THROW(take(x, tensor<int64_t>({6})), IndexError);
  EXPECT_THROW(scatter_add(zeros({3}), 0, tensor<int64_t>({3}), ones({1})), Error);
}
