// unfold (im2col) and fold (col2im): unfold is a strided view of the zero-padded input copied out (one copy);
// fold adds each kernel offset's columns into a strided slice of a padded output. Each is the other's adjoint, so
// each is the other's gradient (Im2ColBackward0 / Col2ImBackward0).
#include <string>

#include "ember/creation.h"
#include "ember/nn/padding.h"
#include "ember/nn/vision.h"
#include "../autograd/formulas.h"

namespace ember::nn::functional {

namespace {

struct Geometry {
  int64_t kh, kw, dh, dw, ph, pw, sh, sw;
};

// Two values of an argument: (a, b) from one or two given.
std::pair<int64_t, int64_t> two(IntArrayRef v) { return {v[0], v.size() > 1 ? v[1] : v[0]}; }

std::string pair_str(int64_t a, int64_t b) { return str("(", a, ", ", b, ")"); }

Geometry geometry(IntArrayRef kernel, IntArrayRef dilation, IntArrayRef padding, IntArrayRef stride) {
  auto [kh, kw] = two(kernel);
  auto [dh, dw] = two(dilation);
  auto [ph, pw] = two(padding);
  auto [sh, sw] = two(stride);
  EMBER_CHECK(kh > 0 && kw > 0, Error, "kernel size should be greater than zero, but got kernel_height: ", kh,
              " kernel_width: ", kw);
  EMBER_CHECK(sh > 0 && sw > 0, Error, "stride should be greater than zero, but got dH: ", sh, " dW: ", sw);
  EMBER_CHECK(dh > 0 && dw > 0, Error, "dilation should be greater than zero, but got dilation_height: ", dh,
              " dilation_width: ", dw);
  EMBER_CHECK(ph >= 0 && pw >= 0, Error, "padding should be non-negative, but got pad_height: ", ph, " pad_width: ", pw);
  return {kh, kw, dh, dw, ph, pw, sh, sw};
}

// Block positions along one dim of `size`.
int64_t blocks(int64_t size, int64_t k, int64_t d, int64_t p, int64_t s) { return (size + 2 * p - (d * (k - 1) + 1)) / s + 1; }

std::string geometry_str(const Geometry& g) {
  return str("kernel_size=", pair_str(g.kh, g.kw), ", dilation=", pair_str(g.dh, g.dw), ", padding=",
             pair_str(g.ph, g.pw));
}

void check_fold_dtype(const Tensor& x, const char* kernel) {
  EMBER_CHECK(x.is_floating_point() || x.dtype() == kBool, NotImplementedError, "\"", kernel,
              "\" not implemented for '", legacy_name(x.dtype()), "'");
}

}  // namespace

Tensor unfold(const Tensor& input, IntArrayRef kernel_size, IntArrayRef dilation, IntArrayRef padding,
              IntArrayRef stride) {
  Geometry g = geometry(kernel_size, dilation, padding, stride);
  int64_t ndim = input.dim();
  bool valid = input.size(1) != 0 && input.size(2) != 0;
  EMBER_CHECK((ndim == 3 && input.size(0) != 0 && valid) || (ndim == 4 && valid && input.size(3) != 0), Error,
              "Expected 3D or 4D (batch mode) tensor with possibly 0 batch size and other non-zero dimensions for "
              "input, but got: ", input.sizes());
  int64_t h = input.size(-2), w = input.size(-1);
  int64_t oh = blocks(h, g.kh, g.dh, g.ph, g.sh), ow = blocks(w, g.kw, g.dw, g.pw, g.sw);
  EMBER_CHECK(oh >= 1 && ow >= 1, Error, "Given input with spatial size ", pair_str(h, w), ", ", geometry_str(g),
              ", calculated shape of the array of sliding blocks as ", pair_str(oh, ow),
              ", but its components must be at least one.");
  check_fold_dtype(input, "im2col_out_cpu");
  Tensor result = autograd::untracked([&] {
    Tensor x = ndim == 4 ? input : input.unsqueeze(0);
    Tensor p = constant_pad_nd(x, {g.pw, g.pw, g.ph, g.ph}, 0).contiguous();
    int64_t n = p.size(0), c = p.size(1), sH = p.stride(2);
    Tensor blocks_view = p.as_strided({n, c, g.kh, g.kw, oh, ow},
                                      {p.stride(0), p.stride(1), g.dh * sH, g.dw, g.sh * sH, g.sw}, p.storage_offset());
    // A fresh contiguous result, as torch's: a reshape could be a view of the input (a 1x1 kernel).
    Tensor cols = blocks_view.contiguous().view({n, c * g.kh * g.kw, oh * ow});
    if (cols.storage().is_alias_of(input.storage())) cols = cols.clone();
    return ndim == 4 ? cols : cols.squeeze(0);
  });
  if (autograd::needs_grad({&input})) {
    autograd::record_adjoint("Im2ColBackward0", result, input, [g, h, w](const Tensor& grad) {
      return fold(grad, {h, w}, {g.kh, g.kw}, {g.dh, g.dw}, {g.ph, g.pw}, {g.sh, g.sw});
    });
  }
  return result;
}

Tensor fold(const Tensor& input, IntArrayRef output_size, IntArrayRef kernel_size, IntArrayRef dilation,
            IntArrayRef padding, IntArrayRef stride) {
  auto [h, w] = two(output_size);
  EMBER_CHECK(h >= 1 && w >= 1, Error, "Expected output spatial size to be positive, but got: output_size=",
              pair_str(h, w));
  Geometry g = geometry(kernel_size, dilation, padding, stride);
  int64_t ndim = input.dim();
  bool batched = ndim == 3;
  EMBER_CHECK((ndim == 2 && input.size(0) != 0 && input.size(1) != 0) ||
              (ndim == 3 && input.size(1) != 0 && input.size(2) != 0), Error, "Expected 2D or 3D (batch mode) tensor "
              "with possibly 0 batch size and non-zero dimensions for input, but got: ", input.sizes());
  int64_t cols = input.size(batched ? 1 : 0), len = input.size(batched ? 2 : 1);
  EMBER_CHECK(cols % (g.kh * g.kw) == 0, Error, "Expected size of input's dimension ", batched ? 1 : 0, " to be divisible "
              "by the product of kernel_size, but got input.size(", batched ? 1 : 0, ")=", cols, " and kernel_size=",
              pair_str(g.kh, g.kw), ".");
  int64_t oh = blocks(h, g.kh, g.dh, g.ph, g.sh), ow = blocks(w, g.kw, g.dw, g.pw, g.sw);
  EMBER_CHECK(oh * ow == len, Error, "Given output_size=", pair_str(h, w), ", ", geometry_str(g), ", stride=",
              pair_str(g.sh, g.sw), ", expected size of input's dimension ", batched ? 2 : 1, " to match the "
              "calculated number of sliding blocks ", oh, " * ", ow, " = ", oh * ow, ", but got input.size(",
              batched ? 2 : 1, ")=", len, ".");
  EMBER_CHECK(oh >= 1 && ow >= 1, Error, "Given output_size=", pair_str(h, w), ", ", geometry_str(g), ", stride=",
              pair_str(g.sh, g.sw), ", calculated shape of the array of sliding blocks as ", pair_str(oh, ow),
              ", which is too small (non-positive)");
  check_fold_dtype(input, "col2im_out_cpu");
  Tensor result = autograd::untracked([&] {
    Tensor x = batched ? input : input.unsqueeze(0);
    int64_t n = x.size(0), c = cols / (g.kh * g.kw);
    Tensor blocks_of = x.reshape({n, c, g.kh, g.kw, oh, ow});
    Tensor out = zeros({n, c, h + 2 * g.ph, w + 2 * g.pw}, x.options());
    for (int64_t i = 0; i < g.kh; ++i) {
      for (int64_t j = 0; j < g.kw; ++j) {
        Tensor region = out.slice(2, i * g.dh, i * g.dh + g.sh * (oh - 1) + 1, g.sh)
                            .slice(3, j * g.dw, j * g.dw + g.sw * (ow - 1) + 1, g.sw);
        region.add_(blocks_of.select(2, i).select(2, j));
      }
    }
    Tensor r = out.narrow(2, g.ph, h).narrow(3, g.pw, w).contiguous();
    return batched ? r : r.squeeze(0);
  });
  if (autograd::needs_grad({&input})) {
    autograd::record_adjoint("Col2ImBackward0", result, input, [g](const Tensor& grad) {
      return unfold(grad, {g.kh, g.kw}, {g.dh, g.dw}, {g.ph, g.pw}, {g.sh, g.sw});
    });
  }
  return result;
}

}  // namespace ember::nn::functional
