// Every kernel family the op layer calls, as a KernelTable keyed by device type (kernel_table.h), with
// the device-neutral types their signatures use. src/ops reaches kernels only through these tables.
#pragma once
#include <optional>
#include <span>
#include <string_view>

#include "../iter/tensor_iterator.h"
#include "ember/ops.h"
#include "ember/scalar.h"
#include "kernel_table.h"

namespace ember {

// One per row of binary_ops.def, then the two rounding modes of div (DivFloor differs from FloorDivide
// only in being differentiable; DivTrunc rounds toward 0).
enum class BinaryOp {
#define EMBER_BINARY_OP(name, Op, kind, expr, python, flags) Op,
#include "ember/binary_ops.def"
#undef EMBER_BINARY_OP
  DivFloor, DivTrunc,
};

// A binary op's kind and flags, from its row (see binary_ops.def); div's rounding modes are Divide ops.
enum class BinaryKind { Arith, Divide, Float, Bitwise, Compare, Logical };
constexpr BinaryKind binary_kind(BinaryOp op) {
  switch (op) {
#define EMBER_BINARY_OP(name, Op, kind, expr, python, flags) case BinaryOp::Op: return BinaryKind::kind;
#include "ember/binary_ops.def"
#undef EMBER_BINARY_OP
    default: return BinaryKind::Divide;
  }
}
constexpr const char* binary_op_name(BinaryOp op) {
  switch (op) {
#define EMBER_BINARY_OP(name, Op, kind, expr, python, flags) case BinaryOp::Op: return #name;
#include "ember/binary_ops.def"
#undef EMBER_BINARY_OP
    default: return "div";
  }
}
constexpr unsigned binary_op_flags(BinaryOp op) {
  using namespace binary_flags;
  switch (op) {
#define EMBER_BINARY_OP(name, Op, kind, expr, python, flags) case BinaryOp::Op: return flags;
#include "ember/binary_ops.def"
#undef EMBER_BINARY_OP
    default: return WideScalar;  // DivFloor, DivTrunc
  }
}

// gt and ge have no kernels of their own: a > b runs as b < a and a >= b as b <= a, the same kernels with the
// inputs swapped. The op a kernel runs and whether it swaps.
constexpr bool is_swapped_row(BinaryOp op) { return op == BinaryOp::Gt || op == BinaryOp::Ge; }
constexpr BinaryOp unswapped_row(BinaryOp op) {
  return op == BinaryOp::Gt ? BinaryOp::Lt : op == BinaryOp::Ge ? BinaryOp::Le : op;
}

// How a unary op treats dtypes (see unary_ops.def).
enum class UnaryKind { Float, Same, SameBool, BoolToLong, FloatOnly, Integral };
// Of the unary ops, torch implements only abs for float8 (the others raise NotImplementedError).
constexpr bool unary_takes_float8(std::string_view name) { return name == "abs"; }

enum class ReduceOp { Sum, Prod, Max, Min, All, Any };
// One row's order statistic: kthvalue (torch's quickselect, `k` from 1), median/nanmedian (the lower median, its
// index by stable rank; a NaN row gives its first NaN unless ignore_nan), mode (the most frequent, smallest on a
// tie, torch's index). values (R, rows' dtype), indices (R, int64).
enum class RowStat { Kth, Median, NanMedian, Mode };
// The pointwise ops torch computes in one pass (functors in src/functors/pointwise.h), their iterator inputs and the
// kernel's `values`: lerp (start, end, weight), lerp with a number weight (start, end; the weight), addcmul and
// addcdiv (self, tensor1, tensor2; the scale), clamp of a float tensor by numbers (x; min, max, infinite where
// absent) and nan_to_num (x; the replacements of NaN, +inf and -inf, rounded to x's dtype unchecked).
enum class FusedPointwise { Lerp, LerpScalar, Addcmul, Addcdiv, Clamp, NanToNum };

namespace kernels {

// out = a op b over a planned iterator (two inputs). `alpha` scales b for ops with the Alpha flag; `wide_b`,
// when given, replaces a one-element b of a float16/bfloat16 op at float precision.
using BinaryFn = void (*)(BinaryOp op, const TensorIterator& it, const Scalar& alpha, std::optional<float> wide_b);
extern KernelTable<BinaryFn> binary;
// x ** exp for a number exponent computed without pow (see src/cpu/binary/pow_scalar.cpp); false, writing
// nothing, for exponents and dtypes it does not handle.
using PowScalarFn = bool (*)(const TensorIterator& it, double exp);
// The exponents and dtypes the pow_scalar kernels handle: sqrt, rsqrt, reciprocal and small products.
constexpr bool pow_scalar_handles(ScalarType t, double exp) {
  return (t == kFloat32 || t == kFloat64 || t == kBFloat16) &&
         (exp == 0.5 || exp == -0.5 || exp == -1 || exp == 2 || exp == 3 || exp == -2);
}
extern KernelTable<PowScalarFn> pow_scalar;

// One table per row of unary_ops.def: name(kCPU)(it) writes the op over the iterator.
using UnaryFn = void (*)(const TensorIterator& it);
#define EMBER_UNARY_OP(name, kind, expr) extern KernelTable<UnaryFn> name;
#include "ember/unary_ops.def"
#undef EMBER_UNARY_OP

// dst and src have the same sizes (src already broadcast) and do not overlap; src's dtype converts.
using CopyFn = void (*)(const Tensor& dst, const Tensor& src);
extern KernelTable<CopyFn> copy;
// Writes `value` (converted to dst's dtype) to every element of dst.
using FillFn = void (*)(const Tensor& dst, const Scalar& value);
extern KernelTable<FillFn> fill;
// out = cond ? a : b elementwise; all four of one shape, a, b and out of one dtype.
using WhereFn = void (*)(const Tensor& out, const Tensor& cond, const Tensor& a, const Tensor& b);
extern KernelTable<WhereFn> where;
// out = op(inputs...) over a planned iterator in one pass (see FusedPointwise).
using FusedPointwiseFn = void (*)(FusedPointwise op, const TensorIterator& it, std::span<const Scalar> values);
extern KernelTable<FusedPointwiseFn> fused_pointwise;
// Affine quantization (ember/quantized.h) between float32 and a quantized dtype's integers, both contiguous: element
// i is in channel (i / inner) % channels, with scales[c] and zero_points[c]. quantize writes dst's integers from
// src's floats, dequantize dst's floats from src's integers; per_channel selects torch's per-channel rounding.
struct AffineParams {
  const double* scales;
  const int64_t* zero_points;
  int64_t channels, inner;
  bool per_channel;
};
using AffineFn = void (*)(const Tensor& dst, const Tensor& src, const AffineParams& params);
extern KernelTable<AffineFn> quantize;
extern KernelTable<AffineFn> dequantize;

// acc has the input's shape with stride 0 along reduced dims (an expanded view of the output), and dtype
// float64 for floating inputs, int64 otherwise; it must hold the op's identity.
using ReduceFn = void (*)(ReduceOp op, const Tensor& acc, const Tensor& input);
extern KernelTable<ReduceFn> reduce;
// For each row of a contiguous (rows, n) tensor: the max (or min) and the index of its first occurrence; a NaN
// counts as the extreme, as in torch. values: x's dtype, indices: int64, (rows,).
using ArgExtremumFn = void (*)(bool is_max, const Tensor& x, const Tensor& values, const Tensor& indices);
extern KernelTable<ArgExtremumFn> arg_extremum;
// out (same shape and dtype as x, contiguous) = softmax (or log_softmax) of each row of the contiguous (rows, n)
// x. `source`: the dtype x was widened from; a float16/bfloat16 log_softmax rounds each row's sum and its log to
// it, as torch's last-dim kernel keeps them in the input dtype.
using SoftmaxFn = void (*)(const Tensor& x, const Tensor& out, bool log, ScalarType source);
extern KernelTable<SoftmaxFn> softmax;

// out (M, N, contiguous) = alpha * a (M, K) @ b (K, N) + beta * out, for 2-D tensors of one dtype.
using GemmFn = void (*)(const Tensor& a, const Tensor& b, const Tensor& out, double alpha, double beta);
extern KernelTable<GemmFn> gemm;
// The same for a batch: out (B, M, N, contiguous) = alpha * a (B, M, K) @ b (B, K, N) + beta * out, for 3-D
// tensors of one dtype; a's and b's batch strides are any (0 broadcasts), their matrices any layout.
extern KernelTable<GemmFn> gemm_batched;

// For each j < offsets.numel() and each position r of the strided "rest" block (rest_sizes, rest_strides, in
// elements from base_offset of `src`): core[j, r] = src[base_offset + offsets[j] + r].
using IndexGatherFn = void (*)(const Tensor& src, int64_t base_offset, IntArrayRef rest_sizes,
                               IntArrayRef rest_strides, const Tensor& offsets, const Tensor& core);
extern KernelTable<IndexGatherFn> index_gather;
// The reverse: dst[base_offset + offsets[j] + r] = core[j, r] (or += when accumulate).
using IndexScatterFn = void (*)(const Tensor& dst, int64_t base_offset, IntArrayRef rest_sizes,
                                IntArrayRef rest_strides, const Tensor& offsets, const Tensor& core, bool accumulate);
extern KernelTable<IndexScatterFn> index_scatter;

// Order statistics (src/cpu/sort_kernel.cpp, src/cpu/search_kernel.cpp). `rows` is a contiguous (R, n) tensor; each
// kernel works row by row. sort: values (R, n, rows' dtype) and indices (R, n, int64; undefined: values only) in
// ascending (or descending) order, NaN above everything as in torch; stable, or (rows under 512) equal elements
// in the order torch's unstable std::sort leaves them.
using SortFn = void (*)(const Tensor& rows, const Tensor& values, const Tensor& indices, bool descending, bool stable);
extern KernelTable<SortFn> sort;
// The k largest (or smallest) of each row into values/indices (R, k), torch's CPU selection (its order of ties).
using TopkFn = void (*)(const Tensor& rows, int64_t k, bool largest, bool sorted, const Tensor& values,
                        const Tensor& indices);
extern KernelTable<TopkFn> topk;
// A row statistic (kthvalue, median, nanmedian, mode) computed by kernels::row_stat.
using RowStatFn = void (*)(RowStat stat, const Tensor& rows, int64_t k, const Tensor& values, const Tensor& indices);
extern KernelTable<RowStatFn> row_stat;
// Running max (or min) of each row with the index of its latest extreme (NaN propagates), as torch's cummax/cummin.
using CumExtremumFn = void (*)(bool is_max, const Tensor& rows, const Tensor& values, const Tensor& indices);
extern KernelTable<CumExtremumFn> cum_extremum;
// For each row r of `values` (R, m), the insertion points of its elements in row r of `boundaries` (R, n; one row
// shared when R is 1), one dtype; out (R, m) int64 or int32. right: after equal elements.
using SearchSortedFn = void (*)(const Tensor& boundaries, const Tensor& values, const Tensor& out, bool right);
extern KernelTable<SearchSortedFn> searchsorted;
// out (bins, x's dtype) = the histogram of the contiguous 1-D x over [min, max] (elements outside are ignored).
using HistcFn = void (*)(const Tensor& x, const Tensor& out, double min, double max);
extern KernelTable<HistcFn> histc;
// Runs of equal neighbours of the contiguous 1-D x: writes each run's value (and length into counts, and each
// element's run number into group, where defined) and returns the number of runs.
using UniqueRunsFn = int64_t (*)(const Tensor& x, const Tensor& values, const Tensor& counts, const Tensor& group);
extern KernelTable<UniqueRunsFn> unique_runs;

}  // namespace kernels

}  // namespace ember

