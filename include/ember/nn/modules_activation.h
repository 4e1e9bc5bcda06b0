// Activation modules (torch.nn.ReLU ... GLU) over the functional forms of ember/nn/activation.h, with torch's
// constructor arguments, attributes and extra_repr.
#pragma once
#include <optional>
#include <string>

#include "ember/nn/linear.h"
#include "ember/nn/module.h"
#include "ember/nn/repr.h"

namespace ember::nn {

// A module whose forward is one functional call with no state (Sigmoid, Tanh, ...).
class Elementwise : public Module {
 public:
  using Fn = Tensor (*)(const Tensor&);
  Elementwise(std::string name, Fn fn) : Module(std::move(name)), fn_(fn) {}
  Tensor forward(const Tensor& input) override { return fn_(input); }

 private:
  Fn fn_;
};

struct Sigmoid : Elementwise { Sigmoid(); };
struct Tanh : Elementwise { Tanh(); };
struct Softsign : Elementwise { Softsign(); };
struct Tanhshrink : Elementwise { Tanhshrink(); };
struct LogSigmoid : Elementwise { LogSigmoid(); };

// A module whose forward is f(input, inplace) (ReLU, SELU, SiLU, Mish, Hardswish, Hardsigmoid).
class InplaceActivation : public Module {
 public:
  using Fn = Tensor (*)(const Tensor&, bool);
  InplaceActivation(std::string name, Fn fn, bool inplace, bool show_inplace = true)
      : Module(std::move(name)), inplace(inplace), fn_(fn), show_inplace_(show_inplace) {}
  Tensor forward(const Tensor& input) override { return fn_(input, inplace); }
  std::string extra_repr() const override { return inplace && show_inplace_ ? "inplace=True" : ""; }
  bool inplace;

 private:
  Fn fn_;
  bool show_inplace_;
};

struct ReLU : InplaceActivation { explicit ReLU(bool inplace = false); };
struct SELU : InplaceActivation { explicit SELU(bool inplace = false); };
struct SiLU : InplaceActivation { explicit SiLU(bool inplace = false); };
struct Mish : InplaceActivation { explicit Mish(bool inplace = false); };
struct Hardswish : InplaceActivation { explicit Hardswish(bool inplace = false); };
struct Hardsigmoid : InplaceActivation { explicit Hardsigmoid(bool inplace = false); };

class Hardtanh : public Module {
 public:
  // torch asserts max_val > min_val (an AssertionError in Python; ValueError here).
  explicit Hardtanh(double min_val = -1.0, double max_val = 1.0, bool inplace = false);
  Tensor forward(const Tensor& input) override;
  std::string extra_repr() const override;
  double min_val, max_val;
  bool inplace;

 protected:
  Hardtanh(std::string name, double min_val, double max_val, bool inplace);
};

struct ReLU6 : Hardtanh {
  explicit ReLU6(bool inplace = false);
  std::string extra_repr() const override { return inplace ? "inplace=True" : ""; }
};

class LeakyReLU : public Module {
 public:
  explicit LeakyReLU(double negative_slope = 0.01, bool inplace = false)
      : Module("LeakyReLU"), negative_slope(negative_slope), inplace(inplace) {}
  Tensor forward(const Tensor& input) override;
  std::string extra_repr() const override;
  double negative_slope;
  bool inplace;
};

// ELU and CELU: f(input, alpha, inplace).
class AlphaActivation : public Module {
 public:
  using Fn = Tensor (*)(const Tensor&, double, bool);
  AlphaActivation(std::string name, Fn fn, double alpha, bool inplace)
      : Module(std::move(name)), alpha(alpha), inplace(inplace), fn_(fn) {}
  Tensor forward(const Tensor& input) override { return fn_(input, alpha, inplace); }
  std::string extra_repr() const override;
  double alpha;
  bool inplace;

