// The libtorch-style C++ face: methods, operators with numbers on either side, x.index({...}), fluent options,
// printable sizes and dtypes, and autograd from <ember/ember.h> alone.
#include <gtest/gtest.h>

#include <sstream>

#include "ember/ember.h"

using namespace ember;
using indexing::Ellipsis;
using indexing::None;
using indexing::Slice;

namespace {

template <typename T>
std::string printed(const T& v) {
  std::ostringstream os;
  os << v;
  return os.str();
}

Tensor floats(std::initializer_list<float> v, IntArrayRef sizes) { return tensor<float>(v).reshape(sizes); }
Tensor bools(std::initializer_list<uint8_t> v) { return tensor<uint8_t>(v).to(kBool); }

}  // namespace

// The program a new user writes first, as in libtorch.
TEST(CppApi, FirstLibtorchStyleProgramRuns) {
  manual_seed(0);
  auto x = ember::randn({3, 4}, ember::TensorOptions().dtype(ember::kFloat).requires_grad(true));
  auto y = (2.0 * x).exp().sum();
  auto m = -x;
  auto c = x > 0;
  auto r = x[0];
  auto s = x.index({ember::indexing::Slice(1, ember::indexing::None), 0});
  auto k = ember::clamp(x, -1, 1);
  y.backward();
  EXPECT_TRUE(x.grad().allclose(2 * (2 * x.detach()).exp()));
  EXPECT_EQ(printed(x.sizes()), "[3, 4]");
  EXPECT_EQ(printed(x.dtype()), "Float");
  EXPECT_EQ(printed(x.device()), "cpu");
  EXPECT_TRUE(m.equal(neg(x)));
  EXPECT_EQ(c.dtype(), kBool);
  EXPECT_TRUE(r.equal(x.select(0, 0)));
  EXPECT_TRUE(s.equal(x.slice(0, 1, std::nullopt).select(1, 0)));
  EXPECT_EQ(printed(s.sizes()), "[2]");
  EXPECT_TRUE(k.amax().item<float>() <= 1 && k.amin().item<float>() >= -1);
  ember::NoGradGuard guard;
  auto y2 = (x * x).sum();
  EXPECT_FALSE(y2.requires_grad());
}

TEST(CppApi, AutogradGradAndGuards) {
  Tensor x = tensor<double>({1.0, 2.0, 3.0}, ember::requires_grad());
  Tensor y = (x * x * x).sum();
  auto g = ember::autograd::grad({y}, {x});
  EXPECT_TRUE(g[0].equal(tensor<double>({3.0, 12.0, 27.0})));
  {
    ember::NoGradGuard no_grad;
    EXPECT_FALSE(autograd::is_grad_enabled());
    EXPECT_FALSE((x * 2).requires_grad());
    ember::AutoGradMode enable(true);
    EXPECT_TRUE((x * 2).requires_grad());
  }
  EXPECT_TRUE(autograd::is_grad_enabled());
}

TEST(CppApi, UnaryMethodsFromTheTable) {
  Tensor x = floats({0.5f, -1.5f, 2.0f, 0.0f}, {2, 2});
  EXPECT_TRUE(x.exp().equal(exp(x)));
  EXPECT_TRUE(x.abs().equal(abs(x)));
  EXPECT_TRUE(x.sigmoid().equal(sigmoid(x)));
  EXPECT_TRUE(x.floor().equal(floats({0, -2, 2, 0}, {2, 2})));
  EXPECT_TRUE(arange(3).bitwise_not().equal(tensor<int64_t>({-1, -2, -3})));
  Tensor y = x.clone();
  Tensor& same = y.exp_();
  EXPECT_TRUE(same.is_same(y));
  EXPECT_TRUE(y.equal(exp(x)));
  EXPECT_THROW(arange(3).exp_(), Error);  // an int64 tensor cannot hold exp's float result, as torch
}