namespace ember::kernels {
// tril/triu over (B, R, C) tensors of one shape and dtype (any strides; dst may be src): element (b, i, j) is
// src's where j - i <= diagonal (lower) or j - i >= diagonal (upper), else zero.
using TriangleFn = void (*)(const Tensor& dst, const Tensor& src, bool upper, int64_t diagonal);
extern KernelTable<TriangleFn> triangle;
// The SVD of each matrix of a batch, every matrix stored as its contiguous transpose (column-major): a (B, n, m)
// holds the m x n inputs and is overwritten; s (B, k) gets the singular values, descending (k = min(m, n)); u
// (B, ucols, m) and vh (B, n, vrows) get U and Vh (ucols = vrows = k, or m and n when full), or are undefined for
// values only. Raises LinAlgError where LAPACK fails (a NaN in A).
using SvdFn = void (*)(const Tensor& a, const Tensor& s, const Tensor& u, const Tensor& vh, bool full);
extern KernelTable<SvdFn> svd;
}  // namespace ember::kernels
namespace ember {

// How the scatter kernel combines a source element into its target: None assigns; Mean sums (the op layer divides
// by the counts); Max/Min let a NaN win, as torch.
enum class ScatterReduce { None, Sum, Prod, Mean, Max, Min };

namespace kernels {

// For every position p of index's shape: self[p with p[dim] = index[p]] (op)= src[p]. self, index (int64) and src
// (self's dtype; strides of 0 broadcast a value) have one rank >= 1; index is no larger than src, nor than self apart
// from dim. Positions along dim are combined in order (the last assignment wins). Returns the first index outside
// [0, self.size(dim)) it meets (nothing is written for it), none when every index is in range.
using ScatterFn = std::optional<int64_t> (*)(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                                             ScatterReduce op);
extern KernelTable<ScatterFn> scatter;
// The elements of src where mask (bool, src's shape, both contiguous) is true, in order, as a new vector.
using MaskedSelectFn = Tensor (*)(const Tensor& src, const Tensor& mask);
extern KernelTable<MaskedSelectFn> masked_select;

}  // namespace kernels

}  // namespace ember

