// Gathers through the C++ API: rows of every width and dtype read whole rows (the typed paths for
// 1-, 2-, 4- and 8-byte rows once read at element offsets scaled by the row width).
#include <gtest/gtest.h>

#include "ember/ember.h"

using namespace ember;

TEST(IndexingRows, SmallRowsGatherWholeRows) {
  Tensor x = tensor<float>({1, 2, 3, 4, 5, 6}).reshape({3, 2});
  Tensor r = index(x, {tensor<int64_t>({2, 0})});
  EXPECT_TRUE(equal(r, tensor<float>({5, 6, 1, 2}).reshape({2, 2})));
  EXPECT_TRUE(equal(index_select(x, 0, tensor<int64_t>({2, 0})), r));
  Tensor z = arange(12).to(kInt8).reshape({4, 3}).t();  // (3, 4): the selected dim has stride 3
  Tensor picked = index_select(z, 1, tensor<int64_t>({3, 1}));
  EXPECT_TRUE(equal(picked, tensor<int64_t>({9, 3, 10, 4, 11, 5}).to(kInt8).reshape({3, 2})));
}

TEST(IndexingRows, EveryDtypeAndWidthMatchesSelect) {
  for (ScalarType dtype : {kBool, kUInt8, kInt8, kInt16, kInt32, kInt64, kFloat16, kBFloat16, kFloat32, kFloat64}) {
    for (int64_t width = 1; width <= 9; ++width) {
      Tensor x = remainder(arange(6 * width), full({}, 7.0)).to(dtype).reshape({6, width});
      Tensor idx = tensor<int64_t>({4, 0, 5, -1});
      Tensor rows = index(x, {idx});
      Tensor cols = index_select(x.t(), 1, tensor<int64_t>({4, 0, 5}));
      for (int64_t j = 0; j < 3; ++j) {
        int64_t row = std::vector<int64_t>{4, 0, 5}[size_t(j)];
        EXPECT_TRUE(equal(rows.select(0, j), x.select(0, row))) << dtype_name(dtype) << " width " << width;
        EXPECT_TRUE(equal(cols.select(1, j), x.select(0, row))) << dtype_name(dtype) << " width " << width;
      }
    }
  }
}
