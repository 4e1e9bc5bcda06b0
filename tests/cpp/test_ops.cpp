#include <gtest/gtest.h>

#include "ember/ember.h"

using namespace ember;

namespace {
double at(const Tensor& t, std::initializer_list<int64_t> idx) {
  Tensor v = t;
  for (int64_t i : idx) v = v.select(0, i);
  return v.item().to_double();
}
}  // namespace

TEST(Promotion, MatchesTorch) {
  EXPECT_EQ(promote_types(kUInt8, kInt8), kInt16);
  EXPECT_EQ(promote_types(kFloat16, kBFloat16), kFloat32);
  EXPECT_EQ(promote_types(kInt64, kFloat16), kFloat16);
  EXPECT_THROW(promote_types(kFloat8_e4m3fn, kFloat32), TypeError);
  const Tensor ops[2] = {ones({2}, kInt8), wrapped_scalar(2.5)};
  EXPECT_EQ(result_type(ops), kFloat32);
  const Tensor ops2[2] = {ones({2}, kInt8), scalar_tensor(1.5, kFloat64)};
  EXPECT_EQ(result_type(ops2), kFloat64);  // a 0-dim float beats an integer tensor
  EXPECT_FALSE(can_cast(kFloat32, kInt64));
}

TEST(Binary, BroadcastAndOperators) {
  Tensor a = arange(6).reshape({2, 3});
  Tensor b = tensor<double>({0.5, 1.0, 1.5});
  Tensor c = a + b;
  EXPECT_EQ(c.dtype(), kFloat64);
  EXPECT_EQ(at(c, {1, 2}), 6.5);
  EXPECT_EQ((a * 2).dtype(), kInt64);
  EXPECT_EQ((a / 2).dtype(), kFloat32);
  EXPECT_EQ(at(floor_divide(tensor<int64_t>({-7}), tensor<int64_t>({2})), {0}), -4);
  EXPECT_EQ(at(remainder(tensor<int64_t>({-7}), tensor<int64_t>({3})), {0}), 2);
  EXPECT_THROW(ones({2, 3}) + ones({3, 2}), Error);
  Tensor x = arange(3);
  EXPECT_THROW(add_out(x, x, wrapped_scalar(1.5)), Error);  // float result into an int tensor
  EXPECT_EQ(at(x, {2}), 2.0);                              // left unchanged
  EXPECT_THROW(floor_divide(x, tensor<int64_t>({0})), Error);
}

TEST(Unary, Values) {
  Tensor x = tensor<float>({-1.5f, 0.0f, 2.0f});
  EXPECT_NEAR(at(exp(x), {2}), 7.389056, 1e-5);
  EXPECT_EQ(at(relu(x), {0}), 0.0);
  EXPECT_EQ(at(abs(x), {0}), 1.5);
  EXPECT_EQ(sqrt(arange(4)).dtype(), kFloat32);
  EXPECT_THROW(neg(ones({2}, kBool)), Error);
  Tensor y = x.clone();
  tanh_(y);
  EXPECT_NEAR(at(y, {2}), std::tanh(2.0), 1e-6);
}

TEST(Reduce, SumMeanMaxArgmax) {
  Tensor x = arange(12.0).reshape({3, 4});
  EXPECT_EQ(sum(x).item().to_double(), 66.0);
  EXPECT_EQ(at(sum(x, {0}), {3}), 21.0);  // 3 + 7 + 11
  EXPECT_EQ(mean(x, {1}, true).sizes()[1], 1);
  EXPECT_EQ(amax(x).item().to_double(), 11.0);
  auto [values, indices] = max(x, 1);
  EXPECT_EQ(at(indices, {2}), 3.0);
  EXPECT_EQ(argmin(x).item().to_int(), 0);
  EXPECT_EQ(sum(ones({1 << 24})).item().to_double(), 16777216.0);
  EXPECT_EQ(sum(arange(5)).dtype(), kInt64);
  EXPECT_THROW(mean(arange(5)), Error);
  EXPECT_NEAR(at(softmax(x, 1), {0, 3}), 0.6439142, 1e-6);
  EXPECT_NEAR(var(x).item().to_double(), 13.0, 1e-9);
}

TEST(Linalg, Matmul) {
  Tensor a = arange(6.0).reshape({2, 3}), b = arange(12.0).reshape({3, 4});
  Tensor c = matmul(a, b);
  EXPECT_EQ(at(c, {1, 3}), 3 * 3 + 4 * 7 + 5 * 11);
  EXPECT_EQ(at(matmul(a.t().contiguous().t(), b), {1, 3}), 92.0);  // column-major input, same product
  EXPECT_EQ(matmul(ones({5, 2, 3}), ones({3, 4})).sizes()[0], 5);
  EXPECT_EQ(dot(arange(3.0), arange(3.0)).item().to_double(), 5.0);
  EXPECT_THROW(mm(ones({2, 3}), ones({4, 5})), Error);
  Tensor big = ones({300, 200}).to(kFloat64);
  EXPECT_EQ(at(matmul(big, big.t()), {299, 299}), 200.0);
  EXPECT_EQ(at(matmul(ones({64, 64}, kBFloat16), ones({64, 64}, kBFloat16)), {0, 0}), 64.0);
}

