// The GPU's unary kernels: EMBER_CUDA_UNARY_KERNEL expands a row of unary_ops.def into a functor and its kernel,
// with the dtype rules of the CPU's (src/cpu/unary/unary_loop.h): compute in Compute<T>, round back to T.
// Each section of the table has its own file here, so each compiles fast.
#pragma once
#include "../../functors/compute.h"
#include "../../dispatch/unary_kernel_dtype.h"
#include "../../functors/unary.h"
#include "../elementwise.cuh"
#include "../kernels.h"

namespace ember::cuda_backend {

// Row functor fn over elements of type T.
template <typename T, typename Fn>
struct UnaryInCompute {
  Fn fn;
  __device__ T operator()(T x) const { return convert<T>(fn(functors::Compute<T>(x))); }
};

}  // namespace ember::cuda_backend

// The functor and kernel of one row, built for the dtypes the op layer lets through (unary_kernel_dtype).
#define EMBER_CUDA_UNARY_KERNEL(name, kind, expr)                                                    \
  namespace unary_rows {                                                                             \
  struct name {                                                                                      \
    template <class C>                                                                               \
    __device__ auto operator()(C x) const {                                                          \
      using namespace functors;                                                                      \
      return expr;                                                                                   \
    }                                                                                                \
  };                                                                                                 \
  }                                                                                                  \
  void name##_kernel(const TensorIterator& it) {                                                     \
    visit_dtype(it.common_dtype(), [&]<typename T>(T) {                                              \
      if constexpr (!unary_kernel_dtype<T>(UnaryKind::kind, #name)) {                               \
        throw Error(#name ": the op layer must reject or convert this dtype first");                \
      } else {                                                                                       \
        elementwise_tensors<T, T>(it.output(), inputs_of<1>(it), UnaryInCompute<T, unary_rows::name>{}); \
      }                                                                                              \
    });                                                                                              \
  }
