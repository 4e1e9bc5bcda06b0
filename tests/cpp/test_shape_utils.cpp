// The shape utilities through the C++ API (ember/shape_utils.h and the Tensor methods): a few calls each.
#include <gtest/gtest.h>

#include "ember/ember.h"

using namespace ember;

namespace {

Tensor m34() { return arange(12).reshape({3, 4}); }
Tensor ints(std::initializer_list<int64_t> v, IntArrayRef shape) { return tensor<int64_t>(v).reshape(shape); }
std::vector<int64_t> vec(IntArrayRef r) { return {r.begin(), r.end()}; }

}  // namespace

TEST(ShapeUtils, StackingAndSplitting) {
  Tensor x = m34();
  const Tensor pair[] = {x, x};
  EXPECT_EQ(vec(hstack(pair).sizes()), (std::vector<int64_t>{3, 8}));
  EXPECT_EQ(vec(vstack(pair).sizes()), (std::vector<int64_t>{6, 4}));
  EXPECT_EQ(vec(dstack(pair).sizes()), (std::vector<int64_t>{3, 4, 2}));
  const Tensor rows[] = {arange(3), arange(3)};
  EXPECT_TRUE(equal(column_stack(rows), ints({0, 0, 1, 1, 2, 2}, {3, 2})));
  EXPECT_EQ(vec(atleast_3d(arange(4)).sizes()), (std::vector<int64_t>{1, 4, 1}));
  EXPECT_TRUE(atleast_2d(x).is_same(x));
  auto parts = tensor_split(x, 3, 1);
  ASSERT_EQ(parts.size(), 3u);
  EXPECT_EQ(vec(parts[0].sizes()), (std::vector<int64_t>{3, 2}));
  EXPECT_EQ(vec(x.tensor_split({1, 3}, 1)[1].sizes()), (std::vector<int64_t>{3, 2}));
  EXPECT_EQ(x.hsplit(2).size(), 2u);
  EXPECT_THROW(x.vsplit(2), Error);  // 3 rows are not divisible by 2
  EXPECT_THROW(dsplit(x, 2), Error);
}