TEST(CppApi, BinaryMethodsTakeTensorsAndNumbers) {
  Tensor a = floats({1, 2, 3, 4}, {2, 2});
  Tensor b = floats({4, 3, 2, 1}, {2, 2});
  EXPECT_TRUE(a.add(b).equal(full({2, 2}, 5.0f)));
  EXPECT_TRUE(a.add(b, 2).equal(floats({9, 8, 7, 6}, {2, 2})));
  EXPECT_TRUE(a.mul(2).equal(floats({2, 4, 6, 8}, {2, 2})));
  EXPECT_EQ(a.mul(2).dtype(), kFloat);  // a number does not promote a tensor of the same kind
  EXPECT_EQ(arange(3).mul(2.5).dtype(), kFloat);
  EXPECT_TRUE(a.pow(2).equal(floats({1, 4, 9, 16}, {2, 2})));
  EXPECT_TRUE(a.maximum(b).equal(floats({4, 3, 3, 4}, {2, 2})));
  EXPECT_TRUE(a.max(b).equal(a.maximum(b)));
  EXPECT_TRUE(a.eq(2).equal(bools({0, 1, 0, 0}).reshape({2, 2})));
  EXPECT_TRUE(arange(4).bitwise_and(1).equal(tensor<int64_t>({0, 1, 0, 1})));
  EXPECT_TRUE(arange(4).div(tensor<int64_t>({2}), "floor").equal(tensor<int64_t>({0, 0, 1, 1})));
  Tensor c = a.clone();
  EXPECT_TRUE(c.add_(1).is_same(c));
  EXPECT_TRUE(c.equal(floats({2, 3, 4, 5}, {2, 2})));
  c.mul_(b);
  EXPECT_TRUE(c.equal(floats({8, 9, 8, 5}, {2, 2})));
  Tensor i = arange(3);
  EXPECT_THROW(i.div_(2), Error);  // true division's float result cannot be written into int64
}

TEST(CppApi, ReductionMethods) {
  Tensor x = floats({1, 2, 3, 4, 5, 6}, {2, 3});
  EXPECT_EQ(x.sum().item<float>(), 21);
  EXPECT_TRUE(x.sum(1).equal(tensor<float>({6, 15})));
  EXPECT_TRUE(x.sum({0, 1}, true).equal(full({1, 1}, 21.0f)));
  EXPECT_TRUE(x.mean(0).equal(tensor<float>({2.5f, 3.5f, 4.5f})));
  EXPECT_EQ(x.prod().item<float>(), 720);
  EXPECT_TRUE(x.amax(1).equal(tensor<float>({3, 6})));
  EXPECT_EQ(x.max().item<float>(), 6);
  auto [values, indices] = x.min(1);
  EXPECT_TRUE(values.equal(tensor<float>({1, 4})));
  EXPECT_TRUE(indices.equal(tensor<int64_t>({0, 0})));
  EXPECT_EQ(x.argmax().item<int64_t>(), 5);
  EXPECT_TRUE(x.argmin(1, true).equal(zeros({2, 1}, kLong)));
  EXPECT_NEAR(x.var().item<double>(), 3.5, 1e-6);
  EXPECT_NEAR(x.std({}, 0).item<double>(), std::sqrt(35.0 / 12), 1e-6);
  EXPECT_NEAR(x.norm().item<double>(), std::sqrt(91.0), 1e-5);
  EXPECT_TRUE(x.cumsum(1).equal(floats({1, 3, 6, 4, 9, 15}, {2, 3})));
  EXPECT_TRUE(x.cumprod(0).equal(floats({1, 2, 3, 4, 10, 18}, {2, 3})));
  EXPECT_TRUE(x.softmax(1).sum(1).allclose(ones({2})));
  EXPECT_TRUE(x.log_softmax(1).exp().allclose(x.softmax(1)));
  EXPECT_TRUE(x.logsumexp(1).allclose(x.exp().sum(1).log()));
  EXPECT_TRUE((x > 0).all().item<bool>());
  EXPECT_TRUE((x > 3).all(1).equal(bools({0, 1})));
  EXPECT_TRUE((x > 5).any(0).equal(bools({0, 0, 1})));
}

TEST(CppApi, AllAnyOverNoDimsGiveEachElementsTruth) {
  Tensor x = tensor<float>({0, 2, -1});
  EXPECT_TRUE(x.all(IntArrayRef{}).equal(bools({0, 1, 1})));  // dim=(), as torch
  EXPECT_TRUE(any(x, std::vector<int64_t>{}).equal(bools({0, 1, 1})));
  EXPECT_EQ(tensor<uint8_t>({0, 3}).all(IntArrayRef{}).dtype(), kUInt8);
  EXPECT_EQ(x.all().dim(), 0);  // no dims given: every dim
  EXPECT_FALSE(x.all().item<bool>());
}