 private:
  Fn fn_;
};

struct ELU : AlphaActivation { explicit ELU(double alpha = 1.0, bool inplace = false); };
struct CELU : AlphaActivation { explicit CELU(double alpha = 1.0, bool inplace = false); };

class PReLU : public Module {
 public:
  explicit PReLU(int64_t num_parameters = 1, double init = 0.25, const LayerOptions& options = {});
  Tensor forward(const Tensor& input) override;
  std::string extra_repr() const override;
  void reset_parameters();  // the weight filled with init
  int64_t num_parameters;
  double init;
  Tensor& weight;
};

class RReLU : public Module {
 public:
  explicit RReLU(double lower = 1.0 / 8, double upper = 1.0 / 3, bool inplace = false)
      : Module("RReLU"), lower(lower), upper(upper), inplace(inplace) {}
  Tensor forward(const Tensor& input) override;
  std::string extra_repr() const override;
  double lower, upper;
  bool inplace;
};

class GELU : public Module {
 public:
  explicit GELU(std::string approximate = "none") : Module("GELU"), approximate(std::move(approximate)) {}
  Tensor forward(const Tensor& input) override;
  std::string extra_repr() const override { return "approximate='" + approximate + "'"; }
  std::string approximate;
};

// Softmax, LogSoftmax, Softmin: dim none picks torch's implicit (deprecated) dim with its warning.
class SoftmaxFamily : public Module {
 public:
  using Fn = Tensor (*)(const Tensor&, int64_t, std::optional<ScalarType>);
  SoftmaxFamily(std::string name, Fn fn, std::optional<int64_t> dim) : Module(std::move(name)), dim(dim), fn_(fn) {}
  Tensor forward(const Tensor& input) override;
  std::string extra_repr() const override;
  std::optional<int64_t> dim;

 private:
  Fn fn_;
};

struct Softmax : SoftmaxFamily { explicit Softmax(std::optional<int64_t> dim = std::nullopt); };
struct LogSoftmax : SoftmaxFamily { explicit LogSoftmax(std::optional<int64_t> dim = std::nullopt); };
struct Softmin : SoftmaxFamily { explicit Softmin(std::optional<int64_t> dim = std::nullopt); };

// Softmax over the channels of a (C, H, W) or (N, C, H, W) input.
class Softmax2d : public Module {
 public:
  Softmax2d() : Module("Softmax2d") {}
  Tensor forward(const Tensor& input) override;
};

class Softplus : public Module {
 public:
  explicit Softplus(double beta = 1.0, double threshold = 20.0)
      : Module("Softplus"), beta(beta), threshold(threshold) {}
  Tensor forward(const Tensor& input) override;
  std::string extra_repr() const override;
  double beta, threshold;
};

// Softshrink and Hardshrink: f(input, lambd).
class Shrink : public Module {
 public:
  using Fn = Tensor (*)(const Tensor&, double);
  Shrink(std::string name, Fn fn, double lambd) : Module(std::move(name)), lambd(lambd), fn_(fn) {}
  Tensor forward(const Tensor& input) override { return fn_(input, lambd); }
  std::string extra_repr() const override { return repr_float(lambd); }
  double lambd;

 private:
  Fn fn_;
};

struct Softshrink : Shrink { explicit Softshrink(double lambd = 0.5); };
struct Hardshrink : Shrink { explicit Hardshrink(double lambd = 0.5); };

class Threshold : public Module {
 public:
  Threshold(double threshold, double value, bool inplace = false)
      : Module("Threshold"), threshold(threshold), value(value), inplace(inplace) {}
  Tensor forward(const Tensor& input) override;
  std::string extra_repr() const override;
  double threshold, value;
  bool inplace;
};

class GLU : public Module {
 public:
  explicit GLU(int64_t dim = -1) : Module("GLU"), dim(dim) {}
  Tensor forward(const Tensor& input) override;
  std::string extra_repr() const override { return str("dim=", dim); }
  int64_t dim;
};

}  // namespace ember::nn
