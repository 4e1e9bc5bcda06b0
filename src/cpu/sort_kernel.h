// The order-statistics kernels (see the tables in src/dispatch/kernels.h).
#pragma once
#include "../dispatch/kernels.h"
#include "../dispatch/scan_kernel.h"
#include "compute_type.h"

namespace ember::cpu {

void sort_kernel(const Tensor& rows, const Tensor& values, const Tensor& indices, bool descending, bool stable);
void topk_kernel(const Tensor& rows, int64_t k, bool largest, bool sorted, const Tensor& values, const Tensor& indices);
void row_stat_kernel(RowStat stat, const Tensor& rows, int64_t k, const Tensor& values, const Tensor& indices);
void cum_extremum_kernel(bool is_max, const Tensor& rows, const Tensor& values, const Tensor& indices);
void searchsorted_kernel(const Tensor& boundaries, const Tensor& values, const Tensor& out, bool right);
void scan_kernel(const Tensor& rows, const Tensor& out, bool product);
void histc_kernel(const Tensor& x, const Tensor& out, double min, double max);
int64_t unique_runs_kernel(const Tensor& x, const Tensor& values, const Tensor& counts, const Tensor& group);

// Calls fn(T{}) for the dtypes the order statistics take (all but float8, which the op layer refuses).
template <typename Fn>
void visit_sortable(ScalarType t, Fn&& fn) {
  visit_dtype(t, [&]<typename T>(T) {
    if constexpr (!is_float8<T>) fn(T{});
  });
}

}  // namespace ember::cpu
