// Sparse tensors through the C++ API (tests/python/test_sparse.py compares them with torch in depth).
#include <gtest/gtest.h>

#include "ember/ember.h"

using namespace ember;

namespace {

// The seed's example: a 3 x 3 matrix with three nonzeros, and a duplicate of (0, 2).
Tensor seed_coo() {
  return sparse_coo_tensor(tensor<int64_t>({0, 1, 2, 0, 2, 0, 1, 2}).reshape({2, 4}), tensor<float>({3, 4, 5, 1}),
                           IntArrayRef({3, 3}));
}

}  // namespace

TEST(Sparse, CooPartsAndCoalesce) {
  Tensor s = seed_coo();
  EXPECT_EQ(s.layout(), Layout::SparseCoo);
  EXPECT_TRUE(s.is_sparse());
  EXPECT_EQ(s._nnz(), 4);
  EXPECT_EQ(s.sparse_dim(), 2);
  EXPECT_FALSE(s.is_coalesced());
  EXPECT_THROW(s.indices(), Error);  // uncoalesced
  Tensor c = s.coalesce();
  EXPECT_TRUE(c.is_coalesced());
  EXPECT_TRUE(equal(c.indices(), tensor<int64_t>({0, 1, 2, 2, 0, 1}).reshape({2, 3})));
  EXPECT_TRUE(equal(c.values(), tensor<float>({4, 4, 5})));
  EXPECT_TRUE(equal(s.to_dense(), tensor<float>({0, 0, 4, 4, 0, 0, 0, 5, 0}).reshape({3, 3})));
}

TEST(Sparse, ChecksIndicesAndRefusesDenseOps) {
  EXPECT_THROW(sparse_coo_tensor(tensor<int64_t>({0, 5}).reshape({1, 2}), tensor<float>({1, 2}), IntArrayRef({3})),
               Error);
  Tensor s = seed_coo();
  EXPECT_THROW(exp(s), NotImplementedError);
  EXPECT_THROW(s.view({9}), NotImplementedError);
  EXPECT_THROW(s.data_ptr(), Error);
  EXPECT_THROW(s.storage(), NotImplementedError);
  EXPECT_THROW(s + ones({3, 3}), Error);  // torch: add(dense, sparse) only
}

TEST(Sparse, CsrProductsAndSums) {
  Tensor csr = sparse_csr_tensor(tensor<int64_t>({0, 1, 2, 3}), tensor<int64_t>({2, 0, 1}), tensor<float>({3, 4, 5}),
                                 IntArrayRef({3, 3}));
  EXPECT_TRUE(csr.is_sparse_csr());
  Tensor d = arange(6).to(kFloat32).reshape({3, 2});
  EXPECT_TRUE(allclose(mm(csr, d), mm(csr.to_dense(), d)));
  EXPECT_TRUE(allclose(mm(seed_coo(), d), mm(seed_coo().to_dense(), d)));
  EXPECT_EQ(sum(csr).item<float>(), 12.0f);
  EXPECT_TRUE(equal(csr.to_sparse().to_sparse_csr().crow_indices(), tensor<int64_t>({0, 1, 2, 3})));
  EXPECT_TRUE(equal((ones({3, 3}) + seed_coo() * 2).to_dense(), ones({3, 3}) + seed_coo().to_dense() * 2));
}

TEST(Sparse, GradientsReachTheValues) {
  Tensor v = tensor<float>({3, 4, 5}).requires_grad_();
  Tensor s = sparse_coo_tensor(tensor<int64_t>({0, 1, 2, 2, 0, 1}).reshape({2, 3}), v, IntArrayRef({3, 3}));
  Tensor w = arange(9).to(kFloat32).reshape({3, 3});
  (s.to_dense() * w).sum().backward();
  EXPECT_TRUE(equal(v.grad(), tensor<float>({2, 3, 7})));
}
