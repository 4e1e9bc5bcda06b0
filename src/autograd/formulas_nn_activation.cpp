// Derivatives of the nn activations (ember::nn::functional), with torch's node names.
#include "ember/creation.h"
#include "ember/ops.h"
#include "ember/reduce.h"
#include "ember/type_promotion.h"
#include "formulas.h"

namespace ember::autograd {

Tensor activation_backward(Activation op, const Tensor& grad, const Tensor& saved, const ActivationParams& p,
                           bool from_result) {
  Tensor r = untracked([&] {
    const Tensor inputs[2] = {grad, saved};
    TensorIterator it({}, inputs);
    kernels::activation_backward[it.device_type()](op, it, p, from_result);
    return it.finish();
  });
  if (needs_grad({&grad, &saved})) record_not_implemented("activation_backward", r, grad, saved);
  return r;
}

void record_activation(const char* name, Activation op, const ActivationParams& p, const Tensor& result,
                       const Tensor& x, bool from_result) {
  record(name, result, {&x}, {from_result ? &result : &x}, [op, p, from_result](const BackwardContext& c) {
    // torch's in-place leaky_relu_/elu_ cannot invert a negative slope from the result
    EMBER_CHECK(!from_result || op != Activation::LeakyRelu || p.a >= 0, Error,
                "In-place leakyReLu backward calculation is triggered with a negative slope which is not supported. "
                "This is caused by calling in-place forward function with a negative slope, please call out-of-place "
                "version instead. File an issue at https://github.com/pytorch/pytorch if you do require supporting "
                "in-place leakRelu backward calculation with negative slope");
    EMBER_CHECK(!from_result || op != Activation::Elu || p.a >= 0, Error,
                "In-place elu backward calculation is triggered with a negative slope which is not supported. This is "
                "caused by calling in-place forward function with a negative slope, please call out-of-place version "
                "instead.");
    return TensorList{activation_backward(op, c.grads[0], c.saved[0], p, from_result)};
  });
}

void record_glu(const Tensor& result, const Tensor& x, int64_t dim) {
  record("GluBackward0", result, {&x}, {&x}, [dim](const BackwardContext& c) {
    const Tensor& x = c.saved[0];
    int64_t h = x.sizes()[size_t(dim)] / 2;
    Tensor a = x.narrow(dim, 0, h), sb = sigmoid(x.narrow(dim, h, h));
    Tensor ga = mul(c.grads[0], sb);
    const Tensor parts[2] = {ga, mul(mul(ga, a), sub(wrapped_scalar(1), sb))};
    return TensorList{cat(parts, dim)};
  });
}

void record_prelu(const Tensor& result, const Tensor& x, const Tensor& weight) {
  record("PreluKernelBackward0", result, {&x, &weight}, {&x, &weight}, [](const BackwardContext& c) {
    const Tensor &g = c.grads[0], &x = c.saved[0], &w = c.saved[1];
    Tensor positive = gt(x, wrapped_scalar(0));
    Tensor gx = c.needs(0) ? where(positive, g, mul(w, g)) : Tensor();
    Tensor gw = c.needs(1) ? sum_to(where(positive, wrapped_scalar(0), mul(x, g)), w.sizes()) : Tensor();
    return TensorList{gx, gw};
  });
}

void record_rrelu_noise(const char* name, const Tensor& result, const Tensor& x, const Tensor& noise) {
  record(name, result, {&x}, {&noise}, [](const BackwardContext& c) {
    return TensorList{mul(c.grads[0], c.saved[0])};
  });
}

}  // namespace ember::autograd
