// Convolution and pooling modules (torch.nn.Conv1d..3d, ConvTranspose1d..3d, MaxPool1d/2d, AvgPool1d/2d,
// AdaptiveAvgPool1d/2d, AdaptiveMaxPool1d/2d, LPPool1d/2d) over the functional forms of conv.h and pooling.h.
#pragma once
#include <optional>
#include <string>
#include <utility>

#include "ember/nn/linear.h"
#include "ember/nn/repr.h"

namespace ember::nn {

// A conv's padding: numbers, or "same" / "valid".
struct ConvPadding : SizeArg {
  using SizeArg::SizeArg;
  ConvPadding(const SizeArg& numbers) : SizeArg(numbers) {}  // NOLINT
  template <size_t N>
  ConvPadding(const char (&text)[N]) : SizeArg(0), text(text) {}  // NOLINT: "same" (an array, so 0 stays a number)
  ConvPadding(std::string text) : SizeArg(0), text(std::move(text)) {}  // NOLINT
  std::string text;  // empty for numbers
};

// The shared body of Conv*d and ConvTranspose*d (torch's _ConvNd): weight (out, in / groups, *k), or
// (in, out / groups, *k) when transposed, and bias; kaiming_uniform_(a=sqrt(5)) init as torch's.
class ConvNd : public Module {
 public:
  ConvNd(std::string name, int64_t dims, bool transposed, int64_t in_channels, int64_t out_channels,
         const SizeArg& kernel_size, const SizeArg& stride, const ConvPadding& padding, const SizeArg& dilation,
         const SizeArg& output_padding, int64_t groups, bool bias, std::string padding_mode,
         const LayerOptions& options);
  Tensor forward(const Tensor& input) override;
  // Transposed only: output_size (spatial sizes, or with the batch and channel dims) picks output_padding.
  Tensor forward(const Tensor& input, IntArrayRef output_size);
  std::string extra_repr() const override;
  void reset_parameters();
  int64_t dims, in_channels, out_channels, groups;
  bool transposed;
  DimVector kernel_size, stride, padding, dilation, output_padding;
  std::string padding_string, padding_mode;  // padding_string: "same" / "valid" or empty
  Tensor& weight;
  Tensor& bias;

