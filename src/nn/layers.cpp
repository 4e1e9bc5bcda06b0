// Embedding, EmbeddingBag, Upsample, the padding modules, Fold/Unfold, the distances and ChannelShuffle: their
// arguments, torch's default init and reprs; the work is in the functional forms.
#include <cmath>

#include "ember/autograd.h"
#include "ember/creation.h"
#include "ember/nn/distance.h"
#include "ember/nn/embedding.h"
#include "ember/nn/init.h"
#include "ember/nn/modules_misc.h"
#include "ember/nn/padding.h"
#include "ember/nn/parameter.h"

namespace ember::nn {

namespace F = functional;

namespace {

std::optional<int64_t> checked_padding_idx(std::optional<int64_t> padding_idx, int64_t num_embeddings) {
  if (!padding_idx) return std::nullopt;
  int64_t i = *padding_idx;
  EMBER_CHECK(i < num_embeddings && i >= -num_embeddings, AssertionError, "Padding_idx must be within num_embeddings");
  return i < 0 ? i + num_embeddings : i;
}

// The given weight as a parameter (sharing its storage), or a new one to be initialised.
Tensor embedding_weight(int64_t num, int64_t dim, const std::optional<Tensor>& weight, bool freeze,
                        const LayerOptions& options) {
  if (!weight) return empty({num, dim}, options.tensor_options());
  EMBER_CHECK(weight->dim() == 2 && weight->size(0) == num && weight->size(1) == dim, AssertionError,
              "Shape of weight does not match num_embeddings and embedding_dim");
  return make_parameter(*weight, !freeze);
}

// The optional parts both embeddings' reprs share.
std::string embedding_repr_tail(std::optional<double> max_norm, const Scalar& norm_type, bool scale_grad_by_freq) {
  std::string s;
  if (max_norm) s += ", max_norm=" + repr_float(*max_norm);
  if (norm_type.to_double() != 2.0) s += ", norm_type=" + repr_scalar(norm_type);
  if (scale_grad_by_freq) s += ", scale_grad_by_freq=True";
  return s;
}

DimVector sizes_after_channels(const Tensor& input) {
  DimVector s;
  for (int64_t d = 2; d < input.dim(); ++d) s.push_back(input.size(d));
  return s;
}

void zero_row(const Tensor& weight, std::optional<int64_t> row) {
  if (!row) return;
  autograd::NoGradGuard no_grad;
  weight.select(0, *row).fill_(0);
}

}  // namespace

Embedding::Embedding(int64_t num_embeddings, int64_t embedding_dim, std::optional<int64_t> padding_idx,
                     std::optional<double> max_norm, const Scalar& norm_type, bool scale_grad_by_freq, bool sparse,
                     const std::optional<Tensor>& weight, bool freeze, const LayerOptions& options)
    : Module("Embedding"),
      num_embeddings(num_embeddings),
      embedding_dim(embedding_dim),
      padding_idx(checked_padding_idx(padding_idx, num_embeddings)),
      max_norm(max_norm),
      norm_type(norm_type),
      scale_grad_by_freq(scale_grad_by_freq),
      sparse(sparse),
      weight(register_parameter("weight", embedding_weight(num_embeddings, embedding_dim, weight, freeze, options),
                                !freeze)) {
  if (!weight) reset_parameters();
}

std::shared_ptr<Embedding> Embedding::from_pretrained(const Tensor& embeddings, bool freeze,
                                                      std::optional<int64_t> padding_idx,
                                                      std::optional<double> max_norm, const Scalar& norm_type,
                                                      bool scale_grad_by_freq, bool sparse) {
  EMBER_CHECK(embeddings.dim() == 2, AssertionError, "Embeddings parameter is expected to be 2-dimensional");
  return std::make_shared<Embedding>(embeddings.size(0), embeddings.size(1), padding_idx, max_norm, norm_type,
                                     scale_grad_by_freq, sparse, embeddings, freeze);
}

void Embedding::reset_parameters() {
  init::normal_(weight);
  zero_row(weight, padding_idx);
}

Tensor Embedding::forward(const Tensor& input) {
  return F::embedding(input, weight, padding_idx, max_norm, norm_type.to_double(), scale_grad_by_freq, sparse);
}

std::string Embedding::extra_repr() const {
  std::string s = str(num_embeddings, ", ", embedding_dim);
  if (padding_idx) s += str(", padding_idx=", *padding_idx);
  s += embedding_repr_tail(max_norm, norm_type, scale_grad_by_freq);
  if (sparse) s += ", sparse=True";
  return s;
}

EmbeddingBag::EmbeddingBag(int64_t num_embeddings, int64_t embedding_dim, std::optional<double> max_norm,
                           const Scalar& norm_type, bool scale_grad_by_freq, std::string mode, bool sparse,
                           const std::optional<Tensor>& weight, bool include_last_offset,
                           std::optional<int64_t> padding_idx, const LayerOptions& options)
    : Module("EmbeddingBag"),
      num_embeddings(num_embeddings),
      embedding_dim(embedding_dim),
      max_norm(max_norm),
      norm_type(norm_type),
      scale_grad_by_freq(scale_grad_by_freq),
      mode(std::move(mode)),
      sparse(sparse),
      include_last_offset(include_last_offset),
      padding_idx(checked_padding_idx(padding_idx, num_embeddings)),
      weight(register_parameter("weight", embedding_weight(num_embeddings, embedding_dim, weight, false, options))) {
  if (!weight) reset_parameters();
}

std::shared_ptr<EmbeddingBag> EmbeddingBag::from_pretrained(const Tensor& embeddings, bool freeze,
                                                            std::optional<double> max_norm, const Scalar& norm_type,
                                                            bool scale_grad_by_freq, std::string mode, bool sparse,
                                                            bool include_last_offset,
                                                            std::optional<int64_t> padding_idx) {
  EMBER_CHECK(embeddings.dim() == 2, AssertionError, "Embeddings parameter is expected to be 2-dimensional");
  auto bag = std::make_shared<EmbeddingBag>(embeddings.size(0), embeddings.size(1), max_norm, norm_type,
                                            scale_grad_by_freq, std::move(mode), sparse, embeddings,
                                            include_last_offset, padding_idx);
  bag->weight.requires_grad_(!freeze);
  return bag;
}

void EmbeddingBag::reset_parameters() {
  init::normal_(weight);
  zero_row(weight, padding_idx);
}

Tensor EmbeddingBag::forward(const Tensor& input, const std::optional<Tensor>& offsets,
                             const std::optional<Tensor>& per_sample_weights) {
  return F::embedding_bag(input, weight, offsets, max_norm, norm_type.to_double(), scale_grad_by_freq, mode, sparse,
                          per_sample_weights, include_last_offset, padding_idx);
}

std::string EmbeddingBag::extra_repr() const {
  std::string s = str(num_embeddings, ", ", embedding_dim) + embedding_repr_tail(max_norm, norm_type, scale_grad_by_freq);
  s += ", mode='" + mode + "'";
  if (padding_idx) s += str(", padding_idx=", *padding_idx);
  return s;
}

Upsample::Upsample(std::optional<SizeArg> size, std::vector<double> scale_factor, bool scale_scalar, std::string mode,
                   std::optional<bool> align_corners, std::optional<bool> recompute_scale_factor, std::string name)
    : Module(std::move(name)),
      size(std::move(size)),
      scale_factor(std::move(scale_factor)),
      scale_scalar(scale_scalar),
      mode(std::move(mode)),
      align_corners(align_corners),
      recompute_scale_factor(recompute_scale_factor) {}

Tensor Upsample::forward(const Tensor& input) {
  int64_t dims = input.dim() - 2;
  EMBER_CHECK(dims >= 1 && dims <= 3, NotImplementedError, "Input Error: Only 3D, 4D and 5D input Tensors supported (got ",
              input.dim(), "D) for the modes: nearest | linear | bilinear | bicubic | trilinear | area | nearest-exact (got ",
              mode, ")");
  EMBER_CHECK(size || !scale_factor.empty(), ValueError, "either size or scale_factor should be defined");
  std::vector<double> scales;
  DimVector out;
  if (size) {
    out = size->expand(dims);
    EMBER_CHECK(int64_t(out.size()) == dims, ValueError, "Input and output must have the same number of spatial "
                "dimensions, but got input with spatial dimensions of ", int_list(sizes_after_channels(input)),
                " and output size of ", size->repr(), ".");
  } else {
    scales = scale_scalar ? std::vector<double>(size_t(dims), scale_factor[0]) : scale_factor;
    EMBER_CHECK(int64_t(scales.size()) == dims, ValueError, "Input and scale_factor must have the same number of "
                "spatial dimensions.");
    for (int64_t d = 0; d < dims; ++d) out.push_back(int64_t(std::floor(double(input.size(d + 2)) * scales[size_t(d)])));
    if (recompute_scale_factor.value_or(false)) scales.clear();
  }
  bool nearest = mode == "nearest" || mode == "nearest-exact";
  int64_t linear_dims = mode == "linear" ? 1 : mode == "bilinear" ? 2 : mode == "trilinear" ? 3 : 0;
  EMBER_CHECK(nearest || linear_dims == dims, NotImplementedError, "upsample: mode '", mode, "' does not take a ",
              input.dim(), "D input");
  auto kind = mode == "nearest" ? F::UpsampleMode::Nearest
              : nearest         ? F::UpsampleMode::NearestExact
                                : F::UpsampleMode::Linear;
  return F::upsample(input, out, kind, align_corners.value_or(false), scales);
}

std::string Upsample::extra_repr() const {
  std::string s;
  if (!scale_factor.empty()) {
    s = "scale_factor=";
    if (scale_scalar) s += repr_float(scale_factor[0]);
    else {
      s += "(";
      for (size_t i = 0; i < scale_factor.size(); ++i) s += (i ? ", " : "") + repr_float(scale_factor[i]);
      s += scale_factor.size() == 1 ? ",)" : ")";
    }
  } else {
    s = "size=" + (size ? size->repr() : std::string("None"));
  }
  return s + ", mode='" + mode + "'";
}

PadNd::PadNd(std::string kind, int64_t dims, const SizeArg& padding, const Scalar& value)
    : Module(str(kind, "Pad", dims, "d")),
      mode(kind == "Reflection" ? "reflect" : kind == "Replication" ? "replicate" : kind == "Circular" ? "circular"
                                                                                                       : "constant"),
      zero(kind == "Zero"),
      padding(padding.expand(2 * dims)),
      value(value) {}

Tensor PadNd::forward(const Tensor& input) {
  if (mode != "constant") return F::pad(input, padding, mode);
  return F::pad(input, padding, mode, value.to_double());
}

std::string PadNd::extra_repr() const {
  if (mode == "constant" && !zero) return str("padding=", repr_tuple(padding), ", value=", repr_scalar(value));
  return repr_tuple(padding);
}

Tensor Fold::forward(const Tensor& input) {
  return F::fold(input, output_size.expand(2), kernel_size.expand(2), dilation.expand(2), padding.expand(2),
                 stride.expand(2));
}

std::string Fold::extra_repr() const {
  return str("output_size=", output_size.repr(), ", kernel_size=", kernel_size.repr(), ", dilation=", dilation.repr(),
             ", padding=", padding.repr(), ", stride=", stride.repr());
}

Tensor Unfold::forward(const Tensor& input) {
  return F::unfold(input, kernel_size.expand(2), dilation.expand(2), padding.expand(2), stride.expand(2));
}

std::string Unfold::extra_repr() const {
  return str("kernel_size=", kernel_size.repr(), ", dilation=", dilation.repr(), ", padding=", padding.repr(),
             ", stride=", stride.repr());
}

Tensor CosineSimilarity::forward(const Tensor& x1, const Tensor& x2) { return F::cosine_similarity(x1, x2, dim, eps); }

Tensor PairwiseDistance::forward(const Tensor& x1, const Tensor& x2) {
  return F::pairwise_distance(x1, x2, norm, eps, keepdim);
}

Tensor ChannelShuffle::forward(const Tensor& input) {
  EMBER_CHECK(input.dim() > 2, Error, "channel_shuffle expects input with > 2 dims, but got input with sizes ",
              int_list(input.sizes()));
  EMBER_CHECK(groups > 0, Error, "Number of groups to divide channels in must be positive. Value of groups:", groups);
  int64_t c = input.size(1);
  EMBER_CHECK(c % groups == 0, Error, "Number of channels must be divisible by groups. Got ", c, " channels and ",
              groups, " groups.");
  DimVector split(input.sizes());
  split[1] = c / groups;
  split.insert(1, groups);
  return input.reshape(split).transpose(1, 2).reshape(input.sizes());
}

}  // namespace ember::nn
