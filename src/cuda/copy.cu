// copy_ between CUDA tensors of one device: any strides, any dtype pair (convert<To>(From), as the CPU).
#include "bits.h"
#include "elementwise.cuh"
#include "kernels.h"

namespace ember::cuda_backend {

namespace {

template <typename To, typename From>
struct Convert {
  __device__ To operator()(From v) const { return convert<To>(v); }
};

}  // namespace

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
  visit_dtype(dst.dtype(), [&]<typename To>(To) {
    visit_dtype(src.dtype(), [&]<typename From>(From) {
      if constexpr (!std::is_same_v<To, From>) elementwise<To, From>(plan, Convert<To, From>{});
    });
  });
}

}  // namespace ember::cuda_backend
