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

namespace {

// Window (y, x) of 2x2/2 pooling over a plane of row width w (8 floats a position), its values v(pointer): the largest
// by max_pool2d's scan (a later element wins when larger or nan) and which of the four it is (its index, as float).
struct Window {
  V8 value, index;
};
template <typename V>
Window window(const float* in, int64_t w, int64_t y, int64_t x, V&& v) {
  const float* r0 = in + (2 * y * w + 2 * x) * 8;
  const float* cand[3] = {r0 + 8, r0 + w * 8, r0 + w * 8 + 8};
  Window best{v(r0), V8{}};
  for (int k = 0; k < 3; ++k) {
    V8 c = v(cand[k]);
    auto take = (c > best.value) | (c != c);
    best.value = select(take, c, best.value);
    best.index = select(take, splat(float(k + 1)), best.index);
  }
  return best;
}

// The gradient reaching ReLU's output: a full-size nChw8c tensor, or (pooled) the 2x2/2 max pooling's output
// gradient, which goes to each window's largest element (recomputed from x as the forward did), 0 elsewhere.
struct GradIn {
  const float* g;
  bool pooled;
  int64_t h, w;
};

// Calls f(offset, x, g) for every position of plane p (offsets in floats), x the convolution output there and g the
// gradient reaching ReLU's output; sc and sh are BatchNorm's map.
template <typename F>
void plane_grads(const GradIn& gi, const float* px, const Shape& d, int64_t p, V8 sc, V8 sh, F&& f) {
  int64_t base = p * d.s * 8;
  if (!gi.pooled) {
    for (int64_t s = base, end = base + d.s * 8; s < end; s += 8) f(s, load(px + s), load(gi.g + s));
    return;
  }
  int64_t w = gi.w, oh = gi.h / 2, ow = w / 2;
  const float* go = gi.g + p * oh * ow * 8;
  auto act = [&](const float* q) {
    V8 y = affine(load(q), sc, sh);
    return select(y <= 0, V8{}, y);
  };
  for (int64_t y = 0; y < oh; ++y) {
    for (int64_t x = 0; x < ow; ++x) {
      Window win = window(px + base, w, y, x, act);
      V8 gv = load(go + (y * ow + x) * 8);
      int64_t r0 = base + (2 * y * w + 2 * x) * 8;
      int64_t at[4] = {r0, r0 + 8, r0 + w * 8, r0 + w * 8 + 8};
      for (int k = 0; k < 4; ++k) f(at[k], load(px + at[k]), select(win.index == float(k), gv, V8{}));
    }
    for (int64_t x = 2 * ow; x < w; ++x) {  // an odd width's last column: no window
      for (int64_t r = 2 * y; r < 2 * y + 2; ++r) f(base + (r * w + x) * 8, load(px + base + (r * w + x) * 8), V8{});
    }
  }
  for (int64_t s = 2 * oh * w; s < d.s; ++s) f(base + s * 8, load(px + base + s * 8), V8{});  // an odd height's
}

}  // namespace

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

void blocked_affine_relu_pool(const Tensor& x, DimVector dims, const Tensor& scale, const Tensor& shift,
                              const Tensor& out) {
  Shape d(dims);
  int64_t w = dims[3], oh = dims[2] / 2, ow = dims[3] / 2;
  const float *px = x.data_ptr<float>(), *psc = scale.data_ptr<float>(), *psh = shift.data_ptr<float>();
  float* po = out.data_ptr<float>();
  parallel_for(0, d.n * d.blocks, 1, [&](int64_t p0, int64_t p1) {
    for (int64_t p = p0; p < p1; ++p) {
      V8 sc = load(psc + p % d.blocks * 8), sh = load(psh + p % d.blocks * 8);
      auto act = [&](const float* q) {
        V8 y = affine(load(q), sc, sh);
        return select(y <= 0, V8{}, y);
      };
      float* o = po + p * oh * ow * 8;
      for (int64_t y = 0; y < oh; ++y)
        for (int64_t xx = 0; xx < ow; ++xx) store(o + (y * ow + xx) * 8, window(px + p * d.s * 8, w, y, xx, act).value);
    }
  });
}

