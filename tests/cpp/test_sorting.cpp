// The order statistics through the C++ API (values against hand-computed results; the Python tests compare every
// dtype and layout with torch).
#include <gtest/gtest.h>

#include <cmath>

#include "ember/ember.h"

using namespace ember;

TEST(Sorting, SortArgsortMsort) {
  Tensor x = tensor<float>({3, NAN, -1, 2, -1, 0}).reshape({2, 3});
  auto [v, i] = sort(x);
  EXPECT_TRUE(equal(i, tensor<int64_t>({2, 0, 1, 1, 2, 0}).reshape({2, 3})));
  EXPECT_TRUE(std::isnan(v[0][2].item().to<double>()));
  auto [vd, id] = x.sort(std::optional<bool>(true), 0, true);
  EXPECT_TRUE(equal(id, tensor<int64_t>({0, 0, 1, 1, 1, 0}).reshape({2, 3})));
  EXPECT_TRUE(equal(argsort(tensor<int64_t>({5, 1, 5, 0})), tensor<int64_t>({3, 1, 0, 2})));
  EXPECT_TRUE(equal(msort(tensor<int64_t>({4, 1, 2, 3}).reshape({2, 2})), tensor<int64_t>({2, 1, 4, 3}).reshape({2, 2})));
  Tensor values = empty({0}), indices = empty({0}, TensorOptions(kInt64));
  sort_out(values, indices, tensor<float>({2, 1}));
  EXPECT_TRUE(equal(values, tensor<float>({1, 2})));
  EXPECT_THROW(sort(x, 2), IndexError);
}

TEST(Sorting, RadixRowsMatchComparisonSort) {
  Tensor x = remainder(mul(arange(5000), full({}, int64_t(7919))), full({}, int64_t(101))).to(kInt32);
  auto [v, i] = sort(x, -1, true);
  EXPECT_TRUE(equal(index_select(x, 0, i), v));
  EXPECT_TRUE(all(ge(v.narrow(0, 0, 4999), v.narrow(0, 1, 4999))).item().to_bool());
}

TEST(Sorting, TopkKthvalueMedianMode) {
  Tensor x = tensor<double>({4, 1, 3, 1, 5, 9, 2, 6});
  auto [tv, ti] = topk(x, 3);
  EXPECT_TRUE(equal(tv, tensor<double>({9, 6, 5})));
  EXPECT_TRUE(equal(ti, tensor<int64_t>({5, 7, 4})));
  EXPECT_EQ(kthvalue(x, 2).first.item().to<double>(), 1.0);
  EXPECT_EQ(median(x).item().to<double>(), 3.0);
  auto [mv, mi] = median(x.reshape({2, 4}), 1, true);
  EXPECT_TRUE(equal(mv, tensor<double>({1, 5}).reshape({2, 1})));
  EXPECT_EQ(mode(tensor<int64_t>({2, 7, 2, 7, 3})).first.item().to<int64_t>(), 2);
  EXPECT_EQ(nanmedian(tensor<float>({NAN, 1, 2})).item().to<double>(), 1.0);
  EXPECT_THROW(topk(x, 9), Error);
}

TEST(Sorting, QuantileCumulativeSearches) {
  Tensor x = tensor<double>({0, 10, 20, 30, 40});
  EXPECT_DOUBLE_EQ(quantile(x, 0.3).item().to<double>(), 12.0);
  EXPECT_DOUBLE_EQ(quantile(x, 0.3, {}, false, "lower").item().to<double>(), 10.0);
  EXPECT_DOUBLE_EQ(nanquantile(tensor<double>({NAN, 1, 3}), 0.5).item().to<double>(), 2.0);
  auto [cv, ci] = cummax(tensor<int64_t>({1, 3, 2, 3}), 0);
  EXPECT_TRUE(equal(cv, tensor<int64_t>({1, 3, 3, 3})));
  EXPECT_TRUE(equal(ci, tensor<int64_t>({0, 1, 1, 3})));
  EXPECT_TRUE(equal(cummin(tensor<int64_t>({3, 1, 2}), 0).second, tensor<int64_t>({0, 1, 1})));
  Tensor b = tensor<float>({1, 2, 2, 4});
  EXPECT_TRUE(equal(searchsorted(b, tensor<float>({2, 3})), tensor<int64_t>({1, 3})));
  EXPECT_TRUE(equal(searchsorted(b, tensor<float>({2, 3}), false, true), tensor<int64_t>({3, 3})));
  EXPECT_TRUE(equal(bucketize(tensor<float>({0, 5}), b, true), tensor<int32_t>({0, 4})));
  EXPECT_TRUE(equal(histc(tensor<float>({0, 1, 1, 2}), 2), tensor<float>({1, 3})));
  EXPECT_TRUE(equal(bincount(tensor<int64_t>({0, 2, 2}), {}, 4), tensor<int64_t>({1, 0, 2, 0})));
}

TEST(Sorting, UniqueAndConsecutive) {
  Tensor x = tensor<int64_t>({3, 1, 3, 2, 1, 3});
  auto [values, inverse, counts] = unique(x, true, true, true);
  EXPECT_TRUE(equal(values, tensor<int64_t>({1, 2, 3})));
  EXPECT_TRUE(equal(inverse, tensor<int64_t>({2, 0, 2, 1, 0, 2})));
  EXPECT_TRUE(equal(counts, tensor<int64_t>({2, 1, 3})));
  auto [runs, where, lengths] = unique_consecutive(tensor<int64_t>({1, 1, 2, 1}), true, true);
  EXPECT_TRUE(equal(runs, tensor<int64_t>({1, 2, 1})));
  EXPECT_TRUE(equal(lengths, tensor<int64_t>({2, 1, 1})));
  Tensor rows = tensor<int64_t>({1, 2, 0, 1, 1, 2}).reshape({3, 2});
  EXPECT_TRUE(equal(std::get<0>(unique(rows, true, false, false, 0)), tensor<int64_t>({0, 1, 1, 2}).reshape({2, 2})));
}
