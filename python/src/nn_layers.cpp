// ember.nn.functional's pad, embedding, embedding_bag, one_hot, normalize, cosine_similarity, pairwise_distance,
// scaled_dot_product_attention, pixel_shuffle, pixel_unshuffle, unfold, fold and interpolate's upsampling
// (ember/nn/padding.h, embedding.h, distance.h, attention.h, vision.h), with torch's constant_pad_nd, embedding,
// embedding_renorm_, cosine_similarity, pairwise_distance, pixel_shuffle and pixel_unshuffle.
#include "bindings.h"
#include "ember/nn/attention.h"
#include "ember/nn/distance.h"
#include "ember/nn/embedding.h"
#include "ember/nn/padding.h"
#include "ember/nn/vision.h"

namespace ember::py {

namespace {

using namespace nb::literals;

// A padding argument: a sequence of ints.
DimVector pads(nb::handle p) { return int_list(p, "pad", false); }

}  // namespace

void init_nn_layers(nb::module_& m, nb::module_& nn) {
  namespace F = nn::functional;
  nn.def("pad", [](const Tensor& x, nb::handle p, std::string_view mode, std::optional<double> value) {
    return F::pad(x, pads(p), mode, value);
  }, "input"_a, "pad"_a, "mode"_a = "constant", nb::arg("value").none() = nb::none());
  m.def("constant_pad_nd", [](const Tensor& x, nb::handle p, const Scalar& value) {
    return constant_pad_nd(x, pads(p), value);
  }, "input"_a, "pad"_a, "value"_a = 0);

  nn.def("embedding", [](const Tensor& input, const Tensor& weight, std::optional<int64_t> padding_idx,
                         std::optional<double> max_norm, double norm_type, bool scale_grad_by_freq, bool sparse) {
    if (padding_idx) {  // F.embedding's assert
      int64_t rows = weight.dim() > 0 ? weight.size(0) : 0;
      if (*padding_idx >= rows || *padding_idx < -rows) {
        PyErr_SetString(PyExc_AssertionError, "Padding_idx must be within num_embeddings");
        throw nb::python_error();
      }
    }
    return F::embedding(input, weight, padding_idx, max_norm, norm_type, scale_grad_by_freq, sparse);
  }, "input"_a, "weight"_a, nb::arg("padding_idx").none() = nb::none(), nb::arg("max_norm").none() = nb::none(),
     "norm_type"_a = 2.0, "scale_grad_by_freq"_a = false, "sparse"_a = false);
  m.def("embedding", &ember::embedding, "weight"_a, "indices"_a, "padding_idx"_a = -1, "scale_grad_by_freq"_a = false,
        "sparse"_a = false);
  m.def("embedding_renorm_", [](nb::handle self, const Tensor& indices, double max_norm, double norm_type) {
    embedding_renorm_(nb::cast<Tensor&>(self), indices, max_norm, norm_type);
    return nb::borrow(self);
  }, "input"_a, "indices"_a, "max_norm"_a, "norm_type"_a);
  nn.def("embedding_bag", [](const Tensor& input, const Tensor& weight, const std::optional<Tensor>& offsets,
                             std::optional<double> max_norm, double norm_type, bool scale_grad_by_freq,
                             std::string_view mode, bool sparse, const std::optional<Tensor>& psw,
                             bool include_last_offset, std::optional<int64_t> padding_idx) {
    return F::embedding_bag(input, weight, offsets, max_norm, norm_type, scale_grad_by_freq, mode, sparse, psw,
                            include_last_offset, padding_idx);
  }, "input"_a, "weight"_a, nb::arg("offsets").none() = nb::none(), nb::arg("max_norm").none() = nb::none(),
     "norm_type"_a = 2.0, "scale_grad_by_freq"_a = false, "mode"_a = "mean", "sparse"_a = false,
     nb::arg("per_sample_weights").none() = nb::none(), "include_last_offset"_a = false,
     nb::arg("padding_idx").none() = nb::none());
  nn.def("one_hot", &F::one_hot, "tensor"_a, "num_classes"_a = -1);

  nn.def("normalize", [](const Tensor& x, double p, int64_t dim, double eps, nb::handle out) -> nb::object {
    if (out.is_none()) return nb::cast(F::normalize(x, p, dim, eps));
    F::normalize_out(nb::cast<Tensor&>(out), x, p, dim, eps);
    return nb::borrow(out);
  }, "input"_a, "p"_a = 2.0, "dim"_a = 1, "eps"_a = 1e-12, "out"_a = nb::none());
  for (nb::module_* mod : {&nn, &m}) {
    mod->def("cosine_similarity", &F::cosine_similarity, "x1"_a, "x2"_a, "dim"_a = 1, "eps"_a = 1e-8);
    mod->def("pairwise_distance", &F::pairwise_distance, "x1"_a, "x2"_a, "p"_a = 2.0, "eps"_a = 1e-6,
             "keepdim"_a = false);
  }
}

}  // namespace ember::py

namespace ember::py {

void init_nn_attention(nb::module_& nn) {
  using namespace nb::literals;
  nn.def("scaled_dot_product_attention", &nn::functional::scaled_dot_product_attention, "query"_a, "key"_a, "value"_a,
         nb::arg("attn_mask").none() = nb::none(), "dropout_p"_a = 0.0, "is_causal"_a = false,
         nb::arg("scale").none() = nb::none(), "enable_gqa"_a = false);
}

}  // namespace ember::py

namespace ember::py {

void init_nn_vision(nb::module_& m, nb::module_& nn) {
  using namespace nb::literals;
  for (nb::module_* mod : {&nn, &m}) {
    mod->def("pixel_shuffle", &nn::functional::pixel_shuffle, "input"_a, "upscale_factor"_a);
    mod->def("pixel_unshuffle", &nn::functional::pixel_unshuffle, "input"_a, "downscale_factor"_a);
  }
  // unfold / fold take an int or a pair for each size.
  auto pair = [](nb::handle h, const char* name) { return int_list(h, name); };
  nn.def("unfold", [pair](const Tensor& x, nb::handle k, nb::handle d, nb::handle p, nb::handle s) {
    return nn::functional::unfold(x, pair(k, "kernel_size"), pair(d, "dilation"), pair(p, "padding"), pair(s, "stride"));
  }, "input"_a, "kernel_size"_a, "dilation"_a = 1, "padding"_a = 0, "stride"_a = 1);
  nn.def("fold", [pair](const Tensor& x, nb::handle o, nb::handle k, nb::handle d, nb::handle p, nb::handle s) {
    return nn::functional::fold(x, pair(o, "output_size"), pair(k, "kernel_size"), pair(d, "dilation"),
                                pair(p, "padding"), pair(s, "stride"));
  }, "input"_a, "output_size"_a, "kernel_size"_a, "dilation"_a = 1, "padding"_a = 0, "stride"_a = 1);
  // interpolate's kernels (python/ember/nn/_interpolate.py handles its arguments).
  nn.def("_upsample", [](const Tensor& x, nb::handle size, std::string_view mode, bool align_corners,
                         std::optional<std::vector<double>> scales) {
    auto m = mode == "nearest" ? nn::functional::UpsampleMode::Nearest
             : mode == "nearest-exact" ? nn::functional::UpsampleMode::NearestExact
                                      : nn::functional::UpsampleMode::Linear;
    return nn::functional::upsample(x, int_list(size, "output_size"), m, align_corners, scales.value_or(std::vector<double>{}));
  }, "input"_a, "output_size"_a, "mode"_a, "align_corners"_a, nb::arg("scales").none());
}

}  // namespace ember::py
