#include <gtest/gtest.h>

#include <cmath>

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

TEST(MathOps, ElementwiseAndReductions) {
  Tensor x = tensor<double>({0.25, 0.5, 0.75});
  EXPECT_NEAR(logit(x).select(0, 2).item().to_double(), std::log(3.0), 1e-12);
  EXPECT_NEAR(logit(x, 0.3).select(0, 0).item().to_double(), std::log(0.3 / 0.7), 1e-12);
  EXPECT_EQ(xlogy(zeros({1}), zeros({1})).item().to_double(), 0.0);  // 0 * log(0) is 0
  EXPECT_NEAR(hypot(tensor<float>({3.f}), tensor<float>({4.f})).item().to_double(), 5.0, 1e-6);
  EXPECT_THROW(hypot(arange(3), arange(3)), NotImplementedError);
  EXPECT_TRUE(equal(signbit(tensor<float>({-0.f, 0.f, -1.f})), tensor<int64_t>({1, 0, 1}).to(kBool)));
  Tensor n = tensor<double>({1.0, NAN, 3.0});
  EXPECT_EQ(nansum(n).item().to_double(), 4.0);
  EXPECT_EQ(nanmean(n).item().to_double(), 2.0);
  EXPECT_NEAR(logcumsumexp(tensor<double>({-1000.0, -1000.0}), 0).select(0, 1).item().to_double(), -1000.0 + std::log(2.0),
              1e-9);
  EXPECT_TRUE(equal(diff(tensor<int64_t>({1, 4, 9, 16}), 2), tensor<int64_t>({2, 2})));
}

TEST(MathOps, ProductsAndNorms) {
  Tensor e0 = tensor<double>({1, 0, 0}), e1 = tensor<double>({0, 1, 0});
  EXPECT_TRUE(equal(linalg_cross(e0, e1), tensor<double>({0, 0, 1})));
  EXPECT_TRUE(equal(kron(eye(2, std::nullopt, kFloat64), ones({2, 2}, kFloat64)).sum(), scalar_tensor(8.0, kFloat64)));
  Tensor a = randn({2, 3, 4}, kFloat64), b = randn({3, 4, 5}, kFloat64);
  EXPECT_TRUE(allclose(tensordot(a, b, 2), mm(a.reshape({2, 12}), b.reshape({12, 5}))));
  Tensor m = tensor<double>({3, 4}).reshape({1, 2});
  EXPECT_EQ(linalg_vector_norm(m).item().to_double(), 5.0);
  EXPECT_EQ(linalg_matrix_norm(m, 1.0).item().to_double(), 4.0);
  EXPECT_NEAR(linalg_matrix_norm(m, "nuc").item().to_double(), 5.0, 1e-12);  // one singular value, 5
  EXPECT_EQ(dist(m, zeros({1, 2}, kFloat64)).item().to_double(), 5.0);
  Tensor d = cdist(tensor<double>({0, 0, 3, 4}).reshape({2, 2}), tensor<double>({0, 0}).reshape({1, 2}));
  EXPECT_TRUE(equal(d, tensor<double>({0, 5}).reshape({2, 1})));
}
