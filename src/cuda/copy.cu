// copy_ between CUDA tensors of one device: any strides, any dtype pair (convert<To>(From), as the CPU); the
// conversions into floating types (those into bool and integers: copy_integers.cu).
#include "bits.h"
#include "copy_convert.cuh"
#include "kernels.h"

namespace ember::cuda_backend {

template void copy_convert<false>(const StridedPlan<2>&, ScalarType, ScalarType);

void copy_kernel(const Tensor& dst, const Tensor& src) {
  EMBER_CHECK(dst.device().is_cuda() && src.device().is_cuda(), Error,
              "CUDA copy kernel: expected two CUDA tensors, got ", dst.device().str(), " and ", src.device().str());
  if (dst.numel() == 0) return;
  int64_t dsize = int64_t(dst.element_size()), ssize = int64_t(src.element_size());
  auto plan = make_plan<2>(dst.sizes(), {dst.strides(), src.strides()}, {dsize, ssize},
                           {static_cast<char*>(dst.data_ptr()), static_cast<char*>(src.data_ptr())});
  if (dst.dtype() == src.dtype()) {
    if (plan.ndim() == 1 && plan.strides[0][0] == dsize && plan.strides[1][0] == dsize) {  // one dense block
      EMBER_CUDA_CHECK(cudaMemcpyAsync(plan.base[0], plan.base[1], size_t(plan.numel * dsize), cudaMemcpyDeviceToDevice,
                                       current_stream()));
      return;
    }
    // same-dtype copies move bits: 4 kernels serve every dtype
    visit_bits(size_t(dsize), [&]<typename U>(U) { elementwise<U, U>(plan, Convert<U, U>{}); });
    return;
  }
  if (is_floating_point(dst.dtype())) copy_convert<false>(plan, dst.dtype(), src.dtype());
  else copy_convert<true>(plan, dst.dtype(), src.dtype());
}

}  // namespace ember::cuda_backend
