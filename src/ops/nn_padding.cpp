// Padding as torch's at::pad: constant_pad_nd (a filled output with the cropped input copied in), reflection and
// replication pads (one index_select per padded dim; one node, ReflectionPad{1,2,3}DBackward0 /
// ReplicationPad{1,2,3}DBackward0) and the circular pad (torch's composite of slice copies, so CopySlices).
#include "../core/autocast_policy.h"
#include "ember/nn/padding.h"

#include <algorithm>

#include "ember/creation.h"
#include "ember/layout.h"
#include "ember/ops.h"
#include "ember/scatter.h"
#include "nn_gather.h"

namespace ember {

Tensor constant_pad_nd(const Tensor& self, IntArrayRef pad, const Scalar& value) {
  EMBER_CHECK(pad.size() % 2 == 0, Error, "Length of pad must be even but instead it equals ", pad.size());
  int64_t l_inp = self.dim(), l_pad = int64_t(pad.size()) / 2, l_diff = l_inp - l_pad;
  EMBER_CHECK(l_inp >= l_pad, Error, "Length of pad should be no more than twice the number of dimensions of the input."
              " Pad length is ", pad.size(), "while the input has ", l_inp, "dimensions.");
  Tensor result = autograd::untracked([&] {
    Tensor c_input = self;
    bool all_non_positive = true;
    for (int64_t i = l_diff; i < l_inp; ++i) {
      int64_t lo = pad[size_t(2 * (l_inp - i - 1))], hi = pad[size_t(2 * (l_inp - i - 1) + 1)];
      if (lo < 0) c_input = c_input.narrow(i, -lo, c_input.size(i) + lo);
      all_non_positive = all_non_positive && lo <= 0 && hi <= 0;
      if (hi < 0) c_input = c_input.narrow(i, 0, c_input.size(i) + hi);
    }
    if (all_non_positive) return c_input.clone();
    DimVector shape(self.sizes());
    for (int64_t i = 0; i < l_pad; ++i) {
      size_t idx = pad.size() - size_t(i + 1) * 2;
      int64_t d = l_diff + i, size = self.size(d) + pad[idx] + pad[idx + 1];
      EMBER_CHECK(size >= 0, Error, "The input size ", self.size(d), ", plus negative padding ", pad[idx], " and ",
                  pad[idx + 1], " resulted in a negative output size, which is invalid. Check dimension ", d,
                  " of your input.");
      shape[size_t(d)] = size;
    }
    // in the input's suggested memory format, as torch's (a channels-last input pads channels-last)
    bool channels_last = (self.dim() == 4 || self.dim() == 5) && is_channels_last_like(self.sizes(), self.strides());
    Tensor out = channels_last ? empty_strided(shape, channels_last_strides(shape), self.options())
                               : empty(shape, self.options());
    out.fill_(value);
    Tensor c_out = out;
    for (int64_t i = l_diff; i < l_inp; ++i) {
      int64_t lo = pad[size_t(2 * (l_inp - i - 1))], hi = pad[size_t(2 * (l_inp - i - 1) + 1)];
      if (lo > 0) c_out = c_out.narrow(i, lo, c_out.size(i) - lo);
      if (hi > 0) c_out = c_out.narrow(i, 0, c_out.size(i) - hi);
    }
    c_out.copy_(c_input);
    return out;
  });
  if (autograd::needs_grad({&self})) autograd::record_constant_pad(result, self, pad);
  return result;
}

}  // namespace ember

