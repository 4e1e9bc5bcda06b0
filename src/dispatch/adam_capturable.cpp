// The kernel table of capturable Adam's fused update (adam_capturable.h).
#include "adam_capturable.h"

namespace ember::kernels {

constinit KernelTable<AdamCapturableFn> adam_capturable("adam_capturable");

}  // namespace ember::kernels