TEST(ShapeUtils, FlipRollRot90) {
  Tensor x = m34();
  EXPECT_TRUE(equal(x.flip({1}).select(0, 0), ints({3, 2, 1, 0}, {4})));
  EXPECT_TRUE(equal(flipud(x).select(1, 0), ints({8, 4, 0}, {3})));
  EXPECT_TRUE(equal(fliplr(x), x.flip({1})));
  EXPECT_TRUE(equal(roll(x, {1}).flatten(), ints({11, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, {12})));
  EXPECT_TRUE(equal(x.roll({1, -1}, {0, 1}).select(0, 0), ints({9, 10, 11, 8}, {4})));
  Tensor r = rot90(x);  // (4, 3), strides of a flip then a transpose
  EXPECT_EQ(vec(r.sizes()), (std::vector<int64_t>{4, 3}));
  EXPECT_TRUE(equal(r.select(0, 0), ints({3, 7, 11}, {3})));
  EXPECT_TRUE(equal(x.rot90(4), x));
  EXPECT_THROW(flip(x, {0, 0}), Error);
}

TEST(ShapeUtils, Repeats) {
  Tensor x = arange(3);
  EXPECT_TRUE(equal(x.repeat({2}), ints({0, 1, 2, 0, 1, 2}, {6})));
  EXPECT_EQ(vec(x.repeat({2, 1, 2}).sizes()), (std::vector<int64_t>{2, 1, 6}));
  EXPECT_EQ(vec(tile(m34(), {2}).sizes()), (std::vector<int64_t>{3, 8}));
  EXPECT_TRUE(equal(repeat_interleave(x, 2), ints({0, 0, 1, 1, 2, 2}, {6})));
  EXPECT_TRUE(equal(x.repeat_interleave(tensor<int64_t>({0, 1, 2}), 0), ints({1, 2, 2}, {3})));
  EXPECT_TRUE(equal(repeat_interleave(tensor<int64_t>({2, 0, 1})), ints({0, 0, 2}, {3})));
  EXPECT_THROW(x.repeat({}), Error);
  EXPECT_THROW(repeat_interleave(x, -1), Error);
}

TEST(ShapeUtils, Broadcasting) {
  Tensor x = m34(), row = arange(4);
  const Tensor both[] = {x, row};
  auto b = broadcast_tensors(both);
  EXPECT_TRUE(b[0].is_same(x));
  EXPECT_EQ(vec(b[1].strides()), (std::vector<int64_t>{0, 1}));
  const DimVector shapes[] = {DimVector{2, 1}, DimVector{3}};
  EXPECT_EQ(vec(broadcast_shapes(shapes)), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(vec(row.broadcast_to({2, 4}).sizes()), (std::vector<int64_t>{2, 4}));
  const Tensor axes[] = {arange(2), arange(3)};
  auto ij = meshgrid(axes, "ij");
  auto xy = meshgrid(axes, "xy");
  EXPECT_EQ(vec(ij[0].sizes()), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(vec(xy[0].sizes()), (std::vector<int64_t>{3, 2}));
  EXPECT_THROW(meshgrid(axes, "yx"), Error);
}

TEST(ShapeUtils, TrianglesAndDiagonals) {
  Tensor x = ones({3, 3});
  EXPECT_EQ(tril(x).sum().item<double>(), 6);
  EXPECT_EQ(x.triu(1).sum().item<double>(), 3);
  Tensor y = ones({3, 3});
  y.tril_(-1);
  EXPECT_EQ(y.sum().item<double>(), 3);
  Tensor out = empty({0});
  tril_out(out, x, 0);
  EXPECT_TRUE(equal(out, tril(x)));
  EXPECT_TRUE(equal(tril_indices(3, 3), ints({0, 1, 1, 2, 2, 2, 0, 0, 1, 0, 1, 2}, {2, 6})));
  EXPECT_EQ(triu_indices(3, 4, 1, kInt32).dtype(), kInt32);
  Tensor d = diag(arange(3));
  EXPECT_TRUE(equal(d.diag(), arange(3)));
  EXPECT_EQ(vec(diag_embed(ones({2, 3})).sizes()), (std::vector<int64_t>{2, 3, 3}));
  EXPECT_EQ(vec(diagflat(ones({2, 2}), 1).sizes()), (std::vector<int64_t>{5, 5}));
  EXPECT_EQ(trace(m34().narrow(1, 0, 3)).item<int64_t>(), 0 + 5 + 10);
  EXPECT_EQ(trace(m34().narrow(1, 0, 3)).dtype(), kInt64);
  const Tensor blocks[] = {ones({2, 2}), full({}, 3.0)};
  Tensor bd = block_diag(blocks);
  EXPECT_EQ(vec(bd.sizes()), (std::vector<int64_t>{3, 3}));
  EXPECT_EQ(bd.sum().item<double>(), 7);
  EXPECT_THROW(tril(arange(3)), Error);
}

TEST(ShapeUtils, SetProductsAndRavel) {
  const Tensor sets[] = {arange(2), arange(3)};
  EXPECT_EQ(vec(cartesian_prod(sets).sizes()), (std::vector<int64_t>{6, 2}));
  EXPECT_TRUE(equal(combinations(arange(3)), ints({0, 1, 0, 2, 1, 2}, {3, 2})));
  EXPECT_EQ(combinations(arange(3), 2, true).size(0), 6);
  EXPECT_EQ(vec(combinations(arange(3), 4).sizes()), (std::vector<int64_t>{0, 4}));
  Tensor x = m34();
  EXPECT_TRUE(ravel(x).storage().is_alias_of(x.storage()));
  EXPECT_FALSE(x.t().ravel().storage().is_alias_of(x.storage()));
}

TEST(ShapeUtils, Gradients) {
  Tensor x = arange(12).to(kFloat32).reshape({3, 4}).requires_grad_();
  Tensor y = (flip(x, {0}) * arange(12).to(kFloat32).reshape({3, 4})).sum() + x.repeat({2, 1}).sum() + trace(x) +
             x.roll({1}).tril().sum();
  y.backward();
  EXPECT_EQ(vec(x.grad().sizes()), (std::vector<int64_t>{3, 4}));
  EXPECT_EQ(flip(x, {0}).grad_fn()->name(), "FlipBackward0");
  EXPECT_EQ(x.repeat({2, 1}).grad_fn()->name(), "RepeatBackward0");
  EXPECT_EQ(x.tril().grad_fn()->name(), "TrilBackward0");
}
