// The optimizer step table, empty until the backends register (constant-initialised).
#include "optim_kernels.h"

namespace ember::kernels {

constinit KernelTable<OptimStepFn> optim_step("optim_step");

}  // namespace ember::kernels
