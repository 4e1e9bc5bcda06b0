#include <gtest/gtest.h>

#include "ember/autograd.h"
#include "ember/ember.h"

using namespace ember;

TEST(Autograd, PolynomialFromTheSeeds) {
  Tensor x = full({}, 2.0).requires_grad_();
  Tensor y = x * x + x * 3.0 + 1.0;
  EXPECT_EQ(y.grad_fn()->name(), "AddBackward0");
  y.backward();
  EXPECT_EQ(x.grad().item().to_double(), 7.0);
  (x * x).backward();  // accumulates
  EXPECT_EQ(x.grad().item().to_double(), 11.0);
}

TEST(Autograd, BroadcastMatmulAndGrad) {
  Tensor w = ones({3, 2}).requires_grad_();
  Tensor b = zeros({2}).requires_grad_();
  Tensor x = arange(6.0).reshape({2, 3}).to(kFloat32);
  Tensor loss = sum(matmul(x, w) + b);
  auto grads = autograd::grad({loss}, {w, b});
  EXPECT_EQ(grads[1].sizes()[0], 2);
  EXPECT_EQ(grads[1].select(0, 0).item().to_double(), 2.0);  // summed over the batch
  EXPECT_EQ(grads[0].select(0, 0).select(0, 0).item().to_double(), 3.0);  // 0 + 3
  EXPECT_FALSE(w.grad().defined());
}

TEST(Autograd, NoGradAndErrors) {
  Tensor x = ones({2}).requires_grad_();
  {
    autograd::NoGradGuard guard;
    EXPECT_FALSE((x * 2.0).requires_grad());
  }
  EXPECT_THROW((x * 2.0).backward(), Error);  // not a scalar
  EXPECT_THROW(add_out(x, x, ones({2})), Error);  // in place on a leaf that requires grad
  Tensor y = exp(x);
  Tensor z = sum(y);
  add_out(y, y, ones({2}));
  EXPECT_THROW(z.backward(), Error);  // y was saved by ExpBackward0 and then modified
}

struct Square : autograd::Function<Square> {
  static const char* name() { return "SquareBackward"; }
  static autograd::TensorList forward(autograd::AutogradContext* ctx, const autograd::TensorList& in) {
    ctx->save_for_backward({in[0]});
    return {in[0] * in[0]};
  }
  static autograd::TensorList backward(autograd::AutogradContext* ctx, const autograd::TensorList& grads) {
    Tensor x = ctx->get_saved_variables()[0];
    return {grads[0] * x * 2.0};
  }
};

TEST(Autograd, CustomFunctionInCpp) {
  Tensor x = full({2}, 3.0).requires_grad_();
  Tensor y = Square::apply({x})[0];
  EXPECT_EQ(y.grad_fn()->name(), "SquareBackward");
  sum(y).backward();
  EXPECT_EQ(x.grad().select(0, 1).item().to_double(), 6.0);
}