// nn activations and losses (issue 11): src/cpu/unary/nn_activation.cpp and nn_loss.cpp (built with -fno-math-errno).
#include "ember/nn/reduction.h"

namespace ember {

// The activations with numbers or a kernel of their own (the rest are unary_ops.def rows or composites).
enum class Activation { LeakyRelu, Elu, Hardtanh, Hardswish, Hardsigmoid, Threshold, Mish, LogSigmoid, Softshrink,
                        Hardshrink, GeluErf, GeluTanh, Silu };
// An activation's numbers: leaky_relu (slope), elu (alpha, scale, input_scale), hardtanh (min, max), threshold
// (threshold, value), the shrinks (lambd).
struct ActivationParams {
  double a = 0, b = 0, c = 0;
};

namespace kernels {

// it: (out, x). Hardtanh and Threshold take every non-bool dtype, the others floating dtypes.
using ActivationFn = void (*)(Activation op, const TensorIterator& it, const ActivationParams& p);
extern KernelTable<ActivationFn> activation;
// it: (grad_input, grad, s), floating: s is the input, or the result where `from_result` (the in-place forms).
using ActivationBackwardFn = void (*)(Activation op, const TensorIterator& it, const ActivationParams& p,
                                      bool from_result);
extern KernelTable<ActivationBackwardFn> activation_backward;

// nll_loss of logp (N, C, S) contiguous, target (N, S) int64 contiguous, weight (C) contiguous or undefined (with
// `lse` (N) defined, S is 1 and logp[n, t] is read as x[n, t] - lse[n]: cross_entropy's fused forward). None:
// out (N, S) = -w[t] logp[n, t, s] (0 where t is ignore_index); else out (0-dim) is their sum and total_weight
// (0-dim) the sum of w[t] over the counted elements (Mean: out is divided by it). Returns the first target outside
// [0, C) that is not ignore_index (then nothing is written).
using NllLossFn = std::optional<int64_t> (*)(const Tensor& logp, const Tensor& lse, const Tensor& target,
                                             const Tensor& weight, int64_t ignore_index, Reduction reduction, const Tensor& out,
                                             const Tensor& total_weight);
extern KernelTable<NllLossFn> nll_loss;
// The per-element coefficients of nll_loss's gradient, coef (N, S) = -w[t] g (g: grad's element for None, else the
// 0-dim grad, over total_weight for Mean; 0 where ignored); with `dense` (N, C, S) given, it gets coef at t and 0
// elsewhere.
using NllLossBackwardFn = void (*)(const Tensor& grad, const Tensor& target, const Tensor& weight, int64_t ignore_index,
                                   Reduction reduction, const Tensor& total_weight, const Tensor& coef,
                                   const Tensor& dense);
extern KernelTable<NllLossBackwardFn> nll_loss_backward;
// Per row of the contiguous (N, C) x: lse (N) = logsumexp of the row (x's dtype, float32/float64).
using RowLogSumExpFn = void (*)(const Tensor& x, const Tensor& lse);
extern KernelTable<RowLogSumExpFn> row_logsumexp;
// cross_entropy's fused backward over (N, C) rows: gx[n, j] = coef[n] * ((j == target[n]) - exp(x[n, j] - lse[n]))
// (coef 0 on ignored rows, whose target may be anything).
using CrossEntropyBackwardFn = void (*)(const Tensor& x, const Tensor& lse, const Tensor& target, const Tensor& coef,
                                        const Tensor& gx);
extern KernelTable<CrossEntropyBackwardFn> cross_entropy_backward;

}  // namespace kernels

}  // namespace ember
namespace ember {

// A convolution's geometry per spatial dim (1 to 3 of them): stride, dilation and the padding before the first
// element; the padding after follows from the tensors' sizes (it may differ: "same" with an even kernel, or an
// input the strides do not cover).
struct ConvGeometry {
  DimVector stride, padding, dilation;
  int64_t groups = 1;
};

// One pooling window per output position along an axis: `count` taps from `start` (inside the input) every `step`;
// `span` is the average's divisor factor along the axis.
struct PoolAxis {
  std::vector<int64_t> start, count, span;
  int64_t step = 1;
};

namespace kernels {

// Convolutions over contiguous tensors of one dtype: input (N, C, *I), weight (Co, C / groups, *K), output
// (N, Co, *O). forward: output = conv(input, weight) + bias (bias (Co) or undefined). backward_data: grad_input =
// the adjoint of conv in the input applied to grad_output. backward_weights: grad_weight (and grad_bias, when
// defined: the sum of grad_output over N and the positions) from grad_output and input.
using ConvForwardFn = void (*)(const Tensor& input, const Tensor& weight, const Tensor& bias, const Tensor& output,
                               const ConvGeometry& g);
using ConvBackwardDataFn = void (*)(const Tensor& grad_output, const Tensor& weight, const Tensor& grad_input,
                                    const ConvGeometry& g);
using ConvBackwardWeightsFn = void (*)(const Tensor& grad_output, const Tensor& input, const Tensor& grad_weight,
                                       const Tensor& grad_bias, const ConvGeometry& g);
extern KernelTable<ConvForwardFn> conv_forward;
extern KernelTable<ConvBackwardDataFn> conv_backward_data;
extern KernelTable<ConvBackwardWeightsFn> conv_backward_weights;

// Pooling over contiguous planes (P, H, W) into (P, OH, OW), windows given per axis. max: the largest tap (a NaN
// wins, the last one) and, when `indices` is defined, its index h * W + w (int64). avg: the sum of the taps over the divisor
// (`divisor`, or span_h * span_w when 0). max_backward: grad_input (zeroed here) gets grad_output added at the
// indices; avg_backward: each tap gets its output's gradient over the divisor.
using MaxPoolFn = void (*)(const Tensor& input, const Tensor& output, const Tensor& indices, const PoolAxis& h,
                           const PoolAxis& w);
using AvgPoolFn = void (*)(const Tensor& input, const Tensor& output, const PoolAxis& h, const PoolAxis& w,
                           int64_t divisor);
using MaxPoolBackwardFn = void (*)(const Tensor& grad_output, const Tensor& indices, const Tensor& grad_input);
using AvgPoolBackwardFn = void (*)(const Tensor& grad_output, const Tensor& grad_input, const PoolAxis& h,
                                   const PoolAxis& w, int64_t divisor);
extern KernelTable<MaxPoolFn> max_pool;
extern KernelTable<AvgPoolFn> avg_pool;
extern KernelTable<MaxPoolBackwardFn> max_pool_backward;
extern KernelTable<AvgPoolBackwardFn> avg_pool_backward;

}  // namespace kernels

}  // namespace ember

