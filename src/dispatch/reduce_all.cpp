// The kernel table of one-pass whole-tensor reductions (reduce_all.h).
#include "reduce_all.h"

namespace ember::kernels {

constinit KernelTable<ReduceAllFn> reduce_all("reduce_all");

}  // namespace ember::kernels
