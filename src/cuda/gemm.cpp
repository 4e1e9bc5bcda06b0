// gemm and batched gemm on CUDA through cuBLASLt: the row-major product C = A @ B runs as the column-major
// C^T = B^T A^T, with transposed operands passed as transpose flags, not copied, and a batch as one strided call.
#include <algorithm>
#include <array>
#include <limits>
#include <map>
#include <mutex>
#include <optional>

#include "blas_handle.h"
#include "ember/creation.h"
#include "ember/ops.h"
#include "ember/type_promotion.h"
#include "kernels.h"
#include "runtime.h"

namespace ember::cuda_backend {

namespace {

// A row-major (rows, cols) matrix as a column-major cuBLAS operand `op` whose op() is the matrix's transpose:
// row-major data is that transpose already (stored cols x rows), column-major data is stored rows x cols.
// Batched: matrix i starts at data + i * batch_stride elements.
struct Operand {
  const void* data;
  cublasOperation_t op;
  uint64_t stored_rows, stored_cols;
  int64_t ld, batch_stride;
};

// Describes `m` (a matrix, or a batch of them along dim 0 of a 3-D tensor) without copying when its matrices are
// row- or column-major (as src/cpu/gemm.cpp); copies otherwise.
Operand as_operand(const Tensor& m, Tensor& keep) {
  size_t d = size_t(m.dim() - 2);
  int64_t rows = m.sizes()[d], cols = m.sizes()[d + 1];
  bool batched = d && m.sizes()[0] > 1;
  int64_t s0 = m.strides()[d], s1 = m.strides()[d + 1], sb = batched ? m.strides()[0] : 0;
  uint64_t r = uint64_t(rows), c = uint64_t(cols);
  if ((s1 == 1 || cols <= 1) && (s0 >= std::max<int64_t>(cols, 1) || rows <= 1)) {
    return {m.data_ptr(), CUBLAS_OP_N, c, r, rows <= 1 ? std::max<int64_t>(cols, 1) : s0, sb};
  }
  if ((s0 == 1 || rows <= 1) && (s1 >= std::max<int64_t>(rows, 1) || cols <= 1)) {
    return {m.data_ptr(), CUBLAS_OP_T, r, c, cols <= 1 ? std::max<int64_t>(rows, 1) : s1, sb};
  }
  keep = m.contiguous();
  return {keep.data_ptr(), CUBLAS_OP_N, c, r, std::max<int64_t>(cols, 1), batched ? rows * cols : 0};
}

// The largest power of two (at most 256) dividing the address of every matrix of a batch (`stride` bytes apart):
// cuBLASLt assumes 256 unless told.
uint32_t alignment(const void* p, int64_t stride) {
  auto a = reinterpret_cast<uintptr_t>(p) | uintptr_t(stride);
  uint32_t align = 256;
  while (a % align) align /= 2;
  return align;
}

// Destroys a cuBLASLt descriptor at scope exit.
template <typename T, cublasStatus_t (*Destroy)(T)>
struct Owned {
  T value = nullptr;
  ~Owned() {
    if (value) Destroy(value);
  }
};
using MatmulDesc = Owned<cublasLtMatmulDesc_t, cublasLtMatmulDescDestroy>;
using Layout = Owned<cublasLtMatrixLayout_t, cublasLtMatrixLayoutDestroy>;
using Preference = Owned<cublasLtMatmulPreference_t, cublasLtMatmulPreferenceDestroy>;

template <typename V>
void set(cublasLtMatmulDesc_t d, cublasLtMatmulDescAttributes_t attr, const V& v) {
  EMBER_CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(d, attr, &v, sizeof(v)));
}
template <typename V>
void set(cublasLtMatmulPreference_t p, cublasLtMatmulPreferenceAttributes_t attr, const V& v) {
  EMBER_CUBLAS_CHECK(cublasLtMatmulPreferenceSetAttribute(p, attr, &v, sizeof(v)));
}
template <typename V>
void set(cublasLtMatrixLayout_t l, cublasLtMatrixLayoutAttribute_t attr, const V& v) {
  EMBER_CUBLAS_CHECK(cublasLtMatrixLayoutSetAttribute(l, attr, &v, sizeof(v)));
}

// The layout of `batch` column-major rows x cols matrices with leading dim ld, batch_stride elements apart.
void make_layout(Layout& l, cudaDataType_t type, uint64_t rows, uint64_t cols, int64_t ld, int32_t batch,
                 int64_t batch_stride) {
  EMBER_CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&l.value, type, rows, cols, ld));
  if (batch == 1) return;
  set(l.value, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, batch);
  set(l.value, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, batch_stride);
}

