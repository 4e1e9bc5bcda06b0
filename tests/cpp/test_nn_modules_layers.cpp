// The layer modules through the C++ API: a small CNN built from Conv2d/BatchNorm2d/MaxPool2d/Dropout2d trained a
// step, reprs, running statistics, argument errors and the other layers' shapes (the Python tests compare values
// with torch).
#include <gtest/gtest.h>

#include "ember/ember.h"

using namespace ember;
namespace F = ember::nn::functional;

namespace {

struct SmallCnn : nn::Module {
  SmallCnn() : nn::Module("SmallCnn") {
    conv = register_module("conv", std::make_shared<nn::Conv2d>(3, 4, 3, 1, 1));
    bn = register_module("bn", std::make_shared<nn::BatchNorm2d>(4));
    pool = register_module("pool", std::make_shared<nn::MaxPool2d>(2));
    drop = register_module("drop", std::make_shared<nn::Dropout2d>(0.25));
    fc = register_module("fc", std::make_shared<nn::Linear>(4 * 4 * 4, 2));
  }
  Tensor forward(const Tensor& x) override {
    Tensor h = (*drop)((*pool)(F::relu((*bn)((*conv)(x)))));
    return (*fc)(h.flatten(1));
  }
  std::shared_ptr<nn::Conv2d> conv;
  std::shared_ptr<nn::BatchNorm2d> bn;
  std::shared_ptr<nn::MaxPool2d> pool;
  std::shared_ptr<nn::Dropout2d> drop;
  std::shared_ptr<nn::Linear> fc;
};

using Shape = std::vector<int64_t>;
Shape shape(const Tensor& t) { return t.sizes().vec(); }

std::vector<std::string> keys(const nn::StateDict& sd) {
  std::vector<std::string> out;
  for (auto& [k, v] : sd) out.push_back(k);
  return out;
}

}  // namespace

TEST(NnModulesLayers, SmallCnnTrainsAndTracksStatistics) {
  manual_seed(0);
  auto model = std::make_shared<SmallCnn>();
  EXPECT_EQ(keys(model->state_dict()),
            (std::vector<std::string>{"conv.weight", "conv.bias", "bn.weight", "bn.bias", "bn.running_mean",
                                      "bn.running_var", "bn.num_batches_tracked", "fc.weight", "fc.bias"}));
  EXPECT_EQ(shape(model->conv->weight), Shape({4, 3, 3, 3}));
  double bound = 1 / std::sqrt(27.0);  // kaiming_uniform_(a=sqrt(5)) over fan_in 27
  EXPECT_LE(model->conv->weight.abs().max().item<double>(), bound);
  Tensor x = randn({8, 3, 8, 8});
  Tensor y = tensor<int64_t>({0, 1, 0, 1, 1, 0, 0, 1});
  Tensor loss = F::cross_entropy(model->forward(x), y);
  loss.backward();
  EXPECT_TRUE(model->conv->weight.grad().defined());
  EXPECT_EQ(model->bn->num_batches_tracked.item<int64_t>(), 1);
  EXPECT_GT(model->bn->running_var.sum().item<double>(), 0.0);
  model->eval();
  Tensor a = model->forward(x), b = model->forward(x);  // eval: running stats, no dropout
  EXPECT_TRUE(equal(a, b));
  EXPECT_EQ(model->bn->num_batches_tracked.item<int64_t>(), 1);
}

TEST(NnModulesLayers, ReprsAsTorch) {
  EXPECT_EQ(nn::Conv2d(3, 4, {3, 2}, 1, "same").repr(),
            "Conv2d(3, 4, kernel_size=(3, 2), stride=(1, 1), padding=same)");
  EXPECT_EQ(nn::Conv1d(3, 6, 3, 2, 1, 1, 3, false, "reflect").repr(),
            "Conv1d(3, 6, kernel_size=(3,), stride=(2,), padding=(1,), groups=3, bias=False, padding_mode=reflect)");
  EXPECT_EQ(nn::ConvTranspose2d(3, 4, 3, 2, 0, 1).repr(),
            "ConvTranspose2d(3, 4, kernel_size=(3, 3), stride=(2, 2), output_padding=(1, 1))");
  EXPECT_EQ(nn::MaxPool2d(2).repr(), "MaxPool2d(kernel_size=2, stride=2, padding=0, dilation=1, ceil_mode=False)");
  EXPECT_EQ(nn::AvgPool1d(2).repr(), "AvgPool1d(kernel_size=(2,), stride=(2,), padding=(0,))");
  EXPECT_EQ(nn::AdaptiveAvgPool2d({-1, 3}).repr(), "AdaptiveAvgPool2d(output_size=(None, 3))");
  EXPECT_EQ(nn::BatchNorm1d(3, 1e-5, std::nullopt).repr(),
            "BatchNorm1d(3, eps=1e-05, momentum=None, affine=True, bias=True, track_running_stats=True)");
  EXPECT_EQ(nn::LayerNorm(IntArrayRef({2, 3})).repr(),
            "LayerNorm((2, 3), eps=1e-05, elementwise_affine=True, bias=True)");
  EXPECT_EQ(nn::LocalResponseNorm(2).repr(), "LocalResponseNorm(2, alpha=0.0001, beta=0.75, k=1.0)");
  EXPECT_EQ(nn::Dropout(0.25).repr(), "Dropout(p=0.25, inplace=False)");
  EXPECT_EQ(nn::Embedding(10, 3, -1).repr(), "Embedding(10, 3, padding_idx=9)");
  EXPECT_EQ(nn::ConstantPad1d(2, 3).repr(), "ConstantPad1d(padding=(2, 2), value=3)");
  EXPECT_EQ(nn::ZeroPad2d({1, 0, 2, 1}).repr(), "ZeroPad2d((1, 0, 2, 1))");
  EXPECT_EQ(nn::Upsample(std::nullopt, {2.0}).repr(), "Upsample(scale_factor=2.0, mode='nearest')");
  EXPECT_EQ(nn::Fold(3, 2).repr(), "Fold(output_size=3, kernel_size=2, dilation=1, padding=0, stride=1)");
}

