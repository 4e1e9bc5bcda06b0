// pixel_shuffle / pixel_unshuffle: a view splitting the factor out, a permutation, a contiguous copy (channels-last
// inputs give channels-last results, as torch); each other's gradient.
#include "ember/nn/vision.h"

#include "ember/creation.h"
#include "ember/layout.h"
#include "../autograd/formulas.h"

namespace ember::nn::functional {

namespace {

// The copy of `moved` (input's leading dims, then the rearranged ones) into the result's layout.
Tensor rearranged(const Tensor& input, const Tensor& moved, IntArrayRef out_shape) {
  // as torch's suggested format: also for a contiguous input whose unit dims' strides read as channels-last
  bool channels_last = input.dim() == 4 && is_channels_last_like(input.sizes(), input.strides());
  Tensor out = channels_last ? empty_strided(out_shape, channels_last_strides(out_shape), input.options())
                             : empty(out_shape, input.options());
  out.view(moved.sizes()).copy_(moved);
  return out;
}

}  // namespace

Tensor pixel_shuffle(const Tensor& self, int64_t r) {
  EMBER_CHECK(self.dim() >= 3, Error, "pixel_shuffle expects input to have at least 3 dimensions, but got input with ",
              self.dim(), " dimension(s)");
  EMBER_CHECK(r > 0, Error, "pixel_shuffle expects a positive upscale_factor, but got ", r);
  int64_t c = self.size(-3), h = self.size(-2), w = self.size(-1);
  EMBER_CHECK(c % (r * r) == 0, Error, "pixel_shuffle expects its input's 'channel' dimension to be divisible by the "
              "square of upscale_factor, but input.size(-3)=", c, " is not divisible by ", r * r);
  DimVector lead(IntArrayRef(self.sizes().data(), self.sizes().size() - 3)), split(lead), out(lead), perm;
  for (int64_t v : {c / (r * r), r, r, h, w}) split.push_back(v);
  for (int64_t v : {c / (r * r), h * r, w * r}) out.push_back(v);
  int64_t n = int64_t(lead.size());
  for (int64_t d = 0; d < n; ++d) perm.push_back(d);
  for (int64_t d : {0, 3, 1, 4, 2}) perm.push_back(n + d);
  Tensor result = autograd::untracked([&] { return rearranged(self, self.reshape(split).permute(perm), out); });
  if (autograd::needs_grad({&self})) autograd::record_pixel_shuffle(result, self, r, true);
  return result;
}

Tensor pixel_unshuffle(const Tensor& self, int64_t r) {
  EMBER_CHECK(self.dim() >= 3, Error, "pixel_unshuffle expects input to have at least 3 dimensions, but got input "
              "with ", self.dim(), " dimension(s)");
  EMBER_CHECK(r > 0, Error, "pixel_unshuffle expects a positive downscale_factor, but got ", r);
  int64_t c = self.size(-3), h = self.size(-2), w = self.size(-1);
  EMBER_CHECK(h % r == 0, Error, "pixel_unshuffle expects height to be divisible by downscale_factor, but "
              "input.size(-2)=", h, " is not divisible by ", r);
  EMBER_CHECK(w % r == 0, Error, "pixel_unshuffle expects width to be divisible by downscale_factor, but "
              "input.size(-1)=", w, " is not divisible by ", r);
  DimVector lead(IntArrayRef(self.sizes().data(), self.sizes().size() - 3)), split(lead), out(lead), perm;
  for (int64_t v : {c, h / r, r, w / r, r}) split.push_back(v);
  for (int64_t v : {c * r * r, h / r, w / r}) out.push_back(v);
  int64_t n = int64_t(lead.size());
  for (int64_t d = 0; d < n; ++d) perm.push_back(d);
  for (int64_t d : {0, 2, 4, 1, 3}) perm.push_back(n + d);
  Tensor result = autograd::untracked([&] { return rearranged(self, self.reshape(split).permute(perm), out); });
  if (autograd::needs_grad({&self})) autograd::record_pixel_shuffle(result, self, r, false);
  return result;
}

}  // namespace ember::nn::functional
