// The kernel tables of the nn activations and losses (kernels.h), empty until the backends register.
#include "kernels.h"

namespace ember::kernels {

constinit KernelTable<ActivationFn> activation("activation");
constinit KernelTable<ActivationBackwardFn> activation_backward("activation_backward");
constinit KernelTable<NllLossFn> nll_loss("nll_loss");
constinit KernelTable<NllLossBackwardFn> nll_loss_backward("nll_loss_backward");
constinit KernelTable<RowLogSumExpFn> row_logsumexp("row_logsumexp");
constinit KernelTable<CrossEntropyBackwardFn> cross_entropy_backward("cross_entropy_backward");

}  // namespace ember::kernels