// cuBLASLt's choice of algorithm for a problem (device, types, operand layouts, alignments), remembered: asking
// costs microseconds a call, as long as a small product takes.
using AlgoKey = std::array<int64_t, 20>;
std::mutex algo_mutex;
std::map<AlgoKey, cublasLtMatmulAlgo_t> algos;

std::optional<cublasLtMatmulAlgo_t> cached_algorithm(const AlgoKey& key) {
  std::lock_guard<std::mutex> lock(algo_mutex);
  auto it = algos.find(key);
  return it == algos.end() ? std::nullopt : std::optional(it->second);
}
void cache_algorithm(const AlgoKey& key, const cublasLtMatmulAlgo_t& algo) {
  std::lock_guard<std::mutex> lock(algo_mutex);
  algos.emplace(key, algo);
}

// out = alpha * a @ b + beta * out for M, N, K > 0 and 0 < batch < 2^31 (2-D: batch 1); `Scale` is alpha's and
// beta's type for cuBLASLt.
template <typename Scale>
void lt_matmul(const Tensor& a, const Tensor& b, const Tensor& out, Scale alpha, Scale beta, cudaDataType_t type,
               cublasComputeType_t compute) {
  size_t d = size_t(out.dim() - 2);
  int64_t M = a.sizes()[d], N = b.sizes()[d + 1], batch = d ? out.sizes()[0] : 1;
  Tensor keep_a, keep_b;
  // cuBLAS's A is our b (op(A) = b^T, N x K), its B our a (op(B) = a^T, K x M), its C our out^T (N x M).
  Operand oa = as_operand(b, keep_b), ob = as_operand(a, keep_a);
  const BlasHandle& h = blas_handle();
  constexpr cudaDataType_t scale_type = std::is_same_v<Scale, double> ? CUDA_R_64F : CUDA_R_32F;
  MatmulDesc desc;
  EMBER_CUBLAS_CHECK(cublasLtMatmulDescCreate(&desc.value, compute, scale_type));
  set(desc.value, CUBLASLT_MATMUL_DESC_TRANSA, oa.op);
  set(desc.value, CUBLASLT_MATMUL_DESC_TRANSB, ob.op);
  Layout la, lb, lc;
  make_layout(la, type, oa.stored_rows, oa.stored_cols, oa.ld, int32_t(batch), oa.batch_stride);
  make_layout(lb, type, ob.stored_rows, ob.stored_cols, ob.ld, int32_t(batch), ob.batch_stride);
  int64_t c_stride = batch > 1 ? M * N : 0;
  make_layout(lc, type, uint64_t(N), uint64_t(M), N, int32_t(batch), c_stride);
  auto itemsize = int64_t(out.element_size());
  uint32_t align_a = alignment(oa.data, oa.batch_stride * itemsize);
  uint32_t align_b = alignment(ob.data, ob.batch_stride * itemsize);
  uint32_t align_c = alignment(out.data_ptr(), c_stride * itemsize);
  AlgoKey key{current_device(), type, compute, oa.op, ob.op, int64_t(oa.stored_rows), int64_t(oa.stored_cols), oa.ld,
              int64_t(ob.stored_rows), int64_t(ob.stored_cols), ob.ld, N, M, align_a, align_b, align_c,
              batch, oa.batch_stride, ob.batch_stride};
  std::optional<cublasLtMatmulAlgo_t> algo = cached_algorithm(key);
  if (!algo) {
    Preference pref;
    EMBER_CUBLAS_CHECK(cublasLtMatmulPreferenceCreate(&pref.value));
    set(pref.value, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, uint64_t(h.workspace_size));
    set(pref.value, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, align_a);
    set(pref.value, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES, align_b);
    set(pref.value, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES, align_c);
    set(pref.value, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES, align_c);
    cublasLtMatmulHeuristicResult_t heuristic{};
    int found = 0;
    EMBER_CUBLAS_CHECK(cublasLtMatmulAlgoGetHeuristic(h.handle, desc.value, la.value, lb.value, lc.value, lc.value,
                                                      pref.value, 1, &heuristic, &found));
    EMBER_CHECK(found > 0, Error, "CUDA error: cuBLASLt found no algorithm for a ", dtype_name(a.dtype()),
                " matmul of ", int_list(a.sizes()), " by ", int_list(b.sizes()));
    algo = heuristic.algo;
    cache_algorithm(key, *algo);
  }
  EMBER_CUBLAS_CHECK(cublasLtMatmul(h.handle, desc.value, &alpha, oa.data, la.value, ob.data, lb.value, &beta,
                                    out.data_ptr(), lc.value, out.data_ptr(), lc.value, &*algo, h.workspace,
                                    h.workspace_size, current_stream()));
}

