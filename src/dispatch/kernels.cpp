// The kernel tables, empty until the backends register (constant-initialised, so registration at load
// time never runs before them).
#include "kernels.h"
#include "scan_kernel.h"

namespace ember::kernels {

constinit KernelTable<BinaryFn> binary("binary");
constinit KernelTable<PowScalarFn> pow_scalar("pow_scalar");
#define EMBER_UNARY_OP(name, kind, expr) constinit KernelTable<UnaryFn> name(#name);
#include "ember/unary_ops.def"
#undef EMBER_UNARY_OP
constinit KernelTable<CopyFn> copy("copy");
constinit KernelTable<FillFn> fill("fill");
constinit KernelTable<WhereFn> where("where");
constinit KernelTable<FusedPointwiseFn> fused_pointwise("fused_pointwise");
constinit KernelTable<AffineFn> quantize("quantize");
constinit KernelTable<AffineFn> dequantize("dequantize");
constinit KernelTable<ReduceFn> reduce("reduce");
constinit KernelTable<ArgExtremumFn> arg_extremum("arg_extremum");
constinit KernelTable<SoftmaxFn> softmax("softmax");
constinit KernelTable<GemmFn> gemm("gemm");
constinit KernelTable<GemmFn> gemm_batched("gemm_batched");
constinit KernelTable<IndexGatherFn> index_gather("index_gather");
constinit KernelTable<IndexScatterFn> index_scatter("index_scatter");
constinit KernelTable<SortFn> sort("sort");
constinit KernelTable<TopkFn> topk("topk");
constinit KernelTable<RowStatFn> row_stat("row_stat");
constinit KernelTable<CumExtremumFn> cum_extremum("cum_extremum");
constinit KernelTable<SearchSortedFn> searchsorted("searchsorted");
constinit KernelTable<HistcFn> histc("histc");
constinit KernelTable<UniqueRunsFn> unique_runs("unique_runs");
constinit KernelTable<SvdFn> svd("svd");

}  // namespace ember::kernels

namespace ember::kernels {
constinit KernelTable<TriangleFn> triangle("triangle");
constinit KernelTable<ScatterFn> scatter("scatter");
constinit KernelTable<MaskedSelectFn> masked_select("masked_select");
}  // namespace ember::kernels
namespace ember::kernels {
constinit KernelTable<ConvForwardFn> conv_forward("conv_forward");
constinit KernelTable<ConvBackwardDataFn> conv_backward_data("conv_backward_data");
constinit KernelTable<ConvBackwardWeightsFn> conv_backward_weights("conv_backward_weights");
constinit KernelTable<MaxPoolFn> max_pool("max_pool");
constinit KernelTable<AvgPoolFn> avg_pool("avg_pool");
constinit KernelTable<MaxPoolBackwardFn> max_pool_backward("max_pool_backward");
constinit KernelTable<AvgPoolBackwardFn> avg_pool_backward("avg_pool_backward");
}  // namespace ember::kernels
namespace ember::kernels {
constinit KernelTable<ConvBackwardFn> conv_backward("conv_backward");
}  // namespace ember::kernels
namespace ember::kernels {
constinit KernelTable<ScanFn> scan("scan");
}  // namespace ember::kernels
