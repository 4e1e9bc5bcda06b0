// ember::optim::lr_scheduler from C++: schedules set the optimizer's group rates; state round trip.
#include <gtest/gtest.h>

#include "ember/ember.h"

using namespace ember;
namespace S = optim::lr_scheduler;

namespace {

std::vector<Tensor> one_param() { return {nn::make_parameter(zeros({2}))}; }
double lr(optim::Optimizer& o) { return o.param_groups()[0]->number("lr"); }

}  // namespace

TEST(OptimLrScheduler, StepAndCosineSetGroupRates) {
  optim::SGD opt(one_param(), {{"lr", 1.0}});
  S::StepLR s(opt, 2, 0.5);
  std::vector<double> seen;
  for (int i = 0; i < 5; ++i) {
    opt.step();
    s.step();
    seen.push_back(lr(opt));
  }
  EXPECT_EQ(seen, (std::vector<double>{1.0, 0.5, 0.5, 0.25, 0.25}));
  EXPECT_EQ(s.get_last_lr(), std::vector<double>{0.25});
  EXPECT_EQ(s.last_epoch(), 5);

  optim::SGD opt2(one_param(), {{"lr", 1.0}});
  S::CosineAnnealingLR c(opt2, 4);
  for (int i = 0; i < 4; ++i) {
    opt2.step();
    c.step();
  }
  EXPECT_NEAR(lr(opt2), 0.0, 1e-12);
}

TEST(OptimLrScheduler, OneCycleCyclesAdamBetas) {
  optim::Adam opt(one_param());
  S::OneCycleLR s(opt, {0.1}, {.total_steps = 10});
  EXPECT_NEAR(lr(opt), 0.1 / 25, 1e-12);
  EXPECT_DOUBLE_EQ(opt.param_groups()[0]->element("betas", 0), 0.95);
  for (int i = 0; i < 2; ++i) {
    opt.step();
    s.step();
  }
  EXPECT_NEAR(lr(opt), 0.1, 1e-12);  // the peak at pct_start * total - 1
  EXPECT_NEAR(opt.param_groups()[0]->element("betas", 0), 0.85, 1e-12);
}

TEST(OptimLrScheduler, LambdaPlateauAndState) {
  optim::SGD opt(one_param(), {{"lr", 1.0}});
  S::LambdaLR l(opt, {[](int64_t e) { return 1.0 / double(e + 1); }});
  opt.step();
  l.step();
  l.step();
  EXPECT_DOUBLE_EQ(lr(opt), 1.0 / 3);
  optim::Dict sd = l.state_dict();
  EXPECT_EQ(sd.number("last_epoch"), 2);

  optim::SGD opt2(one_param(), {{"lr", 1.0}});
  S::ReduceLROnPlateau p(opt2, {.factor = 0.5, .patience = 1});
  for (double loss : {3.0, 3.0, 3.0}) p.step(loss);
  EXPECT_DOUBLE_EQ(lr(opt2), 0.5);
  EXPECT_THROW(S::StepLR(opt2, 3, 0.1, 4), Error);  // resuming needs initial_lr in every group
  optim::SGD opt3(one_param());
  EXPECT_THROW(S::CosineAnnealingWarmRestarts(opt3, 0), ValueError);
}
