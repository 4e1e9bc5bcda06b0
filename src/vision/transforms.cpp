// Image transforms on tensors [..., C, H, W]: index-mapping crops and pads for every dtype, float loops for
// resampling and colour, tensor ops for the rest. Integer images compute in float32 and come back rounded.
#include "ember/vision/transforms.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>

#include "ember/creation.h"
#include "ember/errors.h"
#include "ember/nn/vision.h"
#include "ember/operators.h"
#include "ember/ops.h"
#include "ember/parallel.h"
#include "ember/reduce.h"
#include "ember/shape_utils.h"

namespace ember::vision {

namespace {

void check_image(const Tensor& img, const char* what) {
  EMBER_CHECK(img.defined() && img.dim() >= 2, TypeError, what, ": expected a tensor image of size (..., H, W), got ",
              img.defined() ? int_list(img.sizes()) : IntList{nullptr, 0});
}

// The image as a contiguous batch [N, C, H, W].
Tensor as_batch(const Tensor& img) {
  int64_t h = img.size(-2), w = img.size(-1), c = img.dim() >= 3 ? img.size(-3) : 1, n = 1;
  for (int64_t d = 0; d + 3 < img.dim(); ++d) n *= img.size(d);
  return img.contiguous().reshape({n, c, h, w});
}

int64_t channels(const Tensor& img) { return img.dim() >= 3 ? img.size(-3) : 1; }

void check_color(const Tensor& img, const char* what) {
  check_image(img, what);
  int64_t c = channels(img);
  EMBER_CHECK(c == 1 || c == 3, TypeError, "Input image tensor permitted channel values are [1, 3], but found ", c);
}

// The float dtype an image computes in, and the way back (integers rounded and clamped to their range).
ScalarType work_dtype(const Tensor& img) { return img.dtype() == kFloat64 ? kFloat64 : kFloat32; }
Tensor restore(const Tensor& x, ScalarType dtype) {
  if (is_floating_point(dtype)) return x.to(dtype);
  double hi = dtype == kBool ? 1 : visit_dtype(dtype, []<typename T>(T) { return double(std::numeric_limits<T>::max()); });
  double lo = dtype == kBool ? 0 : visit_dtype(dtype, []<typename T>(T) { return double(std::numeric_limits<T>::lowest()); });
  return clamp(x.round(0), Scalar(lo), Scalar(hi)).to(dtype);
}
// The largest pixel value of a dtype: 1 for floats, the type's max for integers.
double max_value(ScalarType dtype) {
  if (is_floating_point(dtype) || dtype == kBool) return 1;
  return visit_dtype(dtype, []<typename T>(T) { return double(std::numeric_limits<T>::max()); });
}

// The source index for position i of a line of n pixels padded by `mode`, or -1 for the constant fill.
int64_t source_index(int64_t i, int64_t n, PadMode mode) {
  if (i >= 0 && i < n) return i;
  switch (mode) {
    case PadMode::Constant: return -1;
    case PadMode::Edge: return i < 0 ? 0 : n - 1;
    case PadMode::Reflect: {
      if (n == 1) return 0;
      int64_t period = 2 * n - 2, k = ((i % period) + period) % period;
      return k < n ? k : period - k;
    }
    case PadMode::Symmetric: {
      int64_t period = 2 * n, k = ((i % period) + period) % period;
      return k < n ? k : period - 1 - k;
    }
  }
  return -1;
}

// Runs fn(T*) for a float work tensor's element type.
template <typename Fn>
void visit_float(const Tensor& t, Fn&& fn) {
  if (t.dtype() == kFloat64) fn(t.data_ptr<double>());
  else fn(t.data_ptr<float>());
}

// Separable resampling weights along one axis: per output index, the first source index and its taps.
struct Taps {
  std::vector<int64_t> start, count;
  std::vector<double> weights;  // `width` per output index
  int64_t width = 0;
};

Taps linear_taps(int64_t in, int64_t out, bool antialias) {
  double scale = double(in) / double(out);
  double support = antialias && scale > 1 ? scale : 1.0, inv = antialias && scale > 1 ? 1 / scale : 1.0;
  Taps t;
  t.width = int64_t(std::ceil(support)) * 2 + 1;
  t.start.resize(size_t(out));
  t.count.resize(size_t(out));
  t.weights.assign(size_t(out * t.width), 0.0);
  for (int64_t i = 0; i < out; ++i) {
    double center = scale * (double(i) + 0.5);
    int64_t lo = std::max<int64_t>(int64_t(center - support + 0.5), 0);
    int64_t hi = std::min<int64_t>(int64_t(center + support + 0.5), in);
    double total = 0;
    double* w = &t.weights[size_t(i * t.width)];
    for (int64_t j = lo; j < hi; ++j) total += w[j - lo] = std::max(0.0, 1.0 - std::abs((double(j) - center + 0.5) * inv));
    for (int64_t j = lo; j < hi; ++j) w[j - lo] = total > 0 ? w[j - lo] / total : 0.0;
    t.start[size_t(i)] = lo;
    t.count[size_t(i)] = hi - lo;
  }
  return t;
}

// Resamples the last dim of x [M, L] to out [M, taps.count.size()].
template <typename T>
void resample_rows(const T* x, T* y, int64_t rows, int64_t in, const Taps& taps) {
  int64_t out = int64_t(taps.start.size());
  parallel_for(0, rows, std::max<int64_t>(1, 16384 / std::max<int64_t>(1, in)), [&](int64_t b, int64_t e) {
    for (int64_t r = b; r < e; ++r)
      for (int64_t i = 0; i < out; ++i) {
        const T* src = x + r * in + taps.start[size_t(i)];
        const double* w = &taps.weights[size_t(i * taps.width)];
        double acc = 0;
        for (int64_t k = 0; k < taps.count[size_t(i)]; ++k) acc += w[k] * double(src[k]);
        y[r * out + i] = T(acc);
      }
  });
}

// (ratio * a + (1 - ratio) * b) clamped to the pixel range, in a's dtype (integers truncated, as torchvision).
Tensor blend(const Tensor& a, const Tensor& b, double ratio) {
  ScalarType f = is_floating_point(a.dtype()) ? a.dtype() : kFloat32;
  Tensor r = a.to(f) * Scalar(ratio) + b.to(f) * Scalar(1.0 - ratio);
  return clamp(r, Scalar(0.0), Scalar(max_value(a.dtype()))).to(a.dtype());
}

void check_factor(double factor, const char* name) {
  EMBER_CHECK(factor >= 0, ValueError, name, " (", factor, ") is not non-negative.");
}

// One draw of torch.randint(0, n, (1,)) and torch.rand(1) from a locked generator state.
int64_t draw_below(GeneratorState& g, int64_t n) { return int64_t(uint64_t(g.engine()) % uint64_t(n)); }
float draw_uniform(GeneratorState& g) { return float(g.engine() & 0xffffffu) * (1.0f / 16777216.0f); }

}  // namespace

PadMode pad_mode(std::string_view name) {
  if (name == "constant") return PadMode::Constant;
  if (name == "edge") return PadMode::Edge;
  if (name == "reflect") return PadMode::Reflect;
  if (name == "symmetric") return PadMode::Symmetric;
  throw ValueError(str("Padding mode should be either constant, edge, reflect or symmetric, got ", name));
}

Tensor crop_pad(const Tensor& img, IntArrayRef tops, IntArrayRef lefts, int64_t h, int64_t w, PadMode mode,
                double fill) {
  check_image(img, "crop");
  EMBER_CHECK(h >= 0 && w >= 0, ValueError, "crop size must be non-negative, got (", h, ", ", w, ")");
  Tensor x = as_batch(img);
  int64_t n = x.size(0), c = x.size(1), H = x.size(2), W = x.size(3);
  EMBER_CHECK(tops.size() == lefts.size() && (tops.size() == 1 || int64_t(tops.size()) == n), ValueError,
              "crop: expected one (top, left) or one per image (", n, "), got ", tops.size(), " and ", lefts.size());
  EMBER_CHECK(mode == PadMode::Constant || (H > 0 && W > 0), ValueError, "cannot pad an empty image by ", "edge or reflection");
  Tensor y = empty({n, c, h, w}, x.options());
  visit_dtype(x.dtype(), [&]<typename T>(T) {
    const T* src = x.data_ptr<T>();
    T* dst = y.data_ptr<T>();
    T value = convert<T>(fill);
    parallel_for(0, n, std::max<int64_t>(1, 65536 / std::max<int64_t>(1, c * h * w)), [&](int64_t b, int64_t e) {
      std::vector<int64_t> cols(static_cast<size_t>(w));
      for (int64_t i = b; i < e; ++i) {
        int64_t top = tops[tops.size() == 1 ? 0 : size_t(i)], left = lefts[lefts.size() == 1 ? 0 : size_t(i)];
        for (int64_t k = 0; k < w; ++k) cols[size_t(k)] = source_index(left + k, W, mode);
        // The window's columns inside the image: one copy per row.
        int64_t inside_begin = std::clamp<int64_t>(-left, 0, w), inside_end = std::clamp<int64_t>(W - left, inside_begin, w);
        for (int64_t ch = 0; ch < c; ++ch) {
          const T* plane = src + (i * c + ch) * H * W;
          T* out = dst + (i * c + ch) * h * w;
          for (int64_t r = 0; r < h; ++r, out += w) {
            int64_t sr = source_index(top + r, H, mode);
            if (sr < 0) {
              std::fill(out, out + w, value);
              continue;
            }
            const T* row = plane + sr * W;
            for (int64_t k = 0; k < inside_begin; ++k) out[k] = cols[size_t(k)] < 0 ? value : row[cols[size_t(k)]];
            std::copy(row + left + inside_begin, row + left + inside_end, out + inside_begin);
            for (int64_t k = inside_end; k < w; ++k) out[k] = cols[size_t(k)] < 0 ? value : row[cols[size_t(k)]];
          }
        }
      }
    });
  });
  DimVector shape(img.sizes());
  shape[shape.size() - 2] = h;
  shape[shape.size() - 1] = w;
  return y.reshape(shape);
}

Tensor pad(const Tensor& img, IntArrayRef ltrb, PadMode mode, double fill) {
  check_image(img, "pad");
  EMBER_CHECK(ltrb.size() == 4, ValueError, "pad: expected 4 padding values (left, top, right, bottom), got ", ltrb.size());
  int64_t H = img.size(-2), W = img.size(-1);
  if (mode == PadMode::Reflect)
    EMBER_CHECK(std::max(ltrb[0], ltrb[2]) < W && std::max(ltrb[1], ltrb[3]) < H, ValueError,
                "Padding size should be less than the corresponding input dimension, but got: padding (", ltrb[0], ", ",
                ltrb[2], ") at dimension ", img.dim() - 1, " of input ", int_list(img.sizes()));
  int64_t top = -ltrb[1], left = -ltrb[0];
  return crop_pad(img, IntArrayRef(&top, 1), IntArrayRef(&left, 1), H + ltrb[1] + ltrb[3], W + ltrb[0] + ltrb[2], mode,
                  fill);
}

Tensor crop(const Tensor& img, int64_t top, int64_t left, int64_t h, int64_t w) {
  check_image(img, "crop");
  int64_t H = img.size(-2), W = img.size(-1);
  if (top >= 0 && left >= 0 && top + h <= H && left + w <= W) return img.narrow(-2, top, h).narrow(-1, left, w);
  return crop_pad(img, IntArrayRef(&top, 1), IntArrayRef(&left, 1), h, w);
}

Tensor center_crop(const Tensor& img, int64_t h, int64_t w) {
  check_image(img, "center_crop");
  int64_t H = img.size(-2), W = img.size(-1);
  if (h > H || w > W) {  // torchvision pads with zeros to the crop size first
    int64_t ltrb[4] = {w > W ? (w - W) / 2 : 0, h > H ? (h - H) / 2 : 0, w > W ? (w - W + 1) / 2 : 0,
                       h > H ? (h - H + 1) / 2 : 0};
    Tensor padded = pad(img, IntArrayRef(ltrb, 4));
    if (padded.size(-2) == h && padded.size(-1) == w) return padded;
    return center_crop(padded, h, w);
  }
  int64_t top = int64_t(std::nearbyint(double(H - h) / 2.0)), left = int64_t(std::nearbyint(double(W - w) / 2.0));  // Python round()
  return crop(img, top, left, h, w);
}

Tensor hflip(const Tensor& img) {
  check_image(img, "hflip");
  int64_t d = -1;
  return flip(img, IntArrayRef(&d, 1));
}

Tensor vflip(const Tensor& img) {
  check_image(img, "vflip");
  int64_t d = -2;
  return flip(img, IntArrayRef(&d, 1));
}

Tensor normalize(const Tensor& img, std::span<const double> mean, std::span<const double> std) {
  EMBER_CHECK(img.defined() && is_floating_point(img.dtype()), TypeError, "Input tensor should be a float tensor. Got torch.",
              img.defined() ? dtype_info(img.dtype()).name : "None", ".");
  EMBER_CHECK(img.dim() >= 3, ValueError, "Expected tensor to be a tensor image of size (..., C, H, W). Got tensor.size() = ",
              int_list(img.sizes()));
  int64_t c = img.size(-3);
  auto as_column = [&](std::span<const double> v) {
    return tensor(std::vector<double>(v.begin(), v.end()), {int64_t(v.size()), 1, 1}, img.options());
  };
  for (auto v : {mean, std})
    EMBER_CHECK(v.size() == 1 || int64_t(v.size()) == c, ValueError, "normalize: expected 1 or ", c,
                " values per mean and std, got ", v.size());
  bool zero = false;
  for (double v : std) zero |= visit_dtype(img.dtype(), [&]<typename T>(T) { return double(convert<T>(v)) == 0.0; });
  EMBER_CHECK(!zero, ValueError, "std evaluated to zero after conversion to torch.",
              dtype_info(img.dtype()).name, ", leading to division by zero.");
  if (img.requires_grad() || (img.dtype() != kFloat32 && img.dtype() != kFloat64))
    return (img - as_column(mean)) / as_column(std);
  // One serial pass (the same two roundings as the tensor ops): images are small and loaders run many at once.
  Tensor x = as_batch(img), y = empty_like(x);
  int64_t n = x.size(0), plane = x.size(2) * x.size(3);
  visit_float(x, [&]<typename T>(T* src) {
    T* dst = y.data_ptr<T>();
    for (int64_t i = 0; i < n * c; ++i) {
      T mi = T(mean[mean.size() == 1 ? 0 : size_t(i % c)]), si = T(std[std.size() == 1 ? 0 : size_t(i % c)]);
      for (int64_t k = 0; k < plane; ++k) dst[i * plane + k] = T(src[i * plane + k] - mi) / si;
    }
  });
  return y.reshape(img.sizes());
}

Tensor resize(const Tensor& img, int64_t h, int64_t w, Interpolation mode, bool antialias) {
  check_image(img, "resize");
  EMBER_CHECK(h > 0 && w > 0, ValueError, "resize: the output size must be positive, got (", h, ", ", w, ")");
  int64_t H = img.size(-2), W = img.size(-1);
  if (H == h && W == w) return img;
  Tensor x = as_batch(img).to(work_dtype(img));
  Tensor y;
  if (mode == Interpolation::Nearest || !antialias) {
    auto m = mode == Interpolation::Nearest ? nn::functional::UpsampleMode::Nearest : nn::functional::UpsampleMode::Linear;
    int64_t size[2] = {h, w};
    y = nn::functional::upsample(x, IntArrayRef(size, 2), m, false);
  } else {
    int64_t n = x.size(0), c = x.size(1);
    Taps tw = linear_taps(W, w, true), th = linear_taps(H, h, true);
    Tensor mid = empty({n, c, w, H}, x.options());  // rows resampled, then transposed so columns are rows
    y = empty({n, c, h, w}, x.options());
    visit_float(x, [&]<typename T>(T* src) {
      Tensor a = empty({n, c, H, w}, x.options());
      resample_rows(src, a.data_ptr<T>(), n * c * H, W, tw);
      mid.copy_(a.transpose(2, 3));
      Tensor b = empty({n, c, w, h}, x.options());
      resample_rows(mid.data_ptr<T>(), b.data_ptr<T>(), n * c * w, H, th);
      y.copy_(b.transpose(2, 3));
    });
  }
  DimVector shape(img.sizes());
  shape[shape.size() - 2] = h;
  shape[shape.size() - 1] = w;
  return restore(y, img.dtype()).reshape(shape);
}

Tensor erase(const Tensor& img, int64_t i, int64_t j, int64_t h, int64_t w, const Tensor& v) {
  check_image(img, "erase");
  Tensor out = img.clone();
  Tensor block = out.slice(-2, i, i + h).slice(-1, j, j + w);
  block.copy_(v.to(img.dtype()).expand(block.sizes()));
  return out;
}

Tensor rgb_to_grayscale(const Tensor& img, int64_t num_output_channels) {
  check_color(img, "rgb_to_grayscale");
  EMBER_CHECK(num_output_channels == 1 || num_output_channels == 3, ValueError,
              "num_output_channels should be either 1 or 3");
  Tensor l;
  if (channels(img) == 1) {
    l = img.clone();
  } else {
    ScalarType f = is_floating_point(img.dtype()) ? img.dtype() : kFloat32;
    Tensor r = img.select(-3, 0).to(f), g = img.select(-3, 1).to(f), b = img.select(-3, 2).to(f);
    l = (r * Scalar(0.2989) + g * Scalar(0.587) + b * Scalar(0.114)).to(img.dtype()).unsqueeze(-3);
  }
  if (num_output_channels == 3) {
    DimVector shape(l.sizes());
    shape[shape.size() - 3] = 3;
    return l.expand(shape).contiguous();
  }
  return l;
}

Tensor adjust_brightness(const Tensor& img, double factor) {
  check_factor(factor, "brightness_factor");
  check_color(img, "adjust_brightness");
  return blend(img, zeros_like(img), factor);
}

Tensor adjust_contrast(const Tensor& img, double factor) {
  check_factor(factor, "contrast_factor");
  check_color(img, "adjust_contrast");
  ScalarType f = is_floating_point(img.dtype()) ? img.dtype() : kFloat32;
  Tensor gray = channels(img) == 3 ? rgb_to_grayscale(img) : img;
  int64_t dims[3] = {-3, -2, -1};
  return blend(img, mean(gray.to(f), IntArrayRef(dims, 3), true), factor);
}

Tensor adjust_saturation(const Tensor& img, double factor) {
  check_factor(factor, "saturation_factor");
  check_color(img, "adjust_saturation");
  if (channels(img) == 1) return img;
  return blend(img, rgb_to_grayscale(img), factor);
}

Tensor adjust_hue(const Tensor& img, double factor) {
  EMBER_CHECK(factor >= -0.5 && factor <= 0.5, ValueError, "hue_factor (", factor, ") is not in [-0.5, 0.5].");
  check_color(img, "adjust_hue");
  if (channels(img) == 1) return img;
  Tensor x = as_batch(is_floating_point(img.dtype()) ? img : convert_image_dtype(img, kFloat32)).to(work_dtype(img)).clone();
  int64_t n = x.size(0), plane = x.size(2) * x.size(3);
  visit_float(x, [&]<typename T>(T* p) {
    for (int64_t i = 0; i < n; ++i) {
      T *r = p + i * 3 * plane, *g = r + plane, *b = g + plane;
      for (int64_t k = 0; k < plane; ++k) {
        T mx = std::max({r[k], g[k], b[k]}), mn = std::min({r[k], g[k], b[k]}), cr = mx - mn;
        bool flat = mx == mn;
        T s = cr / (flat ? T(1) : mx), d = flat ? T(1) : cr;
        T rc = (mx - r[k]) / d, gc = (mx - g[k]) / d, bc = (mx - b[k]) / d;
        T hue = mx == r[k] ? bc - gc : mx == g[k] ? T(2) + rc - bc : T(4) + gc - rc;
        hue = std::fmod(hue / T(6) + T(1), T(1));
        hue = std::fmod(hue + T(factor) + T(1), T(1));  // (h + factor) % 1 with factor in [-0.5, 0.5]
        T v = mx, h6 = hue * T(6), sector = std::floor(h6), f = h6 - sector;
        T pp = std::clamp(v * (T(1) - s), T(0), T(1)), q = std::clamp(v * (T(1) - s * f), T(0), T(1));
        T t = std::clamp(v * (T(1) - s * (T(1) - f)), T(0), T(1));
        switch (int64_t(sector) % 6) {
          case 0: r[k] = v, g[k] = t, b[k] = pp; break;
          case 1: r[k] = q, g[k] = v, b[k] = pp; break;
          case 2: r[k] = pp, g[k] = v, b[k] = t; break;
          case 3: r[k] = pp, g[k] = q, b[k] = v; break;
          case 4: r[k] = t, g[k] = pp, b[k] = v; break;
          default: r[k] = v, g[k] = pp, b[k] = q; break;
        }
      }
    }
  });
  Tensor y = x.reshape(img.sizes());
  return is_floating_point(img.dtype()) ? y.to(img.dtype()) : convert_image_dtype(y.to(kFloat32), img.dtype());
}

Tensor rotate(const Tensor& img, double angle, Interpolation mode, bool expand, std::optional<std::array<double, 2>> center,
              std::span<const double> fill) {
  check_image(img, "rotate");
  EMBER_CHECK(std::isfinite(angle), ValueError, "rotate: the angle must be finite, got ", angle);
  Tensor x = as_batch(img).to(work_dtype(img));
  int64_t n = x.size(0), c = x.size(1), H = x.size(2), W = x.size(3);
  EMBER_CHECK(fill.empty() || fill.size() == 1 || int64_t(fill.size()) == c, ValueError,
              "The number of elements in 'fill' does not match the number of channels of the image (", fill.size(),
              " != ", c, ")");
  double a = angle * std::numbers::pi / 180.0, cs = std::cos(a), sn = std::sin(a);
  double cx = center ? (*center)[0] - W * 0.5 : 0.0, cy = center ? (*center)[1] - H * 0.5 : 0.0;
  int64_t oh = H, ow = W;
  if (expand) {  // the rotated corners' bounding box, as torchvision rounds it
    double lo[2] = {INFINITY, INFINITY}, hi[2] = {-INFINITY, -INFINITY};
    for (double px : {-0.5 * W, 0.5 * W})
      for (double py : {-0.5 * H, 0.5 * H}) {
        double q[2] = {cs * px + sn * py, -sn * px + cs * py};
        for (int d = 0; d < 2; ++d) lo[d] = std::min(lo[d], q[d]), hi[d] = std::max(hi[d], q[d]);
      }
    auto snap = [](double v) { return std::trunc(v / 1e-4) * 1e-4; };
    ow = int64_t(std::ceil(snap(hi[0])) - std::floor(snap(lo[0])));
    oh = int64_t(std::ceil(snap(hi[1])) - std::floor(snap(lo[1])));
  }
  Tensor y = empty({n, c, oh, ow}, x.options());
  visit_float(x, [&]<typename T>(T* src) {
    T* dst = y.data_ptr<T>();
    for (int64_t oy = 0; oy < oh; ++oy)
      for (int64_t ox = 0; ox < ow; ++ox) {
        double dx = ox + 0.5 - ow * 0.5 - cx, dy = oy + 0.5 - oh * 0.5 - cy;
        double sx = cs * dx - sn * dy + cx + W * 0.5 - 0.5, sy = sn * dx + cs * dy + cy + H * 0.5 - 0.5;
        // Taps (up to 4) with weights; missing taps sample zero; `inside` is the mask torchvision samples.
        int64_t ix[4], iy[4];
        double wt[4], inside = 0;
        int taps;
        if (mode == Interpolation::Nearest) {
          ix[0] = int64_t(std::nearbyint(sx)), iy[0] = int64_t(std::nearbyint(sy)), wt[0] = 1, taps = 1;
        } else {
          double fx = std::floor(sx), fy = std::floor(sy), ax = sx - fx, ay = sy - fy;
          for (int k = 0; k < 4; ++k) {
            ix[k] = int64_t(fx) + (k & 1), iy[k] = int64_t(fy) + (k >> 1);
            wt[k] = ((k & 1) ? ax : 1 - ax) * ((k >> 1) ? ay : 1 - ay);
          }
          taps = 4;
        }
        for (int k = 0; k < taps; ++k)
          if (ix[k] < 0 || ix[k] >= W || iy[k] < 0 || iy[k] >= H) wt[k] = 0;
          else inside += wt[k];
        for (int64_t i = 0; i < n * c; ++i) {
          const T* plane = src + i * H * W;
          double v = 0;
          for (int k = 0; k < taps; ++k)
            if (wt[k] != 0) v += wt[k] * double(plane[iy[k] * W + ix[k]]);
          if (!fill.empty()) {
            double f = fill[fill.size() == 1 ? 0 : size_t(i % c)];
            if (mode == Interpolation::Nearest) v = inside < 0.5 ? f : v;
            else v = v * inside + (1.0 - inside) * f;
          }
          dst[(i * oh + oy) * ow + ox] = T(v);
        }
      }
  });
  DimVector shape(img.sizes());
  shape[shape.size() - 2] = oh;
  shape[shape.size() - 1] = ow;
  return restore(y, img.dtype()).reshape(shape);
}

Tensor convert_image_dtype(const Tensor& img, ScalarType dtype) {
  EMBER_CHECK(img.defined(), TypeError, "convert_image_dtype: expected a tensor");
  ScalarType from = img.dtype();
  if (from == dtype) return img;
  bool ff = is_floating_point(from), tf = is_floating_point(dtype);
  if (ff && tf) return img.to(dtype);
  if (ff) {
    EMBER_CHECK(!((from == kFloat32 && (dtype == kInt32 || dtype == kInt64)) || (from == kFloat64 && dtype == kInt64)),
                Error, "The cast from torch.", dtype_info(from).name, " to torch.", dtype_info(dtype).name,
                " cannot be performed safely.");
    return (img * Scalar(max_value(dtype) + 1.0 - 1e-3)).to(dtype);
  }
  if (tf) return img.to(dtype) / Scalar(max_value(from));
  double in_max = max_value(from), out_max = max_value(dtype);
  if (in_max > out_max) {
    int64_t factor = int64_t((in_max + 1) / (out_max + 1));
    return div(img, scalar_tensor(factor, img.options()), "floor").to(dtype);
  }
  int64_t factor = int64_t((out_max + 1) / (in_max + 1));
  return img.to(dtype) * Scalar(factor);
}

RandomCrop::RandomCrop(int64_t h, int64_t w, std::array<int64_t, 4> padding_ltrb, PadMode mode, double fill)
    : h_(h), w_(w), pad_(padding_ltrb), mode_(mode), fill_(fill) {
  EMBER_CHECK(h > 0 && w > 0, ValueError, "RandomCrop: the crop size must be positive, got (", h, ", ", w, ")");
  for (int64_t p : pad_) EMBER_CHECK(p >= 0, ValueError, "RandomCrop: padding must be non-negative, got ", int_list(pad_));
}

void RandomCrop::draw(GeneratorState& gen, int64_t& h, int64_t& w, std::vector<int64_t>& params) const {
  int64_t H = h + pad_[1] + pad_[3], W = w + pad_[0] + pad_[2];
  EMBER_CHECK(H >= h_ && W >= w_, ValueError, "Required crop size (", h_, ", ", w_,
              ") is larger than input image size (", H, ", ", W, ")");
  int64_t i = 0, j = 0;
  if (H != h_ || W != w_) {  // torchvision draws nothing when the crop is the whole image
    i = draw_below(gen, H - h_ + 1);
    j = draw_below(gen, W - w_ + 1);
  }
  params.push_back(i - pad_[1]);
  params.push_back(j - pad_[0]);
  h = h_, w = w_;
}

Tensor RandomCrop::apply(const Tensor& batch, std::span<const int64_t> params) const {
  int64_t n = batch.size(0);
  std::vector<int64_t> tops(static_cast<size_t>(n)), lefts(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) tops[size_t(i)] = params[size_t(2 * i)], lefts[size_t(i)] = params[size_t(2 * i + 1)];
  return crop_pad(batch, tops, lefts, h_, w_, mode_, fill_);
}

void RandomFlip::draw(GeneratorState& gen, int64_t&, int64_t&, std::vector<int64_t>& params) const {
  params.push_back(draw_uniform(gen) < p_ ? 1 : 0);
}

Tensor RandomFlip::apply(const Tensor& batch, std::span<const int64_t> params) const {
  Tensor out = batch.contiguous();
  bool copied = false;
  for (int64_t i = 0; i < batch.size(0); ++i) {
    if (!params[size_t(i)]) continue;
    if (!copied) out = out.clone(), copied = true;
    Tensor image = out.select(0, i);
    image.copy_(vertical_ ? vflip(image) : hflip(image));
  }
  return out;
}

Tensor Normalize::apply(const Tensor& batch, std::span<const int64_t>) const { return normalize(batch, mean_, std_); }

Tensor apply_transforms(std::span<const std::shared_ptr<const Transform>> transforms, const Tensor& batch,
                        Generator* gen) {
  EMBER_CHECK(batch.dim() == 4, ValueError, "apply_transforms: expected a batch [N, C, H, W], got ", int_list(batch.sizes()));
  std::vector<std::vector<int64_t>> params(transforms.size());
  {
    GeneratorState& g = (gen ? *gen : default_generator()).state();
    std::lock_guard<std::mutex> lock(g.mutex);
    for (int64_t i = 0; i < batch.size(0); ++i) {
      int64_t h = batch.size(2), w = batch.size(3);
      for (size_t t = 0; t < transforms.size(); ++t) transforms[t]->draw(g, h, w, params[t]);
    }
  }
  Tensor out = batch;
  for (size_t t = 0; t < transforms.size(); ++t) out = transforms[t]->apply(out, params[t]);
  return out;
}

}  // namespace ember::vision
