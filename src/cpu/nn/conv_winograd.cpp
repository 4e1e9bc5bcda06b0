// Winograd F(2x2, 3x3) convolutions on nChw8c (issue 13): each 2x2 output tile from its 4x4 input patch d as
// A^T [(G g G^T) . (B^T d B)] A, 16 products per input/output channel pair instead of direct convolution's 36.
// Per block of tiles (sized to stay in L2): the input transform (8 channels a vector) into 16 matrices
// [tiles x C], 16 products [tiles x C] x [C x K] by an AVX2 register-tile kernel, the output transform (+ bias)
// straight into nChw8c. The input gradient is the same convolution of grad_output with the kernel rotated 180 degrees
// and transposed (padding 2 - p); the weight gradient sums (B^T d B) x (A gy A^T) over tiles, per thread, then maps
// the 16 sums back by G^T . G. Products are float32 (transforms of weights in double): norm-wise error against
// float64 2-4e-7 at the main job's shapes, 0.4-1.2x oneDNN's direct kernels' (tests/python/test_conv_winograd.py).
// The transformed weights are made per call (16 C K floats, ~0.1 ms at 64->128): cheaper than a cache.
// Not F(4x4, 3x3): 1.78x fewer products but, simulated in float32 (64 channels), 1.8e-6 norm-wise error against
// direct convolution's 1.6e-7 (F(2x2): 2.7e-7), beyond the 2x budget.
// Measured (AMD EPYC, 2 shared cores, AVX2; load 8-9 from other agents, so 1-thread CPU time, interleaved, medians):
// the main job's train step (batch 128) 165-174 ms against 233-240 with the direct kernels and torch's 350-378, a
// speed ratio of 2.12-2.19x (direct 1.50-1.58x); 2 threads, wall: 275 ms, direct 377, torch 570 (2.08x; direct
// 1.51x); bench/bench_cnn_step.py 2.15x and 2.39x. Per layer (Conv2d -> BatchNorm2d -> ReLU, batch 128, 1 thread, ms saved
// against the direct kernels): 32->32 at 28x28 forward 5.2 of 25.8, input gradient 4.2 and weight gradient 8.2 of a
// 55.5 ms backward; 32->64 at 14x14 3.0 of 12.6, 2.9 and 7.2 of 26.9; 64->64 at 14x14 7.9 of 23.2, 5.9 and 10.0 of
// 50.2; 64->128 at 7x7 2.3 of 12.2, 1.6 and 3.7 of 26.0. Profile of the step: ~85% of Ember's own time in these
// kernels, ~80% of that in the register-tile products (estimated from the 64->64 layer's time: ~85% of the FMA peak);
// tile block sizes of 0.5-2x these measured the same.
#include "conv_winograd.h"

#include <algorithm>
#include <atomic>
#include <cmath>

#ifdef __AVX2__
#include <immintrin.h>
#endif

#include "ember/creation.h"
#include "onednn_support.h"

