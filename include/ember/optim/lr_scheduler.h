// torch.optim.lr_scheduler in C++ (Python's ember.optim.lr_scheduler binds these classes). A
// scheduler sets its optimizer's group "lr" (and "momentum" or betas[0] for the cyclic ones) each
// step. Settings and running values live in `hp` (a Dict), which is also what state_dict saves.
#pragma once
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ember/optim/optimizer.h"

namespace ember::optim::lr_scheduler {

class LRScheduler {
 public:
  virtual ~LRScheduler() = default;
  // The next epoch's learning rates (torch's chainable form).
  virtual void step();
  // Deprecated in torch: jumps to `epoch`, with the closed form where the scheduler has one (warns).
  virtual void step(int64_t epoch);
  const std::vector<double>& get_last_lr() const { return last_lr_; }
  int64_t last_epoch() const { return last_epoch_; }
  const std::vector<double>& base_lrs() const { return base_lrs_; }
  Optimizer& optimizer() const { return opt_; }
  // Settings and running values (torch's attribute names), base_lrs, last_epoch, _step_count, _last_lr.
  virtual Dict state_dict() const;
  virtual void load_state_dict(const Dict& sd);
  Dict hp;

 protected:
  // Records every group's initial_lr (when last_epoch is -1; else requires it) as base_lrs.
  LRScheduler(Optimizer& opt, int64_t last_epoch);
  // For schedulers that drive others or no schedule (ReduceLROnPlateau): the groups are left as they are.
  explicit LRScheduler(Optimizer& opt) : opt_(opt), last_epoch_(0) {}
  // The first step, to epoch last_epoch + 1; each concrete class's constructor ends with it.
  void initial_step();
  // The learning rates at last_epoch_ (already advanced), from the groups' current rates.
  virtual std::vector<double> get_lr() = 0;
  virtual std::optional<std::vector<double>> closed_form() { return std::nullopt; }
  void apply(const std::vector<double>& lrs);
  std::vector<double> group_lrs() const;
  size_t groups() const { return opt_.param_groups().size(); }

  Optimizer& opt_;
  int64_t last_epoch_;
  int64_t step_count_ = 0;
  std::vector<double> base_lrs_, last_lr_;
  friend class SequentialLR;
  friend class ChainedScheduler;
};

// lr = base_lr * lambda(epoch): one function, or one per group.
using LrLambda = std::function<double(int64_t)>;
class LambdaLR : public LRScheduler {
 public:
  LambdaLR(Optimizer& opt, std::vector<LrLambda> lr_lambdas, int64_t last_epoch = -1);

 protected:
  LambdaLR(Optimizer& opt, std::vector<LrLambda> lr_lambdas, int64_t last_epoch, bool first_step);
  std::vector<double> get_lr() override;
  std::vector<LrLambda> lambdas_;
};
// lr *= lambda(epoch) from the second epoch on.
class MultiplicativeLR : public LambdaLR {
 public:
  MultiplicativeLR(Optimizer& opt, std::vector<LrLambda> lr_lambdas, int64_t last_epoch = -1);

 protected:
  std::vector<double> get_lr() override;
};

// The schedules with settings only: each takes them by torch's argument names.
#define EMBER_SCHEDULER(Name, ...)                                          \
  class Name : public LRScheduler {                                         \
   public:                                                                  \
    Name(Optimizer& opt, __VA_ARGS__, int64_t last_epoch = -1);             \
                                                                            \
   protected:                                                               \
    std::vector<double> get_lr() override;                                  \
    std::optional<std::vector<double>> closed_form() override;              \
  };
EMBER_SCHEDULER(StepLR, int64_t step_size, double gamma = 0.1)
EMBER_SCHEDULER(MultiStepLR, std::vector<int64_t> milestones, double gamma = 0.1)
EMBER_SCHEDULER(ConstantLR, double factor = 1.0 / 3, int64_t total_iters = 5)
EMBER_SCHEDULER(LinearLR, double start_factor = 1.0 / 3, double end_factor = 1.0, int64_t total_iters = 5)
EMBER_SCHEDULER(ExponentialLR, double gamma)
EMBER_SCHEDULER(PolynomialLR, int64_t total_iters = 5, double power = 1.0)
EMBER_SCHEDULER(CosineAnnealingLR, int64_t T_max, double eta_min = 0.0)
#undef EMBER_SCHEDULER

// Cosine annealing restarted every T_i epochs (T_i grows by T_mult); step(epoch) takes fractions.
class CosineAnnealingWarmRestarts : public LRScheduler {
 public:
  CosineAnnealingWarmRestarts(Optimizer& opt, int64_t T_0, int64_t T_mult = 1, double eta_min = 0.0,
                              int64_t last_epoch = -1);
  void step() override;
  void step(int64_t epoch) override { step_to(double(epoch)); }
  void step_to(double epoch);

