// torch's layout of a convolution's result, in the steps its backends take. A 1-d convolution runs as a 2-d one on
// (N, C, 1, L) views (unsqueeze's strides), its input made contiguous first. An empty input gives a contiguous result.
// mkldnn (float32 where torch takes it; cuDNN alike) and the slow 2-d kernels choose channels-last when either
// operand's strides suggest it, make both operands so (kept when already dense in it) and judge them again; the slow
// kernels run a grouped convolution group by group, each group's slices made in their own suggested format, and
// concatenate the groups' results (channels-last when a group's result suggests it). Slow 3-d kernels: contiguous.
#include "nn_conv_layout.h"

#include "ember/layout.h"
#include "ember/nn/conv.h"
#include "ember/parallel.h"

namespace ember::nn::functional {

namespace {

struct Layout {
  DimVector sizes, strides;
};

bool suggests_channels_last(const Layout& t) { return is_channels_last_strides(t.sizes, t.strides); }
bool either_suggests(const Layout& x, const Layout& w) { return suggests_channels_last(x) || suggests_channels_last(w); }

bool is_contiguous(const Layout& t) {
  int64_t expected = 1;
  for (size_t d = t.sizes.size(); d-- > 0;) {
    if (t.sizes[d] == 0) return true;
    if (t.sizes[d] == 1) continue;
    if (t.strides[d] != expected) return false;
    expected *= t.sizes[d];
  }
  return true;
}

// `t` made contiguous in a format: kept when already dense in it (size-1 dims skipped), else given its strides.
Layout made(Layout t, bool channels_last) {
  bool dense = channels_last ? is_channels_last_contiguous(t.sizes, t.strides) : is_contiguous(t);
  if (!dense) t.strides = channels_last ? channels_last_strides(t.sizes) : contiguous_strides(t.sizes);
  return t;
}

// One group's slice along `dim`, made in its own suggested format (every group's slice has the same layout).
Layout group_slice(Layout t, int64_t dim, int64_t groups) {
  bool channels_last = suggests_channels_last(t);
  t.sizes[size_t(dim)] /= groups;
  return made(std::move(t), channels_last);
}

Layout viewed_2d(Layout t) {
  t.strides.insert(2, t.sizes[2] * t.strides[2]);
  t.sizes.insert(2, 1);
  return t;
}

}  // namespace

bool takes_mkldnn(const Tensor& input, const Tensor& weight, const Conv& c) {
  const ConvGeometry& g = c.g;
  int64_t k = weight.dim();
  bool unit = input.size(0) < 16 && weight.size(k - 1) == 1 && (k == 3 || weight.size(k - 2) == 1) &&
              get_num_threads() == 1;
  for (size_t i = 0; i < g.stride.size(); ++i) {
    unit = unit && g.stride[i] == 1 && g.dilation[i] == 1;
    if (c.transposed && c.output_padding[i] >= g.stride[i]) return false;
  }
  return !unit && conv_uses_mkldnn(input.dtype(), input.size(0), input.numel(), weight, g.groups);
}

bool channels_last_output(const Tensor& input, const Tensor& weight, const Conv& c) {
  if (input.dim() < 3 || input.dim() > 5 || weight.dim() != input.dim()) return false;
  if (input.size(0) == 0 || input.size(1) == 0) return false;
  Layout x{DimVector(input.sizes()), DimVector(input.strides())}, w{DimVector(weight.sizes()), DimVector(weight.strides())};
  if (input.dim() == 3) {
    if (!input.is_contiguous()) x.strides = contiguous_strides(x.sizes);
    x = viewed_2d(std::move(x));
    w = viewed_2d(std::move(w));
  }
  bool mkldnn = input.device().is_cuda() || takes_mkldnn(input, weight, c);
  if (!mkldnn && x.sizes.size() == 5) return false;
  bool channels_last = either_suggests(x, w);
  x = made(std::move(x), channels_last);
  w = made(std::move(w), channels_last);
  if (mkldnn || c.g.groups == 1) return either_suggests(x, w);
  Layout xg = group_slice(x, 1, c.g.groups), wg = group_slice(w, 0, c.g.groups);
  Layout out{{input.size(0), c.transposed ? w.sizes[1] : w.sizes[0] / c.g.groups}, {}};
  for (int64_t o : c.out_spatial) out.sizes.push_back(o);
  if (input.dim() == 3) out.sizes.insert(2, 1);
  bool group_channels_last = either_suggests(xg, wg);
  out.strides = group_channels_last ? channels_last_strides(out.sizes) : contiguous_strides(out.sizes);
  return suggests_channels_last(out);
}

}  // namespace ember::nn::functional
