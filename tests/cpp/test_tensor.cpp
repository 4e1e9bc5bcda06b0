#include <gtest/gtest.h>

#include <sstream>

#include "ember/ember.h"

using namespace ember;

TEST(Tensor, CreationAndProperties) {
  Tensor x = zeros({4, 8});
  EXPECT_EQ(x.dim(), 2);
  EXPECT_EQ(x.numel(), 32);
  EXPECT_EQ(x.dtype(), kFloat32);
  EXPECT_EQ(x.nbytes(), 128u);
  EXPECT_TRUE(x.is_contiguous());
  EXPECT_EQ(reinterpret_cast<uintptr_t>(x.data_ptr()) % 64, 0u);
  EXPECT_EQ(x.stride(0), 8);
  EXPECT_EQ(x.size(-1), 8);
  EXPECT_THROW(x.size(2), IndexError);
  EXPECT_THROW(zeros({-1}), Error);
}

TEST(Tensor, FactoriesInferDtypes) {
  EXPECT_EQ(arange(5).dtype(), kInt64);
  EXPECT_EQ(arange(0.0, 1.0, 0.25).numel(), 4);
  EXPECT_EQ(full({2}, true).dtype(), kBool);
  EXPECT_EQ(full({2}, 2.5).dtype(), kFloat32);
  Tensor e = eye(3);
  EXPECT_EQ(e.diagonal().select(0, 2).item().to_double(), 1.0);
  EXPECT_EQ(e.select(0, 0).select(0, 1).item().to_double(), 0.0);
  EXPECT_EQ(linspace(0, 1, 5).numel(), 5);
  EXPECT_EQ(tensor<int64_t>({1, 2, 3}).numel(), 3);
}

TEST(Tensor, ItemAndFill) {
  Tensor x = empty({2, 2}, kInt32);
  x.fill_(7);
  EXPECT_EQ(x.select(0, 1).select(0, 1).item().to_int(), 7);
  EXPECT_THROW(x.item(), Error);
  x.zero_();
  EXPECT_EQ(x.select(0, 0).select(0, 0).item().to_int(), 0);
}

TEST(Tensor, CopyConvertsAndBroadcasts) {
  Tensor dst = zeros({2, 3});
  dst.copy_(arange(3));
  EXPECT_EQ(dst.select(0, 1).select(0, 2).item().to_double(), 2.0);
  EXPECT_THROW(zeros({3}).copy_(zeros({2, 3})), Error);
  Tensor a = arange(6.0);
  EXPECT_THROW(a.slice(0, 1, std::nullopt).copy_(a.slice(0, 0, 5)), Error);  // partial overlap
}

TEST(Tensor, ClonePreservesLayout) {
  Tensor t = arange(12.0).reshape({3, 4}).t();
  Tensor c = t.clone();
  EXPECT_EQ(c.stride(0), 1);
  EXPECT_EQ(c.stride(1), 4);
  EXPECT_FALSE(c.storage().is_alias_of(t.storage()));
  Tensor k = t.contiguous();
  EXPECT_TRUE(k.is_contiguous());
  EXPECT_EQ(k.select(0, 1).select(0, 0).item().to_double(), 1.0);
}

TEST(Tensor, TransposedCopyIsCorrect) {
  Tensor big = arange(300 * 200).to(kFloat32).reshape({300, 200});
  Tensor t = big.t().contiguous();
  EXPECT_EQ(t.select(0, 7).select(0, 123).item().to_double(), 123.0 * 200 + 7);
  Tensor h = big.t().to(kFloat16);
  EXPECT_EQ(h.select(0, 3).select(0, 2).item().to_double(), 403.0);
}

TEST(Random, SeedsReproduceTorch) {
  manual_seed(0);
  Tensor r = rand({3});
  EXPECT_NEAR(r.select(0, 0).item().to_double(), 0.49625658988952637, 1e-7);
  manual_seed(0);
  Tensor n = randn({3});
  EXPECT_NEAR(n.select(0, 0).item().to_double(), 1.5409960746765137, 1e-6);
  manual_seed(0);
  Tensor p = randperm(6);
  EXPECT_EQ(p.select(0, 0).item().to_int(), 2);  // torch: [2, 5, 3, 0, 1, 4]
  EXPECT_EQ(p.select(0, 1).item().to_int(), 5);
}

TEST(Print, MatchesTorch) {
  std::ostringstream os;
  os << arange(12).reshape({3, 4});
  EXPECT_EQ(os.str(), "tensor([[ 0,  1,  2,  3],\n        [ 4,  5,  6,  7],\n        [ 8,  9, 10, 11]])");
  EXPECT_EQ(zeros({2}, kFloat16).repr(), "tensor([0., 0.], dtype=torch.float16)");
  EXPECT_EQ(tensor<double>({1e-5, 1.0}).repr(), "tensor([1.0000e-05, 1.0000e+00], dtype=torch.float64)");
  EXPECT_EQ(zeros({0, 3}).repr(), "tensor([], size=(0, 3))");
  EXPECT_EQ(scalar_tensor(3.5).repr(), "tensor(3.5000)");
  EXPECT_EQ(full({2}, true).repr(), "tensor([True, True])");
}

TEST(Memory, CachesLargeBlocks) {
#ifdef EMBER_SANITIZE
  GTEST_SKIP() << "sanitizer builds give every block back at once, so ASan sees each tensor's bounds";
#endif
  MemoryStats before = cpu_memory_stats();
  {
    Tensor big = empty({1 << 20});  // 4 MiB
    EXPECT_GE(cpu_memory_stats().allocated_bytes, before.allocated_bytes + (4 << 20));
  }
  MemoryStats after = cpu_memory_stats();
  EXPECT_EQ(after.allocated_bytes, before.allocated_bytes);
  EXPECT_GE(after.cached_bytes, size_t(4 << 20));
  cpu_empty_cache();
  EXPECT_EQ(cpu_memory_stats().cached_bytes, 0u);
}

TEST(Tensor, InPlaceAddAndSubTakeAlphaAsLibtorch) {
  Tensor t = ones({3});
  t.add_(arange(3).to(kFloat32), 2);  // t += 2 * [0, 1, 2]
  EXPECT_TRUE(equal(t, tensor<float>({1, 3, 5})));
  t.sub_(ones({3}), 0.5);
  EXPECT_TRUE(equal(t, tensor<float>({0.5, 2.5, 4.5})));
  Tensor leaf = ones({2}).requires_grad_();
  EXPECT_THROW(leaf.add_(ones({2}), 2), Error);  // a leaf that requires grad cannot change in place
}
