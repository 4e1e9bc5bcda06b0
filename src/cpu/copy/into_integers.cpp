// Copies into a destination of a integral (bool included) dtype, from any dtype.
#include "copy_loops.h"

namespace ember::cpu {

void copy_into_integers(const StridedPlan<2>& plan, ScalarType dst, ScalarType src) {
  visit_dtype(dst, [&]<typename D>(D) {
    if constexpr (std::is_integral_v<D>) {
      visit_dtype(src, [&]<typename S>(S) { run_copy<D, S>(plan); });
    } else {
      throw Error("copy_into_integers: wrong destination dtype");
    }
  });
}

}  // namespace ember::cpu
