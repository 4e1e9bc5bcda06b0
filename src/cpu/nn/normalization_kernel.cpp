// Normalisation kernels over contiguous (N, C, S) tensors: per-channel statistics and gradient sums (parallel over
// channels, each run of S summed in vector blocks added into double), and the per-element affine maps (parallel
// over (n, c) runs).
#include "normalization_kernel.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "ember/parallel.h"
#include "../compute_type.h"

namespace ember::cpu {

namespace {

template <typename T> using Vec = typename Vec32<T>::type;

// *p as U: a scalar T or a vector of T.
template <typename U, typename T>
U load(const T* p) {
  if constexpr (std::is_same_v<U, T>) {
    return *p;
  } else {
    U v;
    std::memcpy(&v, p, sizeof(U));
    return v;
  }
}

// The sum of f<U>(i) over i < n (f<Vec<T>>(i) covers i .. i + W - 1): vector partial sums over blocks of 512
// elements, added into double.
template <typename T, typename F>
double run_sum(int64_t n, F&& f) {
  using V = Vec<T>;
  constexpr int64_t W = sizeof(V) / sizeof(T);
  double total = 0;
  int64_t i = 0, vec_end = n - n % W;
  while (i < vec_end) {
    int64_t end = std::min(vec_end, i + 512);
    V a0{}, a1{};
    for (; i + 2 * W <= end; i += 2 * W) {
      a0 += f.template operator()<V>(i);
      a1 += f.template operator()<V>(i + W);
    }
    if (i < end) a0 += f.template operator()<V>(i), i += W;
    a0 += a1;
    for (int64_t l = 0; l < W; ++l) total += double(a0[l]);
  }
  for (; i < n; ++i) total += double(f.template operator()<T>(i));
  return total;
}

struct Dims {
  int64_t n, c, s;
};
Dims dims_of(const Tensor& x) { return {x.sizes()[0], x.sizes()[1], x.sizes()[2]}; }

template <typename T>
const T* ptr_or_null(const Tensor& t) { return t.defined() ? t.data_ptr<T>() : nullptr; }

// Runs body<T>() for x's dtype (float or double).
template <typename F>
void visit_float(const Tensor& x, F&& body) {
  if (x.dtype() == kFloat64) body.template operator()<double>();
  else body.template operator()<float>();
}

// a * b + c, fused (one rounding) where the CPU has FMA, as torch's vectorised kernels compute it.
template <typename T>
T madd(T a, T b, T c) {
#ifdef __FMA__
  return std::fma(a, b, c);
#else
  return a * b + c;
#endif
}

int64_t channel_grain(Dims d) { return std::max<int64_t>(1, 32768 / std::max<int64_t>(1, d.n * d.s)); }
int64_t run_grain(Dims d) { return std::max<int64_t>(1, 32768 / std::max<int64_t>(1, d.s)); }

// Whether channel c's elements all equal its first (a scan that stops at the first other one: one or two reads for
// most channels). NaN is not constant.
template <typename T>
bool constant_channel(const T* px, Dims d, int64_t c) {
  if (d.n * d.s == 0) return false;
  T x0 = px[c * d.s];
  for (int64_t n = 0; n < d.n; ++n) {
    const T* r = px + (n * d.c + c) * d.s;
    for (int64_t i = 0; i < d.s; ++i) {
      if (!(r[i] == x0)) return false;
    }
  }
  return true;
}

void stats_kernel(const Tensor& x, const Tensor& mean, const Tensor& var) {
  Dims d = dims_of(x);
  visit_float(x, [&]<typename T>() {
    const T* px = x.data_ptr<T>();
    T *pm = mean.data_ptr<T>(), *pv = var.data_ptr<T>();
    Unlocked unlocked(x.numel() > kUnlockElements);
    parallel_for(0, d.c, channel_grain(d), [&](int64_t c0, int64_t c1) {
      for (int64_t c = c0; c < c1; ++c) {
        if (constant_channel(px, d, c)) {  // its mean exactly, as torch's double sums give it
          pm[c] = px[c * d.s];
          pv[c] = T(0);
          continue;
        }
        double count = double(d.n * d.s), sum = 0, sq = 0;
        for (int64_t n = 0; n < d.n; ++n) {
          const T* r = px + (n * d.c + c) * d.s;
          sum += run_sum<T>(d.s, [&]<typename U>(int64_t i) { return load<U>(r + i); });
        }
        T m = T(sum / count);
        for (int64_t n = 0; n < d.n; ++n) {
          const T* r = px + (n * d.c + c) * d.s;
          sq += run_sum<T>(d.s, [&]<typename U>(int64_t i) {
            U v = load<U>(r + i) - m;
            return v * v;
          });
        }
        pm[c] = m;
        pv[c] = T(sq / count);
      }
    });
  });
}

void affine_kernel(const Tensor& x, const Tensor& mean, const Tensor& scale, const Tensor& shift, const Tensor& w,
                   const Tensor& b, const Tensor& y) {
  Dims d = dims_of(x);
  visit_float(x, [&]<typename T>() {
    const T *px = x.data_ptr<T>(), *pm = ptr_or_null<T>(mean), *psc = scale.data_ptr<T>();
    const T *psh = ptr_or_null<T>(shift), *pw = ptr_or_null<T>(w), *pb = ptr_or_null<T>(b);
    T* py = y.data_ptr<T>();
    Unlocked unlocked(x.numel() > kUnlockElements);
    parallel_for(0, d.n * d.c, run_grain(d), [&](int64_t r0, int64_t r1) {
      for (int64_t r = r0; r < r1; ++r) {
        const T* xr = px + r * d.s;
        T* yr = py + r * d.s;
        T m = pm ? pm[r % d.c] : T(0), sc = psc[r % d.c], sh = psh ? psh[r % d.c] : T(0);
        if (pw && pb) {
          for (int64_t i = 0; i < d.s; ++i) yr[i] = madd(madd(xr[i] - m, sc, sh), pw[i], pb[i]);
        } else if (pw) {
          for (int64_t i = 0; i < d.s; ++i) yr[i] = madd(xr[i] - m, sc, sh) * pw[i];
        } else if (pb) {
          for (int64_t i = 0; i < d.s; ++i) yr[i] = madd(xr[i] - m, sc, sh) + pb[i];
        } else {
          for (int64_t i = 0; i < d.s; ++i) yr[i] = madd(xr[i] - m, sc, sh);
        }
      }
    });
  });
}

void grad_sums_kernel(const Tensor& dy, const Tensor& x, const Tensor& w, const Tensor& sum_dy,
                      const Tensor& sum_dy_x) {
  Dims d = dims_of(x);
  visit_float(x, [&]<typename T>() {
    const T *pdy = dy.data_ptr<T>(), *px = x.data_ptr<T>(), *pw = ptr_or_null<T>(w);
    T *p1 = sum_dy.data_ptr<T>(), *p2 = sum_dy_x.data_ptr<T>();
    Unlocked unlocked(x.numel() > kUnlockElements);
    parallel_for(0, d.c, channel_grain(d), [&](int64_t c0, int64_t c1) {
      for (int64_t c = c0; c < c1; ++c) {
        double s1 = 0, s2 = 0;
        for (int64_t n = 0; n < d.n; ++n) {
          const T *g = pdy + (n * d.c + c) * d.s, *r = px + (n * d.c + c) * d.s;
          if (pw) {
            s1 += run_sum<T>(d.s, [&]<typename U>(int64_t i) { return load<U>(g + i) * load<U>(pw + i); });
            s2 += run_sum<T>(d.s, [&]<typename U>(int64_t i) { return load<U>(g + i) * load<U>(pw + i) * load<U>(r + i); });
          } else {
            s1 += run_sum<T>(d.s, [&]<typename U>(int64_t i) { return load<U>(g + i); });
            s2 += run_sum<T>(d.s, [&]<typename U>(int64_t i) { return load<U>(g + i) * load<U>(r + i); });
          }
        }
        p1[c] = T(s1);
        p2[c] = T(s2);
      }
    });
  });
}

void grad_input_kernel(const Tensor& dy, const Tensor& x, const Tensor& w, const Tensor& a, const Tensor& b,
                       const Tensor& e, const Tensor& dx) {
  Dims d = dims_of(x);
  visit_float(x, [&]<typename T>() {
    const T *pdy = dy.data_ptr<T>(), *px = x.data_ptr<T>(), *pw = ptr_or_null<T>(w);
    const T *pa = a.data_ptr<T>(), *pb = b.data_ptr<T>(), *pe = e.data_ptr<T>();
    T* pdx = dx.data_ptr<T>();
    Unlocked unlocked(x.numel() > kUnlockElements);
    parallel_for(0, d.n * d.c, run_grain(d), [&](int64_t r0, int64_t r1) {
      for (int64_t r = r0; r < r1; ++r) {
        const T *g = pdy + r * d.s, *xr = px + r * d.s;
        T* out = pdx + r * d.s;
        T ka = pa[r % d.c], kb = pb[r % d.c], ke = pe[r % d.c];
        if (pw) {
          for (int64_t i = 0; i < d.s; ++i) out[i] = ka * g[i] * pw[i] + kb * xr[i] + ke;
        } else {
          for (int64_t i = 0; i < d.s; ++i) out[i] = ka * g[i] + kb * xr[i] + ke;
        }
      }
    });
  });
}

}  // namespace

void register_normalization_kernels() {
  kernels::norm_stats.set(DeviceType::CPU, &stats_kernel);
  kernels::norm_affine.set(DeviceType::CPU, &affine_kernel);
  kernels::norm_grad_sums.set(DeviceType::CPU, &grad_sums_kernel);
  kernels::norm_grad_input.set(DeviceType::CPU, &grad_input_kernel);
}

}  // namespace ember::cpu