namespace ember::cpu {

namespace {

#ifdef __AVX2__

bool geometry_fits(const TrainConv& u) {
  const ConvGeometry& g = u.geometry;
  return u.winograd && u.src_blocked && g.groups == 1 && u.weight.size(2) == 3 && u.weight.size(3) == 3 &&
         g.stride == DimVector{1, 1} && g.dilation == DimVector{1, 1} && g.padding[0] <= 2 && g.padding[1] <= 2 &&
         u.src_dims[1] % 8 == 0 && u.out_dims[1] % 8 == 0;
}

using V8 = __m256;

// One pass: `in` channels of h x w to `out` channels of ho x wo at padding (ph, pw), in 2x2 output tiles.
struct Shape {
  int64_t n, in, h, w, out, ho, wo, ph, pw, th, tw, tiles;
};

Shape shape_of(const DimVector& src, const DimVector& dst, int64_t ph, int64_t pw) {
  int64_t th = (dst[2] + 1) / 2, tw = (dst[3] + 1) / 2;
  return {src[0], src[1], src[2], src[3], dst[1], dst[2], dst[3], ph, pw, th, tw, src[0] * th * tw};
}

// Tile t's sample and top-left output position.
struct Tile {
  int64_t n, y, x;
};

Tile tile_at(const Shape& s, int64_t t) {
  int64_t per = s.th * s.tw, r = t % per;
  return {t / per, r / s.tw * 2, r % s.tw * 2};
}

// The tile after t (no division per tile).
void advance(const Shape& s, Tile& t) {
  if ((t.x += 2) < s.wo) return;
  t.x = 0;
  if ((t.y += 2) < s.ho) return;
  t.y = 0;
  ++t.n;
}

// A float32 scratch buffer from Ember's allocator (which keeps freed blocks: no fresh pages to fault in per call).
float* scratch(Tensor& holder, int64_t count) {
  holder = empty({count}, TensorOptions(kFloat32));
  return holder.data_ptr<float>();
}

// (a, b, c, d) -> B^T (a, b, c, d) = (a - c, b + c, c - b, b - d).
inline void input_1d(V8& a, V8& b, V8& c, V8& d) {
  V8 t0 = _mm256_sub_ps(a, c), t1 = _mm256_add_ps(b, c), t2 = _mm256_sub_ps(c, b), t3 = _mm256_sub_ps(b, d);
  a = t0, b = t1, c = t2, d = t3;
}

// B^T d B of the 4x4 patch d from pixel `at` of an 8-channel plane w pixels wide into o[k * stride], k < 16;
// `inside` null (all inside) or which of the 16 pixels lie in the image (zeros elsewhere).
inline void transform_patch(const float* plane, int64_t at, int64_t w, const bool* inside, float* o,
                            int64_t stride) {
  V8 d[4][4];
  for (int q = 0; q < 4; ++q) {
    for (int r = 0; r < 4; ++r)
      d[r][q] = !inside || inside[r * 4 + q] ? _mm256_loadu_ps(plane + (at + r * w + q) * 8) : _mm256_setzero_ps();
    input_1d(d[0][q], d[1][q], d[2][q], d[3][q]);
  }
  for (int r = 0; r < 4; ++r) {
    input_1d(d[r][0], d[r][1], d[r][2], d[r][3]);
    for (int q = 0; q < 4; ++q) _mm256_storeu_ps(o + (r * 4 + q) * stride, d[r][q]);
  }
}

// v[16][count][s.in] = B^T d B of the 4x4 input patches of tiles [t0, t0 + count) (zeros outside the image), a
// block of 8 channels at a time (the tiles of a block walk along the image's rows).
void input_transform(const float* src, const Shape& s, int64_t t0, int64_t count, float* v) {
  const int64_t plane = s.h * s.w * 8, blocks = s.in / 8, pos_stride = count * s.in;
  for (int64_t c = 0; c < blocks; ++c) {
    Tile tl = tile_at(s, t0);
    for (int64_t i = 0; i < count; ++i, advance(s, tl)) {
      int64_t y0 = tl.y - s.ph, x0 = tl.x - s.pw;
      const float* p = src + (tl.n * blocks + c) * plane;
      float* o = v + i * s.in + c * 8;
      if (y0 >= 0 && y0 + 4 <= s.h && x0 >= 0 && x0 + 4 <= s.w) {
        transform_patch(p, y0 * s.w + x0, s.w, nullptr, o, pos_stride);
        continue;
      }
      bool inside[16];
      for (int k = 0; k < 16; ++k) {
        int64_t y = y0 + k / 4, x = x0 + k % 4;
        inside[k] = y >= 0 && y < s.h && x >= 0 && x < s.w;
      }
      transform_patch(p, y0 * s.w + x0, s.w, inside, o, pos_stride);
    }
  }
}

// c[r][0, 8 NV) (+)= sum over j < depth of a[r * a_row + j * a_step] * b[j * b_step + (0, 8 NV)], r < R: the
// products' register tile (R x NV accumulators, NV vectors of b and a broadcast live: at most 15 registers).
template <int R, int NV>
void tile_product(const float* a, int64_t a_row, int64_t a_step, const float* b, int64_t b_step, int64_t depth,
                  float* c, int64_t c_row, bool accumulate) {
  V8 acc[R][NV];
  for (int r = 0; r < R; ++r)
    for (int v = 0; v < NV; ++v) acc[r][v] = accumulate ? _mm256_loadu_ps(c + r * c_row + v * 8) : _mm256_setzero_ps();
  for (int64_t j = 0; j < depth; ++j) {
    V8 bv[NV];
    for (int v = 0; v < NV; ++v) bv[v] = _mm256_loadu_ps(b + j * b_step + v * 8);
    for (int r = 0; r < R; ++r) {
      V8 av = _mm256_broadcast_ss(a + r * a_row + j * a_step);
      for (int v = 0; v < NV; ++v) acc[r][v] = _mm256_fmadd_ps(av, bv[v], acc[r][v]);
    }
  }
  for (int r = 0; r < R; ++r)
    for (int v = 0; v < NV; ++v) _mm256_storeu_ps(c + r * c_row + v * 8, acc[r][v]);
}

// tile_product over `rows` rows, 6 at a time, 8 * NV columns.
template <int NV>
void product_rows(int64_t rows, const float* a, int64_t a_row, int64_t a_step, const float* b, int64_t b_step,
                  int64_t depth, float* c, int64_t c_row, bool accumulate) {
  using Fn = void (*)(const float*, int64_t, int64_t, const float*, int64_t, int64_t, float*, int64_t, bool);
  static constexpr Fn tail[] = {nullptr, tile_product<1, NV>, tile_product<2, NV>, tile_product<3, NV>,
                                tile_product<4, NV>, tile_product<5, NV>};
  int64_t r = 0;
  for (; r + 6 <= rows; r += 6)
    tile_product<6, NV>(a + r * a_row, a_row, a_step, b, b_step, depth, c + r * c_row, c_row, accumulate);
  if (r < rows) tail[rows - r](a + r * a_row, a_row, a_step, b, b_step, depth, c + r * c_row, c_row, accumulate);
}

// The same for `width` (8 or 16) columns.
void product(int64_t width, int64_t rows, const float* a, int64_t a_row, int64_t a_step, const float* b,
             int64_t b_step, int64_t depth, float* c, int64_t c_row, bool accumulate) {
  if (width == 16) product_rows<2>(rows, a, a_row, a_step, b, b_step, depth, c, c_row, accumulate);
  else product_rows<1>(rows, a, a_row, a_step, b, b_step, depth, c, c_row, accumulate);
}

// dst's output channels [k0, k0 + width) of tiles [t0, t0 + count) from m[16][count][16] by A^T m A (+ bias);
// `check` gathers out - out (nan where an output is not finite).
void output_transform(const float* m, int64_t count, const Shape& s, int64_t t0, int64_t k0, int64_t width,
                      const float* bias, float* dst, V8& check) {
  const int64_t pos_stride = count * 16;
  Tile tl = tile_at(s, t0);
  for (int64_t i = 0; i < count; ++i, advance(s, tl)) {
    for (int64_t h = 0; h < width; h += 8) {
      V8 y[2][4];
      for (int q = 0; q < 4; ++q) {
        const float* p = m + i * 16 + h + q * pos_stride;
        V8 a = _mm256_loadu_ps(p), b = _mm256_loadu_ps(p + 4 * pos_stride), c = _mm256_loadu_ps(p + 8 * pos_stride),
           d = _mm256_loadu_ps(p + 12 * pos_stride);
        y[0][q] = _mm256_add_ps(_mm256_add_ps(a, b), c);
        y[1][q] = _mm256_sub_ps(_mm256_sub_ps(b, c), d);
      }
      V8 bv = bias ? _mm256_loadu_ps(bias + k0 + h) : _mm256_setzero_ps();
      float* o = dst + (((tl.n * s.out + k0 + h) / 8 * s.ho + tl.y) * s.wo + tl.x) * 8;
      for (int r = 0; r < 2 && tl.y + r < s.ho; ++r) {
        V8 out[2] = {_mm256_add_ps(_mm256_add_ps(_mm256_add_ps(y[r][0], y[r][1]), y[r][2]), bv),
                     _mm256_add_ps(_mm256_sub_ps(_mm256_sub_ps(y[r][1], y[r][2]), y[r][3]), bv)};
        for (int q = 0; q < 2 && tl.x + q < s.wo; ++q) {
          _mm256_storeu_ps(o + (r * s.wo + q) * 8, out[q]);
          check = _mm256_add_ps(check, _mm256_sub_ps(out[q], out[q]));
        }
      }
    }
  }
}

bool all_finite(V8 check) {
  return _mm256_movemask_ps(_mm256_cmp_ps(check, check, _CMP_UNORD_Q)) == 0;
}

// Tiles per block: 16 transformed inputs of `channels` in ~128 KB (L2), a multiple of the 6-row register tile.
int64_t block_tiles(int64_t channels) { return std::max<int64_t>(6, 2048 / channels / 6 * 6); }

// dst = src convolved by the transformed kernels u[16][s.in][s.out] (+ bias); false where an output is not finite.
bool convolve(const float* src, const float* u, const float* bias, float* dst, const Shape& s) {
  const int64_t block = block_tiles(s.in), blocks = (s.tiles + block - 1) / block;
  std::atomic<bool> finite{true};
  onednn::over_parts(blocks, 1, [&](int64_t first, int64_t count, int64_t) {
    Tensor hold_v, hold_m;
    float *v = scratch(hold_v, 16 * block * s.in), *m = scratch(hold_m, 16 * block * 16);
    V8 check = _mm256_setzero_ps();
    for (int64_t b = first; b < first + count; ++b) {
      int64_t t0 = b * block, n = std::min(block, s.tiles - t0);
      input_transform(src, s, t0, n, v);
      for (int64_t k0 = 0; k0 < s.out; k0 += 16) {
        int64_t width = std::min<int64_t>(16, s.out - k0);
        for (int64_t p = 0; p < 16; ++p)
          product(width, n, v + p * n * s.in, s.in, 1, u + p * s.in * s.out + k0, s.out, s.in, m + p * n * 16, 16,
                  false);
        output_transform(m, n, s, t0, k0, width, bias, dst, check);
      }
    }
    if (!all_finite(check)) finite = false;
  });
  return finite;
}

// u[16][in][out] = G g G^T per 3x3 kernel g: the forward's g = w[k][c] (in = C, out = K), or the input gradient's
// w[k][c] rotated 180 degrees (in = K, out = C). In double, rounded once.
Tensor transform_weights(const Tensor& weight, bool rotated) {
  const int64_t K = weight.size(0), C = weight.size(1), in = rotated ? K : C, out = rotated ? C : K;
  Tensor u = empty({16 * in * out}, TensorOptions(kFloat32));
  const float* w = weight.data_ptr<float>();
  float* pu = u.data_ptr<float>();
  auto g_rows = [](const double (&g)[3][3], double (&a)[4][3]) {
    for (int j = 0; j < 3; ++j) {
      a[0][j] = g[0][j];
      a[1][j] = 0.5 * (g[0][j] + g[1][j] + g[2][j]);
      a[2][j] = 0.5 * (g[0][j] - g[1][j] + g[2][j]);
      a[3][j] = g[2][j];
    }
  };
  for (int64_t k = 0; k < K; ++k)
    for (int64_t c = 0; c < C; ++c) {
      const float* p = w + (k * C + c) * 9;
      double g[3][3], a[4][3];
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) g[i][j] = rotated ? p[(2 - i) * 3 + 2 - j] : p[i * 3 + j];
      g_rows(g, a);
      float* o = pu + (rotated ? k * out + c : c * out + k);
      for (int r = 0; r < 4; ++r) {
        const double* x = a[r];
        double row[4] = {x[0], 0.5 * (x[0] + x[1] + x[2]), 0.5 * (x[0] - x[1] + x[2]), x[2]};
        for (int q = 0; q < 4; ++q) o[(r * 4 + q) * in * out] = float(row[q]);
      }
    }
  return u;
}

// g[16][count][s.out] = A gy A^T of the 2x2 output-gradient tiles [t0, t0 + count) (zeros past the output);
// bias_sum[s.out] += their sums.
void gradient_transform(const float* gy, const Shape& s, int64_t t0, int64_t count, float* g, float* bias_sum) {
  const int64_t plane = s.ho * s.wo * 8, blocks = s.out / 8, pos_stride = count * s.out;
  Tile tl = tile_at(s, t0);
  for (int64_t i = 0; i < count; ++i, advance(s, tl)) {
    bool inside[2][2];
    for (int r = 0; r < 2; ++r)
      for (int q = 0; q < 2; ++q) inside[r][q] = tl.y + r < s.ho && tl.x + q < s.wo;
    for (int64_t k = 0; k < blocks; ++k) {
      const float* p = gy + (tl.n * blocks + k) * plane + (tl.y * s.wo + tl.x) * 8;
      V8 e[2][2];
      for (int r = 0; r < 2; ++r)
        for (int q = 0; q < 2; ++q)
          e[r][q] = inside[r][q] ? _mm256_loadu_ps(p + (r * s.wo + q) * 8) : _mm256_setzero_ps();
      V8 sum = _mm256_add_ps(_mm256_add_ps(e[0][0], e[0][1]), _mm256_add_ps(e[1][0], e[1][1]));
      _mm256_storeu_ps(bias_sum + k * 8, _mm256_add_ps(_mm256_loadu_ps(bias_sum + k * 8), sum));
      // A (a, b) = (a, a + b, a - b, -b), over rows then columns
      V8 rows[4][2];
      for (int q = 0; q < 2; ++q) {
        rows[0][q] = e[0][q];
        rows[1][q] = _mm256_add_ps(e[0][q], e[1][q]);
        rows[2][q] = _mm256_sub_ps(e[0][q], e[1][q]);
        rows[3][q] = _mm256_sub_ps(_mm256_setzero_ps(), e[1][q]);
      }
      float* o = g + i * s.out + k * 8;
      for (int r = 0; r < 4; ++r) {
        V8 a = rows[r][0], b = rows[r][1];
        V8 out[4] = {a, _mm256_add_ps(a, b), _mm256_sub_ps(a, b), _mm256_sub_ps(_mm256_setzero_ps(), b)};
        for (int q = 0; q < 4; ++q) _mm256_storeu_ps(o + (r * 4 + q) * pos_stride, out[q]);
      }
    }
  }
}

// Tiles per block of the weight gradient: both transforms in ~256 KB (L2).
int64_t weight_block_tiles(const Shape& s) { return std::max<int64_t>(8, 4096 / (s.in + s.out)); }

// grad_weight (K, C, 3, 3) and grad_bias (K; null: not wanted) of src (s.in = C channels) and gy (s.out = K);
// false where a result is not finite.
bool weight_gradient(const float* src, const float* gy, const Shape& s, float* grad_weight, float* grad_bias) {
  const int64_t block = weight_block_tiles(s), blocks = (s.tiles + block - 1) / block, C = s.in, K = s.out;
  // per part: the 16 C x K sums of products, then the K bias sums
  const int64_t size = 16 * C * K + K;
  Tensor sums = zeros({get_num_threads(), size}, TensorOptions(kFloat32));
  onednn::over_parts(blocks, 1, [&](int64_t first, int64_t count, int64_t part) {
    float* acc = sums.data_ptr<float>() + part * size;
    Tensor hold_v, hold_g;
    float *v = scratch(hold_v, 16 * block * C), *g = scratch(hold_g, 16 * block * K);
    for (int64_t b = first; b < first + count; ++b) {
      int64_t t0 = b * block, n = std::min(block, s.tiles - t0);
      input_transform(src, s, t0, n, v);
      gradient_transform(gy, s, t0, n, g, acc + 16 * C * K);
      for (int64_t p = 0; p < 16; ++p)
        for (int64_t k0 = 0; k0 < K; k0 += 16)
          product(std::min<int64_t>(16, K - k0), C, v + p * n * C, 1, C, g + p * n * K + k0, K, n,
                  acc + p * C * K + k0, K, true);
    }
  });
  float* total = sums.data_ptr<float>();
  for (int64_t t = 1; t < sums.size(0); ++t)
    for (int64_t i = 0; i < size; ++i) total[i] += total[t * size + i];
  bool finite = true;
  for (int64_t k = 0; k < K; ++k)
    for (int64_t c = 0; c < C; ++c) {
      double d[4][4], a[3][4];  // G^T d G: rows (d0 + (d1 + d2) / 2, (d1 - d2) / 2, d3 + (d1 + d2) / 2)
      for (int p = 0; p < 16; ++p) d[p / 4][p % 4] = total[size_t(p * C * K + c * K + k)];
      for (int q = 0; q < 4; ++q) {
        a[0][q] = d[0][q] + 0.5 * (d[1][q] + d[2][q]);
        a[1][q] = 0.5 * (d[1][q] - d[2][q]);
        a[2][q] = d[3][q] + 0.5 * (d[1][q] + d[2][q]);
      }
      float* o = grad_weight + (k * C + c) * 9;
      for (int r = 0; r < 3; ++r) {
        const double* x = a[r];
        double row[3] = {x[0] + 0.5 * (x[1] + x[2]), 0.5 * (x[1] - x[2]), x[3] + 0.5 * (x[1] + x[2])};
        for (int q = 0; q < 3; ++q) {
          o[r * 3 + q] = float(row[q]);
          finite = finite && std::isfinite(o[r * 3 + q]);
        }
      }
    }
  if (grad_bias)
    for (int64_t k = 0; k < K; ++k) {
      grad_bias[k] = total[size_t(16 * C * K + k)];
      finite = finite && std::isfinite(grad_bias[k]);
    }
  return finite;
}

#endif

}  // namespace

