// The SVD of CUDA matrices goes through the host: the batch is copied to the CPU, LAPACK (the CPU kernel) runs
// there, and the factors are copied back (no cuSOLVER path yet).
#include <utility>

#include "ember/creation.h"
#include "ember/host.h"
#include "order.h"

namespace ember::cuda_backend {

void svd_kernel(const Tensor& a, const Tensor& s, const Tensor& u, const Tensor& vh, bool full) {
  auto on_host = [](const Tensor& t) {
    return t.defined() ? empty(t.sizes(), t.options().with_device(kCPU)) : Tensor();
  };
  Tensor ha = host_copy(a).contiguous(), hs = on_host(s), hu = on_host(u), hvh = on_host(vh);
  kernels::svd[DeviceType::CPU](ha, hs, hu, hvh, full);
  for (auto [dst, src] : {std::pair{s, hs}, std::pair{u, hu}, std::pair{vh, hvh}}) {
    if (dst.defined()) Tensor(dst).copy_(src);
  }
}

}  // namespace ember::cuda_backend
