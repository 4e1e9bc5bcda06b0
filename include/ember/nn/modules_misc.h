// Embedding, upsampling, padding, folding, distance and rearrangement modules (torch.nn.Embedding, EmbeddingBag,
// Upsample, UpsamplingNearest2d, UpsamplingBilinear2d, PixelShuffle, PixelUnshuffle, ZeroPad/ConstantPad/
// ReflectionPad/ReplicationPad/CircularPad 1d..3d, Fold, Unfold, CosineSimilarity, PairwiseDistance,
// ChannelShuffle) over embedding.h, vision.h, padding.h and distance.h.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "ember/nn/linear.h"
#include "ember/nn/repr.h"
#include "ember/nn/vision.h"

namespace ember::nn {

struct AssertionError : Error { using Error::Error; };  // Python's AssertionError (torch's asserts)

// weight (num_embeddings, embedding_dim) drawn from N(0, 1) with padding_idx's row zeroed, or `weight` itself.
class Embedding : public Module {
 public:
  Embedding(int64_t num_embeddings, int64_t embedding_dim, std::optional<int64_t> padding_idx = std::nullopt,
            std::optional<double> max_norm = std::nullopt, const Scalar& norm_type = 2.0,
            bool scale_grad_by_freq = false, bool sparse = false, const std::optional<Tensor>& weight = std::nullopt,
            bool freeze = false, const LayerOptions& options = {});
  // A module over `embeddings` (2-d, shared), frozen unless freeze is false.
  static std::shared_ptr<Embedding> from_pretrained(const Tensor& embeddings, bool freeze = true,
                                                    std::optional<int64_t> padding_idx = std::nullopt,
                                                    std::optional<double> max_norm = std::nullopt,
                                                    const Scalar& norm_type = 2.0, bool scale_grad_by_freq = false,
                                                    bool sparse = false);
  Tensor forward(const Tensor& input) override;
  std::string extra_repr() const override;
  void reset_parameters();
  int64_t num_embeddings, embedding_dim;
  std::optional<int64_t> padding_idx;  // non-negative
  std::optional<double> max_norm;
  Scalar norm_type;
  bool scale_grad_by_freq, sparse;
  Tensor& weight;
};

class EmbeddingBag : public Module {
 public:
  EmbeddingBag(int64_t num_embeddings, int64_t embedding_dim, std::optional<double> max_norm = std::nullopt,
               const Scalar& norm_type = 2.0, bool scale_grad_by_freq = false, std::string mode = "mean",
               bool sparse = false, const std::optional<Tensor>& weight = std::nullopt,
               bool include_last_offset = false, std::optional<int64_t> padding_idx = std::nullopt,
               const LayerOptions& options = {});
  static std::shared_ptr<EmbeddingBag> from_pretrained(const Tensor& embeddings, bool freeze = true,
                                                       std::optional<double> max_norm = std::nullopt,
                                                       const Scalar& norm_type = 2.0, bool scale_grad_by_freq = false,
                                                       std::string mode = "mean", bool sparse = false,
                                                       bool include_last_offset = false,
                                                       std::optional<int64_t> padding_idx = std::nullopt);
  using Module::forward;
  Tensor forward(const Tensor& input) override { return forward(input, std::nullopt, std::nullopt); }
  Tensor forward(const Tensor& input, const std::optional<Tensor>& offsets,
                 const std::optional<Tensor>& per_sample_weights);
  std::string extra_repr() const override;
  void reset_parameters();
  int64_t num_embeddings, embedding_dim;
  std::optional<double> max_norm;
  Scalar norm_type;
  bool scale_grad_by_freq;
  std::string mode;
  bool sparse, include_last_offset;
  std::optional<int64_t> padding_idx;
  Tensor& weight;
};

// Upsample: a size or scale factors (one value for every dim, or one per dim) and a mode ("nearest",
// "nearest-exact", "linear", "bilinear", "trilinear").
class Upsample : public Module {
 public:
  Upsample(std::optional<SizeArg> size, std::vector<double> scale_factor, bool scale_scalar = true,
           std::string mode = "nearest", std::optional<bool> align_corners = std::nullopt,
           std::optional<bool> recompute_scale_factor = std::nullopt, std::string name = "Upsample");
  Tensor forward(const Tensor& input) override;
  std::string extra_repr() const override;
  std::optional<SizeArg> size;
  std::vector<double> scale_factor;  // empty when size is given
  bool scale_scalar;
  std::string mode;
  std::optional<bool> align_corners, recompute_scale_factor;
};

class UpsamplingNearest2d : public Upsample {
 public:
  UpsamplingNearest2d(std::optional<SizeArg> size, std::vector<double> scale_factor = {}, bool scale_scalar = true)
      : Upsample(std::move(size), std::move(scale_factor), scale_scalar, "nearest", std::nullopt, std::nullopt,
                 "UpsamplingNearest2d") {}
};
class UpsamplingBilinear2d : public Upsample {
 public:
  UpsamplingBilinear2d(std::optional<SizeArg> size, std::vector<double> scale_factor = {}, bool scale_scalar = true)
      : Upsample(std::move(size), std::move(scale_factor), scale_scalar, "bilinear", true, std::nullopt,
                 "UpsamplingBilinear2d") {}
};

class PixelShuffle : public Module {
 public:
  explicit PixelShuffle(int64_t upscale_factor) : Module("PixelShuffle"), upscale_factor(upscale_factor) {}
  Tensor forward(const Tensor& input) override { return functional::pixel_shuffle(input, upscale_factor); }
  std::string extra_repr() const override { return str("upscale_factor=", upscale_factor); }
  int64_t upscale_factor;
};

class PixelUnshuffle : public Module {
 public:
  explicit PixelUnshuffle(int64_t downscale_factor) : Module("PixelUnshuffle"), downscale_factor(downscale_factor) {}
  Tensor forward(const Tensor& input) override { return functional::pixel_unshuffle(input, downscale_factor); }
  std::string extra_repr() const override { return str("downscale_factor=", downscale_factor); }
  int64_t downscale_factor;
};

// The padding modules: padding holds (left, right) pairs from the last dim back, 2 * dims of them (one int
// stands for all).
class PadNd : public Module {
 public:
  PadNd(std::string kind, int64_t dims, const SizeArg& padding, const Scalar& value = 0);
  Tensor forward(const Tensor& input) override;
  std::string extra_repr() const override;
  std::string mode;  // F.pad's: constant, reflect, replicate, circular
  bool zero;         // ZeroPad*d (shows only its padding)
  DimVector padding;
  Scalar value;
};

#define EMBER_PAD_MODULE(Name, Kind, D)                                                          \
  class Name : public PadNd {                                                                    \
   public:                                                                                       \
    explicit Name(const SizeArg& padding) : PadNd(Kind, D, padding) {}                           \
  };
#define EMBER_PAD_MODULES(Kind)     \
  EMBER_PAD_MODULE(Kind##Pad1d, #Kind, 1) \
  EMBER_PAD_MODULE(Kind##Pad2d, #Kind, 2) \
  EMBER_PAD_MODULE(Kind##Pad3d, #Kind, 3)
EMBER_PAD_MODULES(Zero)
EMBER_PAD_MODULES(Reflection)
EMBER_PAD_MODULES(Replication)
EMBER_PAD_MODULES(Circular)
#undef EMBER_PAD_MODULES
#undef EMBER_PAD_MODULE

template <int D>
class ConstantPad : public PadNd {
 public:
  ConstantPad(const SizeArg& padding, const Scalar& value) : PadNd("Constant", D, padding, value) {}
};
using ConstantPad1d = ConstantPad<1>;
using ConstantPad2d = ConstantPad<2>;
using ConstantPad3d = ConstantPad<3>;

class Fold : public Module {
 public:
  Fold(const SizeArg& output_size, const SizeArg& kernel_size, const SizeArg& dilation = 1, const SizeArg& padding = 0,
       const SizeArg& stride = 1)
      : Module("Fold"), output_size(output_size), kernel_size(kernel_size), dilation(dilation), padding(padding),
        stride(stride) {}
  Tensor forward(const Tensor& input) override;
  std::string extra_repr() const override;
  SizeArg output_size, kernel_size, dilation, padding, stride;
};

class Unfold : public Module {
 public:
  Unfold(const SizeArg& kernel_size, const SizeArg& dilation = 1, const SizeArg& padding = 0, const SizeArg& stride = 1)
      : Module("Unfold"), kernel_size(kernel_size), dilation(dilation), padding(padding), stride(stride) {}
  Tensor forward(const Tensor& input) override;
  std::string extra_repr() const override;
  SizeArg kernel_size, dilation, padding, stride;
};

class CosineSimilarity : public Module {
 public:
  explicit CosineSimilarity(int64_t dim = 1, double eps = 1e-8) : Module("CosineSimilarity"), dim(dim), eps(eps) {}
  using Module::forward;
  Tensor forward(const Tensor& x1, const Tensor& x2);
  int64_t dim;
  double eps;
};

class PairwiseDistance : public Module {
 public:
  explicit PairwiseDistance(double p = 2.0, double eps = 1e-6, bool keepdim = false)
      : Module("PairwiseDistance"), norm(p), eps(eps), keepdim(keepdim) {}
  using Module::forward;
  Tensor forward(const Tensor& x1, const Tensor& x2);
  double norm, eps;
  bool keepdim;
};

// (N, C, *) with C split into `groups` groups of C / groups: the groups' channels interleaved.
class ChannelShuffle : public Module {
 public:
  explicit ChannelShuffle(int64_t groups) : Module("ChannelShuffle"), groups(groups) {}
  Tensor forward(const Tensor& input) override;
  std::string extra_repr() const override { return str("groups=", groups); }
  int64_t groups;
};

}  // namespace ember::nn
