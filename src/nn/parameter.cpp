#include "ember/nn/parameter.h"

#include "ember/errors.h"

namespace ember::nn {

Tensor make_parameter(const Tensor& data, bool requires_grad) {
  EMBER_CHECK(!requires_grad || is_floating_point(data.dtype()), Error,
              "Only Tensors of floating point and complex dtype can require gradients");
  Tensor p = data.detach();
  p.requires_grad_(requires_grad);
  p.impl()->is_parameter = true;
  return p;
}

}  // namespace ember::nn
