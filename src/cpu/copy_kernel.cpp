// The strided copy with dtype conversion (its loops: copy/copy_loops.h) and fill.
#include "copy_kernel.h"

#include "copy/copy_loops.h"

namespace ember::cpu {

void copy_kernel(const Tensor& dst, const Tensor& src) {
  if (dst.numel() == 0) return;
  auto plan = make_plan<2>(dst.sizes(), {dst.strides(), src.strides()},
                           {int64_t(dst.element_size()), int64_t(src.element_size())},
                           {static_cast<char*>(dst.data_ptr()), static_cast<char*>(src.data_ptr())});
  if (is_floating_point(dst.dtype())) copy_into_floats(plan, dst.dtype(), src.dtype());
  else copy_into_integers(plan, dst.dtype(), src.dtype());
}

void fill_kernel(const Tensor& dst, const Scalar& value) {
  visit_dtype(dst.dtype(), [&]<typename D>(D) {
    D v = value.to<D>();  // checked even for an empty tensor, as torch
    if (dst.numel() == 0) return;
    if (dst.is_contiguous() && dst.numel() < kParallelGrain) {  // the common small case, without planning
      std::fill_n(dst.data_ptr<D>(), dst.numel(), v);
      return;
    }
    DimVector zero_strides(dst.sizes().size(), 0);
    auto plan = make_plan<2>(dst.sizes(), {dst.strides(), IntArrayRef(zero_strides)},
                             {int64_t(sizeof(D)), 0}, {static_cast<char*>(dst.data_ptr()), reinterpret_cast<char*>(&v)});
    parallel_rows(plan, kParallelGrain, [](const std::array<char*, 2>& p, int64_t n, const std::array<int64_t, 2>& st) {
      convert_row<D, D>(p[0], p[1], n, st[0], 0);
    });
  });
}

}  // namespace ember::cpu
