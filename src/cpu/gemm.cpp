#include "gemm.h"
#include "gemv.h"

#include <cblas.h>
#include <dnnl.h>

#include <type_traits>

#include "ember/creation.h"
#include "ember/ops.h"
#include "ember/type_promotion.h"
#include "ember/parallel.h"
#include "single_omp_thread.h"

namespace ember::cpu {

Operand as_operand(const Tensor& m, Tensor& keep) {
  int64_t rows = m.sizes()[0], cols = m.sizes()[1];
  int64_t s0 = m.strides()[0], s1 = m.strides()[1];
  if ((s1 == 1 || cols <= 1) && (s0 >= std::max<int64_t>(cols, 1) || rows <= 1)) {
    return {m.data_ptr(), false, rows <= 1 ? std::max<int64_t>(cols, 1) : s0};
  }
  if ((s0 == 1 || rows <= 1) && (s1 >= std::max<int64_t>(rows, 1) || cols <= 1)) {
    return {m.data_ptr(), true, cols <= 1 ? std::max<int64_t>(rows, 1) : s1};
  }
  keep = m.contiguous();
  return {keep.data_ptr(), false, std::max<int64_t>(cols, 1)};
}

namespace {

// Whether a row- or column-major operand holds an inf or nan: every exponent bit set, tested on the bits so
// that each contiguous run vectorises.
template <typename T>
bool has_non_finite(const Operand& m, int64_t rows, int64_t cols) {
  using Bits = std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>;
  constexpr Bits exponent = sizeof(T) == 4 ? Bits(0x7f800000u) : Bits(0x7ff0000000000000ull);
  int64_t runs = m.trans ? cols : rows, run = m.trans ? rows : cols;
  Bits found = 0;
  for (int64_t r = 0; r < runs; ++r) {
    const Bits* p = static_cast<const Bits*>(m.data) + r * m.ld;
    for (int64_t i = 0; i < run; ++i) found |= (p[i] & exponent) == exponent;
  }
  return found != 0;
}

// float32 products run on oneDNN's sgemm, double on BLIS. On this AVX-512 machine (session 23) oneDNN's sgemm
// reaches 320-375 GFLOP/s on 2 cores across shapes, torch's MKL 320-380, BLIS 205-220 (1024^3: 5.97 vs 10.5 ms).
template <typename T>
void blas_gemm(const Operand& a, const Operand& b, T* c, int64_t M, int64_t N, int64_t K, double alpha, double beta) {
  auto call = [&](int64_t m0, int64_t m1, int64_t n0, int64_t n1) {
    // Sub-blocks: rows [m0, m1) of A and C, columns [n0, n1) of B and C.
    const T* pa = static_cast<const T*>(a.data) + (a.trans ? m0 : m0 * a.ld);
    const T* pb = static_cast<const T*>(b.data) + (b.trans ? n0 * b.ld : n0);
    T* pc = c + m0 * N + n0;
    if constexpr (std::is_same_v<T, float>) {
      SingleOmpThread one_thread;  // each Ember thread runs its own block
      dnnl_status_t status = dnnl_sgemm(a.trans ? 'T' : 'N', b.trans ? 'T' : 'N', m1 - m0, n1 - n0, K, float(alpha),
                                        pa, a.ld, pb, b.ld, float(beta), pc, N);
      EMBER_CHECK(status == dnnl_success, Error, "oneDNN's sgemm failed (status ", int(status), ") for ", M, "x",
                  K, " @ ", K, "x", N);
    } else {
      auto ta = a.trans ? CblasTrans : CblasNoTrans, tb = b.trans ? CblasTrans : CblasNoTrans;
      cblas_dgemm(CblasRowMajor, ta, tb, int(m1 - m0), int(n1 - n0), int(K), alpha, pa, int(a.ld), pb, int(b.ld),
                  beta, pc, int(N));
    }
  };
  int nthreads = get_num_threads();
  double flops = 2.0 * double(M) * double(N) * double(K);
  Unlocked unlocked(flops >= 1e6);
  if (nthreads == 1 || flops < 4e6) {
    call(0, M, 0, N);
    return;
  }
  // Split the longer side of C into one block per thread, aligned to 16; with a short K, BLIS
  // runs column blocks faster (784x256x128: 80 GFLOP/s per core, 392x512x128: 73).
  bool split_rows = M >= N && (K > 256 || M >= 4 * N);
  int64_t extent = split_rows ? M : N;
  int64_t block = std::max<int64_t>(16, (extent / nthreads + 15) / 16 * 16);
  int64_t nblocks = (extent + block - 1) / block;
  parallel_for(0, nblocks, 1, [&](int64_t bb, int64_t be) {
    for (int64_t i = bb; i < be; ++i) {
      int64_t s = i * block, e = std::min(extent, s + block);
      if (split_rows) call(s, e, 0, N);
      else call(0, M, s, e);
    }
  });
}

// M == 1 or N == 1: a matrix-vector product (see gemv.h for why not BLIS).
template <typename T>
void matrix_vector(const Tensor& a, const Tensor& b, const Tensor& out, double alpha, double beta) {
  int64_t M = a.sizes()[0], K = a.sizes()[1], N = b.sizes()[1];
  const T* pa = a.data_ptr<T>();
  const T* pb = b.data_ptr<T>();
  T* pc = out.data_ptr<T>();
  if (N == 1) {  // out column = A @ b column
    gemv(pa, M, K, a.strides()[0], a.strides()[1], pb, b.strides()[0], pc, 1, T(alpha), T(beta));
  } else {  // out row = B^T @ a row
    gemv(pb, N, K, b.strides()[1], b.strides()[0], pa, a.strides()[1], pc, 1, T(alpha), T(beta));
  }
}

template <typename T>
void loop_gemm(const Tensor& a, const Tensor& b, const Tensor& out, double alpha, double beta) {
  Tensor ac = a.contiguous(), bc = b.contiguous();
  int64_t M = a.sizes()[0], K = a.sizes()[1], N = b.sizes()[1];
  const T* pa = ac.data_ptr<T>();
  const T* pb = bc.data_ptr<T>();
  T* pc = out.data_ptr<T>();
  parallel_for(0, M, std::max<int64_t>(1, 65536 / std::max<int64_t>(N * K, 1)), [&](int64_t mb, int64_t me) {
    std::vector<T> row(static_cast<size_t>(N));
    for (int64_t i = mb; i < me; ++i) {
      std::fill(row.begin(), row.end(), T(0));
      for (int64_t k = 0; k < K; ++k) {
        T av = pa[i * K + k];
        for (int64_t j = 0; j < N; ++j) row[size_t(j)] += av * pb[k * N + j];
      }
      for (int64_t j = 0; j < N; ++j) {
        pc[i * N + j] = T(alpha) * row[size_t(j)] + (beta == 0 ? T(0) : T(beta) * pc[i * N + j]);
      }
    }
  });
}

}  // namespace

void gemm(const Tensor& a, const Tensor& b, const Tensor& out, double alpha, double beta) {
  int64_t M = a.sizes()[0], K = a.sizes()[1], N = b.sizes()[1];
  if (M == 0 || N == 0) return;
  if (K == 0) {  // A @ B is all zeros: out = beta * out
    Tensor o = out;
    if (beta == 0) o.zero_();
    else if (beta != 1) mul_out(o, o, wrapped_scalar(is_floating_point(o.dtype()) ? Scalar(beta) : Scalar(int64_t(beta))));
    return;
  }
  switch (a.dtype()) {
    case kFloat32: case kFloat64: {
      if (M == 1 || N == 1) {
        if (a.dtype() == kFloat32) matrix_vector<float>(a, b, out, alpha, beta);
        else matrix_vector<double>(a, b, out, alpha, beta);
        return;
      }
      Tensor ka, kb;
      Operand oa = as_operand(a, ka), ob = as_operand(b, kb);
      // A transposed A multiplies slower (BLIS: 512x128^T @ 128x512 132 vs 165 GFLOP/s; oneDNN: 276 vs 308), and
      // BLIS's small-matrix path then drops inf * 0 terms (nan in IEEE and torch): A is made row-major when N is
      // not tiny, or when an operand holds an inf or nan.
      auto non_finite = [&](const Operand& o, int64_t rows, int64_t cols) {
        return a.dtype() == kFloat32 ? has_non_finite<float>(o, rows, cols) : has_non_finite<double>(o, rows, cols);
      };
      if (oa.trans && (N >= 64 || non_finite(oa, M, K) || non_finite(ob, K, N))) {
        ka = a.contiguous();
        oa = {ka.data_ptr(), false, K};
      }
      // With a short K, BLIS (double) multiplies by a transposed B about 2x slower (512x64 @ (512x64)^T).
      if (ob.trans && K < 256 && M >= 64 && a.dtype() == kFloat64) {
        kb = b.contiguous();
        ob = {kb.data_ptr(), false, N};
      }
      if (a.dtype() == kFloat32) blas_gemm(oa, ob, out.data_ptr<float>(), M, N, K, alpha, beta);
      else blas_gemm(oa, ob, out.data_ptr<double>(), M, N, K, alpha, beta);
      return;
    }
    case kFloat16: case kBFloat16: {  // accumulate in float32
      if (a.dtype() == kBFloat16 && alpha == 1 && beta == 0 && has_onednn_bf16_matmul()) {
        Tensor ka, kb;
        onednn_bf16_gemm(as_operand(a, ka), as_operand(b, kb), out.data_ptr(), M, N, K);
        return;
      }
      Tensor acc = beta == 0 ? empty({M, N}, out.options().with_dtype(kFloat32)) : out.to(kFloat32, true);
      gemm(a.to(kFloat32), b.to(kFloat32), acc, alpha, beta);
      Tensor(out).copy_(acc);
      return;
    }
    case kUInt8: loop_gemm<uint8_t>(a, b, out, alpha, beta); return;
    case kInt8: loop_gemm<int8_t>(a, b, out, alpha, beta); return;
    case kInt16: loop_gemm<int16_t>(a, b, out, alpha, beta); return;
    case kInt32: loop_gemm<int32_t>(a, b, out, alpha, beta); return;
    case kInt64: loop_gemm<int64_t>(a, b, out, alpha, beta); return;
    default:
      throw NotImplementedError(str("\"addmm_impl_cpu_\" not implemented for '", legacy_name(a.dtype()), "'"));
  }
}

}  // namespace ember::cpu
