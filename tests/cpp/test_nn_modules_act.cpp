// The C++ face of ember::nn's activation, loss and attention modules.
#include <gtest/gtest.h>

#include "ember/ember.h"

using namespace ember;
namespace F = nn::functional;

namespace {
bool close(const Tensor& a, const Tensor& b, double tol = 1e-6) { return allclose(a, b, tol, tol); }
}  // namespace

TEST(NnModulesAct, ActivationsCallTheirFunctionals) {
  manual_seed(0);
  Tensor x = randn({3, 4});
  EXPECT_TRUE(close(nn::ReLU()(x), F::relu(x)));
  EXPECT_TRUE(close(nn::LeakyReLU(0.2)(x), F::leaky_relu(x, 0.2)));
  EXPECT_TRUE(close(nn::GELU("tanh")(x), F::gelu(x, "tanh")));
  EXPECT_TRUE(close(nn::Softmax(1)(x), F::softmax(x, 1)));
  EXPECT_TRUE(close(nn::Hardtanh(-0.5, 0.5)(x), F::hardtanh(x, -0.5, 0.5)));
  EXPECT_TRUE(close(nn::ReLU6()(x * 10), F::hardtanh(x * 10, 0, 6)));
  EXPECT_TRUE(close(nn::GLU()(x), F::glu(x, -1)));
  nn::ReLU inplace(true);
  Tensor y = x.clone();
  EXPECT_TRUE(inplace(y).is_same(y));
  EXPECT_EQ(nn::LeakyReLU(0.2, true).repr(), "LeakyReLU(negative_slope=0.2, inplace=True)");
  EXPECT_EQ(nn::ELU().repr(), "ELU(alpha=1.0)");
  EXPECT_EQ(nn::Softplus(2, 1e-5).repr(), "Softplus(beta=2.0, threshold=1e-05)");
  EXPECT_EQ(nn::Softmax().repr(), "Softmax(dim=None)");
  EXPECT_THROW(nn::Hardtanh(1, 0), ValueError);
  EXPECT_THROW(nn::Softmax2d()(x), ValueError);
}

TEST(NnModulesAct, PReLUHasAParameter) {
  nn::PReLU p(3, 0.1);
  ASSERT_EQ(p.state_dict().size(), 1u);
  EXPECT_EQ(p.state_dict()[0].first, "weight");
  EXPECT_TRUE(close(p.weight, full({3}, 0.1)));
  EXPECT_EQ(p.repr(), "PReLU(num_parameters=3)");
}

TEST(NnModulesAct, LossesReduceAndKeepWeightsAsBuffers) {
  manual_seed(0);
  Tensor x = randn({4, 3}), t = tensor<int64_t>({0, 2, 1, 2});
  nn::CrossEntropyLoss ce(tensor({1.0f, 2.0f, 3.0f}), -100, "sum");
  EXPECT_TRUE(close(ce.forward(x, t), F::cross_entropy(x, t, tensor({1.0f, 2.0f, 3.0f}), -100, Reduction::Sum)));
  EXPECT_EQ(ce.state_dict().size(), 1u);
  EXPECT_EQ(nn::NLLLoss().state_dict().size(), 0u);
  nn::BCEWithLogitsLoss bce({}, "mean", ones({3}));
  EXPECT_EQ(bce.state_dict()[0].first, "pos_weight");
  Tensor y = rand({4, 3});
  EXPECT_TRUE(close(nn::MSELoss("none").forward(x, y), (x - y) * (x - y)));
  nn::MSELoss bad("bogus");
  EXPECT_THROW(bad.forward(x, y), ValueError);
  EXPECT_THROW(nn::MultiMarginLoss(3), ValueError);
  nn::TripletMarginWithDistanceLoss tl;
  EXPECT_EQ(tl.repr(), "TripletMarginWithDistanceLoss(\n  (distance_function): PairwiseDistance()\n)");
  Tensor a = randn({4, 5}), p = randn({4, 5}), n = randn({4, 5});
  EXPECT_TRUE(close(tl.forward(a, p, n), nn::TripletMarginLoss().forward(a, p, n), 1e-5));
}

TEST(NnModulesAct, MultiheadAttentionShapesAndMasks) {
  manual_seed(0);
  nn::MultiheadAttention mha(8, 2, 0.0, true, false, false, std::nullopt, std::nullopt, true);
  std::vector<std::string> keys;
  for (auto& [k, v] : mha.state_dict()) keys.push_back(k);
  EXPECT_EQ(keys, (std::vector<std::string>{"in_proj_weight", "in_proj_bias", "out_proj.weight", "out_proj.bias"}));
  Tensor x = randn({2, 5, 8});
  auto [out, w] = mha.forward(x, x, x);
  EXPECT_EQ(DimVector(out.sizes()), DimVector({2, 5, 8}));
  EXPECT_EQ(DimVector(w.sizes()), DimVector({2, 5, 5}));
  EXPECT_TRUE(close(w.sum({-1}), ones({2, 5}), 1e-5));
  Tensor causal = ones({5, 5}).triu(1).to(kBool);
  auto [masked, mw] = mha.forward(x, x, x, {}, true, causal);
  EXPECT_EQ(mw.index({0, 0, 1}).item().to<double>(), 0.0);  // the first query sees only the first key
  auto [fast, none] = mha.forward(x, x, x, {}, false, causal, true, true);
  EXPECT_FALSE(none.defined());
  EXPECT_TRUE(close(fast, masked, 1e-5));
  EXPECT_THROW(nn::MultiheadAttention(5, 2), nn::AssertionError);
  EXPECT_THROW(mha.forward(x, x, x, {}, true, {}, true, true), Error);
}

TEST(NnModulesAct, TransformerEncoderClonesLayers) {
  manual_seed(0);
  nn::TransformerEncoderLayer layer(8, 2, 16, 0.0);
  EXPECT_EQ(layer.state_dict().size(), 12u);
  nn::TransformerEncoder encoder(layer, 2);
  EXPECT_EQ(encoder.state_dict().size(), 24u);
  EXPECT_EQ(encoder.state_dict()[0].first, "layers.0.self_attn.in_proj_weight");
  EXPECT_TRUE(close(encoder.state_dict()[12].second, layer.self_attn->in_proj_weight));
  Tensor x = randn({5, 3, 8});
  Tensor y = encoder.forward(x, nn::generate_square_subsequent_mask(5), {});
  EXPECT_EQ(DimVector(y.sizes()), DimVector({5, 3, 8}));
  EXPECT_TRUE(close(y, encoder.forward(x, {}, {}, false), 1e-5) == false);  // the mask matters
  EXPECT_THROW(nn::activation_from_name("tanh"), Error);
}

TEST(NnModulesAct, TransformerEncodesAndDecodes) {
  manual_seed(0);
  nn::Transformer::Options o;
  o.d_model = 8;
  o.nhead = 2;
  o.num_encoder_layers = 1;
  o.num_decoder_layers = 2;
  o.dim_feedforward = 16;
  o.dropout = 0.0;
  nn::Transformer model(o);
  EXPECT_EQ(model.decoder->layers->size(), 2u);
  Tensor y = model.forward(randn({6, 2, 8}), randn({4, 2, 8}), {}, nn::generate_square_subsequent_mask(4));
  EXPECT_EQ(DimVector(y.sizes()), DimVector({4, 2, 8}));
  EXPECT_THROW(model.forward(randn({6, 2, 8}), randn({4, 3, 8})), Error);
}
