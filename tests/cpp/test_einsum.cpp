#include <gtest/gtest.h>

#include "ember/ember.h"

using namespace ember;

namespace {
Tensor einsum2(std::string_view eq, const Tensor& a, const Tensor& b) {
  const Tensor ops[2] = {a, b};
  return einsum(eq, ops);
}
Tensor einsum1(std::string_view eq, const Tensor& a) { return einsum(eq, std::span<const Tensor>(&a, 1)); }
}  // namespace

TEST(Einsum, MatrixProductsAndBatches) {
  Tensor a = randn({3, 4}, kFloat64), b = randn({4, 5}, kFloat64);
  EXPECT_TRUE(allclose(einsum2("ij,jk->ik", a, b), mm(a, b)));
  EXPECT_TRUE(allclose(einsum2("ij,jk", a, b), mm(a, b)));  // implicit output
  EXPECT_TRUE(allclose(einsum2("ij,jk->ki", a, b), mm(a, b).t()));
  EXPECT_TRUE(einsum2("ij,jk->ki", a, b).is_contiguous());  // bmm's operands swapped, as torch
  Tensor q = randn({2, 3, 4, 5}), k = randn({2, 3, 6, 5});
  Tensor s = einsum2("bhqd,bhkd->bhqk", q, k);
  EXPECT_TRUE(DimVector(s.sizes()) == DimVector({2, 3, 4, 6}));
  EXPECT_TRUE(allclose(s, matmul(q, k.transpose(-1, -2)), 1e-5, 1e-5));
  Tensor x = randn({2, 3, 4}, kFloat64), v = randn({4}, kFloat64);
  EXPECT_TRUE(allclose(einsum2("...ij,j->...i", x, v), matmul(x, v)));
}

TEST(Einsum, DiagonalsTracesSumsAndViews) {
  Tensor m = arange(9).reshape({3, 3});
  EXPECT_EQ(einsum1("ii", m).item().to_int(), 12);                 // trace
  EXPECT_TRUE(equal(einsum1("ii->i", m), m.diagonal()));           // diagonal
  EXPECT_TRUE(equal(einsum1("ij->j", m), sum(m, {0})));            // sum over a label that appears once
  Tensor t = einsum1("ij->ji", m);
  EXPECT_EQ(t.data_ptr(), m.data_ptr());                           // a permutation is a view
  EXPECT_EQ(einsum1("ij->", m).dtype(), kInt64);
}

TEST(Einsum, ThreeOperandsAndErrors) {
  Tensor a = randn({2, 3}, kFloat64), b = randn({3, 40}, kFloat64), c = randn({40, 2}, kFloat64);
  const Tensor ops[3] = {a, b, c};
  EXPECT_TRUE(allclose(einsum("ij,jk,kl->il", ops), mm(mm(a, b), c)));
  EXPECT_THROW(einsum1("ij,jk", a), Error);        // more operands in the equation
  EXPECT_THROW(einsum1("ijk", a), Error);          // wrong number of subscripts
  EXPECT_THROW(einsum1("ij->ik", a), Error);       // output label not in any input
  EXPECT_THROW(einsum2("ij,jk", a, a), Error);     // sizes of j differ
  EXPECT_THROW(einsum2("ij,jk", ones({2, 2}, kBool), ones({2, 2}, kBool)), NotImplementedError);
}
