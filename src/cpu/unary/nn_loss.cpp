// nll_loss forward/backward and cross_entropy's fused row kernels. Rows vectorise (exp through libmvec).
#include "nn_loss.h"

#include <cmath>
#include <cstring>

#include "../compute_type.h"
#include "../row_max.h"
#include "../vector_math.h"
#include "ember/parallel.h"

namespace ember::cpu {

namespace {

template <typename Fn>
void visit_floating(ScalarType t, Fn&& fn) {
  visit_dtype(t, [&]<typename T>(T) {
    if constexpr (std::is_floating_point_v<T> || std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>) fn(T{});
    else throw Error("nn loss kernels: floating dtypes only");
  });
}

// sum exp(x - m) over a row, in blocks of vector partial sums.
template <typename C>
C row_sum_exp(const C* x, int64_t n, C m) {
  constexpr int64_t B = 64;
  C partial[B] = {};
  int64_t i = 0;
  for (; i + B <= n; i += B) {
    for (int64_t k = 0; k < B; ++k) partial[k] += std::exp(x[i + k] - m);
  }
  C s = 0;
  for (; i < n; ++i) s += std::exp(x[i] - m);
  for (int64_t k = 0; k < B; ++k) s += partial[k];
  return s;
}

}  // namespace

std::optional<int64_t> nll_loss_kernel(const Tensor& logp, const Tensor& lse, const Tensor& target, const Tensor& weight,
                                       int64_t ignore_index, Reduction reduction, const Tensor& out,
                                       const Tensor& total_weight) {
  const int64_t N = logp.sizes()[0], C = logp.sizes()[1], S = logp.sizes()[2];
  const int64_t* t = target.data_ptr<int64_t>();
  for (int64_t i = 0; i < N * S; ++i) {  // checked first, so a bad target never reads out of bounds
    if (t[i] != ignore_index && (t[i] < 0 || t[i] >= C)) return t[i];
  }
  visit_floating(logp.dtype(), [&]<typename T>(T) {
    using A = Compute<T>;
    const T* x = static_cast<const T*>(logp.data_ptr());
    const T* w = weight.defined() ? static_cast<const T*>(weight.data_ptr()) : nullptr;
    const T* l = lse.defined() ? static_cast<const T*>(lse.data_ptr()) : nullptr;
    auto element = [&](int64_t n, int64_t s, A& wt) -> A {  // -w[t] logp[n, t, s] and w[t] (0, 0 when ignored)
      int64_t k = t[n * S + s];
      if (k == ignore_index) return wt = A(0);
      wt = w ? A(w[k]) : A(1);
      A v = A(x[(n * C + k) * S + s]) - (l ? A(l[n]) : A(0));
      return -wt * v;
    };
    if (reduction == Reduction::None) {
      T* o = static_cast<T*>(out.data_ptr());
      for (int64_t n = 0; n < N; ++n) {
        for (int64_t s = 0; s < S; ++s) {
          A wt;
          o[n * S + s] = T(element(n, s, wt));
        }
      }
      return;
    }
    A sum = 0, wsum = 0;
    for (int64_t n = 0; n < N; ++n) {
      for (int64_t s = 0; s < S; ++s) {
        A wt;
        sum += element(n, s, wt);
        wsum += wt;
      }
    }
    *static_cast<T*>(total_weight.data_ptr()) = T(wsum);
    *static_cast<T*>(out.data_ptr()) = T(reduction == Reduction::Mean ? sum / wsum : sum);
  });
  return std::nullopt;
}

void nll_loss_backward_kernel(const Tensor& grad, const Tensor& target, const Tensor& weight, int64_t ignore_index,
                              Reduction reduction, const Tensor& total_weight, const Tensor& coef,
                              const Tensor& dense) {
  const int64_t N = coef.sizes()[0], S = coef.sizes()[1];
  const int64_t* t = target.data_ptr<int64_t>();
  visit_floating(coef.dtype(), [&]<typename T>(T) {
    using A = Compute<T>;
    const T* g = static_cast<const T*>(grad.data_ptr());
    const T* w = weight.defined() ? static_cast<const T*>(weight.data_ptr()) : nullptr;
    A scale = reduction == Reduction::None ? A(1) : A(g[0]);
    if (reduction == Reduction::Mean) scale /= A(*static_cast<const T*>(total_weight.data_ptr()));
    T* c = static_cast<T*>(coef.data_ptr());
    for (int64_t i = 0; i < N * S; ++i) {
      int64_t k = t[i];
      A gi = reduction == Reduction::None ? A(g[i]) : scale;
      c[i] = k == ignore_index ? T(0) : T(-(w ? A(w[k]) : A(1)) * gi);
    }
    if (!dense.defined()) return;
    const int64_t C = dense.sizes()[1];
    T* d = static_cast<T*>(dense.data_ptr());
    parallel_for(0, N, std::max<int64_t>(1, 65536 / std::max<int64_t>(C * S, 1)), [&](int64_t b, int64_t e) {
      std::memset(static_cast<void*>(d + b * C * S), 0, size_t((e - b) * C * S) * sizeof(T));
      for (int64_t n = b; n < e; ++n) {
        for (int64_t s = 0; s < S; ++s) {
          int64_t k = t[n * S + s];
          if (k != ignore_index) d[(n * C + k) * S + s] = c[n * S + s];
        }
      }
    });
  });
}

void row_logsumexp_kernel(const Tensor& x, const Tensor& lse) {
  const int64_t N = x.sizes()[0], C = x.sizes()[1];
  visit_floating(x.dtype(), [&]<typename T>(T) {
    if constexpr (std::is_floating_point_v<T>) {
      const T* p = static_cast<const T*>(x.data_ptr());
      T* o = static_cast<T*>(lse.data_ptr());
      parallel_for(0, N, std::max<int64_t>(1, 16384 / std::max<int64_t>(C, 1)), [&](int64_t b, int64_t e) {
        for (int64_t n = b; n < e; ++n) {
          const T* row = p + n * C;
          T m = row_max(row, C);
          if (std::isinf(m)) m = 0;  // all -inf (or +inf): exp of the raw values gives torch's result
          o[n] = m + std::log(row_sum_exp(row, C, m));
        }
      });
    } else {
      throw Error("row_logsumexp: float32/float64 only");
    }
  });
}

void cross_entropy_backward_kernel(const Tensor& x, const Tensor& lse, const Tensor& target, const Tensor& coef,
                                   const Tensor& gx) {
  const int64_t N = x.sizes()[0], C = x.sizes()[1];
  const int64_t* t = target.data_ptr<int64_t>();
  visit_floating(x.dtype(), [&]<typename T>(T) {
    if constexpr (std::is_floating_point_v<T>) {
      const T *p = static_cast<const T*>(x.data_ptr()), *l = static_cast<const T*>(lse.data_ptr());
      const T* c = static_cast<const T*>(coef.data_ptr());
      T* o = static_cast<T*>(gx.data_ptr());
      parallel_for(0, N, std::max<int64_t>(1, 16384 / std::max<int64_t>(C, 1)), [&](int64_t b, int64_t e) {
        for (int64_t n = b; n < e; ++n) {
          const T *row = p + n * C, k = c[n], shift = l[n];
          T* out = o + n * C;
          if (k == T(0)) {  // an ignored row: torch's 0 - softmax * 0, nan where the row has a +inf (lse nan)
            std::fill(out, out + C, std::isnan(shift) ? shift : T(0));
            continue;
          }
          for (int64_t j = 0; j < C; ++j) out[j] = -k * std::exp(row[j] - shift);
          out[t[n]] += k;
        }
      });
    } else {
      throw Error("cross_entropy_backward: float32/float64 only");
    }
  });
}

}  // namespace ember::cpu
