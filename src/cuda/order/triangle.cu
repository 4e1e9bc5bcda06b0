// tril/triu on CUDA: one thread per element of (B, R, C) tensors of any strides, moving bits (dst may be src).
#include "order.cuh"

namespace ember::cuda_backend {

namespace {

struct Strides3 {
  int64_t b, i, j;
};

template <typename U>
__global__ void triangle_elements(U* dst, Strides3 ds, const U* src, Strides3 ss, int64_t total, int64_t rows,
                                  int64_t cols, bool upper, int64_t diagonal) {
  for (int64_t p = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; p < total; p += int64_t(gridDim.x) * blockDim.x) {
    int64_t j = p % cols, i = p / cols % rows, b = p / cols / rows;
    bool keep = upper ? j - i >= diagonal : j - i <= diagonal;
    dst[b * ds.b + i * ds.i + j * ds.j] = keep ? src[b * ss.b + i * ss.i + j * ss.j] : U(0);
  }
}

}  // namespace

void triangle_kernel(const Tensor& dst, const Tensor& src, bool upper, int64_t diagonal) {
  const int64_t total = dst.numel();
  if (total == 0) return;
  DeviceGuard guard(device_index(dst.device()));
  auto strides = [](const Tensor& t) { return Strides3{t.strides()[0], t.strides()[1], t.strides()[2]}; };
  visit_bits(dst.element_size(), [&]<typename U>(U) {
    triangle_elements<U><<<blocks_for(total), kBlockThreads, 0, current_stream()>>>(
        static_cast<U*>(dst.data_ptr()), strides(dst), static_cast<const U*>(src.data_ptr()), strides(src), total,
        dst.sizes()[1], dst.sizes()[2], upper, diagonal);
    EMBER_CUDA_LAUNCH();
  });
}

}  // namespace ember::cuda_backend