TEST(NnModulesLayers, TorchErrors) {
  EXPECT_THROW(nn::Conv2d(3, 4, 3, 1, 0, 1, 2), ValueError);
  EXPECT_THROW(nn::Conv2d(3, 4, 3, 2, "same"), ValueError);
  EXPECT_THROW(nn::Conv2d(3, 4, 3, 1, 0, 1, 1, true, "mirror"), ValueError);
  EXPECT_THROW(nn::GroupNorm(3, 4), ValueError);
  EXPECT_THROW(nn::Dropout(1.5), ValueError);
  EXPECT_THROW(nn::Embedding(3, 2, 5), nn::AssertionError);
  nn::BatchNorm2d bn(3);
  EXPECT_THROW(bn.forward(randn({2, 3})), ValueError);
  nn::ConvTranspose2d up(2, 3, 3, 2, 1);
  EXPECT_THROW(up.forward(randn({1, 2, 4, 4}), IntArrayRef({20, 20})), ValueError);
}

TEST(NnModulesLayers, ShapesOfTheOtherLayers) {
  manual_seed(0);
  Tensor x = randn({2, 4, 6, 6});
  EXPECT_EQ(shape(nn::ConvTranspose2d(4, 3, 3, 2, 1).forward(x, IntArrayRef({12, 12}))), Shape({2, 3, 12, 12}));
  EXPECT_EQ(shape(nn::Conv2d(4, 2, 3, 1, 1, 1, 1, true, "circular").forward(x)), Shape({2, 2, 6, 6}));
  auto [values, indices] = nn::MaxPool2d(2, std::nullopt, 0, 1, true).forward_with_indices(x);
  EXPECT_EQ(shape(indices), Shape({2, 4, 3, 3}));
  EXPECT_EQ(shape(nn::AdaptiveMaxPool2d(2).forward(x)), Shape({2, 4, 2, 2}));
  EXPECT_EQ(shape(nn::LPPool2d(2, 2).forward(x)), Shape({2, 4, 3, 3}));
  EXPECT_EQ(shape(nn::GroupNorm(2, 4).forward(x)), shape(x));
  EXPECT_EQ(shape(nn::InstanceNorm2d(4).forward(x[0])), Shape({4, 6, 6}));
  EXPECT_EQ(shape(nn::Upsample(std::nullopt, {2.0}, true, "bilinear").forward(x)), Shape({2, 4, 12, 12}));
  EXPECT_EQ(shape(nn::PixelShuffle(2).forward(x)), Shape({2, 1, 12, 12}));
  EXPECT_EQ(shape(nn::ReflectionPad2d(1).forward(x)), Shape({2, 4, 8, 8}));
  EXPECT_EQ(shape(nn::Unfold(2).forward(x)), Shape({2, 16, 25}));
  EXPECT_EQ(shape(nn::ChannelShuffle(2).forward(x).select(1, 1)), Shape({2, 6, 6}));
  EXPECT_TRUE(equal(nn::ChannelShuffle(2).forward(x).select(1, 1), x.select(1, 2)));
  nn::Embedding emb(5, 3, 0);
  EXPECT_EQ(emb.weight[0].abs().sum().item<double>(), 0.0);
  EXPECT_EQ(shape(emb.forward(tensor<int64_t>({0, 4}))), Shape({2, 3}));
  auto pre = nn::Embedding::from_pretrained(ones({4, 2}));
  EXPECT_FALSE(pre->weight.requires_grad());
  Tensor a = randn({3, 5}), b = randn({3, 5});
  EXPECT_EQ(shape(nn::CosineSimilarity().forward(a, b)), Shape({3}));
  EXPECT_EQ(shape(nn::PairwiseDistance(2.0, 1e-6, true).forward(a, b)), Shape({3, 1}));
}
