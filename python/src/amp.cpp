// ember._C's autocast state (ember/autocast.h) and GradScaler's ops (ember/amp.h).
#include "bindings.h"
#include "ember/amp.h"
#include "ember/autocast.h"

namespace ember::py {

namespace {
// The device type of an autocast device string ("cpu", "cuda"); others raise as torch.
DeviceType device_type(std::string_view name) {
  if (name == "cpu") return DeviceType::CPU;
  if (name == "cuda") return DeviceType::CUDA;
  throw Error("Invalid device string: '" + std::string(name) + "'");
}
}  // namespace

void init_amp(nb::module_& m) {
  m.def("_is_autocast_enabled", [](std::string_view d) { return autocast::is_enabled(device_type(d)); });
  m.def("_set_autocast_enabled", [](std::string_view d, bool on) { autocast::set_enabled(device_type(d), on); });
  m.def("_get_autocast_dtype", [](std::string_view d) { return autocast::get_dtype(device_type(d)); });
  m.def("_set_autocast_dtype", [](std::string_view d, ScalarType t) { autocast::set_dtype(device_type(d), t); });
  m.def("is_autocast_cache_enabled", &autocast::is_cache_enabled);
  m.def("set_autocast_cache_enabled", &autocast::set_cache_enabled);
  m.def("clear_autocast_cache", &autocast::clear_cache);
  m.def("autocast_increment_nesting", &autocast::increment_nesting);
  m.def("autocast_decrement_nesting", &autocast::decrement_nesting);
  m.def("_amp_foreach_non_finite_check_and_unscale_",
        [](std::vector<Tensor> grads, Tensor found_inf, const Tensor& inv_scale) {
          _amp_foreach_non_finite_check_and_unscale_(grads, found_inf, inv_scale);
        });
  m.def("_amp_update_scale_", [](Tensor scale, Tensor growth_tracker, const Tensor& found_inf, double growth_factor,
                                 double backoff_factor, int64_t growth_interval) {
    return _amp_update_scale_(scale, growth_tracker, found_inf, growth_factor, backoff_factor, growth_interval);
  });
}

}  // namespace ember::py