void blocked_scale_planes(const Tensor& x, DimVector dims, const Tensor& mask) {
  Shape d(dims);
  float* px = x.data_ptr<float>();
  const float* pm = mask.data_ptr<float>();
  parallel_for(0, d.n * d.blocks, 1, [&](int64_t p0, int64_t p1) {
    for (int64_t p = p0; p < p1; ++p) {
      V8 m = load(pm + p * 8);  // (n, block b) at n * C + 8 * b = 8 * p
      for (int64_t s = p * d.s * 8, end = s + d.s * 8; s < end; s += 8) store(px + s, load(px + s) * m);
    }
  });
}

void blocked_relu_grad_sums(const Tensor& g, bool pooled, const Tensor& x, DimVector dims, const Tensor& scale,
                            const Tensor& shift, const Tensor& mean, const Tensor& sum_g, const Tensor& dot) {
  Shape d(dims);
  GradIn gi{g.data_ptr<float>(), pooled, dims[2], dims[3]};
  const float *px = x.data_ptr<float>(), *pm = mean.data_ptr<float>();
  const float *psc = scale.data_ptr<float>(), *psh = shift.data_ptr<float>();
  float *p1 = sum_g.data_ptr<float>(), *p2 = dot.data_ptr<float>();
  parallel_for(0, d.blocks, 1, [&](int64_t b0, int64_t b1) {
    for (int64_t b = b0; b < b1; ++b) {
      V8 m = load(pm + b * 8), sc = load(psc + b * 8), sh = load(psh + b * 8);
      double s1[8] = {}, s2[8] = {};
      V8 a{}, c{};
      int run = 0;
      auto flush = [&] {
        for (int l = 0; l < 8; ++l) s1[l] += double(a[l]), s2[l] += double(c[l]);
        a = c = V8{};
        run = 0;
      };
      for (int64_t i = 0; i < d.n; ++i) {
        plane_grads(gi, px, d, i * d.blocks + b, sc, sh, [&](int64_t, V8 xv, V8 gv) {
          gv = relu_grad(gv, affine(xv, sc, sh));
          a += gv;
          c += gv * (xv - m);
          if (++run == 64) flush();
        });
      }
      flush();
      for (int l = 0; l < 8; ++l) p1[b * 8 + l] = float(s1[l]), p2[b * 8 + l] = float(s2[l]);
    }
  });
}

void blocked_relu_bn_grad(const Tensor& g, bool pooled, const Tensor& x, DimVector dims, const Tensor& scale,
                          const Tensor& shift, const Tensor& k, const Tensor& b, const Tensor& e, const Tensor& out) {
  Shape d(dims);
  GradIn gi{g.data_ptr<float>(), pooled, dims[2], dims[3]};
  const float *px = x.data_ptr<float>(), *psc = scale.data_ptr<float>(), *psh = shift.data_ptr<float>();
  const float *pk = k.data_ptr<float>(), *pb = b.data_ptr<float>(), *pe = e.data_ptr<float>();
  float* po = out.data_ptr<float>();
  parallel_for(0, d.n * d.blocks, 1, [&](int64_t p0, int64_t p1) {
    for (int64_t p = p0; p < p1; ++p) {
      int64_t blk = p % d.blocks;
      V8 kv = load(pk + blk * 8), bv = load(pb + blk * 8), ev = load(pe + blk * 8);
      V8 sc = load(psc + blk * 8), sh = load(psh + blk * 8);
      plane_grads(gi, px, d, p, sc, sh, [&](int64_t at, V8 xv, V8 gv) {
        store(po + at, kv * relu_grad(gv, affine(xv, sc, sh)) + bv * xv + ev);
      });
    }
  });
}

}  // namespace ember::cpu
