// Upsampling as separable gathers: per resized dim, torch's source indices (and linear weights) computed in its
// opmath precision, then index_selects (and a weighted sum); one node, UpsampleNearest{1,2,3}DBackward0 & co.
#include <cmath>

#include "ember/creation.h"
#include "ember/layout.h"
#include "ember/nn/vision.h"
#include "nn_gather.h"

namespace ember::nn::functional {

namespace {

// One resized dim's gather: index0 (and for linear index1, weight0, weight1), computed as torch's kernels: in T for
// linear, in float for nearest (whatever the dtype). A dim that keeps its size is copied by the linear kernels and by the 2-d nearest one (which also halves a doubled
// size's index), whatever the scale; the other nearest kernels apply the scale.
template <typename T>
autograd::GatherAxis axis(const Tensor& input, int64_t d, int64_t out, UpsampleMode mode, bool align_corners,
                          std::optional<double> scale) {
  bool nearest_2d = input.dim() == 4;
  int64_t in = input.size(d);
  T s = scale ? T(1.0 / *scale) : T(in) / T(out);  // torch's compute_scales_value
  float fs = scale ? float(1.0 / *scale) : float(in) / float(out);
  const TensorOptions host_long = TensorOptions(kInt64).with_device(kCPU);
  const TensorOptions host_double = TensorOptions(kFloat64).with_device(kCPU);
  Tensor i0 = empty({out}, host_long), i1 = empty({out}, host_long);  // host tables, filled here, then moved
  Tensor w0 = empty({out}, host_double), w1 = empty({out}, host_double);
  int64_t *p0 = i0.data_ptr<int64_t>(), *p1 = i1.data_ptr<int64_t>();
  double *q0 = w0.data_ptr<double>(), *q1 = w1.data_ptr<double>();
  if (mode == UpsampleMode::Linear && align_corners) s = out > 1 ? T(in - 1) / T(out - 1) : T(0);
  for (int64_t j = 0; j < out; ++j) {
    if (mode == UpsampleMode::Nearest) {
      p0[j] = nearest_2d && out == in       ? j
              : nearest_2d && out == 2 * in ? j >> 1
                                            : std::min(int64_t(std::floor(float(j) * fs)), in - 1);
    } else if (mode == UpsampleMode::NearestExact) {
      p0[j] = std::min(int64_t(std::floor((float(j) + 0.5f) * fs)), in - 1);
    } else {
      T src = out == in ? T(j) : align_corners ? s * T(j) : std::max(s * (T(j) + T(0.5)) - T(0.5), T(0));
      int64_t lo = std::min(int64_t(src), in - 1);
      T lambda = std::min(std::max(src - T(lo), T(0)), T(1));
      p0[j] = lo;
      p1[j] = lo + (lo < in - 1 && out != in ? 1 : 0);  // a kept dim reads one element (0 * inf is no nan there)
      q0[j] = double(T(1) - lambda);
      q1[j] = double(lambda);
    }
  }
  DimVector shape(size_t(input.dim()), 1);
  shape[size_t(d)] = out;
  auto weight = [&](const Tensor& w) { return w.to(input.dtype()).view(shape).to(input.device()); };
  if (mode != UpsampleMode::Linear) return {d, i0.to(input.device()), {}, {}, {}};
  return {d, i0.to(input.device()), weight(w0), i1.to(input.device()), weight(w1)};
}

}  // namespace

Tensor upsample(const Tensor& input, IntArrayRef output_size, UpsampleMode mode, bool align_corners,
                const std::vector<double>& scales) {
  int64_t k = input.dim() - 2;
  EMBER_CHECK(k >= 1 && k <= 3 && int64_t(output_size.size()) == k, Error, "It is expected output_size equals to ", k,
              ", but got size ", output_size.size());
  EMBER_CHECK(scales.empty() || int64_t(scales.size()) == k, Error, "It is expected scale_factors equals to ", k);
  bool non_empty = true;
  for (int64_t d = 1; d < input.dim(); ++d) non_empty = non_empty && input.size(d) > 0;
  for (int64_t o : output_size) non_empty = non_empty && o > 0;
  EMBER_CHECK(non_empty, Error, "Input and output sizes should be greater than 0, but got input (", input.sizes(),
              ") output (", output_size, ")");
  const char* kinds[3][3] = {{"upsample_nearest1d", "upsample_nearest2d", "upsample_nearest3d"},
                             {"_upsample_nearest_exact1d", "_upsample_nearest_exact2d", "_upsample_nearest_exact3d"},
                             {"upsample_linear1d", "upsample_bilinear2d", "upsample_trilinear3d"}};
  bool byte_ok = mode != UpsampleMode::Linear;  // torch's nearest kernels also take uint8
  EMBER_CHECK(input.is_floating_point() || (byte_ok && input.dtype() == kUInt8), NotImplementedError, "\"",
              kinds[int(mode)][k - 1], "_out_frame\" not implemented for '", legacy_name(input.dtype()), "'");
  // Innermost dim first: a linear result nests as torch's (the outer dims' weights applied last), so an inf meets a
  // zero weight in the same places (nan) as in torch.
  std::vector<autograd::GatherAxis> axes;
  for (int64_t i = k - 1; i >= 0; --i) {
    std::optional<double> scale = scales.empty() ? std::nullopt : std::optional<double>(scales[size_t(i)]);
    axes.push_back(input.dtype() == kFloat64 ? axis<double>(input, 2 + i, output_size[size_t(i)], mode, align_corners, scale)
                                             : axis<float>(input, 2 + i, output_size[size_t(i)], mode, align_corners, scale));
  }
  Tensor result = autograd::untracked([&] {
    Tensor r = gather_axes(input, axes);
    if (!is_channels_last_like(input.sizes(), input.strides())) {
      // torch's strides exactly, also on size-1 dims (a gather of a permuted input can leave others there)
      if (DimVector(r.strides()) == contiguous_strides(r.sizes())) return r;
      return empty(r.sizes(), r.options()).copy_(r);
    }
    // torch's result follows the input's suggested memory format: channels-last stays channels-last
    return empty_strided(r.sizes(), channels_last_strides(r.sizes()), r.options()).copy_(r);
  });
  if (autograd::needs_grad({&input})) {
    static const char* names[3][3] = {
        {"UpsampleNearest1DBackward0", "UpsampleNearest2DBackward0", "UpsampleNearest3DBackward0"},
        {"UpsampleNearestExact1DBackward0", "UpsampleNearestExact2DBackward0", "UpsampleNearestExact3DBackward0"},
        {"UpsampleLinear1DBackward0", "UpsampleBilinear2DBackward0", "UpsampleTrilinear3DBackward0"}};
    autograd::record_gathers(names[int(mode)][k - 1], result, input, axes);
  }
  return result;
}

}  // namespace ember::nn::functional
