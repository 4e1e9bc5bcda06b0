// ember._C._vision: the image transform kernels (ember.vision.transforms.functional calls them after checking
// arguments), the C++ transform pipeline and the C++ MNIST dataset for the C++ loader.
#include <nanobind/stl/array.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/shared_ptr.h>

#include "bindings.h"
#include "ember/vision/datasets.h"

namespace ember::py {

namespace {

using vision::Interpolation;
using vision::PadMode;

Interpolation interpolation(std::string_view name) {
  if (name == "nearest") return Interpolation::Nearest;
  if (name == "bilinear") return Interpolation::Bilinear;
  throw ValueError(str("interpolation should be nearest or bilinear, got ", name));
}

using Pipeline = std::vector<std::shared_ptr<vision::Transform>>;
std::vector<std::shared_ptr<const vision::Transform>> constant(const Pipeline& p) { return {p.begin(), p.end()}; }

template <typename... Base>
void bind_mnist(nb::module_& v) {
  using nb::arg;
  nb::class_<vision::MNIST, Base...>(v, "MNIST")
      .def("__init__", [](vision::MNIST* self, Tensor images, Tensor labels, const Pipeline& transforms) {
        new (self) vision::MNIST(std::move(images), std::move(labels), constant(transforms));
      }, arg("images"), arg("labels"), arg("transforms") = Pipeline{})
      .def("__len__", &vision::MNIST::size)
      .def("__getitem__", [](vision::MNIST& d, int64_t i) {
        data::Example e = d.get(i);
        return std::make_pair(e.data, e.target);
      }, arg("index"), nb::call_guard<nb::gil_scoped_release>())
      .def("get_batch", [](vision::MNIST& d, std::vector<int64_t> indices) {
        data::Example e = d.get_batch(indices);
        return std::make_pair(e.data, e.target);
      }, arg("indices"), nb::call_guard<nb::gil_scoped_release>())
      .def_prop_ro("images", &vision::MNIST::images)
      .def_prop_ro("labels", &vision::MNIST::labels);
}

}  // namespace

void init_vision(nb::module_& m) {
  nb::module_ v = m.def_submodule("_vision", "ember.vision's C++ kernels and datasets");
  using nb::arg;
  v.def("read_idx", &vision::read_idx, arg("path"), nb::call_guard<nb::gil_scoped_release>());
  v.def("crop_pad", [](const Tensor& img, std::vector<int64_t> tops, std::vector<int64_t> lefts, int64_t h, int64_t w,
                       std::string_view mode, double fill) {
    return vision::crop_pad(img, tops, lefts, h, w, vision::pad_mode(mode), fill);
  }, arg("img"), arg("tops"), arg("lefts"), arg("height"), arg("width"), arg("padding_mode") = "constant", arg("fill") = 0.0);
  v.def("pad", [](const Tensor& img, std::vector<int64_t> ltrb, std::string_view mode, double fill) {
    return vision::pad(img, ltrb, vision::pad_mode(mode), fill);
  }, arg("img"), arg("padding"), arg("padding_mode") = "constant", arg("fill") = 0.0);
  v.def("crop", &vision::crop, arg("img"), arg("top"), arg("left"), arg("height"), arg("width"));
  v.def("center_crop", &vision::center_crop, arg("img"), arg("height"), arg("width"));
  v.def("hflip", &vision::hflip, arg("img"));
  v.def("vflip", &vision::vflip, arg("img"));
  v.def("normalize", [](const Tensor& img, std::vector<double> mean, std::vector<double> std) {
    return vision::normalize(img, mean, std);
  }, arg("tensor"), arg("mean"), arg("std"));
  v.def("resize", [](const Tensor& img, int64_t h, int64_t w, std::string_view mode, bool antialias) {
    return vision::resize(img, h, w, interpolation(mode), antialias);
  }, arg("img"), arg("height"), arg("width"), arg("interpolation") = "bilinear", arg("antialias") = true);
  v.def("erase", &vision::erase, arg("img"), arg("i"), arg("j"), arg("h"), arg("w"), arg("v"));
  v.def("rgb_to_grayscale", &vision::rgb_to_grayscale, arg("img"), arg("num_output_channels") = 1);
  v.def("adjust_brightness", &vision::adjust_brightness, arg("img"), arg("brightness_factor"));
  v.def("adjust_contrast", &vision::adjust_contrast, arg("img"), arg("contrast_factor"));
  v.def("adjust_saturation", &vision::adjust_saturation, arg("img"), arg("saturation_factor"));
  v.def("adjust_hue", &vision::adjust_hue, arg("img"), arg("hue_factor"));
  v.def("rotate", [](const Tensor& img, double angle, std::string_view mode, bool expand,
                     std::optional<std::array<double, 2>> center, std::vector<double> fill) {
    return vision::rotate(img, angle, interpolation(mode), expand, center, fill);
  }, arg("img"), arg("angle"), arg("interpolation") = "nearest", arg("expand") = false, arg("center") = nb::none(),
     arg("fill") = std::vector<double>{});
  v.def("convert_image_dtype", &vision::convert_image_dtype, arg("image"), arg("dtype"));

  nb::class_<vision::Transform>(v, "Transform");
  nb::class_<vision::RandomCrop, vision::Transform>(v, "RandomCrop")
      .def("__init__", [](vision::RandomCrop* self, int64_t h, int64_t w, std::array<int64_t, 4> ltrb, std::string_view mode,
                          double fill) { new (self) vision::RandomCrop(h, w, ltrb, vision::pad_mode(mode), fill); },
           arg("height"), arg("width"), arg("padding"), arg("padding_mode") = "constant", arg("fill") = 0.0);
  nb::class_<vision::RandomFlip, vision::Transform>(v, "RandomFlip")
      .def(nb::init<double, bool>(), arg("p"), arg("vertical") = false);
  nb::class_<vision::Normalize, vision::Transform>(v, "Normalize")
      .def(nb::init<std::vector<double>, std::vector<double>>(), arg("mean"), arg("std"));
  v.def("apply_transforms", [](const Pipeline& transforms, const Tensor& batch) {
    return vision::apply_transforms(constant(transforms), batch);
  }, arg("transforms"), arg("batch"));

  // ember._C._data.Dataset (the C++ loader's dataset type) is MNIST's base where that binding is loaded first.
  if (nb::type<data::Dataset>().is_valid()) bind_mnist<data::Dataset>(v);
  else bind_mnist<>(v);
}

}  // namespace ember::py
