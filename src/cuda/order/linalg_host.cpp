// The factorizations of CUDA matrices go through the host, as the SVD does: every tensor argument is copied to the
// CPU, LAPACK (the CPU kernel) runs there, and the tensors (which the kernels write in place) are copied back. No
// cuSOLVER path yet.
#include "linalg_host.h"

#include <tuple>
#include <utility>

#include "../../dispatch/linalg_kernels.h"
#include "ember/host.h"

namespace ember::cuda_backend {

namespace {

Tensor host_argument(const Tensor& t) { return t.defined() ? host_copy(t).contiguous() : Tensor(); }
bool host_argument(bool flag) { return flag; }
void copy_back(const Tensor& device, const Tensor& host) {
  if (device.defined()) Tensor(device).copy_(host);
}
void copy_back(bool, bool) {}

// table[CPU](args on the host...), then each tensor argument written back to its device memory.
template <typename Fn, typename... Args>
void run_on_host(const KernelTable<Fn>& table, const Args&... args) {
  auto host = std::tuple{host_argument(args)...};
  std::apply(table[DeviceType::CPU], host);
  [&]<size_t... I>(std::index_sequence<I...>) {
    (copy_back(args, std::get<I>(host)), ...);
  }(std::index_sequence_for<Args...>{});
}

}  // namespace

void register_linalg_host_kernels() {
  constexpr DeviceType cuda = DeviceType::CUDA;
  kernels::lu_factor.set(cuda, [](const Tensor& a, const Tensor& pivots, const Tensor& info) {
    run_on_host(kernels::lu_factor, a, pivots, info);
  });
  kernels::lu_solve.set(cuda, [](const Tensor& lu, const Tensor& pivots, const Tensor& rhs) {
    run_on_host(kernels::lu_solve, lu, pivots, rhs);
  });
  kernels::triangular_solve.set(cuda, [](const Tensor& a, bool upper, bool unitriangular, const Tensor& rhs) {
    run_on_host(kernels::triangular_solve, a, upper, unitriangular, rhs);
  });
  kernels::cholesky.set(cuda, [](const Tensor& a, bool upper, const Tensor& info) {
    run_on_host(kernels::cholesky, a, upper, info);
  });
  kernels::qr.set(cuda, [](const Tensor& a, const Tensor& q) { run_on_host(kernels::qr, a, q); });
  kernels::eigh.set(cuda, [](const Tensor& a, const Tensor& w, bool vectors, bool upper, const Tensor& info) {
    run_on_host(kernels::eigh, a, w, vectors, upper, info);
  });
}

}  // namespace ember::cuda_backend
