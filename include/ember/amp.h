#pragma once
// The ops under GradScaler (torch's _amp_foreach_non_finite_check_and_unscale_ and _amp_update_scale_): tensor ops
// only, so they run on the tensors' device without a host sync.
#include "ember/tensor.h"

#include <vector>

namespace ember {

// Sets found_inf (a one-element float32 tensor) to 1 when any grad holds an inf or NaN; multiplies every grad by
// inv_scale (one-element float32) in place.
void _amp_foreach_non_finite_check_and_unscale_(const std::vector<Tensor>& grads, Tensor& found_inf,
                                                const Tensor& inv_scale);

// GradScaler's scale update in place: backs off on found_inf (tracker reset), else counts successful steps and grows
// the scale every growth_interval of them (unless the grown scale is not finite). Returns scale.
Tensor& _amp_update_scale_(Tensor& scale, Tensor& growth_tracker, const Tensor& found_inf, double growth_factor,
                           double backoff_factor, int64_t growth_interval);

}  // namespace ember
