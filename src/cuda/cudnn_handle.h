// cuDNN for the CUDA backend: one handle per device and thread (a thread's handles return to a pool as it ends),
// bound to the current stream each time it is asked for; cuDNN failures raise RuntimeError.
#pragma once
#include <cudnn.h>

namespace ember::cuda_backend {

// A cuDNN call; a failure raises RuntimeError naming the call and cudnnGetErrorString's text.
#define EMBER_CUDNN_CHECK(expr)                                                                        \
  do {                                                                                                 \
    cudnnStatus_t ember_cudnn_status_ = (expr);                                                        \
    if (ember_cudnn_status_ != CUDNN_STATUS_SUCCESS)                                                   \
      ::ember::cuda_backend::raise_cudnn_error(ember_cudnn_status_, #expr, __FILE__, __LINE__);        \
  } while (0)
[[noreturn]] void raise_cudnn_error(cudnnStatus_t status, const char* what, const char* file, int line);

// This thread's handle for the current device, set to the device's current stream.
cudnnHandle_t cudnn_handle();

}  // namespace ember::cuda_backend
