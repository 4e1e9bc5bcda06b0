// Singular value decomposition through LAPACK's divide-and-conquer driver (?gesdd, Debian's liblapack over the
// same serial BLIS), one matrix per task on Ember's pool. LAPACK is column-major: every matrix here is stored
// as its transpose, contiguous (see kernels::svd).
#include <algorithm>
#include <climits>
#include <cstddef>
#include <vector>

#include "ember/errors.h"
#include "ember/parallel.h"
#include "svd_kernel.h"

extern "C" {
void sgesdd_(const char* jobz, const int* m, const int* n, float* a, const int* lda, float* s, float* u,
             const int* ldu, float* vt, const int* ldvt, float* work, const int* lwork, int* iwork, int* info,
             std::size_t jobz_len);
void dgesdd_(const char* jobz, const int* m, const int* n, double* a, const int* lda, double* s, double* u,
             const int* ldu, double* vt, const int* ldvt, double* work, const int* lwork, int* iwork, int* info,
             std::size_t jobz_len);
}

namespace ember::cpu {

namespace {

void gesdd(const char* jobz, int m, int n, float* a, float* s, float* u, int ldu, float* vt, int ldvt, float* work,
           int lwork, int* iwork, int* info) {
  sgesdd_(jobz, &m, &n, a, &m, s, u, &ldu, vt, &ldvt, work, &lwork, iwork, info, 1);
}
void gesdd(const char* jobz, int m, int n, double* a, double* s, double* u, int ldu, double* vt, int ldvt,
           double* work, int lwork, int* iwork, int* info) {
  dgesdd_(jobz, &m, &n, a, &m, s, u, &ldu, vt, &ldvt, work, &lwork, iwork, info, 1);
}

// torch's messages for LAPACK's failures: -4 is gesdd's report of a NaN in A.
[[noreturn]] void raise_failure(int info) {
  if (info == -4) {
    throw LinAlgError("linalg.svd: The algorithm failed to converge because the input matrix contained non-finite "
                      "values.");
  }
  throw LinAlgError(str("linalg.svd: The algorithm failed to converge because the input matrix is ill-conditioned or "
                        "has too many repeated singular values (error code: ", info, ")."));
}

template <typename T>
void svd_batches(const Tensor& a, const Tensor& s, const Tensor& u, const Tensor& vh, bool full) {
  const int64_t batches = a.sizes()[0], n = a.sizes()[1], m = a.sizes()[2], k = std::min(m, n);
  EMBER_CHECK(m <= INT_MAX && n <= INT_MAX, Error, "linalg.svd: a matrix of ", m, " x ", n,
              " is larger than LAPACK's 32-bit sizes");
  const bool vectors = u.defined();
  const char* jobz = !vectors ? "N" : full ? "A" : "S";
  const int ucols = int(vectors ? u.sizes()[1] : 1), vrows = int(vectors ? vh.sizes()[2] : 1);
  // One workspace query serves every matrix of the batch (they share m and n).
  T query = 0;
  int info = 0;
  std::vector<int> iwork(8 * std::max<int64_t>(k, 1));
  gesdd(jobz, int(m), int(n), nullptr, nullptr, nullptr, int(m), nullptr, vrows, &query, -1, iwork.data(), &info);
  const int lwork = std::max(1, int(query));
  T* a_data = a.data_ptr<T>();
  T* s_data = s.data_ptr<T>();
  T* u_data = vectors ? u.data_ptr<T>() : nullptr;
  T* v_data = vectors ? vh.data_ptr<T>() : nullptr;
  std::vector<int> failures(size_t(batches), 0);
  parallel_for(0, batches, 1, [&](int64_t begin, int64_t end) {
    std::vector<T> work(static_cast<size_t>(lwork));
    std::vector<int> iw(iwork.size());
    for (int64_t b = begin; b < end; ++b) {
      int status = 0;
      gesdd(jobz, int(m), int(n), a_data + b * m * n, s_data + b * k, vectors ? u_data + b * m * ucols : nullptr,
            int(m), vectors ? v_data + b * n * vrows : nullptr, vrows, work.data(), lwork, iw.data(), &status);
      failures[size_t(b)] = status;
    }
  });
  for (int f : failures) {
    if (f != 0) raise_failure(f);
  }
}

}  // namespace

void svd_kernel(const Tensor& a, const Tensor& s, const Tensor& u, const Tensor& vh, bool full) {
  if (a.dtype() == kFloat64) {
    svd_batches<double>(a, s, u, vh, full);
  } else {
    svd_batches<float>(a, s, u, vh, full);
  }
}

}  // namespace ember::cpu
