// Shared by the activation kernels (activation.cu, activation_backward.cu): the enum value as a template argument.
#pragma once
#include <type_traits>

#include "../../functors/compute.h"
#include "../elementwise.cuh"
#include "nn_kernels.h"

namespace ember::cuda_backend {

// Calls fn(std::integral_constant<Activation, op>{}), so each activation gets a kernel of its own.
template <typename Fn>
void visit_activation(Activation op, Fn&& fn) {
  using A = Activation;
  switch (op) {
#define EMBER_CASE(name) \
  case A::name: return fn(std::integral_constant<A, A::name>{});
    EMBER_CASE(LeakyRelu) EMBER_CASE(Elu) EMBER_CASE(Hardtanh) EMBER_CASE(Hardswish) EMBER_CASE(Hardsigmoid)
    EMBER_CASE(Threshold) EMBER_CASE(Mish) EMBER_CASE(LogSigmoid) EMBER_CASE(Softshrink) EMBER_CASE(Hardshrink)
    EMBER_CASE(GeluErf) EMBER_CASE(GeluTanh) EMBER_CASE(Silu)
#undef EMBER_CASE
  }
  throw Error("unknown activation");
}

constexpr double kSqrt1_2 = 0.70710678118654752440, kTwoOverSqrtPi = 1.12837916709551257390;
constexpr double kSqrt2OverPi = 0.79788456080286535588, kCubic = 0.044715;

}  // namespace ember::cuda_backend
