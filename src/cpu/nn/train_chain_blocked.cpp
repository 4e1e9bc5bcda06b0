// The nChw8c kernels of training chains (train_chain.h): BatchNorm's statistics, its affine map fused with ReLU,
// their gradients fused, and 2x2/2 max pooling. A position's 8 channels are one 8-float vector.
#include <algorithm>
#include <cstring>
#ifdef __FMA__
#include <immintrin.h>
#endif

#include "ember/parallel.h"
#include "train_chain.h"

namespace ember::cpu {

namespace {

typedef float V8 __attribute__((vector_size(32)));

V8 load(const float* p) {
  V8 v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
void store(float* p, V8 v) { std::memcpy(p, &v, sizeof v); }
V8 splat(float x) { return V8{} + x; }
// a where mask (a vector comparison's result) is set, else b.
template <typename M>
V8 select(M mask, V8 a, V8 b) { return mask ? a : b; }

struct Shape {
  int64_t n, blocks, s;  // batch, channel blocks of 8, spatial positions
  explicit Shape(const DimVector& d) : n(d[0]), blocks(d[1] / 8), s(d[2] * d[3]) {}
  int64_t plane(int64_t i, int64_t b) const { return (i * blocks + b) * s * 8; }  // offset of (i, block b)
};

// BatchNorm's map x * scale + shift, one rounding where the CPU has FMA; the backward recomputes it bit for bit.
V8 affine(V8 x, V8 scale, V8 shift) {
#ifdef __FMA__
  return _mm256_fmadd_ps(x, scale, shift);
#else
  return x * scale + shift;
#endif
}

// ReLU's gradient as torch's threshold_backward on its result relu(y): g where !(y <= 0) (nan passes), else 0.
V8 relu_grad(V8 g, V8 y) { return select(y <= 0, V8{}, g); }

// Sums of f(p, position) over a channel block's positions (8 channels), in float vectors over runs of 64 positions
// added into double.
template <typename F>
void block_sums(const Shape& d, int64_t b, double (&s1)[8], double (&s2)[8], F&& f) {
  for (int64_t i = 0; i < d.n; ++i) {
    int64_t base = d.plane(i, b);
    for (int64_t s0 = 0; s0 < d.s; s0 += 64) {
      V8 a{}, c{};
      for (int64_t s = s0, end = std::min(d.s, s0 + 64); s < end; ++s) f(base + s * 8, a, c);
      for (int l = 0; l < 8; ++l) s1[l] += double(a[l]), s2[l] += double(c[l]);
    }
  }
}

}  // namespace

// Shifted by each channel's first element (sums of x - K and its square): no cancellation when the mean dwarfs the
// spread, and a constant channel gets its mean exactly and variance 0, as the two-pass kernel.
void blocked_stats(const Tensor& x, DimVector dims, const Tensor& mean, const Tensor& var) {
  Shape d(dims);
  const float* px = x.data_ptr<float>();
  float *pm = mean.data_ptr<float>(), *pv = var.data_ptr<float>();
  double count = double(d.n * d.s);
  parallel_for(0, d.blocks, 1, [&](int64_t b0, int64_t b1) {
    for (int64_t b = b0; b < b1; ++b) {
      V8 k = load(px + d.plane(0, b));
      double s1[8] = {}, s2[8] = {};
      block_sums(d, b, s1, s2, [&](int64_t at, V8& a, V8& c) {
        V8 v = load(px + at) - k;
        a += v;
        c += v * v;
      });
      for (int l = 0; l < 8; ++l) {
        double m = s1[l] / count;
        pm[b * 8 + l] = float(double(k[l]) + m);
        pv[b * 8 + l] = float(std::max(s2[l] / count - m * m, 0.0));
      }
    }
  });
}

void blocked_affine_relu(const Tensor& x, DimVector dims, const Tensor& scale, const Tensor& shift, const Tensor& out) {
  Shape d(dims);
  const float *px = x.data_ptr<float>(), *psc = scale.data_ptr<float>(), *psh = shift.data_ptr<float>();
  float* po = out.data_ptr<float>();
  parallel_for(0, d.n * d.blocks, 1, [&](int64_t p0, int64_t p1) {
    for (int64_t p = p0; p < p1; ++p) {
      int64_t b = p % d.blocks, base = p * d.s * 8;
      V8 sc = load(psc + b * 8), sh = load(psh + b * 8);
      for (int64_t s = 0; s < d.s; ++s) {
        V8 y = affine(load(px + base + s * 8), sc, sh);
        store(po + base + s * 8, select(y <= 0, V8{}, y));
      }
    }
  });
}

void blocked_relu_grad_sums(const Tensor& g, const Tensor& x, DimVector dims, const Tensor& scale, const Tensor& shift,
                            const Tensor& mean, const Tensor& sum_g, const Tensor& dot) {
  Shape d(dims);
  const float *pg = g.data_ptr<float>(), *px = x.data_ptr<float>(), *pm = mean.data_ptr<float>();
  const float *psc = scale.data_ptr<float>(), *psh = shift.data_ptr<float>();
  float *p1 = sum_g.data_ptr<float>(), *p2 = dot.data_ptr<float>();
  parallel_for(0, d.blocks, 1, [&](int64_t b0, int64_t b1) {
    for (int64_t b = b0; b < b1; ++b) {
      V8 m = load(pm + b * 8), sc = load(psc + b * 8), sh = load(psh + b * 8);
      double s1[8] = {}, s2[8] = {};
      block_sums(d, b, s1, s2, [&](int64_t at, V8& a, V8& c) {
        V8 xv = load(px + at), gv = relu_grad(load(pg + at), affine(xv, sc, sh));
        a += gv;
        c += gv * (xv - m);
      });
      for (int l = 0; l < 8; ++l) p1[b * 8 + l] = float(s1[l]), p2[b * 8 + l] = float(s2[l]);
    }
  });
}

void blocked_relu_bn_grad(const Tensor& g, const Tensor& x, DimVector dims, const Tensor& scale, const Tensor& shift,
                          const Tensor& k, const Tensor& b, const Tensor& e, const Tensor& out) {
  Shape d(dims);
  const float *pg = g.data_ptr<float>(), *px = x.data_ptr<float>();
  const float *psc = scale.data_ptr<float>(), *psh = shift.data_ptr<float>();
  const float *pk = k.data_ptr<float>(), *pb = b.data_ptr<float>(), *pe = e.data_ptr<float>();
  float* po = out.data_ptr<float>();
  parallel_for(0, d.n * d.blocks, 1, [&](int64_t p0, int64_t p1) {
    for (int64_t p = p0; p < p1; ++p) {
      int64_t blk = p % d.blocks, base = p * d.s * 8;
      V8 kv = load(pk + blk * 8), bv = load(pb + blk * 8), ev = load(pe + blk * 8);
      V8 sc = load(psc + blk * 8), sh = load(psh + blk * 8);
      for (int64_t s = base, end = base + d.s * 8; s < end; s += 8) {
        V8 xv = load(px + s);
        store(po + s, kv * relu_grad(load(pg + s), affine(xv, sc, sh)) + bv * xv + ev);
      }
    }
  });
}

namespace {

// Window (y, x) of plane `in` (row width w, 8 floats a position): its largest value by max_pool2d's scan (a later
// element wins when larger or nan) and which of the four it is (0..3 as a float mask per lane: the winner's index).
struct Window {
  V8 value, index;
};
Window window(const float* in, int64_t w, int64_t y, int64_t x) {
  const float* r0 = in + (2 * y * w + 2 * x) * 8;
  const float* cand[3] = {r0 + 8, r0 + w * 8, r0 + w * 8 + 8};
  Window best{load(r0), V8{}};
  for (int k = 0; k < 3; ++k) {
    V8 v = load(cand[k]);
    auto take = (v > best.value) | (v != v);
    best.value = select(take, v, best.value);
    best.index = select(take, splat(float(k + 1)), best.index);
  }
  return best;
}

}  // namespace

void blocked_max_pool(const Tensor& x, DimVector dims, const Tensor& out) {
  Shape d(dims);
  int64_t w = dims[3], oh = dims[2] / 2, ow = dims[3] / 2;
  const float* px = x.data_ptr<float>();
  float* po = out.data_ptr<float>();
  parallel_for(0, d.n * d.blocks, 1, [&](int64_t p0, int64_t p1) {
    for (int64_t p = p0; p < p1; ++p) {
      const float* in = px + p * d.s * 8;
      float* o = po + p * oh * ow * 8;
      for (int64_t y = 0; y < oh; ++y)
        for (int64_t xx = 0; xx < ow; ++xx) store(o + (y * ow + xx) * 8, window(in, w, y, xx).value);
    }
  });
}

void blocked_max_pool_backward(const Tensor& g, const Tensor& x, DimVector dims, const Tensor& grad_x) {
  Shape d(dims);
  int64_t w = dims[3], oh = dims[2] / 2, ow = dims[3] / 2;
  const float *pg = g.data_ptr<float>(), *px = x.data_ptr<float>();
  float* pd = grad_x.data_ptr<float>();
  parallel_for(0, d.n * d.blocks, 1, [&](int64_t p0, int64_t p1) {
    for (int64_t p = p0; p < p1; ++p) {
      const float* in = px + p * d.s * 8;
      const float* go = pg + p * oh * ow * 8;
      float* out = pd + p * d.s * 8;
      if (2 * oh != dims[2] || 2 * ow != w) std::memset(out, 0, size_t(d.s) * 8 * sizeof(float));
      for (int64_t y = 0; y < oh; ++y) {
        for (int64_t xx = 0; xx < ow; ++xx) {
          Window win = window(in, w, y, xx);
          V8 gv = load(go + (y * ow + xx) * 8);
          float* r0 = out + (2 * y * w + 2 * xx) * 8;
          float* at[4] = {r0, r0 + 8, r0 + w * 8, r0 + w * 8 + 8};
          for (int k = 0; k < 4; ++k) store(at[k], select(win.index == float(k), gv, V8{}));
        }
      }
    }
  });
}

}  // namespace ember::cpu