TEST(CppApi, ClampWithNumbersOrTensors) {
  Tensor x = tensor<float>({-3, 0.5f, 3});
  EXPECT_TRUE(clamp(x, -1, 1).equal(tensor<float>({-1, 0.5f, 1})));
  EXPECT_TRUE(x.clamp(0).equal(tensor<float>({0, 0.5f, 3})));
  EXPECT_TRUE(x.clamp(std::nullopt, 0).equal(tensor<float>({-3, 0, 0})));
  EXPECT_TRUE(x.clamp(tensor<float>({0, 0, 0}), tensor<float>({1, 1, 1})).equal(tensor<float>({0, 0.5f, 1})));
  EXPECT_EQ(arange(5).clamp(1, 3).dtype(), kLong);
  EXPECT_EQ(arange(5).clamp(0.5, 3).dtype(), kFloat);  // a float bound promotes, as torch
  Tensor y = x.clone();
  EXPECT_TRUE(y.clamp_(-2, 2).is_same(y));
  EXPECT_TRUE(y.equal(tensor<float>({-2, 0.5f, 2})));
  EXPECT_THROW(clamp(x, std::optional<Scalar>(), std::optional<Scalar>()), Error);
}

TEST(CppApi, SelectionAndLinalgMethods) {
  Tensor x = floats({1, 2, 3, 4}, {2, 2});
  Tensor mask = x > 2;
  EXPECT_TRUE(x.masked_fill(mask, 0).equal(floats({1, 2, 0, 0}, {2, 2})));
  EXPECT_TRUE(x.where(mask, -1).equal(floats({-1, -1, 3, 4}, {2, 2})));
  EXPECT_TRUE(x.index_select(1, tensor<int64_t>({1})).equal(floats({2, 4}, {2, 1})));
  EXPECT_TRUE(x.gather(1, tensor<int64_t>({1, 0}).reshape({2, 1})).equal(floats({2, 3}, {2, 1})));
  EXPECT_TRUE(x.matmul(x).equal(floats({7, 10, 15, 22}, {2, 2})));
  EXPECT_TRUE(x.mm(eye(2)).equal(x));
  EXPECT_EQ(x.to(TensorOptions(kDouble)).dtype(), kDouble);
  EXPECT_TRUE(x.to(TensorOptions().requires_grad(true)).requires_grad());
  EXPECT_TRUE(x.type_as(arange(1)).equal(tensor<int64_t>({1, 2, 3, 4}).reshape({2, 2})));
}

TEST(CppApi, OperatorsWithNumbersOnEitherSide) {
  Tensor x = tensor<float>({1, 2, 4});
  EXPECT_TRUE((2.0 * x).equal(tensor<float>({2, 4, 8})));
  EXPECT_TRUE((x * 2).equal(2 * x));
  EXPECT_TRUE((1 + x).equal(tensor<float>({2, 3, 5})));
  EXPECT_TRUE((1 - x).equal(tensor<float>({0, -1, -3})));
  EXPECT_TRUE((x / 2).equal(tensor<float>({0.5f, 1, 2})));
  EXPECT_TRUE((4 / x).equal(tensor<float>({4, 2, 1})));
  EXPECT_TRUE((x % 3).equal(tensor<float>({1, 2, 1})));
  EXPECT_TRUE((5 % arange(1, 4)).equal(tensor<int64_t>({0, 1, 2})));
  EXPECT_TRUE((1 / arange(1, 3)).equal(tensor<float>({1, 0.5f})));  // true division, as Python's 1 / x
  EXPECT_TRUE((-x).equal(tensor<float>({-1, -2, -4})));
  EXPECT_TRUE((x - x).equal(zeros({3})));
  Tensor i = arange(4);
  EXPECT_TRUE((i & 1).equal(tensor<int64_t>({0, 1, 0, 1})));
  EXPECT_TRUE((2 | i).equal(tensor<int64_t>({2, 3, 2, 3})));
  EXPECT_TRUE((i ^ i).equal(zeros({4}, kLong)));
  EXPECT_TRUE((~(i > 1)).equal(bools({1, 1, 0, 0})));
  EXPECT_TRUE(((i > 0) & (i < 3)).equal(bools({0, 1, 1, 0})));
  EXPECT_THROW(-(i > 1), Error);  // negation of a bool tensor, as torch
}