 private:
  Tensor conv(const Tensor& input, IntArrayRef padding, IntArrayRef output_padding) const;
  DimVector padding_for(const Tensor& input, IntArrayRef output_size) const;  // transposed: output_padding
  DimVector reversed_padding_twice() const;  // F.pad's argument for a non-zeros padding_mode
};

template <int D>
class Conv : public ConvNd {
 public:
  Conv(int64_t in_channels, int64_t out_channels, const SizeArg& kernel_size, const SizeArg& stride = 1,
       const ConvPadding& padding = 0, const SizeArg& dilation = 1, int64_t groups = 1, bool bias = true,
       std::string padding_mode = "zeros", const LayerOptions& options = {})
      : ConvNd("Conv" + std::to_string(D) + "d", D, false, in_channels, out_channels, kernel_size, stride, padding,
               dilation, 0, groups, bias, std::move(padding_mode), options) {}
};
using Conv1d = Conv<1>;
using Conv2d = Conv<2>;
using Conv3d = Conv<3>;

template <int D>
class ConvTranspose : public ConvNd {
 public:
  ConvTranspose(int64_t in_channels, int64_t out_channels, const SizeArg& kernel_size, const SizeArg& stride = 1,
                const SizeArg& padding = 0, const SizeArg& output_padding = 0, int64_t groups = 1, bool bias = true,
                const SizeArg& dilation = 1, std::string padding_mode = "zeros", const LayerOptions& options = {})
      : ConvNd("ConvTranspose" + std::to_string(D) + "d", D, true, in_channels, out_channels, kernel_size, stride,
               ConvPadding(padding), dilation, output_padding, groups, bias,
               std::move(padding_mode), options) {}
};
using ConvTranspose1d = ConvTranspose<1>;
using ConvTranspose2d = ConvTranspose<2>;
using ConvTranspose3d = ConvTranspose<3>;

// MaxPool1d/2d: stride defaults to the kernel size; forward_with_indices returns (values, indices).
class MaxPoolNd : public Module {
 public:
  MaxPoolNd(int64_t dims, const SizeArg& kernel_size, const std::optional<SizeArg>& stride, const SizeArg& padding,
            const SizeArg& dilation, bool return_indices, bool ceil_mode);
  Tensor forward(const Tensor& input) override;
  std::pair<Tensor, Tensor> forward_with_indices(const Tensor& input);
  std::string extra_repr() const override;
  int64_t dims;
  SizeArg kernel_size, stride, padding, dilation;
  bool return_indices, ceil_mode;
};

template <int D>
class MaxPool : public MaxPoolNd {
 public:
  explicit MaxPool(const SizeArg& kernel_size, const std::optional<SizeArg>& stride = std::nullopt,
                   const SizeArg& padding = 0, const SizeArg& dilation = 1, bool return_indices = false,
                   bool ceil_mode = false)
      : MaxPoolNd(D, kernel_size, stride, padding, dilation, return_indices, ceil_mode) {}
};
using MaxPool1d = MaxPool<1>;
using MaxPool2d = MaxPool<2>;

// AvgPool1d shows its sizes as tuples (torch's _single); AvgPool2d as given, with divisor_override.
class AvgPoolNd : public Module {
 public:
  AvgPoolNd(int64_t dims, const SizeArg& kernel_size, const std::optional<SizeArg>& stride, const SizeArg& padding,
            bool ceil_mode, bool count_include_pad, std::optional<int64_t> divisor_override);
  Tensor forward(const Tensor& input) override;
  std::string extra_repr() const override;
  int64_t dims;
  SizeArg kernel_size, stride, padding;
  bool ceil_mode, count_include_pad;
  std::optional<int64_t> divisor_override;
};

class AvgPool1d : public AvgPoolNd {
 public:
  explicit AvgPool1d(const SizeArg& kernel_size, const std::optional<SizeArg>& stride = std::nullopt,
                     const SizeArg& padding = 0, bool ceil_mode = false, bool count_include_pad = true)
      : AvgPoolNd(1, kernel_size, stride, padding, ceil_mode, count_include_pad, std::nullopt) {}
};
class AvgPool2d : public AvgPoolNd {
 public:
  explicit AvgPool2d(const SizeArg& kernel_size, const std::optional<SizeArg>& stride = std::nullopt,
                     const SizeArg& padding = 0, bool ceil_mode = false, bool count_include_pad = true,
                     std::optional<int64_t> divisor_override = std::nullopt)
      : AvgPoolNd(2, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override) {}
};

// Adaptive pools; an output_size entry of -1 keeps the input's size (Python's None).
class AdaptivePoolNd : public Module {
 public:
  AdaptivePoolNd(std::string name, int64_t dims, bool max, const SizeArg& output_size, bool return_indices);
  Tensor forward(const Tensor& input) override;
  std::pair<Tensor, Tensor> forward_with_indices(const Tensor& input);  // max only
  std::string extra_repr() const override { return "output_size=" + output_size.repr(); }
  int64_t dims;
  bool max;
  SizeArg output_size;
  bool return_indices;
};

template <int D>
class AdaptiveAvgPool : public AdaptivePoolNd {
 public:
  explicit AdaptiveAvgPool(const SizeArg& output_size)
      : AdaptivePoolNd("AdaptiveAvgPool" + std::to_string(D) + "d", D, false, output_size, false) {}
};
template <int D>
class AdaptiveMaxPool : public AdaptivePoolNd {
 public:
  explicit AdaptiveMaxPool(const SizeArg& output_size, bool return_indices = false)
      : AdaptivePoolNd("AdaptiveMaxPool" + std::to_string(D) + "d", D, true, output_size, return_indices) {}
};
using AdaptiveAvgPool1d = AdaptiveAvgPool<1>;
using AdaptiveAvgPool2d = AdaptiveAvgPool<2>;
using AdaptiveMaxPool1d = AdaptiveMaxPool<1>;
using AdaptiveMaxPool2d = AdaptiveMaxPool<2>;

// LPPool1d/2d: (sum over each window of x^p)^(1/p), from an average pool.
class LPPoolNd : public Module {
 public:
  LPPoolNd(int64_t dims, const Scalar& norm_type, const SizeArg& kernel_size, const std::optional<SizeArg>& stride,
           bool ceil_mode);
  Tensor forward(const Tensor& input) override;
  std::string extra_repr() const override;
  int64_t dims;
  Scalar norm_type;
  SizeArg kernel_size;
  std::optional<SizeArg> stride;
  bool ceil_mode;
};
template <int D>
class LPPool : public LPPoolNd {
 public:
  LPPool(const Scalar& norm_type, const SizeArg& kernel_size, const std::optional<SizeArg>& stride = std::nullopt,
         bool ceil_mode = false)
      : LPPoolNd(D, norm_type, kernel_size, stride, ceil_mode) {}
};
using LPPool1d = LPPool<1>;
using LPPool2d = LPPool<2>;

}  // namespace ember::nn
