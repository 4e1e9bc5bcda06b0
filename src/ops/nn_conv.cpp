// Convolutions (ember/nn/conv.h): torch's argument expansion, shape checks and messages, unbatched inputs, "same"
// padding (symmetric natively, an odd extra element as a zero-padded copy, as torch), float16/bfloat16 through float32, and
// ConvolutionBackward0. The kernels (kernels::conv_*) see contiguous tensors and a ConvGeometry; a transposed
// convolution is the backward-data kernel run forward.
#include "../core/autocast_policy.h"
#include "ember/nn/conv.h"
#include "ember/nn/padding.h"

#include "../autograd/formulas.h"
#include "../dispatch/kernels.h"
#include "nn_conv_layout.h"
#include "ember/creation.h"
#include "ember/layout.h"
#include "ember/ops.h"
#include "ember/reduce.h"

namespace ember::nn::functional {

namespace {

using autograd::TensorList;

// A parameter list of one value per spatial dim (torch's expand_param_if_needed).
DimVector expand_param(IntArrayRef v, const char* name, int64_t dims) {
  if (v.size() == 1) return DimVector(size_t(dims), v[0]);
  EMBER_CHECK(int64_t(v.size()) == dims, Error, "expected ", name,
              " to be a single integer value or a list of ", dims,
              " values to match the convolution dimensions, but got ", name, "=", int_list(v));
  return DimVector(v);
}

bool any_below(IntArrayRef v, int64_t bound) {
  for (int64_t x : v) if (x < bound) return true;
  return false;
}

// The dtype the kernels compute in: on the CPU, float16/bfloat16 go through float32; cuDNN takes them as they are.
ScalarType conv_compute_dtype(const Tensor& t) {
  return (t.dtype() == kFloat16 || t.dtype() == kBFloat16) && !t.device().is_cuda() ? kFloat32 : t.dtype();
}
Tensor for_kernel(const Tensor& t) { return t.to(conv_compute_dtype(t)).contiguous(); }

// Strides of a channels-last result (a 3-d one as (N, C, 1, L) in channels-last, the unit dim dropped).
DimVector channels_last_result_strides(IntArrayRef sizes) {
  if (sizes.size() != 3) return channels_last_strides(sizes);
  DimVector s = channels_last_strides({sizes[0], sizes[1], 1, sizes[2]});
  return {s[0], s[1], s[3]};
}

Tensor bias_shaped(const Tensor& bias, int64_t dims) {
  DimVector shape(size_t(dims), 1);
  shape[1] = bias.size(0);
  return bias.view(shape);
}

// The dtypes torch's kernels take. CPU: floats and int64 everywhere; other integers only in plain (undilated,
// untransposed) convolutions; never bool. CUDA: float16/bfloat16/float32/float64, else torch's fallback kernels'
// errors (3-d runs as dilated there). They raise only when they run.
void check_conv_dtype(const Tensor& input, const Conv& c, int64_t spatial) {
  ScalarType t = input.dtype();
  bool cuda = input.device().is_cuda(), dilated = false;
  for (int64_t d : c.g.dilation) dilated = dilated || d != 1;
  bool ok = cuda ? t == kFloat16 || t == kBFloat16 || t == kFloat32 || t == kFloat64
                 : t != kBool && !is_float8(t) &&
                       (is_floating_point(t) || t == kInt64 || (!c.transposed && !dilated));
  if (ok) return;
  const char* dims = spatial == 3 ? "3d" : "2d";
  std::string kernel = "slow_conv_dilated<>";
  if (c.transposed) kernel = str("slow_conv_transpose", dims, cuda ? "_out_cuda" : "_out_cpu");
  else if (!dilated && !(cuda && spatial == 3)) kernel = str("slow_conv", dims, cuda ? "_cuda" : "_cpu");
  throw NotImplementedError(str("\"", kernel, "\" not implemented for '", legacy_name(t), "'"));
}

Tensor run_forward(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias, const Conv& c) {
  DimVector sizes{input.size(0), c.transposed ? weight.size(1) * c.g.groups : weight.size(0)};
  for (int64_t o : c.out_spatial) sizes.push_back(o);
  ScalarType ct = conv_compute_dtype(input);
  Tensor out = empty(sizes, input.options().dtype(ct));
  Tensor x = for_kernel(input), w = for_kernel(weight), b = bias ? for_kernel(*bias) : Tensor();
  if (out.numel() == 0 || x.numel() == 0 || w.numel() == 0) {
    out.zero_();
    if (b.defined() && out.numel()) out.add_(bias_shaped(b, out.dim()));
  } else if (c.transposed) {
    check_conv_dtype(input, c, weight.dim() - 2);
    kernels::conv_backward_data[input.device()](x, w, out, c.g);
    if (b.defined()) out.add_(bias_shaped(b, out.dim()));
  } else {
    check_conv_dtype(input, c, weight.dim() - 2);
    kernels::conv_forward[input.device()](x, w, b, out, c.g);
  }
  out = out.to(input.dtype());
  if (!channels_last_output(input, weight, c)) return out;
  return empty_strided(out.sizes(), channels_last_result_strides(out.sizes()), out.options()).copy_(out);
}

// The gradients (input, weight, bias) for the entries of `mask`.
TensorList run_backward(const Tensor& grad, const Tensor& input, const Tensor& weight, const Conv& c,
                        std::array<bool, 3> mask) {
  TensorList r(3);
  Tensor g = for_kernel(grad), x = for_kernel(input), w = for_kernel(weight);
  ScalarType ct = g.dtype();
  bool empty_case = g.numel() == 0 || x.numel() == 0 || w.numel() == 0;
  auto device = input.device();
  if (mask[0]) r[0] = empty(input.sizes(), input.options().dtype(ct));
  if (mask[1]) r[1] = empty(weight.sizes(), weight.options().dtype(ct));
  Tensor gb = mask[2] ? empty({c.transposed ? weight.size(1) * c.g.groups : weight.size(0)}, g.options()) : Tensor();
  if (empty_case) {
    for (size_t i = 0; i < 2; ++i) {
      if (mask[i]) r[i].zero_();
    }
  } else if (c.transposed) {
    if (mask[0]) kernels::conv_forward[device](g, w, Tensor(), r[0], c.g);
    if (mask[1]) kernels::conv_backward_weights[device](x, g, r[1], Tensor(), c.g);
  } else if (mask[0] || mask[1]) {
    kernels::conv_backward[device](g, x, w, r[0], r[1], mask[1] ? gb : Tensor(), c.g);
  }
  if (mask[2] && (empty_case || c.transposed || !mask[1])) {
    DimVector dims{0};
    for (int64_t d = 2; d < g.dim(); ++d) dims.push_back(d);
    gb = sum(g, dims);
  }
  if (mask[2]) r[2] = gb;
  for (size_t i = 0; i < 3; ++i) {
    if (r[i].defined()) r[i] = r[i].to(i == 0 ? input.dtype() : weight.dtype());
  }
  return r;
}

// The convolution of a batched input with ConvolutionBackward0 recorded.
Tensor convolve(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias, const Conv& c) {
  Tensor out = autograd::untracked([&] { return run_forward(input, weight, bias, c); });
  Tensor b = bias ? *bias : Tensor();
  if (autograd::needs_grad({&input, &weight, &b})) {
    autograd::record("ConvolutionBackward0", out, {&input, &weight, &b}, {&input, &weight},
                     [c](const autograd::BackwardContext& ctx) {
                       const Tensor &x = ctx.saved[0], &w = ctx.saved[1];
                       std::array<bool, 3> mask{ctx.needs(0), ctx.needs(1), ctx.needs(2)};
                       return run_backward(ctx.grads[0], x, w, c, mask);
                     });
  }
  return out;
}

// torch's check that the weight and bias live on the input's device, naming tensor types (torch.cuda.FloatTensor).
void check_devices(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias) {
  auto type = [](const Tensor& t) {
    return str("torch.", t.device().is_cuda() ? "cuda." : "", legacy_name(t.dtype()), "Tensor");
  };
  // the CPU's float32 convolutions (oneDNN's) add a clause
  const char* mkldnn = input.device().is_cpu() && input.dtype() == kFloat32
                           ? " or input should be a MKLDNN tensor and weight is a dense tensor"
                           : "";
  EMBER_CHECK(input.device() == weight.device(), Error, "Input type (", type(input), ") and weight type (",
              type(weight), ") should be the same", mkldnn);
  EMBER_CHECK(!bias || bias->device() == input.device(), Error, "Input type (", type(input), ") and bias type (",
              type(*bias), ") should be the same");
}

// torch's checks of a convolution's arguments (check_shape_forward and the dtype checks), then the output sizes.
Conv plan(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias, IntArrayRef stride,
          IntArrayRef padding, IntArrayRef dilation, bool transposed, IntArrayRef output_padding, int64_t groups) {
  EMBER_CHECK(weight.dim() >= 3, Error, "weight should have at least three dimensions");
  int64_t k = weight.dim() - 2;
  Conv c;
  c.transposed = transposed;
  c.g.stride = expand_param(stride, "stride", k);
  c.g.padding = expand_param(padding, "padding", k);
  c.output_padding = expand_param(output_padding, "output_padding", k);
  const DimVector& out_pad = c.output_padding;
  c.g.dilation = expand_param(dilation, "dilation", k);
  c.g.groups = groups;
  EMBER_CHECK(groups > 0, Error, "non-positive groups is not supported");
  check_devices(input, weight, bias);
  EMBER_CHECK(input.dtype() == weight.dtype(), Error,
              input.dtype() == kFloat32
                  ? str("Input type (torch.", legacy_name(input.dtype()), "Tensor) and weight type (torch.",
                        legacy_name(weight.dtype()),
                        "Tensor) should be the same or input should be a MKLDNN tensor and weight is a dense tensor")
                  : str("expected scalar type ", legacy_name(input.dtype()), " but found ",
                        legacy_name(weight.dtype())));
  EMBER_CHECK(!bias || bias->dtype() == input.dtype(), Error, "Input type (", dtype_info(input.dtype()).cpp_name,
              ") and bias type (", dtype_info(bias->dtype()).cpp_name, ") should be the same");
  EMBER_CHECK(!any_below(c.g.padding, 0), Error, "negative padding is not supported");
  EMBER_CHECK(!any_below(out_pad, 0), Error, "negative output_padding is not supported");
  EMBER_CHECK(!any_below(c.g.stride, 1), Error, "non-positive stride is not supported");
  EMBER_CHECK(!any_below(c.g.dilation, 1), Error, "non-positive dilation is not supported");
  IntArrayRef ws = weight.sizes();
  EMBER_CHECK(weight.dim() == input.dim(), Error, "Expected ", weight.dim(), "-dimensional input for ", weight.dim(),
              "-dimensional weight ", int_list(ws), ", but got ", input.dim(), "-dimensional input of size ",
              int_list(input.sizes()), " instead");
  EMBER_CHECK(ws[0] >= groups, Error, "Given groups=", groups, ", expected weight to be at least ", groups,
              " at dimension 0, but got weight of size ", int_list(ws), " instead");
  EMBER_CHECK(ws[0] % groups == 0, Error, "Given groups=", groups, ", expected weight to be divisible by ", groups,
              " at dimension 0, but got weight of size [", int_list(ws), "] instead");
  if (!transposed) {
    EMBER_CHECK(input.size(1) == ws[1] * groups, Error, "Given groups=", groups, ", weight of size ", int_list(ws),
                ", expected input", int_list(input.sizes()), " to have ", ws[1] * groups, " channels, but got ",
                input.size(1), " channels instead");
    EMBER_CHECK(!bias || (bias->dim() == 1 && bias->size(0) == ws[0]), Error, "Given weight of size ", int_list(ws),
                ", expected bias to be 1-dimensional with ", ws[0], " elements, but got bias of size ",
                int_list(bias->sizes()), " instead");
    std::string padded, kernel;
    bool fits = true;
    for (int64_t i = 0; i < k; ++i) {
      int64_t in = input.size(i + 2) + 2 * c.g.padding[size_t(i)];
      int64_t ke = c.g.dilation[size_t(i)] * (ws[size_t(i + 2)] - 1) + 1;
      padded += str(i ? " x " : "", in);
      kernel += str(i ? " x " : "", ke);
      fits = fits && in >= ke;
      c.out_spatial.push_back((in - ke) / c.g.stride[size_t(i)] + 1);
    }
    EMBER_CHECK(fits, Error, "Calculated padded input size per channel: (", padded, "). Kernel size: (", kernel,
                "). Kernel size can't be greater than actual input size");
  } else {
    EMBER_CHECK(input.size(1) == ws[0], Error, "Given transposed=1, weight of size ", int_list(ws), ", expected input",
                int_list(input.sizes()), " to have ", ws[0], " channels, but got ", input.size(1), " channels instead");
    EMBER_CHECK(!bias || (bias->dim() == 1 && bias->size(0) == ws[1] * groups), Error,
                "Given transposed=1, weight of size ", int_list(ws), ", expected bias to be 1-dimensional with ",
                ws[1] * groups, " elements, but got bias of size ", int_list(bias->sizes()), " instead");
    bool small = true;
    for (int64_t i = 0; i < k; ++i) {
      size_t s = size_t(i);
      small = small && (out_pad[s] < c.g.stride[s] || out_pad[s] < c.g.dilation[s]);
    }
    if (!small) {
      static const char* names[] = {"depth", "height", "width"};
      std::string pads, strides, dils;
      for (int64_t i = 0; i < k; ++i) {
        const char* n = names[3 - k + i];
        pads += str("output_padding_", n, ": ", out_pad[size_t(i)], " ");
        strides += str("stride_", n, ": ", c.g.stride[size_t(i)], " ");
        dils += str(i ? " " : "", "dilation_", n, ": ", c.g.dilation[size_t(i)]);
      }
      throw Error(str("output padding must be smaller than either stride or dilation, but got ", pads, strides, dils));
    }
    // mkldnn and an empty input give an empty result for an output size of 0; the slow kernels (2-d views of 1-d
    // ones) refuse it
    std::string in_sizes = k == 1 ? "1 x " : "", out_sizes = in_sizes;
    int64_t smallest = 1;
    for (int64_t i = 0; i < k; ++i) {
      size_t s = size_t(i);
      int64_t o = (input.size(i + 2) - 1) * c.g.stride[s] - 2 * c.g.padding[s] + c.g.dilation[s] * (ws[s + 2] - 1) +
                  out_pad[s] + 1;
      in_sizes += str(i ? " x " : "", input.size(i + 2));
      out_sizes += str(i ? " x " : "", o);
      smallest = std::min(smallest, o);
      c.out_spatial.push_back(o);
    }
    bool empty_input = input.size(0) == 0 || input.size(1) == 0;
    bool mkldnn = smallest < 1 && !empty_input && takes_mkldnn(input, weight, c);
    EMBER_CHECK(smallest > 0 || ((mkldnn || empty_input) && smallest == 0), Error,
                mkldnn ? std::string("could not construct a memory descriptor using a format tag")
                       : str("Given input size per channel: (", in_sizes, "). Calculated output size per channel: (",
                             out_sizes, "). Output size is too small"));
  }
  return c;
}

// torch's string-padding and transposed paths add the bias in place (cast to the input's dtype), unless they run
// through mkldnn; mkldnn and the other paths require the input's dtype.
std::optional<Tensor> bias_as_torch(const std::optional<Tensor>& bias, const Tensor& input, const Tensor& weight,
                                    int64_t groups, int64_t spatial) {
  if (!bias || bias->dtype() == input.dtype()) return bias;
  int64_t batch = input.dim() == spatial + 2 ? input.size(0) : 1;
  bool mkldnn = conv_uses_mkldnn(input.dtype(), batch, input.numel(), weight, groups);
  return mkldnn ? bias : std::optional<Tensor>(bias->to(input.dtype()));
}

// conv1d/2d/3d and the transposed forms: an unbatched input runs as a batch of one.
template <typename Body>
Tensor batchify(const Tensor& input, int64_t spatial, const char* name, Body body) {
  EMBER_CHECK(input.dim() == spatial + 1 || input.dim() == spatial + 2, Error, "Expected ", spatial + 1,
              "D (unbatched) or ", spatial + 2, "D (batched) input to ", name, ", but got input of size: ",
              int_list(input.sizes()));
  bool batched = input.dim() == spatial + 2;
  Tensor out = body(batched ? input : input.unsqueeze(0));
  return batched ? out : out.squeeze(0);
}

Tensor conv_nd(int64_t spatial, const char* name, const Tensor& input, const Tensor& weight,
               const std::optional<Tensor>& bias, IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation,
               int64_t groups) {
  EMBER_AUTOCAST(lower, kBoth, conv_nd, spatial, name, input, weight, bias, stride, padding, dilation, groups);
  return batchify(input, spatial, name, [&](const Tensor& x) {
    return convolve(x, weight, bias, plan(x, weight, bias, stride, padding, dilation, false, {0}, groups));
  });
}

Tensor conv_nd(int64_t spatial, const char* name, const Tensor& input, const Tensor& weight,
               const std::optional<Tensor>& bias, IntArrayRef stride, std::string_view padding, IntArrayRef dilation,
               int64_t groups) {
  EMBER_AUTOCAST(lower, kBoth, conv_nd, spatial, name, input, weight, bias, stride, padding, dilation, groups);
  EMBER_CHECK(padding == "same" || padding == "valid", Error, "Invalid padding string: '", padding, "'");
  std::optional<Tensor> b = bias_as_torch(bias, input, weight, groups, spatial);
  if (padding == "valid") return conv_nd(spatial, name, input, weight, b, stride, IntArrayRef{0}, dilation, groups);
  return batchify(input, spatial, name, [&](const Tensor& x) {
    int64_t k = std::max<int64_t>(weight.dim() - 2, 0);
    DimVector s = expand_param(stride, "stride", k), d = expand_param(dilation, "dilation", k);
    for (int64_t v : s) EMBER_CHECK(v == 1, Error, "padding='same' is not supported for strided convolutions");
    // Plan as "valid" to check, then pad each dim by dilation * (K - 1), the extra element (if any) after.
    DimVector pad_l, extra(size_t(2 * k), 0);  // extra: F.pad's (left, right) pairs, last dim first
    bool odd = false;
    for (int64_t i = 0; i < k; ++i) {
      int64_t total = d[size_t(i)] * (weight.size(i + 2) - 1);
      pad_l.push_back(total / 2);
      extra[size_t(2 * (k - 1 - i) + 1)] = total % 2;
      odd = odd || total % 2;
    }
    // torch pads the extra element as a zero-padded copy (real zeros: 0 * inf is nan there), the rest natively
    Tensor xp = x;
    if (odd) {
      warn("Using padding='same' with even kernel lengths and odd dilation may require a zero-padded copy of the "
           "input be created");
      xp = constant_pad_nd(x, extra);
    }
    Conv c = plan(xp, weight, b, s, pad_l, d, false, {0}, groups);
    c.out_spatial = DimVector(IntArrayRef(x.sizes().data() + 2, size_t(x.dim() - 2)));
    return convolve(xp, weight, b, c);
  });
}

Tensor conv_transpose_nd(int64_t spatial, const char* name, const Tensor& input, const Tensor& weight,
                         const std::optional<Tensor>& bias, IntArrayRef stride, IntArrayRef padding,
                         IntArrayRef output_padding, int64_t groups, IntArrayRef dilation) {
  EMBER_AUTOCAST(lower, kBoth, conv_transpose_nd, spatial, name, input, weight, bias, stride, padding, output_padding,
                 groups, dilation);
  std::optional<Tensor> b = bias_as_torch(bias, input, weight, groups, spatial);
  return batchify(input, spatial, name, [&](const Tensor& x) {
    return convolve(x, weight, b, plan(x, weight, b, stride, padding, dilation, true, output_padding, groups));
  });
}

}  // namespace

Tensor conv1d(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias, IntArrayRef stride,
              IntArrayRef padding, IntArrayRef dilation, int64_t groups) {
  return conv_nd(1, "conv1d", input, weight, bias, stride, padding, dilation, groups);
}
Tensor conv2d(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias, IntArrayRef stride,
              IntArrayRef padding, IntArrayRef dilation, int64_t groups) {
  return conv_nd(2, "conv2d", input, weight, bias, stride, padding, dilation, groups);
}
Tensor conv3d(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias, IntArrayRef stride,
              IntArrayRef padding, IntArrayRef dilation, int64_t groups) {
  return conv_nd(3, "conv3d", input, weight, bias, stride, padding, dilation, groups);
}
Tensor conv1d(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias, IntArrayRef stride,
              std::string_view padding, IntArrayRef dilation, int64_t groups) {
  return conv_nd(1, "conv1d", input, weight, bias, stride, padding, dilation, groups);
}
Tensor conv2d(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias, IntArrayRef stride,
              std::string_view padding, IntArrayRef dilation, int64_t groups) {
  return conv_nd(2, "conv2d", input, weight, bias, stride, padding, dilation, groups);
}
Tensor conv3d(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias, IntArrayRef stride,
              std::string_view padding, IntArrayRef dilation, int64_t groups) {
  return conv_nd(3, "conv3d", input, weight, bias, stride, padding, dilation, groups);
}

Tensor conv_transpose1d(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias,
                        IntArrayRef stride, IntArrayRef padding, IntArrayRef output_padding, int64_t groups,
                        IntArrayRef dilation) {
  return conv_transpose_nd(1, "conv_transpose1d", input, weight, bias, stride, padding, output_padding, groups,
                           dilation);
}
Tensor conv_transpose2d(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias,
                        IntArrayRef stride, IntArrayRef padding, IntArrayRef output_padding, int64_t groups,
                        IntArrayRef dilation) {
  return conv_transpose_nd(2, "conv_transpose2d", input, weight, bias, stride, padding, output_padding, groups,
                           dilation);
}
Tensor conv_transpose3d(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias,
                        IntArrayRef stride, IntArrayRef padding, IntArrayRef output_padding, int64_t groups,
                        IntArrayRef dilation) {
  return conv_transpose_nd(3, "conv_transpose3d", input, weight, bias, stride, padding, output_padding, groups,
                           dilation);
}

Tensor convolution(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias, IntArrayRef stride,
                   IntArrayRef padding, IntArrayRef dilation, bool transposed, IntArrayRef output_padding,
                   int64_t groups) {
  EMBER_AUTOCAST(lower, kCUDA, convolution, input, weight, bias, stride, padding, dilation, transposed, output_padding,
                 groups);
  return convolve(input, weight, bias,
                  plan(input, weight, bias, stride, padding, dilation, transposed, output_padding, groups));
}

std::tuple<Tensor, Tensor, Tensor> convolution_backward(const Tensor& grad_output, const Tensor& input,
                                                        const Tensor& weight, IntArrayRef stride, IntArrayRef padding,
                                                        IntArrayRef dilation, bool transposed,
                                                        IntArrayRef output_padding, int64_t groups,
                                                        std::array<bool, 3> output_mask) {
  Conv c = plan(input, weight, std::nullopt, stride, padding, dilation, transposed, output_padding, groups);
  EMBER_CHECK(grad_output.dim() == input.dim() && grad_output.size(0) == input.size(0), Error,
              "convolution_backward: grad_output of size ", int_list(grad_output.sizes()),
              " does not match the convolution's output");
  TensorList r = autograd::untracked([&] { return run_backward(grad_output, input, weight, c, output_mask); });
  return {r[0], r[1], r[2]};
}

bool conv_uses_mkldnn(ScalarType dtype, int64_t batch, int64_t numel, const Tensor& weight, int64_t groups) {
  bool big_kernel = weight.dim() > 3;
  for (int64_t d = 2; d < weight.dim(); ++d) big_kernel = big_kernel && weight.size(d) > 3;
  return dtype == kFloat32 && (groups > 1 || batch > 1 || numel > 20480 || big_kernel);
}

}  // namespace ember::nn::functional
