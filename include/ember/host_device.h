// Marks functions that compile for the CPU and, under nvcc, for CUDA kernels too (element functions,
// the small float types, dtype conversion).
#pragma once

#ifdef __CUDACC__
#define EMBER_HOST_DEVICE __host__ __device__
#else
#define EMBER_HOST_DEVICE
#endif

// An element function the compiler must inline into its loop (GCC may otherwise leave a call in a loop it would
// vectorise).
#define EMBER_ALWAYS_INLINE __attribute__((always_inline)) inline
