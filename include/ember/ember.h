// The whole public C++ API: #include <ember/ember.h>
#pragma once
#include "ember/allocator.h"
#include "ember/amp.h"  // GradScaler's ops
#include "ember/autocast.h"  // ember::autocast: mixed precision regions
#include "ember/autograd.h"
#include "ember/creation.h"
#include "ember/cuda.h"
#include "ember/cuda_graph.h"
#include "ember/cudnn.h"  // ember::cudnn: allow_tf32 / benchmark / deterministic
#include "ember/decompositions.h"
#include "ember/device.h"
#include "ember/einsum.h"
#include "ember/dtype.h"
#include "ember/errors.h"
#include "ember/indexing.h"
#include "ember/linalg.h"
#include "ember/math_ops.h"
#include "ember/operators.h"
#include "ember/ops.h"
#include "ember/pointwise.h"
#include "ember/products.h"
#include "ember/quantized.h"
#include "ember/numerics.h"
#include "ember/shape_in_place.h"
#include "ember/sparse.h"
#include "ember/view_scatter.h"
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
#include "ember/data/dataset.h"
#include "ember/vision/datasets.h"  // ember::vision: image transforms and datasets
#include "ember/serialize.h"
#include "ember/nn/modules_conv.h"
#include "ember/nn/modules_norm.h"
#include "ember/nn/modules_misc.h"
#include "ember/optim/lr_scheduler.h"
#include "ember/nn/modules_activation.h"
#include "ember/nn/modules_loss.h"
#include "ember/nn/transformer.h"
#include "ember/data/dataloader.h"  // ember::data: samplers and the C++ DataLoader
#include "ember/data/datasets.h"
#include "ember/parallel.h"  // set_num_threads / get_num_threads
