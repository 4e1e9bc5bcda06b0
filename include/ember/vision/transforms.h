// Image transforms (torchvision.transforms.functional's tensor path): images are tensors [..., C, H, W], so a
// batch [N, C, H, W] takes one call. Integer images keep their dtype (results rounded and clamped).
#pragma once
#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "ember/random.h"
#include "ember/tensor.h"

namespace ember::vision {

enum class PadMode { Constant, Edge, Reflect, Symmetric };
PadMode pad_mode(std::string_view name);  // "constant", "edge", "reflect", "symmetric"
enum class Interpolation { Nearest, Bilinear };

// The h x w windows at (tops[n], lefts[n]) of each image (one pair for all images, or one per image of a batch
// [N, C, H, W]); where a window leaves the image, its values come from padding the image by `mode`.
Tensor crop_pad(const Tensor& img, IntArrayRef tops, IntArrayRef lefts, int64_t h, int64_t w,
                PadMode mode = PadMode::Constant, double fill = 0);
// Pads by (left, top, right, bottom).
Tensor pad(const Tensor& img, IntArrayRef ltrb, PadMode mode = PadMode::Constant, double fill = 0);
// torchvision's crop: the part outside the image is zeros.
Tensor crop(const Tensor& img, int64_t top, int64_t left, int64_t h, int64_t w);
Tensor center_crop(const Tensor& img, int64_t h, int64_t w);
Tensor hflip(const Tensor& img);
Tensor vflip(const Tensor& img);
// (img - mean[c]) / std[c] for floating images; one mean and std per channel (or one for all).
Tensor normalize(const Tensor& img, std::span<const double> mean, std::span<const double> std);
// Resizes to h x w; antialias (bilinear only) widens the filter when shrinking, as torchvision's tensor path.
Tensor resize(const Tensor& img, int64_t h, int64_t w, Interpolation mode = Interpolation::Bilinear,
              bool antialias = true);
// img with the h x w block at (i, j) set to v (broadcast to [C, h, w]).
Tensor erase(const Tensor& img, int64_t i, int64_t j, int64_t h, int64_t w, const Tensor& v);
Tensor rgb_to_grayscale(const Tensor& img, int64_t num_output_channels = 1);
Tensor adjust_brightness(const Tensor& img, double factor);
Tensor adjust_contrast(const Tensor& img, double factor);
Tensor adjust_saturation(const Tensor& img, double factor);
Tensor adjust_hue(const Tensor& img, double factor);  // factor in [-0.5, 0.5]
// Counter-clockwise rotation by `angle` degrees about `center` (pixels; default the image centre); expand grows
// the output to hold the whole rotated image; outside pixels take `fill` (one value or one per channel; empty: 0).
Tensor rotate(const Tensor& img, double angle, Interpolation mode = Interpolation::Nearest, bool expand = false,
              std::optional<std::array<double, 2>> center = std::nullopt, std::span<const double> fill = {});
// Converts pixel values between dtypes' ranges (integers span 0..max, floats 0..1).
Tensor convert_image_dtype(const Tensor& img, ScalarType dtype);

// A transform in a C++ dataset's pipeline, applied to whole batches [N, C, H, W] with per-image randomness.
class Transform {
 public:
  virtual ~Transform() = default;
  // Draws one image's random parameters (appended to params) from gen, in torchvision's order, and updates
  // (h, w) to the output size.
  virtual void draw(GeneratorState& gen, int64_t& h, int64_t& w, std::vector<int64_t>& params) const {}
  virtual int64_t params_per_image() const { return 0; }
  // Applies to `batch` with each image's parameters (params_per_image() per image).
  virtual Tensor apply(const Tensor& batch, std::span<const int64_t> params) const = 0;
};

class RandomCrop : public Transform {
 public:
  RandomCrop(int64_t h, int64_t w, std::array<int64_t, 4> padding_ltrb = {}, PadMode mode = PadMode::Constant,
             double fill = 0);
  void draw(GeneratorState& gen, int64_t& h, int64_t& w, std::vector<int64_t>& params) const override;
  int64_t params_per_image() const override { return 2; }
  Tensor apply(const Tensor& batch, std::span<const int64_t> params) const override;

 private:
  int64_t h_, w_;
  std::array<int64_t, 4> pad_;
  PadMode mode_;
  double fill_;
};

class RandomFlip : public Transform {
 public:
  RandomFlip(double p, bool vertical = false) : p_(p), vertical_(vertical) {}
  void draw(GeneratorState& gen, int64_t& h, int64_t& w, std::vector<int64_t>& params) const override;
  int64_t params_per_image() const override { return 1; }
  Tensor apply(const Tensor& batch, std::span<const int64_t> params) const override;

 private:
  double p_;
  bool vertical_;
};

class Normalize : public Transform {
 public:
  Normalize(std::vector<double> mean, std::vector<double> std) : mean_(std::move(mean)), std_(std::move(std)) {}
  Tensor apply(const Tensor& batch, std::span<const int64_t> params) const override;

 private:
  std::vector<double> mean_, std_;
};

// Runs a pipeline over a batch: draws every image's parameters (image by image, transform by transform, as
// torchvision would per sample), then applies each transform to the whole batch.
Tensor apply_transforms(std::span<const std::shared_ptr<const Transform>> transforms, const Tensor& batch,
                        Generator* gen = nullptr);

}  // namespace ember::vision
