// Convolutions on CUDA through cuDNN (conv.cpp): the CUDA column of kernels::conv_forward, conv_backward_data,
// conv_backward_weights and conv_backward.
#pragma once

namespace ember::cuda_backend {

void register_conv_kernels();

}  // namespace ember::cuda_backend
