// The kernel table of device random fills (random_kernels.h).
#include "random_kernels.h"

namespace ember::kernels {

constinit KernelTable<RandomFillFn> random_fill("random_fill");

}  // namespace ember::kernels
