// CPU kernels of the normalisation ops (kernels::norm_*).
#pragma once
#include "../../dispatch/kernels.h"

namespace ember::cpu {

void register_normalization_kernels();

}  // namespace ember::cpu
