// GradScaler's ops (ember/amp.h), composed of device-neutral tensor ops.
#include "ember/amp.h"

#include "ember/autograd.h"
#include "ember/creation.h"
#include "ember/errors.h"
#include "ember/ops.h"
#include "ember/reduce.h"
#include "ember/type_promotion.h"

namespace ember {

namespace {
void check_one_float(const Tensor& t, const char* name) {
  EMBER_CHECK(t.numel() == 1, Error, name, " must be a 1-element tensor.");
  EMBER_CHECK(t.dtype() == kFloat32, Error, name, " must be a float tensor.");
}
}  // namespace

void _amp_foreach_non_finite_check_and_unscale_(const std::vector<Tensor>& grads, Tensor& found_inf,
                                                const Tensor& inv_scale) {
  check_one_float(inv_scale, "inv_scale");
  check_one_float(found_inf, "found_inf");
  autograd::GradModeGuard no_grad(false);
  Tensor factor = inv_scale.reshape({});  // read at float precision by half-precision grads (mul's WideScalar)
  for (const Tensor& g : grads) {
    EMBER_CHECK(g.device() == inv_scale.device(), Error, "grads and inv_scale must be on the same device.");
    EMBER_CHECK(is_floating_point(g.dtype()), Error, "_amp_foreach_non_finite_check_and_unscale_ expects floating "
                "point grads, got ", dtype_info(g.dtype()).cpp_name);
    Tensor bad = any(logical_not(isfinite(g))).reshape(found_inf.sizes());
    found_inf.copy_(where(bad, wrapped_scalar(1.0), found_inf));
    Tensor(g).mul_(factor);
  }
}

Tensor& _amp_update_scale_(Tensor& scale, Tensor& growth_tracker, const Tensor& found_inf, double growth_factor,
                           double backoff_factor, int64_t growth_interval) {
  check_one_float(scale, "current_scale");
  EMBER_CHECK(growth_tracker.numel() == 1 && growth_tracker.dtype() == kInt32, Error,
              "growth_tracker must be a 1-element int32 tensor.");
  check_one_float(found_inf, "found_inf");
  autograd::GradModeGuard no_grad(false);
  Tensor inf = ne(found_inf, wrapped_scalar(0)).reshape(scale.sizes());
  Tensor counted = add(growth_tracker, wrapped_scalar(1));
  Tensor grow = logical_and(logical_not(inf), eq(counted, wrapped_scalar(growth_interval)));
  Tensor grown = mul(scale, wrapped_scalar(growth_factor));
  Tensor kept = where(logical_and(grow, isfinite(grown)), grown, scale);
  Tensor new_scale = where(inf, mul(scale, wrapped_scalar(backoff_factor)), kept);
  growth_tracker.copy_(where(logical_or(inf, grow), zeros_like(growth_tracker), counted));
  scale.copy_(new_scale);
  return scale;
}

}  // namespace ember
