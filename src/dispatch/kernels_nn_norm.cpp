// The kernel tables of the nn normalisation, dropout and embedding ops (declared in kernels.h).
#include "kernels.h"

namespace ember::kernels {

constinit KernelTable<NormStatsFn> norm_stats("norm_stats");
constinit KernelTable<NormAffineFn> norm_affine("norm_affine");
constinit KernelTable<NormGradSumsFn> norm_grad_sums("norm_grad_sums");
constinit KernelTable<NormGradInputFn> norm_grad_input("norm_grad_input");

}  // namespace ember::kernels