TEST(CppApi, ComparisonsGiveBoolTensorsAndIsSameTellsIdentity) {
  Tensor x = tensor<float>({1, 2, 3});
  Tensor y = x;
  EXPECT_TRUE(x.is_same(y));
  EXPECT_FALSE(x.is_same(x.clone()));
  Tensor eq = x == x.clone();
  EXPECT_EQ(eq.dtype(), kBool);
  EXPECT_TRUE(eq.all().item<bool>());
  EXPECT_TRUE((x != 2).equal(bools({1, 0, 1})));
  EXPECT_TRUE((x < 2).equal(bools({1, 0, 0})));
  EXPECT_TRUE((2 < x).equal(bools({0, 0, 1})));
  EXPECT_TRUE((2 <= x).equal(x >= 2));
  EXPECT_TRUE((3 > x).equal(x < 3));
  EXPECT_TRUE((1 == x).equal(x == 1));
}

TEST(CppApi, CompoundAssignmentIsInPlace) {
  Tensor x = tensor<float>({1, 2, 3});
  Tensor alias = x;
  x += 1;
  x *= tensor<float>({2, 2, 2});
  x -= 1;
  x /= 2;
  EXPECT_TRUE(alias.equal(tensor<float>({1.5f, 2.5f, 3.5f})));
  Tensor m = zeros({2, 3});
  m[1] += 5;  // writes through the view, as libtorch
  EXPECT_TRUE(m.equal(floats({0, 0, 0, 5, 5, 5}, {2, 3})));
  Tensor i = arange(3);
  EXPECT_THROW(i /= 2, Error);
}

TEST(CppApi, SubscriptSelectsAlongTheFirstDim) {
  Tensor x = arange(12).reshape({3, 4});
  EXPECT_TRUE(x[1].equal(arange(4, 8)));
  EXPECT_TRUE(x[-1][2].equal(scalar_tensor(10)));
  EXPECT_EQ(x[1].storage_offset(), 4);  // a view
  EXPECT_TRUE(x[tensor<int64_t>({2, 0})].equal(stack(std::vector<Tensor>{x[2], x[0]})));
  EXPECT_THROW(x[3], IndexError);
  EXPECT_THROW(scalar_tensor(1)[0], IndexError);
}

TEST(CppApi, IndexWithSlicesNoneEllipsisBoolsAndTensors) {
  Tensor x = arange(24).reshape({2, 3, 4});
  EXPECT_TRUE(x.index({0}).equal(x[0]));
  EXPECT_TRUE(x.index({Slice(), 1}).equal(x.select(1, 1)));
  EXPECT_TRUE(x.index({Slice(1, None), 0}).equal(x.slice(0, 1, std::nullopt).select(1, 0)));
  EXPECT_TRUE(x.index({Slice(None, None, 2)}).equal(x.slice(0, std::nullopt, std::nullopt, 2)));
  EXPECT_TRUE(x.index({Slice(None, None, None), Slice(1)}).equal(x.slice(1, 1, std::nullopt)));
  EXPECT_TRUE(x.index({Ellipsis, -1}).equal(x.select(2, 3)));
  EXPECT_TRUE(x.index({"...", 0}).equal(x.select(2, 0)));
  EXPECT_EQ(printed(x.index({None, 0, None}).sizes()), "[1, 1, 3, 4]");
  EXPECT_EQ(printed(x.index({true}).sizes()), "[1, 2, 3, 4]");
  EXPECT_EQ(printed(x.index({false}).sizes()), "[0, 2, 3, 4]");
  Tensor picked = x.index({Slice(), tensor<int64_t>({2, 0}), Slice(1, 3)});
  EXPECT_EQ(printed(picked.sizes()), "[2, 2, 2]");
  EXPECT_EQ(picked.index({1, 0, 1}).item<int64_t>(), 12 + 8 + 2);
  Tensor y = arange(6).reshape({2, 3});
  EXPECT_TRUE(y.index({y > 3}).equal(tensor<int64_t>({4, 5})));
  EXPECT_TRUE(y.index({scalar_tensor(1)}).equal(y[1]));  // a 0-dim integer tensor acts as a number
  EXPECT_THROW(y.index({0, 0, 0}), IndexError);
  EXPECT_THROW(y.index({Slice(None, None, -1)}), ValueError);
  EXPECT_THROW(y.index({"..x"}), ValueError);
  // one lone integer takes torch's fast path: a 0-dim tensor names the 0-dim case
  try {
    scalar_tensor(1).index({0});
    FAIL();
  } catch (const IndexError& e) {
    EXPECT_NE(std::string(e.what()).find("invalid index of a 0-dim tensor"), std::string::npos);
  }
}

