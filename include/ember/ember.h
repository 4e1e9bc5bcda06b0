// The whole public C++ API: #include <ember/ember.h>
#pragma once
#include "ember/allocator.h"
#include "ember/autograd.h"
#include "ember/creation.h"
#include "ember/cuda.h"
#include "ember/device.h"
#include "ember/einsum.h"
#include "ember/dtype.h"
#include "ember/errors.h"
#include "ember/indexing.h"
#include "ember/linalg.h"
#include "ember/math_ops.h"
#include "ember/operators.h"
#include "ember/ops.h"
#include "ember/print.h"
#include "ember/random.h"
#include "ember/reduce.h"
#include "ember/scalar.h"
#include "ember/shape_utils.h"
#include "ember/scatter.h"
#include "ember/sorting.h"
#include "ember/nn/parameter.h"
#include "ember/tensor.h"
#include "ember/type_promotion.h"

namespace ember {
// libtorch's spellings: ember::NoGradGuard, ember::AutoGradMode
using autograd::NoGradGuard;
using AutoGradMode = autograd::GradModeGuard;
}  // namespace ember
#include "ember/nn/conv.h"
#include "ember/nn/pooling.h"

#include "ember/nn/container.h"
#include "ember/nn/init.h"
#include "ember/nn/linear.h"
#include "ember/nn/module.h"
#include "ember/nn/utils.h"

#include "ember/nn/normalization.h"
#include "ember/nn/dropout.h"
#include "ember/nn/padding.h"
#include "ember/nn/embedding.h"
#include "ember/nn/distance.h"
#include "ember/nn/attention.h"
#include "ember/nn/vision.h"

#include "ember/nn/activation.h"
#include "ember/nn/loss.h"

#include "ember/optim/optimizer.h"
