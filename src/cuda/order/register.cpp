// The CUDA column of the order, scan, search, scatter and triangle tables.
#include "order.h"

namespace ember::cuda_backend {

void register_order_kernels() {
  constexpr DeviceType cuda = DeviceType::CUDA;
  kernels::sort.set(cuda, sort_kernel);
  kernels::topk.set(cuda, topk_kernel);
  kernels::row_stat.set(cuda, row_stat_kernel);
  kernels::cum_extremum.set(cuda, cum_extremum_kernel);
  kernels::scan.set(cuda, scan_kernel);
  kernels::searchsorted.set(cuda, searchsorted_kernel);
  kernels::histc.set(cuda, histc_kernel);
  kernels::unique_runs.set(cuda, unique_runs_kernel);
  kernels::triangle.set(cuda, triangle_kernel);
  kernels::scatter.set(cuda, scatter_kernel);
  kernels::masked_select.set(cuda, masked_select_kernel);
  kernels::svd.set(cuda, svd_kernel);
}

}  // namespace ember::cuda_backend
