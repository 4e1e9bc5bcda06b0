// cuBLASLt for the CUDA backend: one handle per device and one workspace per (device, stream), created on first
// use, and the process-wide TF32 switch of float32 products (torch.backends.cuda.matmul.allow_tf32).
#pragma once
#include <cublasLt.h>

#include <cstddef>

namespace ember::cuda_backend {

// A cuBLAS(Lt) call; a failure raises RuntimeError naming the call and the cuBLAS status.
#define EMBER_CUBLAS_CHECK(expr)                                                                       \
  do {                                                                                                 \
    cublasStatus_t ember_cublas_status_ = (expr);                                                      \
    if (ember_cublas_status_ != CUBLAS_STATUS_SUCCESS)                                                 \
      ::ember::cuda_backend::raise_cublas_error(ember_cublas_status_, #expr, __FILE__, __LINE__);      \
  } while (0)
[[noreturn]] void raise_cublas_error(cublasStatus_t status, const char* what, const char* file, int line);

struct BlasHandle {
  cublasLtHandle_t handle = nullptr;
  void* workspace = nullptr;  // scratch for split-K and stream-K kernels, of workspace_size bytes
  size_t workspace_size = 0;
};

// The current device's handle, with the workspace of its current stream (products on two streams at once never
// share scratch memory).
BlasHandle blas_handle();

// Whether float32 products may round their inputs to TF32 (default false: full float32, as torch).
bool allow_tf32();
void set_allow_tf32(bool allow);

}  // namespace ember::cuda_backend