#ifdef __AVX2__

// Measured (1 thread, batch 128, Conv2d -> BatchNorm2d -> ReLU, time saved against oneDNN's direct kernels):
// every pass faster from 32 channels in and out (32->32 at 28x28: forward 5.2 ms of 25.8, input gradient 4.2 and
// weight gradient 8.2 of a 55.5 ms backward; 64->128 at 7x7: 2.3 of 12.2, 1.6 and 3.7 of 26.0); at 8 and 16
// channels (28x28) as fast or slower (8->8: forward -0.6 ms, backward -4.7); 64->64 at 3x3 (4x4 of tiles for 3x3
// outputs) slower by 0.6 ms of 3.6. So: at least 32 channels, and tiles covering at most 1.5x the outputs.
bool winograd_fits(const TrainConv& u) {
  const DimVector& o = u.out_dims;
  int64_t covered = (o[2] + 1) / 2 * 2 * ((o[3] + 1) / 2 * 2);
  return geometry_fits(u) && std::min(u.src_dims[1], o[1]) >= 32 && 2 * covered <= 3 * o[2] * o[3];
}

bool winograd_forward(const TrainConv& u, const Tensor& out) {
  Shape s = shape_of(u.src_dims, u.out_dims, u.geometry.padding[0], u.geometry.padding[1]);
  Tensor w = transform_weights(u.weight, false);
  return convolve(u.src.data_ptr<float>(), w.data_ptr<float>(), u.bias.defined() ? u.bias.data_ptr<float>() : nullptr,
                  out.data_ptr<float>(), s);
}