TEST(CppApi, OneEntryOrAListOfEntries) {
  Tensor s = scalar_tensor(1.0);
  std::vector<indexing::TensorIndex> one{0};  // Python's x[(0,)]: the count is checked first
  try {
    indexing::get_item(s, one);
    FAIL();
  } catch (const IndexError& e) {
    EXPECT_NE(std::string(e.what()).find("too many indices for tensor of dimension 0"), std::string::npos);
  }
  Tensor x = arange(6).reshape({2, 3});
  EXPECT_FALSE(indexing::get_item(x, indexing::TensorIndex(Slice())).is_same(x));  // x[:] is a new view
  Tensor y = zeros({2});
  indexing::set_item(y, indexing::TensorIndex(true), tensor<float>({1, 2}));  // x[True] = v writes the view
  EXPECT_TRUE(y.equal(tensor<float>({1, 2})));
  indexing::set_item(y, std::vector<indexing::TensorIndex>{true, 0}, 7);
  EXPECT_TRUE(y.equal(tensor<float>({7, 2})));
}

TEST(CppApi, IndexPutWritesThroughViewsAndIndices) {
  Tensor x = zeros({3, 4});
  x.index_put_({0}, 1);
  x.index_put_({Slice(), -1}, tensor<float>({7, 8, 9}));
  x.index_put_({x == 0}, 2);
  EXPECT_TRUE(x.equal(floats({1, 1, 1, 7, 2, 2, 2, 8, 2, 2, 2, 9}, {3, 4})));
  x.index_put_({tensor<int64_t>({0, 2}), 0}, tensor<float>({-1, -2}));
  EXPECT_TRUE(x.index({Slice(), 0}).equal(tensor<float>({-1, 2, -2})));
  x.index_put_({false}, 100);  // writes nothing
  EXPECT_EQ(x.amax().item<float>(), 9);
  x.index_put_({Ellipsis}, ones({1, 1, 4}));  // leading unit dims of the value are dropped, as torch
  EXPECT_TRUE(x.equal(ones({3, 4})));
}

TEST(CppApi, IndexingIsDifferentiable) {
  Tensor x = arange(6, TensorOptions(kDouble).requires_grad(true));
  Tensor y = x.index({Slice(1, 4)}).sum() + x.index({tensor<int64_t>({0, 0})}).sum();
  y.backward();
  EXPECT_TRUE(x.grad().equal(tensor<double>({2, 1, 1, 1, 0, 0})));
}

TEST(CppApi, FluentOptions) {
  TensorOptions o = TensorOptions().dtype(kFloat).device(kCPU).requires_grad(true);
  EXPECT_EQ(o.dtype_opt(), kFloat);
  EXPECT_TRUE(o.requires_grad());
  EXPECT_TRUE(o.device().is_cpu());
  Tensor z = zeros({2}, o);
  EXPECT_TRUE(z.requires_grad() && z.is_leaf());
  EXPECT_EQ(ones({2}, ember::dtype(kLong)).dtype(), kInt64);
  EXPECT_EQ(full({2}, 1, kDouble).dtype(), kFloat64);
  EXPECT_EQ(empty({1}, ember::device(kCPU).dtype(kHalf)).dtype(), kFloat16);
  EXPECT_EQ(arange(3, TensorOptions().dtype(kInt)).dtype(), kInt32);
  EXPECT_TRUE(randn({2}, ember::requires_grad()).requires_grad());
  EXPECT_FALSE(TensorOptions().has_dtype());
  EXPECT_EQ(kByte, kUInt8);
  EXPECT_EQ(kChar, kInt8);
  EXPECT_EQ(kShort, kInt16);
  EXPECT_EQ(z.options().dtype_opt(), kFloat);
}

TEST(CppApi, PrintableSizesDtypesDevices) {
  Tensor x = zeros({3, 4}, kLong);
  EXPECT_EQ(printed(x.sizes()), "[3, 4]");
  EXPECT_EQ(printed(x.strides()), "[4, 1]");
  EXPECT_EQ(printed(scalar_tensor(1).sizes()), "[]");
  EXPECT_EQ(printed(x.dtype()), "Long");
  EXPECT_EQ(printed(kBFloat16), "BFloat16");
  EXPECT_EQ(printed(x.device()), "cpu");
  EXPECT_EQ(x[0][0].item<int64_t>(), 0);
}

