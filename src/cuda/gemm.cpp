// gemm on CUDA through cuBLASLt: the row-major product C = A @ B runs as the column-major C^T = B^T A^T, with
// transposed operands passed as transpose flags, not copied.
#include <algorithm>
#include <array>
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
struct Operand {
  const void* data;
  cublasOperation_t op;
  uint64_t stored_rows, stored_cols;
  int64_t ld;
};

// Describes `m` without copying when it is row- or column-major (as src/cpu/gemm.cpp); copies otherwise.
Operand as_operand(const Tensor& m, Tensor& keep) {
  int64_t rows = m.sizes()[0], cols = m.sizes()[1];
  int64_t s0 = m.strides()[0], s1 = m.strides()[1];
  uint64_t r = uint64_t(rows), c = uint64_t(cols);
  if ((s1 == 1 || cols <= 1) && (s0 >= std::max<int64_t>(cols, 1) || rows <= 1)) {
    return {m.data_ptr(), CUBLAS_OP_N, c, r, rows <= 1 ? std::max<int64_t>(cols, 1) : s0};
  }
  if ((s0 == 1 || rows <= 1) && (s1 >= std::max<int64_t>(rows, 1) || cols <= 1)) {
    return {m.data_ptr(), CUBLAS_OP_T, r, c, cols <= 1 ? std::max<int64_t>(rows, 1) : s1};
  }
  keep = m.contiguous();
  return {keep.data_ptr(), CUBLAS_OP_N, c, r, std::max<int64_t>(cols, 1)};
}

// The largest power of two (at most 256) dividing the address: cuBLASLt assumes 256 unless told.
uint32_t alignment(const void* p) {
  auto a = reinterpret_cast<uintptr_t>(p);
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

// cuBLASLt's choice of algorithm for a problem (device, types, operand layouts, alignments), remembered: asking
// costs microseconds a call, as long as a small product takes.
using AlgoKey = std::array<int64_t, 16>;
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

// out = alpha * a @ b + beta * out for M, N, K > 0; `Scale` is alpha's and beta's type for cuBLASLt.
template <typename Scale>
void lt_matmul(const Tensor& a, const Tensor& b, const Tensor& out, Scale alpha, Scale beta, cudaDataType_t type,
               cublasComputeType_t compute) {
  int64_t M = a.sizes()[0], N = b.sizes()[1];
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
  EMBER_CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&la.value, type, oa.stored_rows, oa.stored_cols, oa.ld));
  EMBER_CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&lb.value, type, ob.stored_rows, ob.stored_cols, ob.ld));
  EMBER_CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&lc.value, type, uint64_t(N), uint64_t(M), N));
  uint32_t align_a = alignment(oa.data), align_b = alignment(ob.data), align_c = alignment(out.data_ptr());
  AlgoKey key{current_device(), type, compute, oa.op, ob.op, int64_t(oa.stored_rows), int64_t(oa.stored_cols), oa.ld,
              int64_t(ob.stored_rows), int64_t(ob.stored_cols), ob.ld, N, M, align_a, align_b, align_c};
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
                " matmul of (", M, ", ", a.sizes()[1], ") by (", b.sizes()[0], ", ", N, ")");
    algo = heuristic.algo;
    cache_algorithm(key, *algo);
  }
  EMBER_CUBLAS_CHECK(cublasLtMatmul(h.handle, desc.value, &alpha, oa.data, la.value, ob.data, lb.value, &beta,
                                    out.data_ptr(), lc.value, out.data_ptr(), lc.value, &*algo, h.workspace,
                                    h.workspace_size, current_stream()));
}

}  // namespace

void gemm_kernel(const Tensor& a, const Tensor& b, const Tensor& out, double alpha, double beta) {
  EMBER_CHECK(a.device() == out.device() && b.device() == out.device(), Error,
              "Expected all tensors to be on the same device, but found at least two devices, ", out.device().str(),
              " and ", (a.device() == out.device() ? b : a).device().str(), "!");
  int64_t M = a.sizes()[0], K = a.sizes()[1], N = b.sizes()[1];
  if (M == 0 || N == 0) return;
  DeviceGuard guard(device_index(out.device()));
  if (K == 0) {  // A @ B is all zeros: out = beta * out
    Tensor o = out;
    if (beta == 0) o.zero_();
    else if (beta != 1) {
      mul_out(o, o, wrapped_scalar(is_floating_point(o.dtype()) ? Scalar(beta) : Scalar(int64_t(beta))));
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
      throw NotImplementedError(str("\"addmm_cuda\" not implemented for '", dtype_info(a.dtype()).legacy_name, "'"));
  }
}

}  // namespace ember::cuda_backend