// The 2-D or batched product, as gemm_kernel and gemm_batched_kernel promise; `op` names it in dtype errors.
void matmul(const Tensor& a, const Tensor& b, const Tensor& out, double alpha, double beta, const char* op) {
  EMBER_CHECK(a.device() == out.device() && b.device() == out.device(), Error,
              "Expected all tensors to be on the same device, but found at least two devices, ", out.device().str(),
              " and ", (a.device() == out.device() ? b : a).device().str(), "!");
  if (out.numel() == 0) return;
  DeviceGuard guard(device_index(out.device()));
  if (a.sizes().back() == 0) {  // A @ B is all zeros: out = beta * out
    Tensor o = out;
    if (beta == 0) o.zero_();
    else if (beta != 1) {
      mul_out(o, o, wrapped_scalar(is_floating_point(o.dtype()) ? Scalar(beta) : Scalar(int64_t(beta))));
    }
    return;
  }
  constexpr int64_t kMaxBatch = std::numeric_limits<int32_t>::max();  // cuBLASLt's batch count is an int32
  if (out.dim() == 3 && out.sizes()[0] > kMaxBatch) {
    for (int64_t i = 0; i < out.sizes()[0]; i += kMaxBatch) {
      int64_t n = std::min(kMaxBatch, out.sizes()[0] - i);
      matmul(a.narrow(0, i, n), b.narrow(0, i, n), out.narrow(0, i, n), alpha, beta, op);
    }
    return;
  }
  bool tf32 = allow_tf32();
  switch (a.dtype()) {
    case kFloat32:
      return lt_matmul(a, b, out, float(alpha), float(beta), CUDA_R_32F,
                       tf32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F);
    case kFloat16: return lt_matmul(a, b, out, float(alpha), float(beta), CUDA_R_16F, CUBLAS_COMPUTE_32F);
    case kBFloat16: return lt_matmul(a, b, out, float(alpha), float(beta), CUDA_R_16BF, CUBLAS_COMPUTE_32F);
    case kFloat64: return lt_matmul(a, b, out, alpha, beta, CUDA_R_64F, CUBLAS_COMPUTE_64F);
    default:  // torch's CUDA matmul takes floating dtypes only
      throw NotImplementedError(str("\"", op, "\" not implemented for '", legacy_name(a.dtype()), "'"));
  }
}

}  // namespace

void gemm_kernel(const Tensor& a, const Tensor& b, const Tensor& out, double alpha, double beta) {
  matmul(a, b, out, alpha, beta, "addmm_cuda");
}

void gemm_batched_kernel(const Tensor& a, const Tensor& b, const Tensor& out, double alpha, double beta) {
  matmul(a, b, out, alpha, beta, "baddbmm_cuda");
}

}  // namespace ember::cuda_backend