TEST(CppApi, CatAndStackOut) {
  std::vector<Tensor> parts{tensor<float>({1, 2}), tensor<float>({3})};
  Tensor out = empty({0});
  EXPECT_TRUE(cat_out(out, parts, 0).is_same(out));
  EXPECT_TRUE(out.equal(tensor<float>({1, 2, 3})));
  Tensor wide = empty({0}, kDouble);
  stack_out(wide, std::vector<Tensor>{tensor<float>({1}), tensor<float>({2})}, 1);
  EXPECT_TRUE(wide.equal(tensor<double>({1, 2}).reshape({1, 2})));
  Tensor narrow = empty({0}, kLong);
  EXPECT_THROW(cat_out(narrow, parts, 0), TypeError);
}

// The composite math ops, unique and the numpy-named views are Tensor methods too, as in libtorch.
TEST(CppApi, CompositeMathMethods) {
  Tensor x = floats({0.25f, 0.5f, -1.f, 2.f}, {2, 2});
  Tensor p = floats({0.25f, 0.5f, 0.75f, 0.125f}, {2, 2});
  EXPECT_TRUE(p.logit().allclose(logit(p)));
  EXPECT_TRUE(x.signbit().equal(signbit(x)));
  EXPECT_NEAR(x.nansum().item<float>(), 1.75f, 1e-6);
  EXPECT_NEAR(x.nanmean({1}).sum().item<float>(), 0.875f, 1e-6);
  EXPECT_TRUE(x.logcumsumexp(0).allclose(logcumsumexp(x, 0)));
  EXPECT_TRUE(x.diff().equal(diff(x)));
  EXPECT_TRUE(x.kron(x).equal(kron(x, x)));
  EXPECT_NEAR(x.dist(zeros_like(x)).item<float>(), std::sqrt(5.3125f), 1e-5);
  Tensor v = floats({1, 0, 0, 0, 1, 0}, {2, 3});
  EXPECT_TRUE(v.cross(v.flip({0}), 1).equal(cross(v, v.flip({0}), 1)));
  auto [values, inverse, counts] = tensor<int64_t>({3, 1, 3, 2}).unique(true, true, true);
  EXPECT_EQ(printed(values.sizes()), "[3]");
  EXPECT_EQ(counts[2].item<int64_t>(), 2);
  EXPECT_EQ(inverse[0].item<int64_t>(), 2);
  EXPECT_EQ(std::get<0>(tensor<int64_t>({1, 1, 2, 1}).unique_consecutive()).numel(), 3);
  EXPECT_EQ(x.swapaxes(0, 1).stride(0), 1);
  EXPECT_EQ(x.swapdims(0, 1).stride(0), 1);
  EXPECT_EQ(zeros({2, 3, 4}).moveaxis({0}, {2}).sizes()[2], 2);
  EXPECT_EQ(printed(arange(4).view_as(x).sizes()), "[2, 2]");
  EXPECT_EQ(printed(arange(4).reshape_as(x).sizes()), "[2, 2]");
}

// The SVD: U diag(S) Vh rebuilds A; the matrix norms that need singular values.
TEST(CppApi, SvdAndSingularValueNorms) {
  Tensor a = arange(12, TensorOptions().dtype(kFloat64)).reshape({3, 4}).sin();
  auto [u, s, vh] = linalg_svd(a, false);
  EXPECT_EQ(printed(u.sizes()), "[3, 3]");
  EXPECT_EQ(printed(vh.sizes()), "[3, 4]");
  EXPECT_TRUE(matmul(u * s.unsqueeze(0), vh).allclose(a, 1e-12, 1e-12));
  EXPECT_TRUE(linalg_svdvals(a).allclose(s));
  EXPECT_NEAR(linalg_matrix_norm(a, "nuc").item<double>(), s.sum().item<double>(), 1e-12);
  EXPECT_NEAR(linalg_matrix_norm(a, 2).item<double>(), s[0].item<double>(), 1e-12);
  EXPECT_NEAR(linalg_matrix_norm(a, -2).item<double>(), s[2].item<double>(), 1e-12);
  auto [u2, s2, v2] = a.svd();
  EXPECT_TRUE(matmul(u2 * s2.unsqueeze(0), v2.transpose(0, 1)).allclose(a, 1e-12, 1e-12));
  Tensor bad = a.clone();
  bad.index_put_({0, 0}, std::nan(""));
  EXPECT_THROW(linalg_svd(bad), LinAlgError);
}
