// The CPU column of the factorization tables (src/dispatch/linalg_kernels.h): LAPACK's getrf/getrs, potrf, geqrf +
// orgqr and syevd (Debian's reference liblapack over the serial BLIS) and BLIS's trsm, one matrix per task on
// Ember's pool. Matrices arrive column-major, as LAPACK wants them.
#include "lapack_kernels.h"

#include <algorithm>
#include <climits>
#include <cstddef>
#include <vector>

#include "ember/errors.h"
#include "ember/parallel.h"

extern "C" {
void sgetrf_(const int* m, const int* n, float* a, const int* lda, int* ipiv, int* info);
void dgetrf_(const int* m, const int* n, double* a, const int* lda, int* ipiv, int* info);
void sgetrs_(const char* trans, const int* n, const int* nrhs, const float* a, const int* lda, const int* ipiv,
             float* b, const int* ldb, int* info, std::size_t);
void dgetrs_(const char* trans, const int* n, const int* nrhs, const double* a, const int* lda, const int* ipiv,
             double* b, const int* ldb, int* info, std::size_t);
void strsm_(const char* side, const char* uplo, const char* transa, const char* diag, const int* m, const int* n,
            const float* alpha, const float* a, const int* lda, float* b, const int* ldb, std::size_t, std::size_t,
            std::size_t, std::size_t);
void dtrsm_(const char* side, const char* uplo, const char* transa, const char* diag, const int* m, const int* n,
            const double* alpha, const double* a, const int* lda, double* b, const int* ldb, std::size_t, std::size_t,
            std::size_t, std::size_t);
void spotrf_(const char* uplo, const int* n, float* a, const int* lda, int* info, std::size_t);
void dpotrf_(const char* uplo, const int* n, double* a, const int* lda, int* info, std::size_t);
void sgeqrf_(const int* m, const int* n, float* a, const int* lda, float* tau, float* work, const int* lwork, int* info);
void dgeqrf_(const int* m, const int* n, double* a, const int* lda, double* tau, double* work, const int* lwork,
             int* info);
void sorgqr_(const int* m, const int* n, const int* k, float* a, const int* lda, const float* tau, float* work,
             const int* lwork, int* info);
void dorgqr_(const int* m, const int* n, const int* k, double* a, const int* lda, const double* tau, double* work,
             const int* lwork, int* info);
void ssyevd_(const char* jobz, const char* uplo, const int* n, float* a, const int* lda, float* w, float* work,
             const int* lwork, int* iwork, const int* liwork, int* info, std::size_t, std::size_t);
void dsyevd_(const char* jobz, const char* uplo, const int* n, double* a, const int* lda, double* w, double* work,
             const int* lwork, int* iwork, const int* liwork, int* info, std::size_t, std::size_t);
}

