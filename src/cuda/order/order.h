// The CUDA kernels of the order statistics, scans, searches, scatter, masked_select, triangle and the SVD
// (src/cuda/order/*.cu; contracts in src/dispatch/kernels.h and scan_kernel.h).
#pragma once
#include "../../dispatch/kernels.h"
#include "../../dispatch/scan_kernel.h"

namespace ember::cuda_backend {

// Fills the CUDA column of the tables below (register.cpp).
void register_order_kernels();

void sort_kernel(const Tensor& rows, const Tensor& values, const Tensor& indices, bool descending, bool stable);
void topk_kernel(const Tensor& rows, int64_t k, bool largest, bool sorted, const Tensor& values, const Tensor& indices);
void row_stat_kernel(RowStat stat, const Tensor& rows, int64_t k, const Tensor& values, const Tensor& indices);
void cum_extremum_kernel(bool is_max, const Tensor& rows, const Tensor& values, const Tensor& indices);
void scan_kernel(const Tensor& rows, const Tensor& out, bool product);
void searchsorted_kernel(const Tensor& boundaries, const Tensor& values, const Tensor& out, bool right);
void histc_kernel(const Tensor& x, const Tensor& out, double min, double max);
int64_t unique_runs_kernel(const Tensor& x, const Tensor& values, const Tensor& counts, const Tensor& group);
void triangle_kernel(const Tensor& dst, const Tensor& src, bool upper, int64_t diagonal);
std::optional<int64_t> scatter_kernel(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                                      ScatterReduce op);
Tensor masked_select_kernel(const Tensor& src, const Tensor& mask);
void svd_kernel(const Tensor& a, const Tensor& s, const Tensor& u, const Tensor& vh, bool full);

}  // namespace ember::cuda_backend
