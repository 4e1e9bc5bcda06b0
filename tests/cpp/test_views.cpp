#include <gtest/gtest.h>

#include "ember/ember.h"

using namespace ember;

namespace {
std::vector<int64_t> vec(IntArrayRef r) { return r.vec(); }
}  // namespace

TEST(Views, ShareStorageAndWriteThrough) {
  Tensor x = arange(12).reshape({3, 4});
  Tensor v = x.view({6, 2});
  EXPECT_TRUE(v.storage().is_alias_of(x.storage()));
  v.select(0, 0).select(0, 0).fill_(999);
  EXPECT_EQ(x.select(0, 0).select(0, 0).item().to_int(), 999);
}

TEST(Views, Strides) {
  Tensor x = arange(24).reshape({2, 3, 4});
  EXPECT_EQ(vec(x.transpose(0, 2).strides()), (std::vector<int64_t>{1, 4, 12}));
  EXPECT_EQ(vec(x.permute({2, 0, 1}).strides()), (std::vector<int64_t>{1, 12, 4}));
  EXPECT_EQ(vec(x.unsqueeze(1).strides()), (std::vector<int64_t>{12, 12, 4, 1}));
  EXPECT_EQ(vec(x.select(1, 2).strides()), (std::vector<int64_t>{12, 1}));
  EXPECT_EQ(x.select(1, 2).storage_offset(), 8);
  EXPECT_EQ(vec(x.slice(2, 1, std::nullopt, 2).strides()), (std::vector<int64_t>{12, 4, 2}));
  EXPECT_EQ(vec(x.diagonal(0, 1, 2).sizes()), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(vec(x.unfold(2, 2, 1).sizes()), (std::vector<int64_t>{2, 3, 3, 2}));
  EXPECT_EQ(vec(x.movedim({0}, {2}).sizes()), (std::vector<int64_t>{3, 4, 2}));
  Tensor col = arange(3).unsqueeze(1);
  EXPECT_EQ(vec(col.expand({3, 4}).strides()), (std::vector<int64_t>{1, 0}));
}

TEST(Views, ViewRules) {
  Tensor x = arange(12).reshape({3, 4});
  EXPECT_THROW(x.t().view({12}), Error);
  Tensor r = x.t().reshape({12});  // copies
  EXPECT_FALSE(r.storage().is_alias_of(x.storage()));
  EXPECT_THROW(x.view({5}), Error);
  EXPECT_THROW(x.view({-1, -1}), Error);
  EXPECT_EQ(vec(x.view({-1, 6}).sizes()), (std::vector<int64_t>{2, 6}));
  EXPECT_THROW(x.transpose(0, 2), IndexError);
  EXPECT_THROW(x.expand({3, 5}), Error);
}

TEST(Views, SplitAndChunk) {
  Tensor x = arange(10);
  auto parts = x.split(3);
  ASSERT_EQ(parts.size(), 4u);
  EXPECT_EQ(parts.back().numel(), 1);
  auto chunks = x.chunk(3);
  ASSERT_EQ(chunks.size(), 3u);
  EXPECT_EQ(chunks[0].numel(), 4);
  EXPECT_EQ(x.split_with_sizes({2, 8})[1].storage_offset(), 2);
}

TEST(Views, DtypeReinterpretation) {
  Tensor x = zeros({2, 4});
  EXPECT_EQ(vec(x.view(kInt16).sizes()), (std::vector<int64_t>{2, 8}));
  EXPECT_EQ(vec(x.view(kFloat64).sizes()), (std::vector<int64_t>{2, 2}));
  EXPECT_THROW(x.t().view(kInt16), Error);
}
