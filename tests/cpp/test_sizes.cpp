// Overflow-checked size, stride and offset arithmetic (ember/safe_size.h) and the ops built on it.
#include <gtest/gtest.h>

#include <memory>

#include "ember/autograd.h"
#include "ember/ember.h"

using namespace ember;

namespace {

constexpr int64_t k2_62 = int64_t(1) << 62;

// The message of the Error `fn` throws (fails the test if it throws none).
template <typename Fn>
std::string error_of(Fn&& fn) {
  try {
    fn();
  } catch (const Error& e) {
    return e.what();
  }
  ADD_FAILURE() << "no exception";
  return "";
}

}  // namespace

TEST(Sizes, NumelStridesAndBytesOverflow) {
  EXPECT_EQ(safe_numel({3, 4}), 12);
  EXPECT_EQ(safe_numel({k2_62, 0}), 0);
  EXPECT_EQ(safe_numel({0, k2_62, 2}), 0);
  EXPECT_THROW(safe_numel({3, k2_62}), Error);
  EXPECT_THROW(safe_numel({-1}), Error);
  EXPECT_EQ(contiguous_strides({k2_62, 2, 0}), (DimVector{2, 1, 1}));
  EXPECT_EQ(error_of([] { contiguous_strides({0, k2_62, k2_62}); }), "Stride calculation overflowed");
  EXPECT_EQ(storage_nbytes({2, 3}, 4), 24u);
  EXPECT_EQ(storage_nbytes({2, 3}, 4, 5), 44u);
  EXPECT_EQ(storage_nbytes({2, 3}, {1, 2}, 8), 48u);
  EXPECT_EQ(storage_nbytes({0, 3}, {-1, 2}, 8, INT64_MAX), 0u);  // no elements: nothing is needed
  EXPECT_EQ(error_of([] { storage_nbytes({k2_62}, 4); }),
            "Storage size calculation overflowed with sizes=[4611686018427387904]");
  EXPECT_EQ(error_of([] { storage_nbytes({2, 3}, {-1, 1}, 4); }),
            "Storage size calculation overflowed with sizes=[2, 3] and strides=[-1, 1]");
  EXPECT_THROW(storage_nbytes({3}, {int64_t(1) << 61}, 4), Error);
  EXPECT_THROW(storage_nbytes({1}, {1}, 4, INT64_MAX), Error);
}

TEST(Sizes, OpsRaiseInsteadOfWrapping) {
  EXPECT_THROW(zeros({k2_62}), Error);
  EXPECT_THROW(empty({int64_t(1) << 40, int64_t(1) << 40}), Error);
  EXPECT_THROW(zeros({1}).expand({k2_62}).contiguous(), Error);
  EXPECT_THROW(zeros({1}).expand({int64_t(1) << 40, int64_t(1) << 40}), Error);
  EXPECT_THROW(arange(5.0).as_strided({3}, {int64_t(1) << 61}), Error);
  EXPECT_THROW(arange(5.0).as_strided({1}, {1}, INT64_MAX), Error);
  EXPECT_THROW(empty_strided({2, 3}, {-1, 1}), Error);
  EXPECT_THROW(arange(10.0).unfold(0, -5, 1), Error);
  EXPECT_THROW(arange(0, 10, 0.5, TensorOptions(kInt64)), ValueError);
  EXPECT_EQ(arange(0, 5, 1.5, TensorOptions(kInt64)).numel(), 5);  // torch: [0, 1, 2, 3, 4]
  EXPECT_EQ(arange(0, 5, 1.5, TensorOptions(kInt32)).numel(), 4);  // torch: [0, 1, 2, 3]
  Tensor x = arange(4.0);
  EXPECT_THROW(x.resize_({k2_62}), Error);
  EXPECT_EQ(x.numel(), 4);
}

TEST(Sizes, AllocationFailureNamesTheBytes) {
  std::string msg = error_of([] { empty({int64_t(1) << 45}); });
  EXPECT_NE(msg.find("you tried to allocate 140737488355328 bytes"), std::string::npos) << msg;
}

TEST(Sizes, EmptyIntArrayRefCopiesIntoDimVector) {
  DimVector v{IntArrayRef()};  // a null pointer with 0 elements (UBSan: no memmove from null)
  EXPECT_TRUE(v.empty());
}

TEST(Sizes, DeepGraphIsFreedWithoutRecursion) {
  Tensor x = ones({2}).requires_grad_();
  Tensor y = x;
  for (int i = 0; i < 300000; ++i) y = mul(y, y);
  y = Tensor();  // frees 300k nodes, each holding the previous twice
  EXPECT_FALSE(y.defined());
}