namespace ember::kernels {
// Normalisation (batch/layer/group/instance norm; src/cpu/nn/normalization_kernel.cpp). Every tensor is contiguous,
// of one dtype (float or double); x, dy, y, dx are viewed as (N, C, S); per-channel tensors are (C), per-position
// ones (S) and may be undefined (w: 1, b: 0). Sums accumulate in double.
// mean[c] and the biased var[c] over n and s.
using NormStatsFn = void (*)(const Tensor& x, const Tensor& mean, const Tensor& var);
extern KernelTable<NormStatsFn> norm_stats;
// y = ((x - mean[c]) * scale[c] + shift[c]) * w[s] + b[s], each multiply-add fused where the CPU has FMA (as
// torch); mean and shift may be undefined (0). A constant channel with its exact mean gives exactly shift * w + b.
using NormAffineFn = void (*)(const Tensor& x, const Tensor& mean, const Tensor& scale, const Tensor& shift,
                              const Tensor& w, const Tensor& b, const Tensor& y);
extern KernelTable<NormAffineFn> norm_affine;
// sum_dy[c] = sum of dy * w[s], sum_dy_x[c] = sum of dy * w[s] * x, over n and s.
using NormGradSumsFn = void (*)(const Tensor& dy, const Tensor& x, const Tensor& w, const Tensor& sum_dy,
                                const Tensor& sum_dy_x);
extern KernelTable<NormGradSumsFn> norm_grad_sums;
// dx = a[c] * dy * w[s] + b[c] * x + e[c].
using NormGradInputFn = void (*)(const Tensor& dy, const Tensor& x, const Tensor& w, const Tensor& a,
                                 const Tensor& b, const Tensor& e, const Tensor& dx);
extern KernelTable<NormGradInputFn> norm_grad_input;
}  // namespace ember::kernels
namespace ember::kernels {
// Both backward kernels of a convolution in one call (grad_output's layout work shared): the gradients whose
// tensors are defined, as conv_backward_data and conv_backward_weights compute them.
using ConvBackwardFn = void (*)(const Tensor& grad_output, const Tensor& input, const Tensor& weight,
                                const Tensor& grad_input, const Tensor& grad_weight, const Tensor& grad_bias,
                                const ConvGeometry& g);
extern KernelTable<ConvBackwardFn> conv_backward;
}  // namespace ember::kernels
