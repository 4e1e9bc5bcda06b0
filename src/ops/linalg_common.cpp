// Shared checks and layouts of the factorizations (linalg_common.h).
#include "linalg_common.h"

#include "ember/creation.h"
#include "ember/ops.h"
#include "ember/reduce.h"
#include "ember/type_promotion.h"

namespace ember::linalg_detail {

void check_matrix_shape(const Tensor& a, const char* fn, bool square) {
  EMBER_CHECK(a.dim() >= 2, Error, fn, ": The input tensor A must have at least 2 dimensions.");
  const int64_t r = a.sizes()[a.dim() - 2], c = a.sizes()[a.dim() - 1];
  EMBER_CHECK(!square || r == c, Error, fn, ": A must be batches of square matrices, but they are ", r, " by ", c,
              " matrices");
}

void check_matrix_dtype(const Tensor& a, const char* fn, const char* kernel, bool integers_reach_kernel,
                        bool dispatched_when_empty) {
  if (a.dtype() == kFloat32 || a.dtype() == kFloat64) return;
  std::string_view name = legacy_name(a.dtype());
  if (kernel && (a.is_floating_point() || integers_reach_kernel)) {
    if (a.numel() == 0 && !dispatched_when_empty) return;  // most of torch's kernels are not dispatched for nothing
    throw NotImplementedError(str("\"", kernel, "_", device_type_name(a.device().type), "\" not implemented for '", name,
                                  "'"));
  }
  EMBER_CHECK(a.is_floating_point(), Error, fn, ": Expected a floating point or complex tensor as input. Got ", name);
  throw Error(str(fn, ": Low precision dtypes not supported. Got ", name));
}

void check_matrices(const Tensor& a, const char* fn, bool square, const char* kernel, bool integers_reach_kernel,
                    bool dispatched_when_empty) {
  check_matrix_shape(a, fn, square);
  check_matrix_dtype(a, fn, kernel, integers_reach_kernel, dispatched_when_empty);
}

DimVector batch_shape(const Tensor& a) { return DimVector(IntArrayRef(a.sizes().data(), size_t(a.dim() - 2))); }

Tensor column_major(const Tensor& a) {
  const int64_t r = a.sizes()[a.dim() - 2], c = a.sizes()[a.dim() - 1];
  int64_t matrices = 1;
  for (int64_t d = 0; d < a.dim() - 2; ++d) matrices *= a.sizes()[d];
  // a copy always (a column-major A's transpose is already contiguous): the kernels overwrite it
  return a.detach().mT().clone(MemoryFormat::Contiguous).view({matrices, c, r});
}

Tensor from_column_major(const Tensor& buffer, IntArrayRef batch) {
  DimVector shape(batch);
  shape.push_back(buffer.sizes()[1]);
  shape.push_back(buffer.sizes()[2]);
  return buffer.view(shape).mT();
}

void raise_on_info(const Tensor& info, bool batched, const char* fn,
                   const std::function<std::string(int64_t)>& message) {
  Tensor flat = info.reshape({-1});
  if (flat.numel() == 0 || !any(ne(flat, wrapped_scalar(0))).item().to_bool()) return;
  Tensor host = flat.to(Device(DeviceType::CPU)).contiguous();
  const int32_t* codes = host.data_ptr<int32_t>();
  for (int64_t b = 0; b < flat.numel(); ++b) {
    if (codes[b] == 0) continue;
    std::string where = batched ? str("(Batch element ", b, "): ") : std::string();
    throw LinAlgError(str(fn, ": ", where, message(codes[b])));
  }
}

}  // namespace ember::linalg_detail