TEST(Elementwise, OutFormsResizeAndCheckDtypes) {
  std::vector<std::string> warnings;
  static std::vector<std::string>* sink = &warnings;
  set_warning_handler([](const std::string& m) { sink->push_back(m); });
  Tensor out = empty({0}, kBool);
  lt_out(out, arange(4.0), full({}, 2.0));
  EXPECT_EQ(out.sizes()[0], 4);
  EXPECT_EQ(at(out.to(kFloat64), {1}), 1.0);
  EXPECT_TRUE(warnings.empty());  // an empty out resizes silently
  Tensor wrong = empty({7});
  exp_out(wrong, zeros({2, 2}));
  EXPECT_EQ(wrong.dim(), 2);
  EXPECT_EQ(warnings.size(), 1u);  // a non-empty one with a warning
  Tensor ints = empty({2, 2}, kInt64);
  EXPECT_THROW(abs_out(ints, zeros({2, 2})), Error);  // abs keeps the dtype: out must match it
  EXPECT_THROW(exp_out(ints, zeros({2, 2})), Error);  // float result into an int tensor
  set_warning_handler(nullptr);
}

TEST(Join, CatAndStack) {
  std::vector<Tensor> parts = {ones({2, 3}), zeros({1, 3}, kFloat64)};
  Tensor c = cat(parts, 0);
  EXPECT_EQ(c.sizes()[0], 3);
  EXPECT_EQ(c.dtype(), kFloat64);  // promoted
  EXPECT_EQ(at(c, {2, 1}), 0.0);
  std::vector<Tensor> same = {ones({2}), zeros({2})};
  Tensor s = stack(same, 1);
  EXPECT_EQ(s.sizes()[1], 2);
  EXPECT_EQ(at(s, {0, 1}), 0.0);
  std::vector<Tensor> bad = {ones({2}), ones({3})};
  EXPECT_THROW(stack(bad, 0), Error);
}

TEST(Indexing, AdvancedIndexAndPut) {
  Tensor x = arange(12.0).reshape({3, 4});
  Tensor rows = index(x, {tensor<int64_t>({2, 0})});
  EXPECT_EQ(rows.sizes()[0], 2);
  EXPECT_EQ(at(rows, {0, 1}), 9.0);
  Tensor mask = gt(x, full({}, 9.0));
  EXPECT_EQ(index(x, {mask}).numel(), 2);
  index_put_(x, {mask}, full({}, -1.0));
  EXPECT_EQ(at(x, {2, 3}), -1.0);
  EXPECT_EQ(nonzero(mask).sizes()[0], 2);
  EXPECT_THROW(index(x, {tensor<int64_t>({5})}), IndexError);
}

TEST(OutForms, ReductionsProductsAndIndexing) {
  Tensor x = arange(6.0).reshape({2, 3});
  Tensor out = empty({0}, kInt64);
  sum_out(out, x, {0});  // computed in out's dtype, as torch
  EXPECT_EQ(out.dtype(), kInt64);
  EXPECT_EQ(at(out, {2}), 7);
  Tensor wrong = empty({0}, kFloat64);
  EXPECT_THROW(amax_out(wrong, x, {1}), Error);  // amax: out of the input's dtype
  EXPECT_THROW(mm_out(wrong, x, x.t()), Error);  // mm: out of the product's dtype
  Tensor prod = empty({0});
  mm_out(prod, x, x.t());
  EXPECT_EQ(at(prod, {1, 1}), 50);
  Tensor values = empty({0}), indices = empty({0}, kInt64);
  max_out(values, indices, x, 1);
  EXPECT_EQ(at(values, {1}), 5);
  EXPECT_EQ(at(indices, {0}), 2);
  Tensor picked = empty({0});
  index_select_out(picked, x, 1, tensor<int64_t>({2, 0}));
  EXPECT_EQ(at(picked, {1, 1}), 3);
  Tensor flags = empty({0}, kUInt8);
  all_out(flags, x, OptionalIntArrayRef(IntArrayRef{0}));
  EXPECT_EQ(at(flags, {0}), 0);
  Tensor clamped = empty({0});
  clamp_out(clamped, x, std::optional<Scalar>(1.0), std::optional<Scalar>(4.0));
  EXPECT_EQ(at(clamped, {1, 2}), 4);
  Tensor tracked = x.detach().requires_grad_(true);
  EXPECT_THROW(sum_out(prod, tracked, {0}), Error);  // out= under autograd is refused, as torch
}
