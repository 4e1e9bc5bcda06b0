// Normalisation and dropout modules (torch.nn.BatchNorm1d..3d, InstanceNorm1d..3d, LayerNorm, GroupNorm, RMSNorm,
// LocalResponseNorm, Dropout, Dropout1d..3d, AlphaDropout, FeatureAlphaDropout) over normalization.h / dropout.h.
#pragma once
#include <optional>
#include <string>

#include "ember/nn/linear.h"
#include "ember/nn/repr.h"

namespace ember::nn {

// torch's _NormBase: weight (ones) and bias (zeros) when affine, running_mean / running_var / num_batches_tracked
// buffers when track_running_stats (else registered as None).
class NormBase : public Module {
 public:
  NormBase(std::string name, int64_t dims, bool instance, int64_t num_features, double eps,
           std::optional<double> momentum, bool affine, bool track_running_stats, const LayerOptions& options,
           bool bias);
  Tensor forward(const Tensor& input) override;
  std::string extra_repr() const override;
  void reset_running_stats();
  void reset_parameters();
  int64_t dims, num_features;
  bool instance;
  double eps;
  std::optional<double> momentum;
  bool affine, track_running_stats;
  Tensor& weight;
  Tensor& bias;
  Tensor& running_mean;
  Tensor& running_var;
  Tensor& num_batches_tracked;

 private:
  Tensor batch_norm(const Tensor& input);
  Tensor instance_norm(const Tensor& input);
};

template <int D>
class BatchNorm : public NormBase {
 public:
  explicit BatchNorm(int64_t num_features, double eps = 1e-5, std::optional<double> momentum = 0.1, bool affine = true,
                     bool track_running_stats = true, const LayerOptions& options = {}, bool bias = true)
      : NormBase("BatchNorm" + std::to_string(D) + "d", D, false, num_features, eps, momentum, affine,
                 track_running_stats, options, bias) {}
};
using BatchNorm1d = BatchNorm<1>;
using BatchNorm2d = BatchNorm<2>;
using BatchNorm3d = BatchNorm<3>;

template <int D>
class InstanceNorm : public NormBase {
 public:
  explicit InstanceNorm(int64_t num_features, double eps = 1e-5, std::optional<double> momentum = 0.1,
                        bool affine = false, bool track_running_stats = false, const LayerOptions& options = {},
                        bool bias = true)
      : NormBase("InstanceNorm" + std::to_string(D) + "d", D, true, num_features, eps, momentum, affine,
                 track_running_stats, options, bias) {}
};
using InstanceNorm1d = InstanceNorm<1>;
using InstanceNorm2d = InstanceNorm<2>;
using InstanceNorm3d = InstanceNorm<3>;

class LayerNorm : public Module {
 public:
  LayerNorm(IntArrayRef normalized_shape, double eps = 1e-5, bool elementwise_affine = true, bool bias = true,
            const LayerOptions& options = {});
  Tensor forward(const Tensor& input) override;
  std::string extra_repr() const override;
  void reset_parameters();
  DimVector normalized_shape;
  double eps;
  bool elementwise_affine;
  Tensor& weight;
  Tensor& bias;
};

class GroupNorm : public Module {
 public:
  GroupNorm(int64_t num_groups, int64_t num_channels, double eps = 1e-5, bool affine = true,
            const LayerOptions& options = {}, bool bias = true);
  Tensor forward(const Tensor& input) override;
  std::string extra_repr() const override;
  void reset_parameters();
  int64_t num_groups, num_channels;
  double eps;
  bool affine;
  Tensor& weight;
  Tensor& bias;
};

class RMSNorm : public Module {
 public:
  RMSNorm(IntArrayRef normalized_shape, std::optional<double> eps = std::nullopt, bool elementwise_affine = true,
          const LayerOptions& options = {});
  Tensor forward(const Tensor& input) override;
  std::string extra_repr() const override;
  void reset_parameters();
  DimVector normalized_shape;
  std::optional<double> eps;
  bool elementwise_affine;
  Tensor& weight;
};

class LocalResponseNorm : public Module {
 public:
  explicit LocalResponseNorm(int64_t size, double alpha = 1e-4, double beta = 0.75, double k = 1.0)
      : Module("LocalResponseNorm"), size(size), alpha(alpha), beta(beta), k(k) {}
  Tensor forward(const Tensor& input) override;
  std::string extra_repr() const override;
  int64_t size;
  double alpha, beta, k;
};

// The dropouts: one class per torch name over its functional form; p outside [0, 1] is torch's ValueError.
class DropoutBase : public Module {
 public:
  using Fn = Tensor (*)(const Tensor&, double, bool, bool);
  DropoutBase(std::string name, Fn fn, double p, bool inplace);
  Tensor forward(const Tensor& input) override { return fn_(input, p, is_training(), inplace); }
  std::string extra_repr() const override;
  double p;
  bool inplace;

 private:
  Fn fn_;
};

#define EMBER_DROPOUT_MODULE(Name)                                 \
  class Name : public DropoutBase {                                \
   public:                                                         \
    explicit Name(double p = 0.5, bool inplace = false);           \
  };
EMBER_DROPOUT_MODULE(Dropout)
EMBER_DROPOUT_MODULE(Dropout1d)
EMBER_DROPOUT_MODULE(Dropout2d)
EMBER_DROPOUT_MODULE(Dropout3d)
EMBER_DROPOUT_MODULE(AlphaDropout)
EMBER_DROPOUT_MODULE(FeatureAlphaDropout)
#undef EMBER_DROPOUT_MODULE

}  // namespace ember::nn