namespace ember::nn::functional {

namespace {

enum class Mode { Reflect, Replicate, Circular };

const char* mode_name(Mode m) { return m == Mode::Reflect ? "reflect" : m == Mode::Replicate ? "replicate" : "circular"; }

// torch's _pad_circular: the cropped input copied into the middle, then each side copied from the other end.
Tensor pad_circular(const Tensor& self, IntArrayRef pad) {
  int64_t ndim_padded = int64_t(pad.size()) / 2, ndim_nonpadded = self.dim() - ndim_padded;
  DimVector out_shape(self.sizes());
  for (int64_t i = 0; i < ndim_padded; ++i) {
    int64_t l = pad[size_t(2 * (ndim_padded - i - 1))], r = pad[size_t(2 * (ndim_padded - i - 1) + 1)];
    int64_t size = self.size(ndim_nonpadded + i);
    out_shape[size_t(ndim_nonpadded + i)] = size + l + r;
    EMBER_CHECK(l <= size && r <= size, Error, "Padding value causes wrapping around more than once.");
    EMBER_CHECK(size + l + r >= 0, Error, "Negative padding value is resulting in an empty dimension");
  }
  Tensor out = empty(out_shape, self.options());
  Tensor out_slice = out, in_slice = self;
  for (int64_t i = 0; i < ndim_padded; ++i) {
    int64_t d = ndim_padded - i + ndim_nonpadded - 1, l = pad[size_t(2 * i)], r = pad[size_t(2 * i + 1)];
    out_slice = out_slice.slice(d, std::max<int64_t>(l, 0), out_shape[size_t(d)] - std::max<int64_t>(r, 0));
    in_slice = in_slice.slice(d, std::max<int64_t>(-l, 0), self.size(d) - std::max<int64_t>(-r, 0));
  }
  out_slice.copy_(in_slice);
  for (int64_t i = 0; i < ndim_padded; ++i) {
    int64_t d = ndim_padded - i + ndim_nonpadded - 1, l = pad[size_t(2 * i)], r = pad[size_t(2 * i + 1)];
    int64_t n = out_shape[size_t(d)];
    if (l > 0) {
      Tensor dst = out.slice(d, 0, l);
      dst.copy_(out.slice(d, n - l - std::max<int64_t>(r, 0), n - std::max<int64_t>(r, 0)));
    }
    if (r > 0) {
      Tensor dst = out.slice(d, n - r, n);
      dst.copy_(out.slice(d, std::max<int64_t>(l, 0), std::max<int64_t>(l, 0) + r));
    }
  }
  return out;
}

// reflection_pad / replication_pad: the checks of torch's kernels, then one gather per padded dim.
Tensor pad_indexed(const Tensor& self, IntArrayRef pad, Mode mode) {
  int64_t k = int64_t(pad.size()) / 2;
  const char* kernel_names[2][3] = {{"reflection_pad1d", "reflection_pad2d", "reflection_pad3d"},
                                    {"replication_pad1d", "replication_pad2d", "replication_pad3d"}};
  bool reflect = mode == Mode::Reflect;
  bool nonempty = true;
  for (int64_t d = self.dim() == k + 2 ? 1 : 0; d < self.dim(); ++d) nonempty = nonempty && self.size(d) != 0;
  EMBER_CHECK(nonempty, Error, "Expected ", k + 1, "D or ", k + 2, "D (batch mode) tensor with possibly 0 batch size "
              "and other non-zero dimensions for input, but got: ", self.sizes());
  std::vector<autograd::GatherAxis> gathers;
  for (int64_t i = 0; i < k; ++i) {
    int64_t d = self.dim() - 1 - i, size = self.size(d), l = pad[size_t(2 * i)], r = pad[size_t(2 * i + 1)];
    if (reflect) {
      EMBER_CHECK(l < size && r < size, Error, "Argument #", 4 + 2 * i, ": Padding size should be less than the "
                  "corresponding input dimension, but got: padding (", l, ", ", r, ") at dimension ", d,
                  " of input ", self.sizes());
    }
    int64_t out = size + l + r;
    EMBER_CHECK(out >= 1, Error, "input (W: ", size, ") is too small. Calculated output W: ", out);
    Tensor idx = empty({out}, TensorOptions(kInt64).device(kCPU));  // built on the host, then moved
    int64_t* p = idx.data_ptr<int64_t>();
    for (int64_t o = 0; o < out; ++o) {
      int64_t j = o - l;
      p[o] = reflect ? (j < 0 ? -j : j >= size ? 2 * (size - 1) - j : j) : std::clamp<int64_t>(j, 0, size - 1);
    }
    gathers.push_back({d, idx.to(self.device()), {}, {}, {}});
  }
  EMBER_CHECK(self.dtype() != kBool, NotImplementedError, "\"", kernel_names[reflect ? 0 : 1][k - 1],
              "\" not implemented for 'Bool'");
  Tensor result = autograd::untracked([&] {
    Tensor r = gather_axes(self, gathers);
    // in the input's suggested memory format, as torch's kernels (a channels-last input pads channels-last)
    if ((r.dim() == 4 || r.dim() == 5) && is_channels_last_like(self.sizes(), self.strides())) {
      r = empty_strided(r.sizes(), channels_last_strides(r.sizes()), r.options()).copy_(r);
    }
    return r;
  });
  if (autograd::needs_grad({&self})) {
    static const char* names[2][3] = {{"ReflectionPad1DBackward0", "ReflectionPad2DBackward0", "ReflectionPad3DBackward0"},
                                      {"ReplicationPad1DBackward0", "ReplicationPad2DBackward0",
                                       "ReplicationPad3DBackward0"}};
    autograd::record_gathers(names[reflect ? 0 : 1][k - 1], result, self, gathers);
  }
  return result;
}

}  // namespace

Tensor pad(const Tensor& input, IntArrayRef p, std::string_view mode, std::optional<double> value) {
  // torch's CPU float32 list names reflection_pad1d/2d and replication_pad1d/2d/3d
  if (autocast::active() && (mode == "replicate" || (mode == "reflect" && p.size() <= 4))) [[unlikely]] {
    EMBER_AUTOCAST(fp32, kCPU, pad, input, p, mode, value);
  }
  std::optional<Mode> m;  // none: constant
  if (mode == "reflect") m = Mode::Reflect;
  else if (mode == "replicate") m = Mode::Replicate;
  else if (mode == "circular") m = Mode::Circular;
  else if (mode != "constant") throw NotImplementedError(str("Unrecognised padding mode ", mode));
  int64_t dim = input.dim();
  EMBER_CHECK(p.size() % 2 == 0, Error, "Padding length must be divisible by 2");
  EMBER_CHECK(int64_t(p.size()) <= dim * 2, Error, "Padding length should be less than or equal to two times the input "
              "dimension but got padding length ", p.size(), " and input of dimension ", dim);
  if (!m) return constant_pad_nd(input, p, value.value_or(0.0));
  EMBER_CHECK(!value || *value == 0, Error, "Padding mode \"", mode_name(*m), "\" doesn't take in value argument");
  int64_t k = int64_t(p.size()) / 2;
  EMBER_CHECK(k >= 1 && k <= 3 && (dim == k + 1 || dim == k + 2), NotImplementedError, "Padding size ", p.size(),
              " is not supported for ", dim, "D input tensor.\nSupported combinations for non-constant padding:\n"
              "  - 2D or 3D input: padding size = 2 (pads last dimension)\n"
              "  - 3D or 4D input: padding size = 4 (pads last 2 dimensions)\n"
              "  - 4D or 5D input: padding size = 6 (pads last 3 dimensions)");
  return m == Mode::Circular ? pad_circular(input, p) : pad_indexed(input, p, *m);
}

}  // namespace ember::nn::functional