namespace ember::cpu {

namespace {

// One overload set per routine, so the batch loops below are written once for float and double.
void getrf(int n, float* a, int* ipiv, int* info) { sgetrf_(&n, &n, a, &n, ipiv, info); }
void getrf(int n, double* a, int* ipiv, int* info) { dgetrf_(&n, &n, a, &n, ipiv, info); }
void getrs(int n, int k, const float* a, const int* ipiv, float* b, int* info) {
  sgetrs_("N", &n, &k, a, &n, ipiv, b, &n, info, 1);
}
void getrs(int n, int k, const double* a, const int* ipiv, double* b, int* info) {
  dgetrs_("N", &n, &k, a, &n, ipiv, b, &n, info, 1);
}
void trsm(const char* uplo, const char* diag, int n, int k, const float* a, float* b) {
  float one = 1;
  strsm_("L", uplo, "N", diag, &n, &k, &one, a, &n, b, &n, 1, 1, 1, 1);
}
void trsm(const char* uplo, const char* diag, int n, int k, const double* a, double* b) {
  double one = 1;
  dtrsm_("L", uplo, "N", diag, &n, &k, &one, a, &n, b, &n, 1, 1, 1, 1);
}
void potrf(const char* uplo, int n, float* a, int* info) { spotrf_(uplo, &n, a, &n, info, 1); }
void potrf(const char* uplo, int n, double* a, int* info) { dpotrf_(uplo, &n, a, &n, info, 1); }
void geqrf(int m, int n, float* a, float* tau, float* work, int lwork, int* info) {
  sgeqrf_(&m, &n, a, &m, tau, work, &lwork, info);
}
void geqrf(int m, int n, double* a, double* tau, double* work, int lwork, int* info) {
  dgeqrf_(&m, &n, a, &m, tau, work, &lwork, info);
}
void orgqr(int m, int n, int k, float* a, const float* tau, float* work, int lwork, int* info) {
  sorgqr_(&m, &n, &k, a, &m, tau, work, &lwork, info);
}
void orgqr(int m, int n, int k, double* a, const double* tau, double* work, int lwork, int* info) {
  dorgqr_(&m, &n, &k, a, &m, tau, work, &lwork, info);
}
void syevd(const char* jobz, const char* uplo, int n, float* a, float* w, float* work, int lwork, int* iwork,
           int liwork, int* info) {
  ssyevd_(jobz, uplo, &n, a, &n, w, work, &lwork, iwork, &liwork, info, 1, 1);
}
void syevd(const char* jobz, const char* uplo, int n, double* a, double* w, double* work, int lwork, int* iwork,
           int liwork, int* info) {
  dsyevd_(jobz, uplo, &n, a, &n, w, work, &lwork, iwork, &liwork, info, 1, 1);
}

int lapack_size(int64_t n) {
  EMBER_CHECK(n <= INT_MAX, Error, "linalg: a matrix dimension of ", n, " is larger than LAPACK's 32-bit sizes");
  return int(n);
}

// Runs body(T* ..., batch) for each matrix of the batch on the pool, in the tensor's dtype (float or double).
template <typename Body>
void for_each_matrix(const Tensor& a, const Body& body) {
  auto run = [&]<typename T>(T) {
    parallel_for(0, a.sizes()[0], 1, [&](int64_t begin, int64_t end) {
      for (int64_t b = begin; b < end; ++b) body(T(), b);
    });
  };
  if (a.dtype() == kFloat64) run(double());
  else run(float());
}

}  // namespace

void lu_factor_kernel(const Tensor& a, const Tensor& pivots, const Tensor& info) {
  const int n = lapack_size(a.sizes()[1]);
  for_each_matrix(a, [&]<typename T>(T, int64_t b) {
    getrf(n, a.data_ptr<T>() + b * n * n, pivots.data_ptr<int32_t>() + b * n, info.data_ptr<int32_t>() + b);
  });
}

void lu_solve_kernel(const Tensor& lu, const Tensor& pivots, const Tensor& rhs) {
  const int n = lapack_size(lu.sizes()[1]), k = lapack_size(rhs.sizes()[1]);
  for_each_matrix(lu, [&]<typename T>(T, int64_t b) {
    int status = 0;  // getrs fails only on bad arguments
    getrs(n, k, lu.data_ptr<T>() + b * n * n, pivots.data_ptr<int32_t>() + b * n, rhs.data_ptr<T>() + b * n * k,
          &status);
  });
}

void triangular_solve_kernel(const Tensor& a, bool upper, bool unitriangular, const Tensor& rhs) {
  const int n = lapack_size(a.sizes()[1]), k = lapack_size(rhs.sizes()[1]);
  if (k == 0) return;
  for_each_matrix(a, [&]<typename T>(T, int64_t b) {
    trsm(upper ? "U" : "L", unitriangular ? "U" : "N", n, k, a.data_ptr<T>() + b * n * n,
         rhs.data_ptr<T>() + b * n * k);
  });
}

void cholesky_kernel(const Tensor& a, bool upper, const Tensor& info) {
  const int n = lapack_size(a.sizes()[1]);
  for_each_matrix(a, [&]<typename T>(T, int64_t b) {
    potrf(upper ? "U" : "L", n, a.data_ptr<T>() + b * n * n, info.data_ptr<int32_t>() + b);
  });
}

void qr_kernel(const Tensor& a, const Tensor& q) {
  const int n = lapack_size(a.sizes()[1]), m = lapack_size(a.sizes()[2]), k = std::min(m, n);
  const int qcols = q.defined() ? lapack_size(q.sizes()[1]) : 0;
  for_each_matrix(a, [&]<typename T>(T, int64_t b) {
    T* ab = a.data_ptr<T>() + b * int64_t(m) * n;
    std::vector<T> tau(size_t(std::max(k, 1)));
    int info = 0;
    T query = 0;
    geqrf(m, n, nullptr, nullptr, &query, -1, &info);
    std::vector<T> work(size_t(std::max(1, int(query))));
    geqrf(m, n, ab, tau.data(), work.data(), int(work.size()), &info);
    if (!q.defined() || m == 0) return;
    // Q from the reflectors below R's diagonal: its first min(n, qcols) columns start as A's
    T* qb = q.data_ptr<T>() + b * int64_t(m) * qcols;
    std::copy(ab, ab + int64_t(m) * std::min(n, qcols), qb);
    orgqr(m, qcols, k, nullptr, nullptr, &query, -1, &info);
    work.resize(size_t(std::max(1, int(query))));
    orgqr(m, qcols, k, qb, tau.data(), work.data(), int(work.size()), &info);
  });
}

void eigh_kernel(const Tensor& a, const Tensor& w, bool vectors, bool upper, const Tensor& info) {
  const int n = lapack_size(a.sizes()[1]);
  const char* jobz = vectors ? "V" : "N";
  const char* uplo = upper ? "U" : "L";
  for_each_matrix(a, [&]<typename T>(T, int64_t b) {
    T query = 0;
    int iquery = 0, status = 0;
    syevd(jobz, uplo, n, nullptr, nullptr, &query, -1, &iquery, -1, &status);
    std::vector<T> work(size_t(std::max(1, int(query))));
    std::vector<int> iwork(size_t(std::max(1, iquery)));
    syevd(jobz, uplo, n, a.data_ptr<T>() + b * n * n, w.data_ptr<T>() + b * n, work.data(), int(work.size()),
          iwork.data(), int(iwork.size()), info.data_ptr<int32_t>() + b);
  });
}

}  // namespace ember::cpu