bool winograd_backward_data(const TrainConv& u, const Tensor& grad_out, const Tensor& grad_src) {
  Shape s = shape_of(u.out_dims, u.src_dims, 2 - u.geometry.padding[0], 2 - u.geometry.padding[1]);
  Tensor w = transform_weights(u.weight, true);
  return convolve(grad_out.data_ptr<float>(), w.data_ptr<float>(), nullptr, grad_src.data_ptr<float>(), s);
}

bool winograd_backward_weights(const TrainConv& u, const Tensor& grad_out, const Tensor& grad_weight,
                               const Tensor& grad_bias) {
  Shape s = shape_of(u.src_dims, u.out_dims, u.geometry.padding[0], u.geometry.padding[1]);
  return weight_gradient(u.src.data_ptr<float>(), grad_out.data_ptr<float>(), s, grad_weight.data_ptr<float>(),
                         grad_bias.defined() ? grad_bias.data_ptr<float>() : nullptr);
}

#else

bool winograd_fits(const TrainConv&) { return false; }
bool winograd_forward(const TrainConv&, const Tensor&) { return false; }
bool winograd_backward_data(const TrainConv&, const Tensor&, const Tensor&) { return false; }
bool winograd_backward_weights(const TrainConv&, const Tensor&, const Tensor&, const Tensor&) { return false; }

#endif

}  // namespace ember::cpu
