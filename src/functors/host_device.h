// Marks element functions that compile for the CPU and, under nvcc, for CUDA kernels too.
#pragma once

#ifdef __CUDACC__
#define EMBER_HOST_DEVICE __host__ __device__
#else
#define EMBER_HOST_DEVICE
#endif