 protected:
  std::vector<double> get_lr() override;
};

// Learning rate (and momentum) between base and max over cycles: triangular, triangular2,
// exp_range, or a scale function of the cycle or the iteration.
class CyclicLR : public LRScheduler {
 public:
  struct Options {
    int64_t step_size_up = 2000;
    std::optional<int64_t> step_size_down;
    std::string mode = "triangular";
    double gamma = 1.0;
    std::function<double(double)> scale_fn;  // replaces mode's
    std::string scale_mode = "cycle";
    bool cycle_momentum = true;
    std::vector<double> base_momentum{0.8}, max_momentum{0.9};  // one value or one per group
  };
  CyclicLR(Optimizer& opt, std::vector<double> base_lr, std::vector<double> max_lr, Options o, int64_t last_epoch = -1);

 protected:
  std::vector<double> get_lr() override;
  std::function<double(double)> scale_fn_;
};

// The 1cycle policy: warm up to max_lr, anneal to min_lr (cos or linear), momentum the other way.
class OneCycleLR : public LRScheduler {
 public:
  struct Options {
    std::optional<int64_t> total_steps, epochs, steps_per_epoch;
    double pct_start = 0.3;
    std::string anneal_strategy = "cos";
    bool cycle_momentum = true;
    std::vector<double> base_momentum{0.85}, max_momentum{0.95};
    double div_factor = 25, final_div_factor = 1e4;
    bool three_phase = false;
  };
  OneCycleLR(Optimizer& opt, std::vector<double> max_lr, Options o, int64_t last_epoch = -1);

 protected:
  std::vector<double> get_lr() override;
  struct Phase { double end_step; const char *start_lr, *end_lr, *start_momentum, *end_momentum; };
  std::vector<Phase> phases_;
};

// Runs schedulers one after another, switching at the milestones (state_dict: its own values; the
// bindings add each scheduler's as torch's "_schedulers").
class SequentialLR : public LRScheduler {
 public:
  SequentialLR(Optimizer& opt, std::vector<std::shared_ptr<LRScheduler>> schedulers, std::vector<int64_t> milestones,
               int64_t last_epoch = -1);
  void step() override;
  Dict state_dict() const override;
  void load_state_dict(const Dict& sd) override;
  const std::vector<std::shared_ptr<LRScheduler>>& schedulers() const { return schedulers_; }

 protected:
  std::vector<double> get_lr() override { return group_lrs(); }
  std::vector<std::shared_ptr<LRScheduler>> schedulers_;
  std::vector<int64_t> milestones_;
};

// Steps every scheduler each step (their factors multiply).
class ChainedScheduler : public LRScheduler {
 public:
  ChainedScheduler(std::vector<std::shared_ptr<LRScheduler>> schedulers, Optimizer* opt = nullptr);
  void step() override;
  Dict state_dict() const override;
  void load_state_dict(const Dict& sd) override;
  const std::vector<std::shared_ptr<LRScheduler>>& schedulers() const { return schedulers_; }

 protected:
  std::vector<double> get_lr() override { return group_lrs(); }
  std::vector<std::shared_ptr<LRScheduler>> schedulers_;
};

// Cuts the learning rate by `factor` when a metric stops improving for `patience` epochs.
class ReduceLROnPlateau : public LRScheduler {
 public:
  struct Options {
    std::string mode = "min";
    double factor = 0.1;
    int64_t patience = 10;
    double threshold = 1e-4;
    std::string threshold_mode = "rel";
    int64_t cooldown = 0;
    std::vector<double> min_lr{0};  // one value or one per group
    double eps = 1e-8;
  };
  ReduceLROnPlateau(Optimizer& opt, Options o);
  void step(double metric);
  Dict state_dict() const override;

 protected:
  std::vector<double> get_lr() override { return group_lrs(); }
  std::vector<double> min_lrs_;
};

}  // namespace ember::optim::lr_scheduler
