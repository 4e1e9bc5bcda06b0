// Math ops: logit, xlogy, hypot, signbit, nansum, nanmean, logcumsumexp, diff, cross, kron, tensordot, cdist, dist
// and the linalg norms.
#include "bindings.h"

namespace ember::py {

void init_math_ops(nb::module_& m, nb::class_<Tensor>& cls) {}

}  // namespace ember::py
